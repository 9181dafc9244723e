//! Who may be called, through the binary: every guard's code in a dry run and in a push into
//! the sandbox, which must then hold exactly the rows that may be called; a mixed DE/AT/CH/US
//! sheet read row by row in its country; and guards applied again when a run resumes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use leadsync::sandbox::Faults;

use crate::push::journal_lines;
use crate::support::{ALICE, TestSandbox, json, write};

const SHEET: &str = "\
Name,Telefon,Zweitnummer,Land,Opt-in
Ada,0151 11111111,,DE,ja
Bob,0151 22222222,,DE,ja
Cem,0900 1234567,,DE,ja
Eva,0664 1234567,,Österreich,JA
Fay,0151 33333333,,DE,nein
Gus,0151 44444444,0900 1234567,DE,ja
Hal,0151 55555555,0151 22222222,Deutschland,x
Ivy,+49 30 1234567,,Atlantis,ja
Jo,044 668 18 00,,Schweiz,ja
Kim,0151 66666666,+41 44 668 18 01,DE,ja
Lou,0151 88888888,,DE,
Max,0151 77123456,,DE,ja
";

const MAPPING: &str = r#"
phone = "Telefon"
campaign = 10
region = "DE"
secondary_contacts = ["Zweitnummer"]
region_column = "Land"
countries = ["DE", "AT"]
suppress = ["lists/dnc.csv"]
[consent]
column = "Opt-in"
values = ["ja", "x"]
[variables]
customer_name = "Name"
"#;

const DNC: &str = "Telefon\n0151 22222222\n+4915177*\n";

/// Row → (status, the codes of its errors and warnings).
type Verdicts = BTreeMap<u64, (String, BTreeSet<String>)>;

fn verdicts(report: &serde_json::Value) -> Verdicts {
    let codes = |list: &serde_json::Value| -> Vec<String> {
        list.as_array().unwrap().iter().map(|i| i["code"].as_str().unwrap().to_string()).collect()
    };
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let mut all: BTreeSet<String> = codes(&row["errors"]).into_iter().collect();
            all.extend(codes(&row["warnings"]));
            (row["row"].as_u64().unwrap(), (row["status"].as_str().unwrap().to_string(), all))
        })
        .collect()
}

fn expect(status: &str, codes: &[&str]) -> (String, BTreeSet<String>) {
    (status.to_string(), codes.iter().map(|c| c.to_string()).collect())
}

/// What every row of `SHEET` comes to; `sent` is `created` in a push and `valid` in a dry run.
fn wanted(sent: &str) -> Verdicts {
    BTreeMap::from([
        (2, expect(sent, &[])),
        (3, expect("skipped", &["suppressed"])),
        (4, expect("rejected", &["blocked_number_type"])),
        (5, expect(sent, &[])),
        (6, expect("skipped", &["no_consent"])),
        (7, expect(sent, &["blocked_secondary_type"])),
        (8, expect(sent, &["suppressed_secondary"])),
        (9, expect(sent, &["unknown_country"])),
        (10, expect("rejected", &["foreign_number"])),
        (11, expect(sent, &["foreign_secondary"])),
        (12, expect("skipped", &["no_consent"])),
        (13, expect("skipped", &["suppressed"])),
    ])
}

/// The numbers the sandbox must hold after the push, and nothing else.
const CALLED: [&str; 6] = [
    "+4915111111111",
    "+436641234567",
    "+4915144444444",
    "+4915155555555",
    "+49301234567",
    "+4915166666666",
];

fn lay_out(dir: &Path) {
    std::fs::create_dir_all(dir.join("lists")).unwrap();
    write(dir, "leads.csv", SHEET);
    write(dir, "m.toml", MAPPING);
    write(&dir.join("lists"), "dnc.csv", DNC);
}

fn phones_on_service(sb: &TestSandbox) -> BTreeMap<String, Vec<String>> {
    let leads = sb.block_on(sb.client(ALICE).list_leads()).unwrap();
    leads
        .into_iter()
        .map(|l| {
            let contacts = l.secondary_contacts.iter().map(|c| c.phone_number.clone()).collect();
            (l.phone_number, contacts)
        })
        .collect()
}

