//! How people keep phone numbers in a sheet, through the binary: a second
//! phone column to fall back on, a remark after the number, a number Excel cut short in
//! scientific notation, and a country cell leadsync does not know.

use std::path::Path;

use serde_json::Value;

use crate::import::{assert_schema, dry_run};
use crate::support::{Cli, write};

/// Row number → (status, E.164 number, the codes of its errors and warnings).
fn verdicts(report: &Value) -> Vec<(u64, String, Option<String>, Vec<String>)> {
    let codes = |row: &Value| -> Vec<String> {
        let issues = row["errors"].as_array().unwrap().iter();
        let issues = issues.chain(row["warnings"].as_array().unwrap());
        issues.map(|i| i["code"].as_str().unwrap().to_string()).collect()
    };
    let mut rows: Vec<_> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let status = r["status"].as_str().unwrap().to_string();
            (r["row"].as_u64().unwrap(), status, r["phone"].as_str().map(String::from), codes(r))
        })
        .collect();
    rows.sort();
    rows
}

fn verdict(row: u64, status: &str, phone: Option<&str>, codes: &[&str]) -> VerdictRow {
    (row, status.into(), phone.map(String::from), codes.iter().map(|c| c.to_string()).collect())
}

type VerdictRow = (u64, String, Option<String>, Vec<String>);

fn row(report: &Value, number: u64) -> &Value {
    report["rows"].as_array().unwrap().iter().find(|r| r["row"] == number).unwrap()
}

fn first_message(row: &Value, list: &str) -> String {
    row[list][0]["message"].as_str().unwrap().to_string()
}

const TWO_PHONE_COLUMNS: &str = "\
Name,Telefon,Mobil
Ada,030 1234567,0151 11111111
Bob,,0151 22222222
Cem,-,0151 33333333
Dan,,
";

/// Telefon empty, Mobil filled: the mobile is called, and not twice. `init` proposes the list,
/// the inferred mapping of a plain import uses it, and so does a written one.
#[test]
fn a_second_phone_column_is_the_fallback_of_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let sheet = write(dir.path(), "kunden.csv", TWO_PHONE_COLUMNS);
    let (template, _) = Cli::new().args(["init"]).args([&sheet]).ok();
    assert!(template.contains("\nphone = [\"Telefon\", \"Mobil\"]\n"), "{template}");
    assert!(template.contains("\nsecondary_contacts = [\"Mobil\"]\n"), "{template}");

    let (report, err) = dry_run(&sheet, &[], 3);
    assert!(err.contains("else the first of `Mobil` that is filled"), "{err}");
    assert!(err.contains("phone = [\"Telefon\", \"Mobil\"] takes the first one filled"), "{err}");
    assert_eq!(
        verdicts(&report),
        [
            verdict(2, "valid", Some("+49301234567"), &[]),
            verdict(3, "valid", Some("+4915122222222"), &[]),
            verdict(4, "valid", Some("+4915133333333"), &[]),
            verdict(5, "rejected", None, &["missing_phone"]),
        ]
    );
    // Telefon filled: Mobil is the lead's second number; Telefon empty: Mobil is the number,
    // and no contact repeats it.
    let contacts = |n: u64| row(&report, n)["secondary_contacts"].as_array().unwrap().clone();
    assert_eq!(contacts(2).len(), 1);
    assert_eq!(contacts(2)[0]["phone"], "+4915111111111");
    assert!(contacts(3).is_empty() && contacts(4).is_empty());
    assert_eq!(first_message(row(&report, 5), "errors"), "no phone number in `Telefon` or `Mobil`");
    assert_schema(&report);

    let mapping = write(dir.path(), "m.toml", "phone = [\"Telefon\", \"Mobil\"]\n");
    let mapping = mapping.to_str().unwrap();
    let (report, _) = dry_run(&sheet, &["--mapping", mapping], 3);
    let statuses: Vec<_> = verdicts(&report).into_iter().map(|v| (v.1, v.2)).collect();
    assert_eq!(
        statuses,
        [
            ("valid".to_string(), Some("+49301234567".to_string())),
            ("valid".into(), Some("+4915122222222".into())),
            ("valid".into(), Some("+4915133333333".into())),
            ("rejected".into(), None),
        ]
    );
}

