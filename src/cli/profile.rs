//! Profiles for several accounts: `$XDG_CONFIG_HOME/leadsync/config.toml` holds
//! `[profiles.NAME]` tables, one selected with `--profile NAME` or `LEADSYNC_PROFILE`. A
//! profile fills in what neither a flag nor the environment gave; the mapping file and the
//! defaults come after it. Tokens never live here: a profile names a `token_file`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;

/// One account's settings.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub base_url: Option<String>,
    pub token_file: Option<PathBuf>,
    pub region: Option<String>,
    pub rate: Option<f64>,
    pub concurrency: Option<u16>,
    pub state_dir: Option<PathBuf>,
    /// Only so a token written here gets a clear refusal instead of "unknown field".
    token: Option<toml::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    profiles: BTreeMap<String, Profile>,
}

/// The config file's usual place: `$XDG_CONFIG_HOME/leadsync/config.toml`.
pub fn config_path() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_CONFIG_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("leadsync/config.toml"));
    }
    directories::ProjectDirs::from("", "", "leadsync").map(|d| d.config_dir().join("config.toml"))
}

/// The profile `name` from the config file at `path`, checked.
pub fn load(path: &Path, name: &str) -> anyhow::Result<Profile> {
    let text = std::fs::read_to_string(path).with_context(|| {
        format!("reading the config file `{}` for profile `{name}`", path.display())
    })?;
    let file: ConfigFile = toml::from_str(&text)
        .with_context(|| format!("the config file `{}` is not valid", path.display()))?;
    let Some(profile) = file.profiles.get(name) else {
        let known: Vec<_> = file.profiles.keys().map(String::as_str).collect();
        bail!(
            "no profile `{name}` in `{}`; it has: {}",
            path.display(),
            if known.is_empty() { "none".to_string() } else { known.join(", ") }
        );
    };
    if profile.token.is_some() {
        bail!(
            "profile `{name}` in `{}` holds a token: tokens live in files or the environment; write it to a file only you can read and set `token_file` instead",
            path.display()
        );
    }
    if let Some(rate) = profile.rate
        && !(rate == 0.0 || (0.01..=10_000.0).contains(&rate))
    {
        bail!("profile `{name}`: `rate` must be 0 (no limit) or from 0.01 to 10000, got {rate}");
    }
    if profile.concurrency.is_some_and(|c| !(1..=256).contains(&c)) {
        bail!("profile `{name}`: `concurrency` must be from 1 to 256");
    }
    Ok(profile.clone())
}

/// Like ssh, a word when a token file can be read by others: they can act as the account.
pub fn warn_if_readable_by_others(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path)
            && meta.permissions().mode() & 0o077 != 0
        {
            eprintln!(
                "warning: the token file `{}` can be read by other users (mode {:o}); `chmod 600` it",
                path.display(),
                meta.permissions().mode() & 0o777
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn a_profile_is_read_and_checked() {
        let (_dir, path) = file(
            "[profiles.acme]\nbase_url = \"https://x/api\"\ntoken_file = \"t\"\nrate = 2\n[profiles.b]\n",
        );
        let acme = load(&path, "acme").unwrap();
        assert_eq!(acme.rate, Some(2.0));
        assert_eq!(acme.token_file.as_deref(), Some(Path::new("t")));
        let err = load(&path, "nope").unwrap_err().to_string();
        assert!(err.contains("it has: acme, b"), "{err}");
        let (_d, bad) = file("[profiles.a]\ntoken = \"s3cret\"\n");
        let err = format!("{:#}", load(&bad, "a").unwrap_err());
        assert!(err.contains("tokens live in files") && !err.contains("s3cret"), "{err}");
        let (_d, bad) = file("[profiles.a]\nrate = -1\n");
        assert!(load(&bad, "a").is_err());
        let (_d, bad) = file("[profiles.a]\nbase_ulr = \"x\"\n");
        assert!(format!("{:#}", load(&bad, "a").unwrap_err()).contains("base_ulr"));
    }
}
