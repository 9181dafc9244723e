//! The language a person reads, and the number words every front shares: counts with their
//! thousands separator, rates and shares with their decimal mark, dates, and plurals. A front
//! never formats a number for people with `format!` alone, so "50.000 Zeilen" and "50,000 rows"
//! come from one place.

use serde::{Deserialize, Serialize};

/// English or German. English is the library's default; the CLI asks the environment
/// ([`Lang::from_env`]), the browser front asks the browser.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    De,
}

/// The environment variables that name the language of messages, strongest first (POSIX).
const LOCALE_VARS: [&str; 3] = ["LC_ALL", "LC_MESSAGES", "LANG"];

impl Lang {
    /// Both languages, for a test that every word exists in each.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::De];

    /// German when the first of `LC_ALL`, `LC_MESSAGES`, `LANG` that is set starts with `de`
    /// (`de_DE.UTF-8`, `de_AT`); English otherwise, `C` and `POSIX` included.
    pub fn from_env() -> Lang {
        Lang::from_vars(|name| std::env::var(name).ok())
    }

    /// [`Lang::from_env`] over any source of variables, so a test need not change the process's.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Lang {
        let first_set = LOCALE_VARS.iter().find_map(|name| var(name).filter(|v| !v.is_empty()));
        match first_set {
            Some(locale) if locale.to_ascii_lowercase().starts_with("de") => Lang::De,
            _ => Lang::En,
        }
    }

    /// `en` or `de`, as an HTML `lang` attribute and a `?lang=` parameter spell it.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
        }
    }

    /// The language of a code (`de`, `DE`, `de-AT`), if it is one of ours.
    pub fn parse(code: &str) -> Option<Lang> {
        let primary = code.trim().split(['-', '_']).next().unwrap_or_default();
        match primary.to_ascii_lowercase().as_str() {
            "en" => Some(Lang::En),
            "de" => Some(Lang::De),
            _ => None,
        }
    }

    fn thousands_separator(self) -> char {
        match self {
            Lang::En => ',',
            Lang::De => '.',
        }
    }

    fn decimal_mark(self) -> char {
        match self {
            Lang::En => '.',
            Lang::De => ',',
        }
    }
}

/// `50000` → `50,000` in English, `50.000` in German.
pub fn count(lang: Lang, n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(lang.thousands_separator());
        }
        out.push(digit);
    }
    out
}

/// A rate or any decimal with one digit after the mark: `5.1` in English, `5,1` in German.
pub fn rate(lang: Lang, x: f64) -> String {
    let text = format!("{x:.1}");
    match lang {
        Lang::En => text,
        Lang::De => text.replace('.', ","),
    }
}

/// A share of a whole: `12.3%` in English, `12,3 %` in German (with the space German typesetting
/// puts before the sign). Never rounds a problem away: `<0.1%` rather than `0.0%`, `>99.9%`
/// rather than `100.0%`.
pub fn percent(lang: Lang, n: u64, of: u64) -> String {
    let sign = match lang {
        Lang::En => "%",
        Lang::De => "\u{a0}%",
    };
    let number = match (n, of) {
        (0, _) | (_, 0) => "0".to_string(),
        _ if n * 1000 < of => format!("<0{}1", lang.decimal_mark()),
        _ if n == of => "100".to_string(),
        _ if (of - n) * 1000 < of => format!(">99{}9", lang.decimal_mark()),
        _ => rate(lang, n as f64 * 100.0 / of as f64),
    };
    number + sign
}

/// `1 row`, `2 rows`: the count in the language's digits and the word that goes with it.
pub fn plural(lang: Lang, n: u64, one: &str, many: &str) -> String {
    let word = if n == 1 { one } else { many };
    format!("{} {word}", count(lang, n))
}

/// A timestamp (`2024-11-25T08:14:03Z`, or with a space for the `T`) to the minute as people
/// write it: `2024-11-25 08:14` in English, `25.11.2024 08:14` in German. Text that is no such
/// timestamp is returned as it is.
pub fn date_time(lang: Lang, stamp: &str) -> String {
    let Some((year, month, day, time)) = split_stamp(stamp) else { return stamp.to_string() };
    match lang {
        Lang::En => format!("{year}-{month}-{day} {time}"),
        Lang::De => format!("{day}.{month}.{year} {time}"),
    }
}

/// Year, month, day and `HH:MM` of `YYYY-MM-DD[T ]HH:MM…`.
fn split_stamp(stamp: &str) -> Option<(&str, &str, &str, &str)> {
    let stamp = stamp.trim();
    // Byte positions below are characters only in ASCII (a hand-edited list may hold anything).
    if !stamp.is_ascii() {
        return None;
    }
    let (date, time) = stamp.split_once(['T', ' '])?;
    let mut parts = date.split('-');
    let (year, month, day) = (parts.next()?, parts.next()?, parts.next()?);
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let time = time.get(..5)?;
    let clock = digits(&time[..2], 2) && &time[2..3] == ":" && digits(&time[3..], 2);
    (digits(year, 4) && digits(month, 2) && digits(day, 2) && clock)
        .then_some((year, month, day, time))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_locale_variable_set_decides() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        assert_eq!(Lang::from_vars(env(&[("LANG", "de_DE.UTF-8")])), Lang::De);
        assert_eq!(Lang::from_vars(env(&[("LANG", "de_DE.UTF-8"), ("LC_ALL", "C")])), Lang::En);
        assert_eq!(Lang::from_vars(env(&[("LC_MESSAGES", "de_AT"), ("LANG", "en_US")])), Lang::De);
        assert_eq!(Lang::from_vars(env(&[("LC_ALL", ""), ("LANG", "de_CH")])), Lang::De);
        assert_eq!(Lang::from_vars(env(&[])), Lang::En);
        assert_eq!(Lang::parse("de-AT"), Some(Lang::De));
        assert_eq!(Lang::parse("fr"), None);
    }

    #[test]
    fn numbers_are_written_as_each_language_writes_them() {
        assert_eq!(count(Lang::En, 50_000), "50,000");
        assert_eq!(count(Lang::De, 50_000), "50.000");
        assert_eq!(count(Lang::De, 999), "999");
        assert_eq!(count(Lang::De, 1_234_567), "1.234.567");
        assert_eq!(rate(Lang::En, 5.1), "5.1");
        assert_eq!(rate(Lang::De, 5.1), "5,1");
        assert_eq!(percent(Lang::En, 4, 10), "40.0%");
        assert_eq!(percent(Lang::De, 4, 10), "40,0\u{a0}%");
        assert_eq!(percent(Lang::De, 1, 1_000_000), "<0,1\u{a0}%");
        assert_eq!(plural(Lang::De, 1, "Zeile", "Zeilen"), "1 Zeile");
        assert_eq!(plural(Lang::De, 2_000, "Zeile", "Zeilen"), "2.000 Zeilen");
        assert_eq!(plural(Lang::En, 0, "row", "rows"), "0 rows");
    }

    #[test]
    fn dates_are_written_as_each_language_writes_them() {
        assert_eq!(date_time(Lang::En, "2024-11-25T08:14:03Z"), "2024-11-25 08:14");
        assert_eq!(date_time(Lang::De, "2024-11-25T08:14:03Z"), "25.11.2024 08:14");
        assert_eq!(date_time(Lang::De, "2024-11-25 08:14"), "25.11.2024 08:14");
        assert_eq!(date_time(Lang::De, "yesterday"), "yesterday");
        assert_eq!(date_time(Lang::De, "2024-11-25 1é:00"), "2024-11-25 1é:00", "no panic");
    }
}
