//! One entity's story, the model behind `idgrep timeline`. Every line that mentions the ID (in
//! any written form) is collected across the inputs on N threads, given a place in time, and
//! sorted; the other IDs on those lines are the related IDs, and `--hops N` follows them N
//! hops out, each hop one more pass over the inputs with a matcher for the new IDs.
//!
//! Placing a line in time, per file (the placement is kept with the line and shown):
//! - [`Placement::Line`]: the line's own timestamp, read by [`crate::record`];
//! - [`Placement::Inferred`]: a line without one takes the time of the nearest earlier line of the
//!   same file that has one (read back through the buffered text, so a stack trace line gets
//!   the time of its exception header even when that header does not mention the ID, and
//!   across read buffers, so a stack trace longer than the buffer does too); a line before the
//!   file's first timestamp takes the file's first matched time, or when no matched line has
//!   one, the file's first timestamp on any line;
//! - [`Placement::IdTime`]: a file with no timestamp on any line is placed by the embedded
//!   creation time of the ID that brought the line in (or of the timeline's ID);
//! - [`Placement::Unplaced`]: none of these; such lines come last, in file and line order.
//!
//! Lines are sorted by time, to the microsecond where the logs give it; ties keep file order,
//! then line order.
//!
//! An ID with more than `--max-fanout` lines (a tenant, a long-running batch) is listed but
//! not followed: its lines are counted while the pass runs and dropped at the end, and a line
//! is kept only for an ID that is followed. A 32-hex-digit token is a related ID only when
//! the same value is also written as a ULID or a dashed UUID on the timeline (trace IDs and
//! digests look the same), as in `idgrep ids`; the nil and max UUIDs are placeholders, never
//! related.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use memchr::{memchr, memrchr};

use crate::exit;
use crate::id::{self, Id, Kind, Parsed, Shape, Written};
use crate::index::{Plan, Range, RangeReader, Walk, find_before, find_from_start};
use crate::par::{self, Notice, ScanSettings};
use crate::progress::Progress;
use crate::record;
use crate::scan::{self, Matcher};
use crate::search::{self, Scratch, SearchOptions};
use crate::source::{self, Input};
use crate::text::Name;

/// Maps and sets keyed by what the logs hold (IDs, line positions, field names) and looked up
/// once per token of every line on the timeline: foldhash, not std's SipHash, which has no
/// attacker to resist here.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;
type FastSet<T> = HashSet<T, foldhash::fast::FixedState>;

/// How a line got its place in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// The line's own timestamp.
    Line,
    /// The time of an earlier (or, before the first one, the first) timestamped line of the
    /// same file.
    Inferred,
    /// The file has no timestamps: the embedded time of the ID.
    IdTime,
    /// No time at all.
    Unplaced,
}

impl Placement {
    /// The stable name used in the exports.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Line => "line",
            Placement::Inferred => "inferred",
            Placement::IdTime => "id_time",
            Placement::Unplaced => "none",
        }
    }

    /// The one-character mark after a time in the text view.
    pub fn mark(self) -> char {
        match self {
            Placement::Line => ' ',
            Placement::Inferred => '~',
            Placement::IdTime => '*',
            Placement::Unplaced => '?',
        }
    }
}

/// What became of an ID of the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The timeline's own ID.
    Root,
    /// Searched for; its lines are on the timeline. Holds its line count.
    Followed(u64),
    /// Searched for, but on more than `--max-fanout` lines: listed, its lines dropped.
    FanOut(u64),
    /// Seen on the timeline, not searched for (beyond `--hops`).
    Listed,
}

/// One ID of the timeline: the root, or a related ID.
#[derive(Clone, Debug)]
pub struct TimelineId {
    pub id: Id,
    /// As the user wrote the root; as first seen for a related ID.
    pub kind: Kind,
    /// What it is, in words: `uuid v7`, `span`, `uuid v4 layout or trace` for a root
    /// written as 32 bare hex.
    pub description: &'static str,
    /// 0 for the root; 1 for an ID on the root's lines, and so on.
    pub hop: u32,
    /// The ID whose line showed this one first (`None` for the root).
    pub found_via: Option<usize>,
    pub status: Status,
    /// Lines of the (windowed) timeline that mention it.
    pub lines: u64,
    /// The times of its first and last placed lines, in Unix microseconds.
    pub first_us: Option<i64>,
    pub last_us: Option<i64>,
    /// The field that holds it most often on those lines.
    pub field: Option<String>,
}