#[test]
fn every_guard_in_a_dry_run_and_a_push_and_the_service_holds_only_who_may_be_called() {
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    lay_out(dir);
    let import = |extra: &[&str], report: &str| {
        sb.cli(ALICE)
            .args(["import", "leads.csv", "-m", "m.toml", "-q", "--rate", "0", "--report", report])
            .args(extra)
            .expect_code(3)
    };
    import(&["--dry-run"], "dry.json");
    let dry = json(&std::fs::read_to_string(dir.join("dry.json")).unwrap());
    assert_eq!(verdicts(&dry), wanted("valid"), "{dry:#}");
    assert!(phones_on_service(&sb).is_empty(), "a dry run sends nothing");
    let summary = &dry["summary"];
    assert_eq!((summary["do_not_call"].as_u64(), summary["rejected"].as_u64()), (Some(4), Some(2)));

    import(&[], "push.json");
    let push = json(&std::fs::read_to_string(dir.join("push.json")).unwrap());
    assert_eq!(verdicts(&push), wanted("created"), "{push:#}");
    let on_service = phones_on_service(&sb);
    let called: BTreeSet<&str> = on_service.keys().map(String::as_str).collect();
    assert_eq!(called, BTreeSet::from(CALLED));
    // Dropped secondary numbers were not sent either; the Swiss one of a German lead neither.
    assert!(on_service.values().all(|contacts| contacts.is_empty()), "{on_service:?}");
    // Every message names what turned the row away.
    let message = |row: u64| {
        let found = push["rows"].as_array().unwrap().iter().find(|r| r["row"] == row).unwrap();
        found["errors"][0]["message"].as_str().unwrap().to_string()
    };
    assert!(message(3).contains("lists/dnc.csv"), "{}", message(3));
    assert!(message(4).contains("premium-rate"), "{}", message(4));
    assert!(message(10).contains("Switzerland (CH)"), "{}", message(10));
}

#[test]
fn suppressed_and_non_consenting_rows_alone_keep_exit_code_0_and_flags_beat_the_mapping() {
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    lay_out(dir);
    // No premium-rate row: what is left is turned away by design, or called.
    let rows: Vec<&str> = SHEET.lines().filter(|l| !l.starts_with("Cem")).collect();
    write(dir, "leads.csv", &(rows.join("\n") + "\n"));
    write(dir, "more.txt", "0151 66666666\n");
    let (_, err) = sb
        .cli(ALICE)
        .args(["import", "leads.csv", "-m", "m.toml", "--rate", "0", "--report", "r.json"])
        .args(["--suppress", "more.txt", "--countries", "DE,AT,CH"])
        .args(["--suppress", &crate::support::serve("/optouts.txt", b"+4915111111111\n".to_vec())])
        .ok();
    assert!(err.contains("not to be called"), "{err}");
    let report = json(&std::fs::read_to_string(dir.join("r.json")).unwrap());
    let got = verdicts(&report);
    // --suppress adds a list to the mapping's: Kim is on it now, Bob still on the mapping's.
    // A list may be a URL too: Ada's number comes from one.
    assert_eq!(got[&10], expect("skipped", &["suppressed"]));
    assert_eq!(got[&3], expect("skipped", &["suppressed"]));
    assert_eq!(got[&2], expect("skipped", &["suppressed"]), "the list at a URL counts");
    // --countries replaces the mapping's DE, AT: Jo's Swiss number may be called now.
    assert_eq!(got[&9], expect("created", &[]));
    assert_eq!(report["summary"]["do_not_call"], 6, "{report:#}");
    let called: BTreeSet<String> = phones_on_service(&sb).into_keys().collect();
    assert!(called.contains("+41446681800"));
    assert!(!called.contains("+4915166666666") && !called.contains("+4915122222222"));
}

#[test]
fn a_mixed_de_at_ch_us_sheet_reads_each_row_in_its_country() {
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    let sheet = "\
Name,Phone,Country
Zurich,044 668 18 00,Schweiz
Vienna,0664 1234567,AT
Berlin,030 1234567,Deutschland
San Francisco,(415) 555-2671,USA
Already international,+41 44 668 18 01,DE
No country,0664 7654321,
Unknown country,030 7654321,Atlantis
Dialing code,044 668 18 02,0041
Alpha-3,0664 1112223,AUT
Dutch name,020 123 4567,Nederland
";
    write(dir, "mixed.csv", sheet);
    write(
        dir,
        "m.toml",
        "phone = \"Phone\"\ncampaign = 10\nregion = \"DE\"\nregion_column = \"Country\"\n[variables]\ncustomer_name = \"Name\"\n",
    );
    // The row of an unknown country is refused (exit 3): its national number is read nowhere.
    sb.cli(ALICE)
        .args(["import", "mixed.csv", "-m", "m.toml", "-q", "--rate", "0", "--report", "r.json"])
        .expect_code(3);
    let report = json(&std::fs::read_to_string(dir.join("r.json")).unwrap());
    let mut rows = report["rows"].as_array().unwrap().clone();
    rows.sort_by_key(|r| r["row"].as_u64());
    let (refused, rows): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| r["phone"].is_null());
    let refused: Vec<_> = refused.iter().map(|r| (&r["row"], &r["errors"][0]["code"])).collect();
    assert_eq!(refused, [(&8.into(), &"unknown_country".into())]);
    let phones: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r["variables"]["customer_name"].as_str().unwrap(), r["phone"].as_str().unwrap()))
        .collect();
    assert_eq!(
        phones,
        [
            ("Zurich", "+41446681800"),
            ("Vienna", "+436641234567"),
            ("Berlin", "+49301234567"),
            ("San Francisco", "+14155552671"),
            ("Already international", "+41446681801"),
            ("No country", "+496647654321"),
            ("Dialing code", "+41446681802"),
            ("Alpha-3", "+436641112223"),
            ("Dutch name", "+31201234567"),
        ]
    );
    let warned: Vec<u64> = rows
        .iter()
        .filter(|r| {
            r["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "unknown_country")
        })
        .map(|r| r["row"].as_u64().unwrap())
        .collect();
    assert!(warned.is_empty(), "{warned:?}");
    let called: BTreeSet<String> = phones_on_service(&sb).into_keys().collect();
    let wanted: BTreeSet<String> = phones.iter().map(|(_, p)| p.to_string()).collect();
    assert_eq!(called, wanted);
}

