//! Everything the person chose on the Mapping page, in one place: the page is one form, so
//! whichever button she presses (update the preview, check every row, save, download, add a
//! suppression list, load a mapping file) sends every choice on it, and this module turns those
//! fields into the one mapping file the check, the saved mapping and the download all use, and
//! back (a loaded or saved mapping into the page's fields). There is no hidden "apply" step.

use super::super::App;
use super::super::sources::Chosen;
use super::super::text::Text;
use super::mapping::{headers_and_mapping, roles_pairs};
use super::{ReadingChoice, field};
use crate::mapping::{AssistantRef, CampaignRef, MappingFile, SheetRef, roles_of};
use crate::phone::NumberType;
use crate::pipeline::ImportOptions;

/// Fields that belong to one press of a button, not to the choices a page carries on.
const TRANSIENT: &[&str] = &["save_name", "lang", super::super::guard::SECRET_PARAM];

/// The form's fields worth carrying to the next page (the way back from the check, the page
/// after a save or an upload): every choice, none of the one-off fields.
pub(super) fn carried(pairs: &[(String, String)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .filter(|(k, v)| !TRANSIENT.contains(&k.as_str()) && !v.is_empty())
        .cloned()
        .collect()
}

/// The fields as a query string (empty ones left out, as `page::query` leaves them).
pub(super) fn as_query(pairs: &[(String, String)]) -> String {
    super::super::page::query(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
}

/// The whole mapping the form describes: the columns' roles, the reading choices, the
/// assistant, the campaign, the country of national numbers and who may be called. What the
/// check uses is what this returns, so a saved mapping or a download holds exactly that.
pub(super) async fn full_mapping(
    app: &App,
    chosen: &Chosen,
    pairs: &[(String, String)],
    t: &Text,
) -> Result<(Vec<String>, MappingFile), String> {
    let choice = ReadingChoice::from_pairs(pairs);
    let (headers, mut mapping) = headers_and_mapping(chosen, &choice, pairs, t).await?;
    let mut opts = ImportOptions::default();
    super::callable::apply(app, pairs, &mut mapping, &mut opts, t)?;
    mapping.countries = opts.countries.unwrap_or_default();
    mapping.suppress = opts.suppress;
    let text = |name: &str| Some(field(pairs, name).trim().to_string()).filter(|s| !s.is_empty());
    if let Some(campaign) = text("campaign") {
        mapping.campaign = Some(CampaignRef::parse(&campaign));
    }
    if let Some(region) = text("region") {
        mapping.region = Some(region);
    }
    mapping.assistant = text("assistant").map(|a| AssistantRef::parse(&a));
    mapping.header_row = choice.header_row.trim().parse().ok().filter(|&n: &u64| n >= 1);
    mapping.sheet = text("sheet").map(SheetRef::Name);
    mapping.delimiter = text("delimiter");
    mapping.encoding = text("encoding");
    Ok((headers, mapping))
}

/// A mapping file as the page's fields: its roles for these headers and every setting the
/// page shows, so a loaded or saved mapping fills the whole page, not only the roles.
pub(super) fn pairs_of(app: &App, file: &MappingFile, headers: &[String]) -> Vec<(String, String)> {
    let mut out = reading_pairs(file);
    let mut push = |k: &str, v: String| out.push((k.to_string(), v));
    for (k, v) in roles_pairs(&roles_of(file, headers)) {
        push(&k, v);
    }
    if let Some(assistant) = &file.assistant {
        push("assistant", assistant.as_text());
    }
    if let Some(campaign) = &file.campaign {
        push("campaign", campaign.as_text());
    }
    if let Some(region) = &file.region {
        push("region", region.clone());
    }
    if !file.countries.is_empty() {
        push("countries", file.countries.join(", "));
    }
    if let Some(blocked) = &file.block_number_types {
        push("block_shown", "1".to_string());
        for kind in blocked.iter().filter_map(|name| NumberType::parse(name).ok()) {
            push("block", kind.as_str().to_string());
        }
    }
    if let Some(consent) = &file.consent {
        push("consent_values", consent.values.join(", "));
    }
    for path in &file.suppress {
        if let Some(id) = app.sources.register_existing(std::path::Path::new(path)) {
            push(super::callable::SUPPRESS, id);
        }
    }
    out
}

/// How a mapping file says to read the sheet (sheet, header row, delimiter, encoding), as the
/// page's fields: the headers its roles are given to are the ones read this way.
pub(super) fn reading_pairs(file: &MappingFile) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |k: &str, v: String| out.push((k.to_string(), v));
    if let Some(SheetRef::Name(sheet)) = &file.sheet {
        push("sheet", sheet.clone());
    }
    if let Some(row) = file.header_row {
        push("header_row", row.to_string());
    }
    if let Some(delimiter) = &file.delimiter {
        push("delimiter", delimiter.clone());
    }
    if let Some(encoding) = &file.encoding {
        push("encoding", encoding.clone());
    }
    out
}

/// The form's fields with a mapping file's settings over them: what the file says wins, what
/// it leaves open keeps the person's choice (a file without a campaign keeps the one chosen).
pub(super) fn overlaid(
    form: &[(String, String)],
    file: Vec<(String, String)>,
) -> Vec<(String, String)> {
    let is_role = |k: &str| k.starts_with("role") || k.starts_with("name");
    let set_by_file = |key: &str| file.iter().any(|(k, _)| k == key) || is_role(key);
    let mut kept: Vec<(String, String)> =
        carried(form).into_iter().filter(|(k, _)| !set_by_file(k)).collect();
    kept.extend(file);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn one_off_fields_and_empty_ones_are_not_carried() {
        let form = pairs(&[("role0", "phone"), ("save_name", "weekly"), ("campaign", "")]);
        assert_eq!(carried(&form), pairs(&[("role0", "phone")]));
    }

    #[test]
    fn a_file_overrides_what_it_sets_and_keeps_the_rest() {
        let form = pairs(&[("role0", "ignore"), ("campaign", "7"), ("region", "AT")]);
        let file = pairs(&[("role0", "phone"), ("region", "DE")]);
        let merged = overlaid(&form, file);
        assert_eq!(merged, pairs(&[("campaign", "7"), ("role0", "phone"), ("region", "DE")]));
    }
}
