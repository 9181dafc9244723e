//! Step 3, Mapping (read-only for now): each column with the role `mapping::infer` gives it,
//! as `leadsync import` without `--mapping` would use it, resolved by the mapping's own
//! `resolve` so that what is shown is what would be sent.

use std::fmt::Write;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::super::App;
use super::super::page::{self, Esc, Step, View};
use super::super::text::Text;
use super::{ReadingChoice, Wanted, preview};
use crate::mapping::{CampaignRef, CampaignSource, MappingFile, header_key, infer};

pub(in super::super) async fn show(
    State(app): State<App>,
    view: View,
    Path(id): Path<String>,
    Query(choice): Query<ReadingChoice>,
) -> Response {
    let t = view.text();
    let label = app.service.label(t);
    let back = back_link(&id, &choice, t);
    let Some(chosen) = app.sources.get(&id) else {
        return page::unknown_source(&view, label, Step::Mapping, t.mapping_title);
    };
    let preview = match preview(&chosen, &choice, Wanted { rows: 1, above: false }, t).await {
        Ok(preview) => preview,
        Err(message) => {
            let body = format!("{}{back}", page::error_box(t, &message));
            let status = StatusCode::UNPROCESSABLE_ENTITY;
            return page::page(&view, label, Step::Mapping, t.mapping_title, &body, status);
        }
    };
    let (mapping, _notes) = infer(&preview.headers);
    let mut body = format!("<p>{}</p>", Esc(t.mapping_intro));
    let roles = match roles(&mapping, &preview.headers, &chosen.location, t) {
        Some(roles) => roles,
        None => {
            body.push_str(&page::error_box(t, t.no_phone_column));
            vec![Vec::new(); preview.headers.len()]
        }
    };
    let first = preview.rows.first();
    let _ = write!(
        body,
        "<div class=\"table-wrap\" role=\"region\" aria-labelledby=\"columns-caption\" tabindex=\"0\">\
         <table><caption id=\"columns-caption\">{}</caption><thead><tr><th scope=\"col\">{}</th>\
         <th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead><tbody>",
        Esc(t.mapping_title),
        Esc(t.column),
        Esc(t.role),
        Esc(t.first_value)
    );
    for (i, header) in preview.headers.iter().enumerate() {
        let value = first.and_then(|r| r.cells.get(i)).unwrap_or_default();
        let _ = write!(
            body,
            "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td></tr>",
            Esc(header),
            Esc(&roles[i].join("; ")),
            Esc(value)
        );
    }
    let _ = write!(body, "</tbody></table></div><p>{}</p>", Esc(t.next_later));
    let campaigns = campaign_names(&app).await;
    body.push_str(&check_form(&id, &choice, mapping.campaign_column.as_deref(), &campaigns, t));
    body.push_str(&back);
    page::page(&view, label, Step::Mapping, t.mapping_title, &body, StatusCode::OK)
}

/// The account's campaigns, by id and name; none without a service or when it cannot be asked
/// (the field then takes an id or name typed in, as `--campaign` does).
async fn campaign_names(app: &App) -> Vec<(u64, String)> {
    let Some(client) = &app.client else { return Vec::new() };
    match client.list_campaigns().await {
        Ok(campaigns) => campaigns.into_iter().map(|c| (c.id, c.name)).collect(),
        Err(error) => {
            tracing::info!("ui: the campaign list could not be read: {error}");
            Vec::new()
        }
    }
}

