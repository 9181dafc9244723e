//! Who the account is, as the service sees it: the names that keep one account's journals apart
//! from another's and stay the same when the account's token is rotated.
//!
//! The interface exposes the owner's `user_id` on assistant records (`user:<id>`), and every
//! account's campaigns, whose ids are unique across the service (`campaign:<id>`): an account is
//! known by all of these, and two runs are of one account when they share one name. So an
//! account without assistants is still itself after its token rotates, and when its first
//! assistant appears. The token never names it. Journals of older versions were named by one
//! tag, `user:<id>` or a keyed hash of the token (`key:<hex>`, its key random and kept in the
//! state folder); [`Client::legacy_account_id`] still computes it, to find them.

use std::io::Write;
use std::path::Path;

use rand::RngCore;

use super::{Client, ClientError};

/// The file, in the state folder, holding the key of the fallback tag.
const KEY_FILE: &str = "account.key";

#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error("asking the service which account the token belongs to")]
    Service(#[source] ClientError),
    #[error("cannot {action} the account key `{path}`: {source}")]
    Key { action: &'static str, path: String, source: std::io::Error },
}

impl Client {
    /// Every name the service gives the account: its user id, when it has assistants, then its
    /// campaigns. Empty for an account with neither, which has nothing to import into.
    pub async fn account_names(&self) -> Result<Vec<String>, AccountError> {
        let mut names = Vec::new();
        if let Some(id) = self.user_id().await.map_err(AccountError::Service)? {
            names.push(format!("user:{id}"));
        }
        let campaigns = self.list_campaigns().await.map_err(AccountError::Service)?;
        let mut ids: Vec<u64> = campaigns.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        names.extend(ids.into_iter().map(|id| format!("campaign:{id}")));
        Ok(names)
    }

    /// The one tag older versions named the account's journals by: `user:<id>` from the
    /// service, or the keyed fallback whose key lives in `state_dir`.
    pub async fn legacy_account_id(&self, state_dir: &Path) -> Result<String, AccountError> {
        if let Some(id) = self.user_id().await.map_err(AccountError::Service)? {
            return Ok(format!("user:{id}"));
        }
        let key = account_key(state_dir)?;
        let tag = blake3::keyed_hash(&key, self.config.token.expose().as_bytes());
        Ok(format!("key:{}", &tag.to_hex()[..32]))
    }

    /// The owner of the account's assistants, if it has any.
    async fn user_id(&self) -> Result<Option<u64>, ClientError> {
        let outbound = self.outbound_assistants().await?;
        if let Some(id) = outbound.iter().map(|a| a.user_id).find(|id| *id > 0) {
            return Ok(Some(id));
        }
        let page = self.list_assistants(1, 1).await?;
        Ok(page.data.iter().map(|a| a.user_id).find(|id| *id > 0))
    }
}

/// The fallback tag's key: read from the state folder, or made once and kept there (owner
/// read/write only).
fn account_key(state_dir: &Path) -> Result<[u8; 32], AccountError> {
    let path = state_dir.join(KEY_FILE);
    let key_err =
        |action, source| AccountError::Key { action, path: path.display().to_string(), source };
    match std::fs::read(&path) {
        Ok(bytes) if bytes.len() == 32 => return Ok(bytes.try_into().expect("32 bytes")),
        Ok(_) => {
            let bad = std::io::Error::new(std::io::ErrorKind::InvalidData, "not a 32-byte key");
            return Err(key_err("read", bad));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(key_err("read", e)),
    }
    std::fs::create_dir_all(state_dir).map_err(|e| key_err("create the folder of", e))?;
    let mut key = [0u8; 32];
    rand::rng().fill_bytes(&mut key);
    // Written aside and linked into place, so a concurrent run never reads a half-written key.
    let aside = state_dir.join(format!("{KEY_FILE}.{}", std::process::id()));
    let mut options = std::fs::File::options();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&aside).and_then(|mut file| {
        file.write_all(&key)?;
        file.sync_all()
    });
    written.map_err(|e| key_err("write", e))?;
    let linked = std::fs::hard_link(&aside, &path);
    let _ = std::fs::remove_file(&aside);
    match linked {
        Ok(()) => Ok(key),
        // Another run made it first: use theirs.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => account_key(state_dir),
        Err(e) => Err(key_err("create", e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fallback_key_is_made_once_and_kept_private() {
        let dir = tempfile::tempdir().unwrap();
        let first = account_key(dir.path()).unwrap();
        assert_eq!(account_key(dir.path()).unwrap(), first);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(KEY_FILE)).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "mode {mode:o}");
        }
        std::fs::write(dir.path().join(KEY_FILE), b"short").unwrap();
        assert!(account_key(dir.path()).is_err());
    }
}