/// A number followed by a remark is sent, and the remark is a warning on the row; words that
/// follow no valid number are still no number.
#[test]
fn a_number_followed_by_a_remark_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let sheet = write(
        dir.path(),
        "leads.csv",
        "Name,Phone\n\
         Ada,0172 1234567 (privat)\n\
         Bob,030 1234567 (Zentrale)\n\
         Cem,+49 151 12345678 / WhatsApp\n\
         Dan,0151 CALL ME\n\
         Eva,\"030 7654321, nur vormittags\"\n",
    );
    let (report, _) = dry_run(&sheet, &[], 3);
    assert_eq!(
        verdicts(&report),
        [
            verdict(2, "valid", Some("+491721234567"), &["remark_dropped"]),
            verdict(3, "valid", Some("+49301234567"), &["remark_dropped"]),
            verdict(4, "valid", Some("+4915112345678"), &["remark_dropped"]),
            verdict(5, "rejected", None, &["invalid_phone"]),
            verdict(6, "valid", Some("+49307654321"), &["remark_dropped"]),
        ]
    );
    let remark = first_message(row(&report, 2), "warnings");
    assert_eq!(remark, "`(privat)` after the number in `Phone` is not sent: +491721234567 is");
    assert!(first_message(row(&report, 4), "warnings").starts_with("`WhatsApp` after"));
    assert_schema(&report);
}

/// `4,91511E+12`: the digits are gone, and the row says so and what to do, not "not a phone
/// number". A number Excel stored as a number, read from the workbook, is whole and fine.
#[test]
fn a_number_excel_cut_short_in_scientific_notation_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let sheet = write(
        dir.path(),
        "export.csv",
        "Name;Telefon\nAda;4,91511E+12\nBob;4.91511E+12\nCem;4915112345678\n",
    );
    let (report, err) = dry_run(&sheet, &[], 3);
    assert_eq!(
        verdicts(&report),
        [
            verdict(2, "rejected", None, &["scientific_notation"]),
            verdict(3, "rejected", None, &["scientific_notation"]),
            verdict(4, "valid", Some("+4915112345678"), &[]),
        ]
    );
    assert_eq!(
        first_message(row(&report, 2), "errors"),
        "`4,91511E+12` in `Telefon`: Excel stored this number in scientific notation and dropped its last digits; format the column as text and type it again"
    );
    assert!(err.contains("scientific_notation"), "{err}");
    assert_schema(&report);

    // samples/kunden.xlsx stores 4915798765432 as a number: read as the whole number.
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/kunden.xlsx");
    let (report, _) = dry_run(&sample, &["--allow-duplicates"], 3);
    let whole = report["rows"].as_array().unwrap().iter().find(|r| r["phone"] == "+4915798765432");
    assert_eq!(whole.map(|r| r["status"].clone()), Some("valid".into()), "{report:#}");
}

/// A country cell leadsync does not know: a national number is refused, never read in the
/// default region (where `030 1234567` is someone in Berlin); a number with its country code
/// is read as written. Countries named in their own language are known.
#[test]
fn an_unknown_country_never_reads_a_national_number_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let sheet = write(
        dir.path(),
        "leads.csv",
        "Name,Telefon,Land\n\
         Ola,512 345 678,Polska\n\
         Sven,070 123 45 67,Sverige\n\
         Jana,601 123 456,Česko\n\
         Eleni,21 0123 4567,Ελλάδα\n\
         Ari,030 1234567,Atlantis\n\
         Bea,+49 30 7654321,Atlantis\n\
         Cy,0151 12345678,Xyzzy\n",
    );
    let mapping = write(dir.path(), "m.toml", "phone = \"Telefon\"\nregion_column = \"Land\"\n");
    let (report, _) = dry_run(&sheet, &["--mapping", mapping.to_str().unwrap()], 3);
    assert_eq!(
        verdicts(&report),
        [
            verdict(2, "valid", Some("+48512345678"), &[]),
            verdict(3, "valid", Some("+46701234567"), &[]),
            verdict(4, "valid", Some("+420601123456"), &[]),
            verdict(5, "valid", Some("+302101234567"), &[]),
            verdict(6, "rejected", None, &["unknown_country"]),
            verdict(7, "valid", Some("+49307654321"), &["unknown_country"]),
            verdict(8, "rejected", None, &["unknown_country"]),
        ]
    );
    assert_eq!(
        first_message(row(&report, 6), "errors"),
        "`Atlantis` in `Land` is no country leadsync knows, and `030 1234567` has no country code: it is not read in another country"
    );
    assert_schema(&report);
}