/// One line of the timeline.
#[derive(Clone, Debug)]
pub struct Line {
    /// Unix microseconds.
    pub time_us: Option<i64>,
    pub placement: Placement,
    /// Index into [`Timeline::paths`].
    pub file: usize,
    pub line_no: u64,
    /// The field that holds the ID that brought the line in.
    pub field: Option<String>,
    /// Index into [`Timeline::ids`] of the ID that brought the line in.
    pub via: usize,
    /// The line without its line ending, as read.
    pub text: Box<[u8]>,
    /// Byte ranges of the `via` ID in `text`.
    pub marks: Vec<(usize, usize)>,
    /// Indices into [`Timeline::ids`] of every listed ID on the line, in order.
    pub ids: Vec<usize>,
}

/// The result: sorted lines and the IDs they mention.
#[derive(Debug)]
pub struct Timeline {
    /// `ids[0]` is the root; the related IDs follow in the order they were found.
    pub ids: Vec<TimelineId>,
    pub lines: Vec<Line>,
    /// Every input's name, in walk order.
    pub paths: Vec<Name>,
    pub hops: u32,
    pub max_fanout: u64,
    /// Lines left out by `--since`/`--until`: with a time outside the window, and without a
    /// time (a window cannot hold them).
    pub outside_window: usize,
    pub untimed_outside_window: usize,
}

impl Timeline {
    /// How finely the times are to be shown: to the microsecond when a line gives one.
    pub fn precision(&self) -> crate::time::Precision {
        crate::time::Precision::of(self.lines.iter().filter_map(|l| l.time_us))
    }

    /// The time of the first and the last placed line.
    pub fn span_us(&self) -> Option<(i64, i64)> {
        let mut times = self.lines.iter().filter_map(|l| l.time_us);
        let first = times.next()?;
        Some((first, times.next_back().unwrap_or(first)))
    }

    /// The files the lines come from, in walk order.
    pub fn files(&self) -> Vec<usize> {
        let mut files: Vec<usize> = self.lines.iter().map(|l| l.file).collect();
        files.sort_unstable();
        files.dedup();
        files
    }
}

/// What a timeline is asked for.
#[derive(Debug)]
pub struct Query {
    /// The entity whose story it is.
    pub root: crate::id::Parsed,
    /// How many hops of related IDs to follow.
    pub hops: u32,
    /// An ID with more lines than this is listed but not followed.
    pub max_fanout: u64,
    /// `--since`/`--until` as unix milliseconds.
    pub since: Option<i64>,
    pub until: Option<i64>,
}

/// An ID while the timeline is built.
struct Known {
    id: Id,
    kind: Kind,
    hop: u32,
    found_via: Option<usize>,
    status: Status,
    /// Seen as a ULID or a dashed UUID (or the root): may be listed and followed.
    named: bool,
}

/// A line found by a pass, before it is placed in time.
struct Found {
    file: usize,
    line_no: u64,
    text: Box<[u8]>,
    own_us: Option<i64>,
    /// The time of the nearest earlier timestamped line of the file, if one was seen.
    prev_us: Option<i64>,
    /// The file's first timestamp, on any line.
    file_first_us: Option<i64>,
    /// Query indices of the pass's IDs on the line, by first position.
    queries: Vec<usize>,
    tokens: Vec<Token>,
}

/// An ID token on a found line.
struct Token {
    id: Id,
    shape: Shape,
    start: usize,
    end: usize,
    field: Option<String>,
}