/// Waits (bounded) until the service holds `n` leads.
fn wait_for_leads(sb: &TestSandbox, n: usize) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        if sb.block_on(sb.client(ALICE).list_leads()).unwrap().len() >= n {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A run killed partway, then resumed with a suppression list added: the resume is the same
/// run (guards are no part of its identity), no suppressed row is sent by it, and a suppressed
/// row the first run had already created is reported as created, with a warning.
#[test]
fn a_resume_applies_a_suppression_list_added_after_the_interruption() {
    let sb = TestSandbox::with_faults(Faults {
        latency: Duration::from_millis(20),
        ..Faults::default()
    });
    let dir = sb.dir.path().to_path_buf();
    let rows = 60;
    let mut sheet = String::from("Name,Telefon\n");
    for i in 0..rows {
        sheet.push_str(&format!("Kunde {i},0151 40{i:06}\n"));
    }
    write(&dir, "leads.csv", &sheet);
    let state = dir.join("state");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("leadsync"))
        .env("LEADSYNC_BASE_URL", &sb.base_url)
        .env("LEADSYNC_TOKEN", ALICE)
        .env("LEADSYNC_STATE_DIR", &state)
        .current_dir(&dir)
        .args(["import", "leads.csv", "--campaign", "10", "-q", "--rate", "20", "--timeout", "2"])
        // So that a second lead for a number would show: the service refuses it otherwise.
        .arg("--allow-duplicates")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for_leads(&sb, 5);
    child.kill().unwrap();
    child.wait().unwrap();
    let first_run: BTreeMap<String, u64> = sb
        .block_on(sb.client(ALICE).list_leads())
        .unwrap()
        .into_iter()
        .map(|l| (l.phone_number, l.id))
        .collect();
    assert!(first_run.len() >= 5 && first_run.len() < rows, "killed partway: {}", first_run.len());
    let header = journal_lines(&state)[0].clone();

    // Every even row is on the list now.
    let dnc: String = (0..rows).step_by(2).map(|i| format!("+4915140{i:06}\n")).collect();
    write(&dir, "dnc.txt", &dnc);
    sb.cli(ALICE)
        .env("LEADSYNC_STATE_DIR", &state)
        .args(["import", "leads.csv", "--campaign", "10", "-q", "--rate", "0", "--timeout", "2"])
        .args(["--suppress", "dnc.txt", "--report", "r.json", "--allow-duplicates"])
        .ok();
    assert_eq!(journal_lines(&state)[0], header, "the resume continued the killed run");
    let report = json(&std::fs::read_to_string(dir.join("r.json")).unwrap());
    let leads = sb.block_on(sb.client(ALICE).list_leads()).unwrap();
    let mut seen = BTreeSet::new();
    for lead in &leads {
        assert!(seen.insert(lead.phone_number.clone()), "{} twice", lead.phone_number);
    }
    let (mut created_before, mut skipped) = (0, 0);
    let by_row: BTreeMap<u64, &serde_json::Value> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["row"].as_u64().unwrap(), r))
        .collect();
    for i in 0..rows {
        let phone = format!("+4915140{i:06}");
        let row = by_row[&(i as u64 + 2)];
        let suppressed = i % 2 == 0;
        match (suppressed, first_run.get(&phone)) {
            (false, _) => assert!(seen.contains(&phone), "row {i} must be on the service"),
            (true, None) => {
                assert!(!seen.contains(&phone), "suppressed row {i} was sent by the resume");
                assert_eq!(row["status"], "skipped", "{row}");
                skipped += 1;
            }
            (true, Some(id)) => {
                assert_eq!(row["status"], "created", "{row}");
                assert_eq!(row["lead_id"].as_u64(), Some(*id));
                assert_eq!(row["warnings"][0]["code"], "suppressed", "{row}");
                created_before += 1;
            }
        }
    }
    assert!(
        created_before > 0 && skipped > 0,
        "both kinds of suppressed row: {created_before} {skipped}"
    );
}

