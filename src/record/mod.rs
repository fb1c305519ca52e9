//! One log line that mentions an ID, read as a record: its format, the field that holds each
//! ID occurrence, the line's own timestamp, and (for audits) every key and value on it.
//!
//! The IDs themselves are found by [`crate::scan`]; this module gets the line (no line ending)
//! and the byte spans of the occurrences, in order, and never parses an ID. It runs for every
//! matching line, so it does not allocate per line: [`Analysis`] and [`PairBuffers`] are
//! reused, JSON is read by a small walker that tracks the key path (no DOM), and digits are
//! parsed by hand. Everything here is a heuristic; nothing here fails: a line that fits no
//! rule gets no field or no time.
//!
//! This module owns [`Analysis`], the entry points and the choice of format, tried in this
//! order:
//! - **JSON** (`json`): the line ends with `}` and holds one object that runs to the end of
//!   the line, from its first byte or after a text prefix. Occurrences in the prefix get the
//!   plain rules.
//! - **logfmt** (`logfmt`): the whole line is blank-separated `key=value` pairs.
//! - **Plain** text (`plain`), anything else.
//!
//! A JSON key path or logfmt key longer than 256 bytes gives no field, and [`for_each_pair`]
//! leaves its pair out. The line's time is read by `line_time`, the keys and values for
//! audits by `pairs`.

mod json;
pub mod keys;
mod line_time;
mod logfmt;
mod pairs;
mod plain;
#[cfg(test)]
mod tests;

pub use line_time::{LineTime, TimeContext};
pub use pairs::{PairBuffers, for_each_pair, for_each_pair_with_bare_keys};

use pairs::{KeyedValues, text_pairs};

/// A value next to a key, as the JSON and logfmt walkers read it and [`for_each_pair`]
/// reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// A string with its escapes decoded (JSON, quoted logfmt), or a bare word.
    Str(&'a [u8]),
    /// An integer as written.
    Int(&'a [u8]),
    /// Any other number as written.
    Number(&'a [u8]),
    /// `null` (also `nil` and `<nil>` outside JSON).
    Null,
    Bool(bool),
    /// A JSON object or array; its members follow under their own paths.
    Other,
}

use crate::scan::Hit;
use json::{JsonScratch, analyse_json, json_start};
use line_time::plain_time;
use logfmt::analyse_logfmt;
use plain::assign_plain;

/// How a line is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LineFormat {
    Json,
    Logfmt,
    #[default]
    Plain,
}

/// What [`analyse`] found on one line; reuse it across lines to keep its buffers.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    format: LineFormat,
    time: Option<LineTime>,
    /// The field names, end to end; each span's entry of `fields` is its range here.
    names: Vec<u8>,
    fields: Vec<Option<(usize, usize)>>,
    json: JsonScratch,
    /// Scratch for [`analyse_hits`].
    hit_spans: Vec<(usize, usize)>,
    /// What [`analyse_hits_with_trace_values`] collected.
    keyed: KeyedValues,
    /// Scratch for the escapes of a text or logfmt value.
    text: Vec<u8>,
}

impl Analysis {
    pub fn format(&self) -> LineFormat {
        self.format
    }

    /// The field of the `i`th span given to [`analyse`].
    pub fn field(&self, i: usize) -> Option<&[u8]> {
        let (a, b) = (*self.fields.get(i)?)?;
        Some(&self.names[a..b])
    }

    /// The line's own time.
    pub fn time(&self) -> Option<LineTime> {
        self.time
    }

    /// The line's own time, in Unix milliseconds.
    pub fn time_ms(&self) -> Option<i64> {
        self.time.map(LineTime::millis)
    }

    /// The values [`analyse_hits_with_trace_values`] collected, with their keys, in line order.
    pub fn keyed_values(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.keyed.iter()
    }

    /// Whether [`Analysis::keyed_values`] has any: few lines do.
    pub fn has_keyed_values(&self) -> bool {
        !self.keyed.is_empty()
    }

    fn reset(&mut self, spans: usize) {
        self.keyed.clear();
        self.names.clear();
        self.fields.clear();
        self.fields.resize(spans, None);
        self.time = None;
    }

    fn set_field(&mut self, k: usize, name: &[u8]) {
        let start = self.names.len();
        self.names.extend_from_slice(name);
        self.fields[k] = Some((start, self.names.len()));
    }
}

/// [`analyse`] for the hits of a matching line, with its time.
pub fn analyse_hits(line: &[u8], hits: &[Hit], ctx: &TimeContext, out: &mut Analysis) {
    analyse_hits_as(line, hits, ctx, out, false);
}

/// [`analyse_hits`], also collecting the string and number values of the keys that may name
/// trace and span values ([`crate::id::trace::may_key_trace_value`]), as
/// [`for_each_pair_with_bare_keys`] gives them, in the same walk: [`Analysis::keyed_values`].
/// In plain text the pairs are read only where [`keys::has_trace_key`] finds such a key.
pub fn analyse_hits_with_trace_values(
    line: &[u8],
    hits: &[Hit],
    ctx: &TimeContext,
    out: &mut Analysis,
) {
    analyse_hits_as(line, hits, ctx, out, true);
}

