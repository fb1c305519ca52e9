//! One pass of a timeline: every input read once on N threads for a set of IDs, each matching
//! line kept with its tokens, their fields and what dates it (its own time, the nearest earlier
//! timestamped line of its file, the file's first time), for [`super`] to place and sort.
//!
//! An input an index covers is read only in the ranges the index names, each range dated as a
//! whole read would date it ([`DatedRanges`]). A line is counted for each of its IDs, and kept
//! only while one of them is under `--max-fanout` and it is not on the timeline already.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use memchr::{memchr, memrchr};

use crate::id::{self, Id, Parsed, Shape};
use crate::index::{Held, Plan, Range, RangeBytes, Walk, find_from_start, last_before, open_range};
use crate::par::{self, Notice, Ordered, ScanSettings};
use crate::progress::Progress;
use crate::record;
use crate::scan::{self, Matcher};
use crate::search::{self, Scratch, SearchOptions};
use crate::source::{self, Input};

/// Maps and sets keyed by what the logs hold (IDs, line positions, field names) and looked up
/// once per token of every line on the timeline: foldhash, not std's SipHash, which has no
/// attacker to resist here.
pub(super) type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;
pub(super) type FastSet<T> = HashSet<T, foldhash::fast::FixedState>;

/// A line found by a pass, before it is placed in time.
pub(super) struct Found {
    pub(super) file: usize,
    pub(super) line_no: u64,
    pub(super) text: Box<[u8]>,
    pub(super) own_us: Option<i64>,
    /// The time of the nearest earlier timestamped line of the file, if one was seen.
    pub(super) prev_us: Option<i64>,
    /// Where the line's query indices (of the pass's IDs on it, by first position) stand in
    /// its input's [`InputFinds::queries`].
    pub(super) queries: std::ops::Range<usize>,
    /// Where the line's tokens stand in its input's [`InputFinds::tokens`]. A list per input,
    /// not per line: a line's own list was allocated on a pass's thread and freed on another,
    /// about 5 ms of `finish` reading two hops' 83,000 lines.
    pub(super) tokens: std::ops::Range<usize>,
    /// The known ID that brought the line in, of those its pass looked for: set as the pass's
    /// lines are gathered, once the pass has counted each ID's lines (the root until then).
    pub(super) via: usize,
}

/// What a pass found in one input: its lines in line order, and their query indices and
/// tokens, each line's one after another. The timeline keeps each as it is, the lists one
/// after another in walk order, so that no line is moved once found: gathering two hops'
/// 83,000 lines into one list (10 MB of fresh pages) took 6 ms on one thread.
#[derive(Default)]
pub(super) struct InputFinds {
    /// Its index among the inputs.
    pub(super) file: usize,
    /// The file's first timestamp, on any line.
    pub(super) first_us: Option<i64>,
    pub(super) lines: Vec<Found>,
    pub(super) queries: Vec<usize>,
    pub(super) tokens: Vec<Token>,
}

/// An ID token on a found line.
pub(super) struct Token {
    pub(super) id: Id,
    pub(super) shape: Shape,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) field: Option<Arc<str>>,
    /// Where the ID is in the timeline's list of known IDs, once a pass has listed it:
    /// [`UNLISTED`] before.
    pub(super) known: u32,
}

/// [`Token::known`] of a token whose ID no pass has listed yet.
pub(super) const UNLISTED: u32 = u32::MAX;

/// What one pass found.
pub(super) struct Pass {
    /// The lines found in each input that has any, a list per input in line order, the lists
    /// in input order: one after another they are the pass's walk order, whatever thread read
    /// which input, so related IDs are found, numbered and dated the same way on every run.
    /// Kept per input, the lines come in that order with no sort and no merge, and no list
    /// of a whole thread's lines is grown step by step into fresh pages.
    pub(super) inputs: Vec<InputFinds>,
    /// Lines per query ID, every line counted, also those dropped.
    pub(super) counts: Vec<u64>,
    pub(super) notices: Vec<(usize, Notice)>,
}

