//! The command line: raw arguments in, a validated [`Command`] out. Bad input stops here, with
//! a message naming what is wrong and what is accepted, before anything is read.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::audit::Rule;
use crate::config::{
    AuditConfig, Command, DecodeConfig, Destination, IdsConfig, InputConfig, KindFilter,
    SearchConfig, SortKey, TimelineConfig,
};
use crate::id;
use crate::output::search::OutputMode;
use crate::output::{inventory, timeline};
use crate::search::Context;

#[derive(Parser, Debug)]
#[command(
    name = "idgrep",
    version,
    about = "Follow one entity through its logs: every line that mentions a ULID or UUID, in any written form",
    long_about = None,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "Examples:\n  idgrep 01kb2x1x0m4v6f9a1t8e3q7c5d logs/\n  kubectl logs deploy/api | idgrep 01kb2x1x0m4v6f9a1t8e3q7c5d\n  idgrep -e ID1 -e ID2 logs/\n  idgrep decode 017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n\nExit status: 0 a match was found, 1 none, 2 an error occurred."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
    #[command(flatten)]
    search: SearchArgs,
}

#[derive(Subcommand, Debug)]
enum Sub {
    /// Show what an ID holds: canonical form, kind, version, embedded time, other renderings
    Decode(DecodeArgs),
    /// Every ID in the logs, grouped by value whatever the field: lines, files, fields, times
    #[command(
        after_help = "Examples:\n  idgrep ids logs/\n  idgrep ids logs/ --json | jq .\n  idgrep ids --field order_id logs/\n  idgrep ids --kind ulid --top 20 logs/"
    )]
    Ids(IdsArgs),
    /// How far the logs are from one uniform ID format: rules with counts, fields and the
    /// lines that show each finding, and a verdict per field
    #[command(
        after_help = "Rules: ulid-uppercase, ulid-mixed-case, uuid-noncanonical, nil-id, format-mix, version-mix, integer-ids, backfill-clump, id-time-skew (see docs/audit.md).\n\nExamples:\n  idgrep audit logs/\n  idgrep audit logs/ --json\n  idgrep audit logs/ --deny ulid-uppercase,uuid-noncanonical\n\nExit status: 0 IDs were found (with --deny: no finding of a denied rule), 1 no ID at all (with --deny: a denied rule has findings), 2 an error occurred."
    )]
    Audit(AuditArgs),
    /// One entity's story: every line that mentions the ID, across files, in time order;
    /// related IDs; exports for the postmortem
    #[command(
        after_help = "Examples:\n  idgrep timeline 01kb2x1x0m4v6f9a1t8e3q7c5d logs/\n  idgrep timeline 01kb2x1x0m4v6f9a1t8e3q7c5d logs/ --related\n  idgrep timeline 01kb2x1x0m4v6f9a1t8e3q7c5d logs/ --hops 2 -o incident.html\n  idgrep timeline 01kb2x1x0m4v6f9a1t8e3q7c5d logs/ --since 2h --format csv -o lines.csv\n\nTime marks: ~ inferred from an earlier line of the file, * the ID's embedded time (the file has no timestamps), ? no time.\nExit status: 0 lines found, 1 none, 2 an error occurred."
    )]
    Timeline(TimelineArgs),
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell
    #[command(
        after_help = "Examples:\n  idgrep completions bash > /etc/bash_completion.d/idgrep\n  idgrep completions zsh > ~/.zfunc/_idgrep    # a directory on $fpath\n  idgrep completions fish > ~/.config/fish/completions/idgrep.fish"
    )]
    Completions(CompletionsArgs),
    /// Print the man page (roff) of idgrep, or of one of its commands
    #[command(
        after_help = "Examples:\n  idgrep man | man -l -\n  idgrep man > /usr/local/share/man/man1/idgrep.1\n  idgrep man timeline > /usr/local/share/man/man1/idgrep-timeline.1"
    )]
    Man(ManArgs),
}

