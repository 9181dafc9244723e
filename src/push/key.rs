//! A lead's own key: the identity of a row across runs of its source, sent with the lead as
//! the variable `leadsync_key` so that the lead list says which row wrote which lead.
//!
//! The key is a 64-bit digest (16 hex digits) of the source's location (its canonical path or
//! URL, not its bytes), the sheet, the row's content fingerprint (what it sends) and which
//! occurrence of that content in the sheet the row is. It stays the same when rows are added,
//! removed or moved elsewhere in the sheet, so `sync` and `--skip-existing` can tell exactly
//! which rows of a grown sheet are already on the service, with `--allow-duplicates` too. It
//! reveals nothing of the row: without the row's content a digest cannot be checked against
//! anything. The account is not part of it: a lead list belongs to one account already, and an
//! account's name changes when its first assistant appears, which must not change the keys.

use std::collections::{HashMap, HashSet};

/// The lead variable that carries the key.
pub const VARIABLE: &str = "leadsync_key";

/// Gives each row of one sheet its key, in file order.
#[derive(Debug)]
pub struct RowKeys {
    prefix: Vec<u8>,
    /// Content fingerprints seen once, and how often those seen more than once were: a
    /// million distinct rows cost a set of a million `u64`s, not a map of counts.
    seen: HashSet<u64>,
    repeats: HashMap<u64, u32>,
}

impl RowKeys {
    pub fn new(location: &str, sheet: Option<&str>) -> RowKeys {
        let mut prefix = Vec::with_capacity(location.len() + 64);
        prefix.extend_from_slice(location.as_bytes());
        prefix.push(b'\n');
        prefix.extend_from_slice(sheet.unwrap_or_default().as_bytes());
        prefix.push(b'\n');
        RowKeys { prefix, seen: HashSet::new(), repeats: HashMap::new() }
    }

    /// The key of the next row (in file order) whose content fingerprint is `fp`.
    pub fn next(&mut self, fp: u64) -> u64 {
        let occurrence = if self.seen.insert(fp) {
            0
        } else {
            let count = self.repeats.entry(fp).or_insert(0);
            *count += 1;
            *count
        };
        let mut hasher = blake3::Hasher::new();
        hasher.update(&self.prefix);
        hasher.update(&fp.to_le_bytes());
        hasher.update(&occurrence.to_le_bytes());
        let hash = hasher.finalize();
        u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"))
    }
}

/// A key as the lead's variable holds it.
pub fn text(key: u64) -> String {
    format!("{key:016x}")
}

/// A key read back from a lead's variables; anything else is no key.
pub fn parse(text: &str) -> Option<u64> {
    (text.len() == 16).then(|| u64::from_str_radix(text, 16).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_with_the_same_content_get_keys_by_occurrence() {
        let mut a = RowKeys::new("/data/leads.xlsx", Some("Jan"));
        let (first, other, second) = (a.next(7), a.next(8), a.next(7));
        assert_ne!(first, second, "the second occurrence is another row");
        // Another run of a grown sheet: a row was added before them; the keys stay.
        let mut b = RowKeys::new("/data/leads.xlsx", Some("Jan"));
        assert_eq!((b.next(9), b.next(7), b.next(8), b.next(7)).1, first);
        let mut c = RowKeys::new("/data/leads.xlsx", Some("Jan"));
        c.next(7);
        assert_eq!((c.next(8), c.next(7)), (other, second));
        let mut feb = RowKeys::new("/data/leads.xlsx", Some("Feb"));
        assert_ne!(feb.next(7), first, "another sheet, another key");
        assert_eq!(parse(&text(first)), Some(first));
        assert_eq!(parse("xyz"), None);
    }
}
