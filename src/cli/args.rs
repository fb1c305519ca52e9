//! The clap definition of idgrep's arguments: every flag, its help text and its value parser.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::ColorChoice;
use super::values::{parse_clump, parse_duration, parse_kind_filter, parse_line_count};
use crate::config::{KindFilter, SortKey};
use crate::output::timeline;
use crate::query;

#[derive(Parser, Debug)]
#[command(
    name = "idgrep",
    version,
    about = "Follow one entity through its logs: every line that mentions a ULID, UUID, trace or span ID, in any written form",
    long_about = None,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "Examples:\n  idgrep 01kb2x1x0m4v6f9a1t8e3q7c5d logs/\n  kubectl logs deploy/api | idgrep 01kb2x1x0m4v6f9a1t8e3q7c5d\n  idgrep -e ID1 -e ID2 logs/\n  idgrep decode 017f22e2-79b0-7cc3-98c4-dc0c0c07398f\n\nExit status: 0 a match was found, 1 none, 2 an error occurred."
)]
pub(super) struct Cli {
    #[command(subcommand)]
    pub(super) command: Option<Sub>,
    #[command(flatten)]
    pub(super) search: SearchArgs,
}

#[derive(Subcommand, Debug)]
pub(super) enum Sub {
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
        after_help = "Rules: ulid-uppercase, ulid-mixed-case, uuid-noncanonical, nil-id, format-mix, version-mix, integer-ids, backfill-clump, id-time-skew, trace-invalid, trace-noncanonical, trace-mixed-width (see docs/audit.md).\n\nExamples:\n  idgrep audit logs/\n  idgrep audit logs/ --json\n  idgrep audit logs/ --deny ulid-uppercase,uuid-noncanonical\n\nExit status: 0 IDs were found (with --deny: no finding of a denied rule), 1 no ID at all (with --deny: a denied rule has findings), 2 an error occurred."
    )]
    Audit(AuditArgs),
    /// One entity's story: every line that mentions the ID, across files, in time order;
    /// related IDs; exports for the postmortem
    #[command(
        after_help = "Examples:\n  idgrep timeline 01kb2x1x0m4v6f9a1t8e3q7c5d logs/\n  idgrep timeline 01kb2x1x0m4v6f9a1t8e3q7c5d logs/ --related\n  idgrep timeline 01kb2x1x0m4v6f9a1t8e3q7c5d logs/ --hops 2 -o incident.html\n  idgrep timeline 01kb2x1x0m4v6f9a1t8e3q7c5d logs/ --since 2h --format csv -o lines.csv\n\nTime marks: ~ inferred from an earlier line of the file, * the ID's embedded time (the file has no timestamps), ? no time.\nExit status: 0 lines found, 1 none, 2 an error occurred."
    )]
    Timeline(TimelineArgs),
    /// Merge the results of runs over disjoint inputs (other hosts, Spark tasks) into what one
    /// run over all of them prints: `ids --partial`, search `--json`, timeline NDJSON
    #[command(
        after_help = "Examples:\n  ssh h1 idgrep ids --partial --label h1 /var/log > h1.ids\n  ssh h2 idgrep ids --partial --label h2 /var/log > h2.ids\n  idgrep merge h1.ids h2.ids --top 20\n  idgrep merge h1.json h2.json          # search --json results\n  idgrep merge h1.ndjson h2.ndjson      # timeline --format ndjson results\n\nExit status: 0 something was found, 1 nothing, 2 an error occurred (a result that cannot be read is reported and left out)."
    )]
    Merge(MergeArgs),
    /// Build or update the ID index of a log tree, so that searches read only the blocks
    /// that mention an ID; or tell how fresh it is
    #[command(
        after_help = "The index lives in --index-dir, else $IDGREP_INDEX_DIR, else $XDG_CACHE_HOME/idgrep, else ~/.cache/idgrep. Searches and timelines of the tree (or a path inside it) use it; their output is the same as without it (see docs/index.md).\n\nExamples:\n  idgrep index logs/\n  idgrep index --status logs/\n  idgrep --no-index 01kb2x1x0m4v6f9a1t8e3q7c5d logs/"
    )]
    Index(IndexArgs),
    /// Write the search for IDs as a query for a log platform: a regex (PCRE, RE2), LogQL,
    /// ClickHouse SQL, or the Elasticsearch/OpenSearch query DSL; every written form, whole
    /// tokens, as idgrep matches them
    #[command(
        after_help = "Examples:\n  idgrep query 01kb2x1x0m4v6f9a1t8e3q7c5d --for regex\n  idgrep query 01kb2x1x0m4v6f9a1t8e3q7c5d --for logql --selector '{app=\"api\"}'\n  idgrep query 01kb2x1x0m4v6f9a1t8e3q7c5d --for clickhouse --table logs --column body\n  idgrep query 01kb2x1x0m4v6f9a1t8e3q7c5d --for elasticsearch --field message\n  idgrep query -f ids.txt --for regex\n\nEach engine's tokeniser caveats: docs/query.md."
    )]
    Query(QueryArgs),
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
pub(super) struct CompletionsArgs {
    /// The shell to complete in
    #[arg(value_name = "SHELL")]
    pub(super) shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub(super) struct ManArgs {
    /// The command whose page to print; with none, idgrep's own page
    #[arg(value_name = "COMMAND")]
    pub(super) command: Option<String>,
}

/// Where to read and how: shared by every command that reads logs.
#[derive(Args, Debug)]
pub(super) struct InputArgs {
    /// Include or exclude files (ripgrep glob syntax; !GLOB excludes); repeatable
    #[arg(short = 'g', long = "glob", value_name = "GLOB")]
    pub(super) globs: Vec<String>,

