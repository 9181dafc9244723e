//! Judging rows: phone numbers, campaigns and duplicates → a [`RowReport`] with its issues.
//!
//! [`RowChecker`] is pure per row, so several threads can run one each; [`Deduper`] sees rows in
//! file order, because "duplicate of row 12" must name the earlier row whatever thread ran it.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use unicode_normalization::UnicodeNormalization;

use crate::assistant::AssistantCheck;
use crate::guards::{Guards, NumberType, RowRegion, UnknownCountry, Verdict};
use crate::mapping::{Columns, MappingFile, Plan, snake_case};
use crate::phone::{PhoneParser, PhoneProblem};
use crate::row::{ContactReport, Issue, IssueCode, RowReport, RowStatus, Said};
use crate::source::{Hidden, Record, StoredNumber};

/// The campaigns rows may name, from the service's live list.
#[derive(Debug, Clone, Default)]
pub struct CampaignBook {
    campaigns: Vec<(u64, String)>,
    by_id: HashMap<u64, usize>,
    by_name: HashMap<String, Vec<usize>>,
}

/// How a row named its campaign, once looked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedCampaign {
    pub id: u64,
    pub name: String,
}

impl CampaignBook {
    /// The account's campaign ids.
    pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.campaigns.iter().map(|(id, _)| *id)
    }

    pub fn new(campaigns: impl IntoIterator<Item = (u64, String)>) -> CampaignBook {
        let mut book = CampaignBook::default();
        for (id, name) in campaigns {
            let index = book.campaigns.len();
            book.by_id.insert(id, index);
            book.by_name.entry(name_key(&name)).or_default().push(index);
            book.campaigns.push((id, name));
        }
        book
    }

    /// Finds a campaign by id or by name (trimmed, case-insensitive, Unicode-normalized).
    pub fn resolve(&self, text: &str) -> Result<ResolvedCampaign, Issue> {
        let key = name_key(text);
        let by_name = self.by_name.get(&key).map(Vec::as_slice).unwrap_or_default();
        let by_id = text.trim().parse::<u64>().ok().and_then(|id| self.by_id.get(&id));
        let index = match (by_id, by_name) {
            (Some(&i), _) => i,
            (None, [i]) => *i,
            (None, []) => return Err(self.unknown(text)),
            (None, many) => {
                let ids = many.iter().map(|&i| self.campaigns[i].0).collect();
                let said = Said::AmbiguousCampaign { name: text.trim().to_string(), ids };
                return Err(Issue::said(IssueCode::AmbiguousCampaign, None, said));
            }
        };
        let (id, name) = &self.campaigns[index];
        Ok(ResolvedCampaign { id: *id, name: name.clone() })
    }

    fn unknown(&self, text: &str) -> Issue {
        let key = name_key(text);
        let closest = self
            .campaigns
            .iter()
            .map(|(id, name)| (strsim::jaro_winkler(&name_key(name), &key), id, name))
            .filter(|(score, _, _)| *score > 0.75)
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let closest = closest.map(|(_, id, name)| (name.clone(), *id));
        // The first ten are named only when none is close: a long list helps nobody.
        let known = match closest {
            Some(_) => Vec::new(),
            None => self.campaigns.iter().take(10).map(|(id, n)| (n.clone(), *id)).collect(),
        };
        let said = Said::UnknownCampaign { name: text.trim().to_string(), closest, known };
        Issue::said(IssueCode::UnknownCampaign, None, said)
    }

    pub fn is_empty(&self) -> bool {
        self.campaigns.is_empty()
    }

    /// `file`'s campaign column, when its first values (`samples`, cells by column) name no
    /// campaign of the account: a CRM export's own campaign names, which would make every row
    /// `unknown_campaign`. The column is then sent as a variable named after its header, and
    /// the column and one of its values come back for the front to say why and ask for the
    /// campaign. A mapping with a campaign for every row is left as it is.
    pub fn unname_campaign_column(
        &self,
        file: &mut MappingFile,
        headers: &[String],
        samples: &[Vec<String>],
    ) -> Option<(String, String)> {
        let column = file.campaign_column.clone().filter(|_| file.campaign.is_none())?;
        let index = headers.iter().position(|h| *h == column)?;
        let values: Vec<&str> =
            samples.iter().filter_map(|r| r.get(index)).map(|v| v.trim()).collect();
        if self.names_any(values.iter().copied()) {
            return None;
        }
        let example = values.iter().find(|v| !v.is_empty()).copied().unwrap_or_default();
        file.campaign_column = None;
        file.variables.insert(snake_case(&column), Columns::One(column.clone()));
        Some((column, example.to_string()))
    }

    /// Whether a column holding these values can stand for the campaign: some filled value
    /// names a campaign of the account. A CRM export's own campaign names, none of which the
    /// account has, would make every row `unknown_campaign`: such a column is not the
    /// campaign, and the person is asked for one. An empty book (no service) cannot say no.
    pub fn names_any<'a>(&self, values: impl IntoIterator<Item = &'a str>) -> bool {
        let mut filled = values.into_iter().filter(|v| !v.trim().is_empty()).peekable();
        // A name several campaigns share still names the account's campaigns.
        let names =
            |v: &str| !matches!(self.resolve(v), Err(i) if i.code == IssueCode::UnknownCampaign);
        self.is_empty() || filled.peek().is_none() || filled.any(names)
    }
}

