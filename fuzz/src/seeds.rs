//! The starting corpora: the files in `tests/fixtures` and `samples` for the readers, the
//! fixture workbooks' parts for `workbook`, journals written by leadsync itself for `journal`,
//! and small hand-written inputs for the rest. Written afresh by `leadsync-fuzz seeds`, so the
//! repository holds no binary corpus.

use std::fs;
use std::io;
use std::path::Path;

use leadsync::journal::{Entry, Final, OnChange, RunLock, fp_text, open_run};

use crate::targets::{journal, mapping, workbook};

/// Writes one folder per target under `out`, reading `repo`'s fixtures and samples.
pub fn write_all(repo: &Path, out: &Path) -> io::Result<()> {
    let corpora: [(&str, Vec<Vec<u8>>); 7] = [
        ("source", source(repo)?),
        ("workbook", workbook()),
        ("mapping", mapping(repo)?),
        ("phone", phone()),
        ("payload", payload()),
        ("journal", journals()?),
        ("seed", seed()),
    ];
    for (target, inputs) in corpora {
        let dir = out.join(target);
        fs::create_dir_all(&dir)?;
        for (i, input) in inputs.iter().enumerate() {
            fs::write(dir.join(format!("seed-{i:03}")), input)?;
        }
    }
    Ok(())
}

fn source(repo: &Path) -> io::Result<Vec<Vec<u8>>> {
    let mut inputs = Vec::new();
    for dir in ["tests/fixtures", "samples"] {
        let mut paths: Vec<_> =
            fs::read_dir(repo.join(dir))?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
        paths.sort();
        for path in paths {
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
            // Scripts and mappings are not sources; workbooks over 64 KiB slow every input.
            if !matches!(ext, "py" | "toml") && fs::metadata(&path)?.len() <= 64 * 1024 {
                inputs.push(fs::read(&path)?);
            }
        }
    }
    inputs.push(b"Phone;Name\r\n\"0151 1\";\"A \"\"B\"\"\"\r\n".to_vec());
    inputs.push(b"sep=|\nPhone|Name\n+49 30 1|x\n".to_vec());
    Ok(inputs)
}

fn workbook() -> Vec<Vec<u8>> {
    let mut inputs = Vec::new();
    for (i, choice) in workbook::CHOICES.iter().enumerate() {
        let content = match *choice {
            workbook::Choice::Part(fixture, part) => {
                let entries = workbook::entries(fixture);
                match entries.iter().find(|(name, _)| name == part) {
                    Some((_, content)) => content.clone(),
                    None => SHARED_STRINGS.to_vec(),
                }
            }
            workbook::Choice::Xls => workbook::XLS.to_vec(),
        };
        let selector = u8::try_from(i).expect("fewer than 256 choices");
        inputs.push([&[selector][..], &content].concat());
    }
    inputs
}

/// A shared-strings part for the XLSX fixture, which has none (its strings are inline).
const SHARED_STRINGS: &[u8] = br#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="3" uniqueCount="3"><si><t>Phone</t></si><si><r><t>Na</t></r><r><t>me</t></r></si><si><t xml:space="preserve"> x </t></si></sst>"#;

fn mapping(repo: &Path) -> io::Result<Vec<Vec<u8>>> {
    let sample = fs::read_to_string(repo.join("samples/mapping.toml"))?;
    let headers = "Name\nE-Mail\nTelefon\nMobile 2\nKampagne\nCompany\nCity\nNotes";
    let sep = mapping::SEPARATOR;
    Ok([
        format!("{sample}{sep}{headers}"),
        format!("{sep}{headers}"),
        format!("phone = \"Phone\"\ncampaign = 7\nsheet = 2\nheader_row = 3\n{sep}Phone\nphone"),
        format!(
            "phone = \"Tel\"\ncampaign = \"Spring\"\ndelimiter = \"tab\"\n[[secondary_contacts]]\nphone = \"Mobil\"\nvariables = {{ n = [\"Vorname\", \"Nachname\"] }}\n{sep}Tel\nMobil\nVorname\nNachname"
        ),
        format!("{sep}Phone 1\nPhone 2\nTelefon (privat)\nFirst name\nLast name\nE-mail\nCampaign"),
    ]
    .map(String::into_bytes)
    .to_vec())
}

