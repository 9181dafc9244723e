//! The catalog is complete: every reason, status and message shape has its words in English
//! and German, the German is German, and what a page shows speaks no terminal (no flag, no
//! mapping line, no file path, no backticks). The compiler already refuses a reason without a
//! word (every `match` lists each variant); these tests catch what it cannot.

use super::lang::Lang;
use super::said::{AssistantText, Said, number_kind, phone_problem};
use super::{Issue, IssueCode, RowStatus};
use crate::phone::{NumberType, PhoneProblem};

/// The variant names serde knows for `T`, from its "unknown variant" error: the one list of an
/// enum's variants that a new variant cannot be left out of.
fn serde_variants<T: serde::de::DeserializeOwned + std::fmt::Debug>(json: &str) -> Vec<String> {
    let err = serde_json::from_str::<T>(json).expect_err("no such variant").to_string();
    let listed = err.split("expected one of").nth(1).unwrap_or_else(|| panic!("{err}"));
    let listed = listed.split(" at line").next().unwrap_or_default();
    listed.split(',').map(|name| name.trim().trim_matches('`').to_string()).collect()
}

#[test]
fn issue_code_all_lists_every_reason_once_in_order() {
    let names: Vec<String> = IssueCode::ALL.iter().map(|c| c.as_str().to_string()).collect();
    assert_eq!(names, serde_variants::<IssueCode>("\"no_such_reason\""));
    for (i, code) in IssueCode::ALL.iter().enumerate() {
        assert_eq!(*code as usize, i, "{code:?} out of order");
    }
}

#[test]
fn row_status_all_lists_every_status() {
    let names: Vec<String> = RowStatus::ALL.iter().map(|s| s.as_str().to_string()).collect();
    assert_eq!(names, serde_variants::<RowStatus>("\"no_such_status\""));
}

/// Words of English a German text must not hold. German words that are English words too
/// (`in`, `an`, `so`, `Lead`) are not among them.
const ENGLISH: [&str; 39] = [
    "the", "and", "or", "of", "to", "is", "are", "a", "number", "numbers", "row", "rows", "column",
    "campaign", "not", "with", "none", "nothing", "enter", "fix", "use", "correct", "check",
    "already", "service", "send", "sent", "call", "called", "cell", "type", "it", "its", "this",
    "if", "was", "left", "out", "empty",
];

/// `text` without what a terminal user types as it is (`--campaign`, `block_number_types`,
/// a backticked name): the CLI's hint keeps those in any language.
fn without_typed_names(text: &str) -> String {
    let mut spans = text.split('`');
    let outside: Vec<&str> = spans.by_ref().step_by(2).collect();
    outside
        .join(" ")
        .split_whitespace()
        .filter(|word| !word.starts_with("--") && !word.contains('_'))
        .collect::<Vec<_>>()
        .join(" ")
}

fn english_words_in(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphabetic())
        .map(str::to_lowercase)
        .filter(|word| ENGLISH.contains(&word.as_str()))
        .collect()
}

/// What a page may not show: the terminal's marks and the mapping file's lines.
fn terminal_marks_in(text: &str) -> Vec<&'static str> {
    ["`", "--", "=", "/", "leadsync ui"].into_iter().filter(|mark| text.contains(mark)).collect()
}

fn english_catalog() -> Vec<&'static str> {
    IssueCode::ALL
        .iter()
        .flat_map(|c| [c.title(Lang::En), c.todo(Lang::En), c.fix_in(Lang::En)])
        .collect()
}

#[test]
fn every_reason_has_a_title_a_page_hint_and_a_cli_hint_in_both_languages() {
    let english = english_catalog();
    for code in IssueCode::ALL {
        for lang in Lang::ALL {
            for (what, text) in
                [("title", code.title(lang)), ("todo", code.todo(lang)), ("fix", code.fix_in(lang))]
            {
                assert!(!text.trim().is_empty(), "{code:?} {lang:?} {what} is empty");
            }
            for (what, text) in [("title", code.title(lang)), ("todo", code.todo(lang))] {
                let marks = terminal_marks_in(text);
                assert!(marks.is_empty(), "{code:?} {lang:?} {what} {text:?} has {marks:?}");
            }
        }
        assert_eq!(code.fix(), code.fix_in(Lang::En));
        for (what, en, de) in [
            ("title", code.title(Lang::En), code.title(Lang::De)),
            ("todo", code.todo(Lang::En), code.todo(Lang::De)),
            ("fix", code.fix_in(Lang::En), code.fix_in(Lang::De)),
        ] {
            assert_ne!(en, de, "{code:?} {what} is not translated");
            let words = english_words_in(&without_typed_names(de));
            assert!(words.is_empty(), "{code:?} German {what} {de:?} has English {words:?}");
            let lower = de.to_lowercase();
            let copied = english.iter().find(|e| lower.contains(&e.to_lowercase()));
            assert!(copied.is_none(), "{code:?} German {what} {de:?} holds {copied:?}");
        }
    }
}