/// Campaign names as compared: NFKC, case-folded, one space between words.
fn name_key(text: &str) -> String {
    let folded: String = text.nfkc().collect::<String>().to_lowercase();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether campaigns are checked against the service (`--offline` turns it off).
#[derive(Debug, Clone)]
pub enum Campaigns {
    Checked(CampaignBook),
    Unchecked,
}

/// What one row needs to be judged by; one per worker thread.
pub struct RowChecker {
    plan: Arc<Plan>,
    headers: Arc<[String]>,
    campaigns: Arc<Campaigns>,
    phones: PhoneParser,
    keep_cells: bool,
    campaign_memo: RefCell<HashMap<String, Result<CampaignFound, Issue>>>,
    guards: Arc<Guards>,
    /// Parsers for the regions rows name in their country column.
    regional: RefCell<HashMap<String, PhoneParser>>,
    /// The variables the assistant that calls the leads needs, when one was named.
    assistant: Option<Arc<AssistantCheck>>,
}

/// Distinct campaign texts remembered per checker; a sheet with more is unusual and still works.
const CAMPAIGN_MEMO_LIMIT: usize = 10_000;

/// A row's campaign: its id (unknown offline for a name), its name, and its dedupe key.
#[derive(Debug, Clone)]
struct CampaignFound {
    id: Option<u64>,
    name: String,
    key: u64,
}

/// How a row's numbers are read: the parser for its country, and its country cell when that
/// names no country (then only numbers with a country code can be read).
struct RowReading {
    parser: PhoneParser,
    unknown_country: Option<UnknownCountry>,
}

/// A judged row and the key it is deduplicated under (when it is valid so far).
#[derive(Debug, Clone)]
pub struct Checked {
    pub report: RowReport,
    pub key: Option<(u64, u64)>,
}

impl RowChecker {
    pub fn new(
        plan: Arc<Plan>,
        headers: Arc<[String]>,
        campaigns: Arc<Campaigns>,
        phones: PhoneParser,
        keep_cells: bool,
    ) -> RowChecker {
        RowChecker {
            plan,
            headers,
            campaigns,
            phones,
            keep_cells,
            campaign_memo: RefCell::default(),
            guards: Arc::new(Guards::default()),
            regional: RefCell::default(),
            assistant: None,
        }
    }

    /// Checks every row's variables against what the calling assistant needs.
    pub fn with_assistant(mut self, assistant: Option<Arc<AssistantCheck>>) -> RowChecker {
        self.assistant = assistant;
        self
    }

    /// Checks who may be called with `guards` (by default only premium-rate numbers are
    /// refused).
    pub fn with_guards(mut self, guards: Arc<Guards>) -> RowChecker {
        self.guards = guards;
        self
    }

    pub fn check(&self, record: &Record) -> Checked {
        match record.hidden.filter(|_| !self.plan.read_hidden) {
            Some(hidden) => self.hidden(record, hidden),
            None => self.judge(record),
        }
    }

    /// A row hidden in the workbook: judged as any row, so its page shows what it would send,
    /// then skipped with why a person does not see it. It takes no part in deduplication, and a
    /// sync leaves its lead as it is (the row is still in the sheet).
    fn hidden(&self, record: &Record, hidden: Hidden) -> Checked {
        let mut report = self.judge(record).report;
        let (code, said) = match hidden {
            Hidden::Row => (IssueCode::HiddenRow, Said::HiddenRow),
            Hidden::Filtered => (IssueCode::FilteredOut, Said::FilteredOut),
        };
        report.status = RowStatus::Skipped;
        report.errors = vec![Issue::said(code, None, said)];
        Checked { report, key: None }
    }

    fn judge(&self, record: &Record) -> Checked {
        let record = &*self.phones_as_stored(record);
        let cells = &record.cells;
        let mut report = RowReport {
            row: record.row,
            status: RowStatus::Valid,
            phone: None,
            campaign_id: None,
            record_id: self.plan.record_id(cells),
            lead_id: None,
            variables: self.plan.variables(cells),
            errors: Vec::new(),
            warnings: Vec::new(),
            secondary_contacts: Vec::new(),
            source_cells: if self.keep_cells {
                cells.iter().map(str::to_string).collect()
            } else {
                Vec::new()
            },
            region: None,
            campaign_name: None,
            number_type: None,
        };
        let reading = self.row_reading(record);
        let column = self.phone_column(record);
        let mut skips = Vec::new();
        let phone_key = self.check_phone(record, column, &mut report, &reading, &mut skips);
        let campaign_key = self.check_campaign(record, &mut report);
        self.check_contacts(record, column, &mut report, &reading);
        self.note_cell_errors(record, column, &mut report);
        if let Some(assistant) = &self.assistant {
            assistant.judge(&mut report);
        }
        skips.extend(self.guards.judge_consent(cells));
        if report.errors.is_empty() && !skips.is_empty() {
            // Not called by design: the reasons are the row's issues, and it takes no part in
            // deduplication, so a later row of the same number with consent still goes.
            report.status = RowStatus::Skipped;
            report.errors = skips;
            return Checked { report, key: None };
        }
        if !report.errors.is_empty() {
            report.status = RowStatus::Rejected;
            // A rejected row's report shows what was typed, whichever reports were asked for:
            // a few rows' cells, never every row's.
            if report.source_cells.is_empty() {
                report.source_cells = cells.iter().map(str::to_string).collect();
            }
        }
        let key = match (phone_key, campaign_key) {
            (Some(p), Some(c)) if report.errors.is_empty() => Some((c, p)),
            _ => None,
        };
        Checked { report, key }
    }

    /// A row the person left out: checked as any row, so its page still shows what it would
    /// send, then skipped with the one reason `excluded`. It takes no part in deduplication:
    /// a later row of the same number is the one sent.
    pub fn excluded(&self, record: &Record) -> Checked {
        let mut report = self.judge(record).report;
        report.status = RowStatus::Skipped;
        report.errors = vec![Issue::said(IssueCode::Excluded, None, Said::Excluded)];
        Checked { report, key: None }
    }

    fn column(&self, index: usize) -> String {
        self.headers
            .get(index)
            .map_or_else(|| format!("column {}", index + 1), |h| h.trim().to_string())
    }

    /// The parser for the row's country (its country cell, else the default region).
    fn row_reading(&self, record: &Record) -> RowReading {
        let (parser, unknown_country) = match self.guards.row_region(&record.cells) {
            RowRegion::Default => (self.phones, None),
            RowRegion::Named(region) => {
                let parser = crate::guards::parser_for(&mut self.regional.borrow_mut(), &region);
                (parser.unwrap_or(self.phones), None)
            }
            // Numbers with a country code read the same in any region.
            RowRegion::Unknown(unknown) => (self.phones, Some(unknown)),
        };
        RowReading { parser, unknown_country }
    }

    /// The row with each phone cell whose number format changed its digits (`0.00`, `0%`)
    /// holding the digits stored: a number is read from what was typed. A format that only
    /// dresses the digits (`"+"0`, `00000000000`, `0### #######`) adds what a person reads
    /// the number by, and stays. Every other cell keeps what a person sees.
    fn phones_as_stored<'r>(&self, record: &'r Record) -> Cow<'r, Record> {
        let contacts = self.plan.contacts.iter().map(|c| c.phone);
        let is_phone = |c: usize| self.plan.phone_columns().chain(contacts.clone()).any(|p| p == c);
        let changed = |s: &&StoredNumber| {
            is_phone(s.column) && !dresses(record.cells.get(s.column).unwrap_or(""), &s.digits)
        };
        if !record.stored_numbers.iter().any(|s| changed(&s)) {
            return Cow::Borrowed(record);
        }
        let mut cells: Vec<&str> = record.cells.iter().collect();
        for stored in record.stored_numbers.iter().filter(changed) {
            if let Some(cell) = cells.get_mut(stored.column) {
                *cell = &stored.digits;
            }
        }
        Cow::Owned(Record { cells: csv::StringRecord::from(cells), ..record.clone() })
    }

    /// The column the row's number comes from: the first phone column whose cell holds
    /// anything (a number, text, a spreadsheet error); the first when none does.
    fn phone_column(&self, record: &Record) -> usize {
        if self.plan.phone_fallbacks.is_empty() {
            return self.plan.phone;
        }
        let holds_something = |column: usize| {
            record.cell_errors.iter().any(|e| e.column == column)
                || !crate::phone::is_missing(record.cells.get(column).unwrap_or(""))
        };
        self.plan.phone_columns().find(|&c| holds_something(c)).unwrap_or(self.plan.phone)
    }

    /// `Telefon`, or `Telefon` and `Mobil`: where a number was looked for.
    fn phone_columns_named(&self) -> Vec<String> {
        self.plan.phone_columns().map(|c| self.column(c)).collect()
    }

    fn check_phone(
        &self,
        record: &Record,
        column: usize,
        report: &mut RowReport,
        reading: &RowReading,
        skips: &mut Vec<Issue>,
    ) -> Option<u64> {
        // The column name is only needed for an issue: no allocation for a good row.
        let field = || self.column(column);
        if let Some(err) = record.cell_errors.iter().find(|e| e.column == column) {
            let said = Said::PhoneCellError { column: field(), value: err.value.to_string() };
            report.errors.push(Issue::said(IssueCode::InvalidPhone, Some(field()), said));
            return None;
        }
        let raw = record.cells.get(column).unwrap_or("");
        let unknown_country = reading.unknown_country.as_ref();
        match reading.parser.parse(raw) {
            Ok(phone) if !phone.international && unknown_country.is_some() => {
                report.errors.extend(unknown_country.map(|u| u.refused(raw.trim())));
                None
            }
            Ok(phone) => {
                report.warnings.extend(unknown_country.map(UnknownCountry::noted));
                report.number_type = Some(NumberType::of(phone.number_type));
                match self.guards.judge_main(&phone, field) {
                    Some(Verdict::Reject(issue)) => report.errors.push(issue),
                    Some(Verdict::Skip(issue)) => skips.push(issue),
                    None => {}
                }
                if let Some(ext) = &phone.extension_dropped {
                    let said = Said::ExtensionDropped {
                        extension: ext.to_string(),
                        typed: raw.trim().to_string(),
                    };
                    let issue = Issue::said(IssueCode::ExtensionDropped, Some(field()), said);
                    report.warnings.push(issue);
                }
                if let Some(remark) = &phone.remark_dropped {
                    report.warnings.push(remark_dropped(remark, &phone.e164, field()));
                }
                let key = phone.key();
                report.region = phone.region;
                report.phone = Some(phone.e164);
                Some(key)
            }
            Err(PhoneProblem::Missing) => {
                report.warnings.extend(unknown_country.map(UnknownCountry::noted));
                let said = Said::NoPhone { columns: self.phone_columns_named() };
                report.errors.push(Issue::said(IssueCode::MissingPhone, Some(field()), said));
                None
            }
            Err(PhoneProblem::ScientificNotation) => {
                let said =
                    Said::ScientificNotation { typed: raw.trim().to_string(), column: field() };
                let issue = Issue::said(IssueCode::ScientificNotation, Some(field()), said);
                report.errors.push(issue);
                None
            }
            Err(problem) => {
                report.warnings.extend(unknown_country.map(UnknownCountry::noted));
                let said = Said::InvalidPhone { typed: raw.trim().to_string(), problem };
                report.errors.push(Issue::said(IssueCode::InvalidPhone, Some(field()), said));
                None
            }
        }
    }

    /// Returns the campaign part of the dedupe key.
    fn check_campaign(&self, record: &Record, report: &mut RowReport) -> Option<u64> {
        let text = self.plan.campaign_text(&record.cells);
        let field = || match self.plan.campaign {
            crate::mapping::CampaignSource::Column(c) => Some(self.column(c)),
            crate::mapping::CampaignSource::Fixed(_) => Some("campaign".to_string()),
        };
        if text.is_empty() {
            report.errors.push(Issue::said(IssueCode::MissingCampaign, field(), Said::NoCampaign));
            return None;
        }
        match self.campaign_verdict(&text) {
            Ok(found) => {
                report.campaign_id = found.id;
                report.campaign_name = Some(found.name);
                Some(found.key)
            }
            Err(mut issue) => {
                issue.field = field();
                report.errors.push(issue);
                None
            }
        }
    }

    /// What a campaign cell resolves to, remembered per distinct text: a sheet names few
    /// campaigns many times, and normalizing the name every row costs more than the lookup.
    fn campaign_verdict(&self, text: &str) -> Result<CampaignFound, Issue> {
        if let Some(known) = self.campaign_memo.borrow().get(text) {
            return known.clone();
        }
        let verdict = match &*self.campaigns {
            Campaigns::Checked(book) => book.resolve(text).map(|c| CampaignFound {
                id: Some(c.id),
                key: c.id,
                name: c.name,
            }),
            Campaigns::Unchecked => {
                let id = text.parse().ok();
                Ok(CampaignFound {
                    id,
                    key: id.unwrap_or_else(|| unchecked_key(text)),
                    name: text.to_string(),
                })
            }
        };
        let mut memo = self.campaign_memo.borrow_mut();
        if memo.len() < CAMPAIGN_MEMO_LIMIT {
            memo.insert(text.to_string(), verdict.clone());
        }
        verdict
    }

    fn check_contacts(
        &self,
        record: &Record,
        main_column: usize,
        report: &mut RowReport,
        reading: &RowReading,
    ) {
        for (contact, raw, variables) in self.plan.contacts(&record.cells) {
            if contact.phone == main_column {
                // The main number came from this column (`phone = ["Telefon", "Mobil"]` with
                // Telefon empty): sending it again as a contact would call it twice.
                continue;
            }
            let column = || Some(self.column(contact.phone));
            match reading.parser.parse(raw) {
                Ok(phone) if !phone.international && reading.unknown_country.is_some() => {
                    report.warnings.extend(
                        reading.unknown_country.as_ref().map(|u| u.left_out(raw, column())),
                    );
                }
                Ok(phone) => match self.guards.judge_secondary(&phone, column()) {
                    Some(left_out) => report.warnings.push(left_out),
                    None => {
                        if let Some(remark) = &phone.remark_dropped {
                            let column = column().unwrap_or_default();
                            report.warnings.push(remark_dropped(remark, &phone.e164, column));
                        }
                        report
                            .secondary_contacts
                            .push(ContactReport { phone: phone.e164, variables })
                    }
                },
                Err(problem) => {
                    let said = Said::SecondaryInvalid { typed: raw.to_string(), problem };
                    let issue = Issue::said(IssueCode::InvalidSecondaryPhone, column(), said);
                    report.warnings.push(issue);
                }
            }
        }
    }

    fn note_cell_errors(&self, record: &Record, phone_column: usize, report: &mut RowReport) {
        for err in record.cell_errors.iter().filter(|e| e.column != phone_column) {
            let field = self.column(err.column);
            let said = Said::CellError { column: field.clone(), value: err.value.to_string() };
            report.warnings.push(Issue::said(IssueCode::CellError, Some(field), said));
        }
    }
}

