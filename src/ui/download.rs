//! A file of the state folder sent to the browser: read from disk in chunks as the browser
//! takes them (eight downloads of a 241 MB report at once once took the server from 290 MB to
//! 1.9 GB when each was read whole first), under a name the person recognises.

use axum::body::{Body, Bytes};
use tokio::io::AsyncReadExt;

/// How much of a file is read at a time.
const CHUNK_BYTES: usize = 64 * 1024;

/// The file as a body, read a chunk at a time; a read error ends the body with that error.
pub(super) fn body(file: tokio::fs::File) -> Body {
    let chunks = futures_util::stream::unfold(Some(file), |file| async move {
        let mut file = file?;
        let mut buffer = vec![0u8; CHUNK_BYTES];
        match file.read(&mut buffer).await {
            Ok(0) => None,
            Ok(n) => {
                buffer.truncate(n);
                Some((Ok(Bytes::from(buffer)), Some(file)))
            }
            Err(error) => Some((Err(error), None)),
        }
    });
    Body::from_stream(chunks)
}

/// `Content-Disposition` for `name`: `inline` (a page to open) or `attachment`, with the name
/// in UTF-8 (RFC 6266) and an ASCII stand-in for the few clients that read only that.
pub(super) fn disposition(kind: &str, name: &str) -> String {
    let ascii: String = name
        .chars()
        .map(|c| match c {
            ' '..='~' if c != '"' && c != '\\' => c,
            _ => '_',
        })
        .collect();
    format!("{kind}; filename=\"{ascii}\"; filename*=UTF-8''{}", encoded(name))
}

/// RFC 5987's encoding: the characters it allows as they are, every other byte as `%XX`.
fn encoded(name: &str) -> String {
    let mut out = String::new();
    for byte in name.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => out.push(byte as char),
            b'!' | b'#' | b'$' | b'&' | b'+' | b'-' | b'.' | b'^' | b'_' | b'`' | b'|' | b'~' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::disposition;

    #[test]
    fn a_name_in_any_language_reaches_the_browser_whole() {
        assert_eq!(
            disposition("attachment", "CRM_Export – Prüfbericht.html"),
            "attachment; filename=\"CRM_Export _ Pr_fbericht.html\"; \
             filename*=UTF-8''CRM_Export%20%E2%80%93%20Pr%C3%BCfbericht.html"
        );
        assert_eq!(
            disposition("inline", "a\"b.html"),
            "inline; filename=\"a_b.html\"; filename*=UTF-8''a%22b.html"
        );
    }
}