#[test]
fn every_status_has_a_word_in_both_languages() {
    for status in RowStatus::ALL {
        let (en, de) = (status.word(Lang::En), status.word(Lang::De));
        assert!(!en.is_empty() && !de.is_empty(), "{status:?}");
        assert_ne!(en, de, "{status:?} is not translated");
        assert!(english_words_in(de).is_empty(), "{status:?}: {de}");
    }
}

/// Every phone problem; the `match` breaks the build when the phone code gains one.
fn every_phone_problem() -> Vec<PhoneProblem> {
    let all = vec![
        PhoneProblem::Missing,
        PhoneProblem::NotANumber,
        PhoneProblem::TooShort,
        PhoneProblem::TooLong,
        PhoneProblem::InvalidCountryCode,
        PhoneProblem::InvalidForRegion { region: "DE".into() },
        PhoneProblem::ScientificNotation,
    ];
    for problem in &all {
        match problem {
            PhoneProblem::Missing
            | PhoneProblem::NotANumber
            | PhoneProblem::TooShort
            | PhoneProblem::TooLong
            | PhoneProblem::InvalidCountryCode
            | PhoneProblem::InvalidForRegion { .. }
            | PhoneProblem::ScientificNotation => {}
        }
    }
    all
}

/// Every number type; the `match` breaks the build when a type is added.
fn every_number_type() -> Vec<NumberType> {
    let all = vec![
        NumberType::Mobile,
        NumberType::FixedLine,
        NumberType::FixedLineOrMobile,
        NumberType::TollFree,
        NumberType::PremiumRate,
        NumberType::SharedCost,
        NumberType::Voip,
        NumberType::PersonalNumber,
        NumberType::Pager,
        NumberType::Uan,
        NumberType::Voicemail,
        NumberType::Unknown,
    ];
    for kind in &all {
        match kind {
            NumberType::Mobile
            | NumberType::FixedLine
            | NumberType::FixedLineOrMobile
            | NumberType::TollFree
            | NumberType::PremiumRate
            | NumberType::SharedCost
            | NumberType::Voip
            | NumberType::PersonalNumber
            | NumberType::Pager
            | NumberType::Uan
            | NumberType::Voicemail
            | NumberType::Unknown => {}
        }
    }
    all
}

/// One of each message shape (two where a shape has more than one sentence), with parameters
/// of no language, so that any English word in the German is the catalog's.
fn samples() -> Vec<Said> {
    let s = |text: &str| text.to_string();
    let e164 = || s("+4915123456789");
    let allowed = vec![s("DE"), s("AT")];
    let mut said = vec![
        Said::NoPhone { columns: vec![s("Telefon")] },
        Said::NoPhone { columns: vec![s("Telefon"), s("Mobil"), s("Handy")] },
        Said::PhoneCellError { column: s("Telefon"), value: s("#REF!") },
        Said::ScientificNotation { typed: s("4,91511E+12"), column: s("Telefon") },
        Said::ExtensionDropped { extension: s("12"), typed: s("030 1234 56 - 12") },
        Said::RemarkDropped { remark: s("(privat)"), column: s("Telefon"), e164: e164() },
        Said::CellError { column: s("Firma"), value: s("#DIV/0!") },
        Said::NoCampaign,
        Said::SecondaryNotUpdated,
        Said::LeadUpdated { values: vec![(s("customer_name"), Some(s("Ada")), s("Ada Lovelace"))] },
        Said::LeadStopped,
        Said::ChangeFailed { stop: true, error: s("the service answered 503") },
        Said::UnknownCampaign {
            name: s("Frühling"),
            closest: Some((s("Frühjahr"), 4)),
            known: vec![],
        },
        Said::UnknownCampaign { name: s("Frühling"), closest: None, known: vec![] },
        Said::UnknownCampaign {
            name: s("Frühling"),
            closest: None,
            known: vec![(s("Herbst"), 1), (s("Winter"), 2)],
        },
        Said::AmbiguousCampaign { name: s("Herbst"), ids: vec![2, 3] },
        Said::DuplicateInFile { e164: e164(), first_row: 12 },
        Said::Excluded,
        Said::HiddenRow,
        Said::FilteredOut,
        Said::CountryUnknownRead { cell: s("Atlantis"), column: s("Land") },
        Said::CountryUnknownRefused { cell: s("Atlantis"), column: s("Land"), typed: s("0151") },
        Said::CountryUnknownSecondary { typed: s("0151"), cell: s("Atlantis"), column: s("Land") },
        Said::Foreign { e164: s("+48123456789"), region: Some(s("PL")), allowed: allowed.clone() },
        Said::Foreign { e164: s("+881612345678"), region: None, allowed: allowed.clone() },
        Said::ForeignSecondary { e164: s("+48123456789"), region: Some(s("PL")), allowed },
        Said::Suppressed { e164: e164(), list: s("sperrliste.csv") },
        Said::SuppressedSecondary { e164: e164(), list: s("sperrliste.csv") },
        Said::NoConsent { column: s("Einwilligung"), cell: s(""), accepted: vec![s("ja"), s("x")] },
        Said::NoConsent {
            column: s("Einwilligung"),
            cell: s("nein"),
            accepted: vec![s("ja"), s("x")],
        },
        Said::MissingVariable {
            name: s("firma"),
            texts: vec![],
            assistant: s("Anna"),
            assistant_id: 7,
        },
        Said::MissingVariable {
            name: s("firma"),
            texts: vec![AssistantText::InitialMessage],
            assistant: s("Anna"),
            assistant_id: 7,
        },
        Said::MissingVariable {
            name: s("firma"),
            texts: vec![AssistantText::InitialMessage, AssistantText::SystemPrompt],
            assistant: s("Anna"),
            assistant_id: 7,
        },
        Said::AlreadyOnService { detail: s("") },
        Said::AlreadyOnService { detail: s("HTTP 409") },
        Said::AlreadyALead { lead: 42 },
        Said::SentBefore {
            lead: Some(42),
            source: s("leads.csv"),
            row: 4,
            front: s("import"),
            at: s("2026-11-27 10:03"),
        },
        Said::SentBefore { lead: None, source: s(""), row: 0, front: s(""), at: s("") },
        Said::ServiceRefused { detail: s("HTTP 422") },
        Said::SendFailed { detail: s("HTTP 503") },
        Said::InDoubt,
    ];
    for problem in every_phone_problem() {
        said.push(Said::InvalidPhone { typed: s("0151 12"), problem: problem.clone() });
        said.push(Said::SecondaryInvalid { typed: s("0151 12"), problem });
    }
    for kind in every_number_type() {
        said.push(Said::BlockedType { e164: e164(), kind });
        said.push(Said::BlockedSecondaryType { e164: e164(), kind });
    }
    said
}