    /// Follow symbolic links
    #[arg(short = 'L', long = "follow")]
    pub(super) follow: bool,

    /// Number of threads (default, or 0: all cores)
    #[arg(short = 'j', long = "threads", value_name = "N")]
    pub(super) threads: Option<u16>,

    /// Read binary files as if they were text
    #[arg(short = 'a', long = "text")]
    pub(super) text: bool,

    // ripgrep's flags for what idgrep always does (hidden files searched, no ignore files,
    // compressed files read), accepted so that a ripgrep habit is not an error; not shown.
    #[arg(long = "hidden", hide = true)]
    _hidden: bool,
    #[arg(long = "no-ignore", hide = true)]
    _no_ignore: bool,
    #[arg(short = 'u', long = "unrestricted", action = clap::ArgAction::Count, hide = true)]
    _unrestricted: u8,
    #[arg(short = 'z', long = "search-zip", hide = true)]
    _search_zip: bool,

    /// Time zone for log times written without an offset, and for showing times (IANA name
    /// such as Europe/Paris, UTC, or a fixed offset such as +05:30); default UTC
    #[arg(long, value_name = "ZONE", conflicts_with = "local")]
    pub(super) tz: Option<String>,

    /// Like --tz with this machine's time zone
    #[arg(long)]
    pub(super) local: bool,

    /// When to use colour; NO_COLOR in the environment turns auto off
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    pub(super) color: ColorChoice,

    /// Name standard input NAME in the output, and show each path as NAME:PATH, so results
    /// merged from several hosts say where a line came from
    #[arg(long, value_name = "NAME")]
    pub(super) label: Option<String>,
}

#[derive(Args, Debug)]
pub(super) struct IdsArgs {
    /// Files or directories; with none, standard input when it is a file, pipe or socket,
    /// else the current directory
    #[arg(value_name = "PATH")]
    pub(super) paths: Vec<PathBuf>,

    #[command(flatten)]
    pub(super) input: InputArgs,

    #[command(flatten)]
    pub(super) view: IdsViewArgs,

    /// Every ID's counts, unfiltered, as `idgrep merge` reads them (schema in docs/ids.md):
    /// for runs over disjoint inputs whose results are merged later
    #[arg(long, conflicts_with_all = ["json", "csv", "sort", "top", "min_lines", "kind", "field", "all_hex"])]
    pub(super) partial: bool,
}

/// How the list of IDs is narrowed, ordered and printed: `ids` and `merge`.
#[derive(Args, Debug)]
pub(super) struct IdsViewArgs {
    /// One JSON object per ID (schema in docs/ids.md)
    #[arg(long, conflicts_with = "csv")]
    pub(super) json: bool,

