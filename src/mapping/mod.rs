//! Columns → lead fields: which cell is the phone, the campaign, each variable and each
//! secondary contact. A [`MappingFile`] (written or inferred) is resolved against a source's
//! headers into a [`Plan`] of column indexes that the hot path applies to every row.

mod file;
mod guard_spec;
mod infer;
mod roles;
mod template;

use unicode_normalization::UnicodeNormalization;

pub use file::{
    AssistantRef, CampaignRef, Columns, ContactSpec, ContactTable, HiddenRows, MappingFile,
    MappingFileError, MissingVariables, OnRemoved, OnSuppressed, PhoneColumns, SheetRef,
    parse_delimiter,
};
pub use guard_spec::{ConsentSpec, GuardSpec, default_consent_values, relative_to};
pub use infer::{CARRIED_NOTE, infer, infer_from};
pub use roles::{Role, fits, roles_of, with_roles};
pub use template::{render_template, render_template_with};

use crate::row::{Variables, intern};

/// The region national numbers are read in when neither the command line, the profile nor
/// the mapping names one: the first users' sheets are German.
pub const DEFAULT_REGION: &str = "DE";

/// A mapping resolved against one source's headers.
#[derive(Clone, PartialEq, Eq)]
pub struct Plan {
    /// The phone column, or the first of several.
    pub phone: usize,
    /// The columns read, in order, when the phone cell is empty (`phone = ["Telefon", "Mobil"]`).
    pub phone_fallbacks: Vec<usize>,
    pub campaign: CampaignSource,
    /// Lead variables, with the columns whose cells make each one. Names are interned: every
    /// row's variables share them.
    pub variables: Vec<(&'static str, Vec<usize>)>,
    pub constants: Vec<(&'static str, String)>,
    pub contacts: Vec<ContactPlan>,
    /// Default region for numbers without a country code.
    pub region: String,
    /// The column of the CRM's record id, when the mapping names one (`id = "…"`).
    pub record_id: Option<usize>,
    /// Whether rows hidden in the workbook are read (`hidden_rows = "read"`) or skipped.
    pub read_hidden: bool,
}

impl Plan {
    /// The names of the lead variables the mapping fills (columns and constants).
    pub fn variable_names(&self) -> Vec<&'static str> {
        let columns = self.variables.iter().map(|(name, _)| *name);
        columns.chain(self.constants.iter().map(|(name, _)| *name)).collect()
    }
}

/// The journal fingerprints the mapping by this text (`pipeline`): a plan with one phone
/// column prints as it did before phone columns could be listed, so an interrupted run of an
/// earlier version resumes instead of being refused as another mapping.
impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut plan = f.debug_struct("Plan");
        plan.field("phone", &self.phone);
        if !self.phone_fallbacks.is_empty() {
            plan.field("phone_fallbacks", &self.phone_fallbacks);
        }
        plan.field("campaign", &self.campaign)
            .field("variables", &self.variables)
            .field("constants", &self.constants)
            .field("contacts", &self.contacts)
            .field("region", &self.region);
        if let Some(id) = self.record_id {
            plan.field("record_id", &id);
        }
        if self.read_hidden {
            plan.field("read_hidden", &true);
        }
        plan.finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CampaignSource {
    /// Each row names its campaign in this column.
    Column(usize),
    /// Every row goes to this campaign.
    Fixed(CampaignRef),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContactPlan {
    pub phone: usize,
    pub variables: Vec<(&'static str, Vec<usize>)>,
}

#[derive(Debug, thiserror::Error)]
pub enum MappingError {
    #[error("the mapping names column `{header}` for `{key}`, but {source_name} has no such column{}; its columns are: {}", closest.as_ref().map(|c| format!(" (did you mean {}?)", quoted(c))).unwrap_or_default(), column_list(available))]
    MissingColumn {
        key: String,
        header: String,
        source_name: String,
        closest: Option<String>,
        available: Vec<String>,
    },
    #[error(
        "no phone column in {source_name}: name it with `phone = \"…\"` in a mapping file (`leadsync init` writes one); its columns are: {}",
        column_list(available)
    )]
    NoPhoneColumn { source_name: String, available: Vec<String> },
    #[error(
        "no campaign for the leads: add a campaign column, set `campaign = …` in the mapping, or pass `--campaign ID|NAME`"
    )]
    NoCampaign,
    #[error(
        "the mapping sends `{name}` as a lead variable, but `leadsync_key` is the variable leadsync writes itself to know its leads: a column sent under that name would make leadsync take one lead for another. Rename the variable in the mapping (or leave the column out); to say who a lead is by your CRM's record id, write `id = \"<column>\"` instead"
    )]
    OwnKey { name: String },
}

