//! Events and exports: receiver, simulated conversations, lead export.
