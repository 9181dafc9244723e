//! Aligned text tables for people; machines get `--output json`.

use std::io::{self, Write};

/// Widest a column may get before its cells are cut with `…`.
const MAX_WIDTH: usize = 48;

/// Writes `rows` under `headers` in aligned columns.
pub fn print(out: &mut impl Write, headers: &[&str], rows: &[Vec<String>]) -> io::Result<()> {
    let widths: Vec<usize> = (0..headers.len())
        .map(|i| {
            let cells = rows.iter().map(|r| r.get(i).map_or(0, |c| c.chars().count()));
            cells.chain([headers[i].len()]).max().unwrap_or(0).min(MAX_WIDTH)
        })
        .collect();
    let header: Vec<String> = headers.iter().map(|h| h.to_uppercase()).collect();
    write_line(out, &header, &widths)?;
    for row in rows {
        write_line(out, row, &widths)?;
    }
    Ok(())
}

fn write_line(out: &mut impl Write, cells: &[String], widths: &[usize]) -> io::Result<()> {
    let mut line = String::new();
    for (i, width) in widths.iter().enumerate() {
        let cell =
            cut(cells.get(i).map_or("", String::as_str).lines().next().unwrap_or(""), *width);
        if i + 1 == widths.len() {
            line.push_str(&cell);
        } else {
            line.push_str(&format!("{cell:<width$}  "));
        }
    }
    writeln!(out, "{}", line.trim_end())
}

fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    #[test]
    fn columns_align_and_long_cells_are_cut() {
        let mut out = Vec::new();
        let rows = vec![vec!["1".into(), "x".repeat(60)], vec!["22".into(), "b".into()]];
        super::print(&mut out, &["id", "name"], &rows).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "ID  NAME");
        assert!(lines[1].starts_with("1   xxx") && lines[1].ends_with('…'));
        assert_eq!(lines[2], "22  b");
    }
}
