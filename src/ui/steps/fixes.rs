//! Fixes offered again: a cell corrected on a row's page is remembered (the library's
//! [`Remembered`], in the state folder), and when a later check meets the same wrong cell in a
//! column of the same name, its page offers the same fix for every such row at once, instead of
//! asking her to make it again.

use std::sync::Arc;

use maud::{Markup, html};

use super::super::App;
use super::super::runs::Run;
use super::super::text::Text;
use crate::edits::{Edits, Offer, Remembered};
use crate::report::RowStatus;
use crate::report::rows_db::{RowFilter, RowsDb};

/// Where the fixes are kept, under the state folder.
const FIXES: &str = "ui/fixes.json";
/// Rows of a check looked at for an offer: the ones that need fixing, the first of them.
const ROWS_LOOKED_AT: usize = 1_000;

fn memory(app: &App) -> Remembered {
    Remembered::load(&app.state_dir.join(FIXES))
}

/// Remembers the cells of a row she changed: each `(column name, as read, as typed)`.
pub(super) fn remember<'a>(
    app: &App,
    changed: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>,
) {
    let mut memory = memory(app);
    for (column, was, now) in changed {
        memory.remember(column, was, now);
    }
    if let Err(error) = memory.save() {
        tracing::warn!("ui: the fixes could not be remembered: {error}");
    }
}

/// The remembered fixes that fit this check's rows to fix and are not made yet; found once.
pub(super) async fn offers(app: &App, run: &Run) -> Arc<Vec<Offer>> {
    if let Some(found) = run.offers.lock().expect("never left half-written").clone() {
        return found;
    }
    let found = Arc::new(find(app, run).await);
    *run.offers.lock().expect("never left half-written") = Some(found.clone());
    found
}

async fn find(app: &App, run: &Run) -> Vec<Offer> {
    let memory = memory(app);
    if memory.is_empty() {
        return Vec::new();
    }
    let to_fix =
        RowFilter { status: Some(RowStatus::Rejected), reason: None, search: None, after: 0 };
    let Ok(page) = RowsDb::open(&run.rows_db()).and_then(|db| db.page(&to_fix, ROWS_LOOKED_AT))
    else {
        return Vec::new();
    };
    let rows: Vec<u64> = page.rows.iter().filter_map(|r| r["row"].as_u64()).collect();
    let Ok(checked) = crate::pipeline::check_rows(&run.options(), app.client.as_ref(), &rows).await
    else {
        return Vec::new();
    };
    let Some(headers) = checked.first().map(|c| c.headers.clone()) else { return Vec::new() };
    let edits = run.edits();
    let made =
        |offer: &Offer| edits.cells.get(&offer.row).is_some_and(|c| c.contains_key(&offer.column));
    let cells = checked.iter().map(|c| (c.report.row, c.original.as_slice()));
    memory.offers(&headers, cells).into_iter().filter(|o| !made(o)).collect()
}

/// The fixes as edits of this check; a cell she changed by hand since the offer keeps her value.
pub(super) fn apply(offers: &[Offer], edits: &mut Edits) {
    for offer in offers {
        let typed = edits.cells.get(&offer.row).is_some_and(|c| c.contains_key(&offer.column));
        if !typed {
            edits.set_cell(offer.row, offer.column, &offer.fix.now, &offer.fix.was);
        }
    }
}

/// The offer on the check's page: how many rows, one example, and the button.
pub(super) fn offer_box(run_id: &str, offers: &[Offer], t: &Text) -> Markup {
    let Some(first) = offers.first() else { return html! {} };
    let fix = &first.fix;
    let said = (t.fixes_offered)(offers.len() as u64, &fix.column, &fix.was, &fix.now);
    html! {
        div class="proposal" role="note" {
            p { (said) }
            form method="post" action={ "/run/" (run_id) "/reasons" } {
                p {
                    input type="hidden" name="action" value="remembered";
                    button type="submit" { (t.fixes_apply) }
                }
            }
        }
    }
}
