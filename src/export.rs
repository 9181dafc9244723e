//! (placeholder) Leads and notifications back out to CSV and XLSX.
