//! How handlers answer when things go wrong, and the JSON plumbing shared by the handlers.
//! Every answer, errors included, is a JSON object with a `message` (Laravel's shapes).

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;

use super::error::SandboxError;
use super::validation::ValidationErrors;
use super::wire::Message;

#[derive(Debug)]
pub(crate) enum ApiError {
    /// 401: no bearer token, or one no user has.
    Unauthenticated,
    /// 422: the body or query failed validation.
    Invalid(ValidationErrors),
    /// 404 of a known route: the thing named in the body is not the user's.
    NotFound(&'static str),
    /// 400: the body is not JSON at all.
    MalformedJson(String),
    /// The body could not be read (too large, cut off): axum's status, our JSON shape.
    UnreadableBody { status: StatusCode, problem: String },
    /// 404 of an unknown path.
    NoRoute(String),
    /// 405: the path exists with other methods.
    WrongMethod { method: String, path: String },
    /// 500: the sandbox itself failed; logged, and told to the client without details.
    Internal(SandboxError),
}

impl From<SandboxError> for ApiError {
    fn from(error: SandboxError) -> Self {
        ApiError::Internal(error)
    }
}

impl From<ValidationErrors> for ApiError {
    fn from(errors: ValidationErrors) -> Self {
        ApiError::Invalid(errors)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            ApiError::Invalid(errors) => {
                return (StatusCode::UNPROCESSABLE_ENTITY, Json(errors)).into_response();
            }
            ApiError::Unauthenticated => (StatusCode::UNAUTHORIZED, "Unauthenticated.".into()),
            ApiError::NotFound(message) => (StatusCode::NOT_FOUND, message.to_string()),
            ApiError::MalformedJson(problem) => {
                (StatusCode::BAD_REQUEST, format!("The request body is not valid JSON: {problem}."))
            }
            ApiError::UnreadableBody { status, problem } => (status, problem),
            ApiError::NoRoute(path) => {
                (StatusCode::NOT_FOUND, format!("The route {path} could not be found."))
            }
            ApiError::WrongMethod { method, path } => (
                StatusCode::METHOD_NOT_ALLOWED,
                format!("The {method} method is not supported for route {path}."),
            ),
            ApiError::Internal(error) => {
                tracing::error!("sandbox request failed: {error}");
                (StatusCode::INTERNAL_SERVER_ERROR, "Server Error".into())
            }
        };
        (status, Json(Message { message })).into_response()
    }
}

/// The request body as JSON. An empty body is an empty object, as Laravel sees no input.
pub(crate) fn json_body(body: Result<Bytes, BytesRejection>) -> Result<Value, ApiError> {
    let body = body.map_err(|rejection| ApiError::UnreadableBody {
        status: rejection.status(),
        problem: rejection.body_text(),
    })?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_slice(&body).map_err(|e| ApiError::MalformedJson(e.to_string()))
}

/// A 200 JSON answer serialized off the async threads: a user's lead list can be tens of
/// megabytes, which would stall every other connection sharing the runtime thread.
pub(crate) async fn large_json<T: Serialize + Send + 'static>(
    value: T,
) -> Result<Response, ApiError> {
    let failed = |problem: String| ApiError::Internal(SandboxError::Answer { problem });
    let bytes = tokio::task::spawn_blocking(move || serde_json::to_vec(&value))
        .await
        .map_err(|e| failed(e.to_string()))?
        .map_err(|e| failed(e.to_string()))?;
    let json = HeaderValue::from_static("application/json");
    Ok(([(header::CONTENT_TYPE, json)], bytes).into_response())
}