/// Words after a number (`(privat)`): the number goes without them, and the row says so.
fn remark_dropped(remark: &str, e164: &str, column: String) -> Issue {
    let said = Said::RemarkDropped {
        remark: remark.to_string(),
        column: column.clone(),
        e164: e164.to_string(),
    };
    Issue::said(IssueCode::RemarkDropped, Some(column), said)
}

/// A campaign named but not looked up (`--offline`): its normalized name stands in for the id.
fn unchecked_key(text: &str) -> u64 {
    let hash = blake3::hash(name_key(text).as_bytes());
    u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes")) | (1 << 63)
}

/// Marks later rows with the same number in the same campaign as duplicates of the first.
///
/// This map is the one thing that grows with the file, so an entry is kept to 16 bytes: the
/// E.164 digits (under 2^50) and a dense campaign index packed into one `u64`, and the row as a
/// `u32`. The rare key that does not pack goes to a plain map.
pub struct Deduper {
    first_row: HashMap<u64, u32, BuildHasherDefault<SplitMix>>,
    campaign_index: HashMap<u64, u64>,
    overflow: HashMap<(u64, u64), u64>,
    allow_duplicates: bool,
}

const PHONE_BITS: u32 = 50;
const MAX_PACKED_CAMPAIGNS: u64 = 1 << (64 - PHONE_BITS - 1);

