//! The list endpoints' answers, in every shape the service has been seen to send, read without
//! building them whole.
//!
//! A list may be a bare array, an object with the array under the resource's name, `data` or
//! `items`, a Laravel page envelope, or an API-resource page (`data`, `links.next`, `meta`),
//! also wrapped in such an object. The answer is parsed shallowly: objects down to the list,
//! and the list as the records' raw JSON text, borrowed from the body. A caller decodes one
//! record at a time, so a list of a million leads costs its body and a slice a record, not a
//! tree of values (4 GB for a million leads before).

use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{ClientError, snippet};

/// The most pages a list walk reads: at 15 a page, 1.5 million records. Past it the service is
/// taken to be paging forever.
pub(super) const MAX_LIST_PAGES: u64 = 100_000;
/// How deep a list may sit in wrapping objects: `{"data": {"leads": [...]}}` is two.
const MAX_LIST_NESTING: u8 = 2;

/// One answer of a list endpoint: its records, as the service wrote them, and what it says
/// about further pages.
#[derive(Debug, Default)]
pub(super) struct ListPage<'a> {
    pub(super) items: Vec<&'a RawValue>,
    pub(super) paging: Paging,
}

/// A JSON value read one level deep: an array's elements and an object's values stay raw.
enum Shallow<'a> {
    Array(Vec<&'a RawValue>),
    Object(Vec<(String, &'a RawValue)>),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Shallow<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ShallowVisitor)
    }
}

struct ShallowVisitor;

impl<'de> Visitor<'de> for ShallowVisitor {
    type Value = Shallow<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Shallow::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(Shallow::Object(entries))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Shallow::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Shallow::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Shallow::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Shallow::Other)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Shallow::Other)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Shallow::Other)
    }
}

/// The shallow reading of raw JSON text (which the body's parse has already checked).
fn shallow(raw: &RawValue) -> Shallow<'_> {
    serde_json::from_str(raw.get()).unwrap_or(Shallow::Other)
}

fn get<'a>(entries: &[(String, &'a RawValue)], key: &str) -> Option<&'a RawValue> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
}

/// A small raw value (a page number, a URL, `meta`) as a value.
fn value(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

/// The pagination fields of a page envelope; all `None` for a list that is not paged.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Paging {
    pub(super) current: Option<u64>,
    pub(super) last: Option<u64>,
    pub(super) next_url: Option<String>,
}

impl Paging {
    /// Laravel's paginator puts the fields beside the list; its API resources put the page
    /// numbers under `meta` and the next URL under `links` (an object there, an array of page
    /// links in the paginator).
    fn of(entries: &[(String, &RawValue)]) -> Paging {
        let nested = |key: &str| get(entries, key).map(value).filter(Value::is_object);
        let (meta, links) = (nested("meta"), nested("links"));
        let number = |key: &str| {
            let own = get(entries, key).map(value);
            own.or_else(|| meta.as_ref()?.get(key).cloned()).as_ref().and_then(page_number)
        };
        let next_url = get(entries, "next_page_url")
            .map(value)
            .or_else(|| links.as_ref()?.get("next").cloned());
        let next_url = next_url.as_ref().and_then(Value::as_str).filter(|u| !u.trim().is_empty());
        Paging {
            current: number("current_page"),
            last: number("last_page"),
            next_url: next_url.map(str::to_string),
        }
    }

    /// The fields as the service wrote them, for an error to quote.
    fn describe(&self) -> String {
        let show = |n: Option<u64>| n.map_or_else(|| "none".to_string(), |n| n.to_string());
        let next = self.next_url.as_deref().unwrap_or("none");
        format!(
            "current_page {}, last_page {}, next page URL {next}",
            show(self.current),
            show(self.last)
        )
    }

    fn is_known(&self) -> bool {
        self.current.is_some() || self.last.is_some() || self.next_url.is_some()
    }

    /// Whether the envelope says another page follows.
    pub(super) fn has_more(&self) -> bool {
        let below_last = matches!((self.current, self.last), (Some(c), Some(l)) if c < l);
        self.next_url.is_some() || below_last
    }
}

