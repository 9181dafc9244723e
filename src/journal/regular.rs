//! The state folder read defensively: only regular files are opened (a FIFO named like a
//! journal would block a run holding its lock; a device or a link out of the folder is not
//! ours to read), and every line is read with a bound.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, Read};
use std::path::Path;

/// The longest line of a state file read: journal and ledger lines are a few hundred bytes.
pub const MAX_LINE: u64 = 1 << 20;

/// Opens `path` for reading when it is a regular file, not through a symbolic link (what a
/// scan of the folder finds); never blocks on a FIFO.
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    open_checked(path, false)
}

/// Opens `path` for reading when it is a regular file, following a link (a journal the user
/// named with `--journal` may be one); never blocks on a FIFO.
pub fn open_file(path: &Path) -> std::io::Result<File> {
    open_checked(path, true)
}

fn open_checked(path: &Path, follow: bool) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let no_follow = if follow { 0 } else { libc::O_NOFOLLOW };
        options.custom_flags(libc::O_NONBLOCK | no_follow);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("`{}` is not a regular file", path.display()),
        ));
    }
    Ok(file)
}

/// Whether `path` is a regular file itself (not a link, a FIFO or a device).
pub fn is_regular(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// The next line of `reader` without its newline, read with the bound `MAX_LINE`: `None` at
/// the end, or at a line too long to be a state file's (the rest is not read).
pub fn next_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> Option<()> {
    line.clear();
    let read = reader.by_ref().take(MAX_LINE).read_until(b'\n', line).ok()?;
    if read == 0 || (read as u64 == MAX_LINE && line.last() != Some(&b'\n')) {
        return None;
    }
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("run.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return; // no mkfifo here: nothing to check
        }
        assert!(open_regular(&fifo).is_err());
        assert!(!is_regular(&fifo));
        let link = dir.path().join("link.jsonl");
        std::fs::write(dir.path().join("real"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("real"), &link).unwrap();
        assert!(open_regular(&link).is_err(), "a link is not followed");
        assert!(open_regular(&dir.path().join("real")).is_ok());
    }

    #[test]
    fn lines_are_read_with_a_bound() {
        let text = format!("a\n{}\nb\n", "x".repeat(MAX_LINE as usize + 5));
        let mut reader = std::io::BufReader::new(text.as_bytes());
        let mut line = Vec::new();
        assert_eq!(next_line(&mut reader, &mut line), Some(()));
        assert_eq!(line, b"a");
        assert_eq!(next_line(&mut reader, &mut line), None, "a line too long ends the reading");
    }
}
