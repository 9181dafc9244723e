//! What a row's message says, as a value: the shape of the sentence and the parameters in it
//! (the number as typed, the column, the campaign), so that any front can say it in the
//! reader's language. [`Said::render`] holds both languages' sentences; the English one is the
//! `message` of the JSON report, word for word as before the catalog.
//!
//! A detail a library or the service supplies is mapped where it is ours (a phone problem, a
//! number type) and quoted where it is not (the service's own words).

use serde::{Deserialize, Serialize};

use super::lang::Lang;
use crate::phone::{NumberType, PhoneProblem, country_name};

/// The sentence of an issue and its parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum Said {
    /// The issue's `message` as written, in the one language it was written in: the words of
    /// a caller outside the catalog, or a row stored by a leadsync before it.
    #[default]
    AsWritten,
    /// No number in any of the phone columns (their names, in order).
    NoPhone {
        columns: Vec<String>,
    },
    InvalidPhone {
        typed: String,
        problem: PhoneProblem,
    },
    /// The phone cell holds a spreadsheet error (`#REF!`).
    PhoneCellError {
        column: String,
        value: String,
    },
    ScientificNotation {
        typed: String,
        column: String,
    },
    ExtensionDropped {
        extension: String,
        typed: String,
    },
    RemarkDropped {
        remark: String,
        column: String,
        e164: String,
    },
    SecondaryInvalid {
        typed: String,
        problem: PhoneProblem,
    },
    /// A cell other than the phone's holds a spreadsheet error.
    CellError {
        column: String,
        value: String,
    },
    NoCampaign,
    /// `closest`: a campaign with a name like it; `known`: the first campaigns of the account
    /// (empty: it has none). Each as (name, id).
    UnknownCampaign {
        name: String,
        closest: Option<(String, u64)>,
        known: Vec<(String, u64)>,
    },
    AmbiguousCampaign {
        name: String,
        ids: Vec<u64>,
    },
    DuplicateInFile {
        e164: String,
        first_row: u64,
    },
    Excluded,
    HiddenRow,
    FilteredOut,
    SecondaryNotUpdated,
    /// Each value sent: (field, before when known, after).
    LeadUpdated {
        values: Vec<(String, Option<String>, String)>,
    },
    LeadStopped,
    /// `stop`: a stop (else an update) was refused or stayed in doubt, with what was said.
    ChangeFailed {
        stop: bool,
        error: String,
    },
    /// The country cell names no country, but the number had its country code.
    CountryUnknownRead {
        cell: String,
        column: String,
    },
    /// The country cell names no country, and the number has no country code.
    CountryUnknownRefused {
        cell: String,
        column: String,
        typed: String,
    },
    CountryUnknownSecondary {
        typed: String,
        cell: String,
        column: String,
    },
    /// `region`: the number's country (alpha-2), `None` for a non-geographic number.
    Foreign {
        e164: String,
        region: Option<String>,
        allowed: Vec<String>,
    },
    ForeignSecondary {
        e164: String,
        region: Option<String>,
        allowed: Vec<String>,
    },
    BlockedType {
        e164: String,
        kind: NumberType,
    },
    BlockedSecondaryType {
        e164: String,
        kind: NumberType,
    },
    Suppressed {
        e164: String,
        list: String,
    },
    SuppressedSecondary {
        e164: String,
        list: String,
    },
    /// `cell` as typed (empty: empty); `accepted`: the values that mean consent.
    NoConsent {
        column: String,
        cell: String,
        accepted: Vec<String>,
    },
    /// `texts`: the assistant's texts that say the variable; none when only its own list of
    /// variables names it (then `assistant` and `assistant_id` say which assistant).
    MissingVariable {
        name: String,
        texts: Vec<AssistantText>,
        assistant: String,
        assistant_id: u64,
    },
    /// The service answered that the lead exists; `detail`: its words, if it gave any.
    AlreadyOnService {
        detail: String,
    },
    /// A dry run found the lead on the service.
    AlreadyALead {
        lead: u64,
    },
    /// The ledger knows the row's lead: sent before, from `source` row `row` by `front` at
    /// `at`; `lead` unknown when the service only answered that it had it.
    SentBefore {
        lead: Option<u64>,
        source: String,
        row: u64,
        front: String,
        at: String,
    },
    /// The service refused the lead; `detail`: its words.
    ServiceRefused {
        detail: String,
    },
    /// Sending failed; `detail`: what failed, in the client's words.
    SendFailed {
        detail: String,
    },
    /// The run ended not knowing whether the service stored the lead.
    InDoubt,
}

