//! Spreadsheet cell values as the text a person sees: numbers as the digits they typed
//! (`4915112345678`, never `4.915112345678e12`), ISO dates, `TRUE`/`FALSE`, and error codes
//! as Excel shows them (`#N/A`).

use std::fmt::Write;

use calamine::{CellErrorType, Data, DataRef, ExcelDateTime, ExcelDateTimeType};

/// One cell, borrowed from either of calamine's two value types.
pub(super) enum Value<'a> {
    Empty,
    Text(&'a str),
    Int(i64),
    Float(f64),
    Bool(bool),
    DateTime(ExcelDateTime),
    IsoDateTime(&'a str),
    IsoDuration(&'a str),
    Error(&'a CellErrorType),
    /// A number as its format shows it (`01067`), beside the number stored (1067).
    Shown {
        text: &'a str,
        stored: f64,
    },
}

impl<'a> From<&'a Data> for Value<'a> {
    fn from(data: &'a Data) -> Value<'a> {
        match data {
            Data::Empty => Value::Empty,
            Data::String(s) => Value::Text(s),
            Data::Int(i) => Value::Int(*i),
            Data::Float(f) => Value::Float(*f),
            Data::Bool(b) => Value::Bool(*b),
            Data::DateTime(d) => Value::DateTime(*d),
            Data::DateTimeIso(s) => Value::IsoDateTime(s),
            Data::DurationIso(s) => Value::IsoDuration(s),
            Data::Error(e) => Value::Error(e),
        }
    }
}

impl<'a> From<&'a DataRef<'a>> for Value<'a> {
    fn from(data: &'a DataRef<'a>) -> Value<'a> {
        match data {
            DataRef::Empty => Value::Empty,
            DataRef::String(s) => Value::Text(s),
            DataRef::SharedString(s) => Value::Text(s),
            DataRef::Int(i) => Value::Int(*i),
            DataRef::Float(f) => Value::Float(*f),
            DataRef::Bool(b) => Value::Bool(*b),
            DataRef::DateTime(d) => Value::DateTime(*d),
            DataRef::DateTimeIso(s) => Value::IsoDateTime(s),
            DataRef::DurationIso(s) => Value::IsoDuration(s),
            DataRef::Error(e) => Value::Error(e),
        }
    }
}

/// Appends the cell's text to `out`; false for an empty cell. Error cells are written as
/// Excel shows them (`#N/A`), which is also how they are recognised in every format.
pub(super) fn write(value: &Value<'_>, out: &mut String) -> bool {
    match value {
        Value::Empty => return false,
        Value::Text(s) => out.push_str(s),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => write_float(*f, out),
        Value::Bool(b) => out.push_str(if *b { "TRUE" } else { "FALSE" }),
        Value::DateTime(d) => write_datetime(d, out),
        Value::IsoDateTime(s) => out.push_str(s.strip_suffix("T00:00:00").unwrap_or(s)),
        Value::IsoDuration(s) => write_iso_duration(s, out),
        Value::Error(e) => {
            let _ = write!(out, "{e}");
        }
        Value::Shown { text, .. } => out.push_str(text),
    }
    true
}

/// Appends a stored number as its digits (`4915112345678`), the form a phone is read from.
pub(super) fn write_number(number: f64, out: &mut String) {
    write_float(number, out);
}

/// Excel keeps 15 significant digits, so anything past them is binary noise (`0.1 + 0.2`):
/// round to 15 and print the shortest form, which Rust never writes in exponent notation.
/// What is no number (a NaN or an infinity some writers cache) is what Excel shows for a
/// number it cannot hold, `#NUM!`, and so reads as a cell error.
fn write_float(f: f64, out: &mut String) {
    if !f.is_finite() {
        out.push_str("#NUM!");
    } else if f == 0.0 {
        out.push('0');
    } else if f.fract() == 0.0 && f.abs() < 1e15 {
        let _ = write!(out, "{}", f as i64);
    } else {
        let rounded: f64 = format!("{f:.14e}").parse().unwrap_or(f);
        let _ = write!(out, "{rounded}");
    }
}

/// `2024-03-01`, `2024-03-01T10:30:00` when there is a time, `10:30:00` for a bare time, and
/// `[h]:mm:ss` for durations. Times are rounded to the second as Excel shows them (41224.99998836806
/// is 23:59:59, not 23:59:58.995 cut to :58). Excel shows no date or duration for a negative
/// serial, only `####`: the number is kept, since every negative value would otherwise read as
/// 1899-12-31 or a made-up `-1:30:00`.
fn write_datetime(d: &ExcelDateTime, out: &mut String) {
    let value = d.as_f64();
    if value < 0.0 || !value.is_finite() {
        return write_float(value, out);
    }
    if d.is_duration() {
        return write_duration_seconds(value * 86_400.0, out);
    }
    let seconds = (value.fract() * 86_400.0).round() as u32;
    let (day, seconds) = match seconds {
        86_400 => (value.trunc() + 1.0, 0),
        s => (value.trunc(), s),
    };
    let (h, mi, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if day == 0.0 {
        let _ = write!(out, "{h:02}:{mi:02}:{s:02}");
        return;
    }
    // The whole day keeps the workbook's epoch (1900 or 1904), which `ExcelDateTime` holds
    // without showing it: equality with a 1904 twin tells.
    let is_1904 = *d == ExcelDateTime::new(value, ExcelDateTimeType::DateTime, true);
    let date = ExcelDateTime::new(day, ExcelDateTimeType::DateTime, is_1904);
    let (y, mo, day, ..) = date.to_ymd_hms_milli();
    let _ = write!(out, "{y:04}-{mo:02}-{day:02}");
    if seconds != 0 {
        let _ = write!(out, "T{h:02}:{mi:02}:{s:02}");
    }
}

fn write_duration_seconds(seconds: f64, out: &mut String) {
    let total = seconds.round() as i64;
    let sign = if total < 0 { "-" } else { "" };
    let total = total.unsigned_abs();
    let _ = write!(out, "{sign}{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
}

/// ODS times arrive as `PT10H30M00S`; anything else is kept as written.
fn write_iso_duration(s: &str, out: &mut String) {
    match parse_iso_duration(s) {
        Some(seconds) => write_duration_seconds(seconds, out),
        None => out.push_str(s),
    }
}

fn parse_iso_duration(s: &str) -> Option<f64> {
    let mut rest = s.strip_prefix("PT")?;
    let mut seconds = 0.0;
    for (unit, factor) in [('H', 3600.0), ('M', 60.0), ('S', 1.0)] {
        if let Some((number, after)) = rest.split_once(unit) {
            seconds += number.parse::<f64>().ok()? * factor;
            rest = after;
        }
    }
    rest.is_empty().then_some(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(value: Value<'_>) -> String {
        let mut out = String::new();
        write(&value, &mut out);
        out
    }

    #[test]
    fn numbers_read_as_typed() {
        assert_eq!(text(Value::Float(4915112345678.0)), "4915112345678");
        assert_eq!(text(Value::Float(10023.0)), "10023");
        assert_eq!(text(Value::Float(3.5)), "3.5");
        assert_eq!(text(Value::Float(0.1 + 0.2)), "0.3");
        assert_eq!(text(Value::Float(-0.0)), "0");
        assert_eq!(text(Value::Float(-12.25)), "-12.25");
        assert_eq!(text(Value::Float(1e20)), "100000000000000000000");
        assert_eq!(text(Value::Int(4915112345678)), "4915112345678");
        assert_eq!(text(Value::Float(f64::NAN)), "#NUM!");
        assert_eq!(text(Value::Float(f64::NEG_INFINITY)), "#NUM!");
    }

    #[test]
    fn dates_are_iso() {
        let date = |v| Value::DateTime(ExcelDateTime::new(v, ExcelDateTimeType::DateTime, false));
        assert_eq!(text(date(45352.0)), "2024-03-01");
        assert_eq!(text(date(45352.4375)), "2024-03-01T10:30:00");
        assert_eq!(text(date(0.4375)), "10:30:00");
        let duration =
            Value::DateTime(ExcelDateTime::new(1.5, ExcelDateTimeType::TimeDelta, false));
        assert_eq!(text(duration), "36:00:00");
        assert_eq!(text(Value::IsoDateTime("2024-03-01T00:00:00")), "2024-03-01");
        assert_eq!(text(Value::IsoDuration("PT10H30M00S")), "10:30:00");
        assert_eq!(text(Value::IsoDuration("P1Y")), "P1Y");
    }

    #[test]
    fn negative_serials_stay_numbers_and_times_round_to_the_second() {
        let date = |v| Value::DateTime(ExcelDateTime::new(v, ExcelDateTimeType::DateTime, false));
        assert_eq!(text(date(-1.2)), "-1.2");
        assert_eq!(text(date(-12.34)), "-12.34");
        let duration =
            |v| Value::DateTime(ExcelDateTime::new(v, ExcelDateTimeType::TimeDelta, false));
        assert_eq!(text(duration(-0.0625)), "-0.0625", "not a made-up -1:30:00");
        assert_eq!(text(duration(f64::NAN)), "#NUM!");
        assert_eq!(text(date(41224.99998836806)), "2012-11-11T23:59:59");
        assert_eq!(text(date(41224.999999)), "2012-11-12");
        assert_eq!(text(date(0.99999999)), "1900-01-01");
        assert_eq!(text(date(0.5)), "12:00:00");
        let date_1904 = Value::DateTime(ExcelDateTime::new(0.0, ExcelDateTimeType::DateTime, true));
        assert_eq!(text(date_1904), "00:00:00");
        let date_1904 = Value::DateTime(ExcelDateTime::new(1.5, ExcelDateTimeType::DateTime, true));
        assert_eq!(text(date_1904), "1904-01-02T12:00:00");
    }

    #[test]
    fn booleans_and_errors() {
        assert_eq!(text(Value::Bool(true)), "TRUE");
        assert_eq!(text(Value::Error(&CellErrorType::NA)), "#N/A");
        assert_eq!(text(Value::Error(&CellErrorType::Div0)), "#DIV/0!");
        assert!(!write(&Value::Empty, &mut String::new()));
    }
}
