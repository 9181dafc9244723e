//! The countries a campaign may call (`countries = ["DE", "AT"]`): a number of any other
//! country, or of none (a non-geographic number), is refused.

use super::{Guard, Refusal};
use crate::phone::Phone;
use crate::row::{IssueCode, Said};

/// The allowed regions (alpha-2), sorted.
#[derive(Debug, Clone)]
pub struct Countries {
    allowed: Vec<String>,
}

impl Countries {
    pub fn new(allowed: Vec<String>) -> Countries {
        Countries { allowed }
    }
}

impl Guard for Countries {
    fn refuse_number(&self, phone: &Phone) -> Option<Refusal> {
        let region = phone.region.as_deref().unwrap_or("");
        if self.allowed.iter().any(|r| r == region) {
            return None;
        }
        let (e164, region, allowed) =
            (phone.e164.clone(), phone.region.clone(), self.allowed.clone());
        let secondary = Said::ForeignSecondary {
            e164: e164.clone(),
            region: region.clone(),
            allowed: allowed.clone(),
        };
        Some(Refusal {
            skip: false,
            main: (IssueCode::ForeignNumber, Said::Foreign { e164, region, allowed }),
            secondary: (IssueCode::ForeignSecondary, secondary),
        })
    }
}
