//! The integration suite: one binary, one module per topic (as ripgrep does it, so the crate
//! and the binary are built once).

mod audit;
mod cli;
mod faults;
mod generate;
mod ids;
mod ids_traces;
mod index;
mod inputs;
mod live;
mod merge;
mod names;
mod oracle;
mod query;
mod replay;
mod support;
mod tail;
mod tail_copies;
mod timeline;
mod times;
mod trace_timeline;
mod traces;
mod usage;
mod vectors;
