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
/// The longest file name kept for an upload, in bytes: file systems allow 255, and a name
/// of CJK letters takes three bytes a letter.
const MAX_NAME_BYTES: usize = 200;

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
/// path component only, no control or separator characters, at most `MAX_NAME_BYTES` (cut
/// on a letter's boundary, the extension kept when there is room for it).
pub(super) fn safe_name(given: &str) -> String {
    let last = given.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned: String = last
        .chars()
        .filter(|c| !c.is_control())
        .map(|c| if matches!(c, ':' | '*' | '?' | '"' | '<' | '>' | '|') { '_' } else { c })
        .collect();
    let cleaned = cut_to_bytes(&cleaned, MAX_NAME_BYTES);
    let trimmed = cleaned.trim().trim_start_matches('.');
    if trimmed.is_empty() { "upload".to_string() } else { trimmed.to_string() }
}

/// Why a path typed on the Source page is not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refused {
    /// Nothing there (or nothing this process may see).
    Missing,
    /// Under `/proc`, `/sys`, `/dev`, the state folder, the config folder, or the token file
    /// (or its folder).
    Private,
    /// A folder, a device, a pipe: not a file a person could have uploaded.
    NotRegular,
    /// Bytes that are neither a spreadsheet nor text.
    Binary,
}

/// Folders the path field never reads, whoever asks: the kernel's views of this process and
/// machine (`/proc/self/environ` holds the token as `LEADSYNC_TOKEN`).
const SYSTEM: [&str; 3] = ["/proc", "/sys", "/dev"];

/// The file a typed path names, if the path field may read it: a regular file, once links and
/// `..` are resolved, outside the system folders and every one of `private` (folders, or
/// files, each canonicalized too). Its first bytes must be a spreadsheet or text.
pub(super) fn readable_path(typed: &str, private: &[PathBuf]) -> Result<PathBuf, Refused> {
    if typed.is_empty() {
        return Err(Refused::Missing);
    }
    let real = Path::new(typed).canonicalize().map_err(|_| Refused::Missing)?;
    let inside = |root: &Path| {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        real.starts_with(&root)
    };
    if SYSTEM.iter().map(Path::new).any(inside) || private.iter().any(|p| inside(p)) {
        return Err(Refused::Private);
    }
    if !std::fs::metadata(&real).map_err(|_| Refused::Missing)?.file_type().is_file() {
        return Err(Refused::NotRegular);
    }
    let mut head = Vec::with_capacity(HEAD_BYTES);
    let file = std::fs::File::open(&real).map_err(|_| Refused::Missing)?;
    std::io::Read::read_to_end(&mut std::io::Read::take(file, HEAD_BYTES as u64), &mut head)
        .map_err(|_| Refused::Missing)?;
    if looks_binary(&head) {
        return Err(Refused::Binary);
    }
    Ok(real)
}

/// How much of a typed path's file is looked at before it is read.
const HEAD_BYTES: usize = 8192;

/// NUL bytes in a file that is neither a workbook (zip or OLE) nor UTF-16 text (whose NULs,
/// for Latin letters, fall on every other byte).
fn looks_binary(head: &[u8]) -> bool {
    const ZIP: &[u8] = b"PK\x03\x04";
    const OLE: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0];
    if head.starts_with(ZIP) || head.starts_with(OLE) || !head.contains(&0) {
        return false;
    }
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        return false;
    }
    let nuls_at = |parity: usize| head.iter().skip(parity).step_by(2).filter(|b| **b == 0).count();
    let pairs = head.len() / 2;
    let utf16 =
        [0, 1].iter().any(|&parity| nuls_at(parity) * 10 >= pairs * 7 && nuls_at(1 - parity) == 0);
    !utf16
}

/// `name` in at most `max` bytes, cut on a char boundary, keeping a short extension.
fn cut_to_bytes(name: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_string();
    }
    let extension = name.rfind('.').map(|at| &name[at..]).filter(|e| e.len() <= 16).unwrap_or("");
    let mut end = max - extension.len();
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{extension}", &name[..end])
}

#[cfg(test)]
mod tests {
    use super::{Refused, looks_binary, new_id, readable_path, safe_name};

    #[test]
    fn the_path_field_reads_only_plain_files_outside_private_folders() {
        let dir = tempfile::tempdir().unwrap();
        let private = dir.path().join("state");
        std::fs::create_dir_all(&private).unwrap();
        std::fs::write(private.join("token"), "secret").unwrap();
        let sheet = dir.path().join("leads.csv");
        std::fs::write(&sheet, "Name,Phone\nA,1\n").unwrap();
        let list = [private.clone()];
        let at = |p: &std::path::Path| readable_path(&p.display().to_string(), &list);
        assert_eq!(at(&sheet), Ok(sheet.canonicalize().unwrap()));
        assert_eq!(at(&private.join("token")), Err(Refused::Private));
        std::fs::create_dir(dir.path().join("x")).unwrap();
        let sneaky = dir.path().join("x/../state/token");
        assert_eq!(at(&sneaky), Err(Refused::Private));
        #[cfg(unix)]
        {
            let link = dir.path().join("link.csv");
            std::os::unix::fs::symlink(private.join("token"), &link).unwrap();
            assert_eq!(at(&link), Err(Refused::Private));
        }
        for system in ["/proc/self/environ", "/proc/self/cmdline", "/dev/zero", "/sys/kernel"] {
            let refused = readable_path(system, &list);
            assert!(matches!(refused, Err(Refused::Private | Refused::Missing)), "{system}");
        }
        assert_eq!(at(dir.path()), Err(Refused::NotRegular));
        assert_eq!(at(&dir.path().join("nowhere.csv")), Err(Refused::Missing));
        assert_eq!(readable_path("", &list), Err(Refused::Missing));
    }

    #[test]
    fn binary_bytes_are_told_from_workbooks_and_utf16_text() {
        assert!(looks_binary(b"A=1\0B=2\0LEADSYNC_TOKEN=x\0"));
        assert!(looks_binary(&[0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0]));
        assert!(!looks_binary(b"Name,Phone\n"));
        assert!(!looks_binary(b"PK\x03\x04\0\0\0"));
        let utf16: Vec<u8> = "Name,Phone\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert!(!looks_binary(&utf16));
    }

    #[test]
    fn an_upload_name_cannot_leave_its_folder() {
        assert_eq!(safe_name("leads.csv"), "leads.csv");
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name("C:\\Users\\anna\\Kunden Mai.xlsx"), "Kunden Mai.xlsx");
        assert_eq!(safe_name(".."), "upload");
        assert_eq!(safe_name(""), "upload");
        assert_eq!(safe_name("a\u{0}b\nc?.csv"), "abc_.csv");
        assert_eq!(safe_name(&"x".repeat(500)).len(), 200);
        let cjk = format!("{}.xlsx", "表".repeat(120));
        let cut = safe_name(&cjk);
        assert!(cut.len() <= 200 && cut.ends_with("表.xlsx"), "{cut}");
    }

    #[test]
    fn ids_are_sixteen_hex_digits() {
        let id = new_id();
        assert_eq!(id.len(), 16);
        assert!(id.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(id, new_id());
    }
}
