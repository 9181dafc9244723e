//! XLSB parts, record by record, before calamine reads them: calamine sizes its record
//! buffer from each record's declared length (up to 256 MiB) before reading it, and keeps
//! every shared string (`BrtSSTItem`) in memory.

use super::limits::{Limit, MAX_RECORD_BYTES, string_cost};

const BRT_SST_ITEM: u32 = 0x0013;
/// A formula cell whose value is an error, which calamine skips (see `xlsb_errors`).
const BRT_FMLA_ERROR: u32 = 0x000B;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading the record type: bytes read so far and the value.
    Type { read: u8, value: u32 },
    /// Reading the length: bytes read so far and the value.
    Len { read: u8, value: u64 },
    /// Skipping the record's data.
    Data { left: u64 },
}

/// A streaming walk over one part's records.
pub(super) struct Records {
    part: String,
    shared: bool,
    state: State,
    typ: u32,
    shared_cost: u64,
    formula_errors: u64,
}

impl Records {
    /// `shared` marks the shared-strings part, whose strings are tallied.
    pub(super) fn new(part: &str, shared: bool) -> Records {
        Records {
            part: part.to_owned(),
            shared,
            state: State::Type { read: 0, value: 0 },
            typ: 0,
            shared_cost: 0,
            formula_errors: 0,
        }
    }

    /// The memory calamine's shared-strings table will take for this part.
    pub(super) fn shared_strings_cost(&self) -> u64 {
        self.shared_cost
    }

    /// The `BrtFmlaError` records seen in this part.
    pub(super) fn formula_errors(&self) -> u64 {
        self.formula_errors
    }

    pub(super) fn feed(&mut self, mut data: &[u8]) -> Result<(), Limit> {
        while let Some((&b, rest)) = data.split_first() {
            self.state = match self.state {
                State::Type { read, value } => {
                    // Two bytes at most, 7 bits each, as calamine reads them.
                    let value = value | (u32::from(b & 0x7F) << (7 * read));
                    match b & 0x80 != 0 && read == 0 {
                        true => State::Type { read: 1, value },
                        false => {
                            self.typ = value;
                            State::Len { read: 0, value: 0 }
                        }
                    }
                }
                State::Len { read, value } => {
                    let value = value | (u64::from(b & 0x7F) << (7 * read));
                    match b & 0x80 != 0 && read < 3 {
                        true => State::Len { read: read + 1, value },
                        false => self.record(value)?,
                    }
                }
                State::Data { left } => {
                    let skip = left.min(data.len() as u64) as usize;
                    data = &data[skip..];
                    self.state = match left - skip as u64 {
                        0 => State::Type { read: 0, value: 0 },
                        left => State::Data { left },
                    };
                    continue;
                }
            };
            data = rest;
        }
        Ok(())
    }

    fn record(&mut self, len: u64) -> Result<State, Limit> {
        if len > MAX_RECORD_BYTES {
            return Err(Limit::Record { part: self.part.clone() });
        }
        self.formula_errors += u64::from(self.typ == BRT_FMLA_ERROR);
        if self.shared && self.typ == BRT_SST_ITEM {
            // A flags byte and a 4-byte count, then UTF-16: at most 3 UTF-8 bytes per unit.
            let text = len.saturating_sub(5) / 2 * 3;
            self.shared_cost += string_cost(text);
        }
        Ok(match len {
            0 => State::Type { read: 0, value: 0 },
            left => State::Data { left },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_walked_across_chunks_and_a_huge_one_refused() {
        let mut records = Records::new("xl/sharedStrings.bin", true);
        // BrtSSTItem (0x13) of 9 bytes: flags, cch = 2, "ab" in UTF-16.
        let item = [0x13, 0x09, 0, 2, 0, 0, 0, b'a', 0, b'b', 0];
        records.feed(&item[..4]).unwrap();
        records.feed(&item[4..]).unwrap();
        assert_eq!(records.shared_strings_cost(), string_cost(6));
        // A two-byte type and a four-byte length of 2^28 - 1.
        let huge = [0x80 | 0x1C, 0x01, 0xFF, 0xFF, 0xFF, 0x7F];
        assert_eq!(records.feed(&huge), Err(Limit::Record { part: "xl/sharedStrings.bin".into() }));
    }
}
