//! A mapping seen one column at a time: the role each column plays in a [`MappingFile`], and a
//! mapping rebuilt from one role per column, as a person picks them in a form (`leadsync ui`'s
//! Mapping step). Everything a role does not say (the region, constants, the guards' lists and
//! values, the lead key) stays as the mapping it starts from has it.

use indexmap::IndexMap;

use super::{Columns, ConsentSpec, ContactSpec, MappingFile, PhoneColumns, header_key, snake_case};

/// What one column is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    Ignore,
    /// The number to call; several phone columns are tried in order, the first filled one wins,
    /// and each after the first is also sent as a second number when an earlier one is filled.
    Phone,
    /// Another number of the same contact, sent as a secondary contact.
    Secondary,
    /// A variable of this name; columns given the same name are joined with a space.
    Variable(String),
    /// Each row's campaign, by id or name.
    Campaign,
    /// Each row's country, for numbers written without a country code.
    Country,
    /// Whether the person agreed to be called.
    Consent,
    /// The CRM's own id of the record: who the lead is (`id = "…"`).
    RecordId,
}

impl Role {
    /// The role's name in a form (`variable` for any variable).
    pub fn as_str(&self) -> &'static str {
        match self {
            Role::Ignore => "ignore",
            Role::Phone => "phone",
            Role::Secondary => "secondary",
            Role::Variable(_) => "variable",
            Role::Campaign => "campaign",
            Role::Country => "country",
            Role::Consent => "consent",
            Role::RecordId => "record_id",
        }
    }

    /// The role a form names; a variable takes its name (blank: the column's own name, as a
    /// variable name is written: lower case, words joined by `_`).
    pub fn parse(name: &str, variable: &str, header: &str) -> Option<Role> {
        Some(match name {
            "ignore" => Role::Ignore,
            "phone" => Role::Phone,
            "secondary" => Role::Secondary,
            "campaign" => Role::Campaign,
            "country" => Role::Country,
            "consent" => Role::Consent,
            "record_id" => Role::RecordId,
            "variable" => Role::Variable(match variable.trim() {
                "" => snake_case(header),
                given => given.to_string(),
            }),
            _ => return None,
        })
    }
}

/// The role `file` gives each of `headers` (the first it finds for a column named twice).
pub fn roles_of(file: &MappingFile, headers: &[String]) -> Vec<Role> {
    let mut roles = vec![Role::Ignore; headers.len()];
    let mut set = |header: &str, role: Role| {
        let wanted = header_key(header);
        if let Some(i) = headers.iter().position(|h| header_key(h) == wanted)
            && roles[i] == Role::Ignore
        {
            roles[i] = role;
        }
    };
    for header in file.phone.iter().flat_map(PhoneColumns::headers) {
        set(header, Role::Phone);
    }
    if let Some(header) = &file.campaign_column {
        set(header, Role::Campaign);
    }
    if let Some(header) = &file.region_column {
        set(header, Role::Country);
    }
    if let Some(consent) = &file.consent {
        set(&consent.column, Role::Consent);
    }
    if let Some(header) = &file.id {
        set(header, Role::RecordId);
    }
    for contact in &file.secondary_contacts {
        set(contact.phone(), Role::Secondary);
    }
    for (name, columns) in &file.variables {
        for header in columns.headers() {
            set(header, Role::Variable(name.clone()));
        }
    }
    // What an inferred mapping carries along unasked becomes a variable of the column's name.
    if file.carry_unmapped {
        for (role, header) in roles.iter_mut().zip(headers) {
            if *role == Role::Ignore {
                *role = Role::Variable(snake_case(header));
            }
        }
    }
    roles
}

/// `base` with its columns replaced by `roles`, one per header.
pub fn with_roles(base: &MappingFile, headers: &[String], roles: &[Role]) -> MappingFile {
    let mut file = MappingFile {
        phone: None,
        campaign_column: None,
        region_column: None,
        consent: None,
        id: None,
        secondary_contacts: Vec::new(),
        variables: IndexMap::new(),
        // Every column has said what it is for: none is carried along unasked.
        carry_unmapped: false,
        ..base.clone()
    };
    let mut phones = Vec::new();
    for (header, role) in headers.iter().zip(roles) {
        match role {
            Role::Ignore => {}
            Role::Phone => phones.push(header.clone()),
            Role::Secondary => file.secondary_contacts.push(ContactSpec::Phone(header.clone())),
            Role::Variable(name) => join_variable(&mut file.variables, name, header),
            Role::Campaign => file.campaign_column = Some(header.clone()),
            Role::Country => file.region_column = Some(header.clone()),
            Role::RecordId => file.id = Some(header.clone()),
            Role::Consent => {
                let values = base.consent.as_ref().map(|c| c.values.clone());
                let values = values.unwrap_or_else(super::default_consent_values);
                file.consent = Some(ConsentSpec { column: header.clone(), values });
            }
        }
    }
    // A further phone column is what `infer` makes of Telefon and Mobil: the number when the
    // first is empty, and a second number of the same contact when it is not.
    for later in phones.iter().skip(1) {
        if !file.secondary_contacts.iter().any(|c| c.phone() == later) {
            file.secondary_contacts.push(ContactSpec::Phone(later.clone()));
        }
    }
    file.phone = match phones.len() {
        0 => None,
        1 => Some(PhoneColumns::One(phones.remove(0))),
        _ => Some(PhoneColumns::FirstFilled(phones)),
    };
    file
}

