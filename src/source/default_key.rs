//! Workbooks encrypted with Excel's default key: Excel encrypts a workbook with the password
//! `VelvetSweatshop` when it protects one without a password of its own, and opens such a
//! file without asking. The `office-crypto` crate (a port of msoffcrypto-tool) decrypts it
//! (ECMA-376 agile and standard encryption, which every XLSX Excel encrypts uses) into a
//! temporary file that is read as any workbook. A file encrypted with a person's password
//! stays refused, with how to save it without one.

use std::io::Write;
use std::path::Path;

use tempfile::TempPath;

/// The password Excel uses when a workbook is encrypted without one of its own.
const DEFAULT_KEY: &str = "VelvetSweatshop";
/// Decrypting holds the file and the workbook in memory: a larger encrypted file is refused
/// as any other password-protected one (about half a million rows of a lead list).
const MAX_ENCRYPTED_BYTES: u64 = 64 << 20;

/// The workbook at `path` decrypted with Excel's default key into a temporary file; `None`
/// when the default key does not open it (a password of the person's own), when it is too
/// large, or when decrypting fails on damage.
pub(super) fn decrypt(path: &Path) -> Option<TempPath> {
    let size = std::fs::metadata(path).ok()?.len();
    if size > MAX_ENCRYPTED_BYTES {
        return None;
    }
    let decrypted = super::caught::catch(|| office_crypto::decrypt_from_file(path, DEFAULT_KEY));
    let plain = decrypted.ok()?.ok()?;
    // A wrong key decrypts to noise rather than failing: a workbook is a zip package.
    if !plain.starts_with(b"PK\x03\x04") {
        return None;
    }
    let mut file = tempfile::Builder::new().prefix("leadsync-").suffix(".xlsx").tempfile().ok()?;
    file.write_all(&plain).ok()?;
    file.flush().ok()?;
    Some(file.into_temp_path())
}