/// A page number written as a number or as numeric text.
fn page_number(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The records and paging of one answer (`body`) of the list of `resource`.
pub(super) fn list_page<'a>(
    body: &'a [u8],
    resource: &str,
    path: &str,
) -> Result<ListPage<'a>, ClientError> {
    let top: Shallow = serde_json::from_slice(body).map_err(|e| ClientError::BadBody {
        status: 200,
        path: path.to_string(),
        detail: e.to_string(),
        snippet: snippet(body),
    })?;
    find_list(top, resource, 0).ok_or_else(|| bad_shape(body, resource, path))
}

/// The list in `value`. The resource's own name is tried first, then `data`, then `items`.
fn find_list<'a>(value: Shallow<'a>, resource: &str, depth: u8) -> Option<ListPage<'a>> {
    let entries = match value {
        Shallow::Array(items) => return Some(ListPage { items, ..ListPage::default() }),
        Shallow::Object(entries) if depth < MAX_LIST_NESTING => entries,
        _ => return None,
    };
    let paging = Paging::of(&entries);
    for key in [resource, "data", "items"] {
        let Some(inner) = get(&entries, key) else { continue };
        let found = find_list(shallow(inner), resource, depth + 1).or_else(|| keyed_records(inner));
        if let Some(mut page) = found {
            // An envelope inside the wrapper (`{"leads": {"data": [...], ...}}`) speaks for
            // itself; a bare list takes the paging of the object around it.
            if !page.paging.is_known() {
                page.paging = paging;
            }
            return Some(page);
        }
    }
    None
}

/// PHP's JSON of a filtered collection that was not re-indexed: an object keyed `"0"`, `"2"`,
/// ... whose values are the records.
fn keyed_records(raw: &RawValue) -> Option<ListPage<'_>> {
    let Shallow::Object(entries) = shallow(raw) else { return None };
    let is_object = |record: &RawValue| record.get().starts_with('{');
    let keyed = !entries.is_empty()
        && entries.iter().all(|(key, record)| key.parse::<u64>().is_ok() && is_object(record));
    if !keyed {
        return None;
    }
    let items = entries.into_iter().map(|(_, record)| record).collect();
    Some(ListPage { items, ..ListPage::default() })
}

fn bad_shape(body: &[u8], resource: &str, path: &str) -> ClientError {
    ClientError::BadBody {
        status: 200,
        path: path.to_string(),
        detail: format!(
            "expected a list of {resource}: an array, an object with the array under `{resource}`, `data` or `items`, or a page envelope"
        ),
        snippet: snippet(body),
    }
}

/// A walk over the pages of a list, with the guards that stop a service that never ends,
/// whether it repeats a page's records or a URL, or just goes on past [`MAX_LIST_PAGES`].
/// It keeps no records: the previous page is remembered by a digest.
pub(super) struct PageWalk {
    path: String,
    pages: u64,
    previous: Option<blake3::Hash>,
    /// Every query sent so far; the first page's is empty.
    asked: HashSet<Vec<(String, String)>>,
}

impl PageWalk {
    pub(super) fn new(path: &str) -> PageWalk {
        PageWalk {
            path: path.to_string(),
            pages: 0,
            previous: None,
            asked: HashSet::from([Vec::new()]),
        }
    }

    /// Takes in one page; the query of the next page, or `None` when the list is complete.
    pub(super) fn step(
        &mut self,
        page: &ListPage,
    ) -> Result<Option<Vec<(String, String)>>, ClientError> {
        self.pages += 1;
        self.check_repeat(page)?;
        if page.items.is_empty() || !page.paging.has_more() {
            return Ok(None);
        }
        if self.pages >= MAX_LIST_PAGES {
            let problem = format!("the list goes on past {MAX_LIST_PAGES} pages");
            return Err(self.endless(problem, &page.paging));
        }
        let query = next_query(&page.paging, self.pages);
        if !self.asked.insert(query.clone()) {
            let problem = format!("page {} points back to a page already read", self.pages);
            return Err(self.endless(problem, &page.paging));
        }
        Ok(Some(query))
    }