/// One scan thread's state during a pass.
#[derive(Default)]
struct PassThread {
    scratch: Scratch,
    /// What each input read gave.
    inputs: Vec<InputFinds>,
    tokens: Vec<scan::Hit>,
    spans: Vec<(usize, usize)>,
    fields: Vec<Option<Arc<str>>>,
    /// Each field name met, once: the lines that name it share it.
    names: FastMap<Box<[u8]>, Arc<str>>,
    /// Room for the bytes of a file's ranges, kept from range to range.
    held: Held,
}

/// Reads every input once for the lines that hold any of `queries`: one pass of the timeline.
pub(super) fn search_pass(
    settings: &ScanSettings,
    ordered: &Ordered,
    stdin: Option<&Arc<[u8]>>,
    queries: &[Parsed],
    on_timeline: &FastSet<(usize, u64)>,
    max_fanout: u64,
    candidates: Option<&crate::index::Candidates>,
) -> Pass {
    let matcher = Matcher::for_queries(queries);
    let counts: Vec<AtomicU64> = queries.iter().map(|_| AtomicU64::new(0)).collect();
    let progress = Progress::start(settings.progress, ordered.total());
    let (threads, notices) = par::scan_all(
        ordered,
        settings.threads,
        PassThread::default,
        |thread, index, input| {
            let mut plan = None;
            if let (Some(candidates), Input::File(path)) = (candidates, input) {
                match candidates.plan_path(path) {
                    Some((Plan::Skip, _)) => return None,
                    Some((Plan::Ranges(r), Some(opened))) => plan = Some((r, opened)),
                    _ => {}
                }
            }
            let modified = match &plan {
                Some((_, (_, meta))) => meta.modified().ok(),
                None => source::modified(input),
            };
            let mut records = Records::new(settings.zone.clone(), modified);
            let ranges = plan.and_then(|(r, (file, _))| DatedRanges::new(file, r, &mut records));
            scan_one(
                thread,
                index,
                input,
                stdin,
                ranges,
                records,
                &matcher,
                &counts,
                on_timeline,
                max_fanout,
                settings,
                &progress,
            )
        },
        // Each thread frees the rest of its state itself: that took milliseconds after the
        // scan.
        |thread| {
            *thread = PassThread {
                inputs: std::mem::take(&mut thread.inputs),
                ..PassThread::default()
            };
        },
    );
    progress.finish();
    let mut inputs: Vec<InputFinds> = threads.into_iter().flat_map(|t| t.inputs).collect();
    inputs.sort_unstable_by_key(|input| input.file);
    Pass {
        inputs,
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
    /// While the lines searched are a range of the file and no time has been seen in it: the
    /// range's start, before which the time stands in `last_us` is still to be read. Most
    /// matching lines have their own time, so this is read only for those that do not.
    before: Option<u64>,
    /// The last timestamped line of the chunk being searched: its offset in the chunk and its
    /// time. The chunk's bytes are gone when the next one is searched, so a long run of
    /// untimed lines (a stack trace longer than the buffer) still reads back to it.
    chunk_last: Option<(usize, i64)>,
    /// The file's first timestamp, on any line.
    first_us: Option<i64>,
    /// The length of the range whose chunks are searched, when they are a range's: a chunk
    /// that holds all of it is its only one, and no later chunk asks for its last time.
    range_len: Option<u64>,
}

impl FileTimes {
    /// Notes the times of a chunk before its matching lines are read: the end of the previous
    /// chunk becomes checked, its last time the last seen, and this chunk's first and last
    /// timestamped lines are found (reading forward for the file's first, back for the last).
    fn enter_chunk(&mut self, chunk: &search::Chunk, records: &mut Records) {
        if let Some((_, ms)) = self.chunk_last.take() {
            self.last_us = Some(ms);
            self.before = None;
        }
        self.checked = chunk.first_line_no.saturating_sub(1);
        let bytes = chunk.bytes;
        let mut first_at = 0;
        if self.first_us.is_none() {
            let mut start = 0;
            while start < bytes.len() {
                let end = memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |p| start + p);
                if let Some(t) = records.time(search::trim_cr(&bytes[start..end])) {
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
        // A range read in one chunk, as nearly every candidate block is: the walk back
        // for its last time (a time parsed per block) would serve no chunk.
        if self.range_len == Some(bytes.len() as u64) {
            return;
        }
        let mut end = bytes.len();
        if bytes.last() == Some(&b'\n') {
            end -= 1;
        }
        loop {
            let start = memrchr(b'\n', &bytes[..end]).map_or(0, |p| p + 1);
            if let Some(t) = records.time(search::trim_cr(&bytes[start..end])) {
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
            self.before = None;
        }
    }
}

/// What of an input a pass reads.
enum Parts<'a> {
    Whole(Box<dyn io::Read + Send>),
    Ranges(&'a DatedRanges),
}

/// The ranges of a file that an index names, and the file's first time, which dates its
/// lines as a whole read would.
struct DatedRanges {
    file: std::fs::File,
    first_us: Option<i64>,
    /// The index's ranges, each read just before it is searched.
    ranges: Vec<Range>,
}

impl DatedRanges {
    /// `None` when the walk for the file's first time gives up (a long run of undated lines)
    /// or its read fails: the file is then read whole.
    fn new(file: std::fs::File, ranges: Vec<Range>, records: &mut Records) -> Option<DatedRanges> {
        let first_us = match find_from_start(&file, |line| records.time(search::trim_cr(line))) {
            Ok(Walk::Found(t)) => Some(t),
            Ok(Walk::Nothing) => None,
            Ok(Walk::TooFar) | Err(_) => return None,
        };
        Some(DatedRanges {
            file,
            first_us,
            ranges,
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
    records: Records,
    matcher: &Matcher,
    counts: &[AtomicU64],
    on_timeline: &FastSet<(usize, u64)>,
    max_fanout: u64,
    settings: &ScanSettings,
    progress: &Progress,
) -> Option<Notice> {
    let parts = match &ranges {
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
    let ranged_file = ranges.as_ref().map(|dated| &dated.file);
    // A read for the time before a range that failed: the file's error.
    let mut walk_failed = None;
    let records = RefCell::new(records);
    let times = RefCell::new(FileTimes::default());
    let PassThread {
        scratch,
        inputs,
        tokens,
        spans,
        fields,
        names,
        held,
    } = thread;
    let mut finds = InputFinds {
        file,
        ..InputFinds::default()
    };
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
        let first_query = finds.queries.len();
        if m.hits.len() <= FEW_HITS {
            for hit in m.hits {
                if !finds.queries[first_query..].contains(&hit.query) {
                    finds.queries.push(hit.query);
                }
            }
        } else {
            let mut seen = FastSet::default();
            finds.queries.extend(
                m.hits
                    .iter()
                    .map(|hit| hit.query)
                    .filter(|&q| seen.insert(q)),
            );
        }
        let mut wanted = false;
        for &q in &finds.queries[first_query..] {
            wanted |= counts[q].fetch_add(1, Ordering::Relaxed) < max_fanout;
        }
        if !wanted || on_timeline.contains(&(file, m.line_no)) {
            finds.queries.truncate(first_query);
            return true;
        }
        tokens.clear();
        scan::for_each_token(m.line, |t| tokens.push(t));
        // The X-Ray IDs the token walk does not see: a span's trace is a related ID.
        id::trace::for_each_xray(m.line, |start, end, id, _| {
            tokens.push(scan::Hit {
                start,
                end,
                shape: Shape::Xray,
                id,
                query: 0,
            })
        });
        // A trace's spans are its related IDs, where a span field or a header names them.
        id::trace_value::for_each_span(m.line, |start, end, value, decimal| {
            tokens.push(scan::Hit {
                start,
                end,
                shape: if decimal {
                    Shape::Decimal
                } else {
                    Shape::Hex16
                },
                id: Id(value.into()),
                query: 0,
            })
        });
        // The pass's hits in the spellings the token walk does not find (X-Ray, a trace's low
        // 64 bits in a trace field, a decimal): their field is read and they are marked like
        // the other spellings.
        tokens.extend(
            m.hits
                .iter()
                .copied()
                .filter(|h| is_trace_spelling(h.shape)),
        );
        // A query's hit stands for the query where a token stands too: a 64-bit trace's hit on
        // the 128-bit trace it is the low half of is the query's, not the 128-bit value's.
        for hit in m.hits {
            if let Some(t) = tokens.iter_mut().find(|t| t.start == hit.start) {
                t.id = hit.id;
            }
        }
        // The record reader takes the spans in line order, one token per place: a span field
        // may stand before a UUID, and a span query's hit is that span field's token.
        if !tokens.is_sorted_by_key(|t| t.start) {
            tokens.sort_by_key(|t| t.start);
        }
        tokens.dedup_by(|next, kept| next.start < kept.end);
        spans.clear();
        spans.extend(tokens.iter().map(|t| (t.start, t.end)));
        let records = &mut records.borrow_mut();
        let times = &mut times.borrow_mut();
        let own_us = records.read(m.line, spans, fields, names);
        let prev_us = if own_us.is_some() {
            None
        } else {
            match previous_time(m.before, m.line_no, times, records, ranged_file) {
                Ok(t) => t,
                Err(e) => {
                    walk_failed = Some(e);
                    return false;
                }
            }
        };
        times.matched(m.line_no, m.before.len(), own_us.or(prev_us));
        let first_token = finds.tokens.len();
        finds
            .tokens
            .extend(tokens.iter().zip(fields.drain(..)).map(|(t, field)| Token {
                id: t.id,
                shape: t.shape,
                start: t.start,
                end: t.end,
                field,
                known: UNLISTED,
            }));
        finds.lines.push(Found {
            file,
            line_no: m.line_no,
            text: m.line.into(),
            own_us,
            prev_us,
            queries: first_query..finds.queries.len(),
            tokens: first_token..finds.tokens.len(),
            via: 0,
        });
        true
    };
    let mut outcome = match parts {
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
            let mut total = search::Outcome::default();
            for i in 0..dated.ranges.len() {
                // The range's lines exactly: where the first starts, and its number.
                let (range, bytes) = match open_range(&dated.file, &dated.ranges, i, held) {
                    Ok(Some(opened)) => opened,
                    // No line starts in the range.
                    Ok(None) => continue,
                    Err(e) => {
                        total.error = Some(e);
                        break;
                    }
                };
                *times.borrow_mut() = FileTimes {
                    checked: range.first_line - 1,
                    last_us: None,
                    // A file without a time has none before any range either.
                    before: dated.first_us.map(|_| range.start),
                    chunk_last: None,
                    first_us: dated.first_us,
                    range_len: range.end.map(|end| end - range.start),
                };
                let outcome = match bytes {
                    RangeBytes::Held(span) => search::search_bytes(
                        matcher,
                        options,
                        &held[span],
                        scratch,
                        range.first_line,
                        Some(&mut on_chunk),
                        &mut on_line,
                    ),
                    RangeBytes::Streamed(mut reader) => search::search_part(
                        matcher,
                        options,
                        &mut reader,
                        scratch,
                        range.first_line,
                        Some(&mut on_chunk),
                        &mut on_line,
                    ),
                };
                total.matched_lines += outcome.matched_lines;
                if outcome.error.is_some() {
                    total.error = outcome.error;
                    break;
                }
            }
            total
        }
    };
    if let Some(e) = walk_failed {
        outcome.error = Some(e);
    }
    finds.first_us = times.borrow().first_us;
    if !finds.lines.is_empty() {
        inputs.push(finds);
    }
    Notice::after_scan(outcome, "left out")
}

pub(super) use record::PairBuffers;

/// The service `line` names: the value of a `service`, `service.name`, `serviceName` or
/// `dd.service` key (at any depth), or an OpenTelemetry attribute
/// `{"key":"service.name","value":{"stringValue":...}}`.
pub(super) fn service_of(line: &[u8], buffers: &mut PairBuffers) -> Option<String> {
    let mut service = None;
    let mut attribute = false;
    record::for_each_pair(line, buffers, |key, value| {
        let record::Value::Str(text) = value else {
            return;
        };
        if service.is_some() || text.is_empty() {
            return;
        }
        let folded: Vec<u8> = key
            .iter()
            .filter(|b| b.is_ascii_alphanumeric())
            .map(u8::to_ascii_lowercase)
            .collect();
        let named =
            folded.ends_with(b"servicename") || folded == b"service" || key.ends_with(b".service");
        if named || (attribute && key.ends_with(b"stringValue")) {
            service = Some(String::from_utf8_lossy(text).into_owned());
        }
        attribute = key.ends_with(b".key") && text == b"service.name";
    });
    service
}

/// A spelling of a trace or span ID that only a trace query finds.
fn is_trace_spelling(shape: Shape) -> bool {
    matches!(shape, Shape::Xray | Shape::Hex16 | Shape::Decimal)
}

/// The time of the nearest timestamped line before line `line_no`, reading back through
/// `before` (the buffered lines before it) no further than the lines already checked; past
/// those, the last time seen in the file (on a matching line, or the last of an earlier
/// buffer), read from `file` before the range searched when it is still to be read.
fn previous_time(
    before: &[u8],
    line_no: u64,
    times: &mut FileTimes,
    records: &mut Records,
    file: Option<&std::fs::File>,
) -> io::Result<Option<i64>> {
    let mut end = before.len();
    let mut n = line_no;
    while n > times.checked + 1 && end > 0 {
        let body_end = end - 1;
        let start = memrchr(b'\n', &before[..body_end]).map_or(0, |p| p + 1);
        if let Some(t) = records.time(search::trim_cr(&before[start..body_end])) {
            return Ok(Some(t));
        }
        n -= 1;
        end = start;
    }
    if let (Some(start), Some(file)) = (times.before, file) {
        times.last_us = last_before(file, start, |line| records.time(search::trim_cr(line)))?;
        times.before = None;
    }
    Ok(times.last_us)
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

    /// Reads `line`: returns its own time and sets `fields` to the field of each span, each
    /// name taken from `names` (and added to it when new).
    fn read(
        &mut self,
        line: &[u8],
        spans: &[(usize, usize)],
        fields: &mut Vec<Option<Arc<str>>>,
        names: &mut FastMap<Box<[u8]>, Arc<str>>,
    ) -> Option<i64> {
        record::analyse(line, spans, true, &self.context, &mut self.analysis);
        fields.clear();
        fields.extend((0..spans.len()).map(|i| {
            let name = self.analysis.field(i)?;
            if let Some(shared) = names.get(name) {
                return Some(Arc::clone(shared));
            }
            let shared: Arc<str> = String::from_utf8_lossy(name).into();
            names.insert(name.into(), Arc::clone(&shared));
            Some(shared)
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

    #[test]
    fn an_untimed_line_reads_back_to_the_nearest_timestamp_but_not_past_checked_lines() {
        let mut records = Records::new(None, None);
        let before =
            b"2026-11-30T08:00:01Z start\n2026-11-30T08:00:04Z failed\n\tat a.b(C.java:1)\r\n";
        let mut fresh = FileTimes {
            checked: 0,
            last_us: None,
            ..FileTimes::default()
        };
        let four = jiff::Timestamp::from_second(1_796_025_604).unwrap();
        assert_eq!(
            previous_time(before, 4, &mut fresh, &mut records, None).unwrap(),
            Some(four.as_microsecond())
        );
        // Lines 1-3 already read: the remembered time stands.
        let mut checked = FileTimes {
            checked: 3,
            last_us: Some(7),
            ..FileTimes::default()
        };
        assert_eq!(
            previous_time(before, 4, &mut checked, &mut records, None).unwrap(),
            Some(7)
        );
        assert_eq!(
            previous_time(b"no time\n", 2, &mut fresh, &mut records, None).unwrap(),
            None
        );
    }
}