    /// CSV with a header row (schema in docs/ids.md)
    #[arg(long)]
    pub(super) csv: bool,

    /// Order of the IDs: lines and files most first; id, created and first oldest first
    #[arg(long, value_name = "KEY", default_value = "lines")]
    pub(super) sort: SortKey,

    /// Show only the first N IDs
    #[arg(long, value_name = "N")]
    pub(super) top: Option<usize>,

    /// Show only IDs on at least N lines
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub(super) min_lines: u32,

    /// Show only IDs of this kind: ulid, uuid, uuid1 ... uuid8, nil, max, trace, span
    #[arg(long, value_name = "KIND", value_parser = parse_kind_filter)]
    pub(super) kind: Option<KindFilter>,

    /// Show only IDs seen under this field (the whole key path or its last segment);
    /// repeatable
    #[arg(long, value_name = "NAME")]
    pub(super) field: Vec<String>,

    /// Count every 32-hex-digit token as a UUID, not only values also written as a ULID or a
    /// dashed UUID somewhere (trace IDs and digests look the same)
    #[arg(long)]
    pub(super) all_hex: bool,
}

#[derive(Args, Debug)]
pub(super) struct MergeArgs {
    /// Results of idgrep runs over disjoint inputs, in the order one run would read those
    /// inputs: `ids --partial`, search `--json`, or `timeline --format ndjson`; - for
    /// standard input
    #[arg(value_name = "FILE", required = true)]
    pub(super) files: Vec<PathBuf>,

    #[command(flatten)]
    pub(super) view: IdsViewArgs,

    /// Time zone for showing times (as the runs' --tz, which read zone-less log times in it)
    #[arg(long, value_name = "ZONE", conflicts_with = "local")]
    pub(super) tz: Option<String>,

    /// Like --tz with this machine's time zone
    #[arg(long)]
    pub(super) local: bool,

    /// When to use colour; NO_COLOR in the environment turns auto off
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    pub(super) color: ColorChoice,

    /// Number of threads (default, or 0: all cores)
    #[arg(short = 'j', long = "threads", value_name = "N")]
    pub(super) threads: Option<u16>,
}

#[derive(Args, Debug)]
pub(super) struct IndexArgs {
    /// Directories (or files) to index; each gets an index of its own
    #[arg(value_name = "PATH", required = true)]
    pub(super) paths: Vec<PathBuf>,

    /// Tell how much of each path the index covers (fresh, grown, changed, new, gone files,
    /// bytes, size, age); change nothing
    #[arg(long)]
    pub(super) status: bool,

    /// Number of threads (default, or 0: all cores)
    #[arg(short = 'j', long = "threads", value_name = "N")]
    pub(super) threads: Option<u16>,

    #[command(flatten)]
    pub(super) place: IndexPlaceArgs,
}

/// Where indexes are kept.
#[derive(Args, Debug)]
pub(super) struct IndexPlaceArgs {
    /// Keep and look for indexes in DIR (default: $IDGREP_INDEX_DIR, else
    /// $XDG_CACHE_HOME/idgrep, else ~/.cache/idgrep)
    #[arg(long, value_name = "DIR")]
    pub(super) index_dir: Option<PathBuf>,
}

/// Whether a search uses an index.
#[derive(Args, Debug)]
pub(super) struct IndexUseArgs {
    /// Read every file, even where an index covers the paths
    #[arg(long)]
    pub(super) no_index: bool,

    #[command(flatten)]
    pub(super) place: IndexPlaceArgs,
}

#[derive(Args, Debug)]
pub(super) struct TimelineArgs {
    /// The ID to follow: ULID, TypeID, UUID (dashed, undashed, braced, urn:uuid:), trace or
    /// span ID
    #[arg(value_name = "ID")]
    pub(super) id: String,

    /// Files or directories; with none, standard input when it is a file, pipe or socket,
    /// else the current directory
    #[arg(value_name = "PATH")]
    pub(super) paths: Vec<PathBuf>,

