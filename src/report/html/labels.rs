//! The words the HTML page uses for statuses, issue codes, campaigns, countries and number
//! types, in the page's language (the catalog's, see `crate::row`).

use super::super::model::{IssueCode, RowStatus};
use super::Esc;
use super::tally::NONE;
use crate::phone::NumberType;
use crate::row::{Lang, number_kind};

pub(super) fn status(status: RowStatus, lang: Lang) -> &'static str {
    status.word(lang)
}

pub(super) fn reason(code: IssueCode, lang: Lang) -> &'static str {
    code.title(lang)
}

fn no_valid_number(lang: Lang) -> String {
    match lang {
        Lang::En => "No valid number",
        Lang::De => "Keine gültige Nummer",
    }
    .to_string()
}

/// A campaign's name as HTML.
pub(super) fn campaign(name: &str, lang: Lang) -> String {
    match (name, lang) {
        (NONE, Lang::En) => "No campaign".to_string(),
        (NONE, Lang::De) => "Keine Kampagne".to_string(),
        (name, _) => Esc(name).to_string(),
    }
}

/// A number type's label (as the tally keeps it, in English) as HTML in `lang`.
pub(super) fn number_type(label: &str, lang: Lang) -> String {
    if label == NONE {
        return no_valid_number(lang);
    }
    let kind = crate::phone::BLOCKABLE
        .into_iter()
        .chain([NumberType::FixedLineOrMobile, NumberType::Unknown])
        .find(|kind| kind.label() == label);
    match kind {
        Some(kind) => Esc(number_kind(kind, lang)).to_string(),
        None => Esc(label).to_string(),
    }
}

/// `DE` → `Germany` with the code underneath, as HTML; other codes are shown as they are.
/// The names are English: in German the code is shown alone, as people write it there too.
pub(super) fn country(region: &str, lang: Lang) -> String {
    if region == NONE {
        return no_valid_number(lang);
    }
    match crate::phone::country_name(region).filter(|_| lang == Lang::En) {
        Some(name) => format!("{}<small>{}</small>", Esc(name), Esc(region)),
        None => Esc(region).to_string(),
    }
}