    /// A page with the very records of the page before means the service ignores the page
    /// asked for. (A repeated `current_page` alone is not trusted to mean that: the records
    /// and the URLs are what decide.)
    fn check_repeat(&mut self, page: &ListPage) -> Result<(), ClientError> {
        let digest = (!page.items.is_empty()).then(|| records_digest(&page.items));
        if digest.is_some() && digest == self.previous {
            let problem = format!("page {} repeats the records of the page before", self.pages);
            return Err(self.endless(problem, &page.paging));
        }
        self.previous = digest;
        Ok(())
    }

    fn endless(&self, problem: String, paging: &Paging) -> ClientError {
        ClientError::BadBody {
            status: 200,
            path: self.path.clone(),
            detail: format!(
                "{problem}, so the service seems to page forever; it may ignore `page`, report it to the service"
            ),
            snippet: snippet(paging.describe().as_bytes()),
        }
    }
}

/// The records of a page, in order, as one digest of their text: a service that ignores the
/// page asked for sends the same text again.
fn records_digest(items: &[&RawValue]) -> blake3::Hash {
    let mut hasher = blake3::Hasher::new();
    for item in items {
        hasher.update(&(item.get().len() as u64).to_le_bytes());
        hasher.update(item.get().as_bytes());
    }
    hasher.finalize()
}

