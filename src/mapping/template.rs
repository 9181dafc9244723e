//! `leadsync init`: a mapping written out as commented TOML for a person to review.

use std::fmt::Write;

use super::file::{CampaignRef, Columns, ContactSpec, MappingFile, PhoneColumns, SheetRef};

/// The mapping as a TOML file with a comment on every part, headers listed for reference.
pub fn render_template(file: &MappingFile, source_name: &str, headers: &[String]) -> String {
    render_template_with(file, source_name, headers, &[])
}

/// [`render_template`] with variables no column was found for, written commented under
/// `[variables]` as `name = "…"`, each with its note: a person names the column.
pub fn render_template_with(
    file: &MappingFile,
    source_name: &str,
    headers: &[String],
    commented: &[(String, String)],
) -> String {
    let mut out = String::new();
    let q = one_line;
    let source_name = comment_text(source_name);
    let _ = writeln!(out, "# leadsync mapping for {source_name}");
    let _ = writeln!(out, "# Written by `leadsync init`: check every line, then run");
    let _ = writeln!(out, "#   leadsync import {source_name} --mapping THIS_FILE --dry-run");
    let _ = writeln!(
        out,
        "# Columns found: {}",
        headers.iter().map(|h| q(h.trim())).collect::<Vec<_>>().join(", ")
    );
    let _ = writeln!(out);
    if let Some(sheet) = &file.sheet {
        let value = match sheet {
            SheetRef::Index(i) => i.to_string(),
            SheetRef::Name(n) => q(n),
        };
        let _ = writeln!(out, "# Workbook sheet, by name or 1-based position.\nsheet = {value}\n");
    }
    let _ = writeln!(
        out,
        "# Column with the main phone number, or several: the first one filled is used."
    );
    match &file.phone {
        Some(PhoneColumns::One(phone)) => writeln!(out, "phone = {}", q(phone)),
        Some(PhoneColumns::FirstFilled(phones)) => {
            let list = phones.iter().map(|p| q(p)).collect::<Vec<_>>().join(", ");
            writeln!(out, "phone = [{list}]")
        }
        None => writeln!(out, "# phone = \"…\"   # no phone column recognised: name it here"),
    }
    .ok();
    let _ = writeln!(out, "\n# Country for numbers written without a country code (ISO code).");
    let _ = writeln!(out, "region = {}", q(file.region.as_deref().unwrap_or("DE")));
    let _ = writeln!(
        out,
        "\n# Campaign: a column holding an id or name per row, or one campaign for all rows."
    );
    match (&file.campaign_column, &file.campaign) {
        (_, Some(CampaignRef::Id(id))) => writeln!(out, "campaign = {id}"),
        (_, Some(CampaignRef::Name(name))) => writeln!(out, "campaign = {}", q(name)),
        (Some(col), None) => writeln!(out, "campaign_column = {}\n# campaign = 17", q(col)),
        (None, None) => {
            writeln!(out, "# campaign_column = \"…\"\n# campaign = 17   # or a campaign name")
        }
    }
    .ok();
    let _ = writeln!(
        out,
        "\n# Who a lead is: its campaign and number, or with a column of your CRM's record id,\n# its campaign and that id, whatever its number."
    );
    let _ = match &file.id {
        Some(column) => writeln!(out, "id = {}", q(column)),
        None => writeln!(out, "# id = \"Kunden-Nr\""),
    };
    let phones: Vec<String> = file
        .secondary_contacts
        .iter()
        .filter_map(|c| match c {
            ContactSpec::Phone(p) => Some(q(p)),
            ContactSpec::Table(_) => None,
        })
        .collect();
    let _ = writeln!(out, "\n# Further phone columns, sent as secondary contacts of the lead.");
    if phones.is_empty() {
        let _ = writeln!(out, "# secondary_contacts = [\"Phone 2\"]");
    } else {
        let _ = writeln!(out, "secondary_contacts = [{}]", phones.join(", "));
    }
    let _ = writeln!(
        out,
        "# or with variables of their own:\n# [[secondary_contacts]]\n# phone = \"Phone 2\"\n# variables = {{ customer_name = \"Contact 2\" }}"
    );
    if let Some(assistant) = &file.assistant {
        let value = match assistant {
            CampaignRef::Id(id) => id.to_string(),
            CampaignRef::Name(name) => q(name),
        };
        let _ = writeln!(
            out,
            "\n# The assistant that calls the leads: each row is checked for the variables it uses.\nassistant = {value}\n# missing_variables = \"warn\"   # an empty one is a warning, not an error"
        );
    }
    let _ = writeln!(
        out,
        "\n# Carry every other column as a variable named after its header in snake_case."
    );
    let _ = writeln!(out, "carry_unmapped = {}", file.carry_unmapped);
    let _ = writeln!(
        out,
        "\n# What `sync` does with a lead whose row left the sheet (keep, stop or delete), and with\n# one whose row now says do not call (stop or keep); at most max_removed removals a run\n# (default: 10% of the source's leads, at least 5).\n# on_removed = \"stop\"\n# on_suppressed = \"stop\"\n# max_removed = 20"
    );
    let _ = writeln!(
        out,
        "\n# Rows hidden in a workbook (by hand or by its filter) are skipped; \"read\" sends them.\n# hidden_rows = \"read\""
    );
    // Last of the top-level keys: `[consent]` opens a table.
    write_guards(&mut out, file);
    let _ =
        writeln!(out, "\n# Lead variables: variable = column, or [columns] joined with a space.");
    let _ = writeln!(out, "[variables]");
    for (name, cols) in &file.variables {
        let value = match cols {
            Columns::One(h) => q(h),
            Columns::Joined(hs) => {
                format!("[{}]", hs.iter().map(|h| q(h)).collect::<Vec<_>>().join(", "))
            }
        };
        let _ = writeln!(out, "{} = {value}", toml_key(name));
    }
    for (name, note) in commented {
        let _ = writeln!(out, "# {} = \"…\"   # {note}", toml_key(name));
    }
    let _ = writeln!(
        out,
        "\n# Variables with the same value on every lead.\n[constants]\n# source = \"spring fair\""
    );
    out
}

