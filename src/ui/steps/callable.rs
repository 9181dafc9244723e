//! Step 3's "who may be called": the countries numbers may belong to, the kinds of number
//! never called, the values of the consent column that mean yes, and suppression lists
//! uploaded beside the sheet. The page only carries the person's choices into the mapping and
//! the import's options; the library's guards judge every row with them, as `import
//! --countries`, `--suppress` and the mapping's `block_number_types` and `consent` do.

use axum::extract::{Multipart, Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};

use super::super::App;
use super::super::page::{self, Step, View};
use super::super::text::Text;
use super::super::upload;
use super::field;
use crate::mapping::{MappingFile, default_consent_values};
use crate::phone::{BLOCKABLE, NumberType};
use crate::pipeline::ImportOptions;

/// Form fields: a marker that the kinds of number were on the form (so none ticked means none
/// blocked, not "the default"), and the suppression lists' ids.
const BLOCK_SHOWN: &str = "block_shown";
pub(super) const SUPPRESS: &str = "suppress";

/// The fieldset inside the page's one form.
pub(super) fn fields(
    app: &App,
    id: &str,
    mapping: &MappingFile,
    pairs: &[(String, String)],
    t: &Text,
) -> Markup {
    let countries = match field(pairs, "countries") {
        typed if !typed.is_empty() => typed,
        _ => mapping.countries.join(", "),
    };
    html! {
        fieldset {
            legend { (t.callable_legend) }
            p {
                label for="countries" { (t.countries_label) }
                " "
                span class="hint" id="countries-hint" { (t.countries_hint) }
                br;
                input id="countries" name="countries" value=(countries)
                    aria-describedby="countries-hint";
            }
            (block_boxes(mapping, pairs, t))
            @if let Some(consent) = &mapping.consent {
                p {
                    label for="consent_values" { ((t.consent_values_label)(&consent.column)) }
                    br;
                    input id="consent_values" name="consent_values"
                        value=(consent.values.join(", "));
                }
            }
            @for (list, name) in suppression_lists(app, pairs) {
                input type="hidden" name=(SUPPRESS) value=(list);
                p class="notice" { ((t.suppress_in_use)(&name)) }
            }
            (upload_fields(id, t))
        }
    }
}

/// The kinds of number never called: as the address says (a loaded mapping file, the way back
/// from the check), else the mapping's, else premium rate.
fn block_boxes(mapping: &MappingFile, pairs: &[(String, String)], t: &Text) -> Markup {
    let chosen = pairs.iter().any(|(k, _)| k == BLOCK_SHOWN);
    let named = pairs.iter().filter(|(k, _)| k == "block").map(|(_, v)| v.clone()).collect();
    let blocked: Vec<String> = match (chosen, &mapping.block_number_types) {
        (true, _) => named,
        (false, Some(names)) => names
            .iter()
            .filter_map(|n| NumberType::parse(n).ok())
            .map(|k| k.as_str().to_string())
            .collect(),
        (false, None) => vec![NumberType::PremiumRate.as_str().to_string()],
    };
    html! {
        fieldset {
            legend { (t.block_legend) }
            input type="hidden" name=(BLOCK_SHOWN) value="1";
            @for kind in BLOCKABLE {
                @let name = kind.as_str();
                // The box inside its label: a label between two boxes reads as either one's.
                label class="choice" for={ "block-" (name) } {
                    input type="checkbox" id={ "block-" (name) } name="block" value=(name)
                        checked[blocked.iter().any(|b| b == name)];
                    " " ((t.number_kind)(kind))
                }
                " "
            }
        }
    }
}

/// The suppression lists the address names, as (id, file name), those this server knows.
fn suppression_lists(app: &App, pairs: &[(String, String)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .filter(|(k, _)| k == SUPPRESS)
        .filter_map(|(_, id)| Some((id.clone(), app.sources.get(id)?.location)))
        .collect()
}

/// The file field for a suppression list and its button, inside the page's one form: the
/// button sends the whole form as multipart, so the list is added and every choice kept.
fn upload_fields(id: &str, t: &Text) -> Markup {
    html! {
        p {
            label for="suppress-file" { (t.suppress_label) }
            " "
            input type="file" id="suppress-file" name=(upload::FIELD)
                accept=".csv,.tsv,.txt,.xlsx,.xls,.ods" aria-describedby="suppress-file-hint";
            span id="suppress-file-hint" class="hint" { (t.suppress_hint) }
            " "
            button type="submit" formaction={ "/mapping/" (id) "/suppress" }
                formenctype="multipart/form-data" formnovalidate { (t.suppress_button) }
        }
    }
}

/// A suppression list uploaded with the page's form: kept like a sheet, its id added to the
/// Mapping page's address beside every choice the form carried.
pub(in super::super) async fn upload_list(
    State(app): State<App>,
    view: View,
    Path(id): Path<String>,
    headers: HeaderMap,
    mut multipart: Multipart,
) -> Response {
    let t = view.text();
    let form =
        upload::receive_form(&headers, &mut multipart, &app.sources, app.max_upload_bytes).await;
    let mut fields = super::choices::carried(&form.fields);
    match form.file {
        Ok((list, chosen)) => {
            app.sources.insert(list.clone(), chosen);
            fields.push((SUPPRESS.to_string(), list));
            let query = super::choices::as_query(&fields);
            Redirect::to(&format!("/mapping/{id}?{query}")).into_response()
        }
        Err(error) => {
            let back = format!("/mapping/{id}?{}", super::choices::as_query(&fields));
            let body = html! {
                (page::error(t, &upload::said(&error, t)))
                p { a href=(back) { (t.back_mapping) } }
            };
            let (label, status) = (app.service.label(t), error.status());
            page::page(&view, label, Step::Mapping, t.mapping_title, body, status)
        }
    }
}

/// The check's form carried into the mapping and the options: the library checks the rest.
pub(super) fn apply(
    app: &App,
    pairs: &[(String, String)],
    mapping: &mut MappingFile,
    opts: &mut ImportOptions,
    t: &Text,
) -> Result<(), String> {
    let list = |text: String| -> Vec<String> {
        text.split([',', ';', '\n'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    let countries = list(field(pairs, "countries"));
    if !countries.is_empty() {
        opts.countries = Some(countries);
    }
    if pairs.iter().any(|(k, _)| k == BLOCK_SHOWN) {
        let blocked = pairs.iter().filter(|(k, _)| k == "block").map(|(_, v)| v.clone()).collect();
        mapping.block_number_types = Some(blocked);
    }
    if let Some(consent) = mapping.consent.as_mut() {
        let values = list(field(pairs, "consent_values"));
        consent.values = if values.is_empty() { default_consent_values() } else { values };
    }
    for (_, id) in pairs.iter().filter(|(k, _)| k == SUPPRESS) {
        let chosen = app.sources.get(id).ok_or_else(|| t.unknown_source.to_string())?;
        opts.suppress.push(chosen.path.display().to_string());
    }
    Ok(())
}
