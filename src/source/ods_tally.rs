//! What calamine's ODS reader will hold in memory, tallied from `content.xml` before it runs.
//!
//! calamine reads every ODS sheet whole at open: it writes out each cell's
//! `number-columns-repeated` copies, then a dense range over the used area with the
//! `number-rows-repeated` copies, each string cloned per copy, plus a formula string per
//! cell. A 1 MB file can so ask for gigabytes; this tally mirrors those steps (an upper bound:
//! a cell with any value or text counts as used) so the limit is applied before.

use super::limits::string_cost;
use super::xml_scan::{attribute, count};

/// calamine's caps on an ODS sheet's rows and a row's columns.
const MAX_ROWS: u64 = 1_048_576;
const MAX_COLUMNS: u64 = 16_384;
/// A `Data` (32 bytes) and a formula `String` (24) per cell, in both the raw cells and the range.
const CELL_BYTES: u64 = 56;

#[derive(Debug, Default)]
pub(super) struct OdsTally {
    /// Bytes needed by the sheets finished so far.
    needed: u64,
    table: Table,
    row: Row,
    cell_repeats: u64,
    cell_has_value: bool,
}

#[derive(Debug, Default)]
struct Table {
    /// Rows so far, repeats included.
    rows: u64,
    first_row: Option<u64>,
    end_row: u64,
    min_col: Option<u64>,
    end_col: u64,
    raw_cells: u64,
    /// String bytes held: once in the raw cells, then once per row copy in the range.
    raw_text: u64,
    range_text: u64,
}

#[derive(Debug, Default)]
struct Row {
    repeats: u64,
    col: u64,
    pending_empty: u64,
    has_data: bool,
    text: u64,
}

impl OdsTally {
    /// The memory the sheets need, those finished and the one under way.
    pub(super) fn needed(&self) -> u64 {
        self.needed.saturating_add(self.table.needed())
    }

    /// A start tag; returns the spaces a `<text:s text:c="N"/>` stands for.
    pub(super) fn start(&mut self, local: &[u8], tag: &[u8]) -> Option<u64> {
        match local {
            b"table" => self.finish_table(),
            b"table-row" => {
                let wanted = count(attribute(tag, b"number-rows-repeated"));
                let repeats = wanted.min(MAX_ROWS.saturating_sub(self.table.rows));
                self.row = Row { repeats, ..Row::default() };
            }
            b"table-cell" | b"covered-table-cell" => {
                self.cell_repeats = count(attribute(tag, b"number-columns-repeated"));
                self.cell_has_value =
                    attribute(tag, b"value-type").is_some() || attribute(tag, b"formula").is_some();
            }
            b"s" => return Some(count(attribute(tag, b"c"))),
            _ => {}
        }
        None
    }

    /// The end of a cell whose content held `text` bytes.
    pub(super) fn end_cell(&mut self, text: u64) {
        let row = &mut self.row;
        let room = |col: u64| MAX_COLUMNS.saturating_sub(col);
        if !(self.cell_has_value || text > 0) {
            row.pending_empty =
                row.pending_empty.saturating_add(self.cell_repeats.min(room(row.col)));
            return;
        }
        let empty = row.pending_empty.min(room(row.col));
        row.col += empty;
        let copies = self.cell_repeats.min(room(row.col));
        let table = &mut self.table;
        table.min_col = Some(table.min_col.map_or(row.col, |c| c.min(row.col)));
        row.col += copies;
        table.end_col = table.end_col.max(row.col);
        table.raw_cells = table.raw_cells.saturating_add(empty + copies);
        let heap = string_cost(text) - string_cost(0);
        row.text = row.text.saturating_add(heap.saturating_mul(copies));
        row.pending_empty = 0;
        row.has_data = true;
    }

    /// An end tag other than a cell's.
    pub(super) fn end(&mut self, local: &[u8]) {
        match local {
            b"table-row" => self.finish_row(),
            b"table" => self.finish_table(),
            _ => {}
        }
    }

    fn finish_row(&mut self) {
        let (row, table) = (std::mem::take(&mut self.row), &mut self.table);
        if row.has_data {
            table.first_row.get_or_insert(table.rows);
            table.end_row = table.rows.saturating_add(row.repeats);
            table.raw_text = table.raw_text.saturating_add(row.text);
            table.range_text =
                table.range_text.saturating_add(row.text.saturating_mul(row.repeats));
        }
        table.rows = table.rows.saturating_add(row.repeats);
    }

    fn finish_table(&mut self) {
        let table = std::mem::take(&mut self.table);
        self.needed = self.needed.saturating_add(table.needed());
    }
}

impl Table {
    fn needed(&self) -> u64 {
        let (Some(first_row), Some(min_col)) = (self.first_row, self.min_col) else {
            return self.raw_cells.saturating_mul(CELL_BYTES).saturating_add(self.raw_text);
        };
        let area = (self.end_row - first_row).saturating_mul(self.end_col - min_col);
        self.raw_cells
            .saturating_add(area)
            .saturating_mul(CELL_BYTES)
            .saturating_add(self.raw_text)
            .saturating_add(self.range_text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(tally: &mut OdsTally, tag: &[u8], text: u64) {
        tally.start(b"table-cell", tag);
        tally.end_cell(text);
    }

    #[test]
    fn repeats_multiply_cells_and_their_text() {
        let mut tally = OdsTally::default();
        tally.start(b"table", b"table:table");
        tally.start(b"table-row", b"table:table-row table:number-rows-repeated=\"1000\"");
        cell(&mut tally, b"table:table-cell table:number-columns-repeated=\"100\"", 100);
        tally.end(b"table-row");
        tally.end(b"table");
        let cells = 100 + 100 * 1000;
        let text = (string_cost(100) - 24) * 100 * 1001;
        assert_eq!(tally.needed(), cells * CELL_BYTES + text);
    }

    #[test]
    fn trailing_empty_cells_and_rows_cost_nothing() {
        let mut tally = OdsTally::default();
        tally.start(b"table", b"table:table");
        tally.start(b"table-row", b"table:table-row");
        cell(&mut tally, b"table:table-cell office:value-type=\"float\"", 0);
        cell(&mut tally, b"table:table-cell table:number-columns-repeated=\"16383\"", 0);
        tally.end(b"table-row");
        tally.start(b"table-row", b"table:table-row table:number-rows-repeated=\"1048575\"");
        cell(&mut tally, b"table:table-cell table:number-columns-repeated=\"16384\"", 0);
        tally.end(b"table-row");
        assert_eq!(tally.needed(), 2 * CELL_BYTES);
    }
}
