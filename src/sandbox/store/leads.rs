//! Creating and listing leads. A create runs the rules that need the database (the campaign is
//! the user's, the phone number is not taken) and the inserts in one transaction, so two racing
//! requests for the same number cannot both pass the duplicate rule.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Row, Transaction, params};
use serde_json::{Map, Value};

use super::{Listed, Store, Window};
use crate::sandbox::error::SandboxError;
use crate::sandbox::requests::{ContactDraft, LEAD_FIELD_ORDER, LeadDraft};
use crate::sandbox::time::lead_now;
use crate::sandbox::validation::{ValidationErrors, selected_invalid, taken};
use crate::sandbox::wire::{CampaignRef, Lead, SecondaryContact, StringMap};

/// The status every new lead and secondary contact starts in.
const CREATED: &str = "created";

impl Store {
    /// Creates the lead of `draft` for `user`, or returns every validation failure.
    pub(crate) async fn create_lead(
        &self,
        user: i64,
        draft: LeadDraft,
    ) -> Result<Result<Lead, ValidationErrors>, SandboxError> {
        self.run("creating a lead", move |tx| create(tx, user, draft)).await
    }

    /// The main leads of `user` with their campaign and secondary contacts, ordered by id: all
    /// of them, or a window and the count of all. Two or three queries whatever the number of
    /// leads: main leads, then every secondary contact of those, then the count if windowed.
    pub(crate) async fn leads(
        &self,
        user: i64,
        window: Option<Window>,
    ) -> Result<Listed<Lead>, SandboxError> {
        self.run("listing leads", move |tx| {
            let mut leads = main_leads(tx, user, window)?;
            // Ordered by id, a window's leads are exactly the main leads between its first and
            // last id, so their contacts are the contacts with a parent in that range.
            let parents = match (leads.first(), leads.last()) {
                (Some(first), Some(last)) => (first.id, last.id),
                _ => return Ok(Listed { items: leads, total: count_main(tx, user)? }),
            };
            let mut contacts = secondary_contacts(tx, user, parents)?;
            for lead in &mut leads {
                lead.secondary_contacts = contacts.remove(&lead.id).unwrap_or_default();
            }
            match window {
                None => Ok(Listed::whole(leads)),
                Some(_) => Ok(Listed { items: leads, total: count_main(tx, user)? }),
            }
        })
        .await
    }
}

fn create(
    tx: &Transaction<'_>,
    user: i64,
    draft: LeadDraft,
) -> Result<Result<Lead, ValidationErrors>, SandboxError> {
    let mut errors = draft.errors;
    let campaign = match draft.campaign_id {
        Some(id) => campaign_of(tx, user, id)?,
        None => None,
    };
    if draft.campaign_id.is_some() && campaign.is_none() {
        errors.add("campaign_id", selected_invalid("campaign_id"));
    }
    if let (Some(phone), Some(campaign)) = (&draft.phone_number, &campaign)
        && !draft.allow_duplicate
        && is_taken(tx, campaign.id, phone)?
    {
        errors.add("phone_number", taken("phone_number"));
    }
    match (draft.phone_number, campaign) {
        (Some(phone), Some(campaign)) if errors.is_empty() => {
            let lead = insert(tx, user, campaign, phone, draft.variables)?;
            Ok(Ok(attach_contacts(tx, user, lead, draft.secondary_contacts)?))
        }
        _ => {
            errors.sort_by_field_order(&LEAD_FIELD_ORDER);
            Ok(Err(errors))
        }
    }
}

/// The campaign if it exists and belongs to `user`; a foreign one reads as missing.
pub(super) fn campaign_of(
    tx: &Transaction<'_>,
    user: i64,
    id: i64,
) -> Result<Option<CampaignRef>, SandboxError> {
    let sql = "SELECT name FROM campaigns WHERE id = ?1 AND user_id = ?2";
    let name: Option<String> =
        tx.prepare_cached(sql)?.query_row(params![id, user], |row| row.get(0)).optional()?;
    Ok(name.map(|name| CampaignRef { id, name }))
}

/// Whether `phone` is already a main lead of the campaign (secondary contacts don't count).
fn is_taken(tx: &Transaction<'_>, campaign: i64, phone: &str) -> Result<bool, SandboxError> {
    let sql = "SELECT 1 FROM leads WHERE campaign_id = ?1 AND phone_number = ?2
               AND parent_id IS NULL LIMIT 1";
    let found =
        tx.prepare_cached(sql)?.query_row(params![campaign, phone], |_| Ok(())).optional()?;
    Ok(found.is_some())
}

fn insert(
    tx: &Transaction<'_>,
    user: i64,
    campaign: CampaignRef,
    phone_number: String,
    variables: StringMap,
) -> Result<Lead, SandboxError> {
    let now = lead_now();
    let id = insert_row(tx, user, campaign.id, None, &phone_number, &variables, &now)?;
    Ok(Lead {
        id,
        campaign_id: campaign.id,
        phone_number,
        variables,
        status: CREATED.into(),
        created_at: now.clone(),
        updated_at: now,
        campaign,
        secondary_contacts: Vec::new(),
    })
}