/// Runs the passes: the root, then each hop's new IDs. Returns the finished timeline and
/// whether an input could not be read.
/// `index`: an index that covers the inputs; each pass then reads only the files it says
/// may mention the pass's IDs (whole, so each line is placed in time as without it).
pub fn build(
    query: &Query,
    settings: &ScanSettings,
    inputs: &[Input],
    stdin: Option<&Arc<[u8]>>,
    mut ids_index: Option<&crate::index::Index>,
) -> (Timeline, bool) {
    let root = query.root;
    let mut known = vec![Known {
        id: root.id,
        kind: root.kind,
        hop: 0,
        found_via: None,
        status: Status::Root,
        named: true,
    }];
    let mut index: FastMap<u128, usize> = FastMap::default();
    index.insert(root.id.0, 0);
    let mut found: Vec<(Found, usize)> = Vec::new();
    let mut on_timeline: FastSet<(usize, u64)> = FastSet::default();
    let mut reported: HashSet<usize> = HashSet::new();
    let mut errored = false;
    let mut frontier = vec![0usize];
    for hop in 0..=query.hops {
        if frontier.is_empty() {
            break;
        }
        let ids: Vec<Id> = frontier.iter().map(|&k| known[k].id).collect();
        // The root is followed whatever its line count.
        let limit = if hop == 0 { u64::MAX } else { query.max_fanout };
        let values: Vec<u128> = ids.iter().map(|id| id.0).collect();
        // The root as the user wrote it, the IDs found since as they were written: a trace or
        // span ID is found in its trace spellings too, which the index does not hold.
        let queries: Vec<Parsed> = if hop == 0 {
            vec![root]
        } else {
            frontier
                .iter()
                .map(|&k| Parsed {
                    id: known[k].id,
                    kind: known[k].kind,
                    written: match known[k].kind {
                        Kind::Ulid => Written::Ulid,
                        Kind::Span => Written::SpanHex,
                        Kind::Uuid | Kind::Trace => Written::Uuid,
                    },
                })
                .collect()
        };
        let traced = queries
            .iter()
            .any(|q| q.kind == Kind::Span || q.may_be_trace());
        let usable_index = ids_index.filter(|_| !traced);
        let candidates = match usable_index.map(|i| i.candidates(&values)) {
            Some(Err(warning)) => {
                exit::report(&warning);
                ids_index = None;
                None
            }
            Some(Ok(c)) => Some(c),
            None => None,
        };
        let pass = search_pass(
            settings,
            inputs,
            stdin,
            &queries,
            &on_timeline,
            limit,
            candidates.as_ref(),
        );
        for (i, notice) in &pass.notices {
            if reported.insert(*i) {
                exit::report(&format!(
                    "{}: {}",
                    inputs[*i].display_name(),
                    notice.message
                ));
                errored |= notice.error;
            }
        }
        for (q, &k) in frontier.iter().enumerate() {
            if k != 0 {
                let n = pass.counts[q];
                known[k].status = if n > limit {
                    Status::FanOut(n)
                } else {
                    Status::Followed(n)
                };
            }
        }
        let first_new = found.len();
        for f in pass.lines {
            let via = f
                .queries
                .iter()
                .map(|&q| frontier[q])
                .find(|&k| !matches!(known[k].status, Status::FanOut(_)));
            if let Some(via) = via {
                on_timeline.insert((f.file, f.line_no));
                found.push((f, via));
            }
        }
        // Place what we have so far, so the window can decide which new lines lead on.
        let placed = place(&found, &known);
        let mut next = Vec::new();
        for (n, (f, via)) in found.iter().enumerate().skip(first_new) {
            if !in_window(placed[n].0, query) {
                continue;
            }
            for token in &f.tokens {
                let k = *index.entry(token.id.0).or_insert_with(|| {
                    known.push(Known {
                        id: token.id,
                        kind: token.shape.kind(),
                        hop: hop + 1,
                        found_via: Some(*via),
                        status: Status::Listed,
                        named: false,
                    });
                    known.len() - 1
                });
                let entry = &mut known[k];
                if token.shape != Shape::UuidUndashed && !entry.named {
                    entry.named = true;
                    if entry.status == Status::Listed && is_entity(entry.id) {
                        next.push(k);
                    }
                }
            }
        }
        frontier = if hop < query.hops { next } else { Vec::new() };
    }
    (finish(query, inputs, found, &known, &index), errored)
}

/// The nil and max UUIDs stand for "no ID"; following them would follow nothing.
fn is_entity(id: Id) -> bool {
    !id.is_nil_or_max()
}

fn in_window(time_us: Option<i64>, query: &Query) -> bool {
    if query.since.is_none() && query.until.is_none() {
        return true;
    }
    // The window is to the millisecond: `--until 10:00:00.500` holds 10:00:00.500900.
    time_us
        .map(|t| t.div_euclid(1000))
        .is_some_and(|t| query.since.is_none_or(|s| t >= s) && query.until.is_none_or(|u| t <= u))
}

