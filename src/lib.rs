//! idgrep: follow one entity through its logs.
//!
//! Teams that write every entity ID as a ULID or a UUIDv7 can find every mention of an entity
//! by its bare value, whatever the field is called. idgrep finds those mentions in every
//! written form (ULID in either case, UUID dashed, undashed, braced, `urn:uuid:`, the same 128
//! bits written as the other kind) across plain and compressed logs, and decodes the time the
//! ID carries.
//!
//! Data flows one way: [`cli`] validates arguments, [`source`] lists and opens inputs,
//! [`search`] reads them in large buffers and asks [`scan`] for hits, [`id`] is the only code
//! that parses, renders and dates IDs, [`output`] formats results and [`run`] ties it together.
//! [`ids`] and [`audit`] read every ID token, [`timeline`] one ID's lines and its related IDs;
//! they, and `--json` search, read each line that holds an ID as a [`record`].

pub mod audit;
pub mod cli;
pub mod group;
pub mod id;
pub mod ids;
pub mod keys;
pub mod output;
pub mod progress;
pub mod record;
pub mod run;
pub mod scan;
pub mod search;
pub mod source;
pub mod time;
pub mod timeline;
