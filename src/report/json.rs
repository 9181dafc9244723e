//! The `.json` report: `{"summary", "run", "rows"}`, the machine-readable contract.
//!
//! The summary comes first but is known only at the end, so rows are streamed to a scratch file
//! beside the target (one compact object per line) and copied after the head at `finish`.
//! The shape is checked against `schema/report.schema.json` in the tests below.

use std::path::Path;

use serde::Serialize;

use super::ReportWriter;
use super::error::ReportError;
use super::model::{RowReport, RunInfo, Summary};
use super::staged::Staged;

pub(crate) struct JsonWriter {
    out: Staged,
    rows: Staged,
    any_rows: bool,
    /// Rows' JSON (`json_row`) gathered in memory and handed to the file in large writes,
    /// which pass the file's buffer by: each byte is copied once on its way to the kernel. A
    /// failed write (a full disk) is found when the next 256 KiB are written, or at `finish`.
    pending: Vec<u8>,
}

/// How many bytes of rows are gathered before they are written.
const PENDING_BYTES: usize = 256 * 1024;

impl JsonWriter {
    pub(crate) fn create(path: &Path) -> Result<JsonWriter, ReportError> {
        Ok(JsonWriter {
            out: Staged::create(path, "part")?,
            rows: Staged::create(path, "rows")?,
            any_rows: false,
            pending: Vec::with_capacity(PENDING_BYTES + 4096),
        })
    }
}

impl ReportWriter for JsonWriter {
    fn write_row(&mut self, row: &RowReport) -> Result<(), ReportError> {
        let separator = if self.any_rows { ",\n    " } else { "\n    " };
        self.any_rows = true;
        self.pending.extend_from_slice(separator.as_bytes());
        super::json_row::write_row(&mut self.pending, row);
        if self.pending.len() >= PENDING_BYTES {
            self.rows.put(&self.pending)?;
            self.pending.clear();
        }
        Ok(())
    }

    fn finish(self: Box<Self>, summary: &Summary, run: &RunInfo) -> Result<(), ReportError> {
        let JsonWriter { mut out, mut rows, any_rows, pending } = *self;
        rows.put(&pending)?;
        out.put("{\n  \"summary\": ")?;
        put_json(&mut out, summary)?;
        out.put(",\n  \"run\": ")?;
        put_json(&mut out, run)?;
        out.put(",\n  \"rows\": [")?;
        out.append(rows)?;
        out.put(if any_rows { "\n  ]\n}\n" } else { "]\n}\n" })?;
        out.persist()
    }
}

/// Compact JSON straight into the file; the model's plain structs only fail on I/O.
fn put_json<T: Serialize>(out: &mut Staged, value: &T) -> Result<(), ReportError> {
    serde_json::to_writer(&mut *out, value)
        .map_err(|err| ReportError::Write { path: out.target().to_path_buf(), source: err.into() })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::testdata::{rows, run_info};
    use super::super::{ReportWriter, Summary};
    use super::JsonWriter;
    use crate::row::IssueCode;

    const SCHEMA: &str = include_str!("../../schema/report.schema.json");

    /// Turns a valid report into one the schema must refuse.
    type Breakage = fn(&mut Value);

    fn report(rows: &[super::RowReport]) -> Value {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let mut writer = Box::new(JsonWriter::create(&path).unwrap());
        let mut summary = Summary::default();
        for row in rows {
            summary.count(row);
            writer.write_row(row).unwrap();
        }
        writer.finish(&summary, &run_info()).unwrap();
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    }

    fn validator() -> jsonschema::Validator {
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        assert!(jsonschema::draft202012::meta::is_valid(&schema), "the schema itself is invalid");
        jsonschema::draft202012::new(&schema).unwrap()
    }

    fn errors(validator: &jsonschema::Validator, doc: &Value) -> Vec<String> {
        validator.iter_errors(doc).map(|e| format!("{} at {}", e, e.instance_path())).collect()
    }

    #[test]
    fn keys_come_in_contract_order() {
        let doc = report(&rows());
        let keys: Vec<_> = doc.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["summary", "run", "rows"]);
        assert_eq!(doc["summary"]["rows"], 10);
        assert_eq!(doc["summary"]["rejected"], 4);
        assert_eq!(doc["rows"][1]["errors"][0]["code"], "invalid_phone");
        assert_eq!(doc["run"]["interrupted"], false);
        assert_eq!(doc["rows"][0]["variables"]["name"], "Jürgen Müller");
        let row_keys: Vec<_> = doc["rows"][0].as_object().unwrap().keys().cloned().collect();
        let expected = ["row", "status", "phone", "campaign_id", "lead_id", "variables", "errors"];
        assert_eq!(row_keys[..7], expected);
    }

    #[test]
    fn generated_report_matches_the_schema() {
        let validator = validator();
        for doc in [report(&rows()), report(&[])] {
            assert_eq!(errors(&validator, &doc), Vec::<String>::new());
        }
    }

    #[test]
    fn schema_names_exactly_the_model_codes() {
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        let listed = &schema["$defs"]["issue"]["properties"]["code"]["enum"];
        let codes: Vec<_> = IssueCode::ALL.iter().map(|code| json!(code.as_str())).collect();
        assert_eq!(listed, &json!(codes));
        for code in IssueCode::ALL {
            assert_eq!(json!(code), json!(code.as_str()), "serde and as_str disagree");
        }
    }

    #[test]
    fn schema_rejects_what_the_contract_forbids() {
        let validator = validator();
        let good = report(&rows());
        let breakages: [(&str, Breakage); 7] = [
            ("unknown status", |d| d["rows"][0]["status"] = json!("maybe")),
            ("unknown code", |d| d["rows"][1]["errors"][0]["code"] = json!("bad_vibes")),
            ("extra summary key", |d| d["summary"]["extra"] = json!(1)),
            ("extra issue key", |d| d["rows"][1]["errors"][0]["hint"] = json!("x")),
            ("run without interrupted", |d| {
                d["run"].as_object_mut().unwrap().remove("interrupted");
            }),
            ("interrupted as text", |d| d["run"]["interrupted"] = json!("yes")),
            ("missing rows", |d| {
                d.as_object_mut().unwrap().remove("rows");
            }),
        ];
        for (what, break_it) in breakages {
            let mut doc = good.clone();
            break_it(&mut doc);
            assert!(!errors(&validator, &doc).is_empty(), "schema accepted a document with {what}");
        }
    }
}