/// Gives each found line its time and rule (see the module doc). `found` holds each line with
/// the index of the ID that brought it in; the result is in the same order.
fn place(found: &[(Found, usize)], known: &[Known]) -> Vec<(Option<i64>, Placement)> {
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_unstable_by_key(|&i| (found[i].0.file, found[i].0.line_no));
    let mut placed = vec![(None, Placement::Unplaced); found.len()];
    let root_us = known[0].id.unix_ms(known[0].kind).map(|ms| ms * 1000);
    for group in order.chunk_by(|&a, &b| found[a].0.file == found[b].0.file) {
        let first_us = group
            .iter()
            .find_map(|&i| found[i].0.own_us.or(found[i].0.prev_us))
            .or(found[group[0]].0.file_first_us);
        for &i in group {
            let (f, via) = &found[i];
            placed[i] = match (f.own_us, f.prev_us, first_us) {
                (Some(t), _, _) => (Some(t), Placement::Line),
                (None, Some(t), _) => (Some(t), Placement::Inferred),
                (None, None, Some(t)) => (Some(t), Placement::Inferred),
                (None, None, None) => {
                    let via = &known[*via];
                    match via.id.unix_ms(via.kind).map(|ms| ms * 1000).or(root_us) {
                        Some(t) => (Some(t), Placement::IdTime),
                        None => (None, Placement::Unplaced),
                    }
                }
            };
        }
    }
    placed
}

/// Sorts, applies the window, drops unlisted IDs and works out each ID's figures.
fn finish(
    query: &Query,
    inputs: &[Input],
    found: Vec<(Found, usize)>,
    known: &[Known],
    index: &FastMap<u128, usize>,
) -> Timeline {
    let placed = place(&found, known);
    // Listed: the root, and named entities; their new indices are in order of discovery.
    let mut remap = vec![usize::MAX; known.len()];
    let mut ids = Vec::new();
    for (k, entry) in known.iter().enumerate() {
        if k == 0 || (entry.named && is_entity(entry.id)) {
            remap[k] = ids.len();
            ids.push(TimelineId {
                id: entry.id,
                kind: entry.kind,
                description: if k == 0 {
                    query.root.describe()
                } else {
                    entry.id.describe(entry.kind)
                },
                hop: entry.hop,
                found_via: entry.found_via,
                status: entry.status,
                lines: 0,
                first_us: None,
                last_us: None,
                field: None,
            });
        }
    }
    for entry in &mut ids {
        entry.found_via = entry.found_via.map(|v| remap[v]);
    }
    let mut fields: Vec<FastMap<String, u64>> = vec![FastMap::default(); ids.len()];
    let mut lines = Vec::with_capacity(found.len());
    // The last line that listed each ID: a line may hold an ID many times, and a test of the
    // line's list for each of its tokens took quadratic time on a line of 200,000 IDs.
    let mut listed_on = vec![usize::MAX; ids.len()];
    let (mut outside_window, mut untimed_outside_window) = (0, 0);
    for (n, ((f, via), (time_us, placement))) in found.into_iter().zip(placed).enumerate() {
        if !in_window(time_us, query) {
            match time_us {
                Some(_) => outside_window += 1,
                None => untimed_outside_window += 1,
            }
            continue;
        }
        let via_id = known[via].id;
        let mut line_ids = Vec::new();
        let mut field = None;
        let mut marks = Vec::new();
        for token in f.tokens {
            if token.id == via_id {
                marks.push((token.start, token.end));
                if field.is_none() {
                    field.clone_from(&token.field);
                }
            }
            let k = remap[index[&token.id.0]];
            if k == usize::MAX {
                continue;
            }
            if let Some(name) = token.field {
                *fields[k].entry(name).or_default() += 1;
            }
            if listed_on[k] != n {
                listed_on[k] = n;
                line_ids.push(k);
            }
        }
        for &k in &line_ids {
            let entry = &mut ids[k];
            entry.lines += 1;
            if let Some(t) = time_us {
                entry.first_us = Some(entry.first_us.map_or(t, |f| f.min(t)));
                entry.last_us = Some(entry.last_us.map_or(t, |l| l.max(t)));
            }
        }
        lines.push(Line {
            time_us,
            placement,
            file: f.file,
            line_no: f.line_no,
            field,
            via: remap[via],
            text: f.text,
            marks,
            ids: line_ids,
        });
    }
    for (entry, counts) in ids.iter_mut().zip(fields) {
        entry.field = counts
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
            .map(|(name, _)| name);
    }
    sort_lines(&mut lines);
    Timeline {
        ids,
        lines,
        paths: inputs.iter().map(Name::of).collect(),
        hops: query.hops,
        max_fanout: query.max_fanout,
        outside_window,
        untimed_outside_window,
    }
}

/// Time order; ties keep file order, then line order; unplaced lines last.
fn sort_lines(lines: &mut [Line]) {
    lines.sort_by_key(|l| (l.time_us.is_none(), l.time_us, l.file, l.line_no));
}

