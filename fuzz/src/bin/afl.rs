//! `leadsync-fuzz-afl TARGET`: one target under AFL++ (built by `cargo afl build`). One binary
//! for every target, so the instrumented build links once.

fn main() {
    let name = std::env::args().nth(1).unwrap_or_default();
    let Some(target) = leadsync_fuzz::find(&name) else {
        eprintln!("error: no fuzz target `{name}`; run `leadsync-fuzz list`");
        std::process::exit(2);
    };
    // Without AFL's panic hook: leadsync catches the workbook reader's panics on purpose and
    // turns them into a clear error, so only a panic that escapes the target is a crash (afl
    // aborts on those itself).
    afl::fuzz_nohook!(|data: &[u8]| (target.run)(data));
}
