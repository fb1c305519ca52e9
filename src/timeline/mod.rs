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
//!
//! [`scan`] runs one pass over the inputs and dates each line it keeps; this module chains the
//! passes, places the lines and works out each ID's figures.

mod fields;
mod finish;
mod scan;

use std::collections::HashSet;
use std::sync::Arc;

use crate::exit;
use crate::id::{self, Id, Kind, Parsed, Shape, Written};
use crate::par::{Ordered, ScanSettings};
use crate::source::Input;
use crate::text::Name;

use finish::finish;
use scan::{FastMap, FastSet, InputFinds, UNLISTED, search_pass};

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
    pub field: Option<Arc<str>>,
    /// A span's parent span, where a line writes both (`span_id` beside `parent_span_id`,
    /// `X-B3-SpanId` beside `X-B3-ParentSpanId`): an index into [`Timeline::ids`].
    pub parent: Option<usize>,
    /// The service named on a span's first line (`service`, `service.name`, `dd.service`, an
    /// OpenTelemetry `service.name` attribute).
    pub service: Option<String>,
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
    /// The field that holds the ID that brought the line in (one copy of each name, shared
    /// by the lines that name it).
    pub field: Option<Arc<str>>,
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
        let mut used = vec![false; self.paths.len()];
        for line in &self.lines {
            used[line.file] = true;
        }
        (0..used.len()).filter(|&f| used[f]).collect()
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
    /// Seen as a ULID or a dashed UUID, in a trace or span spelling, or as 32 hex written as a
    /// trace (or the root): may be listed and followed.
    named: bool,
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
    // The lines the passes found, a list per input and pass in walk order, each line with the
    // known ID that brought it in; numbered one after another, as `placed` lists them.
    let mut found: Vec<InputFinds> = Vec::new();
    let mut found_lines = 0;
    let mut on_timeline: FastSet<(usize, u64)> = FastSet::default();
    let mut reported: HashSet<usize> = HashSet::new();
    let mut errored = false;
    let mut frontier = vec![0usize];
    // Where each found line stands in time, worked out again after each pass.
    let mut placed = Vec::new();
    let ordered = Ordered::largest_first(inputs);
    for hop in 0..=query.hops {
        if frontier.is_empty() {
            break;
        }
        // The root is followed whatever its line count.
        let limit = if hop == 0 { u64::MAX } else { query.max_fanout };
        // The root as the user wrote it, the IDs found since as they were written: a trace or
        // span ID is found in its trace spellings too.
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
        let lookup = ids_index.zip(crate::index::keys_of(&queries));
        let range_cost = crate::index::TIMELINE_RANGE_COST;
        let candidates =
            match lookup.map(|(i, keys)| i.candidates(keys, settings.threads, range_cost)) {
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
            &ordered,
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
        let (first_new, first_new_input) = (found_lines, found.len());
        // The last pass's lines are read by no later pass.
        let last_pass = hop == query.hops;
        if !last_pass {
            on_timeline.reserve(pass.inputs.iter().map(|input| input.lines.len()).sum());
        }
        for mut input in pass.inputs {
            let InputFinds { lines, queries, .. } = &mut input;
            lines.retain_mut(|f| {
                let via = queries[f.queries.clone()]
                    .iter()
                    .map(|&q| frontier[q])
                    .find(|&k| !matches!(known[k].status, Status::FanOut(_)));
                if let Some(via) = via {
                    if !last_pass {
                        on_timeline.insert((f.file, f.line_no));
                    }
                    f.via = via;
                }
                via.is_some()
            });
            if !input.lines.is_empty() {
                found_lines += input.lines.len();
                // Only the gathering reads a line's queries.
                input.queries = Vec::new();
                found.push(input);
            }
        }
        // Place what we have so far, so the window can decide which new lines lead on.
        placed = place(&found, &known);
        let mut next = Vec::new();
        let mut numbers = first_new..;
        for input in &mut found[first_new_input..] {
            let InputFinds { lines, tokens, .. } = input;
            for (f, n) in lines.iter().zip(&mut numbers) {
                if !in_window(placed[n].0, query) {
                    continue;
                }
                for token in &mut tokens[f.tokens.clone()] {
                    let k = *index.entry(token.id.0).or_insert_with(|| {
                        known.push(Known {
                            id: token.id,
                            kind: token.shape.kind(),
                            hop: hop + 1,
                            found_via: Some(f.via),
                            status: Status::Listed,
                            named: false,
                        });
                        known.len() - 1
                    });
                    token.known = u32::try_from(k).unwrap_or(UNLISTED);
                    let entry = &mut known[k];
                    if entry.named {
                        continue;
                    }
                    // 32 bare hex may be a digest; in a trace field or header it is a trace ID,
                    // as `ids` counts it. An ID named by a trace spelling is a trace.
                    let trace_hex = token.shape == Shape::UuidUndashed
                        && id::trace_value::hex32_is_trace(&f.text, token.start, token.end);
                    if token.shape != Shape::UuidUndashed || trace_hex {
                        if trace_hex || token.shape == Shape::Xray {
                            entry.kind = Kind::Trace;
                        }
                        entry.named = true;
                        if entry.status == Status::Listed && is_entity(entry.id) {
                            next.push(k);
                        }
                    }
                }
            }
        }
        frontier = if hop < query.hops { next } else { Vec::new() };
    }
    (
        finish(
            query,
            inputs,
            found,
            placed,
            &known,
            &index,
            settings.threads,
        ),
        errored,
    )
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

/// Gives each found line its time and rule (see the module doc). `found`: the lists of found
/// lines, each line with the index of the ID that brought it in; the result has a place for
/// each line, the lists' lines one after another.
fn place(found: &[InputFinds], known: &[Known]) -> Vec<(Option<i64>, Placement)> {
    /// What a file's lines tell of its time: the time (own or an earlier line's) of its
    /// first matched line that has one, and of the list with its first matched line, the
    /// file's first timestamp on any line.
    #[derive(Clone, Copy, Default)]
    struct FileTime {
        first_timed: Option<(u64, i64)>,
        first_line: Option<(u64, Option<i64>)>,
    }
    // A list's lines are in line order; each pass found other lines of a file.
    let files = found.iter().map(|input| input.file + 1).max().unwrap_or(0);
    let mut times = vec![FileTime::default(); files];
    for input in found {
        let time = &mut times[input.file];
        if let Some(first) = input.lines.first()
            && time.first_line.is_none_or(|(line, _)| first.line_no < line)
        {
            time.first_line = Some((first.line_no, input.first_us));
        }
        let timed = input
            .lines
            .iter()
            .find_map(|f| Some((f.line_no, f.own_us.or(f.prev_us)?)));
        if let Some((line, t)) = timed
            && time.first_timed.is_none_or(|(first, _)| line < first)
        {
            time.first_timed = Some((line, t));
        }
    }
    let root_us = known[0].id.unix_ms(known[0].kind).map(|ms| ms * 1000);
    let mut placed = Vec::with_capacity(found.iter().map(|input| input.lines.len()).sum());
    for input in found {
        let time = times[input.file];
        let first_us = time
            .first_timed
            .map(|(_, t)| t)
            .or(time.first_line.and_then(|(_, first_us)| first_us));
        placed.extend(
            input
                .lines
                .iter()
                .map(|f| match (f.own_us, f.prev_us, first_us) {
                    (Some(t), _, _) => (Some(t), Placement::Line),
                    (None, Some(t), _) => (Some(t), Placement::Inferred),
                    (None, None, Some(t)) => (Some(t), Placement::Inferred),
                    (None, None, None) => {
                        let via = &known[f.via];
                        match via.id.unix_ms(via.kind).map(|ms| ms * 1000).or(root_us) {
                            Some(t) => (Some(t), Placement::IdTime),
                            None => (None, Placement::Unplaced),
                        }
                    }
                }),
        );
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::*;
    use scan::Found;

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
            queries: 0..0,
            tokens: 0..0,
            via: 0,
        }
    }

    /// `lines` (each with the ID that brought it in) as a pass gives them: a list for each run
    /// of lines of one file, none of them with tokens, and each file's first timestamp as
    /// `first_us` says.
    fn by_input(lines: Vec<(Found, usize)>, first_us: &[(usize, i64)]) -> Vec<InputFinds> {
        let mut inputs: Vec<InputFinds> = Vec::new();
        for (mut f, via) in lines {
            f.via = via;
            match inputs.last_mut() {
                Some(input) if input.file == f.file => input.lines.push(f),
                _ => inputs.push(InputFinds {
                    file: f.file,
                    first_us: first_us.iter().find(|p| p.0 == f.file).map(|p| p.1),
                    lines: vec![f],
                    ..InputFinds::default()
                }),
            }
        }
        inputs
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
            (found(3, 4, None, None), 0),     // no matched line's time: the file's first
        ];
        let placed = place(&by_input(lines, &[(3, 7)]), &ids);
        assert_eq!(
            placed,
            vec![
                (Some(10), Placement::Inferred),
                (Some(10), Placement::Line),
                (Some(20), Placement::Inferred),
                (Some(ROOT_MS * 1000), Placement::IdTime),
                (Some(ROOT_MS * 1000), Placement::IdTime),
                (Some(10), Placement::Inferred),
                (Some(7), Placement::Inferred),
            ]
        );
        // No embedded time anywhere: unplaced.
        let ids = vec![known(v4, Kind::Uuid)];
        let placed = place(&by_input(vec![(found(0, 1, None, None), 0)], &[]), &ids);
        assert_eq!(placed, vec![(None, Placement::Unplaced)]);
    }

    /// Lines found by several passes in files read in turn are placed as by a sort of all of
    /// them by file and line, where each file's first matched line with a time (its own or
    /// an earlier line's) gives the time of the lines before it.
    #[test]
    fn lines_of_many_passes_are_placed_as_one_sorted_list_places_them() {
        let mut rng = crate::testing::Rng(0x91ace);
        // Lines of files without times take the time of the ID that brought them in.
        let ids = [ROOT_MS, ROOT_MS + 5].map(|ms| known(ulid_at(ms), Kind::Ulid));
        for round in 0..300 {
            let files = 1 + rng.below(6);
            // A file's first timestamp, the same for every pass that reads it.
            let first_us: Vec<Option<i64>> = (0..files)
                .map(|_| (rng.below(3) == 0).then(|| rng.below(100) as i64))
                .collect();
            let mut lists = Vec::new();
            let mut taken = std::collections::HashSet::new();
            for _pass in 0..1 + rng.below(3) {
                for (file, &first_us) in first_us.iter().enumerate() {
                    let mut input = InputFinds {
                        file,
                        first_us,
                        ..InputFinds::default()
                    };
                    let mut line_no = rng.below(20) as u64;
                    for _ in 0..rng.below(6) {
                        line_no += 1 + rng.below(10) as u64;
                        if !taken.insert((file, line_no)) {
                            continue;
                        }
                        let mut time = || (rng.below(3) == 0).then(|| rng.below(1000) as i64);
                        let mut f = found(file, line_no, time(), time());
                        f.via = rng.below(2);
                        input.lines.push(f);
                    }
                    if !input.lines.is_empty() {
                        lists.push(input);
                    }
                }
            }
            // The reference: every line sorted by file and line, each file's lines in turn.
            let all: Vec<(&Found, Option<i64>)> = lists
                .iter()
                .flat_map(|input| input.lines.iter().map(move |f| (f, input.first_us)))
                .collect();
            let mut order: Vec<usize> = (0..all.len()).collect();
            order.sort_by_key(|&i| (all[i].0.file, all[i].0.line_no));
            let mut want = vec![(None, Placement::Unplaced); all.len()];
            for group in order.chunk_by(|&a, &b| all[a].0.file == all[b].0.file) {
                let first = group
                    .iter()
                    .find_map(|&i| all[i].0.own_us.or(all[i].0.prev_us))
                    .or(all[group[0]].1);
                for &i in group {
                    let f = all[i].0;
                    want[i] = match (f.own_us, f.prev_us, first) {
                        (Some(t), _, _) => (Some(t), Placement::Line),
                        (None, Some(t), _) | (None, None, Some(t)) => {
                            (Some(t), Placement::Inferred)
                        }
                        (None, None, None) => {
                            let ms = ROOT_MS + 5 * f.via as i64;
                            (Some(ms * 1000), Placement::IdTime)
                        }
                    };
                }
            }
            assert_eq!(place(&lists, &ids), want, "round {round}");
        }
    }

    /// A line holding the related ID `related` (known as 1) in `field`, its token pushed
    /// onto `tokens`.
    fn holding(
        line_no: u64,
        related: u128,
        field: &str,
        tokens: &mut Vec<scan::Token>,
    ) -> (Found, usize) {
        let mut line = found(0, line_no, Some(line_no as i64), None);
        line.tokens = tokens.len()..tokens.len() + 1;
        tokens.push(scan::Token {
            id: Id(related),
            shape: Shape::Ulid,
            start: 0,
            end: 26,
            field: Some(Arc::from(field)),
            known: 1,
        });
        (line, 0)
    }

    #[test]
    fn a_related_id_shows_the_field_of_most_of_its_lines_and_of_ties_the_first_by_name() {
        let root = known(ulid_at(ROOT_MS), Kind::Ulid);
        let related = ulid_at(ROOT_MS + 1);
        let query = Query {
            root: Parsed {
                id: root.id,
                kind: Kind::Ulid,
                written: Written::Ulid,
            },
            hops: 1,
            max_fanout: 100,
            since: None,
            until: None,
        };
        let field_of = |fields: &[&str]| {
            let mut tokens = Vec::new();
            let lines: Vec<(Found, usize)> = fields
                .iter()
                .enumerate()
                .map(|(n, field)| holding(n as u64 + 1, related, field, &mut tokens))
                .collect();
            let mut found = by_input(lines, &[]);
            found[0].tokens = tokens;
            let ids = [
                known(ulid_at(ROOT_MS), Kind::Ulid),
                Known {
                    status: Status::Followed(fields.len() as u64),
                    ..known(related, Kind::Ulid)
                },
            ];
            let placed = place(&found, &ids);
            let timeline = finish(&query, &[], found, placed, &ids, &FastMap::default(), 1);
            timeline.ids[1].field.as_deref().map(str::to_owned)
        };
        // Most lines win, wherever they stand.
        assert_eq!(field_of(&["z_id", "a_id", "z_id"]).as_deref(), Some("z_id"));
        assert_eq!(field_of(&["a_id", "z_id", "z_id"]).as_deref(), Some("z_id"));
        // As many lines each: the first name in byte order, whichever came first.
        assert_eq!(field_of(&["z_id", "a_id"]).as_deref(), Some("a_id"));
        assert_eq!(field_of(&["a_id", "z_id"]).as_deref(), Some("a_id"));
    }

    /// The timeline of many lines is the same whether its lines are read on one thread or in
    /// parts on three: lines, their IDs and marks, each ID's figures, field and parent, and
    /// the window's counts.
    #[test]
    fn lines_read_in_parts_give_the_timeline_one_thread_gives() {
        let mut rng = crate::testing::Rng(0x7e11);
        let names: Vec<Arc<str>> = ["span_id", "parent_span_id", "user_id", "a", "b"]
            .iter()
            .map(|&n| Arc::from(n))
            .collect();
        let mut ids = vec![known(ulid_at(ROOT_MS), Kind::Ulid)];
        for r in 1..300u128 {
            let kind = if r % 3 == 0 { Kind::Span } else { Kind::Ulid };
            let id = if kind == Kind::Span {
                r
            } else {
                ulid_at(ROOT_MS + r as i64)
            };
            ids.push(Known {
                status: Status::Followed(1),
                named: r % 10 != 0,
                ..known(id, kind)
            });
        }
        let index: FastMap<u128, usize> =
            ids.iter().enumerate().map(|(k, e)| (e.id.0, k)).collect();
        // Lists of one line to hundreds, as files give them, so that parts cut lists too.
        let mut lists: Vec<InputFinds> = Vec::new();
        let mut n = 0u64;
        while n < 12_000 {
            let file = lists.len();
            let mut input = InputFinds {
                file,
                ..InputFinds::default()
            };
            for _ in 0..1 + rng.next() % 400 {
                let time = (!rng.next().is_multiple_of(7)).then(|| (rng.next() % 5_000) as i64);
                let mut f = found(file % 5, n, time, None);
                n += 1;
                let first = input.tokens.len();
                for _ in 0..rng.next() % 6 {
                    let k = (rng.next() % ids.len() as u64) as usize;
                    input.tokens.push(scan::Token {
                        id: ids[k].id,
                        shape: Shape::Ulid,
                        start: (rng.next() % 4) as usize,
                        end: 26,
                        field: (!rng.next().is_multiple_of(4))
                            .then(|| Arc::clone(&names[(rng.next() % 5) as usize])),
                        known: if rng.next().is_multiple_of(5) {
                            UNLISTED
                        } else {
                            k as u32
                        },
                    });
                }
                f.tokens = first..input.tokens.len();
                f.via = (rng.next() % ids.len() as u64) as usize;
                input.lines.push(f);
            }
            lists.push(input);
        }
        let clone = |lists: &[InputFinds]| -> Vec<InputFinds> {
            lists
                .iter()
                .map(|input| InputFinds {
                    file: input.file,
                    first_us: input.first_us,
                    lines: input
                        .lines
                        .iter()
                        .map(|f| Found {
                            text: f.text.clone(),
                            queries: f.queries.clone(),
                            tokens: f.tokens.clone(),
                            ..*f
                        })
                        .collect(),
                    queries: Vec::new(),
                    tokens: input
                        .tokens
                        .iter()
                        .map(|t| scan::Token {
                            field: t.field.clone(),
                            ..*t
                        })
                        .collect(),
                })
                .collect()
        };
        for (since, until) in [(None, None), (Some(1), Some(3))] {
            let query = Query {
                root: Parsed {
                    id: ids[0].id,
                    kind: Kind::Ulid,
                    written: Written::Ulid,
                },
                hops: 1,
                max_fanout: 100,
                since,
                until,
            };
            let placed = place(&lists, &ids);
            let one = finish(&query, &[], clone(&lists), placed.clone(), &ids, &index, 1);
            let three = finish(&query, &[], clone(&lists), placed, &ids, &index, 3);
            assert!(one.lines.len() > 1000 || since.is_some());
            assert!(one.ids.iter().any(|e| e.parent.is_some()));
            assert_eq!(format!("{one:?}"), format!("{three:?}"));
        }
    }
}