/// What one pass found.
struct Pass {
    lines: Vec<Found>,
    /// Lines per query ID, every line counted, also those dropped.
    counts: Vec<u64>,
    notices: Vec<(usize, Notice)>,
}

/// One scan thread's state during a pass.
#[derive(Default)]
struct PassThread {
    scratch: Scratch,
    lines: Vec<Found>,
    tokens: Vec<scan::Hit>,
    spans: Vec<(usize, usize)>,
    fields: Vec<Option<String>>,
}

/// Reads every input once for `ids`.
fn search_pass(
    settings: &ScanSettings,
    inputs: &[Input],
    stdin: Option<&Arc<[u8]>>,
    queries: &[Parsed],
    on_timeline: &FastSet<(usize, u64)>,
    max_fanout: u64,
    candidates: Option<&crate::index::Candidates>,
) -> Pass {
    let matcher = Matcher::for_queries(queries);
    let counts: Vec<AtomicU64> = queries.iter().map(|_| AtomicU64::new(0)).collect();
    let total = inputs.iter().map(source::size).sum::<Option<u64>>();
    let progress = Progress::start(settings.progress, total);
    let (threads, notices) = par::scan_all(
        inputs,
        settings.threads,
        PassThread::default,
        |thread, index, input| {
            let mut ranges = None;
            if let (Some(candidates), Input::File(path)) = (candidates, input) {
                match candidates.plan_path(path) {
                    Some((Plan::Skip, _)) => return None,
                    Some((Plan::Ranges(r), Some(file))) => {
                        let mut records =
                            Records::new(settings.zone.clone(), source::modified(input));
                        ranges = DatedRanges::new(file, r, &mut records);
                    }
                    _ => {}
                }
            }
            scan_one(
                thread,
                index,
                input,
                stdin,
                ranges,
                &matcher,
                &counts,
                on_timeline,
                max_fanout,
                settings,
                &progress,
            )
        },
    );
    progress.finish();
    // Walk order, whatever thread read which input: related IDs are then found, numbered and
    // dated the same way on every run.
    let mut lines: Vec<Found> = threads.into_iter().flat_map(|t| t.lines).collect();
    lines.sort_unstable_by_key(|f| (f.file, f.line_no));
    Pass {
        lines,
        counts: counts.iter().map(|c| c.load(Ordering::Relaxed)).collect(),
        notices,
    }
}

/// Where the nearest earlier timestamped line of the current file was seen.
#[derive(Default)]
struct FileTimes {
    /// Lines up to this number have been read for a time (or are the matched lines).
    checked: u64,
    /// The time of the last timestamped line up to `checked`.
    last_us: Option<i64>,
    /// The last timestamped line of the chunk being searched: its offset in the chunk and its
    /// time. The chunk's bytes are gone when the next one is searched, so a long run of
    /// untimed lines (a stack trace longer than the buffer) still reads back to it.
    chunk_last: Option<(usize, i64)>,
    /// The file's first timestamp, on any line.
    first_us: Option<i64>,
}