#[derive(Args, Debug)]
struct CompletionsArgs {
    /// The shell to complete in
    #[arg(value_name = "SHELL")]
    shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
struct ManArgs {
    /// The command whose page to print; with none, idgrep's own page
    #[arg(value_name = "COMMAND")]
    command: Option<String>,
}

/// Where to read and how: shared by every command that reads logs.
#[derive(Args, Debug)]
struct InputArgs {
    /// Include or exclude files (ripgrep glob syntax; !GLOB excludes); repeatable
    #[arg(short = 'g', long = "glob", value_name = "GLOB")]
    globs: Vec<String>,

    /// Follow symbolic links
    #[arg(short = 'L', long = "follow")]
    follow: bool,

    /// Number of threads (default: all cores)
    #[arg(short = 'j', long = "threads", value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,

    /// Read binary files as if they were text
    #[arg(short = 'a', long = "text")]
    text: bool,

    /// Time zone for log times written without an offset, and for showing times (IANA name
    /// such as Europe/Paris, UTC, or a fixed offset such as +05:30); default UTC
    #[arg(long, value_name = "ZONE", conflicts_with = "local")]
    tz: Option<String>,

    /// Like --tz with this machine's time zone
    #[arg(long)]
    local: bool,

    /// When to use colour; NO_COLOR in the environment turns auto off
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    color: ColorChoice,
}

#[derive(Args, Debug)]
struct IdsArgs {
    /// Files or directories; with none, standard input when it is a file, pipe or socket,
    /// else the current directory
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,

    #[command(flatten)]
    input: InputArgs,

    /// One JSON object per ID (schema in docs/ids.md)
    #[arg(long, conflicts_with = "csv")]
    json: bool,

    /// CSV with a header row (schema in docs/ids.md)
    #[arg(long)]
    csv: bool,

    /// Order of the IDs: lines and files most first; id, created and first oldest first
    #[arg(long, value_name = "KEY", default_value = "lines")]
    sort: SortKey,

    /// Show only the first N IDs
    #[arg(long, value_name = "N")]
    top: Option<usize>,

    /// Show only IDs on at least N lines
    #[arg(long, value_name = "N", default_value_t = 1)]
    min_lines: u32,

    /// Show only IDs of this kind: ulid, uuid, uuid1 ... uuid8, nil, max
    #[arg(long, value_name = "KIND", value_parser = parse_kind_filter)]
    kind: Option<KindFilter>,

    /// Show only IDs seen under this field (the whole key path or its last segment);
    /// repeatable
    #[arg(long, value_name = "NAME")]
    field: Vec<String>,

    /// Count every 32-hex-digit token as a UUID, not only values also written as a ULID or a
    /// dashed UUID somewhere (trace IDs and digests look the same)
    #[arg(long)]
    all_hex: bool,
}

#[derive(Args, Debug)]
struct TimelineArgs {
    /// The ID to follow: ULID, TypeID, or UUID (dashed, undashed, braced, urn:uuid:)
    #[arg(value_name = "ID")]
    id: String,

    /// Files or directories; with none, standard input when it is a file, pipe or socket,
    /// else the current directory
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,

    #[command(flatten)]
    input: InputArgs,

    /// Also follow the other IDs on the timeline's lines, one hop (--hops 1)
    #[arg(long, conflicts_with = "hops")]
    related: bool,

    /// Follow related IDs N hops out; 0 lists them without following
    #[arg(long, value_name = "N", default_value_t = 0)]
    hops: u32,

    /// Do not follow an ID found on more than N lines (a tenant, a long batch): it is listed
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    max_fanout: u64,

    /// Only lines at or after TIME: RFC 3339 (2026-11-29T10:00:00Z), a date-time without
    /// offset (in --tz, default UTC), or a time ago (2h, 30m, 1d)
    #[arg(long, value_name = "TIME")]
    since: Option<String>,

