//! The command layer: one driver per command. Each wires the inputs to the scan, the model
//! and a printer, and decides the exit status. Nothing below this layer imports it, or the
//! CLI.

mod audit;
mod decode;
mod generate;
mod ids;
pub(crate) mod index;
mod merge;
mod query;
mod search;
mod tail;
mod timeline;

use crate::config::{Command, InputConfig};
use crate::exit::{Exit, report};
use crate::source::{self, Input, WalkOptions};

/// Runs a validated command; returns the process exit status.
pub fn run(command: Command) -> Exit {
    match command {
        Command::Search(config) => search::run(config),
        Command::Decode(config) => decode::run(&config.inputs, config.json, config.color),
        Command::Completions { shell, cli } => generate::completions(shell, cli),
        Command::Man(page) => generate::man(page),
        Command::Ids(config) => ids::run(config),
        Command::Audit(config) => audit::run(config),
        Command::Timeline(config) => timeline::run(config),
        Command::SearchTail(config, follow) => tail::search(config, follow),
        Command::TimelineTail(config, follow) => tail::timeline(config, follow),
        Command::Index(config) => index::run(config),
        Command::Query(config) => query::run(&config),
        Command::Merge(config) => merge::run(config),
    }
}

/// The inputs named by the paths (or standard input); a walk that cannot start is reported.
pub fn inputs(config: &InputConfig) -> Result<Vec<Input>, Exit> {
    reported(walk(config))
}

/// The walk of [`inputs`] without its reports, for a thread of its own: a report made there
/// could come before or after another thread's.
pub fn walk(config: &InputConfig) -> Result<Vec<Input>, String> {
    if let Some(label) = &config.label {
        source::set_label(label);
    }
    if config.paths.is_empty() {
        return Ok(vec![Input::Stdin]);
    }
    let options = WalkOptions {
        globs: config.globs.clone(),
        follow_links: config.follow_links,
        implicit_cwd: config.implicit_cwd,
    };
    source::walk(&config.paths, &options)
}

/// Reports what is wrong with the outcome of [`walk`], as [`inputs`] does.
pub fn reported(walked: Result<Vec<Input>, String>) -> Result<Vec<Input>, Exit> {
    let inputs = walked.map_err(|e| {
        report(&e);
        Exit::Error
    })?;
    if inputs.is_empty() {
        // As ripgrep does: an empty walk is most often a glob or path mistake.
        report("no files to read: check the paths and the -g globs");
    }
    Ok(inputs)
}

/// [`inputs`] with each file once, however many paths name it: what `ids`, `timeline` and
/// `audit` count.
pub fn distinct_inputs(config: &InputConfig) -> Result<Vec<Input>, Exit> {
    inputs(config).map(source::distinct)
}