    #[command(flatten)]
    pub(super) input: InputArgs,

    #[command(flatten)]
    pub(super) index: IndexUseArgs,

    /// Also follow the other IDs on the timeline's lines, one hop (--hops 1)
    #[arg(long, conflicts_with = "hops")]
    pub(super) related: bool,

    /// Follow related IDs N hops out; 0 lists them without following
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(super) hops: u32,

    /// Do not follow an ID found on more than N lines (a tenant, a long batch): it is listed
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub(super) max_fanout: u64,

    /// Only lines at or after TIME: RFC 3339 (2026-11-29T10:00:00Z), a date-time without
    /// offset (in --tz, default UTC), or a time ago (2h, 30m, 1d)
    #[arg(long, value_name = "TIME")]
    pub(super) since: Option<String>,

    /// Only lines at or before TIME (same forms as --since)
    #[arg(long, value_name = "TIME")]
    pub(super) until: Option<String>,

    /// Output format; default: from the -o file name's extension, else text
    #[arg(long, value_name = "FORMAT")]
    pub(super) format: Option<timeline::TimelineFormat>,

    /// Write to FILE instead of standard output
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub(super) output: Option<PathBuf>,

    #[command(flatten)]
    pub(super) follow: FollowArgs,
}

#[derive(Args, Debug)]
pub(super) struct AuditArgs {
    /// Files or directories; with none, standard input when it is a file, pipe or socket,
    /// else the current directory
    #[arg(value_name = "PATH")]
    pub(super) paths: Vec<PathBuf>,

    #[command(flatten)]
    pub(super) input: InputArgs,

    /// The report as one JSON object (schema in docs/audit.md)
    #[arg(long)]
    pub(super) json: bool,

    /// Exit 1 when any of these rules has findings, 0 when none: comma-separated rule names,
    /// or all; repeatable
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    pub(super) deny: Vec<String>,

    /// id-time-skew: how much later than its line an ID's embedded time may be (30s, 5m, 2h)
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub(super) skew: i64,

    /// backfill-clump: how many distinct IDs in one embedded millisecond make a clump
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = parse_clump)]
    pub(super) clump: u64,
}

#[derive(Args, Debug)]
pub(super) struct QueryArgs {
    /// IDs to find (ULID, TypeID, UUID, trace or span ID, in any form); the query matches a line that holds
    /// any of them
    #[arg(value_name = "ID")]
    pub(super) ids: Vec<String>,
    /// Read IDs from FILE, one per line (blank lines and # comments skipped; - for standard
    /// input); repeatable
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub(super) id_files: Vec<PathBuf>,
    /// The engine to write for (required)
    #[arg(long = "for", value_name = "ENGINE")]
    pub(super) engine: Option<query::Engine>,
    /// clickhouse: the table, [db.]table [default: logs]
    #[arg(long, value_name = "TABLE")]
    pub(super) table: Option<String>,
    /// clickhouse: the column, elasticsearch: the field, that holds the log line [default:
    /// message]
    #[arg(long, visible_alias = "field", value_name = "NAME")]
    pub(super) column: Option<String>,
    /// logql: the stream selector [default: {job=~".+"}]
    #[arg(long, value_name = "SELECTOR")]
    pub(super) selector: Option<String>,
}

#[derive(Args, Debug)]
pub(super) struct DecodeArgs {
    /// IDs to decode: ULID, TypeID, UUID (dashed, undashed, braced, urn:uuid:), trace or span
    /// ID; with none, the blank-separated words of standard input (a file, pipe or socket)
    #[arg(value_name = "ID")]
    pub(super) ids: Vec<String>,
    /// One JSON object per ID
    #[arg(long)]
    pub(super) json: bool,
    /// When to use colour; NO_COLOR in the environment turns auto off
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    pub(super) color: ColorChoice,
}

#[derive(Args, Debug)]
pub(super) struct SearchArgs {
    /// The ID to search for (unless -e or -f is given), then files or directories; with no
    /// path, standard input when it is a file, pipe or socket, else the current directory
    #[arg(value_name = "ID | PATH")]
    pub(super) positional: Vec<OsString>,