/// Whether `file` can read a sheet with these headers: every column it names is there. A
/// mapping saved for one export is proposed for the next export of the same kind this way.
pub fn fits(file: &MappingFile, headers: &[String]) -> bool {
    let mut probe = file.clone();
    // Resolving needs a campaign; the one a run is given uses no column.
    if probe.campaign.is_none() && probe.campaign_column.is_none() {
        probe.campaign = Some(super::CampaignRef::Id(0));
    }
    let guards =
        [probe.region_column.as_deref(), probe.consent.as_ref().map(|c| c.column.as_str())];
    let present = |header: &str| headers.iter().any(|h| header_key(h) == header_key(header));
    probe.phone.is_some()
        && probe.resolve(headers, "").is_ok()
        && guards.into_iter().flatten().all(present)
}

fn join_variable(variables: &mut IndexMap<String, Columns>, name: &str, header: &str) {
    let joined = match variables.shift_remove(name) {
        None => Columns::One(header.to_string()),
        Some(Columns::One(first)) => Columns::Joined(vec![first, header.to_string()]),
        Some(Columns::Joined(mut all)) => {
            all.push(header.to_string());
            Columns::Joined(all)
        }
    };
    variables.insert(name.to_string(), joined);
}

#[cfg(test)]
mod tests {
    use super::{Role, fits, roles_of, with_roles};
    use crate::mapping::{MappingFile, PhoneColumns, infer};

    fn headers(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_mapping_read_as_roles_and_rebuilt_from_them_is_the_same_mapping() {
        let headers =
            headers(&["Vorname", "Nachname", "Telefon", "Mobil", "Land", "Kampagne", "Firma"]);
        let (mut inferred, _) = infer(&headers);
        inferred.carry_unmapped = false;
        let roles = roles_of(&inferred, &headers);
        assert_eq!(roles[0], Role::Variable("customer_name".into()));
        assert_eq!(roles[5], Role::Campaign);
        assert_eq!(roles[4], Role::Country);
        let rebuilt = with_roles(&inferred, &headers, &roles);
        assert_eq!(roles_of(&rebuilt, &headers), roles);
        assert_eq!(rebuilt.variables, inferred.variables);
        assert_eq!(rebuilt.campaign_column, inferred.campaign_column);
        assert_eq!(rebuilt.phone, inferred.phone);
        assert_eq!(rebuilt.secondary_contacts, inferred.secondary_contacts);
    }

    #[test]
    fn roles_a_person_picks_make_the_mapping() {
        let headers = headers(&["Tel", "Handy", "Vorname", "Nachname", "Notiz", "Opt-in"]);
        let base = MappingFile { region: Some("AT".into()), ..MappingFile::default() };
        let roles = [
            Role::Phone,
            Role::Phone,
            Role::Variable("name".into()),
            Role::Variable("name".into()),
            Role::Ignore,
            Role::Consent,
        ];
        let file = with_roles(&base, &headers, &roles);
        assert_eq!(file.phone, Some(PhoneColumns::FirstFilled(vec!["Tel".into(), "Handy".into()])));
        assert_eq!(
            file.secondary_contacts.len(),
            1,
            "Handy is a second number too, as infer has it"
        );
        assert_eq!(file.variables["name"].headers(), ["Vorname", "Nachname"]);
        assert_eq!(file.consent.as_ref().unwrap().column, "Opt-in");
        assert_eq!(file.region.as_deref(), Some("AT"), "what no role says is kept");
        assert!(!file.variables.contains_key("notiz"));
        assert_eq!(
            Role::parse("variable", "", "Kunden Nr"),
            Some(Role::Variable("kunden_nr".into()))
        );
        assert_eq!(Role::parse("nonsense", "", "x"), None);
        assert!(fits(&file, &headers));
        assert!(!fits(&file, &headers[1..]), "without Tel it cannot read the sheet");
        let mut more = headers.clone();
        more.push("Extra".into());
        assert!(fits(&file, &more), "a column more is fine");
    }

    #[test]
    fn a_record_id_column_is_a_role_of_its_own() {
        let headers = headers(&["Kunden-Nr", "Telefon"]);
        let file = MappingFile {
            id: Some("Kunden-Nr".into()),
            phone: Some(PhoneColumns::One("Telefon".into())),
            ..MappingFile::default()
        };
        let roles = roles_of(&file, &headers);
        assert_eq!(roles, [Role::RecordId, Role::Phone]);
        assert_eq!(with_roles(&file, &headers, &roles).id.as_deref(), Some("Kunden-Nr"));
        let dropped = with_roles(&file, &headers, &[Role::Ignore, Role::Phone]);
        assert_eq!(dropped.id, None, "a role taken away takes the id column away");
        assert_eq!(Role::parse("record_id", "", "Kunden-Nr"), Some(Role::RecordId));
    }
}
