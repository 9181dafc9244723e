//! Whether stderr gets colour, decided once: `--color always|never` wins, then `NO_COLOR`
//! (any non-empty value: no colour), then `CLICOLOR_FORCE` (non-empty and not `0`: colour),
//! then whether stderr is a terminal. Also the one place that paints the run summary.

use std::ffi::OsString;

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when stderr is a terminal, unless `NO_COLOR` or `CLICOLOR_FORCE` says otherwise
    #[default]
    Auto,
    Always,
    Never,
}

/// Colour on stderr, from the flag, the two environment variables and the terminal.
pub fn decide(
    choice: ColorChoice,
    no_color: Option<OsString>,
    clicolor_force: Option<OsString>,
    stderr_is_tty: bool,
) -> bool {
    let set = |v: &Option<OsString>| v.as_ref().is_some_and(|v| !v.is_empty());
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto if set(&no_color) => false,
        ColorChoice::Auto
            if set(&clicolor_force) && clicolor_force.as_deref() != Some("0".as_ref()) =>
        {
            true
        }
        ColorChoice::Auto => stderr_is_tty,
    }
}

/// From the process's environment and stderr.
pub fn from_env(choice: ColorChoice) -> bool {
    decide(
        choice,
        std::env::var_os("NO_COLOR"),
        std::env::var_os("CLICOLOR_FORCE"),
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    )
}

const BOLD: &str = "\x1b[1m";
const YELLOW: &str = "\x1b[33m";
const RESET: &str = "\x1b[0m";

/// The terminal summary with its headline, its warnings and the interrupted banner stressed.
pub fn paint_summary(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let (body, newline) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
        let style = if body.starts_with("interrupted:") || body.starts_with("campaigns were not") {
            Some(YELLOW)
        } else if body.contains(" rows: ") || body.contains(" row: ") || body == "top reasons:" {
            Some(BOLD)
        } else {
            None
        };
        match style {
            Some(style) => out.push_str(&format!("{style}{body}{RESET}{newline}")),
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &str) -> Option<OsString> {
        Some(v.into())
    }

    #[test]
    fn the_flag_beats_no_color_which_beats_clicolor_force_which_beats_the_terminal() {
        use ColorChoice::{Always, Auto, Never};
        assert!(decide(Always, os("1"), None, false));
        assert!(!decide(Never, None, os("1"), true));
        assert!(!decide(Auto, os("1"), os("1"), true), "NO_COLOR wins in auto");
        assert!(decide(Auto, os(""), os("1"), false), "an empty NO_COLOR is unset");
        assert!(decide(Auto, None, os("1"), false));
        assert!(!decide(Auto, None, os("0"), false), "CLICOLOR_FORCE=0 forces nothing");
        assert!(decide(Auto, None, None, true) && !decide(Auto, None, None, false));
    }

    #[test]
    fn painting_keeps_the_text() {
        let text = "interrupted: stopped\n3 rows: 2 valid, 1 rejected\nreport: r.json\n";
        let painted = paint_summary(text);
        assert!(painted.starts_with("\x1b[33minterrupted: stopped\x1b[0m\n"), "{painted:?}");
        assert!(painted.ends_with("report: r.json\n"));
        let plain: String = painted.replace(YELLOW, "").replace(BOLD, "").replace(RESET, "");
        assert_eq!(plain, text);
    }
}
