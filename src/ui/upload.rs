//! An uploaded file, streamed from the multipart body to its folder in the state folder chunk
//! by chunk: never held whole in memory, and cut off (the partial file removed) as soon as it
//! passes the limit.

use std::path::Path;

use axum::extract::Multipart;
use axum::extract::multipart::Field;
use axum::http::header::CONTENT_LENGTH;
use axum::http::{HeaderMap, StatusCode};
use tokio::io::AsyncWriteExt;

use super::sources::{Chosen, Sources, safe_name};

/// The form field that carries the file.
pub(super) const FIELD: &str = "file";
/// What a multipart body may hold beyond the file: boundaries, part headers, a name.
pub(super) const OVERHEAD_BYTES: u64 = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub(super) enum UploadError {
    #[error("no file in the upload")]
    NoFile,
    #[error("the upload is larger than {max} bytes")]
    TooLarge { max: u64 },
    #[error("the upload broke off: {0}")]
    Broken(String),
    #[error("writing the upload to `{path}`: {source}")]
    Io { path: String, source: std::io::Error },
}

impl UploadError {
    pub(super) fn status(&self) -> StatusCode {
        match self {
            UploadError::NoFile | UploadError::Broken(_) => StatusCode::BAD_REQUEST,
            UploadError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            UploadError::Io { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// A body whose declared length is past the limit is refused before a byte of it is read or
/// written.
pub(super) fn declared_too_large(headers: &HeaderMap, max_bytes: u64) -> bool {
    headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
        .is_some_and(|length| length > max_bytes + OVERHEAD_BYTES)
}

/// Reads the body's `file` field into a new folder of `sources`; other fields are skipped.
/// Returns the new id and the sheet, not yet registered.
/// The file of a multipart form, refused at once when the request says it is too large.
pub(super) async fn receive_within(
    headers: &axum::http::HeaderMap,
    multipart: &mut Multipart,
    sources: &Sources,
    max_bytes: u64,
) -> Result<(String, Chosen), UploadError> {
    match declared_too_large(headers, max_bytes) {
        true => Err(UploadError::TooLarge { max: max_bytes }),
        false => receive(multipart, sources, max_bytes).await,
    }
}

/// What a page says about a refused upload.
pub(super) fn said(error: &UploadError, t: &super::text::Text) -> String {
    match error {
        UploadError::NoFile => t.no_file_chosen.to_string(),
        UploadError::TooLarge { max } => (t.too_large)(max / (1024 * 1024)),
        UploadError::Broken(_) => t.upload_failed.to_string(),
        // The folder's absolute path is for the terminal, not the page.
        UploadError::Io { .. } => {
            tracing::warn!("ui: {error}");
            t.upload_not_stored.to_string()
        }
    }
}

pub(super) async fn receive(
    multipart: &mut Multipart,
    sources: &Sources,
    max_bytes: u64,
) -> Result<(String, Chosen), UploadError> {
    loop {
        let field = multipart.next_field().await.map_err(|e| broken(&e, max_bytes))?;
        let Some(field) = field else { return Err(UploadError::NoFile) };
        if field.name() != Some(FIELD) {
            continue;
        }
        let kept = keep(field, sources, max_bytes).await;
        if matches!(kept, Err(UploadError::TooLarge { .. })) {
            drain(multipart).await;
        }
        return kept;
    }
}

/// A form that carries a file beside the page's other choices (the Mapping page is one form):
/// its text fields, in order, whatever became of the file, so a refusal can lead back to the
/// page with every choice kept.
pub(super) struct FormUpload {
    pub fields: Vec<(String, String)>,
    pub file: Result<(String, Chosen), UploadError>,
}

/// Reads a whole form: the `file` field to its folder as [`receive`] does, the text fields
/// into memory within [`TextBudget`], any other file field read and dropped.
pub(super) async fn receive_form(
    headers: &HeaderMap,
    multipart: &mut Multipart,
    sources: &Sources,
    max_bytes: u64,
) -> FormUpload {
    let mut form = FormUpload { fields: Vec::new(), file: Err(UploadError::NoFile) };
    if declared_too_large(headers, max_bytes) {
        form.file = Err(UploadError::TooLarge { max: max_bytes });
        return form;
    }
    let mut budget = TextBudget::default();
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => return form,
            Err(e) => {
                form.file = Err(broken(&e, max_bytes));
                return form;
            }
        };
        let waiting = matches!(form.file, Err(UploadError::NoFile));
        match field.name() {
            Some(FIELD) if waiting => {
                form.file = keep(field, sources, max_bytes).await;
                if matches!(form.file, Err(UploadError::TooLarge { .. })) {
                    drain(multipart).await;
                    return form;
                }
            }
            _ => {
                if let Some(pair) = budget.text(field).await {
                    form.fields.push(pair);
                }
            }
        }
    }
}

/// How much of a form's text is kept: a Mapping page's fields are a few kilobytes; a body
/// crafted with millions of fields must not take the server's memory.
#[derive(Debug, Default)]
pub(super) struct TextBudget {
    used: usize,
    fields: usize,
}

impl TextBudget {
    const MAX_FIELD_BYTES: usize = 64 * 1024;
    pub(super) const MAX_TOTAL_BYTES: usize = 1024 * 1024;
    const MAX_FIELDS: usize = 10_000;

    /// A text field's name and value; `None` for a file field (read and dropped), a field past
    /// the budget, or one that is not UTF-8.
    pub(super) async fn text(&mut self, mut field: Field<'_>) -> Option<(String, String)> {
        let name = field.name().map(str::to_string);
        let is_file = field.file_name().is_some();
        let mut value = Vec::new();
        let mut dropped = is_file;
        while let Ok(Some(chunk)) = field.chunk().await {
            if dropped || value.len() + chunk.len() > Self::MAX_FIELD_BYTES {
                dropped = true;
                value = Vec::new();
                continue;
            }
            value.extend_from_slice(&chunk);
        }
        self.fields += 1;
        self.used += value.len();
        let within =
            !dropped && self.fields <= Self::MAX_FIELDS && self.used <= Self::MAX_TOTAL_BYTES;
        within.then(|| Some((name?, String::from_utf8(value).ok()?))).flatten()
    }
}

/// The file field of an upload into a new folder of `sources`; the folder is removed again
/// when the file cannot be kept (past the limit, the caller drains the rest of the body).
async fn keep(
    field: Field<'_>,
    sources: &Sources,
    max_bytes: u64,
) -> Result<(String, Chosen), UploadError> {
    let name = field.file_name().unwrap_or_default().to_string();
    let (id, dir) = sources.new_folder().map_err(|source| UploadError::Io {
        path: sources.uploads().display().to_string(),
        source,
    })?;
    let path = dir.join(safe_name(&name));
    let copied = copy(field, &path, max_bytes).await;
    match copied {
        Ok(0) if name.is_empty() => {
            let _ = tokio::fs::remove_dir_all(&dir).await;
            Err(UploadError::NoFile)
        }
        Ok(_) => Ok((id, Chosen { path, location: safe_name(&name) })),
        Err(e) => {
            let _ = tokio::fs::remove_dir_all(&dir).await;
            Err(e)
        }
    }
}

/// Reads the rest of the body (within the body limit) and drops it: a server that answers
/// with a body still unread closes the connection, and the client may then see a reset
/// instead of the answer saying what was wrong.
async fn drain(multipart: &mut Multipart) {
    while let Ok(Some(mut field)) = multipart.next_field().await {
        while let Ok(Some(_)) = field.chunk().await {}
    }
}

async fn copy(mut field: Field<'_>, path: &Path, max_bytes: u64) -> Result<u64, UploadError> {
    let io = |source| UploadError::Io { path: path.display().to_string(), source };
    let mut file = tokio::fs::File::create(path).await.map_err(io)?;
    let mut written: u64 = 0;
    while let Some(chunk) = field.chunk().await.map_err(|e| broken(&e, max_bytes))? {
        written += chunk.len() as u64;
        if written > max_bytes {
            return Err(UploadError::TooLarge { max: max_bytes });
        }
        file.write_all(&chunk).await.map_err(io)?;
    }
    file.flush().await.map_err(io)?;
    file.sync_all().await.map_err(io)?;
    Ok(written)
}

/// The body limit (set a little above `max_bytes`) shows as a multipart error.
fn broken(error: &axum::extract::multipart::MultipartError, max_bytes: u64) -> UploadError {
    match error.status() {
        StatusCode::PAYLOAD_TOO_LARGE => UploadError::TooLarge { max: max_bytes },
        _ => UploadError::Broken(error.body_text()),
    }
}

#[cfg(test)]
mod tests {
    use axum::http::header::CONTENT_LENGTH;
    use axum::http::{HeaderMap, HeaderValue};

    use super::{OVERHEAD_BYTES, declared_too_large};

    #[test]
    fn a_declared_length_past_the_limit_is_refused_up_front() {
        let with = |length: u64| {
            let mut headers = HeaderMap::new();
            headers.insert(CONTENT_LENGTH, HeaderValue::from(length));
            headers
        };
        assert!(!declared_too_large(&with(1000 + OVERHEAD_BYTES), 1000));
        assert!(declared_too_large(&with(1001 + OVERHEAD_BYTES), 1000));
        assert!(!declared_too_large(&HeaderMap::new(), 1000), "chunked: counted as it comes");
    }
}
