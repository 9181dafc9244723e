//! The one integration-test binary: a module per feature over a shared support builder.

mod assistant;
mod cli;
mod client;
mod durability;
mod exactly_once;
mod events;
mod guards;
mod house;
mod identity;
mod import;
mod lead_changes;
mod lead_identity;
mod install;
mod limits;
mod phone_habits;
mod progress;
mod reading;
mod seen;
mod push;
mod simulation;
mod support;
mod sync_changes;
mod sync_simulation;
mod ui;