    /// Only lines at or before TIME (same forms as --since)
    #[arg(long, value_name = "TIME")]
    until: Option<String>,

    /// Output format; default: from the -o file name's extension, else text
    #[arg(long, value_name = "FORMAT")]
    format: Option<timeline::TimelineFormat>,

    /// Write to FILE instead of standard output
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct AuditArgs {
    /// Files or directories; with none, standard input when it is a file, pipe or socket,
    /// else the current directory
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,

    #[command(flatten)]
    input: InputArgs,

    /// The report as one JSON object (schema in docs/audit.md)
    #[arg(long)]
    json: bool,

    /// Exit 1 when any of these rules has findings, 0 when none: comma-separated rule names,
    /// or all; repeatable
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    deny: Vec<String>,

    /// id-time-skew: how much later than its line an ID's embedded time may be (30s, 5m, 2h)
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    skew: i64,

    /// backfill-clump: how many distinct IDs in one embedded millisecond make a clump
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = parse_clump)]
    clump: u64,
}

/// Parses `30s`, `5m`, `2h` (also `ms` and `d`) into milliseconds.
fn parse_duration(s: &str) -> Result<i64, String> {
    const ACCEPTED: &str = "a duration is whole numbers with units: 500ms, 30s, 5m, 2h, 1d, or several (1h30m, 1d 12h)";
    let mut rest = s.trim();
    let mut total: i64 = 0;
    if rest.is_empty() {
        return Err(ACCEPTED.to_string());
    }
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let letters = rest[digits..]
            .bytes()
            .take_while(u8::is_ascii_alphabetic)
            .count();
        let (number, unit) = (&rest[..digits], &rest[digits..digits + letters]);
        let unit_ms: i64 = match unit {
            "ms" => 1,
            "s" => 1000,
            "m" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            _ => return Err(ACCEPTED.to_string()),
        };
        total = number
            .parse::<i64>()
            .ok()
            .and_then(|n| n.checked_mul(unit_ms))
            .and_then(|ms| total.checked_add(ms))
            .ok_or_else(|| ACCEPTED.to_string())?;
        rest = rest[digits + letters..].trim_start();
    }
    Ok(total)
}

#[derive(Args, Debug)]
struct DecodeArgs {
    /// IDs to decode: ULID, TypeID, or UUID (dashed, undashed, braced, urn:uuid:); with
    /// none, the blank-separated words of standard input (a file, pipe or socket)
    #[arg(value_name = "ID")]
    ids: Vec<String>,
    /// One JSON object per ID
    #[arg(long)]
    json: bool,
    /// When to use colour; NO_COLOR in the environment turns auto off
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    color: ColorChoice,
}

#[derive(Args, Debug)]
struct SearchArgs {
    /// The ID to search for (unless -e or -f is given), then files or directories; with no
    /// path, standard input when it is a file, pipe or socket, else the current directory
    #[arg(value_name = "ID | PATH")]
    positional: Vec<String>,

    /// An ID to search for; repeat for several
    #[arg(short = 'e', long = "id", value_name = "ID")]
    ids: Vec<String>,

    /// Read IDs from FILE, one per line (blank lines and # comments ignored); - for stdin
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    id_files: Vec<PathBuf>,

    #[command(flatten)]
    input: InputArgs,

