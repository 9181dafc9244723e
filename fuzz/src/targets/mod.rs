//! The targets, one file each, named after the leadsync code they drive.

pub mod source;
pub mod workbook;
pub mod mapping;
pub mod phone;
pub mod payload;
pub mod journal;
pub mod seed;