impl FileTimes {
    /// Notes the times of a chunk before its matching lines are read: the end of the previous
    /// chunk becomes checked, its last time the last seen, and this chunk's first and last
    /// timestamped lines are found (reading forward for the file's first, back for the last).
    fn enter_chunk(&mut self, chunk: &search::Chunk, records: &mut Records) {
        if let Some((_, ms)) = self.chunk_last.take() {
            self.last_us = Some(ms);
        }
        self.checked = chunk.first_line_no.saturating_sub(1);
        let bytes = chunk.bytes;
        let mut first_at = 0;
        if self.first_us.is_none() {
            let mut start = 0;
            while start < bytes.len() {
                let end = memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |p| start + p);
                if let Some(t) = records.time(trim_cr(&bytes[start..end])) {
                    self.first_us = Some(t);
                    first_at = start;
                    break;
                }
                start = end + 1;
            }
            if self.first_us.is_none() {
                return;
            }
        }
        let mut end = bytes.len();
        if bytes.last() == Some(&b'\n') {
            end -= 1;
        }
        loop {
            let start = memrchr(b'\n', &bytes[..end]).map_or(0, |p| p + 1);
            if let Some(t) = records.time(trim_cr(&bytes[start..end])) {
                self.chunk_last = Some((start, t));
                return;
            }
            if start <= first_at {
                return;
            }
            end = start - 1;
        }
    }

    /// Notes a matching line, `at` bytes into the chunk, with its own or inferred time: a
    /// timestamped line of the chunk before it is no longer the last one seen.
    fn matched(&mut self, line_no: u64, at: usize, time_us: Option<i64>) {
        self.checked = line_no;
        if self.chunk_last.is_some_and(|(last, _)| last <= at) {
            self.chunk_last = None;
        }
        if let Some(t) = time_us {
            self.last_us = Some(t);
        }
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// What of an input a pass reads.
enum Parts {
    Whole(Box<dyn io::Read + Send>),
    Ranges(DatedRanges),
}

/// The ranges of a file that an index names, with what dates their lines as a whole read
/// would: the file's first time, and before each range the time of the nearest earlier
/// timestamped line.
struct DatedRanges {
    file: std::fs::File,
    ranges: Vec<Range>,
    first_us: Option<i64>,
    before_us: Vec<Option<i64>>,
}

impl DatedRanges {
    /// `None` when a walk for those times gives up (a long run of undated lines) or fails:
    /// the file is then read whole.
    fn new(file: std::fs::File, ranges: Vec<Range>, records: &mut Records) -> Option<DatedRanges> {
        let mut time = |line: &[u8]| records.time(trim_cr(line));
        let found = |walk: io::Result<Walk<i64>>| match walk {
            Ok(Walk::Found(t)) => Some(Some(t)),
            Ok(Walk::Nothing) => Some(None),
            Ok(Walk::TooFar) | Err(_) => None,
        };
        let first_us = found(find_from_start(&file, &mut time))?;
        let before_us = match first_us {
            // No line of the file has a time: none before any range either.
            None => vec![None; ranges.len()],
            Some(_) => ranges
                .iter()
                .map(|r| found(find_before(&file, r.start, &mut time)))
                .collect::<Option<_>>()?,
        };
        Some(DatedRanges {
            file,
            ranges,
            first_us,
            before_us,
        })
    }
}

/// Up to this many hits on a line, [`scan_one`] lists their queries by comparing each with
/// those listed.
const FEW_HITS: usize = 16;

#[allow(clippy::too_many_arguments)]
fn scan_one(
    thread: &mut PassThread,
    file: usize,
    input: &Input,
    stdin: Option<&Arc<[u8]>>,
    ranges: Option<DatedRanges>,
    matcher: &Matcher,
    counts: &[AtomicU64],
    on_timeline: &FastSet<(usize, u64)>,
    max_fanout: u64,
    settings: &ScanSettings,
    progress: &Progress,
) -> Option<Notice> {
    let parts = match ranges {
        Some(dated) => Parts::Ranges(dated),
        None => {
            let opened = match (input, stdin) {
                (Input::Stdin, Some(data)) => {
                    source::decompress(Box::new(io::Cursor::new(Arc::clone(data))))
                }
                _ => source::open(input, progress.counter()),
            };
            match opened {
                Ok(reader) => Parts::Whole(reader),
                Err(e) => return Some(Notice::failed(&e)),
            }
        }
    };
    let records = RefCell::new(Records::new(settings.zone.clone(), source::modified(input)));
    let times = RefCell::new(FileTimes::default());
    let PassThread {
        scratch,
        lines,
        tokens,
        spans,
        fields,
    } = thread;
    let first_found = lines.len();
    let options = SearchOptions {
        line_numbers: true,
        text: settings.text,
        ..SearchOptions::default()
    };
    let mut on_chunk = |chunk: &search::Chunk| {
        times
            .borrow_mut()
            .enter_chunk(chunk, &mut records.borrow_mut());
    };
    let mut on_line = |m: &search::LineMatch| {
        // Each query once, in the order of the hits; a set for a line with many (a test of
        // the list for each took quadratic time on a line of 200,000 related IDs).
        let mut queries = Vec::new();
        if m.hits.len() <= FEW_HITS {
            for hit in m.hits {
                if !queries.contains(&hit.query) {
                    queries.push(hit.query);
                }
            }
        } else {
            let mut seen = FastSet::default();
            queries.extend(
                m.hits
                    .iter()
                    .map(|hit| hit.query)
                    .filter(|&q| seen.insert(q)),
            );
        }
        let mut wanted = false;
        for &q in &queries {
            wanted |= counts[q].fetch_add(1, Ordering::Relaxed) < max_fanout;
        }
        if !wanted || on_timeline.contains(&(file, m.line_no)) {
            return true;
        }
        tokens.clear();
        scan::for_each_token(m.line, |t| tokens.push(t));
        // A trace's spans are its related IDs, where a span field names them.
        id::trace::for_each_field_span(m.line, |start, end, value| {
            tokens.push(scan::Hit {
                start,
                end,
                shape: Shape::Hex16,
                id: Id(value.into()),
                query: 0,
            })
        });
        spans.clear();
        spans.extend(tokens.iter().map(|t| (t.start, t.end)));
        let records = &mut records.borrow_mut();
        let times = &mut times.borrow_mut();
        let own_us = records.read(m.line, spans, fields);
        let prev_us = if own_us.is_some() {
            None
        } else {
            previous_time(m.before, m.line_no, times, records)
        };
        times.matched(m.line_no, m.before.len(), own_us.or(prev_us));
        lines.push(Found {
            file,
            line_no: m.line_no,
            text: m.line.into(),
            own_us,
            prev_us,
            file_first_us: None,
            queries,
            tokens: tokens
                .iter()
                .zip(fields.drain(..))
                .map(|(t, field)| Token {
                    id: t.id,
                    shape: t.shape,
                    start: t.start,
                    end: t.end,
                    field,
                })
                .collect(),
        });
        true
    };
    let outcome = match parts {
        Parts::Whole(mut reader) => search::search_with_chunks(
            matcher,
            options,
            &mut reader,
            scratch,
            Some(&mut on_chunk),
            &mut on_line,
        ),
        Parts::Ranges(dated) => {
            // The index found the file not binary, as a whole read would.
            let options = SearchOptions {
                text: true,
                ..options
            };
            times.borrow_mut().first_us = dated.first_us;
            let mut total = search::Outcome::default();
            for (range, &before_us) in dated.ranges.iter().zip(&dated.before_us) {
                *times.borrow_mut() = FileTimes {
                    checked: range.first_line - 1,
                    last_us: before_us,
                    chunk_last: None,
                    first_us: dated.first_us,
                };
                let outcome = search::search_part(
                    matcher,
                    options,
                    &mut RangeReader::new(&dated.file, range),
                    scratch,
                    range.first_line,
                    Some(&mut on_chunk),
                    &mut on_line,
                );
                total.matched_lines += outcome.matched_lines;
                if outcome.error.is_some() {
                    total.error = outcome.error;
                    break;
                }
            }
            total
        }
    };
    let file_first_us = times.borrow().first_us;
    for found in &mut lines[first_found..] {
        found.file_first_us = file_first_us;
    }
    Notice::after_scan(outcome, "left out")
}

/// The time of the nearest timestamped line before line `line_no`, reading back through
/// `before` (the buffered lines before it) no further than the lines already checked; past
/// those, the last time seen in the file (on a matching line, or the last of an earlier
/// buffer).
fn previous_time(
    before: &[u8],
    line_no: u64,
    times: &FileTimes,
    records: &mut Records,
) -> Option<i64> {
    let mut end = before.len();
    let mut n = line_no;
    while n > times.checked + 1 && end > 0 {
        let body_end = end - 1;
        let start = memrchr(b'\n', &before[..body_end]).map_or(0, |p| p + 1);
        let mut line = &before[start..body_end];
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        if let Some(t) = records.time(line) {
            return Some(t);
        }
        n -= 1;
        end = start;
    }
    times.last_us
}

/// The one door to [`crate::record`], which reads a line's fields and time: everything this
/// module needs from it goes through here.
struct Records {
    context: record::TimeContext,
    analysis: record::Analysis,
}

impl Records {
    /// `modified` dates the year-less times of a file (syslog, klog); standard input is
    /// dated by now.
    fn new(zone: Option<jiff::tz::TimeZone>, modified: Option<std::time::SystemTime>) -> Records {
        Records {
            context: record::TimeContext::for_file(zone.as_ref(), modified),
            analysis: record::Analysis::default(),
        }
    }

    /// Reads `line`: returns its own time and sets `fields` to the field of each span.
    fn read(
        &mut self,
        line: &[u8],
        spans: &[(usize, usize)],
        fields: &mut Vec<Option<String>>,
    ) -> Option<i64> {
        record::analyse(line, spans, true, &self.context, &mut self.analysis);
        fields.clear();
        fields.extend((0..spans.len()).map(|i| {
            self.analysis
                .field(i)
                .map(|f| String::from_utf8_lossy(f).into_owned())
        }));
        self.analysis.time().map(|t| t.micros)
    }

    /// The line's own time only.
    fn time(&mut self, line: &[u8]) -> Option<i64> {
        record::analyse(line, &[], true, &self.context, &mut self.analysis);
        self.analysis.time().map(|t| t.micros)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT_MS: i64 = 1_795_996_800_000;

    fn known(id: u128, kind: Kind) -> Known {
        Known {
            id: Id(id),
            kind,
            hop: 0,
            found_via: None,
            status: Status::Root,
            named: true,
        }
    }

    /// A ULID whose embedded time is `ms`.
    fn ulid_at(ms: i64) -> u128 {
        (ms as u128) << 80 | 0x1234
    }

    fn found(file: usize, line_no: u64, own_us: Option<i64>, prev_us: Option<i64>) -> Found {
        Found {
            file,
            line_no,
            text: Box::from(&b"x"[..]),
            own_us,
            prev_us,
            file_first_us: None,
            queries: vec![0],
            tokens: Vec::new(),
        }
    }

    #[test]
    fn each_line_is_placed_by_the_first_rule_that_applies() {
        // A UUIDv4 (no embedded time) as a related ID.
        let v4 = 0x05db_b51a_0e8a_4ab6_a42c_2eb6_b450_d4a7;
        let ids = vec![known(ulid_at(ROOT_MS), Kind::Ulid), known(v4, Kind::Uuid)];
        let lines = vec![
            (found(0, 1, None, None), 0),     // before the file's first time
            (found(0, 2, Some(10), None), 0), // its own time
            (found(0, 5, None, Some(20)), 0), // an earlier line's time
            (found(1, 3, None, None), 0),     // a file without times: the root's time
            (found(2, 1, None, None), 1),     // via an ID without time: the root's
            (found(0, 9, None, None), 0),     // after timed lines, nothing read back
        ];
        let placed = place(&lines, &ids);
        assert_eq!(
            placed,
            vec![
                (Some(10), Placement::Inferred),
                (Some(10), Placement::Line),
                (Some(20), Placement::Inferred),
                (Some(ROOT_MS * 1000), Placement::IdTime),
                (Some(ROOT_MS * 1000), Placement::IdTime),
                (Some(10), Placement::Inferred),
            ]
        );
        // No embedded time anywhere: unplaced.
        let ids = vec![known(v4, Kind::Uuid)];
        let placed = place(&[(found(0, 1, None, None), 0)], &ids);
        assert_eq!(placed, vec![(None, Placement::Unplaced)]);
    }

    fn line(time_us: Option<i64>, file: usize, line_no: u64) -> Line {
        Line {
            time_us,
            placement: if time_us.is_some() {
                Placement::Line
            } else {
                Placement::Unplaced
            },
            file,
            line_no,
            field: None,
            via: 0,
            text: Box::from(&b""[..]),
            marks: Vec::new(),
            ids: Vec::new(),
        }
    }

    #[test]
    fn ties_keep_file_order_then_line_order_and_unplaced_lines_come_last() {
        let mut lines = vec![
            line(None, 0, 1),
            line(Some(5), 2, 1),
            line(Some(5), 1, 7),
            line(Some(3), 2, 9),
            line(Some(5), 1, 2),
            line(None, 0, 0),
        ];
        sort_lines(&mut lines);
        let order: Vec<(Option<i64>, usize, u64)> = lines
            .iter()
            .map(|l| (l.time_us, l.file, l.line_no))
            .collect();
        assert_eq!(
            order,
            vec![
                (Some(3), 2, 9),
                (Some(5), 1, 2),
                (Some(5), 1, 7),
                (Some(5), 2, 1),
                (None, 0, 0),
                (None, 0, 1),
            ]
        );
    }

    #[test]
    fn an_untimed_line_reads_back_to_the_nearest_timestamp_but_not_past_checked_lines() {
        let mut records = Records::new(None, None);
        let before =
            b"2026-11-30T08:00:01Z start\n2026-11-30T08:00:04Z failed\n\tat a.b(C.java:1)\r\n";
        let fresh = FileTimes {
            checked: 0,
            last_us: None,
            ..FileTimes::default()
        };
        let four = jiff::Timestamp::from_second(1_796_025_604).unwrap();
        assert_eq!(
            previous_time(before, 4, &fresh, &mut records),
            Some(four.as_microsecond())
        );
        // Lines 1-3 already read: the remembered time stands.
        let checked = FileTimes {
            checked: 3,
            last_us: Some(7),
            ..FileTimes::default()
        };
        assert_eq!(previous_time(before, 4, &checked, &mut records), Some(7));
        assert_eq!(previous_time(b"no time\n", 2, &fresh, &mut records), None);
    }
}