#[test]
fn block_number_types_can_block_mobiles_and_an_empty_list_blocks_nothing() {
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    let sheet = "Phone\n0151 12345678\n030 1234567\n0900 1234567\n+1 415 555 2671\n";
    write(dir, "types.csv", sheet);
    let run = |types: &str, report: &str, code: i32| {
        write(
            dir,
            "m.toml",
            &format!("phone = \"Phone\"\ncampaign = 10\nblock_number_types = {types}\n"),
        );
        for extra in [&["--dry-run"][..], &[]] {
            sb.cli(ALICE)
                .args([
                    "import",
                    "types.csv",
                    "-m",
                    "m.toml",
                    "-q",
                    "--rate",
                    "0",
                    "--report",
                    report,
                ])
                .args(extra)
                .expect_code(code);
        }
        verdicts(&json(&std::fs::read_to_string(dir.join(report)).unwrap()))
    };
    // Mobiles blocked: the German mobile and the US number that may be a mobile.
    let got = run(r#"["mobile"]"#, "mobile.json", 3);
    assert_eq!(got[&2], expect("rejected", &["blocked_number_type"]));
    assert_eq!(got[&3], expect("created", &[]));
    assert_eq!(got[&4], expect("created", &[]), "premium rate is allowed when the list omits it");
    assert_eq!(got[&5], expect("rejected", &["blocked_number_type"]));
    let called: BTreeSet<String> = phones_on_service(&sb).into_keys().collect();
    assert_eq!(called, BTreeSet::from(["+49301234567".to_string(), "+499001234567".to_string()]));
    // Nothing blocked: the two numbers still missing are created now (the other two are on
    // the service already).
    let got = run("[]", "none.json", 0);
    assert_eq!((&got[&2], &got[&5]), (&expect("created", &[]), &expect("created", &[])));
    assert_eq!(phones_on_service(&sb).len(), 4);
    // An unknown type is a mapping error that lists the names.
    write(dir, "m.toml", "phone = \"Phone\"\ncampaign = 10\nblock_number_types = [\"premium\"]\n");
    let (_, err) = sb
        .cli(ALICE)
        .args(["import", "types.csv", "-m", "m.toml", "--dry-run", "--offline"])
        .expect_code(1);
    assert!(err.contains("`premium`") && err.contains("premium_rate"), "{err}");
}

#[test]
fn init_proposes_the_country_and_consent_columns_and_an_inferred_run_does_not_apply_them() {
    let sb = TestSandbox::start();
    let dir = sb.dir.path();
    write(dir, "leads.csv", "Name,Telefon,Land,Einwilligung\nAda,044 668 18 00,Schweiz,nein\n");
    sb.cli(ALICE).args(["init", "leads.csv", "-o", "m.toml"]).ok();
    let text = std::fs::read_to_string(dir.join("m.toml")).unwrap();
    assert!(text.contains("region_column = \"Land\""), "{text}");
    assert!(text.contains("[consent]\ncolumn = \"Einwilligung\""), "{text}");
    // Without a mapping the run checks what it always did: a German reading, no consent check.
    let (_, err) = sb
        .cli(ALICE)
        .args(["import", "leads.csv", "--campaign", "10", "--dry-run", "--report", "r.json"])
        .ok();
    assert!(err.contains("proposed"), "the notes name the proposals: {err}");
    let report = json(&std::fs::read_to_string(dir.join("r.json")).unwrap());
    assert_eq!(report["rows"][0]["phone"], "+49446681800");
    // With init's mapping: read as Swiss, and skipped for want of consent.
    sb.cli(ALICE)
        .args(["import", "leads.csv", "-m", "m.toml", "--campaign", "10", "--dry-run"])
        .args(["--report", "r.json"])
        .ok();
    let report = json(&std::fs::read_to_string(dir.join("r.json")).unwrap());
    assert_eq!(report["rows"][0]["phone"], "+41446681800");
    assert_eq!(report["rows"][0]["errors"][0]["code"], "no_consent");
}