/// A mapping may not send the variable that carries leadsync's own key (`push::key`): the key
/// says who a lead is, and a column sent under its name would say it wrongly.
fn refuse_own_key(
    variables: &[(&'static str, Vec<usize>)],
    constants: &[(&'static str, String)],
) -> Result<(), MappingError> {
    let names = variables.iter().map(|(n, _)| *n).chain(constants.iter().map(|(n, _)| *n));
    match names.into_iter().find(|n| n.eq_ignore_ascii_case(OWN_KEY)) {
        Some(name) => Err(MappingError::OwnKey { name: name.to_string() }),
        None => Ok(()),
    }
}

/// The variable leadsync's key travels in (`push::key::VARIABLE`, which sits above this floor).
pub const OWN_KEY: &str = "leadsync_key";

/// Column names for a one-line message, each as `Name`; one holding a line break or another
/// control character as a quoted string with escapes (`"Mobile\nnumber"`), which is also how
/// it is written in a mapping file.
fn column_list(headers: &[String]) -> String {
    headers.iter().map(|h| quoted(h)).collect::<Vec<_>>().join(", ")
}

fn quoted(header: &str) -> String {
    match header.chars().any(char::is_control) {
        true => format!("{header:?}"),
        false => format!("`{header}`"),
    }
}

/// Header text as compared: no BOM, trimmed, one space between words, lowercase, NFC.
pub fn header_key(header: &str) -> String {
    let text: String = header.trim_start_matches('\u{feff}').nfc().collect();
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// A header as a variable name: `E-Mail Adresse` → `e_mail_adresse`.
pub fn snake_case(header: &str) -> String {
    let mut out = String::new();
    for c in header_key(header).chars() {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

impl MappingFile {
    /// Resolves every header the mapping names to a column of `headers`.
    pub fn resolve(&self, headers: &[String], source_name: &str) -> Result<Plan, MappingError> {
        let finder =
            Finder { headers, keys: headers.iter().map(|h| header_key(h)).collect(), source_name };
        let (phone, phone_fallbacks) = match self.phone.as_ref().map(PhoneColumns::headers) {
            Some(listed) if !listed.is_empty() => {
                let key = |i: usize| match self.phone {
                    Some(PhoneColumns::FirstFilled(_)) => format!("phone[{i}]"),
                    _ => "phone".to_string(),
                };
                let mut found = listed.iter().enumerate().map(|(i, h)| finder.find(&key(i), h));
                let first = found.next().expect("a non-empty list")?;
                (first, found.collect::<Result<Vec<_>, _>>()?)
            }
            _ => {
                return Err(MappingError::NoPhoneColumn {
                    source_name: source_name.into(),
                    available: headers.to_vec(),
                });
            }
        };
        let campaign = match (&self.campaign, &self.campaign_column) {
            (Some(fixed), _) => CampaignSource::Fixed(fixed.clone()),
            (None, Some(header)) => CampaignSource::Column(finder.find("campaign_column", header)?),
            (None, None) => return Err(MappingError::NoCampaign),
        };
        let mut variables = finder.variables("variables", &self.variables)?;
        let contacts = self
            .secondary_contacts
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                let key = format!("secondary_contacts[{i}]");
                let phone = finder.find(&format!("{key}.phone"), spec.phone())?;
                let variables = match spec.variables() {
                    Some(vars) => finder.variables(&format!("{key}.variables"), vars)?,
                    None => Vec::new(),
                };
                Ok(ContactPlan { phone, variables })
            })
            .collect::<Result<Vec<_>, MappingError>>()?;
        if self.carry_unmapped {
            let phones: Vec<usize> =
                std::iter::once(phone).chain(phone_fallbacks.clone()).collect();
            variables
                .extend(self.unmapped_columns(headers, &phones, &campaign, &variables, &contacts));
        }
        let constants: Vec<(&'static str, String)> =
            self.constants.iter().map(|(k, v)| (intern(k), v.clone())).collect();
        // A country is asked for here as in a country column: `DE`, `Deutschland`, `Schweiz`.
        let region = match self.region.as_deref() {
            Some(asked) => crate::phone::region_of(asked).unwrap_or_else(|| asked.to_string()),
            None => DEFAULT_REGION.to_string(),
        };
        let record_id = self.id.as_deref().map(|h| finder.find("id", h)).transpose()?;
        refuse_own_key(&variables, &constants)?;
        Ok(Plan {
            phone,
            phone_fallbacks,
            campaign,
            variables,
            constants,
            contacts,
            region,
            record_id,
            read_hidden: self.hidden_rows == Some(HiddenRows::Read),
        })
    }

    fn unmapped_columns(
        &self,
        headers: &[String],
        phones: &[usize],
        campaign: &CampaignSource,
        variables: &[(&'static str, Vec<usize>)],
        contacts: &[ContactPlan],
    ) -> Vec<(&'static str, Vec<usize>)> {
        // The columns leadsync's own fix files add are reports, not data to send.
        let mut used: Vec<bool> = headers.iter().map(|h| is_report_column(h)).collect();
        for &phone in phones {
            used[phone] = true;
        }
        if let CampaignSource::Column(c) = campaign {
            used[*c] = true;
        }
        let var_cols = variables.iter().flat_map(|(_, cols)| cols);
        let contact_cols = contacts.iter().flat_map(|c| {
            std::iter::once(&c.phone).chain(c.variables.iter().flat_map(|(_, cols)| cols))
        });
        for &col in var_cols.chain(contact_cols) {
            used[col] = true;
        }
        let taken: Vec<&str> = variables
            .iter()
            .map(|(k, _)| *k)
            .chain(self.constants.keys().map(String::as_str))
            .collect();
        (0..headers.len())
            .filter(|&i| !used[i])
            .filter_map(|i| {
                let key = snake_case(&headers[i]);
                (!key.is_empty() && !taken.contains(&key.as_str())).then(|| (intern(&key), vec![i]))
            })
            .collect()
    }
}

struct Finder<'a> {
    headers: &'a [String],
    keys: Vec<String>,
    source_name: &'a str,
}

impl Finder<'_> {
    fn find(&self, key: &str, header: &str) -> Result<usize, MappingError> {
        let wanted = header_key(header);
        self.keys.iter().position(|k| *k == wanted).ok_or_else(|| MappingError::MissingColumn {
            key: key.to_string(),
            header: header.to_string(),
            source_name: self.source_name.to_string(),
            closest: self.closest(&wanted),
            available: self.headers.to_vec(),
        })
    }

    fn closest(&self, wanted: &str) -> Option<String> {
        self.keys
            .iter()
            .zip(self.headers)
            .map(|(k, h)| (strsim::jaro_winkler(k, wanted), h))
            .filter(|(score, _)| *score > 0.7)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, h)| h.trim().to_string())
    }

    fn variables(
        &self,
        key: &str,
        vars: &indexmap::IndexMap<String, Columns>,
    ) -> Result<Vec<(&'static str, Vec<usize>)>, MappingError> {
        vars.iter()
            .map(|(name, cols)| {
                let columns = cols
                    .headers()
                    .into_iter()
                    .map(|h| self.find(&format!("{key}.{name}"), h))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok((intern(name), columns))
            })
            .collect()
    }
}

impl Plan {
    /// Leaves out the variables `carry_unmapped` took from `hidden` columns, which a person
    /// does not see in the workbook: from there only a column `file` names is sent. The
    /// columns left out.
    pub fn leave_out_hidden(&mut self, file: &MappingFile, hidden: &[usize]) -> Vec<usize> {
        let mut left_out = Vec::new();
        self.variables.retain(|(name, columns)| {
            let carried = !file.variables.contains_key(*name);
            let from_hidden = carried && columns.iter().any(|c| hidden.contains(c));
            if from_hidden {
                left_out.extend(columns);
            }
            !from_hidden
        });
        left_out
    }

    /// The phone cell of a row.
    pub fn phone_cell<'r>(&self, cells: &'r csv::StringRecord) -> &'r str {
        cells.get(self.phone).unwrap_or("")
    }

    /// The phone columns in the order they are read: the phone column, then its fallbacks.
    pub fn phone_columns(&self) -> impl Iterator<Item = usize> + use<'_> {
        std::iter::once(self.phone).chain(self.phone_fallbacks.iter().copied())
    }

    /// The campaign a row names: its campaign cell, or the fixed campaign.
    pub fn campaign_text(&self, cells: &csv::StringRecord) -> String {
        match &self.campaign {
            CampaignSource::Column(c) => cells.get(*c).unwrap_or("").trim().to_string(),
            CampaignSource::Fixed(fixed) => fixed.as_text(),
        }
    }

    /// The row's record id, when the mapping names an id column and its cell holds one.
    pub fn record_id(&self, cells: &csv::StringRecord) -> Option<String> {
        let id = cells.get(self.record_id?)?.trim();
        (!id.is_empty()).then(|| id.to_string())
    }

    /// The lead's variables: mapped cells (trimmed, empty ones left out) then constants.
    pub fn variables(&self, cells: &csv::StringRecord) -> Variables {
        let mut vars = collect_variables(&self.variables, cells);
        for (k, v) in &self.constants {
            vars.insert(k, v.clone());
        }
        vars
    }

    /// Each secondary contact with its phone cell and variables; empty phone cells are no
    /// contact.
    pub fn contacts<'p, 'r>(
        &'p self,
        cells: &'r csv::StringRecord,
    ) -> impl Iterator<Item = (&'p ContactPlan, &'r str, Variables)> + use<'p, 'r> {
        self.contacts.iter().filter_map(move |c| {
            let phone = cells.get(c.phone).unwrap_or("").trim();
            (!phone.is_empty()).then(|| (c, phone, collect_variables(&c.variables, cells)))
        })
    }
}

fn collect_variables(spec: &[(&'static str, Vec<usize>)], cells: &csv::StringRecord) -> Variables {
    let mut vars = Variables::with_capacity(spec.len());
    for (name, columns) in spec {
        let value = match columns.as_slice() {
            [one] => cells.get(*one).unwrap_or("").trim().to_string(),
            many => many
                .iter()
                .map(|c| cells.get(*c).unwrap_or("").trim())
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
        };
        if !value.is_empty() {
            vars.insert(name, value);
        }
    }
    vars
}

/// A column leadsync's CSV or XLSX fix file added (`leadsync_status`, ...): importing the fix
/// file again must not send them as variables.
pub fn is_report_column(header: &str) -> bool {
    header.trim().starts_with("leadsync_")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn header_matching_ignores_case_spaces_and_bom() {
        assert_eq!(header_key("\u{feff}  Telefon  Nummer "), "telefon nummer");
        assert_eq!(snake_case("E-Mail Adresse"), "e_mail_adresse");
        assert_eq!(snake_case(" Straße (Nr.) "), "straße_nr");
    }

    #[test]
    fn a_missing_column_lists_the_columns_and_the_closest() {
        let file = MappingFile::parse("phone = \"Telefon\"\ncampaign = 1\n").unwrap();
        let err =
            file.resolve(&headers(&["Name", "Telefonnummer", "Mail"]), "leads.csv").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("`Telefon`") && text.contains("leads.csv"), "{text}");
        assert!(text.contains("did you mean `Telefonnummer`"), "{text}");
        assert!(text.contains("`Name`, `Telefonnummer`, `Mail`"), "{text}");
    }

    /// The journal fingerprints the mapping by the plan's `Debug` text: interned `&str` names
    /// must print as the `String`s of earlier versions did, or resuming their runs is refused.
    #[test]
    fn the_plan_prints_as_it_did_with_string_names() {
        let file = MappingFile::parse(
            "phone = \"Phone\"\ncampaign = 7\n[variables]\nname = \"Name\"\n[constants]\nsource = \"fair\"\n",
        )
        .unwrap();
        let plan = file.resolve(&headers(&["Name", "Phone"]), "x.csv").unwrap();
        let printed = format!("{plan:?}");
        assert!(
            printed.contains(r#"variables: [("name", [0])], constants: [("source", "fair")]"#),
            "{printed}"
        );
    }

    #[test]
    fn resolves_and_applies_to_a_row() {
        let file = MappingFile::parse(
            r#"
            phone = "phone"
            campaign_column = "Campaign"
            carry_unmapped = true
            secondary_contacts = [{ phone = "Phone 2", variables = { customer_name = "Contact 2" } }]
            [variables]
            customer_name = ["First", "Last"]
            [constants]
            source = "fair"
            "#,
        )
        .unwrap();
        let h = headers(&[
            "First",
            "Last",
            "Phone",
            "Phone 2",
            "Contact 2",
            "Campaign",
            "Company Name",
            "",
        ]);
        let plan = file.resolve(&h, "x.csv").unwrap();
        let row = csv::StringRecord::from(vec![
            "Ada",
            " Lovelace ",
            "+441234",
            "",
            "Bob",
            " Spring ",
            "ACME",
            "z",
        ]);
        assert_eq!(plan.phone_cell(&row), "+441234");
        assert_eq!(plan.campaign_text(&row), "Spring");
        let vars = plan.variables(&row);
        assert_eq!(vars.get("customer_name"), Some("Ada Lovelace"));
        assert_eq!(vars.get("company_name"), Some("ACME"));
        assert_eq!(vars.get("source"), Some("fair"));
        assert_eq!(plan.contacts(&row).count(), 0, "an empty cell is no contact");
        let row = csv::StringRecord::from(vec!["Ada", "", "1", "+442", "Bob", "1", "", ""]);
        let contacts: Vec<_> = plan.contacts(&row).collect();
        assert_eq!(contacts[0].1, "+442");
        assert_eq!(contacts[0].2.get("customer_name"), Some("Bob"));
    }

    #[test]
    fn a_list_of_phone_columns_resolves_to_the_first_and_its_fallbacks() {
        let file = MappingFile::parse(
            "phone = [\"Telefon\", \"Mobil\"]\ncampaign = 1\ncarry_unmapped = true\n",
        )
        .unwrap();
        let plan = file.resolve(&headers(&["Name", "Mobil", "Telefon"]), "x.csv").unwrap();
        assert_eq!((plan.phone, plan.phone_fallbacks.as_slice()), (2, [1].as_slice()));
        assert_eq!(plan.phone_columns().collect::<Vec<_>>(), [2, 1]);
        // The fallback column is a phone column, not a variable to carry.
        assert_eq!(plan.variables, [("name", vec![0])]);
        assert!(format!("{plan:?}").contains("phone_fallbacks: [1]"));
        let err = MappingFile::parse("phone = [\"Telefon\", \"Handy\"]\ncampaign = 1\n")
            .unwrap()
            .resolve(&headers(&["Telefon", "Mobil"]), "x.csv")
            .unwrap_err();
        assert!(err.to_string().contains("`phone[1]`"), "{err}");
        let none = MappingFile::parse("phone = []\ncampaign = 1\n").unwrap();
        assert!(matches!(
            none.resolve(&headers(&["Telefon"]), "x"),
            Err(MappingError::NoPhoneColumn { .. })
        ));
    }

    /// A plan with one phone column prints exactly as before the list existed.
    #[test]
    fn one_phone_column_prints_no_fallbacks() {
        let file = MappingFile::parse("phone = \"Phone\"\ncampaign = 7\n").unwrap();
        let plan = file.resolve(&headers(&["Phone"]), "x.csv").unwrap();
        assert_eq!(
            format!("{plan:?}"),
            r#"Plan { phone: 0, campaign: Fixed(Id(7)), variables: [], constants: [], contacts: [], region: "DE" }"#
        );
    }

    #[test]
    fn no_campaign_anywhere_is_an_error() {
        let file = MappingFile::parse("phone = \"Phone\"\n").unwrap();
        assert!(matches!(file.resolve(&headers(&["Phone"]), "x"), Err(MappingError::NoCampaign)));
    }
}
