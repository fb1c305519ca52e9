//! Printers: what the user sees of each command's results. They read model types only, and
//! make log text safe with [`crate::text`].

pub mod audit;
mod chunks;
pub mod decode;
pub mod inventory;
pub mod search;
pub mod timeline;
