//! A row's lead variables: names shared by every row, values its own.
//!
//! A dry run builds the variables of every row, and as a map of owned strings they were a
//! tenth of its CPU: each name copied into each row, hashed and freed again. Names come from
//! the mapping and the headers, a few dozen per process, so they are interned once and every
//! row holds `&'static str`s; a row's variables cost the list and the values.

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

use serde::ser::{Serialize, SerializeMap, Serializer};

/// The process-wide copy of `name`. Memory grows only with distinct names (column names and
/// mapping keys), never with rows.
pub fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(known) = names.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    leaked
}

/// Past this many variables a row looks names up in a hash index rather than by scanning.
const SCAN_LIMIT: usize = 16;

/// Lead variables in column order, serialized as a JSON object. Setting a name again replaces
/// its value in place, as a map would; equality ignores order, as a map's does.
#[derive(Debug, Clone, Default)]
pub struct Variables {
    entries: Vec<(&'static str, String)>,
    /// Positions by name, kept only for rows with more than `SCAN_LIMIT` variables.
    index: Option<HashMap<&'static str, usize>>,
}

impl Variables {
    pub fn new() -> Variables {
        Variables::default()
    }

    pub fn with_capacity(capacity: usize) -> Variables {
        Variables { entries: Vec::with_capacity(capacity), index: None }
    }

    /// Sets `name` (an interned name) to `value`.
    pub fn insert(&mut self, name: &'static str, value: String) {
        match self.position(name) {
            Some(at) => self.entries[at].1 = value,
            None => {
                if let Some(index) = &mut self.index {
                    index.insert(name, self.entries.len());
                }
                self.entries.push((name, value));
                if self.index.is_none() && self.entries.len() > SCAN_LIMIT {
                    self.index =
                        Some(self.entries.iter().enumerate().map(|(i, e)| (e.0, i)).collect());
                }
            }
        }
    }

    /// Sets `name` to `value`, interning the name: for names not known in advance.
    pub fn insert_named(&mut self, name: &str, value: impl Into<String>) {
        self.insert(intern(name), value.into());
    }

    fn position(&self, name: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(name).copied(),
            None => self.entries.iter().position(|(n, _)| *n == name),
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.position(name).map(|at| self.entries[at].1.as_str())
    }

    /// Names and values in column order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> + '_ {
        self.entries.iter().map(|(n, v)| (*n, v.as_str()))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl PartialEq for Variables {
    fn eq(&self, other: &Variables) -> bool {
        self.len() == other.len() && self.iter().all(|(n, v)| other.get(n) == Some(v))
    }
}

impl Eq for Variables {}

impl<N: AsRef<str>, V: Into<String>> FromIterator<(N, V)> for Variables {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(pairs: I) -> Variables {
        let mut vars = Variables::new();
        for (name, value) in pairs {
            vars.insert_named(name.as_ref(), value);
        }
        vars
    }
}

impl Serialize for Variables {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (name, value) in self.iter() {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interned_names_are_one_copy() {
        let a = intern(&String::from("customer_name"));
        let b = intern("customer_name");
        assert!(std::ptr::eq(a, b));
    }

    #[test]
    fn setting_a_name_again_replaces_in_place_like_a_map() {
        for count in [3, SCAN_LIMIT + 5] {
            let mut vars = Variables::new();
            let mut map = indexmap::IndexMap::new();
            for i in 0..count {
                vars.insert_named(&format!("v{i}"), i.to_string());
                map.insert(format!("v{i}"), i.to_string());
            }
            vars.insert_named("v1", "again");
            map.insert("v1".to_string(), "again".to_string());
            // The last name came in after the index was built (past the limit): it must be in
            // the index too, or setting it again would add a second entry.
            let last = format!("v{}", count - 1);
            vars.insert_named(&last, "last again");
            map.insert(last.clone(), "last again".to_string());
            let ours: Vec<(String, String)> =
                vars.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
            let theirs: Vec<(String, String)> = map.into_iter().collect();
            assert_eq!(ours, theirs, "{count} variables");
            assert_eq!(vars.get("v1"), Some("again"));
            assert_eq!(vars.get(&last), Some("last again"));
            for i in 2..count - 1 {
                assert_eq!(vars.get(&format!("v{i}")), Some(i.to_string().as_str()));
            }
            assert_eq!(vars.get("missing"), None);
        }
    }

    #[test]
    fn equality_ignores_order_and_json_keeps_it() {
        let ab: Variables = [("a", "1"), ("b", "2")].into_iter().collect();
        let ba: Variables = [("b", "2"), ("a", "1")].into_iter().collect();
        assert_eq!(ab, ba);
        assert_ne!(ab, [("a", "1")].into_iter().collect::<Variables>());
        assert_ne!(ab, [("a", "1"), ("b", "3")].into_iter().collect::<Variables>());
        assert_eq!(serde_json::to_string(&ba).unwrap(), r#"{"b":"2","a":"1"}"#);
    }
}
