//! The command line: raw arguments in, a validated [`Command`] out. Bad input stops here, with
//! a message naming what is wrong and what is accepted, before anything is read.
//!
//! `args` is the clap definition, `values` parses the values of single flags, and `validate`
//! turns parsed arguments into the configs the commands run on.

mod args;
mod validate;
mod values;

use std::ffi::OsString;
use std::io::IsTerminal;

use clap::{CommandFactory, Parser, ValueEnum};

use crate::config::{Command, DecodeConfig};
use args::{Cli, Sub};
use validate::{audit_config, ids_config, ids_to_decode, search_command, timeline_command};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour standard output: `auto` means a terminal, unless NO_COLOR is set.
    pub fn resolve(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

/// A usage error: printed as `idgrep: MESSAGE`, exit 2.
#[derive(Debug)]
pub struct UsageError(pub String);

/// Parses the process arguments. `--help` and `--version` print and exit from inside.
pub fn parse_args() -> Result<Command, UsageError> {
    parse_from(std::env::args_os().collect())
}

/// [`parse_args`] over `args` (the program name first) instead of the process's: what the
/// fuzz targets use to run a command in their own process.
pub fn parse_from(args: Vec<OsString>) -> Result<Command, UsageError> {
    let cli = match Cli::try_parse_from(command_first(args)) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => return Err(UsageError(one_line(&e.render().to_string()))),
    };
    match cli.command {
        Some(Sub::Decode(d)) => Ok(Command::Decode(DecodeConfig {
            inputs: ids_to_decode(d.ids)?,
            json: d.json,
            color: d.color.resolve() && !d.json,
        })),
        Some(Sub::Completions(args)) => Ok(Command::Completions {
            shell: args.shell,
            cli: Cli::command(),
        }),
        Some(Sub::Man(args)) => man_page(args.command.as_deref()).map(Command::Man),
        Some(Sub::Ids(args)) => ids_config(args).map(Command::Ids),
        Some(Sub::Audit(args)) => audit_config(args).map(Command::Audit),
        Some(Sub::Timeline(args)) => timeline_command(args),
        Some(Sub::Index(args)) => Ok(Command::Index(validate::index_config(args))),
        Some(Sub::Query(args)) => validate::query_config(args).map(Command::Query),
        Some(Sub::Merge(args)) => validate::merge_config(args).map(Command::Merge),
        None => search_command(cli.search),
    }
}

/// `idgrep -j1 ids .` as `idgrep ids -j1 .`: flags given before a command's name are taken
/// as the command's own. Only when no ID is given by flag (`-e`, `-f`): then the first
/// argument that is not a flag is the query ID, and no ID is spelt like a command, so nothing
/// that parses as a search today is read another way.
fn command_first(args: Vec<OsString>) -> Vec<OsString> {
    // Most runs start with an ID, a path or a command: no clap definition is built for them.
    let flag_first = args
        .get(1)
        .and_then(|a| a.to_str())
        .is_some_and(|a| a.starts_with('-') && a != "-" && a != "--");
    if !flag_first {
        return args;
    }
    let cli = Cli::command();
    let mut i = 1;
    while let Some(arg) = args.get(i).and_then(|a| a.to_str()) {
        if arg == "--" || arg == "-" || !arg.starts_with('-') {
            break;
        }
        let Some(takes_next) = flag_takes_next(&cli, arg) else {
            return args;
        };
        i += 1 + usize::from(takes_next);
    }
    let is_command = args
        .get(i)
        .and_then(|a| a.to_str())
        .is_some_and(|a| cli.find_subcommand(a).is_some());
    if !is_command {
        return args;
    }
    let mut reordered = args;
    let name = reordered.remove(i);
    reordered.insert(1, name);
    reordered
}

/// Whether the top-level flag `arg` takes the next argument as its value; `None` for a flag
/// that names the IDs (`-e`, `-f`), or one clap does not know (it will say so).
fn flag_takes_next(cli: &clap::Command, arg: &str) -> Option<bool> {
    let takes_values = |a: &clap::Arg| a.get_action().takes_values();
    let names_ids = |a: &clap::Arg| matches!(a.get_id().as_str(), "ids" | "id_files");
    if let Some(long) = arg.strip_prefix("--") {
        let (name, inline) = long
            .split_once('=')
            .map_or((long, false), |(n, _)| (n, true));
        let flag = cli.get_arguments().find(|a| a.get_long() == Some(name))?;
        return (!names_ids(flag)).then(|| takes_values(flag) && !inline);
    }
    // A cluster of short flags: a flag that takes a value takes the rest of the cluster, or
    // the next argument when it is last.
    let shorts: Vec<char> = arg[1..].chars().collect();
    for (k, c) in shorts.iter().enumerate() {
        let flag = cli.get_arguments().find(|a| a.get_short() == Some(*c))?;
        if names_ids(flag) {
            return None;
        }
        if takes_values(flag) {
            return Some(k + 1 == shorts.len());
        }
    }
    Some(false)
}

/// The clap definition of the page `idgrep man [COMMAND]` prints: idgrep's own, or one
/// command's, named `idgrep-COMMAND` as man pages of subcommands are.
fn man_page(command: Option<&str>) -> Result<clap::Command, UsageError> {
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    let Some(name) = command else {
        return Ok(cli);
    };
    // The page's source line then names the version, as idgrep's own page does.
    let page = |command: &clap::Command| command.clone().version(env!("CARGO_PKG_VERSION"));
    cli.find_subcommand(name).map(page).ok_or_else(|| {
        let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
        UsageError(format!(
            "man: no command {name:?}; accepted: {}, or none for idgrep's own page",
            names.join(", ")
        ))
    })
}

/// Clap's error text on one line, like every other error: what is wrong (with the missing
/// arguments clap lists below it), then what is accepted and clap's tips, without the usage
/// block.
fn one_line(rendered: &str) -> String {
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut message = lines
        .next()
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ")
        .to_string();
    for line in lines {
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if let Some(values) = line
            .strip_prefix("[possible values: ")
            .and_then(|l| l.strip_suffix(']'))
        {
            message.push_str(&format!(" (accepted: {values})"));
        } else if let Some(tip) = line.strip_prefix("tip: ") {
            message.push_str(&format!("; {tip}"));
        } else {
            message.push(' ');
            message.push_str(line);
        }
    }
    message.push_str("; see idgrep --help");
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
