//! Formula cells written with the Excel 3/4 record type (`0x0406`) inside a later workbook,
//! as some old exporters write them: calamine reads only `0x0006` and dropped such a cell
//! without a word, and with it a row whose other cells were empty. Both keep the cached
//! value in the same place (bytes 6 to 14, a string result in the `STRING` record after), so
//! a copy of the file retyped to `0x0006` gives calamine every value; the formula text it
//! would read after byte 20 differs between the two, and leadsync does not use it. Remove
//! this when calamine reads `0x0406`.

/// The changes to the workbook stream (offset, new byte) that retype each `0x0406` record;
/// `records` are every record's (type, data offset in the stream, data).
pub(super) fn fixes<'a>(
    records: impl IntoIterator<Item = (u16, usize, &'a [u8])>,
) -> Vec<(usize, u8)> {
    records
        .into_iter()
        // calamine refuses a formula record under 20 bytes; such a one stays as it was.
        .filter(|(typ, _, data)| *typ == 0x0406 && data.len() >= 20)
        // The type's high byte, just before the record's length: 0x04 becomes 0x00.
        .map(|(_, at, _)| (at - 3, 0x00))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_old_formula_records_long_enough_are_retyped() {
        let long = [0u8; 22];
        let records =
            [(0x0406, 104, &long[..]), (0x0006, 200, &long[..]), (0x0406, 300, &long[..19])];
        assert_eq!(fixes(records), vec![(101, 0x00)]);
    }
}
