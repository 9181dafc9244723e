//! Credentials out of every word the client says. A service or a proxy in front of it may
//! echo the request in an error page (`your request had Authorization: Bearer …`), and a
//! `--base-url` may carry a user and password; errors, snippets and log lines end up on
//! pages, in run folders, in reports and on a `-v` terminal, so none of them may carry either.
//!
//! The client's own token is replaced wherever it appears in an answer's body, before that
//! body becomes anything else; any `Bearer …` value and any `Authorization` header value is
//! replaced in the text of an error, whoever's it is.

use url::Url;

/// What a hidden value is replaced with.
pub(crate) const HIDDEN: &str = "***";

/// `body` with every occurrence of `token` replaced by [`HIDDEN`]; borrowed when there is none.
pub(crate) fn token_out<'b>(body: &'b [u8], token: &str) -> std::borrow::Cow<'b, [u8]> {
    let needle = token.as_bytes();
    if needle.is_empty() || !contains(body, needle) {
        return std::borrow::Cow::Borrowed(body);
    }
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = find(rest, needle) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(HIDDEN.as_bytes());
        rest = &rest[at + needle.len()..];
    }
    out.extend_from_slice(rest);
    std::borrow::Cow::Owned(out)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle).is_some()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

/// `text` without credentials: the value after `Bearer ` (or `Basic `), and the value of an
/// `Authorization` header in any notation (`Authorization: x`, `"authorization":"x"`,
/// `authorization=x`), each replaced by [`HIDDEN`]; and user and password of any URL.
pub(crate) fn credentials_out(text: &str) -> String {
    let text = schemes_out(text);
    let text = authorization_out(&text);
    urls_out(&text)
}

/// The credential after a `Bearer` or `Basic` scheme word, to the next space, quote or
/// separator.
fn schemes_out(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some((at, word)) = next_scheme(&lower, from) {
        let value_at = at + word.len();
        let value_end = value_end(text, value_at);
        from = value_end.max(value_at);
        if value_end == value_at || &text[value_at..value_end] == HIDDEN {
            continue;
        }
        out.push_str(&text[copied..value_at]);
        out.push_str(HIDDEN);
        copied = value_end;
    }
    out.push_str(&text[copied..]);
    out
}

fn next_scheme(lower: &str, from: usize) -> Option<(usize, &'static str)> {
    ["bearer ", "basic "]
        .into_iter()
        .filter_map(|word| lower[from..].find(word).map(|at| (from + at, word)))
        .min_by_key(|(at, _)| *at)
}

/// The end of a credential starting at `start`: the next character that cannot be in one.
fn value_end(text: &str, start: usize) -> usize {
    text[start..]
        .find(|c: char| c.is_whitespace() || "\"'<>,;&)}]\\".contains(c))
        .map_or(text.len(), |at| start + at)
}

/// The value of an `Authorization` header, to the end of its line or quote.
fn authorization_out(text: &str) -> String {
    const NAME: &str = "authorization";
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(found) = lower[from..].find(NAME) {
        let after_name = from + found + NAME.len();
        // `": "`, `: `, `=`: the separator between the name and its value.
        let value_at = after_name
            + text[after_name..]
                .find(|c: char| !(c == '"' || c == '\'' || c == ':' || c == '=' || c == ' '))
                .unwrap_or(text.len() - after_name);
        from = value_at.max(after_name);
        let separated = text[after_name..value_at].contains([':', '=']);
        let end = text[value_at..]
            .find(['"', '\'', '\n', '\r', '<', ','])
            .map_or(text.len(), |at| value_at + at);
        if !separated || end == value_at || text[value_at..end].contains(HIDDEN) {
            continue;
        }
        out.push_str(&text[copied..value_at]);
        out.push_str(HIDDEN);
        copied = end;
        from = end;
    }
    out.push_str(&text[copied..]);
    out
}

/// Every `scheme://user:password@` in free text loses its user and password.
fn urls_out(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let authority_at = at + 3;
        out.push_str(&rest[..authority_at]);
        let authority_end = rest[authority_at..]
            .find(|c: char| c == '/' || c == '?' || c == '#' || c.is_whitespace() || c == '`')
            .map_or(rest.len(), |end| authority_at + end);
        let authority = &rest[authority_at..authority_end];
        match authority.rfind('@') {
            Some(at_sign) => out.push_str(&authority[at_sign + 1..]),
            None => out.push_str(authority),
        }
        rest = &rest[authority_end..];
    }
    out.push_str(rest);
    out
}

/// A URL as a message shows it: without user and password.
pub(crate) fn url_for_people(url: &Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.to_string()
}

#[cfg(test)]
mod tests {
    use super::{credentials_out, token_out, url_for_people};

    #[test]
    fn the_token_is_replaced_wherever_it_is() {
        let body = br#"{"message":"bad token-alice","token":"token-alice"}"#;
        let out = token_out(body, "token-alice");
        assert_eq!(&*out, br#"{"message":"bad ***","token":"***"}"#);
        assert!(matches!(token_out(b"nothing", "token-alice"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(&*token_out(b"x", ""), b"x");
    }

    #[test]
    fn authorization_and_bearer_values_are_hidden_in_any_notation() {
        for (text, expected) in [
            (
                "your request had Authorization: Bearer abc.def (ok)",
                "your request had Authorization: Bearer *** (ok)",
            ),
            ("Authorization: Basic dXNlcjpwYXNz\nnext", "Authorization: Basic ***\nnext"),
            (
                r#"{"headers":{"authorization":"Bearer xyz"}}"#,
                r#"{"headers":{"authorization":"Bearer ***"}}"#,
            ),
            ("token was bearer xyz, sorry", "token was bearer ***, sorry"),
            ("<p>AUTHORIZATION=secret</p>", "<p>AUTHORIZATION=***</p>"),
            ("the authorization failed", "the authorization failed"),
            ("Bearer ", "Bearer "),
        ] {
            assert_eq!(credentials_out(text), expected, "{text}");
        }
    }

    #[test]
    fn urls_lose_user_and_password() {
        assert_eq!(
            credentials_out("cannot reach `https://ann:s3cret@host.example/api/x`: refused"),
            "cannot reach `https://host.example/api/x`: refused"
        );
        assert_eq!(credentials_out("http://h:1/p and ftp://u@h"), "http://h:1/p and ftp://h");
        let url = url::Url::parse("https://ann:s3cret@host.example:8443/api/").unwrap();
        assert_eq!(url_for_people(&url), "https://host.example:8443/api/");
    }
}
