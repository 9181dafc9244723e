//! The run lock: one exclusive lock per journal, taken before the journal or the service's lead
//! list is read and held until the journal is closed, so two runs of the same rows never work
//! from two views of what was sent.
//!
//! The lock lives in a file of its own beside the journal (`<journal>.lock`): the journal itself
//! is replaced by a rename when a run starts over, and a lock on a replaced file guards nothing.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::JournalError;

/// Held for the life of a run; released when dropped (or when the process dies).
#[derive(Debug)]
pub struct RunLock {
    journal: PathBuf,
    _file: File,
}

impl RunLock {
    /// Locks the run whose journal is `journal`, creating its folder and lock file as needed.
    /// Fails at once with [`JournalError::Busy`] when another process holds the lock.
    pub fn acquire(journal: &Path) -> Result<RunLock, JournalError> {
        let path = lock_path(journal);
        let dir = parent(&path);
        std::fs::create_dir_all(dir).map_err(|e| io_err("create the folder of", journal, e))?;
        let existed = path.exists();
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| io_err("create the lock of", journal, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(JournalError::Busy { path: journal.display().to_string() });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_err("lock", journal, e)),
        }
        if !existed {
            sync_dir(dir).map_err(|e| io_err("sync the folder of", journal, e))?;
        }
        Ok(RunLock { journal: journal.to_path_buf(), _file: file })
    }

    /// The journal this lock guards.
    pub fn journal(&self) -> &Path {
        &self.journal
    }
}

fn lock_path(journal: &Path) -> PathBuf {
    let mut name = journal.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    journal.with_file_name(name)
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Makes a new or renamed entry of `dir` durable: without it a power cut can lose the file
/// itself even though its contents were synced.
pub(super) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// The folder that holds `path`, for [`sync_dir`].
pub(super) fn folder_of(path: &Path) -> &Path {
    parent(path)
}

fn io_err(action: &'static str, path: &Path, source: std::io::Error) -> JournalError {
    JournalError::Io { action, path: path.display().to_string(), source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_journal_is_busy_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("deep/er/j.jsonl");
        let first = RunLock::acquire(&journal).unwrap();
        assert!(dir.path().join("deep/er/j.jsonl.lock").exists());
        assert!(matches!(RunLock::acquire(&journal), Err(JournalError::Busy { .. })));
        drop(first);
        let again = RunLock::acquire(&journal).unwrap();
        assert_eq!(again.journal(), journal);
    }
}
