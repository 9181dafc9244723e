//! Changing and deleting a lead, the two operations the service documents beyond the interface.
//! Only main leads of the user are addressed: a secondary contact's id, another user's lead and
//! a lead that is gone all read as not found, so an answer never tells whether an id exists.
//! Each runs in one transaction, so a change is checked and written as one step.

use rusqlite::{OptionalExtension, Transaction, params};

use super::Store;
use super::leads::{campaign_of, one_lead};
use crate::sandbox::error::SandboxError;
use crate::sandbox::requests::{CHANGE_FIELD_ORDER, ChangeDraft};
use crate::sandbox::time::lead_now;
use crate::sandbox::validation::{ValidationErrors, selected_invalid};
use crate::sandbox::wire::{CampaignRef, Lead, StringMap};

/// What became of an update or a delete.
#[derive(Debug)]
pub(crate) enum Outcome<T> {
    Done(T),
    Invalid(ValidationErrors),
    /// No main lead of the user has this id.
    NotFound,
}

impl Store {
    /// Applies `change` to the main lead `id` of `user`: the lead as it is now, or every
    /// validation failure, or not found.
    pub(crate) async fn update_lead(
        &self,
        user: i64,
        id: i64,
        change: ChangeDraft,
    ) -> Result<Outcome<Lead>, SandboxError> {
        self.run("updating a lead", move |tx| update(tx, user, id, change)).await
    }

    /// Deletes the main lead `id` of `user` and its secondary contacts.
    pub(crate) async fn delete_lead(
        &self,
        user: i64,
        id: i64,
    ) -> Result<Outcome<()>, SandboxError> {
        self.run("deleting a lead", move |tx| delete(tx, user, id)).await
    }
}

fn update(
    tx: &Transaction<'_>,
    user: i64,
    id: i64,
    change: ChangeDraft,
) -> Result<Outcome<Lead>, SandboxError> {
    // The lead is looked up before the body is judged, as route model binding does in Laravel:
    // someone else's lead is a 404 whatever the body says.
    let Some(mut lead) = one_lead(tx, user, id)? else {
        return Ok(Outcome::NotFound);
    };
    let mut errors = change.errors;
    let campaign = match change.campaign_id {
        Some(campaign) => campaign_of(tx, user, campaign)?,
        None => None,
    };
    if change.campaign_id.is_some() && campaign.is_none() {
        errors.add("campaign_id", selected_invalid("campaign_id"));
    }
    if !errors.is_empty() {
        errors.sort_by_field_order(&CHANGE_FIELD_ORDER);
        return Ok(Outcome::Invalid(errors));
    }
    // The duplicate rule of create is not applied: the documentation names none for an update,
    // and a sandbox stricter than the service would hide what the service accepts.
    apply(&mut lead, campaign, change.phone_number, change.status, change.variables);
    write(tx, user, &lead)?;
    Ok(Outcome::Done(lead))
}

/// The lead with the change made: sent fields replace, variables merge (a key sent with `""`
/// is set to `""`, not removed), and `updated_at` is now.
fn apply(
    lead: &mut Lead,
    campaign: Option<CampaignRef>,
    phone: Option<String>,
    status: Option<String>,
    variables: StringMap,
) {
    if let Some(campaign) = campaign {
        lead.campaign_id = campaign.id;
        lead.campaign = campaign;
    }
    if let Some(phone) = phone {
        lead.phone_number = phone;
    }
    if let Some(status) = status {
        lead.status = status;
    }
    lead.variables.0.extend(variables.0);
    lead.updated_at = lead_now();
}

fn write(tx: &Transaction<'_>, user: i64, lead: &Lead) -> Result<(), SandboxError> {
    let sql = "UPDATE leads SET campaign_id = ?1, phone_number = ?2, variables = ?3, status = ?4,
               updated_at = ?5 WHERE id = ?6";
    let variables = serde_json::Value::Object(lead.variables.0.clone()).to_string();
    let (phone, status, now) = (&lead.phone_number, &lead.status, &lead.updated_at);
    tx.prepare_cached(sql)?.execute(params![
        lead.campaign_id,
        phone,
        variables,
        status,
        now,
        lead.id
    ])?;
    // Secondary contacts belong to their main lead's campaign, so they move with it. The user
    // narrows the search to the index (`leads_by_user`): without it every update read every lead.
    let sql = "UPDATE leads SET campaign_id = ?1 WHERE user_id = ?3 AND parent_id = ?2";
    tx.prepare_cached(sql)?.execute(params![lead.campaign_id, lead.id, user])?;
    Ok(())
}

fn delete(tx: &Transaction<'_>, user: i64, id: i64) -> Result<Outcome<()>, SandboxError> {
    let sql = "SELECT 1 FROM leads WHERE id = ?1 AND user_id = ?2 AND parent_id IS NULL";
    let found = tx.prepare_cached(sql)?.query_row(params![id, user], |_| Ok(())).optional()?;
    if found.is_none() {
        return Ok(Outcome::NotFound);
    }
    // Contacts first: their parent_id references the lead.
    let contacts = "DELETE FROM leads WHERE user_id = ?1 AND parent_id = ?2";
    tx.prepare_cached(contacts)?.execute(params![user, id])?;
    tx.prepare_cached("DELETE FROM leads WHERE id = ?1")?.execute([id])?;
    Ok(Outcome::Done(()))
}