    /// An ID to search for; repeat for several
    #[arg(short = 'e', long = "id", value_name = "ID")]
    pub(super) ids: Vec<String>,

    /// Read IDs from FILE, one per line (blank lines and # comments ignored); - for stdin
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub(super) id_files: Vec<PathBuf>,

    #[command(flatten)]
    pub(super) input: InputArgs,

    #[command(flatten)]
    pub(super) index: IndexUseArgs,

    /// Print the number of matching lines per file (the last of -c and -l wins)
    #[arg(
        short = 'c',
        long = "count",
        conflicts_with = "json",
        overrides_with = "files_with_matches"
    )]
    pub(super) count: bool,

    /// Print only the names of files with a match (the last of -c and -l wins)
    #[arg(
        short = 'l',
        long = "files-with-matches",
        conflicts_with = "json",
        overrides_with = "count"
    )]
    pub(super) files_with_matches: bool,

    /// Print nothing; exit 0 at the first match
    #[arg(short = 'q', long = "quiet")]
    pub(super) quiet: bool,

    /// Never print file names
    #[arg(long = "no-filename", conflicts_with = "with_filename")]
    pub(super) no_filename: bool,

    /// Always print file names (the default when searching a directory or several paths)
    #[arg(short = 'H', long = "with-filename")]
    pub(super) with_filename: bool,

    /// Do not print line numbers
    #[arg(short = 'N', long = "no-line-number", overrides_with = "line_number")]
    pub(super) no_line_number: bool,

    /// Print line numbers (the default; undoes an earlier -N)
    #[arg(short = 'n', long = "line-number", overrides_with = "no_line_number")]
    pub(super) line_number: bool,

    /// Accepted from ripgrep habits, always so: an ID matches in any case
    #[arg(short = 'i', long = "ignore-case")]
    pub(super) _ignore_case: bool,

    /// Accepted from ripgrep habits, always so: an ID matches as a whole token
    #[arg(short = 'w', long = "word-regexp")]
    pub(super) _word_regexp: bool,

    /// Accepted from ripgrep habits, always so: an ID is a fixed string
    #[arg(short = 'F', long = "fixed-strings")]
    pub(super) _fixed_strings: bool,

    /// Show NUM lines after each matching line
    #[arg(short = 'A', long = "after-context", value_name = "NUM", value_parser = parse_line_count, overrides_with = "after_context")]
    pub(super) after_context: Option<usize>,

    /// Show NUM lines before each matching line
    #[arg(short = 'B', long = "before-context", value_name = "NUM", value_parser = parse_line_count, overrides_with = "before_context")]
    pub(super) before_context: Option<usize>,

    /// Show NUM lines before and after each matching line (-A and -B override it)
    #[arg(short = 'C', long = "context", value_name = "NUM", value_parser = parse_line_count, overrides_with = "context")]
    pub(super) context: Option<usize>,

    /// One JSON object per matching line (schema in docs/search.md)
    #[arg(long)]
    pub(super) json: bool,

    /// Print each line as soon as it is found, also into a pipe (always so on a terminal):
    /// for tail -f app.log | idgrep ID | ...
    #[arg(long, overrides_with = "block_buffered")]
    pub(super) line_buffered: bool,

    /// Print in large blocks, also on a terminal (the default into a pipe or a file)
    #[arg(long, overrides_with = "line_buffered")]
    pub(super) block_buffered: bool,

    #[command(flatten)]
    pub(super) follow: FollowArgs,
}

/// Following the logs as they grow: for the search and the timeline.
#[derive(Args, Debug, Clone, Copy)]
pub(super) struct FollowArgs {
    /// Print what the paths hold, then each new line that mentions the ID as it is written,
    /// until Ctrl-C: directories followed recursively, new files read from their first
    /// byte, through log rotation (see docs/live.md)
    #[arg(long)]
    pub(super) tail: bool,

    /// With --tail: look for changes every MS milliseconds instead of waiting for the OS's
    /// file events (NFS, some container mounts)
    #[arg(long, value_name = "MS", requires = "tail", value_parser = clap::value_parser!(u64).range(10..=3_600_000))]
    pub(super) poll: Option<u64>,
}
