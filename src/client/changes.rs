//! Updating and deleting a lead: the two operations the service documents beyond the interface
//! (see `docs/service-assumptions.md`).
//!
//! Each has two path forms, because the service's pages disagree: update is documented under
//! `leads/{id}` and used under `user/leads/{id}` by one of its clients, delete is documented
//! under `user/leads/{id}`. The documented form is tried first; a 404 that says the route does
//! not exist (an empty or HTML body, Laravel's "The route ... could not be found", a 405) moves
//! on to the other form, and the form that answered is kept for the client's life. A 404 that
//! names the lead is [`ClientError::LeadNotFound`], never a reason to try the other form.
//!
//! Neither is retried here. A 5xx or a success that is not JSON is
//! [`ClientError::WriteInDoubt`]; a timeout or a broken connection stays what it is, already
//! a maybe-applied error. Both operations are idempotent, so the caller may send them again.

use std::sync::atomic::{AtomicU8, Ordering};

use reqwest::{Method, StatusCode};
use serde::Deserialize;
use serde_json::Value;

use super::model::{Deleted, Lead, LeadChange, Updated};
use super::{Client, ClientError};

/// Update: documented as `PUT leads/{id}`, one client uses `PUT user/leads/{id}`.
const UPDATE_FORMS: [&str; 2] = ["leads", "user/leads"];
/// Delete: documented as `DELETE user/leads/{id}`; `leads/{id}` is the update's form.
const DELETE_FORMS: [&str; 2] = ["user/leads", "leads"];

/// The path form each operation was answered under, shared by the clones of a client.
#[derive(Debug, Default)]
pub(super) struct PathForms {
    update: Form,
    delete: Form,
}

/// Which of an operation's two forms the service serves: 0 until an answer showed it, else
/// the form's index plus one.
#[derive(Debug, Default)]
struct Form(AtomicU8);

impl Form {
    /// The indexes of the forms to try, in order.
    fn to_try(&self) -> &'static [usize] {
        match self.0.load(Ordering::Relaxed) {
            1 => &[0],
            2 => &[1],
            _ => &[0, 1],
        }
    }

    fn remember(&self, index: usize) {
        self.0.store(index as u8 + 1, Ordering::Relaxed);
    }
}

impl Client {
    /// Changes the fields of `change` on lead `id`; its variables are merged into the lead's.
    /// A lead that is not the user's is [`ClientError::LeadNotFound`]. The lead in the answer
    /// is a courtesy of some services: read the lead list to see a change for sure.
    pub async fn update_lead(&self, id: u64, change: &LeadChange) -> Result<Updated, ClientError> {
        let body = serde_json::to_value(change).expect("a LeadChange always serializes");
        let answer = self.lead_write(Method::PUT, id, Some(&body)).await?;
        let lead = answer.get("data").and_then(|data| Lead::deserialize(data).ok());
        Ok(Updated { message: message_of(&answer), lead: lead.filter(|lead| lead.id > 0) })
    }

    /// Deletes lead `id` and its secondary contacts, for good. A lead already gone (or another
    /// account's) is [`ClientError::LeadNotFound`], which a caller deleting it may take as done.
    pub async fn delete_lead(&self, id: u64) -> Result<Deleted, ClientError> {
        let answer = self.lead_write(Method::DELETE, id, None).await?;
        Ok(Deleted { message: message_of(&answer) })
    }

    /// Sends the write to the operation's path forms in turn (see the module doc), and reads
    /// its answer: JSON, or `null` for an empty body.
    async fn lead_write(
        &self,
        method: Method,
        id: u64,
        body: Option<&Value>,
    ) -> Result<Value, ClientError> {
        let (form, forms) = match method {
            Method::PUT => (&self.lead_paths.update, UPDATE_FORMS),
            _ => (&self.lead_paths.delete, DELETE_FORMS),
        };
        let mut missing = None;
        for &index in form.to_try() {
            let path = format!("{}/{id}", forms[index]);
            let sent = self.send_bytes(method.clone(), &path, &[], body).await;
            match sent {
                Err(e) if is_missing_route(&e) => missing = Some(e),
                sent => {
                    if shows_route(&sent) {
                        form.remember(index);
                    }
                    return answer_of(&method, id, &path, sent);
                }
            }
        }
        Err(missing.expect("at least one path form is tried"))
    }
}

/// The answer of a lead write as JSON, or the error it means for an idempotent write.
fn answer_of(
    method: &Method,
    id: u64,
    path: &str,
    sent: Result<(StatusCode, bytes::Bytes), ClientError>,
) -> Result<Value, ClientError> {
    let in_doubt = |status: u16, detail: String| ClientError::WriteInDoubt {
        method: method.to_string(),
        status,
        path: path.to_string(),
        detail,
    };
    let (status, bytes) = match sent {
        Ok(answer) => answer,
        Err(ClientError::Server { status, message, .. }) => return Err(in_doubt(status, message)),
        Err(ClientError::NotFound { path, message }) if names_a_lead(&message) => {
            return Err(ClientError::LeadNotFound { id, path, message });
        }
        Err(e) => return Err(e),
    };
    super::parse_json(status, path, &bytes).map_err(|e| match e {
        ClientError::BadBody { status, detail, .. } => in_doubt(status, detail),
        other => other,
    })
}

/// Whether an answer proves the path form is served: a success, a validation failure, or a
/// 404 that names the lead. A 5xx or a lost connection proves nothing (a gateway answers them
/// for any path).
fn shows_route(sent: &Result<(StatusCode, bytes::Bytes), ClientError>) -> bool {
    match sent {
        Ok(_) | Err(ClientError::Validation { .. }) => true,
        Err(ClientError::NotFound { message, .. }) => names_a_lead(message),
        Err(_) => false,
    }
}

/// Whether an error says the path form does not exist, so the other form may be tried without
/// risk: nothing was done.
fn is_missing_route(e: &ClientError) -> bool {
    match e {
        ClientError::NotFound { message, .. } => !names_a_lead(message),
        ClientError::Status { status, .. } => *status == 405,
        _ => false,
    }
}

/// Whether a 404's message names the lead ("Lead not found", or Laravel's "No query results
/// for model [App\Models\Lead] 5") rather than the route: an HTML page, an empty body's "Not
/// Found", and "The route api/leads/5 could not be found." (which names `leads`) all name none.
fn names_a_lead(message: &str) -> bool {
    let message = message.trim().to_lowercase();
    !message.starts_with('<') && message.contains("lead") && !message.contains("route")
}

/// The `message` of a write's answer; empty when the body was empty or had none.
fn message_of(answer: &Value) -> String {
    answer.get("message").and_then(Value::as_str).unwrap_or_default().to_string()
}

#[cfg(test)]
mod tests {
    use super::{Form, names_a_lead};

    #[test]
    fn a_form_once_seen_is_the_only_one_tried() {
        let form = Form::default();
        assert_eq!(form.to_try(), [0, 1]);
        form.remember(1);
        assert_eq!(form.to_try(), [1]);
        form.remember(0);
        assert_eq!(form.to_try(), [0]);
    }

    #[test]
    fn only_a_message_about_the_lead_names_it() {
        assert!(names_a_lead("Lead not found"));
        assert!(names_a_lead("No query results for model [App\\Models\\Lead] 5"));
        assert!(!names_a_lead("The route api/leads/5 could not be found."));
        assert!(!names_a_lead("Not Found"));
        assert!(!names_a_lead("<html><title>404 leads</title></html>"));
    }
}
