//! The receiver's shared secret. The service documents no signing, so the only proof a request
//! comes from whoever was given the webhook URL is a token in that URL (`?token=…`).
//!
//! Comparison hashes both sides with BLAKE3 and compares the digests in constant time, so
//! neither the content nor the length of the secret leaks through response timing. The secret
//! never appears in `Debug` output or logs.

use std::fmt;
use std::path::Path;

use super::error::EventsError;

/// The environment variable the secret is read from when no `--secret-file` is given.
pub const SECRET_ENV: &str = "LEADSYNC_WEBHOOK_SECRET";
/// Shorter secrets could be guessed by anyone who can reach the port.
pub const MIN_SECRET_LEN: usize = 16;

#[derive(Clone)]
pub struct Secret {
    digest: blake3::Hash,
}

impl Secret {
    /// Checks `raw` (surrounding whitespace trimmed) and keeps only its digest.
    pub fn new(raw: &str) -> Result<Secret, EventsError> {
        let raw = raw.trim();
        let length = raw.chars().count();
        if length < MIN_SECRET_LEN {
            return Err(EventsError::WeakSecret { length });
        }
        if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(EventsError::SecretNotUrlSafe);
        }
        Ok(Secret { digest: blake3::hash(raw.as_bytes()) })
    }

    /// The secret from `file` when given, else from `LEADSYNC_WEBHOOK_SECRET`.
    pub fn from_file_or_env(file: Option<&Path>) -> Result<Secret, EventsError> {
        if let Some(path) = file {
            let raw = std::fs::read_to_string(path)
                .map_err(|cause| EventsError::ReadSecret { path: path.to_path_buf(), cause })?;
            return Secret::new(&raw);
        }
        match std::env::var(SECRET_ENV) {
            Ok(raw) => Secret::new(&raw),
            Err(_) => Err(EventsError::NoSecret),
        }
    }

    /// Whether `candidate` is the secret, in time independent of both.
    pub fn matches(&self, candidate: &str) -> bool {
        blake3::hash(candidate.as_bytes()) == self.digest
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::Secret;
    use crate::events::EventsError;

    #[test]
    fn matches_only_the_exact_secret() {
        let secret = Secret::new(" s3cret-s3cret-s3cret\n").unwrap();
        assert!(secret.matches("s3cret-s3cret-s3cret"));
        assert!(!secret.matches("s3cret-s3cret-s3cre"));
        assert!(!secret.matches(""));
        assert_eq!(format!("{secret:?}"), "Secret(***)");
    }

    #[test]
    fn short_or_spaced_secrets_are_refused() {
        assert!(matches!(Secret::new("short"), Err(EventsError::WeakSecret { length: 5 })));
        assert!(matches!(Secret::new("sixteen chars ok?"), Err(EventsError::SecretNotUrlSafe)));
    }
}
