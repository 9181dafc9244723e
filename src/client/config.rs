//! Where the service is and who we are to it: base URL checks and the secret token.

use std::fmt;
use std::net::IpAddr;
use std::path::Path;
use std::time::Duration;

use reqwest::Url;

/// The bearer token. It never appears in `Debug`, `Display`, logs, errors or reports; where
/// it came from does, so a refusal names the place to fix.
#[derive(Clone, PartialEq, Eq)]
pub struct Token {
    secret: String,
    origin: String,
}

impl Token {
    /// Takes a token, trimming the newline a `echo tok > file` leaves behind.
    pub fn new(raw: impl Into<String>) -> Result<Token, ConfigError> {
        let raw: String = raw.into();
        let token = raw.trim();
        if token.is_empty() {
            return Err(ConfigError::EmptyToken);
        }
        if token.chars().any(|c| c.is_control() || c == ' ') {
            return Err(ConfigError::MalformedToken);
        }
        Ok(Token { secret: token.to_string(), origin: "`LEADSYNC_TOKEN`".to_string() })
    }

    /// The same token, said to come from `origin` (for messages: "the token file `…`").
    pub fn with_origin(self, origin: impl Into<String>) -> Token {
        Token { origin: origin.into(), ..self }
    }

    /// Where the token came from, for a message that says what to fix.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Reads the token from a file, so it never sits in a process argument.
    pub fn from_file(path: &Path) -> Result<Token, ConfigError> {
        let raw = std::fs::read_to_string(path).map_err(|e| ConfigError::TokenFile {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Ok(Token::new(raw)?.with_origin(format!("the token file `{}`", path.display())))
    }

    /// The secret itself, for the Authorization header only.
    pub(crate) fn expose(&self) -> &str {
        &self.secret
    }

    /// A short, non-reversible tag that tells two tokens apart in journals without storing
    /// either of them.
    pub fn fingerprint(&self) -> String {
        blake3::hash(self.secret.as_bytes()).to_hex()[..16].to_string()
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(***)")
    }
}

/// Everything needed to talk to one account of the service.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub base_url: Url,
    pub token: Token,
    pub timeout: Duration,
}

impl ClientConfig {
    /// Checks the base URL: it must end in `/api`, and be https unless it is a loopback
    /// address or `allow_insecure_http` is set (the token would travel in clear text).
    pub fn new(
        base_url: &str,
        token: Token,
        timeout: Duration,
        allow_insecure_http: bool,
    ) -> Result<ClientConfig, ConfigError> {
        let base_url = parse_base_url(base_url)?;
        if base_url.scheme() == "http" && !is_loopback(&base_url) && !allow_insecure_http {
            return Err(ConfigError::InsecureHttp(base_url.to_string()));
        }
        Ok(ClientConfig { base_url, token, timeout })
    }
}

fn parse_base_url(raw: &str) -> Result<Url, ConfigError> {
    let mut url = Url::parse(raw.trim())
        .map_err(|e| ConfigError::BadUrl { url: raw.to_string(), reason: e.to_string() })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ConfigError::BadUrl {
            url: raw.to_string(),
            reason: "the scheme must be https (or http on loopback)".into(),
        });
    }
    let path = url.path().trim_end_matches('/').to_string();
    if !path.ends_with("/api") {
        let fixed = format!("{}{}/api", url.origin().ascii_serialization(), path);
        return Err(ConfigError::MissingApiSegment { url: raw.to_string(), fixed });
    }
    // A trailing slash makes `Url::join` keep the last segment: `…/api/` + `user/leads`.
    url.set_path(&format!("{path}/"));
    url.set_query(None);
    url.set_fragment(None);
    Ok(url)
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("the token is empty: put it in `LEADSYNC_TOKEN` or a file named by `--token-file`")]
    EmptyToken,
    #[error("the token contains spaces or control characters: paste only the token itself")]
    MalformedToken,
    #[error("cannot read the token file `{path}`: {reason}")]
    TokenFile { path: String, reason: String },
    #[error("no token: set `LEADSYNC_TOKEN` or pass `--token-file FILE` (or try `--sandbox`)")]
    NoToken,
    #[error("`{url}` is not a usable base URL: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("the base URL `{url}` must end with the `api` segment: use `{fixed}`")]
    MissingApiSegment { url: String, fixed: String },
    #[error(
        "refusing to send the token over plain http to `{0}`: use https, or pass `--allow-insecure-http` if you really mean it"
    )]
    InsecureHttp(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(url: &str, insecure: bool) -> Result<ClientConfig, ConfigError> {
        ClientConfig::new(url, Token::new("t").unwrap(), Duration::from_secs(1), insecure)
    }

    #[test]
    fn base_url_must_end_in_api_and_says_the_fix() {
        let err = config("https://calls.example.com/v1", false).unwrap_err();
        assert!(err.to_string().contains("https://calls.example.com/v1/api"), "{err}");
        let ok = config("https://calls.example.com/api", false).unwrap();
        assert_eq!(ok.base_url.join("user/leads").unwrap().path(), "/api/user/leads");
        let ok = config("https://calls.example.com/api/", false).unwrap();
        assert_eq!(ok.base_url.as_str(), "https://calls.example.com/api/");
    }

    #[test]
    fn plain_http_only_on_loopback_or_when_allowed() {
        assert!(matches!(
            config("http://calls.example.com/api", false),
            Err(ConfigError::InsecureHttp(_))
        ));
        assert!(config("http://calls.example.com/api", true).is_ok());
        assert!(config("http://127.0.0.1:8080/api", false).is_ok());
        assert!(config("http://[::1]:8080/api", false).is_ok());
        assert!(config("http://localhost:8080/api", false).is_ok());
    }

    #[test]
    fn token_never_shows_in_debug() {
        let token = Token::new("s3cret-value\n").unwrap();
        assert_eq!(format!("{token:?}"), "Token(***)");
        assert_eq!(token.expose(), "s3cret-value");
        assert!(!token.fingerprint().contains("s3cret"));
    }
}