impl Deduper {
    pub fn new(allow_duplicates: bool) -> Deduper {
        Deduper {
            first_row: HashMap::default(),
            campaign_index: HashMap::new(),
            overflow: HashMap::new(),
            allow_duplicates,
        }
    }

    /// Takes rows in file order and returns their final verdict.
    pub fn admit(&mut self, checked: Checked) -> RowReport {
        let mut report = checked.report;
        let Some(key) = checked.key else { return report };
        if self.allow_duplicates {
            return report;
        }
        if let Some(first) = self.first_seen(key, report.row) {
            report.status = RowStatus::Duplicate;
            let e164 = report.phone.clone().unwrap_or_default();
            let said = Said::DuplicateInFile { e164, first_row: first };
            let field = Some("phone_number".to_string());
            report.errors.push(Issue::said(IssueCode::DuplicateInFile, field, said));
        }
        report
    }

    /// The row that first had `key`, or `None` after recording `row` as the first.
    fn first_seen(&mut self, (campaign, phone): (u64, u64), row: u64) -> Option<u64> {
        let next = self.campaign_index.len() as u64;
        let index = *self.campaign_index.entry(campaign).or_insert(next);
        let packs =
            index < MAX_PACKED_CAMPAIGNS && phone < (1 << PHONE_BITS) && row <= u64::from(u32::MAX);
        if !packs {
            return match self.overflow.entry((campaign, phone)) {
                Entry::Occupied(first) => Some(*first.get()),
                Entry::Vacant(slot) => {
                    slot.insert(row);
                    None
                }
            };
        }
        match self.first_row.entry(phone | (index << PHONE_BITS)) {
            Entry::Occupied(first) => Some(u64::from(*first.get())),
            Entry::Vacant(slot) => {
                slot.insert(row as u32);
                None
            }
        }
    }
}

