//! A guard as a new one is written: this file, and one line that registers it (`with` below;
//! in [`super::Guards::resolve`] for one a mapping asks for). It keeps a company's switchboard
//! numbers (ending in `0000`) from being called, and its secondary numbers from being added.

use super::{Guard, Guards, Refusal, Verdict};
use crate::phone::{Phone, PhoneParser};
use crate::row::{IssueCode, Said};

#[derive(Debug)]
struct NoSwitchboards;

impl Guard for NoSwitchboards {
    fn refuse_number(&self, phone: &Phone) -> Option<Refusal> {
        if !phone.e164.ends_with("0000") {
            return None;
        }
        let said = |list: &str| Said::Suppressed { e164: phone.e164.clone(), list: list.into() };
        let secondary =
            Said::SuppressedSecondary { e164: phone.e164.clone(), list: "switchboards".into() };
        Some(Refusal {
            skip: true,
            main: (IssueCode::Suppressed, said("switchboards")),
            secondary: (IssueCode::SuppressedSecondary, secondary),
        })
    }
}

#[test]
fn a_new_guard_is_one_file_and_one_registration_line() {
    let guards = Guards::default().with(NoSwitchboards);
    let phones = PhoneParser::new("DE").unwrap();
    let switchboard = phones.parse("030 1234 0000").unwrap();
    let person = phones.parse("0151 23456789").unwrap();
    let verdict = guards.judge_main(&switchboard, || "Telefon".to_owned());
    assert!(
        matches!(verdict, Some(Verdict::Skip(ref issue)) if issue.code == IssueCode::Suppressed),
        "{verdict:?}"
    );
    assert_eq!(guards.judge_main(&person, || "Telefon".to_owned()), None);
    let left_out = guards.judge_secondary(&switchboard, Some("Zentrale".into())).unwrap();
    assert_eq!(left_out.code, IssueCode::SuppressedSecondary);
    // The guards a run has by default are still asked first: a premium-rate number is refused
    // as such.
    let premium = phones.parse("0900 1234567").unwrap();
    let verdict = guards.judge_main(&premium, || "Telefon".to_owned());
    assert!(
        matches!(verdict, Some(Verdict::Reject(ref issue)) if issue.code == IssueCode::BlockedNumberType),
        "{verdict:?}"
    );
}
