//! Guessing a mapping from the headers alone, in English, German, French, Spanish, Italian and
//! Dutch, so a first import needs no mapping file at all.

use indexmap::IndexMap;

use super::file::{Columns, ContactSpec, MappingFile, PhoneColumns};
use super::header_key;

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

/// A phone-like header with a trailing number or qualifier (`Phone 2`, `Mobile (work)`).
fn is_phone_like(key: &str) -> bool {
    let base = key.trim_end_matches(|c: char| c.is_ascii_digit() || c.is_whitespace() || c == '#');
    let base = base.split(" (").next().unwrap_or(base).trim();
    is_one_of(key, PHONE)
        || is_one_of(base, PHONE)
        || PHONE.iter().any(|p| p.len() > 4 && base.split([' ', '_', '-']).any(|w| w == *p))
}

/// A mapping guessed from the headers, and a line per choice for the user to check.
pub fn infer(headers: &[String]) -> (MappingFile, Vec<String>) {
    let keys: Vec<String> = headers.iter().map(|h| header_key(h)).collect();
    let find = |synonyms: &[&str]| keys.iter().position(|k| is_one_of(k, synonyms));
    let mut file = MappingFile::default();
    let mut notes = Vec::new();
    let mut used = vec![false; headers.len()];

    let phones: Vec<usize> = (0..keys.len()).filter(|&i| is_phone_like(&keys[i])).collect();
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
    if let Some(i) = find(CONSENT) {
        file.consent = Some(super::ConsentSpec {
            column: headers[i].clone(),
            values: super::default_consent_values(),
        });
        used[i] = true;
        notes.push(format!("proposed: consent from column `{}` (`[consent]`)", headers[i]));
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
        notes.push(format!(
            "other columns as variables: {}",
            rest.iter().map(|h| format!("`{h}`")).collect::<Vec<_>>().join(", ")
        ));
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
}
