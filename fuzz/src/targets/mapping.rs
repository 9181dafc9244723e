//! Mapping TOML parsing and header inference. The input is a mapping file, then a line `---`,
//! then one header per line. The parsed mapping is resolved against the headers and applied to
//! a row; the inferred one is also written out as `leadsync init` does, and must read back as
//! the same mapping (its default region spelled out), or `init` would hand users a file that `import` refuses or reads
//! differently.

use leadsync::mapping::{MappingFile, Plan, infer, render_template};

use crate::Target;

pub const SEPARATOR: &str = "\n---\n";

pub const TARGET: Target = Target {
    name: "mapping",
    run,
    dictionary: &[
        b"\n---\n",
        b"phone = \"",
        b"campaign = ",
        b"campaign_column = \"",
        b"region = \"",
        b"sheet = ",
        b"header_row = ",
        b"delimiter = \"",
        b"encoding = \"",
        b"carry_unmapped = true",
        b"[variables]\n",
        b"[constants]\n",
        b"[[secondary_contacts]]\n",
        b"secondary_contacts = [",
        b"= [\"",
        b"\"]",
        b"\"\"\"",
        b"'''",
        b"\\u",
        b"Telefon",
        b"Phone 2",
        b"E-Mail",
        b"Vorname",
        b"Kampagne",
        b"\xef\xbb\xbf",
        b"#",
    ],
    max_len: 16 * 1024,
};

fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (toml, headers) = text.split_once(SEPARATOR).unwrap_or((&text, ""));
    let headers: Vec<String> = headers.lines().map(str::to_owned).collect();
    if let Ok(mapping) = MappingFile::parse(toml) {
        let _ = mapping.delimiter_byte();
        if let Ok(plan) = mapping.resolve(&headers, "fuzz.csv") {
            apply(&plan, &headers);
        }
    }
    let (inferred, _notes) = infer(&headers);
    let written = render_template(&inferred, "fuzz.csv", &headers);
    // `init` spells out the default region, which is the only difference allowed.
    let expected =
        MappingFile { region: inferred.region.clone().or(Some("DE".into())), ..inferred.clone() };
    match MappingFile::parse(&written) {
        Ok(read_back) => assert_eq!(read_back, expected, "init wrote:\n{written}"),
        Err(e) => panic!("the mapping init wrote does not parse: {e}\n{written}"),
    }
    if let Ok(plan) = inferred.resolve(&headers, "fuzz.csv") {
        apply(&plan, &headers);
    }
}

/// Uses every part of a plan on a row made of the headers themselves.
fn apply(plan: &Plan, headers: &[String]) {
    let row = csv::StringRecord::from(headers.to_vec());
    let _ = plan.phone_cell(&row);
    let _ = plan.campaign_text(&row);
    let _ = plan.variables(&row);
    let _ = plan.contacts(&row).count();
}
