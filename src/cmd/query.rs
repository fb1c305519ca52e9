//! `idgrep query`: prints the query of [`crate::query`] for the engine asked for.

use crate::config::QueryConfig;
use crate::exit::Exit;
use crate::query;
use crate::writer;

/// Prints the query; exit 0, or 2 when it cannot be written.
pub fn run(config: &QueryConfig) -> Exit {
    let text = query::render(config.engine, &config.ids, &config.target);
    let written = writer::write_stdout(|out| out.write_all(text.as_bytes()));
    Exit::after_report(written, false, true)
}