/// splitmix64's finalizer: a fast, well-mixed hash for integer keys (SipHash's protection
/// against crafted keys buys nothing for a local file and costs a tenth of the dedupe time).
#[derive(Default)]
pub struct SplitMix(u64);

impl Hasher for SplitMix {
    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
}

/// Whether `shown` says the stored whole number `digits` with only signs, spaces and leading
/// zeros around it.
fn dresses(shown: &str, digits: &str) -> bool {
    let shown_digits: String = shown.chars().filter(char::is_ascii_digit).collect();
    digits.bytes().all(|b| b.is_ascii_digit())
        && shown_digits.trim_start_matches('0') == digits.trim_start_matches('0')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book() -> CampaignBook {
        CampaignBook::new([
            (1, "Spring Outreach".to_string()),
            (2, "Renewals".to_string()),
            (3, "renewals ".to_string()),
            (4, "Café Été".to_string()),
        ])
    }

    #[test]
    fn a_format_that_only_dresses_a_phone_s_digits_keeps_them() {
        assert!(dresses("+4915112345678", "4915112345678"));
        assert!(dresses("0151 12345678", "15112345678"));
        assert!(dresses("015112345678", "15112345678"));
        assert!(!dresses("4.915.112.345.678,00", "4915112345678"), "decimals add digits");
        assert!(!dresses("12%", "0.12"), "a fraction is no phone");
        assert!(!dresses("KD-00012", "13"));
    }

    #[test]
    fn campaigns_resolve_by_id_and_by_normalized_name() {
        let book = book();
        assert_eq!(book.resolve(" 1 ").unwrap().id, 1);
        assert_eq!(book.resolve("spring   OUTREACH").unwrap().id, 1);
        // NFD input (e + combining accent) matches the NFC name.
        assert_eq!(book.resolve("cafe\u{301} e\u{301}te\u{301}").unwrap().id, 4);
    }

    #[test]
    fn a_column_of_a_crms_own_campaign_names_names_no_campaign() {
        let crm = ["Frühjahr 2025 Bestandskunden", "Messe Q3", ""];
        assert!(!book().names_any(crm));
        assert!(book().names_any(["Messe Q3", "spring outreach"]));
        assert!(book().names_any(["", " "]), "nothing filled: nothing to judge");
        assert!(CampaignBook::default().names_any(crm), "no service: cannot say no");
    }

    #[test]
    fn a_crm_campaign_column_is_taken_as_a_variable_and_a_real_one_is_kept() {
        let headers = vec!["Name".to_string(), "Kampagne".to_string()];
        let rows = |v: &str| vec![vec!["Anna".to_string(), v.to_string()]];
        let file =
            || MappingFile { campaign_column: Some("Kampagne".into()), ..Default::default() };
        let mut crm = file();
        let said = book().unname_campaign_column(&mut crm, &headers, &rows("Frühjahr 2025"));
        assert_eq!(said, Some(("Kampagne".into(), "Frühjahr 2025".into())));
        assert_eq!(crm.campaign_column, None);
        assert_eq!(crm.variables["kampagne"], Columns::One("Kampagne".into()));
        let mut real = file();
        assert_eq!(book().unname_campaign_column(&mut real, &headers, &rows("Renewals ")), None);
        assert_eq!(real.campaign_column.as_deref(), Some("Kampagne"));
    }

    #[test]
    fn unknown_and_ambiguous_campaigns_say_what_to_do() {
        let book = book();
        let issue = book.resolve("Sprng Outreach").unwrap_err();
        assert_eq!(issue.code, IssueCode::UnknownCampaign);
        assert!(
            issue.message.contains("did you mean `Spring Outreach` (id 1)"),
            "{}",
            issue.message
        );
        let issue = book.resolve("RENEWALS").unwrap_err();
        assert_eq!(issue.code, IssueCode::AmbiguousCampaign);
        assert!(issue.message.contains("ids 2, 3"), "{}", issue.message);
    }

    #[test]
    fn later_rows_are_duplicates_of_the_first() {
        let mut dedupe = Deduper::new(false);
        let row = |n: u64| Checked {
            report: RowReport {
                row: n,
                status: RowStatus::Valid,
                phone: Some("+4915112345678".into()),
                campaign_id: Some(1),
                record_id: None,
                lead_id: None,
                variables: Default::default(),
                errors: vec![],
                warnings: vec![],
                secondary_contacts: vec![],
                source_cells: vec![],
                region: None,
                campaign_name: None,
                number_type: None,
            },
            key: Some((1, 4915112345678)),
        };
        assert_eq!(dedupe.admit(row(2)).status, RowStatus::Valid);
        let dup = dedupe.admit(row(7));
        assert_eq!(dup.status, RowStatus::Duplicate);
        assert!(dup.errors[0].message.contains("row 2"));
        let mut allow = Deduper::new(true);
        allow.admit(row(2));
        assert_eq!(allow.admit(row(7)).status, RowStatus::Valid);
    }

    #[test]
    fn dedupe_keys_pack_without_collisions_and_overflow_safely() {
        let mut dedupe = Deduper::new(false);
        assert_eq!(dedupe.first_seen((7, 4915112345678), 2), None);
        assert_eq!(
            dedupe.first_seen((8, 4915112345678), 3),
            None,
            "another campaign is no duplicate"
        );
        assert_eq!(dedupe.first_seen((7, 4915112345678), 9), Some(2));
        // Keys that do not pack (huge row numbers, far too many campaigns) still dedupe.
        assert_eq!(dedupe.first_seen((7, 4930123456), u64::from(u32::MAX) + 5), None);
        assert_eq!(
            dedupe.first_seen((7, 4930123456), u64::from(u32::MAX) + 9),
            Some(u64::from(u32::MAX) + 5)
        );
        for campaign in 100..100 + MAX_PACKED_CAMPAIGNS + 2 {
            dedupe.first_seen((campaign, 1), 2);
        }
        let last = 100 + MAX_PACKED_CAMPAIGNS + 1;
        assert_eq!(dedupe.first_seen((last, 1), 5), Some(2));
        assert_eq!(dedupe.first_seen((last, 2), 5), None);
    }
}
