//! A spreadsheet behind a URL, downloaded to a local file that `Source::open` then sniffs like
//! any other. Share links of Google Sheets and Dropbox are turned into their download links,
//! because that is what people paste.

use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::header::{CONTENT_DISPOSITION, CONTENT_TYPE, HeaderMap};
use reqwest::{StatusCode, Url};
use tokio::io::AsyncWriteExt;

use super::SourceError;

/// Downloads stop here: a lead list is megabytes, not gigabytes.
pub const MAX_DOWNLOAD_BYTES: u64 = 256 * 1024 * 1024;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Between two chunks, not for the whole download, so a slow large file still arrives.
const READ_TIMEOUT: Duration = Duration::from_secs(60);
const MAX_NAME_CHARS: usize = 120;

/// Downloads `url` into `dest_dir` and returns the file's path. The name comes from the
/// server's `Content-Disposition`, else from the URL.
pub async fn fetch(url: &str, dest_dir: &Path) -> Result<PathBuf, SourceError> {
    fetch_with_limit(url, dest_dir, MAX_DOWNLOAD_BYTES).await
}

/// `fetch` with a size cap of `max_bytes`.
pub async fn fetch_with_limit(
    url: &str,
    dest_dir: &Path,
    max_bytes: u64,
) -> Result<PathBuf, SourceError> {
    let parsed = parse_url(url)?;
    let download_error =
        |e: reqwest::Error| SourceError::Download { url: url.to_owned(), detail: describe(&e) };
    let client = reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .user_agent(concat!("leadsync/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(download_error)?;
    let mut response = client.get(download_link(parsed)).send().await.map_err(download_error)?;
    check_status(url, response.status())?;
    let too_large =
        || SourceError::TooLarge { url: url.to_owned(), limit_mib: max_bytes / (1024 * 1024) };
    if response.content_length().is_some_and(|n| n > max_bytes) {
        return Err(too_large());
    }
    let path = dest_dir.join(file_name(response.url(), response.headers()));
    let location = path.display().to_string();
    let mut file =
        tokio::fs::File::create(&path).await.map_err(|e| SourceError::io(&location, e))?;
    let mut written: u64 = 0;
    let copied = async {
        while let Some(chunk) = response.chunk().await.map_err(download_error)? {
            written += chunk.len() as u64;
            if written > max_bytes {
                return Err(too_large());
            }
            file.write_all(&chunk).await.map_err(|e| SourceError::io(&location, e))?;
        }
        file.flush().await.map_err(|e| SourceError::io(&location, e))
    }
    .await;
    if let Err(e) = copied {
        drop(file);
        let _ = tokio::fs::remove_file(&path).await;
        return Err(e);
    }
    Ok(path)
}

fn parse_url(url: &str) -> Result<Url, SourceError> {
    let invalid = |reason: String| SourceError::InvalidUrl { url: url.to_owned(), reason };
    let parsed = Url::parse(url.trim()).map_err(|e| invalid(e.to_string()))?;
    match parsed.scheme() {
        "http" | "https" => Ok(parsed),
        other => Err(invalid(format!("scheme `{other}`"))),
    }
}

/// Share links as people paste them, turned into links that return the file itself.
fn download_link(mut url: Url) -> Url {
    let host = url.host_str().unwrap_or_default().to_owned();
    if host == "docs.google.com" && url.path().starts_with("/spreadsheets/d/") {
        let id = url.path().split('/').nth(3).unwrap_or_default().to_owned();
        url.set_path(&format!("/spreadsheets/d/{id}/export"));
        url.set_query(Some("format=xlsx"));
        url.set_fragment(None);
    } else if host.ends_with("dropbox.com") {
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .filter(|(k, _)| k != "dl")
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        url.query_pairs_mut().clear().extend_pairs(pairs).append_pair("dl", "1");
    }
    url
}

fn check_status(url: &str, status: StatusCode) -> Result<(), SourceError> {
    if status.is_success() {
        return Ok(());
    }
    let advice = match status.as_u16() {
        401 | 403 => {
            "the link needs a login or permission: share it with anyone who has the link, or \
             download the file and pass its path"
        }
        404 | 410 => "nothing is at that address: check the link",
        429 => "the server is limiting requests: wait a minute and retry",
        500..=599 => "the server failed: try again later",
        _ => "the server refused the request: check the link",
    };
    Err(SourceError::Http { url: url.to_owned(), status: status.as_u16(), advice })
}

/// reqwest's message plus its cause, which holds the useful part ("connection refused").
fn describe(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "cannot connect"
    } else {
        "transfer failed"
    };
    match std::error::Error::source(error) {
        Some(cause) => format!("{kind}: {cause}"),
        None => kind.to_owned(),
    }
}

/// A safe local name: the server's `filename`, else the URL's last segment, plus an
/// extension from the content type when the name has none.
fn file_name(url: &Url, headers: &HeaderMap) -> String {
    // Servers send raw UTF-8 in `filename="..."` more often than the standard allows.
    let header = |name| {
        let value = headers.get(name)?;
        Some(String::from_utf8_lossy(value.as_bytes()).into_owned())
    };
    let from_header = header(CONTENT_DISPOSITION).and_then(|v| disposition_name(&v));
    let from_url =
        url.path_segments().and_then(|mut s| s.rfind(|s| !s.is_empty())).map(percent_decode);
    let mut name = sanitize(&from_header.or(from_url).unwrap_or_default());
    if name.is_empty() {
        name = "download".to_owned();
    }
    if !name.contains('.')
        && let Some(ext) = header(CONTENT_TYPE).and_then(|v| extension_for(&v))
    {
        name = format!("{name}.{ext}");
    }
    name
}

/// `filename*=UTF-8''...` (RFC 6266, preferred) or `filename="..."`.
fn disposition_name(value: &str) -> Option<String> {
    let params = value.split(';').map(str::trim);
    let mut plain = None;
    for param in params {
        let Some((key, val)) = param.split_once('=') else {
            continue;
        };
        match key.trim().to_ascii_lowercase().as_str() {
            "filename*" => {
                let encoded = val.trim().rsplit('\'').next().unwrap_or_default();
                return Some(percent_decode(encoded));
            }
            "filename" => plain = Some(val.trim().trim_matches('"').to_owned()),
            _ => {}
        }
    }
    plain
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// No directories, no characters Windows forbids, no leading dots.
fn sanitize(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned: String = base
        .chars()
        .map(|c| if c.is_control() || r#":*?"<>|"#.contains(c) { '_' } else { c })
        .take(MAX_NAME_CHARS)
        .collect();
    cleaned.trim().trim_start_matches('.').to_owned()
}

fn extension_for(content_type: &str) -> Option<&'static str> {
    let mime = content_type.split(';').next()?.trim().to_ascii_lowercase();
    Some(match mime.as_str() {
        "text/csv" | "application/csv" => "csv",
        "text/tab-separated-values" => "tsv",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" => "xlsx",
        "application/vnd.ms-excel.sheet.macroenabled.12" => "xlsm",
        "application/vnd.ms-excel.sheet.binary.macroenabled.12" => "xlsb",
        "application/vnd.ms-excel" => "xls",
        "application/vnd.oasis.opendocument.spreadsheet" => "ods",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    /// Serves canned responses on 127.0.0.1:0 by request path, for a bounded number of requests.
    async fn serve(requests: usize) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            for _ in 0..requests {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let mut buf = vec![0u8; 4096];
                let n = socket.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).into_owned();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let _ = socket.write_all(response_for(&path).as_bytes()).await;
                let _ = socket.shutdown().await;
            }
        });
        format!("http://{addr}")
    }

    fn response_for(path: &str) -> String {
        let body = "Name,Phone\nAnna,+4915112345678\n";
        match path {
            "/exports/leads%20march.csv" => ok(body, ""),
            "/download?id=7" => ok(
                body,
                "Content-Disposition: attachment; filename=\"../../etc/Leads: März.csv\"\r\n",
            ),
            "/plain" => ok(body, "Content-Type: text/csv; charset=utf-8\r\n"),
            "/big" => "HTTP/1.1 200 OK\r\nContent-Length: 999999999\r\n\r\n".to_owned(),
            "/private" => "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n".to_owned(),
            _ => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_owned(),
        }
    }

    fn ok(body: &str, headers: &str) -> String {
        format!(
            "HTTP/1.1 200 OK\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    }

    #[tokio::test]
    async fn downloads_under_the_url_or_server_name() {
        let base = serve(3).await;
        let dir = tempfile::tempdir().unwrap();
        let path = fetch(&format!("{base}/exports/leads%20march.csv"), dir.path()).await.unwrap();
        assert_eq!(path, dir.path().join("leads march.csv"));
        assert!(std::fs::read_to_string(&path).unwrap().contains("Anna"));
        let path = fetch(&format!("{base}/download?id=7"), dir.path()).await.unwrap();
        assert_eq!(path, dir.path().join("Leads_ März.csv"));
        let path = fetch(&format!("{base}/plain"), dir.path()).await.unwrap();
        assert_eq!(path, dir.path().join("plain.csv"));
    }

    #[tokio::test]
    async fn http_errors_say_what_to_do() {
        let base = serve(3).await;
        let dir = tempfile::tempdir().unwrap();
        let err = fetch(&format!("{base}/private"), dir.path()).await.unwrap_err();
        assert!(matches!(err, SourceError::Http { status: 403, .. }), "{err}");
        assert!(err.to_string().contains("share it"), "{err}");
        let err = fetch(&format!("{base}/gone"), dir.path()).await.unwrap_err();
        assert!(matches!(err, SourceError::Http { status: 404, .. }), "{err}");
        let err =
            fetch_with_limit(&format!("{base}/big"), dir.path(), 1024 * 1024).await.unwrap_err();
        assert!(matches!(err, SourceError::TooLarge { .. }), "{err}");
    }

    #[tokio::test]
    async fn refused_connections_and_bad_urls_are_clear() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        let dir = tempfile::tempdir().unwrap();
        let err = fetch(&format!("http://{addr}/x.csv"), dir.path()).await.unwrap_err();
        assert!(err.to_string().contains("cannot connect"), "{err}");
        let err = fetch("ftp://example.com/x.csv", dir.path()).await.unwrap_err();
        assert!(matches!(err, SourceError::InvalidUrl { .. }), "{err}");
        let err = fetch("leads.csv", dir.path()).await.unwrap_err();
        assert!(matches!(err, SourceError::InvalidUrl { .. }), "{err}");
    }

    #[test]
    fn share_links_become_download_links() {
        let google =
            Url::parse("https://docs.google.com/spreadsheets/d/AbC123/edit#gid=0").unwrap();
        assert_eq!(
            download_link(google).as_str(),
            "https://docs.google.com/spreadsheets/d/AbC123/export?format=xlsx"
        );
        let dropbox = Url::parse("https://www.dropbox.com/s/x/leads.xlsx?dl=0").unwrap();
        assert_eq!(download_link(dropbox).as_str(), "https://www.dropbox.com/s/x/leads.xlsx?dl=1");
    }

    #[test]
    fn disposition_names() {
        assert_eq!(
            disposition_name("attachment; filename*=UTF-8''Kunden%20M%C3%BCnchen.xlsx"),
            Some("Kunden München.xlsx".to_owned())
        );
        assert_eq!(disposition_name("inline; filename=leads.csv"), Some("leads.csv".to_owned()));
        assert_eq!(sanitize("..\\..\\x.csv"), "x.csv");
        assert_eq!(sanitize("...hidden"), "hidden");
    }
}
