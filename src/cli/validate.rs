//! From parsed arguments to the validated configs the commands run on: IDs parsed, paths
//! defaulted, flags that depend on each other resolved.

use std::io::IsTerminal;
use std::path::PathBuf;

use super::UsageError;
use super::args::{
    AuditArgs, FollowArgs, IdsArgs, IdsViewArgs, IndexArgs, IndexUseArgs, InputArgs, MergeArgs,
    QueryArgs, SearchArgs, TimelineArgs,
};
use super::values::{format_of, parse_instant, parse_zone, terminal_width};
use crate::audit::Rule;
use crate::config::{
    AuditConfig, Command, Destination, FollowConfig, IdsConfig, IdsView, IndexConfig, IndexUse,
    InputConfig, MergeConfig, QueryConfig, SearchConfig, TimelineConfig,
};
use crate::id;
use crate::output::search::OutputMode;
use crate::output::{inventory, timeline};
use crate::search::Context;

/// Validates the shared input flags. `stdin_taken`: standard input is already read for
/// something else (`-f -`), so it cannot be the log.
fn input_config(
    args: InputArgs,
    paths: Vec<PathBuf>,
    stdin_taken: bool,
    color_allowed: bool,
) -> Result<InputConfig, UsageError> {
    crate::source::check_globs(&args.globs).map_err(UsageError)?;
    let implicit_cwd = paths.is_empty() && (stdin_taken || !crate::source::stdin_is_readable());
    let paths = if implicit_cwd {
        vec![PathBuf::from(".")]
    } else {
        paths
    };
    let zone = zone(args.tz.as_deref(), args.local)?;
    if let Some(label) = &args.label
        && (label.is_empty() || label.chars().any(char::is_control))
    {
        return Err(UsageError(format!(
            "invalid --label {label:?}: give a non-empty name without control characters \
             (a host name, or the path the bytes on standard input come from)"
        )));
    }
    let color = args.color.resolve();
    let threads = threads(args.threads);
    Ok(InputConfig {
        paths,
        implicit_cwd,
        globs: args.globs,
        follow_links: args.follow,
        threads,
        text: args.text,
        zone,
        color: color && color_allowed,
        label: args.label,
    })
}

/// `--tz` or `--local`: the zone of offset-less log times and of shown times.
fn zone(tz: Option<&str>, local: bool) -> Result<Option<jiff::tz::TimeZone>, UsageError> {
    if local {
        return Ok(Some(jiff::tz::TimeZone::try_system().map_err(|_| {
            UsageError(
                "--local: this machine's time zone is unknown (set TZ, or give --tz ZONE)"
                    .to_string(),
            )
        })?));
    }
    match tz {
        None => Ok(None),
        Some(name) => Ok(Some(parse_zone(name).ok_or_else(|| {
            UsageError(format!(
                "unknown time zone {name:?} for --tz: give an IANA name such as \
                 Europe/Paris or America/New_York, UTC, or a fixed offset from -23:59 to \
                 +23:59 (+05:30, -0800)"
            ))
        })?)),
    }
}

