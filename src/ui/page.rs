//! The frame every page shares: the document head (one stylesheet and one script, both served
//! from the binary), the service in use, the language switch and the steps of the flow; and
//! the escaping every value from a file or a person goes through on its way into HTML.

use std::fmt::Write;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};

use super::guard::Refusal;
use super::lang::{self, Lang};
use super::text::Text;

/// HTML-escapes its text, as the HTML report does.
pub(super) use crate::report::Esc;

/// The steps of the flow, in order (the texts are `Text::steps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Source,
    Reading,
    Mapping,
    Check,
    Send,
    Results,
}

impl Step {
    fn index(self) -> usize {
        match self {
            Step::Source => 0,
            Step::Reading => 1,
            Step::Mapping => 2,
            Step::Check => 3,
            Step::Send => 4,
            Step::Results => 5,
        }
    }
}

/// Who is looking: the language and the address asked for (for the language switch).
pub(super) struct View {
    pub lang: Lang,
    pub uri: Uri,
}

impl View {
    pub(super) fn text(&self) -> &'static Text {
        lang::text(self.lang)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for View {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<View, Self::Rejection> {
        Ok(View { lang: lang::of(parts.uri.query(), &parts.headers), uri: parts.uri.clone() })
    }
}

/// A page of the flow.
pub(super) fn page(
    view: &View,
    service: &str,
    step: Step,
    title: &str,
    body: &str,
    status: StatusCode,
) -> Response {
    let t = view.text();
    let mut nav = String::new();
    for (i, name) in t.steps.iter().enumerate() {
        let _ = match (i == step.index(), i) {
            (true, _) => write!(nav, "<li aria-current=\"step\">{}</li>", Esc(name)),
            (false, 0) => write!(nav, "<li><a href=\"/\">{}</a></li>", Esc(name)),
            (false, _) => write!(nav, "<li>{}</li>", Esc(name)),
        };
    }
    let other = match view.lang {
        Lang::En => Lang::De,
        Lang::De => Lang::En,
    };
    let header = format!(
        "<header><p class=\"app\">{app}</p><p class=\"service\">{label}: {service}</p>\
         <p class=\"lang\"><a href=\"{href}\" hreflang=\"{code}\" lang=\"{code}\" \
         aria-label=\"{language}: {other_name}\">{other_name}</a></p></header>\
         <nav aria-label=\"{steps}\"><ol class=\"steps\">{nav}</ol></nav>",
        app = Esc(t.app),
        label = Esc(t.service),
        service = Esc(service),
        href = Esc(&with_lang(&view.uri, other)),
        code = other.code(),
        language = Esc(t.language),
        other_name = Esc(t.other_language),
        steps = Esc(t.steps_label),
    );
    document(t, title, &header, body, status)
}

/// The request refused by the guard, in the browser's language.
pub(super) fn refused(lang: Lang, why: Refusal) -> Response {
    let t = lang::text(lang);
    // Said in both languages: a refused request may not say which one its reader speaks.
    let said = |t: &Text| match why {
        Refusal::Host => t.refused_host,
        Refusal::Origin => t.refused_origin,
        Refusal::Secret => t.refused_secret,
    };
    let other = lang::text(match lang {
        Lang::En => Lang::De,
        Lang::De => Lang::En,
    });
    let body = format!(
        "<p>{}</p><h2 lang=\"{}\">{}</h2><p lang=\"{}\">{}</p>",
        Esc(said(t)),
        other.code,
        Esc(other.refused_title),
        other.code,
        Esc(said(other))
    );
    document(t, t.refused_title, "", &body, StatusCode::FORBIDDEN)
}

/// No route matched.
pub(super) fn not_found(view: View) -> Response {
    let t = view.text();
    let body = format!("<p>{}</p><p><a href=\"/\">{}</a></p>", Esc(t.not_found), Esc(t.steps[0]));
    document(t, t.not_found, "", &body, StatusCode::NOT_FOUND)
}

/// An error box that screen readers announce.
/// A step asked for a source this server does not know (an old link, a restart): 404, with a
/// way back to choose a file.
pub(super) fn unknown_source(view: &View, service: &str, step: Step, title: &str) -> Response {
    let t = view.text();
    let body =
        format!("{}<p><a href=\"/\">{}</a></p>", error_box(t, t.unknown_source), Esc(t.other_file));
    page(view, service, step, title, &body, StatusCode::NOT_FOUND)
}

pub(super) fn error_box(t: &Text, message: &str) -> String {
    format!(
        "<div class=\"error\" role=\"alert\"><strong>{}:</strong> {}</div>",
        Esc(t.error),
        Esc(message)
    )
}

fn document(t: &Text, title: &str, header: &str, body: &str, status: StatusCode) -> Response {
    let html = format!(
        "<!doctype html>\n<html lang=\"{code}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} · {app}</title><link rel=\"icon\" href=\"/assets/icon.svg\" type=\"image/svg+xml\"><link rel=\"stylesheet\" href=\"/assets/ui.css\">\
         <script src=\"/assets/ui.js\" defer></script></head>\
         <body>{header}<main><h1>{title}</h1>{body}</main></body></html>\n",
        code = t.code,
        title = Esc(title),
        app = Esc(t.app),
    );
    (status, Html(html)).into_response()
}

/// The address asked for, in another language: its other query parameters kept.
fn with_lang(uri: &Uri, lang: Lang) -> String {
    let kept = url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
        .filter(|(name, _)| name != "lang")
        .map(|(name, value)| (name.into_owned(), value.into_owned()));
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(kept)
        .append_pair("lang", lang.code())
        .finish();
    format!("{}?{query}", uri.path())
}

/// A query string from pairs, empty values left out.
pub(super) fn query<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in pairs {
        if !value.is_empty() {
            out.append_pair(name, value);
        }
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::{Esc, Lang, with_lang};

    #[test]
    fn escapes_the_five_characters() {
        let text = "<a href=\"x\">Müller & 'Söhne'</a>";
        assert_eq!(
            Esc(text).to_string(),
            "&lt;a href=&quot;x&quot;&gt;Müller &amp; &#39;Söhne&#39;&lt;/a&gt;"
        );
        assert_eq!(Esc("plain").to_string(), "plain");
    }

    #[test]
    fn the_language_switch_keeps_the_rest_of_the_address() {
        let uri = "/reading/ab?sheet=Leads%202&lang=en".parse().unwrap();
        assert_eq!(with_lang(&uri, Lang::De), "/reading/ab?sheet=Leads+2&lang=de");
        assert_eq!(with_lang(&"/".parse().unwrap(), Lang::En), "/?lang=en");
    }
}
