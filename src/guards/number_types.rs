//! Number types that must not be called (`block_number_types`; premium rate by default).

use super::{Guard, Refusal};
use crate::phone::{BlockedTypes, NumberType, Phone};
use crate::row::{IssueCode, Said};

#[derive(Debug, Clone, Default)]
pub struct NumberTypes(pub BlockedTypes);

impl Guard for NumberTypes {
    fn refuse_number(&self, phone: &Phone) -> Option<Refusal> {
        let kind = NumberType::of(phone.number_type);
        if !self.0.blocks(kind) {
            return None;
        }
        let e164 = phone.e164.clone();
        Some(Refusal {
            skip: false,
            main: (IssueCode::BlockedNumberType, Said::BlockedType { e164: e164.clone(), kind }),
            secondary: (IssueCode::BlockedSecondaryType, Said::BlockedSecondaryType { e164, kind }),
        })
    }
}
