//! What kind of line a number is (mobile, fixed line, premium rate, ...), by libphonenumber's
//! number plan, under the names the mapping's `block_number_types` uses.

use rlibphonenumber::PhoneNumberType;
use serde::{Deserialize, Serialize};

/// A number's type. The serde names are the mapping's and the reports' names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NumberType {
    Mobile,
    FixedLine,
    /// Where the plan cannot tell them apart (US, Canada, ...): blocked by either name.
    FixedLineOrMobile,
    TollFree,
    PremiumRate,
    SharedCost,
    Voip,
    PersonalNumber,
    Pager,
    Uan,
    Voicemail,
    Unknown,
}

/// Every name `block_number_types` accepts.
pub const BLOCKABLE: [NumberType; 10] = [
    NumberType::PremiumRate,
    NumberType::SharedCost,
    NumberType::TollFree,
    NumberType::Voip,
    NumberType::Pager,
    NumberType::Uan,
    NumberType::Voicemail,
    NumberType::PersonalNumber,
    NumberType::FixedLine,
    NumberType::Mobile,
];

impl NumberType {
    pub fn of(kind: PhoneNumberType) -> NumberType {
        match kind {
            PhoneNumberType::Mobile => NumberType::Mobile,
            PhoneNumberType::FixedLine => NumberType::FixedLine,
            PhoneNumberType::FixedLineOrMobile => NumberType::FixedLineOrMobile,
            PhoneNumberType::TollFree => NumberType::TollFree,
            PhoneNumberType::PremiumRate => NumberType::PremiumRate,
            PhoneNumberType::SharedCost => NumberType::SharedCost,
            PhoneNumberType::VoIP => NumberType::Voip,
            PhoneNumberType::PersonalNumber => NumberType::PersonalNumber,
            PhoneNumberType::Pager => NumberType::Pager,
            PhoneNumberType::UAN => NumberType::Uan,
            PhoneNumberType::VoiceMail => NumberType::Voicemail,
            PhoneNumberType::Unknown => NumberType::Unknown,
        }
    }

    /// The name in the mapping and the reports (`premium_rate`).
    pub fn as_str(self) -> &'static str {
        match self {
            NumberType::Mobile => "mobile",
            NumberType::FixedLine => "fixed_line",
            NumberType::FixedLineOrMobile => "fixed_line_or_mobile",
            NumberType::TollFree => "toll_free",
            NumberType::PremiumRate => "premium_rate",
            NumberType::SharedCost => "shared_cost",
            NumberType::Voip => "voip",
            NumberType::PersonalNumber => "personal_number",
            NumberType::Pager => "pager",
            NumberType::Uan => "uan",
            NumberType::Voicemail => "voicemail",
            NumberType::Unknown => "unknown",
        }
    }

    /// A person's words for it, for messages and the HTML report.
    pub fn label(self) -> &'static str {
        match self {
            NumberType::Mobile => "mobile",
            NumberType::FixedLine => "fixed line",
            NumberType::FixedLineOrMobile => "fixed line or mobile",
            NumberType::TollFree => "toll-free",
            NumberType::PremiumRate => "premium-rate",
            NumberType::SharedCost => "shared-cost",
            NumberType::Voip => "VoIP",
            NumberType::PersonalNumber => "personal number",
            NumberType::Pager => "pager",
            NumberType::Uan => "universal access (UAN)",
            NumberType::Voicemail => "voicemail",
            NumberType::Unknown => "unknown type",
        }
    }

    /// A name from the mapping or the command line.
    pub fn parse(name: &str) -> Result<NumberType, String> {
        let wanted = name.trim().to_ascii_lowercase().replace(['-', ' '], "_");
        BLOCKABLE.into_iter().find(|t| t.as_str() == wanted).ok_or_else(|| {
            let names: Vec<&str> = BLOCKABLE.iter().map(|t| t.as_str()).collect();
            format!("unknown number type `{name}`: use any of {}", names.join(", "))
        })
    }
}

/// The types a mapping blocks; `premium_rate` unless it says otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedTypes(Vec<NumberType>);

impl Default for BlockedTypes {
    fn default() -> Self {
        BlockedTypes(vec![NumberType::PremiumRate])
    }
}

impl BlockedTypes {
    pub fn parse(names: &[String]) -> Result<BlockedTypes, String> {
        names.iter().map(|n| NumberType::parse(n)).collect::<Result<_, _>>().map(BlockedTypes)
    }

    /// Whether a number of type `kind` may not be called. A US number that may be either a
    /// fixed line or a mobile is blocked when either is.
    pub fn blocks(&self, kind: NumberType) -> bool {
        self.0.iter().any(|&blocked| {
            blocked == kind
                || (kind == NumberType::FixedLineOrMobile
                    && matches!(blocked, NumberType::FixedLine | NumberType::Mobile))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_choices() {
        for kind in BLOCKABLE {
            assert_eq!(NumberType::parse(kind.as_str()), Ok(kind));
        }
        assert_eq!(NumberType::parse(" Premium-Rate "), Ok(NumberType::PremiumRate));
        let err = NumberType::parse("premium").unwrap_err();
        assert!(err.contains("`premium`") && err.contains("premium_rate, shared_cost"), "{err}");
    }

    #[test]
    fn premium_rate_is_blocked_by_default_and_an_empty_list_blocks_nothing() {
        assert!(BlockedTypes::default().blocks(NumberType::PremiumRate));
        assert!(!BlockedTypes::default().blocks(NumberType::Mobile));
        let none = BlockedTypes::parse(&[]).unwrap();
        assert!(BLOCKABLE.iter().all(|&t| !none.blocks(t)));
    }

    #[test]
    fn fixed_line_or_mobile_is_blocked_by_either() {
        let mobile = BlockedTypes::parse(&["mobile".into()]).unwrap();
        assert!(mobile.blocks(NumberType::FixedLineOrMobile));
        assert!(!mobile.blocks(NumberType::FixedLine));
        let fixed = BlockedTypes::parse(&["fixed_line".into()]).unwrap();
        assert!(fixed.blocks(NumberType::FixedLineOrMobile));
    }
}
