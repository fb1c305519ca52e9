//! The validated configuration of each command: what [`crate::cli`] makes of the arguments
//! and the command drivers in [`crate::cmd`] run. Nothing here reads or prints.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::audit::Rule;
use crate::id::Parsed;
use crate::output::search::OutputMode;
use crate::output::{inventory, timeline};
use crate::par::ScanSettings;
use crate::search::Context;
use crate::timeline::Query;

/// What to do, validated.
#[derive(Debug)]
pub enum Command {
    Search(SearchConfig),
    Decode(DecodeConfig),
    /// Print a completion script of `cli` for `shell`.
    Completions {
        shell: clap_complete::Shell,
        cli: clap::Command,
    },
    /// Print the man page of this command.
    Man(clap::Command),
    Ids(IdsConfig),
    Audit(AuditConfig),
    Timeline(TimelineConfig),
    /// `idgrep --tail`: the search, then its paths followed.
    SearchTail(SearchConfig, FollowConfig),
    /// `idgrep timeline --tail`: the text timeline, then new lines as they are written.
    TimelineTail(TimelineConfig, FollowConfig),
    Index(IndexConfig),
    Query(QueryConfig),
    Merge(MergeConfig),
}

/// `idgrep query`.
#[derive(Debug)]
pub struct QueryConfig {
    pub ids: Vec<Parsed>,
    pub engine: crate::query::Engine,
    pub target: crate::query::Target,
}

/// `--tail`: how files are followed.
#[derive(Clone, Copy, Debug)]
pub struct FollowConfig {
    /// `--poll MS`: look at the files at this interval instead of waiting for OS events.
    pub poll: Option<std::time::Duration>,
}

/// `idgrep index`.
#[derive(Debug)]
pub struct IndexConfig {
    pub paths: Vec<PathBuf>,
    /// `--status`: tell how fresh the index is; change nothing.
    pub status: bool,
    /// `--index-dir`: where indexes live, instead of the environment's or the cache's.
    pub dir: Option<PathBuf>,
    pub threads: usize,
    /// Standard error is a terminal: a progress bar may show.
    pub progress: bool,
}

/// Whether and where a searching command looks for an index.
#[derive(Debug, Default)]
pub struct IndexUse {
    /// False with `--no-index`.
    pub enabled: bool,
    pub dir: Option<PathBuf>,
}

/// `idgrep decode`.
#[derive(Debug)]
pub struct DecodeConfig {
    /// The IDs given; none means the words of standard input.
    pub inputs: Vec<String>,
    pub json: bool,
    pub color: bool,
}

/// What to read, shared by the commands that read logs.
#[derive(Debug)]
pub struct InputConfig {
    /// Paths as given; empty means standard input.
    pub paths: Vec<PathBuf>,
    /// No path was given and standard input is not the log (a terminal or a device such as
    /// `/dev/null`, or already read by `-f -`), so the paths are `.`, whose files are named
    /// without the `./`, as ripgrep names them.
    pub implicit_cwd: bool,
    pub globs: Vec<String>,
    pub follow_links: bool,
    pub threads: usize,
    pub text: bool,
    /// `--tz`/`--local`: the zone of offset-less log times and of shown times; `None` is UTC.
    pub zone: Option<jiff::tz::TimeZone>,
    pub color: bool,
    /// `--label`: the name of standard input, and the prefix of every path shown.
    pub label: Option<String>,
}

impl InputConfig {
    /// What a scan of these inputs needs; `progress`: a progress bar may show.
    pub fn scan_settings(&self, progress: bool) -> ScanSettings {
        ScanSettings {
            threads: self.threads,
            text: self.text,
            zone: self.zone.clone(),
            progress,
        }
    }

    /// How times are shown: in the `--tz`/`--local` zone, else UTC.
    pub fn clock(&self) -> crate::time::Clock {
        self.zone
            .clone()
            .map_or_else(crate::time::Clock::utc, crate::time::Clock::in_zone)
    }
}

#[derive(Debug)]
pub struct SearchConfig {
    pub queries: Vec<Parsed>,
    pub input: InputConfig,
    pub mode: OutputMode,
    /// `None`: decide from the inputs (names shown for a directory or several paths).
    pub with_filename: Option<bool>,
    pub line_numbers: bool,
    /// Lines shown around each match (none for -c, -l, -q).
    pub context: Context,
    /// Standard output is a terminal: the query header is shown.
    pub terminal: bool,
    /// Each line is written out as soon as it is printed (`--line-buffered`, or a terminal),
    /// so a live pipe's matches show as they arrive.
    pub line_buffered: bool,
    pub index: IndexUse,
}

#[derive(Debug)]
pub struct IdsConfig {
    pub input: InputConfig,
    pub view: IdsView,
    /// `--partial`: every ID's counts, unfiltered, for `idgrep merge`.
    pub partial: bool,
    /// Standard error is a terminal: a progress bar may show.
    pub progress: bool,
}

/// Which IDs `ids` and `merge` show, in which order and format.
#[derive(Debug)]
pub struct IdsView {
    pub format: inventory::IdsFormat,
    pub sort: SortKey,
    pub top: Option<usize>,
    pub min_lines: u32,
    pub kind: Option<KindFilter>,
    pub fields: Vec<String>,
    pub all_hex: bool,
    /// How times are shown and zone-less log times read: the `--tz`/`--local` zone, or UTC.
    pub zone: Option<jiff::tz::TimeZone>,
    pub color: bool,
    pub threads: usize,
}

/// `idgrep merge`: results of runs over disjoint inputs, as one run over all of them.
#[derive(Debug)]
pub struct MergeConfig {
    /// The results, in the order one run would read their inputs; `-` is standard input.
    pub files: Vec<PathBuf>,
    /// How merged `ids --partial` results are shown; line results take no view flag.
    pub view: IdsView,
}

#[derive(Debug)]
pub struct AuditConfig {
    pub input: InputConfig,
    pub json: bool,
    /// Rules whose findings make the exit code 1.
    pub deny: Vec<Rule>,
    /// id-time-skew's allowance, in milliseconds.
    pub skew_ms: i64,
    /// backfill-clump's threshold: distinct IDs in one millisecond.
    pub clump: u64,
    /// Standard error is a terminal: a progress bar may show.
    pub progress: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SortKey {
    Lines,
    Id,
    Created,
    First,
    Files,
}

/// `--kind`: which IDs to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindFilter {
    Ulid,
    Uuid,
    UuidVersion(u8),
    Nil,
    Max,
    Trace,
    Span,
}

/// Where a timeline goes.
#[derive(Debug)]
pub enum Destination {
    /// `width`: the terminal's columns, when standard output is one (lines are cut to it).
    Stdout {
        width: Option<usize>,
    },
    File(PathBuf),
}

#[derive(Debug)]
pub struct TimelineConfig {
    pub input: InputConfig,
    pub query: Query,
    pub format: timeline::TimelineFormat,
    pub destination: Destination,
    /// Standard error is a terminal: a progress bar may show.
    pub progress: bool,
    pub index: IndexUse,
}
