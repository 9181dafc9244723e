//! Generates messy lead sheets for the benchmarks: `cargo run --release --example gen_leads --
//! ROWS OUT.csv|OUT.xlsx`. Deterministic (a fixed-seed generator), so runs compare.
//!
//! Like real CRM and Excel exports: numbers from 11 countries in the formats people paste
//! (international, national, `00` prefixes, `(0)`, extensions, dots, slashes, apostrophes,
//! digits only), about 5% junk, 1% empty, 3.5% repeated numbers, a second number in 30% of rows,
//! notes with commas, quotes and newlines.

use std::io::Write;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const HEADERS: [&str; 8] =
    ["Name", "E-Mail", "Phone", "Mobile 2", "Campaign", "Company", "City", "Notes"];
const FIRST: [&str; 12] = [
    "Anna", "Jürgen", "Claire", "Marco", "Sofía", "Jan", "Emma", "Lukas", "Noah", "Olivia", "Zoë",
    "Mehmet",
];
const LAST: [&str; 12] = [
    "Schmidt", "Müller", "Dubois", "Rossi", "García", "de Vries", "Johnson", "Weber", "Keller",
    "Brown", "Ünal", "Nowak",
];
const CAMPAIGNS: [&str; 3] = ["Spring Outreach", "Renewals", "Webinar Follow-up"];
const CITIES: [&str; 8] =
    ["Berlin", "Hamburg", "Lyon", "Milano", "Madrid", "Amsterdam", "London", "Zürich"];

fn phone(rng: &mut StdRng) -> String {
    let n = |rng: &mut StdRng, digits: u32| {
        format!("{:0width$}", rng.random_range(0..10u64.pow(digits)), width = digits as usize)
    };
    match rng.random_range(0..100) {
        0..=4 => {
            ["12", "n/a", "0151 CALL ME", "+49 151", "000"][rng.random_range(0..5)].to_string()
        }
        5 => String::new(),
        6..=20 => format!("0151 {}", n(rng, 8)),
        21..=30 => format!("+49 (0) 30 {}", n(rng, 7)),
        31..=38 => format!("0049 171/{}", n(rng, 7)),
        39..=45 => format!("+33 6 {} {} {} {}", n(rng, 2), n(rng, 2), n(rng, 2), n(rng, 2)),
        46..=52 => format!("+39 02 {} {}", n(rng, 4), n(rng, 4)),
        53..=58 => format!("+34 612.{}.{}", n(rng, 3), n(rng, 3)),
        59..=64 => format!("+31 6-{}", n(rng, 8)),
        65..=70 => format!("+44 20 7946 {}", n(rng, 4)),
        71..=76 => format!("+1 (415) 555-{} ext. {}", n(rng, 4), rng.random_range(1..99)),
        77..=81 => format!("+41 44 {} {} {}", n(rng, 3), n(rng, 2), n(rng, 2)),
        82..=86 => format!("'+43 1 {}", n(rng, 7)),
        87..=91 => format!("4915{}{}", rng.random_range(1..8), n(rng, 8)),
        92..=95 => format!("+91 98{}", n(rng, 8)),
        _ => format!("+55 11 9{}", n(rng, 8)),
    }
}

fn note(rng: &mut StdRng) -> String {
    match rng.random_range(0..10) {
        0 => "Call after 2pm, \"urgent\"".to_string(),
        1 => "line 1\nline 2".to_string(),
        2 => "=HYPERLINK(\"http://example.com\")".to_string(),
        _ => String::new(),
    }
}

fn rows(count: usize) -> impl Iterator<Item = [String; 8]> {
    let mut rng = StdRng::seed_from_u64(20261122);
    let mut earlier: Vec<(String, String)> = Vec::new();
    (0..count).map(move |i| {
        let name = format!("{} {}", FIRST[rng.random_range(0..12)], LAST[rng.random_range(0..12)]);
        let email = format!("{}{i}@example.com", name.to_lowercase().replace(' ', "."));
        let (phone, campaign) = if i > 10 && rng.random_bool(0.035) {
            earlier[rng.random_range(0..earlier.len())].clone()
        } else {
            (phone(&mut rng), CAMPAIGNS[rng.random_range(0..3)].to_string())
        };
        if earlier.len() < 10_000 {
            earlier.push((phone.clone(), campaign.clone()));
        } else {
            let slot = rng.random_range(0..earlier.len());
            earlier[slot] = (phone.clone(), campaign.clone());
        }
        let second = if rng.random_bool(0.3) { crate::phone(&mut rng) } else { String::new() };
        let company = format!("{} GmbH", LAST[rng.random_range(0..12)]);
        let city = CITIES[rng.random_range(0..8)].to_string();
        [name, email, phone, second, campaign, company, city, note(&mut rng)]
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(count), Some(out)) = (args.get(1).and_then(|n| n.parse::<usize>().ok()), args.get(2))
    else {
        eprintln!("usage: gen_leads ROWS OUT.csv|OUT.xlsx");
        std::process::exit(2);
    };
    if out.ends_with(".xlsx") {
        let mut book = rust_xlsxwriter::Workbook::new();
        let sheet = book.add_worksheet();
        for (c, h) in HEADERS.iter().enumerate() {
            sheet.write_string(0, c as u16, *h)?;
        }
        for (r, row) in rows(count).enumerate() {
            for (c, cell) in row.iter().enumerate() {
                // Digit-only phones go in as numbers, as Excel stores them when typed.
                match cell.parse::<f64>() {
                    Ok(number) if c == 2 && !cell.starts_with('0') => {
                        sheet.write_number(r as u32 + 1, c as u16, number)?
                    }
                    _ => sheet.write_string(r as u32 + 1, c as u16, cell)?,
                };
            }
        }
        book.save(out)?;
    } else {
        let mut writer =
            csv::Writer::from_writer(std::io::BufWriter::new(std::fs::File::create(out)?));
        writer.write_record(HEADERS)?;
        for row in rows(count) {
            writer.write_record(&row)?;
        }
        writer.into_inner()?.flush()?;
    }
    Ok(())
}