/// A text of the assistant that can say a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AssistantText {
    InitialMessage,
    SystemPrompt,
}

impl Said {
    /// The sentence in `lang`; `None` for [`Said::AsWritten`], whose words are the message's.
    pub fn render(&self, lang: Lang) -> Option<String> {
        Some(match lang {
            Lang::En => en(self)?,
            Lang::De => de(self)?,
        })
    }

    /// The shape's name as stored (`invalid_phone`).
    pub fn shape(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v["shape"].as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

impl AssistantText {
    fn label(self, lang: Lang) -> &'static str {
        match (lang, self) {
            (Lang::En, AssistantText::InitialMessage) => "the initial message",
            (Lang::En, AssistantText::SystemPrompt) => "the system prompt",
            (Lang::De, AssistantText::InitialMessage) => "die erste Nachricht",
            (Lang::De, AssistantText::SystemPrompt) => "der Systemprompt",
        }
    }
}

/// A phone parser's problem in `lang`.
pub fn phone_problem(problem: &PhoneProblem, lang: Lang) -> String {
    let de = match problem {
        _ if lang == Lang::En => return problem.to_string(),
        PhoneProblem::Missing => "keine Telefonnummer",
        PhoneProblem::NotANumber => "nicht als Telefonnummer lesbar",
        PhoneProblem::TooShort => "zu kurz für eine Telefonnummer",
        PhoneProblem::TooLong => "zu lang für eine Telefonnummer",
        PhoneProblem::InvalidCountryCode => "unbekannte Ländervorwahl",
        PhoneProblem::InvalidForRegion { region } => {
            return format!("keine gültige Nummer für {region}");
        }
        PhoneProblem::ScientificNotation => {
            "Excel hat die Zahl in wissenschaftlicher Schreibweise gespeichert und ihre letzten Ziffern verworfen"
        }
    };
    de.to_string()
}

/// A number type in `lang`: `premium-rate`, `Mehrwertdienst`.
pub fn number_kind(kind: NumberType, lang: Lang) -> &'static str {
    match lang {
        Lang::En => kind.label(),
        Lang::De => match kind {
            NumberType::Mobile => "Mobilnummer",
            NumberType::FixedLine => "Festnetz",
            NumberType::FixedLineOrMobile => "Festnetz oder Mobil",
            NumberType::TollFree => "gebührenfrei",
            NumberType::PremiumRate => "Mehrwertdienst",
            NumberType::SharedCost => "geteilte Kosten",
            NumberType::Voip => "VoIP",
            NumberType::PersonalNumber => "persönliche Nummer",
            NumberType::Pager => "Pager",
            NumberType::Uan => "Sammelrufnummer (UAN)",
            NumberType::Voicemail => "Mailbox",
            NumberType::Unknown => "unbekannte Art",
        },
    }
}

/// `a`, `a or b`, `a, b or c`.
fn either(items: &[String], or: &str) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} {or} {last}", rest.join(", ")),
        _ => items.concat(),
    }
}

fn backticked(items: &[String]) -> Vec<String> {
    items.iter().map(|i| format!("`{i}`")).collect()
}

/// German quotation marks: „Telefon“.
fn q(text: &str) -> String {
    format!("„{text}“")
}

