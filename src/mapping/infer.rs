//! Guessing a mapping from the headers, in English, German, French, Spanish, Italian and
//! Dutch, so a first import needs no mapping file at all; and from the first data rows where
//! the headers mislead: `Einwilligung Telefon` or `Telefon erlaubt` over `ja`/`nein` is a
//! consent column, never a phone column.

use indexmap::IndexMap;

use super::file::{Columns, ContactSpec, MappingFile, PhoneColumns};
use super::header_key;
use crate::source::is_yes_no;

const PHONE: &[&str] = &[
    "phone",
    "phone number",
    "phonenumber",
    "phone_number",
    "telephone",
    "telephone number",
    "tel",
    "tel.",
    "mobile",
    "mobile phone",
    "mobile number",
    "cell",
    "cell phone",
    "cellphone",
    "msisdn",
    "number",
    "telefon",
    "telefonnummer",
    "tel.-nr.",
    "tel-nr",
    "rufnummer",
    "mobil",
    "mobilnummer",
    "handy",
    "handynummer",
    "mobiltelefon",
    "téléphone",
    "numéro de téléphone",
    "numero de telephone",
    "portable",
    "mobile (portable)",
    "teléfono",
    "telefono",
    "número de teléfono",
    "móvil",
    "movil",
    "celular",
    "numero di telefono",
    "cellulare",
    "telefoonnummer",
    "telefoon",
    "mobiel",
    "mobiel nummer",
    "gsm",
    "gsm-nummer",
];
const FULL_NAME: &[&str] = &[
    "name",
    "full name",
    "fullname",
    "customer name",
    "customer",
    "contact name",
    "contact",
    "client",
    "kunde",
    "kundenname",
    "ansprechpartner",
    "vollständiger name",
    "nom",
    "nom complet",
    "nombre",
    "nombre completo",
    "nome",
    "nome completo",
    "naam",
    "volledige naam",
    "klant",
];
const FIRST_NAME: &[&str] = &[
    "first name",
    "firstname",
    "given name",
    "vorname",
    "prénom",
    "prenom",
    "nombre de pila",
    "voornaam",
];
const LAST_NAME: &[&str] = &[
    "last name",
    "lastname",
    "surname",
    "family name",
    "nachname",
    "familienname",
    "nom de famille",
    "apellido",
    "apellidos",
    "cognome",
    "achternaam",
];
const EMAIL: &[&str] = &[
    "email",
    "e-mail",
    "e mail",
    "mail",
    "email address",
    "e-mail address",
    "e-mail-adresse",
    "emailadresse",
    "courriel",
    "adresse e-mail",
    "adresse mail",
    "correo",
    "correo electrónico",
    "correo electronico",
    "posta elettronica",
    "indirizzo email",
    "e-mailadres",
];
const CAMPAIGN: &[&str] = &[
    "campaign",
    "campaign id",
    "campaign_id",
    "campaign name",
    "kampagne",
    "kampagnen-id",
    "campagne",
    "campaña",
    "campana",
    "campagna",
];

/// A column naming each row's country, for `region_column`.
const COUNTRY: &[&str] = &[
    "country",
    "country code",
    "country/region",
    "land",
    "ländercode",
    "landeskennung",
    "staat",
    "pays",
    "code pays",
    "país",
    "pais",
    "paese",
    "nazione",
    "landcode",
];
/// A column recording consent to be called, for `[consent]`.
const CONSENT: &[&str] = &[
    "consent",
    "opt-in",
    "opt in",
    "optin",
    "marketing consent",
    "call consent",
    "permission",
    "einwilligung",
    "werbeeinwilligung",
    "einverständnis",
    "zustimmung",
    "consentement",
    "accord",
    "consentimiento",
    "consenso",
    "toestemming",
];

fn is_one_of(key: &str, synonyms: &[&str]) -> bool {
    synonyms.contains(&key)
}

