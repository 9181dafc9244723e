//! The frame every page shares: the document head (one stylesheet and one script, both served
//! from the binary), the service in use, the language switch and the steps of the flow; and
//! the markup every page is written in: maud's `html!`, which escapes every value from a file
//! or a person on its way into HTML, so no page can forget to.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};

use super::guard::Refusal;
use super::lang::{self, Lang};
use super::text::Text;

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
    body: Markup,
    status: StatusCode,
) -> Response {
    let t = view.text();
    let other = match view.lang {
        Lang::En => Lang::De,
        Lang::De => Lang::En,
    };
    let header = html! {
        header {
            p class="app" { (t.app) }
            p class="service" { (t.service) ": " (service) }
            p class="lang" {
                a href=(with_lang(&view.uri, other)) hreflang=(other.code()) lang=(other.code())
                    aria-label={ (t.language) ": " (t.other_language) } { (t.other_language) }
            }
        }
        nav aria-label=(t.steps_label) { ol class="steps" { (steps(t, step)) } }
    };
    document(t, title, header, body, status)
}

/// The steps of the flow, the current one marked; only the first is a link (the others need
/// a chosen file to mean anything).
fn steps(t: &Text, step: Step) -> Markup {
    html! {
        @for (i, name) in t.steps.iter().enumerate() {
            @if i == step.index() {
                li aria-current="step" { (name) }
            } @else if i == 0 {
                li { a href="/" { (name) } }
            } @else {
                li { (name) }
            }
        }
    }
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
    let body = html! {
        p { (said(t)) }
        h2 lang=(other.code) { (other.refused_title) }
        p lang=(other.code) { (said(other)) }
    };
    document(t, t.refused_title, html! {}, body, StatusCode::FORBIDDEN)
}

/// No route matched.
pub(super) fn not_found(view: View) -> Response {
    let t = view.text();
    let body = html! {
        p { (t.not_found) }
        p { a href="/" { (t.steps[0]) } }
    };
    document(t, t.not_found, html! {}, body, StatusCode::NOT_FOUND)
}

/// A step asked for a source this server does not know (an old link, a restart): 404, with a
/// way back to choose a file.
pub(super) fn unknown_source(view: &View, service: &str, step: Step, title: &str) -> Response {
    let t = view.text();
    let body = html! {
        (error(t, t.unknown_source))
        p { a href="/" { (t.other_file) } }
    };
    page(view, service, step, title, body, StatusCode::NOT_FOUND)
}

/// A table's head row: a column heading for each of `names`.
pub(super) fn heads(names: &[&str]) -> Markup {
    html! { thead { tr { @for name in names { th scope="col" { (name) } } } } }
}

/// An error box that screen readers announce.
pub(super) fn error(t: &Text, message: &str) -> Markup {
    html! {
        div class="error" role="alert" { strong { (t.error) ":" } " " (message) }
    }
}

fn document(t: &Text, title: &str, header: Markup, body: Markup, status: StatusCode) -> Response {
    let html = html! {
        (DOCTYPE) "\n"
        html lang=(t.code) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · " (t.app) }
                link rel="icon" href="/assets/icon.svg" type="image/svg+xml";
                link rel="stylesheet" href="/assets/ui.css";
                script src="/assets/ui.js" defer {}
            }
            body {
                (header)
                main { h1 { (title) } (body) }
            }
        }
        "\n"
    };
    (status, Html(html.into_string())).into_response()
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
    use super::{Lang, error, lang, with_lang};

    #[test]
    fn the_error_box_escapes_what_it_is_given() {
        let html = error(lang::text(Lang::En), "<script>\"x\" & 'y'").into_string();
        // maud leaves `'` as it is: its attributes are always in double quotes.
        let said = "&lt;script&gt;&quot;x&quot; &amp; 'y'";
        assert_eq!(
            html,
            format!("<div class=\"error\" role=\"alert\"><strong>Error:</strong> {said}</div>")
        );
    }

    #[test]
    fn the_language_switch_keeps_the_rest_of_the_address() {
        let uri = "/reading/ab?sheet=Leads%202&lang=en".parse().unwrap();
        assert_eq!(with_lang(&uri, Lang::De), "/reading/ab?sheet=Leads+2&lang=de");
        assert_eq!(with_lang(&"/".parse().unwrap(), Lang::En), "/?lang=en");
    }
}
