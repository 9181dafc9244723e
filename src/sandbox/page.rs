//! The query parameters of paginated lists and their Laravel page envelope: the assistant list
//! always, the other lists when the sandbox answers them `paged` (see `shape.rs`).
//!
//! The page-size parameter is `per_page` (the spec leaves the name out; it is the envelope's
//! field name and Laravel's convention). Page URLs carry only `page`, as Laravel's paginator
//! writes them unless told to keep the query string: a client that follows `next_page_url`
//! with a non-default page size must add `per_page` itself.

use axum::http::{HeaderMap, Uri, header};
use serde::Serialize;

use super::store::Window;
use super::validation::{ValidationErrors, must_be};

/// The assistant list's page size unless asked otherwise, as the spec says.
pub(crate) const DEFAULT_PER_PAGE: i64 = 10;
pub(crate) const MAX_PER_PAGE: i64 = 100;

/// A validated page request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PageRequest {
    pub page: i64,
    pub per_page: i64,
}

impl PageRequest {
    /// Rows to skip; saturates for absurd page numbers, which then simply show nothing.
    pub(crate) fn offset(&self) -> i64 {
        (self.page - 1).saturating_mul(self.per_page)
    }

    /// The rows this page shows.
    pub(crate) fn window(&self) -> Window {
        Window { offset: self.offset(), limit: self.per_page }
    }
}

/// Reads `page` and `per_page` from a raw query string, 422-style errors when they are bad;
/// `default_per_page` when no page size is asked for.
pub(crate) fn page_request(
    query: Option<&str>,
    default_per_page: i64,
) -> Result<PageRequest, ValidationErrors> {
    let pairs = url::form_urlencoded::parse(query.unwrap_or_default().as_bytes());
    let (mut page, mut per_page) = (None, None);
    for (key, value) in pairs {
        match key.as_ref() {
            "page" => page = Some(value.into_owned()),
            "per_page" => per_page = Some(value.into_owned()),
            _ => {}
        }
    }
    let mut errors = ValidationErrors::default();
    let page = bounded(page, "page", (1, i64::MAX), 1, &mut errors);
    let per_page = bounded(per_page, "per_page", (1, MAX_PER_PAGE), default_per_page, &mut errors);
    if errors.is_empty() { Ok(PageRequest { page, per_page }) } else { Err(errors) }
}

fn bounded(
    raw: Option<String>,
    field: &str,
    (min, max): (i64, i64),
    default: i64,
    errors: &mut ValidationErrors,
) -> i64 {
    let Some(raw) = raw.filter(|raw| !raw.trim().is_empty()) else {
        return default;
    };
    let Ok(value) = raw.trim().parse::<i64>() else {
        errors.add(field, must_be(field, "an integer"));
        return default;
    };
    if value < min || value > max {
        let rule = match max {
            i64::MAX => format!("at least {min}"),
            _ => format!("between {min} and {max}"),
        };
        errors.add(field, must_be(field, &rule));
    }
    value
}

/// Laravel's `LengthAwarePaginator` serialized.
#[derive(Debug, Serialize)]
pub(crate) struct Page<T> {
    pub current_page: i64,
    pub data: Vec<T>,
    pub first_page_url: String,
    pub from: Option<i64>,
    pub last_page: i64,
    pub last_page_url: String,
    pub links: Vec<Link>,
    pub next_page_url: Option<String>,
    pub path: String,
    pub per_page: i64,
    pub prev_page_url: Option<String>,
    pub to: Option<i64>,
    pub total: i64,
}

#[derive(Debug, Serialize)]
pub(crate) struct Link {
    pub url: Option<String>,
    pub label: String,
    pub active: bool,
}

/// The envelope around `data`, the rows of `request` out of `total`; `path` is the absolute
/// URL of the list without a query.
pub(crate) fn envelope<T>(data: Vec<T>, total: i64, request: PageRequest, path: String) -> Page<T> {
    let PageRequest { page, per_page } = request;
    // Laravel: at least one page, even when there is nothing to show.
    let last_page = ((total + per_page - 1) / per_page).max(1);
    let url = |n: i64| format!("{path}?page={n}");
    let prev_page_url = (page > 1).then(|| url(page - 1));
    let next_page_url = (page < last_page).then(|| url(page + 1));
    let (from, to) = match data.len() as i64 {
        0 => (None, None),
        n => (Some(request.offset() + 1), Some(request.offset() + n)),
    };
    let mut links = vec![link(prev_page_url.clone(), "&laquo; Previous".into(), false)];
    links.extend((1..=last_page).map(|n| link(Some(url(n)), n.to_string(), n == page)));
    links.push(link(next_page_url.clone(), "Next &raquo;".into(), false));
    Page {
        current_page: page,
        data,
        first_page_url: url(1),
        from,
        last_page,
        last_page_url: url(last_page),
        links,
        next_page_url,
        path,
        per_page,
        prev_page_url,
        to,
        total,
    }
}

/// The absolute URL of the list without a query, the envelope's `path`. Page URLs are built from
/// the host the client addressed (HTTP/1.1 `Host`, or the authority of an HTTP/2 request).
pub(crate) fn list_url(headers: &HeaderMap, uri: &Uri) -> String {
    let from_header = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let from_uri = uri.authority().map(|a| a.as_str());
    let host = from_header.or(from_uri).unwrap_or("localhost");
    format!("http://{host}{}", uri.path())
}

fn link(url: Option<String>, label: String, active: bool) -> Link {
    Link { url, label, active }
}

#[cfg(test)]
mod tests {
    use super::{DEFAULT_PER_PAGE, PageRequest, envelope, page_request};

    #[test]
    fn defaults_and_bounds() {
        assert_eq!(
            page_request(None, DEFAULT_PER_PAGE).unwrap(),
            PageRequest { page: 1, per_page: 10 }
        );
        assert_eq!(
            page_request(Some("page=3&per_page=100"), DEFAULT_PER_PAGE).unwrap().per_page,
            100
        );
        for bad in ["per_page=0", "per_page=101", "per_page=ten", "page=0", "page=-1", "page=x"] {
            assert!(page_request(Some(bad), DEFAULT_PER_PAGE).is_err(), "{bad}");
        }
        let errors = page_request(Some("per_page=101"), DEFAULT_PER_PAGE).unwrap_err();
        assert_eq!(
            errors.messages("per_page").unwrap()[0],
            "The per page field must be between 1 and 100."
        );
    }

    #[test]
    fn middle_page_links_both_ways() {
        let request = PageRequest { page: 2, per_page: 2 };
        let page = envelope(vec!['c', 'd'], 5, request, "http://h/api/x".into());
        assert_eq!((page.from, page.to, page.last_page), (Some(3), Some(4), 3));
        assert_eq!(page.prev_page_url.as_deref(), Some("http://h/api/x?page=1"));
        assert_eq!(page.next_page_url.as_deref(), Some("http://h/api/x?page=3"));
        let labels: Vec<_> = page.links.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["&laquo; Previous", "1", "2", "3", "Next &raquo;"]);
        assert!(page.links[2].active && !page.links[1].active);
    }

    #[test]
    fn empty_list_still_has_one_page() {
        let page = envelope(Vec::<()>::new(), 0, PageRequest { page: 1, per_page: 10 }, "p".into());
        assert_eq!((page.last_page, page.from, page.to), (1, None, None));
        assert_eq!(page.links.len(), 3);
        assert!(page.prev_page_url.is_none() && page.next_page_url.is_none());
    }
}