/// The query of the page after one with `paging`, the `pages`-th read: the query of its next
/// URL when it has one, else `page` one past the current page.
pub(super) fn next_query(paging: &Paging, pages: u64) -> Vec<(String, String)> {
    let url = paging.next_url.as_deref().map(|url| url.split('#').next().unwrap_or(url));
    let from_url = url.and_then(|url| url.split_once('?'));
    let pairs: Vec<(String, String)> = from_url
        .map(|(_, query)| url::form_urlencoded::parse(query.as_bytes()).into_owned().collect())
        .unwrap_or_default();
    if !pairs.is_empty() {
        return pairs;
    }
    let number = paging.current.unwrap_or(pages).saturating_add(1);
    vec![("page".to_string(), number.to_string())]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a page of `answer` holds: its records' ids and its paging.
    struct Read {
        ids: Vec<i64>,
        paging: Paging,
    }

    fn read(answer: &Value) -> Result<Read, ClientError> {
        let body = answer.to_string();
        let page = list_page(body.as_bytes(), "leads", "user/leads")?;
        Ok(Read { ids: ids(&page), paging: page.paging })
    }

    fn page(answer: Value) -> Read {
        read(&answer).unwrap()
    }

    fn ids(page: &ListPage) -> Vec<i64> {
        page.items.iter().filter_map(|item| value(item)["id"].as_i64()).collect()
    }

    #[test]
    fn lists_are_read_in_every_shape() {
        use serde_json::json;
        let (a, b) = (json!({"id": 1}), json!({"id": 2}));
        let shapes = [
            json!([a, b]),
            json!({"leads": [a, b]}),
            json!({"data": [a, b], "message": "ok"}),
            json!({"items": [a, b]}),
            json!({"success": true, "data": {"leads": [a, b]}}),
            json!({"data": {"0": a, "3": b}}),
            json!({"leads": {"current_page": 1, "data": [a, b], "last_page": 1}}),
        ];
        for shape in shapes {
            let read = page(shape.clone());
            assert_eq!((read.ids, read.paging.has_more()), (vec![1, 2], false), "{shape}");
        }
        // The resource's own name wins over `data`, and a key that holds no list is passed by.
        let read = page(json!({"data": {"count": 2}, "leads": [b], "items": [a]}));
        assert_eq!(read.ids, [2]);
        let read = page(json!({"data": "none", "items": [a]}));
        assert_eq!(read.ids, [1]);
    }

    #[test]
    fn page_envelopes_say_where_the_next_page_is() {
        use serde_json::json;
        let laravel = page(json!({"current_page": "1", "data": [{"id": 1}], "last_page": 3,
            "links": [{"url": null, "label": "&laquo; Previous", "active": false}],
            "next_page_url": "http://internal:8000/api/user/leads?page=2#top"}));
        assert_eq!((laravel.paging.current, laravel.paging.last), (Some(1), Some(3)));
        assert_eq!(next_query(&laravel.paging, 1), [("page".to_string(), "2".to_string())]);
        let resource = page(json!({"data": [{"id": 1}],
            "links": {"next": "/api/user/leads?cursor=abc%3D&per_page=15"},
            "meta": {"current_page": 4, "last_page": 9}}));
        assert_eq!((resource.paging.current, resource.paging.last), (Some(4), Some(9)));
        let query = next_query(&resource.paging, 1);
        assert_eq!(query[0], ("cursor".to_string(), "abc=".to_string()));
        // Numbers alone: the page after the current one.
        let numbers = page(json!({"data": [{"id": 1}], "current_page": 2, "last_page": 3}));
        assert!(numbers.paging.has_more());
        assert_eq!(next_query(&numbers.paging, 7), [("page".to_string(), "3".to_string())]);
        let last = page(json!({"data": [{"id": 1}], "current_page": 3, "last_page": 3,
            "next_page_url": null}));
        assert!(!last.paging.has_more());
    }

    #[test]
    fn shapes_that_hold_no_list_are_bad_bodies_naming_the_resource() {
        use serde_json::json;
        let nested = json!({"data": {"data": {"data": [{"id": 1}]}}});
        for answer in [json!({"oops": 1}), json!("leads"), Value::Null, json!({"id": 1}), nested] {
            let Err(err) = read(&answer) else { panic!("{answer}") };
            let ClientError::BadBody { detail, snippet, .. } = &err else { panic!("{err:?}") };
            assert!(detail.contains("list of leads") && detail.contains("`leads`"), "{detail}");
            assert!(!snippet.is_empty() || answer.is_null(), "{answer}: {err}");
        }
    }

    fn walk(pages: impl IntoIterator<Item = Value>) -> Result<(Vec<i64>, usize), ClientError> {
        let mut walk = PageWalk::new("user/leads");
        let (mut asked, mut all) = (0, Vec::new());
        for answer in pages {
            asked += 1;
            let body = answer.to_string();
            let page = list_page(body.as_bytes(), "leads", "user/leads")?;
            let next = walk.step(&page)?;
            all.extend(ids(&page));
            if next.is_none() {
                return Ok((all, asked));
            }
        }
        panic!("the walk wanted more than {asked} pages");
    }

    fn numbered(n: u64, last: u64) -> Value {
        serde_json::json!({"current_page": n, "last_page": last, "data": [{"id": n}],
            "next_page_url": (n < last).then(|| format!("http://x/api/user/leads?page={}", n + 1))})
    }

    #[test]
    fn walks_end_on_the_last_page_or_an_empty_one() {
        assert_eq!(walk((1..=3).map(|n| numbered(n, 3))).unwrap(), (vec![1, 2, 3], 3));
        let empty = serde_json::json!({"data": [], "current_page": 2, "last_page": 5,
            "next_page_url": "http://x/api/user/leads?page=3"});
        assert_eq!(walk([numbered(1, 5), empty]).unwrap(), (vec![1], 2));
    }

    #[test]
    fn walks_refuse_a_service_that_pages_forever() {
        // Ignores `page`: the same records again.
        let err = walk([numbered(1, 9), numbered(1, 9)]).unwrap_err();
        assert!(err.to_string().contains("page 2 repeats the records"), "{err}");
        // Points back to a page it already served.
        let mut back = numbered(2, 9);
        back["next_page_url"] = "http://x/api/user/leads?page=2".into();
        let err = walk([numbered(1, 9), back.clone(), back]).unwrap_err();
        assert!(err.to_string().contains("points back to a page already read"), "{err}");
        assert!(matches!(err, ClientError::BadBody { status: 200, .. }) && !err.is_retryable());
        // New records on every page, forever: stopped at the cap.
        let endless = (1..).map(|n| numbered(n, u64::MAX));
        let err = walk(endless).unwrap_err();
        assert!(err.to_string().contains(&format!("past {MAX_LIST_PAGES} pages")), "{err}");
    }
}