    /// Print the number of matching lines per file (the last of -c and -l wins)
    #[arg(
        short = 'c',
        long = "count",
        conflicts_with = "json",
        overrides_with = "files_with_matches"
    )]
    count: bool,

    /// Print only the names of files with a match (the last of -c and -l wins)
    #[arg(
        short = 'l',
        long = "files-with-matches",
        conflicts_with = "json",
        overrides_with = "count"
    )]
    files_with_matches: bool,

    /// Print nothing; exit 0 at the first match
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,

    /// Never print file names
    #[arg(long = "no-filename", conflicts_with = "with_filename")]
    no_filename: bool,

    /// Always print file names (the default when searching a directory or several paths)
    #[arg(short = 'H', long = "with-filename")]
    with_filename: bool,

    /// Do not print line numbers
    #[arg(short = 'N', long = "no-line-number", overrides_with = "line_number")]
    no_line_number: bool,

    /// Print line numbers (the default; undoes an earlier -N)
    #[arg(short = 'n', long = "line-number", overrides_with = "no_line_number")]
    line_number: bool,

    /// Accepted from ripgrep habits, always so: an ID matches in any case
    #[arg(short = 'i', long = "ignore-case")]
    _ignore_case: bool,

    /// Accepted from ripgrep habits, always so: an ID matches as a whole token
    #[arg(short = 'w', long = "word-regexp")]
    _word_regexp: bool,

    /// Accepted from ripgrep habits, always so: an ID is a fixed string
    #[arg(short = 'F', long = "fixed-strings")]
    _fixed_strings: bool,

    /// Show NUM lines after each matching line
    #[arg(short = 'A', long = "after-context", value_name = "NUM", value_parser = parse_line_count, overrides_with = "after_context")]
    after_context: Option<usize>,

    /// Show NUM lines before each matching line
    #[arg(short = 'B', long = "before-context", value_name = "NUM", value_parser = parse_line_count, overrides_with = "before_context")]
    before_context: Option<usize>,

    /// Show NUM lines before and after each matching line (-A and -B override it)
    #[arg(short = 'C', long = "context", value_name = "NUM", value_parser = parse_line_count, overrides_with = "context")]
    context: Option<usize>,

    /// One JSON object per matching line (schema in docs/search.md)
    #[arg(long)]
    json: bool,

    /// Print each line as soon as it is found, also into a pipe (always so on a terminal):
    /// for tail -f app.log | idgrep ID | ...
    #[arg(long, overrides_with = "block_buffered")]
    line_buffered: bool,

    /// Print in large blocks, also on a terminal (the default into a pipe or a file)
    #[arg(long, overrides_with = "line_buffered")]
    block_buffered: bool,
}

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

const KIND_FILTERS: &str = "ulid, uuid, uuid1 ... uuid8, nil, max";

/// `--clump N`: one ID alone in its millisecond is no clump.
fn parse_clump(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n >= 2 => Ok(n),
        Ok(_) => Err("a clump is at least 2 IDs (accepted: a whole number from 2)".to_string()),
        Err(_) => Err("not a whole number (accepted: a whole number from 2)".to_string()),
    }
}

fn parse_line_count(s: &str) -> Result<usize, String> {
    s.parse::<usize>()
        .map_err(|_| "not a number of lines (accepted: a whole number from 0)".to_string())
}

fn parse_kind_filter(s: &str) -> Result<KindFilter, String> {
    let filter = match s.to_ascii_lowercase().as_str() {
        "ulid" => KindFilter::Ulid,
        "uuid" => KindFilter::Uuid,
        "nil" => KindFilter::Nil,
        "max" => KindFilter::Max,
        other => match other
            .strip_prefix("uuid")
            .and_then(|v| v.parse::<u8>().ok())
        {
            Some(v @ 1..=8) => KindFilter::UuidVersion(v),
            _ => return Err(format!("not a kind (accepted: {KIND_FILTERS})")),
        },
    };
    Ok(filter)
}

/// A usage error: printed as `idgrep: MESSAGE`, exit 2.
#[derive(Debug)]
pub struct UsageError(pub String);

