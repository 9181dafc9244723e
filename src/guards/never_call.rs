//! The account's own do-not-call list: the numbers a person chose never to call ("never call
//! this number" on the Check page), kept in the state folder for one service and account, and
//! applied as a suppression list by every later check, `import` and `sync` of that account,
//! whatever the file or the front. A plain CSV (`phone,added,note`) a person can open, with
//! numbers in E.164 so any sheet's way of writing them matches.

use std::path::{Path, PathBuf};

/// Where the lists live, under the state folder.
const FOLDER: &str = "do-not-call";
/// The list's columns; `phone` is a header the suppression reader finds by itself.
const HEADER: [&str; 3] = ["phone", "added", "note"];
/// The longest note kept: a note says where the number came from, not a story.
const MAX_NOTE_CHARS: usize = 200;
/// The most numbers one list holds: a list is read whole for the page, and a person adds numbers
/// one at a time.
const MAX_ENTRIES: usize = 1_000_000;

/// Held while a list is read, changed and written back: two numbers added at the same moment
/// (two tabs, two rows) must both stay on it.
static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// One number on the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeverCallEntry {
    /// E.164.
    pub phone: String,
    /// When it was added, `YYYY-MM-DD HH:MM` in UTC.
    pub added: String,
    /// Where it came from (`kunden.xlsx, row 7`).
    pub note: String,
}

/// The list of one account on one service.
#[derive(Debug, Clone)]
pub struct NeverCall {
    path: PathBuf,
}