/// Who may be called: proposed where a column was recognised, commented out otherwise.
fn write_guards(out: &mut String, file: &MappingFile) {
    let q = |s: &str| toml::Value::String(s.to_string()).to_string();
    let list = |items: &[String]| items.iter().map(|s| q(s)).collect::<Vec<_>>().join(", ");
    let _ = writeln!(out, "\n# Who may be called (docs/guide.md, \"Who gets called\").");
    let _ = writeln!(out, "# Each row's country, for numbers written without a country code.");
    match &file.region_column {
        Some(col) => writeln!(out, "region_column = {}", q(col)),
        None => writeln!(out, "# region_column = \"Country\""),
    }
    .ok();
    let _ = writeln!(out, "# Do-not-call lists (files or URLs, paths relative to this file).");
    match file.suppress.as_slice() {
        [] => writeln!(out, "# suppress = [\"dnc.csv\"]"),
        lists => writeln!(out, "suppress = [{}]", list(lists)),
    }
    .ok();
    let _ = writeln!(out, "# Countries numbers may belong to; others are rejected.");
    match file.countries.as_slice() {
        [] => writeln!(out, "# countries = [\"DE\", \"AT\", \"CH\"]"),
        countries => writeln!(out, "countries = [{}]", list(countries)),
    }
    .ok();
    let _ = writeln!(out, "# Number types never called (premium_rate when left out; [] for none).");
    match &file.block_number_types {
        Some(types) => writeln!(out, "block_number_types = [{}]", list(types)),
        None => writeln!(out, "# block_number_types = [\"premium_rate\"]"),
    }
    .ok();
    match &file.consent {
        Some(consent) => {
            let _ = writeln!(out, "# Only rows whose consent cell holds one of the values.");
            let _ = writeln!(out, "[consent]\ncolumn = {}", q(&consent.column));
            let _ = writeln!(out, "values = [{}]", list(&consent.values));
        }
        None => {
            let _ = writeln!(
                out,
                "# [consent]\n# column = \"Opt-in\"\n# values = [\"yes\", \"ja\", \"x\"]"
            );
        }
    }
}

fn toml_key(key: &str) -> String {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        key.to_string()
    } else {
        one_line(key)
    }
}

/// `text` as a TOML basic string on one line: a header with a line break (Alt+Enter in Excel)
/// must neither end a comment it stands in nor become a multi-line string a key cannot be.
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `text` for a comment line: line breaks and other control characters as spaces.
fn comment_text(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::infer;

    #[test]
    fn the_template_parses_back_to_the_same_mapping() {
        let headers: Vec<String> = [
            "Vorname",
            "Nachname",
            "Telefon",
            "Handy",
            "Kampagne",
            "E-Mail",
            "Firma \"X\"",
            "Land",
            "Opt-in",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (mut file, _) = infer(&headers);
        file.region = Some("DE".into());
        let text = render_template(&file, "leads.csv", &headers);
        let back = MappingFile::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back, file, "{text}");
        assert!(text.contains("# Columns found:"));
        assert!(text.contains("\nphone = [\"Telefon\", \"Handy\"]\n"), "{text}");
        // A record id column comes back too.
        file.id = Some("Firma \"X\"".into());
        let text = render_template(&file, "leads.csv", &headers);
        assert_eq!(MappingFile::parse(&text).unwrap(), file, "{text}");
    }

    /// Headers as people type them: a line break (Alt+Enter), quotes, a backslash, a `#`, a
    /// tab; each becomes a variable, the phone, the campaign and the id in turn.
    #[test]
    fn headers_with_line_breaks_quotes_and_hashes_parse_back() {
        let odd =
            ["Tele\nfon", "Firma \"X\"", "Pfad\\x", "Notiz #1", "Tab\there", "'\"\"\"'", "Z\u{7}"];
        let mut headers: Vec<String> = vec!["Name".into(), "Telefon".into(), "Kampagne".into()];
        headers.extend(odd.iter().map(|h| h.to_string()));
        let (mut file, _) = infer(&headers);
        file.region = Some("DE".into());
        for header in odd {
            file.variables.insert(header.to_string(), Columns::One(header.to_string()));
        }
        for phone in odd {
            file.phone = Some(PhoneColumns::One(phone.to_string()));
            file.campaign_column = Some(odd[1].to_string());
            file.id = Some(odd[3].to_string());
            let text = render_template(&file, "a\nb.csv", &headers);
            let back = MappingFile::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(back, file, "{text}");
        }
    }

    /// Every header of the repository's fixtures, inferred and written: it parses back.
    #[test]
    fn the_template_of_every_fixture_parses_back() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut read = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let options = crate::source::SourceOptions::default();
            let Ok(source) = crate::source::Source::open(&path, &options) else { continue };
            let (mut file, _) = infer(&source.headers);
            // The template writes the default country; so does a person's review.
            file.region.get_or_insert_with(|| "DE".into());
            let text = render_template(&file, &path.display().to_string(), &source.headers);
            let back = MappingFile::parse(&text);
            assert_eq!(back.ok().as_ref(), Some(&file), "{}:\n{text}", path.display());
            read += 1;
        }
        assert!(read >= 10, "only {read} fixtures read");
    }
}