fn quoted(items: &[String]) -> Vec<String> {
    items.iter().map(|i| q(i)).collect()
}

fn en(said: &Said) -> Option<String> {
    Some(match said {
        Said::AsWritten => return None,
        Said::NoPhone { columns } => format!("no phone number in {}", either(&backticked(columns), "or")),
        Said::InvalidPhone { typed, problem } => {
            format!("`{typed}` is not a valid phone number: {problem}")
        }
        Said::PhoneCellError { column, value } => {
            format!("the `{column}` cell holds the spreadsheet error `{value}`: fix its formula")
        }
        Said::ScientificNotation { typed, column } => format!(
            "`{typed}` in `{column}`: {}; format the column as text and type it again",
            PhoneProblem::ScientificNotation
        ),
        Said::ExtensionDropped { extension, typed } => {
            format!("extension `{extension}` of `{typed}` dropped: the service takes none")
        }
        Said::RemarkDropped { remark, column, e164 } => {
            format!("`{remark}` after the number in `{column}` is not sent: {e164} is")
        }
        Said::SecondaryInvalid { typed, problem } => {
            format!("secondary number `{typed}` left out: {problem}; the lead goes without it")
        }
        Said::CellError { column, value } => {
            format!("the `{column}` cell holds the spreadsheet error `{value}`")
        }
        Said::NoCampaign => "no campaign: fill in the campaign column or pass `--campaign`".into(),
        Said::UnknownCampaign { name, closest, known } => {
            let hint = match closest {
                Some((name, id)) => format!(": did you mean `{name}` (id {id})?"),
                None if known.is_empty() => ": the account has no campaigns".to_string(),
                None => {
                    let list: Vec<String> =
                        known.iter().map(|(n, id)| format!("`{n}` ({id})")).collect();
                    format!("; campaigns are: {}", list.join(", "))
                }
            };
            format!("no campaign `{name}`{hint}")
        }
        Said::AmbiguousCampaign { name, ids } => format!(
            "several campaigns are named `{name}` (ids {}): use the id",
            ids.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
        ),
        Said::DuplicateInFile { e164, first_row } => {
            format!("same number {e164} as row {first_row} in the same campaign")
        }
        Said::Excluded => "excluded on the Check page: not sent".into(),
        Said::HiddenRow => "the row is hidden in the workbook: not sent (set hidden_rows = \"read\" in the mapping to send hidden rows)".into(),
        Said::FilteredOut => "the sheet's filter hides this row: not sent (clear the filter, or set hidden_rows = \"read\" in the mapping)".into(),
        Said::SecondaryNotUpdated => "the secondary number changed since the lead was made; the service cannot change it, so the lead keeps the old one (change it there by hand)".into(),
        Said::LeadUpdated { values } => {
            let each = values.iter().map(|(field, before, after)| match before {
                Some(before) => format!("`{field}` `{before}` → `{after}`"),
                None => format!("`{field}` → `{after}`"),
            });
            format!("its lead was updated on the service: {}", each.collect::<Vec<_>>().join(", "))
        }
        Said::LeadStopped => {
            "its lead was stopped (status completed): the campaign no longer calls it".into()
        }
        Said::ChangeFailed { stop, error } => format!(
            "its lead could not be {}: {error}; the next sync tries again",
            if *stop { "stopped" } else { "updated" }
        ),
        Said::CountryUnknownRead { cell, column } => format!(
            "`{cell}` in `{column}` is no country leadsync knows; the number has its country code and was read as written"
        ),
        Said::CountryUnknownRefused { cell, column, typed } => format!(
            "`{cell}` in `{column}` is no country leadsync knows, and `{typed}` has no country code: it is not read in another country"
        ),
        Said::CountryUnknownSecondary { typed, cell, column } => format!(
            "secondary number `{typed}` left out: it has no country code and `{cell}` in `{column}` is no country leadsync knows"
        ),
        Said::Foreign { e164, region, allowed } => foreign_en(e164, region.as_deref(), allowed),
        Said::ForeignSecondary { e164, region, allowed } => format!(
            "secondary number {e164} left out: {}",
            foreign_en(e164, region.as_deref(), allowed)
        ),
        Said::BlockedType { e164, kind } => format!(
            "{e164} is a {} number, which `block_number_types` excludes",
            kind.label()
        ),
        Said::BlockedSecondaryType { e164, kind } => format!(
            "secondary number {e164} left out: a {} number, which `block_number_types` excludes",
            kind.label()
        ),
        Said::Suppressed { e164, list } => {
            format!("{e164} is on the suppression list `{list}`: not called")
        }
        Said::SuppressedSecondary { e164, list } => {
            format!("secondary number {e164} left out: it is on the suppression list `{list}`")
        }
        Said::NoConsent { column, cell, accepted } => {
            let shown = if cell.is_empty() { "empty".to_string() } else { format!("`{cell}`") };
            format!(
                "no consent: `{column}` is {shown}, not one of {}",
                backticked(accepted).join(", ")
            )
        }
        Said::MissingVariable { name, texts, assistant, assistant_id } => {
            let labels: Vec<&str> = texts.iter().map(|t| t.label(Lang::En)).collect();
            let reason = match labels.as_slice() {
                [] => format!(
                    "the assistant `{assistant}` (id {assistant_id}) lists it among its variables without a value"
                ),
                [one] => format!("{one} says `{{{{{name}}}}}`"),
                many => format!("{} say `{{{{{name}}}}}`", many.join(" and ")),
            };
            format!("`{name}` is empty, but {reason}")
        }
        Said::AlreadyOnService { detail } if detail.is_empty() => "already on the service".into(),
        Said::AlreadyOnService { detail } => detail.clone(),
        Said::AlreadyALead { lead } => {
            format!("already on the service as lead {lead}: a real run skips it")
        }
        Said::SentBefore { lead, source, row, front, at } => {
            let lead = lead.map(|id| format!(" as lead {id}")).unwrap_or_default();
            let whence = match row {
                0 => format!("found on the service's lead list on {at}"),
                _ => format!("sent from `{source}` row {row} ({front}) on {at}"),
            };
            format!(
                "already on the service{lead}: {whence}; a lead is its campaign and number (or record id), so it is not sent again"
            )
        }
        Said::ServiceRefused { detail } | Said::SendFailed { detail } => detail.clone(),
        Said::InDoubt => "in doubt: the service may have stored this lead; the next run checks the lead list before sending it again".into(),
    })
}

