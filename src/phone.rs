//! TEMP STUB
#[derive(Debug, Clone)]
pub struct PhoneParser;
#[derive(Debug, thiserror::Error)]
#[error("stub")]
pub struct PhoneError;
impl PhoneParser {
    pub fn new(_r: &str) -> Result<PhoneParser, PhoneError> {
        Ok(PhoneParser)
    }
    pub fn parse(&self, raw: &str) -> Result<Phone, PhoneProblem> {
        let d: String = raw.chars().filter(|c| c.is_ascii_digit()).collect();
        if d.is_empty() {
            return Err(PhoneProblem::Missing);
        }
        if d.len() < 7 {
            return Err(PhoneProblem::TooShort);
        }
        Ok(Phone { e164: format!("+{d}"), region: Some("DE".into()), extension_dropped: None })
    }
}
pub struct Phone {
    pub e164: String,
    pub region: Option<String>,
    pub extension_dropped: Option<String>,
}
impl Phone {
    pub fn key(&self) -> u64 {
        self.e164[1..].parse().unwrap_or(0)
    }
}
#[derive(Debug)]
pub enum PhoneProblem {
    Missing,
    NotANumber,
    TooShort,
    TooLong,
    InvalidCountryCode,
    InvalidForRegion { region: String },
}
impl std::fmt::Display for PhoneProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}