/// Inline: a call level less on every line with tokens (the call and its register saves
/// were 26 instructions a line).
#[inline]
fn analyse_hits_as(
    line: &[u8],
    hits: &[Hit],
    ctx: &TimeContext,
    out: &mut Analysis,
    trace_values: bool,
) {
    let mut spans = std::mem::take(&mut out.hit_spans);
    spans.clear();
    spans.extend(hits.iter().map(|h| (h.start, h.end)));
    analyse_as(line, &spans, true, ctx, out, trace_values);
    out.hit_spans = spans;
}

/// Reads `line` (no line ending) as a record. `spans` are the `[start, end)` byte ranges of
/// the ID occurrences in it, in order, not overlapping and inside the line; `out` gets one
/// field per span, and the line's time when `want_time`.
pub fn analyse(
    line: &[u8],
    spans: &[(usize, usize)],
    want_time: bool,
    ctx: &TimeContext,
    out: &mut Analysis,
) {
    analyse_as(line, spans, want_time, ctx, out, false);
}

/// [`analyse`], collecting the values of trace and span keys when `trace_values`.
fn analyse_as(
    line: &[u8],
    spans: &[(usize, usize)],
    want_time: bool,
    ctx: &TimeContext,
    out: &mut Analysis,
    trace_values: bool,
) {
    debug_assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0));
    out.reset(spans.len());
    if let Some(open) = json_start(line) {
        if analyse_json(line, open, spans, want_time, ctx, out, trace_values) {
            out.format = LineFormat::Json;
            let mut inherit = false;
            for k in 0..spans.len() {
                if spans[k].1 > open {
                    break;
                }
                inherit = assign_plain(line, spans, k, inherit, out);
            }
            if want_time && out.time.is_none() {
                out.time = plain_time(&line[..open], ctx);
            }
            return;
        }
        out.reset(spans.len());
    }
    if analyse_logfmt(line, spans, want_time, ctx, out, trace_values) {
        out.format = LineFormat::Logfmt;
        return;
    }
    out.reset(spans.len());
    out.format = LineFormat::Plain;
    let mut inherit = false;
    for k in 0..spans.len() {
        inherit = assign_plain(line, spans, k, inherit, out);
    }
    if want_time {
        out.time = plain_time(line, ctx);
    }
    // Trace and span keys are read in `key: value` text too (`span_id: ...`); the vector
    // pass for their keys costs less than reading a line's pairs.
    if trace_values && keys::has_trace_key(line) {
        let Analysis { keyed, text, .. } = out;
        text_pairs(line, true, text, &mut |key, value| {
            keyed.push_text(key, value)
        });
    }
}

/// Keys whose value is the line's time, in JSON and logfmt, in any case (`Timestamp`,
/// `TIME`, `eventTime`): Serilog's `@t`, the cloud audit logs' `eventTime`, journald's
/// `__REALTIME_TIMESTAMP`, nginx's `time_local` and `time_iso8601`, log4j2's `timeMillis`,
/// Python's `asctime`, an OpenTelemetry log record's `timeUnixNano`.
fn is_time_key(key: &[u8]) -> bool {
    const LONGEST: usize = b"__realtime_timestamp".len();
    // Most keys are no time key: their length or first byte says so before any copy.
    if key.is_empty()
        || key.len() > LONGEST
        || !matches!(
            key[0].to_ascii_lowercase(),
            b't' | b'@' | b'd' | b'e' | b'_' | b'a'
        )
    {
        return false;
    }
    // The keys most logs write, as they write them: a few compares, no copy.
    if matches!(key, b"ts" | b"time" | b"timestamp" | b"@timestamp") {
        return true;
    }
    let mut lower = [0u8; LONGEST];
    // Byte by byte, where a copy of the key's length was a call to `memcpy`.
    for (folded, &b) in lower.iter_mut().zip(key) {
        *folded = b.to_ascii_lowercase();
    }
    let lower = &lower[..key.len()];
    matches!(
        lower,
        b"ts"
            | b"time"
            | b"timestamp"
            | b"@timestamp"
            | b"t"
            | b"date"
            | b"@t"
            | b"eventtime"
            | b"datetime"
            | b"asctime"
            | b"time_local"
            | b"time_iso8601"
            | b"timemillis"
            | b"timeunixnano"
            | b"__realtime_timestamp"
    )
}

/// Moves `next` past the spans that start before `start`, then gives the index of each span
/// inside `[start, end)` to `f`.
fn spans_within(
    spans: &[(usize, usize)],
    next: &mut usize,
    start: usize,
    end: usize,
    mut f: impl FnMut(usize),
) {
    while *next < spans.len() && spans[*next].0 < start {
        *next += 1;
    }
    while *next < spans.len() && spans[*next].1 <= end {
        f(*next);
        *next += 1;
    }
}

/// Longest JSON key path or logfmt key that names a field. Longer ones name none: they are
/// data rather than names, and copying one per ID made a long key over many IDs, or deep
/// nesting, cost time and memory quadratic in the line.
const MAX_FIELD: usize = 256;

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn skip_blank(line: &[u8], mut i: usize) -> usize {
    while i < line.len() && is_blank(line[i]) {
        i += 1;
    }
    i
}