/// Parses the process arguments. `--help` and `--version` print and exit from inside.
pub fn parse_args() -> Result<Command, UsageError> {
    let cli = match Cli::try_parse_from(command_first(std::env::args_os().collect())) {
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
        Some(Sub::Timeline(args)) => timeline_config(args).map(Command::Timeline),
        None => search_config(cli.search).map(Command::Search),
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
    cli.find_subcommand(name).cloned().ok_or_else(|| {
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
    let zone = if args.local {
        Some(jiff::tz::TimeZone::try_system().map_err(|_| {
            UsageError(
                "--local: this machine's time zone is unknown (set TZ, or give --tz ZONE)"
                    .to_string(),
            )
        })?)
    } else {
        match &args.tz {
            None => None,
            Some(name) => Some(parse_zone(name).ok_or_else(|| {
                UsageError(format!(
                    "unknown time zone {name:?} for --tz: give an IANA name such as \
                     Europe/Paris or America/New_York, UTC, or a fixed offset from -23:59 to \
                     +23:59 (+05:30, -0800)"
                ))
            })?),
        }
    };
    let color = args.color.resolve();
    let threads = match args.threads {
        Some(n) => n as usize,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    Ok(InputConfig {
        paths,
        implicit_cwd,
        globs: args.globs,
        follow_links: args.follow,
        threads,
        text: args.text,
        zone,
        color: color && color_allowed,
    })
}

fn ids_config(args: IdsArgs) -> Result<IdsConfig, UsageError> {
    let format = if args.json {
        inventory::IdsFormat::Json
    } else if args.csv {
        inventory::IdsFormat::Csv
    } else {
        inventory::IdsFormat::Table
    };
    Ok(IdsConfig {
        input: input_config(
            args.input,
            args.paths,
            false,
            format == inventory::IdsFormat::Table,
        )?,
        format,
        sort: args.sort,
        top: args.top,
        min_lines: args.min_lines,
        kind: args.kind,
        fields: args.field,
        all_hex: args.all_hex,
        progress: std::io::stderr().is_terminal(),
    })
}

fn audit_config(args: AuditArgs) -> Result<AuditConfig, UsageError> {
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

fn timeline_config(args: TimelineArgs) -> Result<TimelineConfig, UsageError> {
    let root = id::parse(&args.id).map_err(|e| {
        UsageError(format!(
            "invalid ID {:?}: {e}; accepted forms: {}",
            args.id,
            id::ACCEPTED_FORMS
        ))
    })?;
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
    })
}

/// `--tz`: an IANA zone name, or a fixed offset from UTC (`+05:30`, `-0800`, `+01`).
fn parse_zone(name: &str) -> Option<jiff::tz::TimeZone> {
    if let Ok(zone) = jiff::tz::TimeZone::get(name) {
        return Some(zone);
    }
    let (sign, digits) = match name.as_bytes().first()? {
        b'+' => (1, &name[1..]),
        b'-' => (-1, &name[1..]),
        _ => return None,
    };
    let (hours, minutes) = match (digits.len(), digits.split_once(':')) {
        (_, Some((h, m))) if h.len() == 2 && m.len() == 2 => (h, m),
        (4, None) => digits.split_at(2),
        (2, None) => (digits, "00"),
        _ => return None,
    };
    if !(hours.bytes().chain(minutes.bytes())).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (hours, minutes): (i32, i32) = (hours.parse().ok()?, minutes.parse().ok()?);
    if hours > 23 || minutes > 59 {
        return None;
    }
    let offset = jiff::tz::Offset::from_seconds(sign * (hours * 3600 + minutes * 60)).ok()?;
    Some(jiff::tz::TimeZone::fixed(offset))
}

/// The export format a file name asks for.
fn format_of(path: &std::path::Path) -> Result<timeline::TimelineFormat, UsageError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    Ok(match ext.as_deref() {
        Some("html" | "htm") => timeline::TimelineFormat::Html,
        Some("csv") => timeline::TimelineFormat::Csv,
        Some("ndjson" | "jsonl") => timeline::TimelineFormat::Ndjson,
        Some("md" | "markdown") => timeline::TimelineFormat::Md,
        Some("json" | "trace") => timeline::TimelineFormat::Trace,
        Some("txt" | "log") => timeline::TimelineFormat::Text,
        _ => {
            return Err(UsageError(format!(
                "cannot tell the format from the name {}: give --format text, ndjson, csv, md, \
                 html or trace",
                path.display()
            )));
        }
    })
}

/// The width to cut lines to on a terminal: `COLUMNS` when set, else the terminal's own.
fn terminal_width() -> Option<usize> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
        .or_else(|| terminal_size::terminal_size().map(|(w, _)| w.0 as usize))
}

/// Parses `--since`/`--until`: an RFC 3339 instant, a civil date-time in `zone`, or a span of
/// time before now (`2h`, `1d 12h`, `90s`).
fn parse_instant(text: &str, flag: &str, zone: &jiff::tz::TimeZone) -> Result<i64, UsageError> {
    let text = text.trim();
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Ok(ts.as_millisecond());
    }
    if let Ok(dt) = text.parse::<jiff::civil::DateTime>()
        && let Ok(zoned) = dt.to_zoned_datetime(zone.clone())
    {
        return Ok(zoned.timestamp().as_millisecond());
    }
    if let Ok(span) = text.parse::<jiff::Span>()
        && let Ok(then) = jiff::ZonedDateTime::now()
            .with_time_zone(zone.clone())
            .checked_sub(span)
    {
        return Ok(then.timestamp().as_millisecond());
    }
    Err(UsageError(format!(
        "invalid {flag} {text:?}: give an RFC 3339 time (2026-11-29T10:00:00Z), a date and time \
         without offset (2026-11-29 10:00, read in --tz, default UTC), or a time ago (2h, 30m, 1d)"
    )))
}

