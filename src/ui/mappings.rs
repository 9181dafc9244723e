//! Mappings saved from the Mapping page, as the TOML files `leadsync import --mapping` and
//! `leadsync sync --mapping` read, under `<state>/ui/mappings/`: a sheet whose columns a saved
//! mapping fits (`mapping::fits`) gets it proposed, so an export that comes back every week is
//! mapped once.

use std::path::{Path, PathBuf};

use crate::mapping::{MappingFile, fits};

use super::sources::safe_name;

/// Where saved mappings go, under the state folder.
const MAPPINGS: &str = "ui/mappings";
/// Saved mappings looked at for a proposal, at most.
const MAX_PROPOSED: usize = 50;

#[derive(Debug)]
pub(super) struct SavedMappings {
    dir: PathBuf,
}

impl SavedMappings {
    pub(super) fn new(state_dir: &Path) -> SavedMappings {
        SavedMappings { dir: state_dir.join(MAPPINGS) }
    }

    /// Writes `file` as `<name>.toml` (a name made safe to be a file name); returns its path.
    pub(super) fn save(&self, name: &str, file: &MappingFile) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(&self.dir)?;
        let stem = safe_name(name.trim().trim_end_matches(".toml"));
        let path = self.dir.join(format!("{stem}.toml"));
        std::fs::write(&path, as_toml(file))?;
        Ok(path)
    }

    /// Every suppression list a saved mapping names, as a path.
    pub(super) fn suppression_lists(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .filter_map(|path| MappingFile::load(&path).ok())
            .flat_map(|file| file.suppress.into_iter().map(PathBuf::from))
            .collect()
    }

    /// The saved mappings that can read a sheet with these headers, by name.
    pub(super) fn fitting(&self, headers: &[String]) -> Vec<(String, MappingFile)> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        let mut found: Vec<(String, MappingFile)> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .take(MAX_PROPOSED)
            .filter_map(|path| {
                let file = MappingFile::load(&path).ok()?;
                let name = path.file_stem()?.to_string_lossy().into_owned();
                fits(&file, headers).then_some((name, file))
            })
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found
    }
}

/// The mapping as a file, with a first line that says where it came from.
pub(super) fn as_toml(file: &MappingFile) -> String {
    let body = toml::to_string(file).unwrap_or_default();
    format!("# leadsync mapping, saved from `leadsync ui`; use it with --mapping FILE\n{body}")
}