/// A phone-like header with a trailing number or qualifier (`Phone 2`, `Mobile (work)`); one
/// that names consent (`Einwilligung Telefon`, `Telefon-Opt-in`) says whether a number may be
/// called, not which.
fn is_phone_like(key: &str) -> bool {
    let base = key.trim_end_matches(|c: char| c.is_ascii_digit() || c.is_whitespace() || c == '#');
    let base = base.split(" (").next().unwrap_or(base).trim();
    let phone = is_one_of(key, PHONE)
        || is_one_of(base, PHONE)
        || PHONE.iter().any(|p| p.len() > 4 && base.split([' ', '_', '-']).any(|w| w == *p));
    phone && !names_consent(key)
}

/// A header naming consent as one of its words, in the six languages: `DSGVO Zustimmung`,
/// `Consent to call`, `Telefon-Opt-in`, `Werbeeinwilligung`.
fn names_consent(key: &str) -> bool {
    const WORDS: &[&str] = &["optin", "permission", "permissions", "dsgvo", "gdpr", "rgpd"];
    // German joins words (`Telefoneinwilligung`), and the Romance words share a stem.
    const STEMS: &[&str] = &["einwillig", "zustimm", "einverst", "toestemm"];
    let words: Vec<&str> =
        key.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    is_one_of(key, CONSENT)
        || words.windows(2).any(|pair| pair == ["opt", "in"])
        || words.iter().any(|w| {
            is_one_of(w, WORDS)
                || w.starts_with("consent")
                || w.starts_with("consens")
                || STEMS.iter().any(|stem| w.contains(stem))
        })
}

/// Whether the filled cells of `column` in the first data rows are all yes or no (`ja`,
/// `nein`, `x`, `1`, `0`): a column of answers, whatever its header says. `false` without any.
fn holds_yes_no(samples: &[Vec<String>], column: usize) -> bool {
    let mut filled = samples
        .iter()
        .filter_map(|row| row.get(column))
        .map(|cell| cell.trim())
        .filter(|cell| !cell.is_empty())
        .peekable();
    filled.peek().is_some() && filled.all(is_yes_no)
}

/// The consent column: a consent header exactly, else one naming consent among other words
/// (over yes/no values first), else, when `samples` show one, a phone-like header over yes/no
/// values (`Telefon erlaubt`). The second part of the answer says why, for the note.
fn consent_column(keys: &[String], yes_no: &[bool]) -> Option<(usize, &'static str)> {
    let named = |want_yes_no: bool| {
        (0..keys.len()).find(|&i| names_consent(&keys[i]) && (yes_no[i] || !want_yes_no))
    };
    let answers = (0..keys.len()).find(|&i| yes_no[i] && is_phone_like(&keys[i]));
    let exact = keys.iter().position(|k| is_one_of(k, CONSENT));
    exact
        .or_else(|| named(true))
        .or_else(|| named(false))
        .map(|i| (i, ""))
        .or_else(|| answers.map(|i| (i, ", whose cells are yes or no")))
}

/// A mapping guessed from the headers alone, and a line per choice for the user to check:
/// [`infer_from`] without data rows.
/// How the note of the columns carried as variables begins: `other columns as variables:
/// `A`, `B``.
pub const CARRIED_NOTE: &str = "other columns as variables: ";

pub fn infer(headers: &[String]) -> (MappingFile, Vec<String>) {
    infer_from(headers, &[])
}

