fn main() -> std::process::ExitCode {
    leadsync::cli::main()
}
