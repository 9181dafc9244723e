//! The service's six endpoints under `/api`, the update and delete of a lead its documentation
//! adds (under the path forms of [`LeadPaths`]), the sandbox-only conversation simulation (see
//! `simulate`), and JSON answers for unknown paths and methods. The lists other than the
//! paginated assistant list answer in the configured shape (see `shape`).
//! Handlers are thin: validate, call the store scoped to the authenticated user, wrap the answer.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use axum::routing::{get, post, put};
use axum::{Json, Router};

use super::AppState;
use super::auth::User;
use super::page::{DEFAULT_PER_PAGE, Page, envelope, list_url, page_request};
use super::reply::{ApiError, json_body};
use super::store::Outcome;
use super::wire::{Assistant, Envelope, Lead, Message};
use super::{requests, shape, simulate};

/// What a change or delete of a lead that is not the user's answers, with 404.
const LEAD_NOT_FOUND: &str = "Lead not found";

/// Under which paths a lead is updated and deleted. The service's documentation names
/// `PUT /leads/{id}` and `DELETE /user/leads/{id}`, and one of its clients updates under
/// `/user/leads/{id}`, so the sandbox serves both forms for both methods unless told to serve
/// one, which lets a client's fallback from one form to the other be tested.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LeadPaths {
    /// `/leads/{id}` and `/user/leads/{id}`.
    #[default]
    Both,
    /// Only `/user/leads/{id}`.
    UserOnly,
    /// Only `/leads/{id}`.
    BareOnly,
}

impl LeadPaths {
    /// The routes a lead is updated and deleted under.
    fn routes(self) -> &'static [&'static str] {
        match self {
            LeadPaths::Both => &["/api/leads/{id}", "/api/user/leads/{id}"],
            LeadPaths::UserOnly => &["/api/user/leads/{id}"],
            LeadPaths::BareOnly => &["/api/leads/{id}"],
        }
    }
}

pub(crate) fn router(state: AppState) -> Router {
    let lead_routes = state.lead_paths.routes().iter();
    let lead = |router: Router<AppState>, path: &&str| {
        router.route(path, put(update_lead).delete(delete_lead))
    };
    lead_routes
        .fold(Router::new(), lead)
        .route("/api/user/assistants/get", get(list_assistants))
        .route("/api/user/assistants/outbound", get(outbound_assistants))
        .route("/api/user/assistants/enable-conversation-ended-webhook", post(enable_webhook))
        .route("/api/user/lead", post(create_lead))
        .route("/api/user/leads", get(list_leads))
        .route("/api/user/campaigns", get(list_campaigns))
        .route("/api/sandbox/assistants/{id}/simulate-conversation-ended", post(simulate::simulate))
        .route("/api/sandbox/conversations/{id}/deliveries", get(simulate::deliveries))
        .method_not_allowed_fallback(wrong_method)
        .fallback(no_route)
        .with_state(state)
}

async fn list_assistants(
    State(state): State<AppState>,
    User(user): User,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Json<Page<Assistant>>, ApiError> {
    let request = page_request(uri.query(), DEFAULT_PER_PAGE)?;
    let found = state.store.assistants_page(user, request.window()).await?;
    Ok(Json(envelope(found.items, found.total, request, list_url(&headers, &uri))))
}

async fn outbound_assistants(
    State(state): State<AppState>,
    User(user): User,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, ApiError> {
    let store = state.store.clone();
    let read = move |window| async move { store.outbound_assistants(user, window).await };
    shape::answer(state.list_shape, "assistants", (&headers, &uri), read).await
}

async fn list_campaigns(
    State(state): State<AppState>,
    User(user): User,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, ApiError> {
    let store = state.store.clone();
    let read = move |window| async move { store.campaigns(user, window).await };
    shape::answer(state.list_shape, "campaigns", (&headers, &uri), read).await
}

async fn create_lead(
    State(state): State<AppState>,
    User(user): User,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Envelope<Lead>>, ApiError> {
    let draft = requests::lead(&json_body(body)?);
    let lead = state.store.create_lead(user, draft).await??;
    Ok(Json(Envelope { message: "Lead created successfully", data: lead }))
}

async fn list_leads(
    State(state): State<AppState>,
    User(user): User,
    headers: HeaderMap,
    uri: Uri,
) -> Result<Response, ApiError> {
    let store = state.store.clone();
    let read = move |window| async move { store.leads(user, window).await };
    shape::answer(state.list_shape, "leads", (&headers, &uri), read).await
}

/// The answer carries the updated lead under `data`, as create does; the real service documents
/// only the `message`, so a client must not depend on `data`.
async fn update_lead(
    State(state): State<AppState>,
    User(user): User,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Envelope<Lead>>, ApiError> {
    let id = lead_id(&id)?;
    let change = requests::lead_change(&json_body(body)?);
    match state.store.update_lead(user, id, change).await? {
        Outcome::Done(lead) => {
            Ok(Json(Envelope { message: "Lead successfully updated", data: lead }))
        }
        Outcome::Invalid(errors) => Err(errors.into()),
        Outcome::NotFound => Err(ApiError::NotFound(LEAD_NOT_FOUND)),
    }
}

async fn delete_lead(
    State(state): State<AppState>,
    User(user): User,
    Path(id): Path<String>,
) -> Result<Json<Message>, ApiError> {
    let id = lead_id(&id)?;
    match state.store.delete_lead(user, id).await? {
        Outcome::Done(()) => Ok(Json(Message { message: "Lead deleted successfully".into() })),
        Outcome::Invalid(errors) => Err(errors.into()),
        Outcome::NotFound => Err(ApiError::NotFound(LEAD_NOT_FOUND)),
    }
}

/// An id that is no integer names no lead, so it is not found rather than a bad request.
fn lead_id(raw: &str) -> Result<i64, ApiError> {
    raw.parse().map_err(|_| ApiError::NotFound(LEAD_NOT_FOUND))
}

async fn enable_webhook(
    State(state): State<AppState>,
    User(user): User,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Envelope<[(); 0]>>, ApiError> {
    let request = requests::webhook(&json_body(body)?)?;
    let (assistant, url) = (request.assistant_id, request.webhook_url);
    let store = &state.store;
    if !store.enable_conversation_webhook(user, assistant, url).await? {
        return Err(ApiError::NotFound("Assistant not found."));
    }
    Ok(Json(Envelope { message: "Conversation ended webhook enabled successfully", data: [] }))
}

async fn no_route(uri: Uri) -> ApiError {
    ApiError::NoRoute(uri.path().trim_start_matches('/').to_string())
}

async fn wrong_method(method: Method, uri: Uri) -> ApiError {
    ApiError::WrongMethod {
        method: method.to_string(),
        path: uri.path().trim_start_matches('/').to_string(),
    }
}