/// A mapping guessed from the headers and the first data rows below them (`samples`, each a
/// row's cells by column index, as [`crate::source::Source::samples`] gives them), and a line
/// per choice for the user to check. A column whose cells are yes or no is never a phone
/// column, whatever its header says.
pub fn infer_from(headers: &[String], samples: &[Vec<String>]) -> (MappingFile, Vec<String>) {
    let keys: Vec<String> = headers.iter().map(|h| header_key(h)).collect();
    let find = |synonyms: &[&str]| keys.iter().position(|k| is_one_of(k, synonyms));
    let mut file = MappingFile::default();
    let mut notes = Vec::new();
    let mut used = vec![false; headers.len()];
    let yes_no: Vec<bool> = (0..headers.len()).map(|i| holds_yes_no(samples, i)).collect();

    let (phones, answers): (Vec<usize>, Vec<usize>) =
        (0..keys.len()).filter(|&i| is_phone_like(&keys[i])).partition(|&i| !yes_no[i]);
    for &i in &answers {
        notes.push(format!("column `{}` holds yes or no, not phone numbers", headers[i]));
    }
    // The plainest phone header is the main number. Every other phone column is both where the
    // number comes from when the main cell is empty (Telefon empty, Mobil filled: call the
    // mobile) and, when it is not, a secondary contact: no number in the sheet goes unused, and
    // none is sent twice (the row checker drops a contact whose column gave the main number).
    let main =
        phones.iter().copied().find(|&i| is_one_of(&keys[i], PHONE)).or(phones.first().copied());
    if let Some(main) = main {
        let others: Vec<usize> = phones.iter().copied().filter(|&i| i != main).collect();
        used[main] = true;
        file.phone = Some(match others.as_slice() {
            [] => {
                notes.push(format!("phone number from column `{}`", headers[main]));
                PhoneColumns::One(headers[main].clone())
            }
            _ => {
                let listed = |cols: &[usize]| {
                    cols.iter().map(|&i| format!("`{}`", headers[i])).collect::<Vec<_>>()
                };
                notes.push(format!(
                    "phone number from column `{}`, else the first of {} that is filled (`phone = [...]`)",
                    headers[main],
                    listed(&others).join(", ")
                ));
                let order = std::iter::once(main).chain(others.iter().copied());
                PhoneColumns::FirstFilled(order.map(|i| headers[i].clone()).collect())
            }
        });
        for &i in &others {
            file.secondary_contacts.push(ContactSpec::Phone(headers[i].clone()));
            used[i] = true;
            notes.push(format!("secondary contact from column `{}`", headers[i]));
        }
    }
    if let Some(i) = find(CAMPAIGN) {
        file.campaign_column = Some(headers[i].clone());
        used[i] = true;
        notes.push(format!("campaign from column `{}`", headers[i]));
    }
    let mut variables = IndexMap::new();
    if let Some(i) = find(FULL_NAME) {
        variables.insert("customer_name".to_string(), Columns::One(headers[i].clone()));
        used[i] = true;
        notes.push(format!("customer_name from column `{}`", headers[i]));
    } else if let (Some(first), Some(last)) = (find(FIRST_NAME), find(LAST_NAME)) {
        let joined = vec![headers[first].clone(), headers[last].clone()];
        variables.insert("customer_name".to_string(), Columns::Joined(joined));
        used[first] = true;
        used[last] = true;
        notes
            .push(format!("customer_name from columns `{}` + `{}`", headers[first], headers[last]));
    }
    if let Some(i) = find(EMAIL) {
        variables.insert("email".to_string(), Columns::One(headers[i].clone()));
        used[i] = true;
        notes.push(format!("email from column `{}`", headers[i]));
    }
    file.variables = variables;
    if let Some(i) = find(COUNTRY) {
        file.region_column = Some(headers[i].clone());
        used[i] = true;
        notes.push(format!(
            "proposed: each row's country from column `{}` (`region_column`)",
            headers[i]
        ));
    }
    if let Some((i, why)) = consent_column(&keys, &yes_no) {
        file.consent = Some(super::ConsentSpec {
            column: headers[i].clone(),
            values: super::default_consent_values(),
        });
        used[i] = true;
        notes.push(format!("proposed: consent from column `{}`{why} (`[consent]`)", headers[i]));
    }
    let rest: Vec<&str> = headers
        .iter()
        .zip(&used)
        .filter(|(h, u)| !**u && !h.trim().is_empty() && !super::is_report_column(h))
        .map(|(h, _)| h.as_str())
        .collect();
    if !rest.is_empty() {
        // Dropping columns nobody mapped loses data the assistant could use; carry them.
        file.carry_unmapped = true;
        let carried: Vec<String> = rest.iter().map(|h| format!("`{h}`")).collect();
        notes.push(format!("{CARRIED_NOTE}{}", carried.join(", ")));
    }
    (file, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn english_export_with_a_second_number() {
        let h = headers(&[
            "Name", "E-Mail", "Phone", "Mobile 2", "Campaign", "Company", "City", "Notes",
        ]);
        let (file, notes) = infer(&h);
        assert_eq!(file.phone.unwrap().headers(), ["Phone", "Mobile 2"]);
        assert_eq!(file.secondary_contacts, vec![ContactSpec::Phone("Mobile 2".into())]);
        assert!(notes.iter().any(|n| n.contains("else the first of `Mobile 2`")), "{notes:?}");
        assert_eq!(file.campaign_column.as_deref(), Some("Campaign"));
        assert_eq!(file.variables["customer_name"], Columns::One("Name".into()));
        assert_eq!(file.variables["email"], Columns::One("E-Mail".into()));
        assert!(file.carry_unmapped);
        assert!(notes.iter().any(|n| n.contains("`Company`")), "{notes:?}");
    }

    #[test]
    fn german_export_with_split_names() {
        let h = headers(&[
            "\u{feff}Vorname",
            "Nachname",
            " Telefon ",
            "Handy",
            "Kampagne",
            "E-Mail-Adresse",
        ]);
        let (file, _) = infer(&h);
        assert_eq!(file.phone.unwrap().headers(), [" Telefon ", "Handy"]);
        assert_eq!(file.secondary_contacts, vec![ContactSpec::Phone("Handy".into())]);
        assert_eq!(file.variables["customer_name"].headers(), ["\u{feff}Vorname", "Nachname"]);
        assert_eq!(file.variables["email"], Columns::One("E-Mail-Adresse".into()));
        assert!(!file.carry_unmapped);
    }

    #[test]
    fn country_and_consent_columns_are_proposed_in_six_languages() {
        for (country, consent) in [
            ("Country", "Opt-in"),
            ("Land", "Einwilligung"),
            ("Pays", "Consentement"),
            ("País", "Consentimiento"),
            ("Paese", "Consenso"),
            ("Land", "Toestemming"),
        ] {
            let (file, notes) = infer(&headers(&["Name", "Phone", country, consent]));
            assert_eq!(file.region_column.as_deref(), Some(country));
            assert_eq!(file.consent.as_ref().map(|c| c.column.as_str()), Some(consent));
            assert!(notes.iter().any(|n| n.contains("proposed")), "{notes:?}");
        }
        let (file, _) = infer(&headers(&["Name", "Phone"]));
        assert_eq!((file.region_column, file.consent), (None, None));
    }

    #[test]
    fn french_spanish_italian_dutch_headers() {
        for (phone, name, mail, campaign) in [
            ("Téléphone", "Nom", "Courriel", "Campagne"),
            ("Teléfono", "Nombre", "Correo electrónico", "Campaña"),
            ("Telefono", "Nome", "Posta elettronica", "Campagna"),
            ("Telefoonnummer", "Naam", "E-mailadres", "Campagne"),
        ] {
            let (file, _) = infer(&headers(&[name, mail, phone, campaign]));
            assert_eq!(file.phone, Some(PhoneColumns::One(phone.into())));
            assert_eq!(file.variables["customer_name"], Columns::One(name.into()));
            assert_eq!(file.variables["email"], Columns::One(mail.into()));
            assert_eq!(file.campaign_column.as_deref(), Some(campaign));
        }
    }

    fn column(file: &MappingFile) -> Option<&str> {
        file.consent.as_ref().map(|c| c.column.as_str())
    }

    fn rows(list: &[&[&str]]) -> Vec<Vec<String>> {
        list.iter().map(|row| row.iter().map(|c| c.to_string()).collect()).collect()
    }

    #[test]
    fn a_header_naming_consent_is_the_consent_column_never_a_phone() {
        for consent in [
            "Einwilligung Telefon",
            "Telefon-Opt-in",
            "DSGVO Zustimmung",
            "Consent to call",
            "Phone permission",
            "Telefoneinwilligung",
            "Einverständnis Anruf",
            "Consentement téléphone",
            "Consentimiento teléfono",
            "Consenso telefono",
            "Toestemming telefoon",
            "GDPR phone",
        ] {
            let (file, notes) = infer(&headers(&["Name", "Telefon", consent, "Kampagne"]));
            assert_eq!(file.phone, Some(PhoneColumns::One("Telefon".into())), "{consent}");
            assert!(file.secondary_contacts.is_empty(), "{consent}: {notes:?}");
            assert_eq!(column(&file), Some(consent), "{consent}");
            let (alone, _) = infer(&headers(&["Name", consent]));
            assert_eq!(alone.phone, None, "{consent}");
        }
    }

    #[test]
    fn an_exact_consent_header_wins_over_one_that_names_consent_among_other_words() {
        let h = headers(&["Name", "Telefon", "Einwilligung Telefon", "Einwilligung"]);
        assert_eq!(column(&infer(&h).0), Some("Einwilligung"));
        // Among partial ones, the one whose cells are yes or no.
        let h = headers(&["Telefon", "Einwilligung Datum", "Einwilligung Telefon"]);
        let samples = rows(&[&["+49 30 1234567", "01.02.2024", "ja"]]);
        assert_eq!(column(&infer_from(&h, &samples).0), Some("Einwilligung Telefon"));
        assert_eq!(column(&infer(&h).0), Some("Einwilligung Datum"), "no rows: the first");
    }

    #[test]
    fn a_phone_header_over_yes_and_no_is_consent_when_no_other_column_is() {
        let h = headers(&["Name", "Telefon", "Telefon erlaubt", "Kampagne"]);
        let samples = rows(&[
            &["Ada", "+49 30 1234567", "ja", "Frühjahr"],
            &["Bob", "+49 30 1234568", "", "Frühjahr"],
            &["Cyd", "+49 30 1234569", "Nein", "Frühjahr"],
        ]);
        let (file, notes) = infer_from(&h, &samples);
        assert_eq!(file.phone, Some(PhoneColumns::One("Telefon".into())));
        assert_eq!(column(&file), Some("Telefon erlaubt"));
        assert!(notes.iter().any(|n| n.contains("yes or no")), "{notes:?}");
        // Headers alone cannot tell: the old reading, a second phone column.
        assert!(
            infer(&h).0.secondary_contacts.contains(&ContactSpec::Phone("Telefon erlaubt".into()))
        );
        // A consent column elsewhere is the consent column; the answers are carried along.
        let h = headers(&["Name", "Telefon", "Telefon erlaubt", "Opt-in"]);
        let samples = rows(&[&["Ada", "+49 30 1234567", "ja", "x"]]);
        let (file, _) = infer_from(&h, &samples);
        assert_eq!(column(&file), Some("Opt-in"));
        assert_eq!(file.phone, Some(PhoneColumns::One("Telefon".into())));
        assert!(file.secondary_contacts.is_empty());
        assert!(file.carry_unmapped);
    }

    /// No column whose cells are yes or no is ever taken for a phone, under any phone header,
    /// in any of the six languages; `1`/`0` columns included.
    #[test]
    fn a_column_of_yes_and_no_is_never_a_phone() {
        let words = crate::source::YES_WORDS.iter().chain(crate::source::NO_WORDS);
        for word in words {
            for header in ["Telefon", "Phone ok", "Mobil", "Handy", "Phone 2", "Telefon erlaubt"] {
                let h = headers(&["Name", header, "Mobilnummer"]);
                let samples = rows(&[
                    &["Ada", word, "+49 151 2345678"],
                    &["Bob", "", "+49 151 2345679"],
                    &["Cyd", &word.to_uppercase(), ""],
                ]);
                let (file, _) = infer_from(&h, &samples);
                let phones = file.phone.as_ref().map(PhoneColumns::headers).unwrap_or_default();
                assert_eq!(phones, ["Mobilnummer"], "{header} over {word}");
                assert!(file.secondary_contacts.is_empty(), "{header} over {word}");
                assert_eq!(column(&file), Some(header), "{header} over {word}");
            }
        }
        let ones = rows(&[&["1"], &["0"], &["1"]]);
        assert_eq!(infer_from(&headers(&["Telefon"]), &ones).0.phone, None);
    }

    #[test]
    fn every_yes_word_is_a_default_consent_value() {
        let values = crate::mapping::default_consent_values();
        for yes in crate::source::YES_WORDS {
            assert!(values.iter().any(|v| v == yes), "{yes}");
        }
    }

    #[test]
    fn a_phone_column_with_numbers_stays_a_phone_column() {
        let h = headers(&["Telefon", "Mobil"]);
        let samples = rows(&[&["+49 30 1234567", ""], &["", "0151 2345678"]]);
        let (file, _) = infer_from(&h, &samples);
        assert_eq!(file.phone.unwrap().headers(), ["Telefon", "Mobil"]);
        assert_eq!(file.consent, None);
    }
}
