//! Bearer-token authentication: the `User` extractor. Tokens are read once at start-up (only
//! seeds create users), so authenticating costs a hash lookup, not a database round trip.

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;

use super::AppState;
use super::reply::ApiError;

/// The id of the user the request's token identifies. Handlers take it before the body, so an
/// unauthenticated request is refused before its body is read or validated.
#[derive(Debug, Clone, Copy)]
pub(crate) struct User(pub i64);

impl FromRequestParts<AppState> for User {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<User, ApiError> {
        let token = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(bearer)
            .ok_or(ApiError::Unauthenticated)?;
        state.tokens.get(token).map(|id| User(*id)).ok_or(ApiError::Unauthenticated)
    }
}

/// The token of `Bearer <token>`; the scheme is case-insensitive, as in Laravel.
fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod tests {
    use super::bearer;

    #[test]
    fn bearer_tokens() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer  abc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearer "), None);
        assert_eq!(bearer("abc"), None);
    }
}