impl NeverCall {
    /// The list of `account` (the tag the service's journals use, `user:7`) on `service`. The
    /// file name is a digest of both: a service address is no file name, and two accounts of
    /// one machine never share a list.
    pub fn for_account(state_dir: &Path, service: &str, account: &str) -> NeverCall {
        let digest = blake3::hash(format!("{service}\n{account}").as_bytes());
        let name = format!("{}.csv", &digest.to_hex()[..16]);
        NeverCall { path: state_dir.join(FOLDER).join(name) }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the list has been started (the guards only load a list that exists).
    pub fn exists(&self) -> bool {
        std::fs::symlink_metadata(&self.path).is_ok_and(|m| m.file_type().is_file())
    }

    /// Every number on the list, in the order added; empty when there is none yet.
    pub fn entries(&self) -> std::io::Result<Vec<NeverCallEntry>> {
        if !self.exists() {
            return Ok(Vec::new());
        }
        let mut reader = csv::ReaderBuilder::new().flexible(true).from_path(&self.path)?;
        let mut out = Vec::new();
        for record in reader.records().take(MAX_ENTRIES) {
            let record = record.map_err(std::io::Error::other)?;
            let cell = |i: usize| record.get(i).unwrap_or_default().to_string();
            if !cell(0).trim().is_empty() {
                out.push(NeverCallEntry { phone: cell(0), added: cell(1), note: cell(2) });
            }
        }
        Ok(out)
    }

    /// Adds `phone` (E.164) with a note; `false` when it was on the list already.
    pub fn add(&self, phone: &str, note: &str) -> std::io::Result<bool> {
        let _writing = WRITING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut entries = self.entries()?;
        if entries.iter().any(|e| e.phone == phone) {
            return Ok(false);
        }
        let note: String = note.chars().filter(|c| !c.is_control()).take(MAX_NOTE_CHARS).collect();
        let added = now_text();
        entries.push(NeverCallEntry { phone: phone.to_string(), added, note });
        self.write(&entries)?;
        Ok(true)
    }

    /// Takes `phone` off the list; `false` when it was not on it.
    pub fn remove(&self, phone: &str) -> std::io::Result<bool> {
        let _writing = WRITING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut entries = self.entries()?;
        let before = entries.len();
        entries.retain(|e| e.phone != phone);
        if entries.len() == before {
            return Ok(false);
        }
        self.write(&entries)?;
        Ok(true)
    }

    /// The whole list, written beside the old one and renamed over it: a run that reads the
    /// list while a number is added sees the old list or the new one, never half of one. The
    /// folder and the file are the user's alone: they hold people's numbers.
    fn write(&self, entries: &[NeverCallEntry]) -> std::io::Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        create_private_dir(dir)?;
        let mut temp = tempfile::NamedTempFile::new_in(dir)?;
        {
            let mut writer = csv::Writer::from_writer(temp.as_file_mut());
            writer.write_record(HEADER)?;
            for entry in entries {
                let note = defused(&entry.note);
                writer.write_record([entry.phone.as_str(), entry.added.as_str(), note.as_str()])?;
            }
            writer.flush()?;
        }
        temp.as_file().sync_all()?;
        temp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// The lists of one account under each name it is known by (its user, its campaigns): a number
/// is added to every one and taken off every one, so it stays on the account's list when one
/// of those names goes (a campaign deleted, assistants added).
#[derive(Debug, Clone)]
pub struct NeverCalls(Vec<NeverCall>);

impl NeverCalls {
    /// `None` for an account known by no name (no assistants and no campaigns).
    pub fn of(lists: Vec<NeverCall>) -> Option<NeverCalls> {
        (!lists.is_empty()).then_some(NeverCalls(lists))
    }

    /// Every number on any of the lists, each once, in the order added.
    pub fn entries(&self) -> std::io::Result<Vec<NeverCallEntry>> {
        let mut out: Vec<NeverCallEntry> = Vec::new();
        for list in &self.0 {
            for entry in list.entries()? {
                if !out.iter().any(|e| e.phone == entry.phone) {
                    out.push(entry);
                }
            }
        }
        Ok(out)
    }

    /// Adds `phone` to every list; `false` when each had it already.
    pub fn add(&self, phone: &str, note: &str) -> std::io::Result<bool> {
        let mut added = false;
        for list in &self.0 {
            added |= list.add(phone, note)?;
        }
        Ok(added)
    }

    /// Takes `phone` off every list; `false` when none had it.
    pub fn remove(&self, phone: &str) -> std::io::Result<bool> {
        let mut removed = false;
        for list in &self.0 {
            removed |= list.remove(phone)?;
        }
        Ok(removed)
    }
}

/// A note a spreadsheet would run as a formula, written as text.
fn defused(note: &str) -> String {
    match note.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        true => format!("'{note}"),
        false => note.to_string(),
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Now, as `YYYY-MM-DD HH:MM` in UTC.
fn now_text() -> String {
    chrono::Utc::now().format("%Y-%m-%d %H:%M").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_added_once_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let list = NeverCall::for_account(dir.path(), "https://calls.example/api", "user:7");
        assert!(!list.exists());
        assert_eq!(list.entries().unwrap(), []);
        assert!(list.add("+4915123456789", "kunden.xlsx, row 7").unwrap());
        assert!(!list.add("+4915123456789", "again").unwrap(), "once");
        assert!(list.add("+436641234567", "=HYPERLINK(\"x\")").unwrap());
        let entries = list.entries().unwrap();
        let phones: Vec<&str> = entries.iter().map(|e| e.phone.as_str()).collect();
        assert_eq!(phones, ["+4915123456789", "+436641234567"]);
        assert_eq!(entries[0].note, "kunden.xlsx, row 7");
        assert!(entries[1].note.starts_with("'="), "a formula is text: {:?}", entries[1]);
        assert!(list.remove("+4915123456789").unwrap());
        assert!(!list.remove("+4915123456789").unwrap());
        assert_eq!(list.entries().unwrap().len(), 1);
    }

    #[test]
    fn a_number_stays_on_the_accounts_list_when_one_of_its_names_goes() {
        let dir = tempfile::tempdir().unwrap();
        let named = |names: &[&str]| {
            let lists = names.iter().map(|n| NeverCall::for_account(dir.path(), "s", n)).collect();
            NeverCalls::of(lists).unwrap()
        };
        named(&["campaign:10", "campaign:11"]).add("+4915123456789", "").unwrap();
        // Campaign 10 deleted: the account is known as campaign 11 (and later as its user).
        let later = named(&["user:7", "campaign:11"]);
        let phones: Vec<String> = later.entries().unwrap().into_iter().map(|e| e.phone).collect();
        assert_eq!(phones, ["+4915123456789"]);
        assert!(later.remove("+4915123456789").unwrap());
        assert!(later.entries().unwrap().is_empty(), "off every list of its names");
        assert!(NeverCalls::of(Vec::new()).is_none());
    }

    #[test]
    fn numbers_added_at_the_same_moment_all_stay() {
        let dir = tempfile::tempdir().unwrap();
        let list = NeverCall::for_account(dir.path(), "s", "user:1");
        // Rounds of 16 threads let go at once, so their reads and writes overlap.
        for round in 0..20 {
            let start = std::sync::Barrier::new(16);
            std::thread::scope(|scope| {
                for i in 0..16 {
                    let (list, start) = (&list, &start);
                    scope.spawn(move || {
                        start.wait();
                        list.add(&format!("+49151{round:03}000{i:02}"), "").unwrap()
                    });
                }
            });
        }
        assert_eq!(list.entries().unwrap().len(), 20 * 16);
    }

    #[test]
    fn each_account_of_each_service_has_its_own_list() {
        let dir = Path::new("/state");
        let one = NeverCall::for_account(dir, "https://a.example", "user:1");
        assert_ne!(one.path(), NeverCall::for_account(dir, "https://a.example", "user:2").path());
        assert_ne!(one.path(), NeverCall::for_account(dir, "https://b.example", "user:1").path());
        assert_eq!(one.path(), NeverCall::for_account(dir, "https://a.example", "user:1").path());
    }

    #[cfg(unix)]
    #[test]
    fn the_list_is_the_users_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let list = NeverCall::for_account(dir.path(), "s", "user:1");
        list.add("+4915123456789", "").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(list.path()), 0o600);
        assert_eq!(mode(list.path().parent().unwrap()), 0o700);
    }
}
