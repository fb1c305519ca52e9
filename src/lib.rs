//! idgrep: follow one entity through its logs.
//!
//! Teams that write every entity ID as a ULID or a UUIDv7 can find every mention of an entity
//! by its bare value, whatever the field is called. idgrep finds those mentions in every
//! written form (ULID in either case, UUID dashed, undashed, braced, `urn:uuid:`, the same 128
//! bits written as the other kind) across plain and compressed logs, and decodes the time the
//! ID carries.
//!
//! Three layers, each importing only the ones below it, so data flows one way:
//! - **commands**: [`cli`] turns arguments into a validated [`config`]; [`cmd`] holds one
//!   driver per command, which wires inputs, scan, model and printer and decides the exit
//!   status.
//! - **model**: [`id`] is the only code that parses, renders and dates IDs; [`scan`] finds
//!   them in bytes; [`search`] reads inputs in large buffers and finds their lines; [`record`]
//!   reads a line's fields and time; `inventory` counts every ID (`ids`), `timeline` places
//!   one ID's lines in time, `audit` judges the ID conventions, `merge` makes the results
//!   of runs over disjoint inputs one.
//! - **plumbing and printers**: [`source`] lists and opens inputs, [`par`] scans them on N
//!   threads, `follow` follows files as they grow (`--tail`), `writer` prints search output in
//!   walk order, [`exit`] reports errors and the exit status, [`output`] formats every
//!   result, `time` renders times, `progress` shows a progress bar.
//!
//! The binary reaches [`cli`], [`cmd`] and [`exit`]; tests and benches reach the model below
//! the commands ([`id`], [`scan`], [`search`], [`record`], [`source`], [`par`], [`text`],
//! [`output`]). The rest is the crate's own.

pub(crate) mod audit;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod exit;
pub(crate) mod follow;
pub mod id;
pub mod index;
pub(crate) mod inventory;
pub(crate) mod merge;
pub mod output;
pub mod par;
pub(crate) mod progress;
pub(crate) mod query;
pub mod record;
pub mod scan;
pub mod search;
pub mod source;
#[cfg(test)]
mod testing;
pub mod text;
pub(crate) mod time;
pub(crate) mod timeline;
pub(crate) mod writer;
