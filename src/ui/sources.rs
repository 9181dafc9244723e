//! The sheets chosen in this session, each under a random id that the next steps' addresses
//! carry: an upload or a download in its own folder under `<state>/ui/uploads/<id>/`, or a path
//! on this machine read where it is. The table lives in memory: a restart forgets it (and the
//! secret changes with a restart anyway); the uploaded files stay in the state folder.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rand::RngCore;

/// Where uploads go, under the state folder.
pub(super) const UPLOADS: &str = "ui/uploads";
/// The longest file name kept for an upload, in characters.
const MAX_NAME_CHARS: usize = 120;

/// One chosen sheet.
#[derive(Debug, Clone)]
pub(super) struct Chosen {
    /// The file to read.
    pub path: PathBuf,
    /// What the user knows it as: the uploaded file's name, the path or the URL typed.
    pub location: String,
}

#[derive(Debug)]
pub(super) struct Sources {
    uploads: PathBuf,
    chosen: Mutex<HashMap<String, Chosen>>,
}

impl Sources {
    pub(super) fn new(state_dir: &Path) -> Sources {
        Sources { uploads: state_dir.join(UPLOADS), chosen: Mutex::new(HashMap::new()) }
    }

    /// The folder every upload has a folder in.
    pub(super) fn uploads(&self) -> &Path {
        &self.uploads
    }

    /// A new id and its empty folder, for an upload or a download.
    pub(super) fn new_folder(&self) -> std::io::Result<(String, PathBuf)> {
        let id = new_id();
        let dir = self.uploads.join(&id);
        std::fs::create_dir_all(&dir)?;
        Ok((id, dir))
    }

    /// Registers a sheet under `id`.
    pub(super) fn insert(&self, id: String, chosen: Chosen) {
        self.chosen.lock().expect("the table is never left half-written").insert(id, chosen);
    }

    /// A list uploaded in an earlier session (named by a saved mapping) registered again, under
    /// a new id; only a regular file inside the uploads folder, never any other path a mapping
    /// file could name.
    pub(super) fn register_existing(&self, path: &Path) -> Option<String> {
        let uploads = self.uploads.canonicalize().ok()?;
        let real = path.canonicalize().ok()?;
        let regular = std::fs::symlink_metadata(&real).ok()?.file_type().is_file();
        if !regular || !real.starts_with(&uploads) {
            return None;
        }
        let location = real.file_name()?.to_string_lossy().into_owned();
        let id = new_id();
        self.insert(id.clone(), Chosen { path: real, location });
        Some(id)
    }

    pub(super) fn get(&self, id: &str) -> Option<Chosen> {
        self.chosen.lock().expect("the table is never left half-written").get(id).cloned()
    }
}

/// 16 random hex digits: ids are not guessable from each other, though the secret alone guards
/// the server.
pub(super) fn new_id() -> String {
    let mut bytes = [0u8; 8];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The name a browser gave an upload, made safe to be a file name in its folder: the last
/// path component only, no control or separator characters, at most `MAX_NAME_CHARS`.
pub(super) fn safe_name(given: &str) -> String {
    let last = given.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned: String = last
        .chars()
        .filter(|c| !c.is_control())
        .map(|c| if matches!(c, ':' | '*' | '?' | '"' | '<' | '>' | '|') { '_' } else { c })
        .take(MAX_NAME_CHARS)
        .collect();
    let trimmed = cleaned.trim().trim_start_matches('.');
    if trimmed.is_empty() { "upload".to_string() } else { trimmed.to_string() }
}

#[cfg(test)]
mod tests {
    use super::{new_id, safe_name};

    #[test]
    fn an_upload_name_cannot_leave_its_folder() {
        assert_eq!(safe_name("leads.csv"), "leads.csv");
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name("C:\\Users\\anna\\Kunden Mai.xlsx"), "Kunden Mai.xlsx");
        assert_eq!(safe_name(".."), "upload");
        assert_eq!(safe_name(""), "upload");
        assert_eq!(safe_name("a\u{0}b\nc?.csv"), "abc_.csv");
        assert_eq!(safe_name(&"x".repeat(500)).chars().count(), 120);
    }

    #[test]
    fn ids_are_sixteen_hex_digits() {
        let id = new_id();
        assert_eq!(id.len(), 16);
        assert!(id.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(id, new_id());
    }
}
