//! The service's six endpoints under `/api`, the sandbox-only conversation simulation (see
//! `simulate`), and JSON answers for unknown paths and methods. The lists other than the
//! paginated assistant list answer in the configured shape (see `shape`).
//! Handlers are thin: validate, call the store scoped to the authenticated user, wrap the answer.

use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};

use super::AppState;
use super::auth::User;
use super::page::{DEFAULT_PER_PAGE, Page, envelope, list_url, page_request};
use super::reply::{ApiError, json_body};
use super::wire::{Assistant, Envelope, Lead};
use super::{requests, shape, simulate};

pub(crate) fn router(state: AppState) -> Router {
    Router::new()
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