/// `-j N`; 0 or none is every core, as ripgrep takes it.
fn threads(given: Option<u16>) -> usize {
    match given {
        Some(n @ 1..) => n as usize,
        Some(0) | None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// The list flags of `ids` and `merge`, with the zone, colour and threads they show with.
fn ids_view(
    args: IdsViewArgs,
    zone: Option<jiff::tz::TimeZone>,
    color: bool,
    threads: usize,
) -> IdsView {
    let format = if args.json {
        inventory::IdsFormat::Json
    } else if args.csv {
        inventory::IdsFormat::Csv
    } else {
        inventory::IdsFormat::Table
    };
    IdsView {
        format,
        sort: args.sort,
        top: args.top,
        min_lines: args.min_lines,
        kind: args.kind,
        fields: args.field,
        all_hex: args.all_hex,
        zone,
        color: color && format == inventory::IdsFormat::Table,
        threads,
    }
}

pub(super) fn ids_config(args: IdsArgs) -> Result<IdsConfig, UsageError> {
    let input = input_config(args.input, args.paths, false, true)?;
    let view = ids_view(args.view, input.zone.clone(), input.color, input.threads);
    Ok(IdsConfig {
        input,
        view,
        partial: args.partial,
        progress: std::io::stderr().is_terminal(),
    })
}

pub(super) fn merge_config(args: MergeArgs) -> Result<MergeConfig, UsageError> {
    let zone = zone(args.tz.as_deref(), args.local)?;
    Ok(MergeConfig {
        files: args.files,
        view: ids_view(args.view, zone, args.color.resolve(), threads(args.threads)),
    })
}

pub(super) fn audit_config(args: AuditArgs) -> Result<AuditConfig, UsageError> {
    let mut deny = Vec::new();
    for name in &args.deny {
        let name = name.trim();
        if name == "all" {
            deny.extend(Rule::ALL);
            continue;
        }
        match Rule::from_name(name) {
            Some(rule) => deny.push(rule),
            None => {
                let accepted: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
                return Err(UsageError(format!(
                    "unknown rule {name:?} for --deny; accepted: {}, or all",
                    accepted.join(", ")
                )));
            }
        }
    }
    deny.sort();
    deny.dedup();
    Ok(AuditConfig {
        input: input_config(args.input, args.paths, false, !args.json)?,
        json: args.json,
        deny,
        skew_ms: args.skew,
        clump: args.clump,
        progress: std::io::stderr().is_terminal(),
    })
}

pub(super) fn timeline_config(args: TimelineArgs) -> Result<TimelineConfig, UsageError> {
    let root = id::parse(&args.id).map_err(|e| invalid_id(&args.id, "argument", &e))?;
    if let Some(id) = an_id_given_as_path(&args.paths) {
        return Err(UsageError(format!(
            "{id:?} is no file or directory but an ID: a timeline follows one ID (with \
             --related or --hops, the IDs its lines hold too)"
        )));
    }
    let format = match (args.format, &args.output) {
        (Some(format), _) => format,
        (None, None) => timeline::TimelineFormat::Text,
        (None, Some(path)) => format_of(path)?,
    };
    let terminal = args.output.is_none() && std::io::stdout().is_terminal();
    let input = input_config(
        args.input,
        args.paths,
        false,
        format == timeline::TimelineFormat::Text && args.output.is_none(),
    )?;
    let zone = input.zone.clone().unwrap_or(jiff::tz::TimeZone::UTC);
    let since = args
        .since
        .map(|s| parse_instant(&s, "--since", &zone))
        .transpose()?;
    let until = args
        .until
        .map(|s| parse_instant(&s, "--until", &zone))
        .transpose()?;
    if let (Some(since), Some(until)) = (since, until)
        && since > until
    {
        return Err(UsageError(
            "--since is later than --until: the window would hold no line".to_string(),
        ));
    }
    let destination = match args.output {
        Some(path) => Destination::File(path),
        None => Destination::Stdout {
            width: terminal.then(terminal_width).flatten(),
        },
    };
    Ok(TimelineConfig {
        input,
        query: crate::timeline::Query {
            root,
            hops: if args.related { 1 } else { args.hops },
            max_fanout: args.max_fanout,
            since,
            until,
        },
        format,
        destination,
        progress: std::io::stderr().is_terminal(),
        index: index_use(args.index),
    })
}

fn invalid_id(raw: &str, origin: &str, e: &id::ParseError) -> UsageError {
    UsageError(format!(
        "invalid ID {raw:?} ({origin}): {e}; accepted forms: {}",
        id::ACCEPTED_FORMS
    ))
}

/// The first path that does not exist but parses as an ID: `idgrep ID1 ID2 logs/` meant two
/// IDs, and "no such file" would not say how to give them.
fn an_id_given_as_path(paths: &[PathBuf]) -> Option<&str> {
    paths
        .iter()
        .filter_map(|p| p.to_str())
        .find(|p| id::parse(p).is_ok() && std::fs::symlink_metadata(p).is_err())
}

/// The command a first argument that is no ID was probably meant to be (`timelin`,
/// `decod`): a word within two edits of a command's name.
fn misspelt_command(origin: &str, raw: &str) -> Option<String> {
    if origin != "argument" || !raw.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let cli = <super::args::Cli as clap::CommandFactory>::command();
    let word = raw.to_ascii_lowercase();
    cli.get_subcommands()
        .map(|c| c.get_name())
        .map(|name| (strsim::levenshtein(&word, name), name))
        .filter(|&(distance, _)| distance <= 2)
        .min()
        .map(|(_, name)| name.to_string())
}

fn index_use(args: IndexUseArgs) -> IndexUse {
    IndexUse {
        enabled: !args.no_index,
        dir: args.place.index_dir,
    }
}

pub(super) fn index_config(args: IndexArgs) -> IndexConfig {
    IndexConfig {
        paths: args.paths,
        status: args.status,
        dir: args.place.index_dir,
        threads: threads(args.threads),
        progress: std::io::stderr().is_terminal(),
    }
}

pub(super) fn search_config(args: SearchArgs) -> Result<SearchConfig, UsageError> {
    let terminal = std::io::stdout().is_terminal();
    let mut positional = args.positional.into_iter();
    let mut raw_ids: Vec<(String, String)> = args
        .ids
        .into_iter()
        .map(|s| ("-e".to_string(), s))
        .collect();
    let ids_from_flags = !raw_ids.is_empty() || !args.id_files.is_empty();
    if !ids_from_flags {
        match positional.next() {
            // A path need not be UTF-8; an ID must.
            Some(first) => match first.into_string() {
                Ok(first) => raw_ids.push(("argument".to_string(), first)),
                Err(first) => {
                    return Err(UsageError(format!(
                        "invalid ID {:?} (argument): not UTF-8; accepted forms: {}",
                        first.to_string_lossy(),
                        id::ACCEPTED_FORMS
                    )));
                }
            },
            None => {
                return Err(UsageError(format!(
                    "no ID given: pass one as the first argument, or with -e ID or -f FILE; \
                     accepted forms: {}",
                    id::ACCEPTED_FORMS
                )));
            }
        }
    }
    let paths: Vec<PathBuf> = positional.map(PathBuf::from).collect();
    let reads_stdin_for_ids = args.id_files.iter().any(|p| p.as_os_str() == "-");
    for file in &args.id_files {
        raw_ids.extend(read_id_file(file)?);
    }
    let mut queries = Vec::with_capacity(raw_ids.len());
    for (origin, raw) in &raw_ids {
        let parsed = id::parse(raw).map_err(|e| match misspelt_command(origin, raw) {
            Some(name) => UsageError(format!(
                "no command {raw:?}; did you mean {name:?}? A search takes the ID first: {}",
                id::ACCEPTED_FORMS
            )),
            None => invalid_id(raw, origin, &e),
        })?;
        queries.push(parsed);
    }
    if queries.is_empty() {
        return Err(UsageError("the ID files hold no IDs".to_string()));
    }
    if let Some(id) = an_id_given_as_path(&paths) {
        return Err(UsageError(format!(
            "{id:?} is no file or directory but an ID: search for several IDs with -e ID -e ID \
             or -f FILE"
        )));
    }
    let mode = if args.quiet {
        OutputMode::Quiet
    } else if args.files_with_matches {
        OutputMode::FilesWithMatches
    } else if args.count {
        OutputMode::Count
    } else if args.json {
        OutputMode::Json
    } else {
        OutputMode::Lines
    };
    let with_filename = if args.no_filename {
        Some(false)
    } else if args.with_filename {
        Some(true)
    } else {
        None
    };
    Ok(SearchConfig {
        queries,
        input: input_config(
            args.input,
            paths,
            reads_stdin_for_ids,
            mode != OutputMode::Json,
        )?,
        mode,
        with_filename,
        // JSON always carries the line number; -N only hides it from text lines.
        line_numbers: mode == OutputMode::Json
            || (!args.no_line_number && mode == OutputMode::Lines),
        // As ripgrep: context is for printed lines, not for counts or names.
        context: if matches!(mode, OutputMode::Lines | OutputMode::Json) {
            Context {
                before: args.before_context.or(args.context).unwrap_or(0),
                after: args.after_context.or(args.context).unwrap_or(0),
            }
        } else {
            Context::default()
        },
        terminal,
        line_buffered: args.line_buffered || (terminal && !args.block_buffered),
        index: index_use(args.index),
    })
}

/// The search, or with `--tail` the search followed by following its paths.
pub(super) fn search_command(args: SearchArgs) -> Result<Command, UsageError> {
    let follow = args.follow;
    let config = search_config(args)?;
    if !follow.tail {
        return Ok(Command::Search(config));
    }
    if matches!(
        config.mode,
        OutputMode::Count | OutputMode::FilesWithMatches
    ) {
        return Err(UsageError(
            "--tail prints lines as they are written; -c and -l are not accepted with it"
                .to_string(),
        ));
    }
    if config.context != Context::default() {
        return Err(UsageError(
            "--tail prints matching lines only; -A, -B and -C are not accepted with it".to_string(),
        ));
    }
    let paths = &config.input.paths;
    if paths.len() > 1 && paths.iter().any(|p| p.as_os_str() == "-") {
        return Err(UsageError(
            "--tail follows files, or standard input alone (- with no other path)".to_string(),
        ));
    }
    Ok(Command::SearchTail(
        SearchConfig {
            line_buffered: true,
            ..config
        },
        follow_config(follow),
    ))
}

/// The timeline, or with `--tail` the text timeline extended as lines are written.
pub(super) fn timeline_command(args: TimelineArgs) -> Result<Command, UsageError> {
    let follow = args.follow;
    let config = timeline_config(args)?;
    if !follow.tail {
        return Ok(Command::Timeline(config));
    }
    if config.format != timeline::TimelineFormat::Text
        || matches!(config.destination, Destination::File(_))
    {
        return Err(UsageError(
            "timeline --tail extends the text timeline on standard output; --format and -o \
             are not accepted with it"
                .to_string(),
        ));
    }
    let paths = &config.input.paths;
    if paths.is_empty() || paths.iter().any(|p| p.as_os_str() == "-") {
        return Err(UsageError(
            "timeline --tail follows files: name files or directories, not standard input"
                .to_string(),
        ));
    }
    Ok(Command::TimelineTail(config, follow_config(follow)))
}

/// `--tail` and `--poll`.
fn follow_config(args: FollowArgs) -> FollowConfig {
    FollowConfig {
        poll: args.poll.map(std::time::Duration::from_millis),
    }
}

/// The IDs `decode` was given; with none, standard input has to be something to read (a
/// file, a pipe or a socket), whose words are then decoded.
pub(super) fn query_config(args: QueryArgs) -> Result<QueryConfig, UsageError> {
    use crate::query::Engine;
    let Some(engine) = args.engine else {
        return Err(UsageError(
            "query: say which engine with --for ENGINE (accepted: regex, logql, clickhouse, \
             elasticsearch or opensearch)"
                .to_string(),
        ));
    };
    let applies = |flag: &str, given: bool, engines: &[Engine], names: &str| {
        if given && !engines.contains(&engine) {
            Err(UsageError(format!("{flag} applies only to --for {names}")))
        } else {
            Ok(())
        }
    };
    applies(
        "--table",
        args.table.is_some(),
        &[Engine::Clickhouse],
        "clickhouse",
    )?;
    applies(
        "--column (--field)",
        args.column.is_some(),
        &[Engine::Clickhouse, Engine::Elasticsearch],
        "clickhouse or elasticsearch",
    )?;
    applies(
        "--selector",
        args.selector.is_some(),
        &[Engine::Logql],
        "logql",
    )?;
    let mut raw_ids: Vec<(String, String)> = args
        .ids
        .into_iter()
        .map(|s| ("argument".to_string(), s))
        .collect();
    for file in &args.id_files {
        raw_ids.extend(read_id_file(file)?);
    }
    if raw_ids.is_empty() {
        return Err(UsageError(format!(
            "query: give one or more IDs, or -f FILE; accepted forms: {}",
            id::ACCEPTED_FORMS
        )));
    }
    let ids = raw_ids
        .iter()
        .map(|(origin, raw)| id::parse(raw).map_err(|e| invalid_id(raw, origin, &e)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(QueryConfig {
        ids,
        engine,
        target: crate::query::Target {
            selector: args.selector.unwrap_or_else(|| "{job=~\".+\"}".to_string()),
            table: args.table.unwrap_or_else(|| "logs".to_string()),
            column: args.column.unwrap_or_else(|| "message".to_string()),
        },
    })
}

pub(super) fn ids_to_decode(given: Vec<String>) -> Result<Vec<String>, UsageError> {
    if given.is_empty() && !crate::source::stdin_is_readable() {
        return Err(UsageError(
            "decode: give one or more IDs, or pipe them in (blank-separated)".to_string(),
        ));
    }
    Ok(given)
}

/// Reads `-f FILE`: one ID per line; each comes back with its `FILE:LINE` origin for errors.
fn read_id_file(path: &PathBuf) -> Result<Vec<(String, String)>, UsageError> {
    let text = if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(path)
    }
    .map_err(|e| {
        UsageError(format!(
            "{}: {}",
            path.display(),
            crate::source::io_reason(&e)
        ))
    })?;
    Ok(text
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim();
            !l.is_empty() && !l.starts_with('#')
        })
        .map(|(i, l)| {
            (
                format!("{}:{}", path.display(), i + 1),
                l.trim().to_string(),
            )
        })
        .collect())
}