fn search_config(args: SearchArgs) -> Result<SearchConfig, UsageError> {
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
            Some(first) => raw_ids.push(("argument".to_string(), first)),
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
        let parsed = id::parse(raw).map_err(|e| {
            UsageError(format!(
                "invalid ID {raw:?} ({origin}): {e}; accepted forms: {}",
                id::ACCEPTED_FORMS
            ))
        })?;
        queries.push(parsed);
    }
    if queries.is_empty() {
        return Err(UsageError("the ID files hold no IDs".to_string()));
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
    })
}

/// The IDs `decode` was given; with none, standard input has to be something to read (a
/// file, a pipe or a socket), whose words are then decoded.
fn ids_to_decode(given: Vec<String>) -> Result<Vec<String>, UsageError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn zones_by_name_or_fixed_offset() {
        let offset = |name: &str| {
            parse_zone(name).map(|z| z.to_offset(jiff::Timestamp::UNIX_EPOCH).seconds())
        };
        assert_eq!(offset("+05:30"), Some(19_800));
        assert_eq!(offset("-0800"), Some(-28_800));
        assert_eq!(offset("+01"), Some(3_600));
        assert_eq!(offset("UTC"), Some(0));
        assert_eq!(offset("Asia/Kolkata"), Some(19_800));
        for bad in [
            "+25:00",
            "+05:60",
            "05:30",
            "+5:30",
            "+0530x",
            "Mars/Olympus",
            "",
        ] {
            assert_eq!(offset(bad), None, "{bad}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(30_000));
        assert_eq!(parse_duration("5m"), Ok(300_000));
        assert_eq!(parse_duration("2h"), Ok(7_200_000));
        assert_eq!(parse_duration("250ms"), Ok(250));
        assert_eq!(parse_duration("1d"), Ok(86_400_000));
        // As --since accepts them: several units, with or without blanks.
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000));
        assert_eq!(parse_duration("1d 12h"), Ok(129_600_000));
        assert_eq!(parse_duration("2m30s500ms"), Ok(150_500));
        for bad in [
            "1h30",
            "1h 30",
            "",
            "5",
            "m",
            "5 m",
            "-5m",
            "1.5h",
            "5M",
            "99999999999999999999s",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