/// The form that starts the check: the campaign (or the campaign column), the country of
/// national numbers, and the reading choices carried along unchanged.
fn check_form(
    id: &str,
    choice: &ReadingChoice,
    campaign_column: Option<&str>,
    campaigns: &[(u64, String)],
    t: &Text,
) -> String {
    let mut form = format!(
        "<form method=\"post\" action=\"/check/{}\" data-busy=\"{}\"><fieldset><legend>{}</legend>",
        Esc(id),
        Esc(t.checking),
        Esc(t.check_legend)
    );
    for (name, value) in choice.fields() {
        let _ = write!(form, "<input type=\"hidden\" name=\"{name}\" value=\"{}\">", Esc(value));
    }
    let _ = write!(
        form,
        "<p><label for=\"campaign\">{}</label> <span class=\"hint\" id=\"campaign-hint\">{}</span><br>",
        Esc(t.campaign_label),
        Esc(t.campaign_hint)
    );
    match (campaigns.is_empty(), campaign_column) {
        (true, Some(column)) => {
            let _ = write!(
                form,
                "<select id=\"campaign\" name=\"campaign\" aria-describedby=\"campaign-hint\">\
                 <option value=\"\">{}</option></select>",
                Esc(&(t.campaign_from_column)(column))
            );
        }
        (true, None) => form.push_str(
            "<input id=\"campaign\" name=\"campaign\" required aria-describedby=\"campaign-hint\">",
        ),
        (false, _) => {
            form.push_str(
                "<select id=\"campaign\" name=\"campaign\" aria-describedby=\"campaign-hint\">",
            );
            if let Some(column) = campaign_column {
                let _ = write!(
                    form,
                    "<option value=\"\">{}</option>",
                    Esc(&(t.campaign_from_column)(column))
                );
            }
            for (campaign_id, name) in campaigns {
                let _ = write!(
                    form,
                    "<option value=\"{campaign_id}\">{} ({campaign_id})</option>",
                    Esc(name)
                );
            }
            form.push_str("</select>");
        }
    }
    let _ = write!(
        form,
        "</p><p><label for=\"region\">{}</label> <span class=\"hint\" id=\"region-hint\">{}</span><br>\
         <input id=\"region\" name=\"region\" value=\"{}\" aria-describedby=\"region-hint\"></p>\
         <p><button type=\"submit\">{}</button></p></fieldset></form>",
        Esc(t.region_label),
        Esc(t.region_hint),
        crate::mapping::DEFAULT_REGION,
        Esc(t.check_button)
    );
    form
}

/// Each column's roles in words; `None` when no column can be the phone number.
fn roles(
    mapping: &MappingFile,
    headers: &[String],
    location: &str,
    t: &Text,
) -> Option<Vec<Vec<String>>> {
    let mut file = mapping.clone();
    // Resolving needs a campaign. Without a campaign column one is chosen for every row (in a
    // later version of this step); any stands in for it here, as it uses no column.
    if file.campaign.is_none() && file.campaign_column.is_none() {
        file.campaign = Some(CampaignRef::Id(0));
    }
    let plan = file.resolve(headers, location).ok()?;
    let mut roles: Vec<Vec<String>> = vec![Vec::new(); headers.len()];
    roles[plan.phone].push(t.role_phone.to_string());
    if let CampaignSource::Column(column) = plan.campaign {
        roles[column].push(t.role_campaign.to_string());
    }
    let variables =
        plan.variables.iter().chain(plan.contacts.iter().flat_map(|c| c.variables.iter()));
    for (name, columns) in variables {
        for &column in columns {
            roles[column].push((t.role_variable)(name));
        }
    }
    for contact in &plan.contacts {
        roles[contact.phone].push(t.role_secondary.to_string());
    }
    // The guards' columns are not in the plan: found by the same header comparison.
    let guards = [
        (mapping.region_column.as_deref(), t.role_country),
        (mapping.consent.as_ref().map(|c| c.column.as_str()), t.role_consent),
    ];
    for (header, role) in guards {
        let Some(wanted) = header.map(header_key) else { continue };
        for (i, h) in headers.iter().enumerate() {
            if header_key(h) == wanted {
                roles[i].push(role.to_string());
            }
        }
    }
    for column in roles.iter_mut().filter(|r| r.is_empty()) {
        column.push(t.role_ignored.to_string());
    }
    Some(roles)
}

fn back_link(id: &str, choice: &ReadingChoice, t: &Text) -> String {
    let query = choice.query();
    let href = match query.is_empty() {
        true => format!("/reading/{id}"),
        false => format!("/reading/{id}?{query}"),
    };
    format!("<p class=\"next\"><a href=\"{}\">{}</a></p>", Esc(&href), Esc(t.back_reading))
}