fn attach_contacts(
    tx: &Transaction<'_>,
    user: i64,
    mut lead: Lead,
    contacts: Vec<ContactDraft>,
) -> Result<Lead, SandboxError> {
    for contact in contacts {
        let (phone, variables) = (&contact.phone_number, &contact.variables);
        let parent = Some(lead.id);
        let id =
            insert_row(tx, user, lead.campaign_id, parent, phone, variables, &lead.created_at)?;
        lead.secondary_contacts.push(SecondaryContact {
            id,
            phone_number: contact.phone_number,
            variables: contact.variables,
            status: CREATED.into(),
            created_at: lead.created_at.clone(),
            updated_at: lead.created_at.clone(),
        });
    }
    Ok(lead)
}

fn insert_row(
    tx: &Transaction<'_>,
    user: i64,
    campaign: i64,
    parent: Option<i64>,
    phone: &str,
    variables: &StringMap,
    now: &str,
) -> Result<i64, SandboxError> {
    let sql = "INSERT INTO leads (user_id, campaign_id, parent_id, phone_number, variables,
               status, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)";
    let variables = Value::Object(variables.0.clone()).to_string();
    tx.prepare_cached(sql)?
        .execute(params![user, campaign, parent, phone, variables, CREATED, now])?;
    Ok(tx.last_insert_rowid())
}

fn count_main(tx: &Transaction<'_>, user: i64) -> Result<i64, SandboxError> {
    let sql = "SELECT COUNT(*) FROM leads WHERE user_id = ?1 AND parent_id IS NULL";
    Ok(tx.prepare_cached(sql)?.query_row([user], |row| row.get(0))?)
}

fn main_leads(
    tx: &Transaction<'_>,
    user: i64,
    window: Option<Window>,
) -> Result<Vec<Lead>, SandboxError> {
    let sql = "SELECT l.id, l.campaign_id, l.phone_number, l.variables, l.status, l.created_at,
               l.updated_at, c.name FROM leads l JOIN campaigns c ON c.id = l.campaign_id
               WHERE l.user_id = ?1 AND l.parent_id IS NULL ORDER BY l.id LIMIT ?2 OFFSET ?3";
    // SQLite reads LIMIT -1 as no limit, so one statement serves the whole list and a window.
    let Window { offset, limit } = window.unwrap_or(Window { offset: 0, limit: -1 });
    let mut statement = tx.prepare_cached(sql)?;
    let rows = statement.query_map(params![user, limit, offset], main_lead)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The main lead `id` of `user` with its secondary contacts, as the list shows it; `None` when
/// there is no such lead or it is another user's (or a secondary contact).
pub(super) fn one_lead(
    tx: &Transaction<'_>,
    user: i64,
    id: i64,
) -> Result<Option<Lead>, SandboxError> {
    let sql = "SELECT l.id, l.campaign_id, l.phone_number, l.variables, l.status, l.created_at,
               l.updated_at, c.name FROM leads l JOIN campaigns c ON c.id = l.campaign_id
               WHERE l.id = ?1 AND l.user_id = ?2 AND l.parent_id IS NULL";
    let lead = tx.prepare_cached(sql)?.query_row(params![id, user], main_lead).optional()?;
    let Some(mut lead) = lead else {
        return Ok(None);
    };
    lead.secondary_contacts =
        secondary_contacts(tx, user, (id, id))?.remove(&id).unwrap_or_default();
    Ok(Some(lead))
}

/// A main lead of the columns `main_leads` and `one_lead` select, without its contacts.
fn main_lead(row: &Row<'_>) -> rusqlite::Result<Lead> {
    Ok(Lead {
        id: row.get(0)?,
        campaign_id: row.get(1)?,
        phone_number: row.get(2)?,
        variables: variables(row, 3)?,
        status: row.get(4)?,
        created_at: row.get(5)?,
        updated_at: row.get(6)?,
        campaign: CampaignRef { id: row.get(1)?, name: row.get(7)? },
        secondary_contacts: Vec::new(),
    })
}

/// The secondary contacts of `user` whose main lead's id is in `parents` (inclusive), grouped
/// by main lead, each group ordered by id.
fn secondary_contacts(
    tx: &Transaction<'_>,
    user: i64,
    (first, last): (i64, i64),
) -> Result<HashMap<i64, Vec<SecondaryContact>>, SandboxError> {
    let sql = "SELECT parent_id, id, phone_number, variables, status, created_at, updated_at
               FROM leads WHERE user_id = ?1 AND parent_id BETWEEN ?2 AND ?3
               ORDER BY parent_id, id";
    let mut statement = tx.prepare_cached(sql)?;
    let mut rows = statement.query(params![user, first, last])?;
    let mut groups: HashMap<i64, Vec<SecondaryContact>> = HashMap::new();
    while let Some(row) = rows.next()? {
        let contact = SecondaryContact {
            id: row.get(1)?,
            phone_number: row.get(2)?,
            variables: variables(row, 3)?,
            status: row.get(4)?,
            created_at: row.get(5)?,
            updated_at: row.get(6)?,
        };
        groups.entry(row.get(0)?).or_default().push(contact);
    }
    Ok(groups)
}

fn variables(row: &Row<'_>, index: usize) -> rusqlite::Result<StringMap> {
    let text: String = row.get(index)?;
    let map: Map<String, Value> = serde_json::from_str(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(e))
    })?;
    Ok(StringMap(map))
}
