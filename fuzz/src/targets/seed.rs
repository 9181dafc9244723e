//! Sandbox seed parsing: a `--seed` file is checked (users, tokens, campaigns, assistants)
//! and either accepted or refused with a message, never a panic.

use leadsync::sandbox::Seed;

use crate::Target;

pub const TARGET: Target = Target {
    name: "seed",
    run,
    dictionary: &[
        b"{",
        b"}",
        b"[",
        b"]",
        b":",
        b",",
        b"null",
        b"1e999",
        b"-1",
        b"18446744073709551616",
        b"\"users\"",
        b"\"id\"",
        b"\"token\"",
        b"\"tokens\"",
        b"\"campaigns\"",
        b"\"assistants\"",
        b"\"name\"",
        b"\"allowed_days\"",
        b"\"start_time\"",
        b"\"timezone\"",
        b"\"12.50\"",
    ],
    max_len: 64 * 1024,
};

fn run(data: &[u8]) {
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    if let Ok(seed) = Seed::from_json("fuzz.json".to_owned(), json) {
        let _ = seed.user_count();
    }
}
