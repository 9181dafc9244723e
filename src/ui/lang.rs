//! Which language a page speaks: `?lang=de|en` (remembered in a cookie), else the cookie, else
//! the browser's `Accept-Language`, else English.

use axum::extract::Request;
use axum::http::header::{ACCEPT_LANGUAGE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

use super::guard::{cookie, query_param};
use super::text::{DE, EN, Text};

const COOKIE: &str = "leadsync_lang";

/// The library's language: the page and the reports it makes speak the same one.
pub(super) use crate::row::Lang;

/// The page's words in `lang`.
pub(super) fn text(lang: Lang) -> &'static Text {
    match lang {
        Lang::En => &EN,
        Lang::De => &DE,
    }
}

/// The language of a request with this query and these headers.
pub(super) fn of(query: Option<&str>, headers: &HeaderMap) -> Lang {
    query_param(query, "lang")
        .and_then(|code| Lang::parse(&code))
        .or_else(|| cookie(headers, COOKIE).and_then(Lang::parse))
        .or_else(|| {
            let accept = headers.get(ACCEPT_LANGUAGE)?.to_str().ok()?;
            from_accept_language(accept)
        })
        .unwrap_or(Lang::En)
}

/// The first of English and German in the browser's order of preference (`q` weights, then
/// the order written).
fn from_accept_language(accept: &str) -> Option<Lang> {
    let mut ranked: Vec<(f32, Lang)> = accept
        .split(',')
        .filter_map(|item| {
            let mut parts = item.split(';');
            let tag = parts.next()?.trim();
            let primary = tag.split('-').next()?;
            let lang = Lang::parse(primary)?;
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .and_then(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            (q > 0.0).then_some((q, lang))
        })
        .collect();
    // A stable sort keeps the written order among equal weights.
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    ranked.first().map(|(_, lang)| *lang)
}

/// Middleware: a `?lang=` choice is remembered for the next pages.
pub(super) async fn remember(request: Request, next: Next) -> Response {
    let chosen = query_param(request.uri().query(), "lang").and_then(|code| Lang::parse(&code));
    let mut response = next.run(request).await;
    if let Some(lang) = chosen {
        let value = format!("{COOKIE}={}; Path=/; SameSite=Strict", lang.code());
        if let Ok(value) = HeaderValue::from_str(&value) {
            response.headers_mut().append(SET_COOKIE, value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::{Lang, from_accept_language};

    #[test]
    fn the_browsers_preference_decides() {
        assert_eq!(from_accept_language("de-DE,de;q=0.9,en;q=0.8"), Some(Lang::De));
        assert_eq!(from_accept_language("fr-FR, en-GB;q=0.7, de;q=0.5"), Some(Lang::En));
        assert_eq!(from_accept_language("en;q=0.2, de-AT;q=0.9"), Some(Lang::De));
        assert_eq!(from_accept_language("de;q=0"), None);
        assert_eq!(from_accept_language("fr, es"), None);
        assert_eq!(from_accept_language(""), None);
    }
}