fn foreign_en(e164: &str, region: Option<&str>, allowed: &[String]) -> String {
    let country = match region {
        Some(r) => format!("{} ({r})", country_name(r).unwrap_or(r)),
        None => "no country (a non-geographic number)".to_string(),
    };
    format!("{e164} belongs to {country}; `countries` allows {}", allowed.join(", "))
}

fn de(said: &Said) -> Option<String> {
    Some(match said {
        Said::AsWritten => return None,
        Said::NoPhone { columns } => {
            format!("Keine Telefonnummer in {}", either(&quoted(columns), "oder"))
        }
        Said::InvalidPhone { typed, problem } => format!(
            "{} ist keine gültige Telefonnummer: {}",
            q(typed),
            phone_problem(problem, Lang::De)
        ),
        Said::PhoneCellError { column, value } => format!(
            "Die Zelle {} enthält den Tabellenfehler {}: Formel korrigieren",
            q(column),
            q(value)
        ),
        Said::ScientificNotation { typed, column } => format!(
            "{} in {}: {}; Spalte als Text formatieren und die Nummer neu eingeben",
            q(typed),
            q(column),
            phone_problem(&PhoneProblem::ScientificNotation, Lang::De)
        ),
        Said::ExtensionDropped { extension, typed } => format!(
            "Durchwahl {} von {} weggelassen: Der Dienst nimmt keine Durchwahlen an",
            q(extension),
            q(typed)
        ),
        Said::RemarkDropped { remark, column, e164 } => format!(
            "{} nach der Nummer in {} wird nicht gesendet, nur {e164}",
            q(remark),
            q(column)
        ),
        Said::SecondaryInvalid { typed, problem } => format!(
            "Weitere Nummer {} weggelassen: {}; der Lead geht ohne sie hinaus",
            q(typed),
            phone_problem(problem, Lang::De)
        ),
        Said::CellError { column, value } => {
            format!("Die Zelle {} enthält den Tabellenfehler {}", q(column), q(value))
        }
        Said::NoCampaign => {
            "Keine Kampagne: die Kampagnenspalte füllen oder eine Kampagne für alle Zeilen wählen"
                .into()
        }
        Said::UnknownCampaign { name, closest, known } => {
            let hint = match closest {
                Some((name, id)) => format!(": Meinten Sie {} (ID {id})?", q(name)),
                None if known.is_empty() => ": Das Konto hat keine Kampagnen".to_string(),
                None => {
                    let list: Vec<String> =
                        known.iter().map(|(n, id)| format!("{} ({id})", q(n))).collect();
                    format!("; vorhandene Kampagnen: {}", list.join(", "))
                }
            };
            format!("Keine Kampagne {}{hint}", q(name))
        }
        Said::AmbiguousCampaign { name, ids } => format!(
            "Mehrere Kampagnen heißen {} (IDs {}): bitte die ID verwenden",
            q(name),
            ids.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
        ),
        Said::DuplicateInFile { e164, first_row } => {
            format!("Dieselbe Nummer {e164} wie in Zeile {first_row}, in derselben Kampagne")
        }
        Said::Excluded => "Auf der Prüfseite ausgeschlossen: wird nicht gesendet".into(),
        Said::HiddenRow => "Die Zeile ist in der Arbeitsmappe ausgeblendet: wird nicht gesendet (in Excel einblenden, um sie zu senden)".into(),
        Said::FilteredOut => "Der Filter der Tabelle blendet diese Zeile aus: wird nicht gesendet (den Filter in Excel aufheben, um sie zu senden)".into(),
        Said::SecondaryNotUpdated => "Die Zweitnummer hat sich geändert, seit der Lead angelegt wurde; der Dienst kann sie nicht ändern, der Lead behält die alte (dort von Hand ändern)".into(),
        Said::LeadUpdated { values } => {
            let each = values.iter().map(|(field, before, after)| match before {
                Some(before) => format!("{} {} → {}", q(field), q(before), q(after)),
                None => format!("{} → {}", q(field), q(after)),
            });
            format!("Sein Lead wurde im Dienst aktualisiert: {}", each.collect::<Vec<_>>().join(", "))
        }
        Said::LeadStopped => {
            "Sein Lead wurde gestoppt (Status completed): Die Kampagne ruft ihn nicht mehr an".into()
        }
        // The service's own words stay in the English message (and the JSON report).
        Said::ChangeFailed { stop, .. } => format!(
            "Sein Lead konnte nicht {} werden; der nächste Sync versucht es erneut",
            if *stop { "gestoppt" } else { "aktualisiert" }
        ),
        Said::CountryUnknownRead { cell, column } => format!(
            "{} in {} ist kein Land, das leadsync kennt; die Nummer hat eine Ländervorwahl und wurde so gelesen, wie sie dasteht",
            q(cell),
            q(column)
        ),
        Said::CountryUnknownRefused { cell, column, typed } => format!(
            "{} in {} ist kein Land, das leadsync kennt, und {} hat keine Ländervorwahl: Sie wird nicht für ein anderes Land gelesen",
            q(cell),
            q(column),
            q(typed)
        ),
        Said::CountryUnknownSecondary { typed, cell, column } => format!(
            "Weitere Nummer {} weggelassen: Sie hat keine Ländervorwahl, und {} in {} ist kein Land, das leadsync kennt",
            q(typed),
            q(cell),
            q(column)
        ),
        Said::Foreign { e164, region, allowed } => foreign_de(e164, region.as_deref(), allowed),
        Said::ForeignSecondary { e164, region, allowed } => format!(
            "Weitere Nummer weggelassen: {}",
            foreign_de(e164, region.as_deref(), allowed)
        ),
        Said::BlockedType { e164, kind } => format!(
            "{e164} ist eine Nummer der Art {}, die für diesen Import gesperrt ist",
            q(number_kind(*kind, Lang::De))
        ),
        Said::BlockedSecondaryType { e164, kind } => format!(
            "Weitere Nummer {e164} weggelassen: eine Nummer der Art {}, die für diesen Import gesperrt ist",
            q(number_kind(*kind, Lang::De))
        ),
        Said::Suppressed { e164, list } => {
            format!("{e164} steht auf der Sperrliste {}: wird nicht angerufen", q(list))
        }
        Said::SuppressedSecondary { e164, list } => {
            format!("Weitere Nummer {e164} weggelassen: Sie steht auf der Sperrliste {}", q(list))
        }
        Said::NoConsent { column, cell, accepted } => {
            let shown = if cell.is_empty() { "ist leer".to_string() } else { format!("enthält {}", q(cell)) };
            format!(
                "Keine Einwilligung: {} {shown}, keinen der Werte {}",
                q(column),
                quoted(accepted).join(", ")
            )
        }
        Said::MissingVariable { name, texts, assistant, assistant_id } => {
            let labels: Vec<&str> = texts.iter().map(|t| t.label(Lang::De)).collect();
            let placeholder = q(&format!("{{{{{name}}}}}"));
            match labels.as_slice() {
                [] => format!(
                    "{} ist leer, aber der Assistent {} (ID {assistant_id}) führt die Variable ohne Wert",
                    q(name),
                    q(assistant)
                ),
                [one] => format!("{} ist leer, aber {one} sagt {placeholder}", q(name)),
                many => {
                    format!("{} ist leer, aber {} sagen {placeholder}", q(name), many.join(" und "))
                }
            }
        }
        Said::AlreadyOnService { detail } if detail.is_empty() => {
            "Schon beim Dienst vorhanden".into()
        }
        Said::AlreadyOnService { detail } => {
            format!("Schon beim Dienst vorhanden (der Dienst meldet: {detail})")
        }
        Said::AlreadyALead { lead } => {
            format!("Schon beim Dienst als Lead {lead}: Ein echter Lauf überspringt die Zeile")
        }
        Said::SentBefore { lead, source, row, front, at } => {
            let lead = lead.map(|id| format!(" als Lead {id}")).unwrap_or_default();
            let whence = match row {
                0 => format!("am {at} in der Lead-Liste des Dienstes gefunden"),
                _ => format!("gesendet aus {}, Zeile {row} ({front}), am {at}", q(source)),
            };
            format!(
                "Schon beim Dienst{lead}: {whence}; ein Lead ist seine Kampagne und Nummer (oder Datensatz-ID), daher wird er nicht erneut gesendet"
            )
        }
        Said::ServiceRefused { detail } => format!("Vom Dienst abgelehnt: {detail}"),
        Said::SendFailed { detail } => format!("Senden fehlgeschlagen: {detail}"),
        Said::InDoubt => "Unklar, ob gesendet: Der Dienst hat diesen Lead vielleicht gespeichert; der nächste Lauf prüft die Lead-Liste, bevor er ihn erneut sendet".into(),
    })
}

fn foreign_de(e164: &str, region: Option<&str>, allowed: &[String]) -> String {
    let from = match region {
        Some(r) => format!("ist eine Nummer aus {r}"),
        None => "gehört zu keinem Land (eine nicht geografische Nummer)".to_string(),
    };
    format!("{e164} {from}; erlaubt sind nur Nummern aus {}", either(allowed, "und"))
}
