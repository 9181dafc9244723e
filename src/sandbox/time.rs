//! The service's two timestamp formats: assistants and campaigns carry ISO 8601 UTC with
//! microseconds, leads and secondary contacts carry a plain `YYYY-MM-DD HH:MM:SS` (the service
//! reads like a Laravel app that serializes some models through Carbon and others raw).
//!
//! Timestamps are stored as text already in their wire format, so reads never reformat them.

use chrono::{DateTime, NaiveDateTime, NaiveTime, Utc};

const RECORD_FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.6fZ";
const LEAD_FORMAT: &str = "%Y-%m-%d %H:%M:%S";

/// Now, as assistants and campaigns show it: `2024-05-01T09:30:00.123456Z`.
pub(crate) fn record_now() -> String {
    format_record(Utc::now())
}

/// Now, as leads and secondary contacts show it: `2024-05-01 09:30:00`.
pub(crate) fn lead_now() -> String {
    Utc::now().format(LEAD_FORMAT).to_string()
}

fn format_record(at: DateTime<Utc>) -> String {
    at.format(RECORD_FORMAT).to_string()
}

/// Whether `text` is a record timestamp with exactly six fraction digits and a `Z`.
pub(crate) fn is_record_timestamp(text: &str) -> bool {
    // chrono's `%.6f` accepts any number of digits when parsing, so check the length too.
    text.len() == "2024-05-01T09:30:00.123456Z".len()
        && NaiveDateTime::parse_from_str(text, RECORD_FORMAT).is_ok()
}

/// Whether `text` is a time of day `HH:MM:SS`, as campaigns' allowed hours are written.
pub(crate) fn is_time_of_day(text: &str) -> bool {
    text.len() == 8 && NaiveTime::parse_from_str(text, "%H:%M:%S").is_ok()
}

#[cfg(test)]
mod tests {
    use super::{is_record_timestamp, is_time_of_day, lead_now, record_now};

    #[test]
    fn now_formats_have_the_documented_shapes() {
        let record = record_now();
        assert!(is_record_timestamp(&record), "{record}");
        let lead = lead_now();
        assert_eq!(lead.len(), 19, "{lead}");
        assert_eq!(&lead[10..11], " ");
    }

    #[test]
    fn record_timestamps_need_six_fraction_digits_and_z() {
        assert!(is_record_timestamp("2024-05-01T09:30:00.000000Z"));
        assert!(!is_record_timestamp("2024-05-01T09:30:00.000Z"));
        assert!(!is_record_timestamp("2024-05-01T09:30:00.000000"));
        assert!(!is_record_timestamp("2024-05-01 09:30:00"));
    }

    #[test]
    fn times_of_day_are_hh_mm_ss() {
        assert!(is_time_of_day("09:00:00"));
        assert!(!is_time_of_day("9:00"));
        assert!(!is_time_of_day("25:00:00"));
    }
}
