//! The `leadsync` binary: everything happens in `leadsync::cli`.

fn main() -> std::process::ExitCode {
    leadsync::cli::main()
}