#[test]
fn the_samples_cover_every_message_shape() {
    let mut covered: Vec<String> = samples().iter().map(Said::shape).collect();
    covered.push("as_written".into());
    covered.sort();
    covered.dedup();
    let mut shapes = serde_variants::<Said>(r#"{"shape":"no_such_shape"}"#);
    shapes.sort();
    assert_eq!(covered, shapes);
}

#[test]
fn every_message_shape_is_said_in_both_languages() {
    for said in samples() {
        let issue = Issue::said(IssueCode::InvalidPhone, None, said.clone());
        let (en, de) = (issue.message_in(Lang::En), issue.message_in(Lang::De));
        assert_eq!(en, issue.message, "{said:?}: the English is the JSON report's message");
        assert!(!en.is_empty() && !de.is_empty(), "{said:?}");
        assert_ne!(en, de, "{said:?} is not translated");
        for mark in ["`", "--"] {
            assert!(!de.contains(mark), "{said:?}: German {de:?} has {mark}");
        }
        let words = english_words_in(&de);
        assert!(words.is_empty(), "{said:?}: German {de:?} has English {words:?}");
        let stored = serde_json::to_string(&said).unwrap();
        assert_eq!(serde_json::from_str::<Said>(&stored).unwrap(), said, "{stored}");
    }
}

#[test]
fn library_details_are_mapped_too() {
    for problem in every_phone_problem() {
        let (en, de) = (phone_problem(&problem, Lang::En), phone_problem(&problem, Lang::De));
        assert_eq!(en, problem.to_string());
        assert_ne!(en, de, "{problem:?}");
    }
    for kind in every_number_type().into_iter().filter(|k| *k != NumberType::Voip) {
        assert_ne!(number_kind(kind, Lang::En), number_kind(kind, Lang::De), "{kind:?}");
    }
}

#[test]
fn a_message_in_one_language_only_is_shown_as_written() {
    let issue = Issue::new(IssueCode::ServerRejected, None, "email is invalid");
    assert_eq!(issue.message_in(Lang::De), "email is invalid");
    let stored = r#"{"code":"invalid_phone","field":null,"message":"old words"}"#;
    let old: Issue = serde_json::from_str(stored).unwrap();
    assert_eq!((&*old.said, old.message_in(Lang::De)), (&Said::AsWritten, "old words".into()));
}

/// A page says no command line: the one message that advises a flag says the page's way, and
/// the terminal's backticks become the language's quotes.
#[test]
fn a_page_message_has_no_backtick_and_no_flag() {
    use super::{Issue, IssueCode, Lang, Said};
    let none = Issue::said(IssueCode::MissingCampaign, None, Said::NoCampaign);
    assert!(none.message.contains("`--campaign`"), "the JSON keeps its contract");
    for lang in Lang::ALL {
        let said = none.page_message(lang);
        assert!(!said.contains('`') && !said.contains("--"), "{said}");
    }
    let quoted = Issue::new(IssueCode::InvalidPhone, None, "`0151 CALL ME` is not a number");
    assert_eq!(quoted.page_message(Lang::En), "\u{201c}0151 CALL ME\u{201d} is not a number");
}