/// Cells as typed, each after the index of its region in `phone::REGIONS`.
fn phone() -> Vec<Vec<u8>> {
    let typed = [
        (0, "0151 23456789"),
        (0, "+49 (0) 30 1234567 ext. 12"),
        (0, "0049 171 9876543"),
        (1, "(415) 555-0132 x7"),
        (1, "1-800-FLOWERS"),
        (2, "07700 900123"),
        (3, "06 12 34 56 78"),
        (5, "+41 44 668 18 00"),
        (9, "+91 98765 43210"),
        (11, "090-1234-5678"),
        (0, "4.91511234567E+12"),
        (0, "n/a"),
        (0, "+\u{0661}\u{0662}\u{0663}"),
    ];
    typed.iter().map(|(r, text)| [&[*r][..], text.as_bytes()].concat()).collect()
}

fn payload() -> Vec<Vec<u8>> {
    [
        r#"{"conversation_id":"c-1","assistant_id":"a","ended_at":"2026-01-02T10:00:00Z","transcript":[{"role":"assistant","content":"Hallo","timestamp":"2026-01-02T09:59:00Z"},{"role":"user","content":"Hi"}],"variables":{"interested":"yes","score":7,"missing":null},"customer":{"name":"J","phone":"+4915112345678","email":"j@x.de"}}"#,
        r#"{"event":"conversation.ended","data":{"conversation":{"id":991,"ended_at":"2026-01-02 10:00:00","messages":[{"speaker":"bot","text":"Hi"},{"speaker":"user","text":"Ho"}]},"contact":{"phone_number":"+1"}}}"#,
        r#"{"call_id":"x","transcript":"assistant: Hello\nuser: bye\n","variables":"{\"a\":1}"}"#,
        r#"{"payload":{"call":{"id":5,"variables":[1,2]}},"customer":"+49 30 1"}"#,
        "[]",
    ]
    .map(|s| s.as_bytes().to_vec())
    .to_vec()
}

fn seed() -> Vec<Vec<u8>> {
    [
        r#"{"users":[{"id":1,"token":"t","tokens":["u"],"campaigns":[{"id":10,"name":"Spring","allowed_days":["monday","friday"],"start_time":"09:00","end_time":"17:00","timezone":"Europe/Berlin","max_retries":3}],"assistants":[{"id":5,"name":"Anna","llm_temperature":0.25}]}]}"#,
        r#"{"users":[{"id":1,"token":" a "},{"id":2,"tokens":["b","c"]}],"extra":1}"#,
        r#"{"users":[{"id":1,"token":"t","campaigns":[{"id":10},{"id":11,"max_retries":"three"}]}]}"#,
        r#"{"people":[]}"#,
    ]
    .map(|s| s.as_bytes().to_vec())
    .to_vec()
}

/// Journals written by leadsync itself for the header the target opens them with, each also
/// torn in the middle of its last line and cut down to its header.
fn journals() -> io::Result<Vec<Vec<u8>>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("j.jsonl");
    let outcome = |row: u64, status: Final, lead_id: Option<u64>| Entry::Outcome {
        row,
        status,
        fp: fp_text(row * 100),
        lead_id,
        message: (status == Final::Rejected).then(|| "phone: invalid".to_owned()),
        commit_by: (status == Final::InDoubt).then_some(1234),
        reconciled: false,
        key: None,
        keyed: false,
    };
    let mut inputs = Vec::new();
    for finish in [false, true] {
        let _ = fs::remove_file(&path);
        let lock = RunLock::acquire(&path).map_err(io::Error::other)?;
        let (mut journal, _) =
            open_run(lock, journal::header(), OnChange::Refuse, false).map_err(io::Error::other)?;
        let attempts = [(2, "+491", 10, 200), (3, "+492", 10, 300), (4, "+493", 10, 400)];
        journal
            .attempts(attempts.into_iter().chain([(5, "+494", 10, 500)]))
            .map_err(io::Error::other)?;
        for entry in [
            outcome(2, Final::Created, Some(41)),
            outcome(3, Final::Rejected, None),
            outcome(4, Final::Failed, None),
            outcome(5, Final::InDoubt, None),
        ] {
            journal.outcome(&entry).map_err(io::Error::other)?;
        }
        if finish {
            journal.finish("2026-01-02T10:00:00Z".into()).map_err(io::Error::other)?;
        }
        journal.sync().map_err(io::Error::other)?;
        drop(journal);
        let whole = fs::read(&path)?;
        let header_end = whole.iter().position(|b| *b == b'\n').map_or(whole.len(), |i| i + 1);
        inputs.push([&[3u8][..], &whole].concat());
        inputs.push(whole[..whole.len() - 7].to_vec());
        inputs.push(whole[..header_end].to_vec());
        inputs.push(whole);
    }
    Ok(inputs)
}
