//! The shape of the lists of campaigns, leads and outbound assistants. The spec shows bare JSON
//! arrays, but the real service's own docs show these lists in three shapes, so the sandbox can
//! answer in each of them, for testing clients against all three:
//!
//! - `bare`: `[...]`, as the spec shows (the default);
//! - `wrapped`: `{"campaigns": [...]}`, `{"leads": [...]}`, `{"assistants": [...]}`;
//! - `paged`: the Laravel page envelope of the assistant list (see `page.rs`), honouring `page`
//!   and `per_page`, with a small default page size so that clients must walk the pages.
//!
//! The paginated assistant list (`user/assistants/get`) is always paged and is not affected.

use std::collections::BTreeMap;
use std::future::Future;

use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use serde::Serialize;

use super::error::SandboxError;
use super::page::{envelope, list_url, page_request};
use super::reply::{ApiError, large_json};
use super::store::{Listed, Window};

/// A `paged` list's page size unless asked otherwise: small, so that a few records already
/// make several pages (Laravel's own default is 15).
pub(crate) const LIST_PER_PAGE: i64 = 15;

/// How the sandbox answers the lists of campaigns, leads and outbound assistants.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ListShape {
    /// A JSON array, as the spec shows.
    #[default]
    Bare,
    /// An object with the list under the resource's name.
    Wrapped,
    /// The Laravel page envelope, `per_page` records a page.
    Paged,
}

/// The answer to a list request in `shape`; `key` names the list when wrapped, and `read`
/// reads the records of a window, or all of them when given `None`.
pub(crate) async fn answer<T, F, Fut>(
    shape: ListShape,
    key: &'static str,
    (headers, uri): (&HeaderMap, &Uri),
    read: F,
) -> Result<Response, ApiError>
where
    T: Serialize + Send + 'static,
    F: FnOnce(Option<Window>) -> Fut,
    Fut: Future<Output = Result<Listed<T>, SandboxError>>,
{
    match shape {
        ListShape::Bare => large_json(read(None).await?.items).await,
        ListShape::Wrapped => large_json(BTreeMap::from([(key, read(None).await?.items)])).await,
        ListShape::Paged => {
            let request = page_request(uri.query(), LIST_PER_PAGE)?;
            let Listed { items, total } = read(Some(request.window())).await?;
            large_json(envelope(items, total, request, list_url(headers, uri))).await
        }
    }
}
