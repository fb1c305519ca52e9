//! One log line that mentions an ID, read as a record: its format, the field that holds each
//! ID occurrence, the line's own timestamp, and (for audits) every key and value on it.
//!
//! The IDs themselves are found by [`crate::scan`]; this module gets the line (no line ending)
//! and the byte spans of the occurrences, in order, and never parses an ID. It runs for every
//! matching line, so it does not allocate per line: [`Analysis`] and [`PairBuffers`] are
//! reused, JSON is read by a small walker that tracks the key path (no DOM), and digits are
//! parsed by hand. Everything below is a heuristic; nothing here fails: a line that fits no
//! rule gets no field or no time.
//!
//! # Formats
//! - **JSON**: the line ends with `}` and holds one object that runs to the end of the line,
//!   either from its first byte or after a text prefix (`2026-11-29T10:00:00Z stdout F {...}`
//!   from container runtimes), where the object's `{` follows a blank and is followed by `"`.
//!   The field of an occurrence is the key path of the value holding it: `order_id`,
//!   `ctx.batch_id` for nested objects, `sources[]` for array members (`a.b[]`, `items[].sku`),
//!   whether the ID is the whole string or sits in text (`"msg":"charged order 01kb..."` gives
//!   `msg`). Keys are unescaped (`\"`, `\u0041`). An ID in a key gets the path of the object
//!   holding that key (none at the top level). The walker is lenient about raw control bytes
//!   and invalid UTF-8 inside strings; any other departure from JSON makes the line text, read
//!   by the rules below. Occurrences in the prefix get the plain rules.
//! - **logfmt**: the whole line is blank-separated `key=value` or `key="quoted value"` pairs.
//!   The field is the key, for every ID inside the value (`sources="[X Y Z]"` gives `sources`
//!   three times).
//! - A JSON key path or logfmt key longer than 256 bytes gives no field, and
//!   [`for_each_pair`] leaves its pair out.
//! - **Plain** text, anything else. Per occurrence, the first rule that applies:
//!   1. `key=ID`, `key: ID`, `"key":"ID"`, `[key: ID]`, `\"key\": \"ID\"`: the key before the
//!      `=` or `:` (quotes, brackets and blanks between are skipped). A `urn:uuid:` before the
//!      ID counts as part of it.
//!   2. `key(ID)`, `key[ID]`: the word before the bracket, except after `=`: the kubelet's
//!      `pod=name_ns(ID)` gives `pod`, since the word is a name, not a field; and a generated
//!      name (one with a hash-like part: `in pod web-7b6bd9b949-x82q_ns(ID)`) gives the word
//!      before it (`pod`), or no field.
//!   3. `req-ID`, `user_ID`, `Networking.ID`: the letters and digits glued on with `-`, `_` or
//!      `.`, unless they look like an ID or a number themselves (below).
//!   4. `/servers/ID`, `/pods/ns_pod_ID/`: the path segment before the one holding the ID.
//!   5. After another occurrence and only separators (`[A B C]`, `A, B`): the field of that
//!      one, if it came from a key (rules 1, 2 or this one), since such lists share their key.
//!      A field from a name (`[req-A B C]` in OpenStack) is not passed on.
//!   6. `order ID`, `for order ID`, `payment {ID}`: the word before, quotes and brackets
//!      skipped.
//!
//!   A word is a run of ASCII letters, digits, `_`, `.` and `-` (at most 128 bytes), with `.`,
//!   `-` and `_` trimmed off its ends. It must hold a letter and must not look like an ID or a
//!   number: a word of 5 or more bytes made only of hex digits and separators with at least
//!   one digit (`242cb`, `7fd6786f4b`, `0.144`) gives no field, nor does a word that is a
//!   previous occurrence itself.
//!
//! # Timestamps
//! Unix milliseconds, read only when asked. A time without an offset is in the context's zone;
//! in a zone with a daylight saving gap or fold, the later offset of a gap and the earlier of
//! a fold apply (jiff's "compatible" rule). An impossible date or time (Feb 30, 24:00) gives
//! none.
//! - JSON: the first top-level key among `ts`, `time`, `timestamp`, `@timestamp`, `t`, `date`
//!   whose value is a time. For JSON after a prefix this wins over a time in the prefix.
//! - logfmt: the first of the same keys whose value is a time.
//! - Values of those keys: RFC 3339 / ISO 8601 (below, the whole value), or an epoch number
//!   (also as a string of digits) in seconds, milliseconds, microseconds or nanoseconds told
//!   apart by the count of integer digits (up to 11, 12 to 14, 15 to 17, 18 or 19), with an
//!   optional fraction (`1732874400.123`). Negative numbers and exponents are not times.
//! - Plain text, the first that matches, after an optional syslog `<PRI>` (and RFC 5424's
//!   version `1`):
//!   - klog at the start: `I1129 10:00:00.123456` (letter I, W, E or F);
//!   - syslog at the start: `Nov 29 10:00:00`, `Jul  1 09:00:55`;
//!   - ISO at the start of one of the first four blank-separated tokens, optionally after `[`
//!     (`nova-api.log 2017-05-16 00:00:00.008 ...`): `2026-11-29T10:00:00Z`,
//!     `2026-11-29 10:00:00,123`, any fraction length after `.` or `,`, an offset `Z`, `+01:00`,
//!     `+0100`, `+01`, or after a blank `+0000`, `UTC` or `GMT`;
//!   - anywhere, the first `[...]` group in access-log form: `[29/Nov/2026:10:00:00 +0000]`.
//!
//!   A leap second (`23:59:60`) reads as the second before it. klog and syslog give no year:
//!   it is the year of the context's reference time (the file's modification time), or the
//!   year before when the line's month is later than the reference month, since a file holds
//!   no lines from after its last write (a December line in a file written in January is from
//!   the previous year).

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::TimeZone;
use memchr::{memchr, memchr2};

use crate::scan::Hit;

/// What a time needs that the line does not say.
#[derive(Clone, Debug)]
pub struct TimeContext {
    zone: TimeZone,
    /// The zone's offset in seconds when it never changes, so that most lines need no zone
    /// lookup.
    fixed_offset: Option<i32>,
    year: i16,
    month: i8,
}

impl TimeContext {
    /// `zone` is for times written without an offset (UTC unless the user gives `--tz`);
    /// `reference` is the file's modification time (or now, for standard input), which dates
    /// the lines of year-less formats.
    pub fn new(zone: TimeZone, reference: Timestamp) -> TimeContext {
        let fixed_offset = zone.to_fixed_offset().ok().map(|o| o.seconds());
        let date = zone.to_datetime(reference).date();
        TimeContext {
            zone,
            fixed_offset,
            year: date.year(),
            month: date.month(),
        }
    }

    /// The context of a file: zone-less times in `zone` (UTC when `None`), year-less ones
    /// dated by its modification time (now, for standard input, which has none).
    pub fn for_file(
        zone: Option<&TimeZone>,
        modified: Option<std::time::SystemTime>,
    ) -> TimeContext {
        let reference = modified
            .and_then(|t| Timestamp::try_from(t).ok())
            .unwrap_or_else(Timestamp::now);
        TimeContext::new(zone.cloned().unwrap_or(TimeZone::UTC), reference)
    }

    fn year_for_month(&self, month: u8) -> i32 {
        let year = i32::from(self.year);
        if i32::from(month) > i32::from(self.month) {
            year - 1
        } else {
            year
        }
    }
}

/// How a line is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    Json,
    Logfmt,
    #[default]
    Plain,
}

/// What [`analyse`] found on one line; reuse it across lines to keep its buffers.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    format: Format,
    time_ms: Option<i64>,
    /// The field names, end to end; each span's entry of `fields` is its range here.
    names: Vec<u8>,
    fields: Vec<Option<(usize, usize)>>,
    json: JsonScratch,
    /// Scratch for [`analyse_hits`].
    hit_spans: Vec<(usize, usize)>,
}

impl Analysis {
    pub fn format(&self) -> Format {
        self.format
    }

    /// The field of the `i`th span given to [`analyse`].
    pub fn field(&self, i: usize) -> Option<&[u8]> {
        let (a, b) = (*self.fields.get(i)?)?;
        Some(&self.names[a..b])
    }

    /// The line's own time, in Unix milliseconds.
    pub fn time_ms(&self) -> Option<i64> {
        self.time_ms
    }

    fn reset(&mut self, spans: usize) {
        self.names.clear();
        self.fields.clear();
        self.fields.resize(spans, None);
        self.time_ms = None;
    }

    fn set_field(&mut self, k: usize, name: &[u8]) {
        let start = self.names.len();
        self.names.extend_from_slice(name);
        self.fields[k] = Some((start, self.names.len()));
    }
}

/// [`analyse`] for the hits of a matching line, with its time.
pub fn analyse_hits(line: &[u8], hits: &[Hit], ctx: &TimeContext, out: &mut Analysis) {
    let mut spans = std::mem::take(&mut out.hit_spans);
    spans.clear();
    spans.extend(hits.iter().map(|h| (h.start, h.end)));
    analyse(line, &spans, true, ctx, out);
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
    debug_assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0));
    out.reset(spans.len());
    if let Some(open) = json_start(line) {
        if analyse_json(line, open, spans, want_time, ctx, out) {
            out.format = Format::Json;
            let mut inherit = false;
            for k in 0..spans.len() {
                if spans[k].1 > open {
                    break;
                }
                inherit = assign_plain(line, spans, k, inherit, out);
            }
            if want_time && out.time_ms.is_none() {
                out.time_ms = plain_time(&line[..open], ctx);
            }
            return;
        }
        out.reset(spans.len());
    }
    if analyse_logfmt(line, spans, want_time, ctx, out) {
        out.format = Format::Logfmt;
        return;
    }
    out.reset(spans.len());
    out.format = Format::Plain;
    let mut inherit = false;
    for k in 0..spans.len() {
        inherit = assign_plain(line, spans, k, inherit, out);
    }
    if want_time {
        out.time_ms = plain_time(line, ctx);
    }
}

/// Keys whose value is the line's time, in JSON and logfmt.
fn is_time_key(key: &[u8]) -> bool {
    matches!(
        key,
        b"ts" | b"time" | b"timestamp" | b"@timestamp" | b"t" | b"date"
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

// ---------------------------------------------------------------------------------------
// JSON

#[derive(Clone, Debug, Default)]
struct JsonScratch {
    stack: Vec<Frame>,
}

/// An open object or array. An object remembers the key of the member being read, so that a
/// key path is spelled out only for the few values that hold an ID.
#[derive(Clone, Copy, Debug)]
struct Frame {
    object: bool,
    key: (usize, usize),
    escaped: bool,
}

/// The key path of a value, or of the object holding a key, spelled out on demand.
#[derive(Clone, Copy)]
struct Path<'a> {
    line: &'a [u8],
    frames: &'a [Frame],
    /// Whether the innermost object's current key is part of the path (for a value) or not
    /// (for the key itself).
    last_key: bool,
}

impl Path<'_> {
    /// Appends the path: keys joined with `.`, `[]` for an array's members. False, with
    /// nothing appended, for a path longer than [`MAX_FIELD`]; the walk stops there, so a
    /// path costs at most that much whatever the nesting or the key's length.
    fn write(&self, out: &mut Vec<u8>) -> bool {
        let start = out.len();
        for (n, frame) in self.frames.iter().enumerate() {
            if !frame.object {
                out.extend_from_slice(b"[]");
            } else if n + 1 == self.frames.len() && !self.last_key {
                break;
            } else {
                if out.len() > start {
                    out.push(b'.');
                }
                let raw = &self.line[frame.key.0..frame.key.1];
                // An escape shrinks at most six bytes (`\u0041`) to one.
                if raw.len() > MAX_FIELD * 6 {
                    out.truncate(start);
                    return false;
                }
                if frame.escaped {
                    unescape(raw, out);
                } else {
                    out.extend_from_slice(raw);
                }
            }
            if out.len() - start > MAX_FIELD {
                out.truncate(start);
                return false;
            }
        }
        true
    }

    /// The key of a member of the top-level object. An escaped key is left out: no time key
    /// needs escapes.
    fn top_key(&self) -> Option<&[u8]> {
        match self.frames {
            [frame] if self.last_key && !frame.escaped => {
                Some(&self.line[frame.key.0..frame.key.1])
            }
            _ => None,
        }
    }
}

/// What the JSON walker reports to, in line order. The walker calls these for every key and
/// value, so implementations keep them small and inlined, with a cheap test before any work.
trait Visit {
    /// A key, `start..end` without its quotes, in the object at `parent`.
    fn key(&mut self, parent: Path<'_>, start: usize, end: usize);

    /// A value at `path`: a string's bytes (raw, `escaped` if they hold a backslash) without
    /// quotes, or the whole token; for an object or array ([`Value::Other`]) its opening byte.
    fn value(&mut self, path: Path<'_>, value: Value<'_>, escaped: bool, start: usize, end: usize);
}

/// Only checks that a line is JSON.
struct Validate;

impl Visit for Validate {
    #[inline(always)]
    fn key(&mut self, _: Path<'_>, _: usize, _: usize) {}

    #[inline(always)]
    fn value(&mut self, _: Path<'_>, _: Value<'_>, _: bool, _: usize, _: usize) {}
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

#[inline(always)]
fn skip_ws(line: &[u8], mut i: usize) -> usize {
    // Compact JSON has no blanks: one test for the common case.
    if line.get(i).is_some_and(|&b| b > b' ') {
        return i;
    }
    while i < line.len() && is_ws(line[i]) {
        i += 1;
    }
    i
}

/// Where the line's JSON object would start, if the line can be one.
fn json_start(line: &[u8]) -> Option<usize> {
    // The object has to run to the end of the line: one byte turns most text lines away.
    let last = line.iter().rposition(|&b| !is_ws(b))?;
    if line[last] != b'}' {
        return None;
    }
    let first = skip_ws(line, 0);
    if line[first] == b'{' {
        return Some(first);
    }
    let mut i = first;
    while let Some(k) = memchr(b'{', &line[i..]) {
        let k = i + k;
        if is_blank(line[k - 1]) && line.get(skip_ws(line, k + 1)) == Some(&b'"') {
            return Some(k);
        }
        i = k + 1;
    }
    None
}

/// Walks the object that opens at `open`, reporting keys and values; true if it is valid
/// JSON and only blanks follow it. What came before a failure has been reported already.
///
/// Each pass of the loop reads one slot of the innermost container (a member with its key,
/// or an element), then the `,` or the closing brackets after it. Compact JSON takes the
/// straight path through it.
fn walk_json(line: &[u8], open: usize, scratch: &mut JsonScratch, visit: &mut impl Visit) -> bool {
    let stack = &mut scratch.stack;
    stack.clear();
    stack.push(Frame {
        object: true,
        key: (0, 0),
        escaped: false,
    });
    let mut i = open + 1;
    // Just after `{` or `[`, where the container may close at once.
    let mut opened = true;
    loop {
        let Some(&Frame { object, .. }) = stack.last() else {
            return false;
        };
        i = skip_ws(line, i);
        let Some(&b) = line.get(i) else {
            return false;
        };
        let closed = opened && b == if object { b'}' } else { b']' };
        if !closed {
            let mut b = b;
            if object {
                if b != b'"' {
                    return false;
                }
                let Some((end, escaped)) = scan_string(line, i + 1) else {
                    return false;
                };
                let parent = Path {
                    line,
                    frames: stack,
                    last_key: false,
                };
                visit.key(parent, i + 1, end);
                if let Some(top) = stack.last_mut() {
                    top.key = (i + 1, end);
                    top.escaped = escaped;
                }
                i = skip_ws(line, end + 1);
                if line.get(i) != Some(&b':') {
                    return false;
                }
                i = skip_ws(line, i + 1);
                let Some(&next) = line.get(i) else {
                    return false;
                };
                b = next;
            }
            let (value, escaped, start, end) = match b {
                b'"' => {
                    let Some((end, escaped)) = scan_string(line, i + 1) else {
                        return false;
                    };
                    (Value::Str(&line[i + 1..end]), escaped, i + 1, end)
                }
                b'{' | b'[' => (Value::Other, false, i, i + 1),
                b't' if line[i..].starts_with(b"true") => (Value::Bool(true), false, i, i + 4),
                b'f' if line[i..].starts_with(b"false") => (Value::Bool(false), false, i, i + 5),
                b'n' if line[i..].starts_with(b"null") => (Value::Null, false, i, i + 4),
                b'-' | b'0'..=b'9' => {
                    let Some((end, int)) = scan_number(line, i) else {
                        return false;
                    };
                    let raw = &line[i..end];
                    let value = if int {
                        Value::Int(raw)
                    } else {
                        Value::Number(raw)
                    };
                    (value, false, i, end)
                }
                _ => return false,
            };
            let path = Path {
                line,
                frames: stack,
                last_key: true,
            };
            visit.value(path, value, escaped, start, end);
            if b == b'{' || b == b'[' {
                stack.push(Frame {
                    object: b == b'{',
                    key: (0, 0),
                    escaped: false,
                });
                i += 1;
                opened = true;
                continue;
            }
            // A string's end is its closing quote.
            i = if b == b'"' { end + 1 } else { end };
        } else {
            stack.pop();
            i += 1;
        }
        // After a value: a `,` for the next slot, or the ends of containers.
        loop {
            let Some(&Frame { object, .. }) = stack.last() else {
                return skip_ws(line, i) == line.len();
            };
            i = skip_ws(line, i);
            match line.get(i) {
                Some(b',') => {
                    i += 1;
                    opened = false;
                    break;
                }
                Some(&c) if c == if object { b'}' } else { b']' } => {
                    stack.pop();
                    i += 1;
                }
                _ => return false,
            }
        }
    }
}

/// The bytes a [`scan_until`] stops at: any of `bytes`, and with `controls` also any byte
/// up to and including the blank (control bytes and the space).
struct Stops {
    bytes: &'static [u8],
    controls: bool,
}

impl Stops {
    #[inline(always)]
    fn has(&self, b: u8) -> bool {
        (self.controls && b <= b' ') || self.bytes.contains(&b)
    }
}

/// The first index at or after `i` whose byte is one of `stops` (or the line's end): sixteen
/// bytes at a time on x86_64, else one by one. Inline rather than memchr, whose call and setup
/// cost more than the short JSON strings and logfmt keys and values take to scan.
#[inline(always)]
fn scan_until(line: &[u8], mut i: usize, stops: Stops) -> usize {
    #[cfg(target_arch = "x86_64")]
    while i + 16 <= line.len() {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86_64, and `i + 16 <= line.len()`, so the unaligned
        // 16-byte load stays inside `line`.
        let mask = unsafe {
            let v = _mm_loadu_si128(line.as_ptr().add(i).cast::<__m128i>());
            let space = _mm_set1_epi8(b' ' as i8);
            // Unsigned `b <= b' '`: the smaller of the two is `b` itself.
            let mut hits = if stops.controls {
                _mm_cmpeq_epi8(_mm_min_epu8(v, space), v)
            } else {
                _mm_setzero_si128()
            };
            for &b in stops.bytes {
                hits = _mm_or_si128(hits, _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8)));
            }
            _mm_movemask_epi8(hits)
        };
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 16;
    }
    while i < line.len() && !stops.has(line[i]) {
        i += 1;
    }
    i
}

/// The first `"` or `\` at or after `i`: sixteen bytes at a time take most JSON strings in
/// one step.
#[inline(always)]
fn find_quote_or_backslash(line: &[u8], i: usize) -> Option<usize> {
    let stops = Stops {
        bytes: b"\"\\",
        controls: false,
    };
    let k = scan_until(line, i, stops);
    (k < line.len()).then_some(k)
}

/// From just after an opening quote: the index of the closing quote, and whether the string
/// holds an escape. None if it is unterminated or has a bad escape.
#[inline(always)]
fn scan_string(line: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    loop {
        let k = find_quote_or_backslash(line, i)?;
        if line[k] == b'"' {
            return Some((k, escaped));
        }
        escaped = true;
        i = match *line.get(k + 1)? {
            b'u' => {
                let hex = line.get(k + 2..k + 6)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                k + 6
            }
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => k + 2,
            _ => return None,
        };
    }
}

/// A JSON number at `i`: its end, and whether it is an integer.
fn scan_number(line: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let digits = |line: &[u8], mut i: usize| {
        let from = i;
        while i < line.len() && line[i].is_ascii_digit() {
            i += 1;
        }
        (i > from).then_some(i)
    };
    if line.get(i) == Some(&b'-') {
        i += 1;
    }
    if line.get(i) == Some(&b'0') {
        i += 1;
    } else {
        i = digits(line, i)?;
    }
    let mut int = true;
    if line.get(i) == Some(&b'.') {
        int = false;
        i = digits(line, i + 1)?;
    }
    if matches!(line.get(i), Some(b'e' | b'E')) {
        int = false;
        i += 1;
        if matches!(line.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        i = digits(line, i)?;
    }
    Some((i, int))
}

/// Appends `raw` with JSON (and Go-quoted logfmt) escapes decoded. Lenient: an escape it does
/// not know stands for its character, a lone surrogate for U+FFFD.
fn unescape(raw: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while let Some(k) = memchr(b'\\', &raw[i..]) {
        let k = i + k;
        out.extend_from_slice(&raw[i..k]);
        let Some(&c) = raw.get(k + 1) else {
            out.push(b'\\');
            return;
        };
        i = k + 2;
        let byte = match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'u' => {
                let Some(unit) = hex4(raw, k + 2) else {
                    out.push(b'u');
                    continue;
                };
                i = k + 6;
                let mut code = u32::from(unit);
                if (0xd800..0xdc00).contains(&code)
                    && raw.get(i..i + 2) == Some(b"\\u")
                    && let Some(low) = hex4(raw, i + 2)
                    && (0xdc00..0xe000).contains(&low)
                {
                    code = 0x10000 + ((code - 0xd800) << 10) + (u32::from(low) - 0xdc00);
                    i += 6;
                }
                let ch = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
                out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                continue;
            }
            other => other,
        };
        out.push(byte);
    }
    out.extend_from_slice(&raw[i..]);
}

fn hex4(raw: &[u8], i: usize) -> Option<u16> {
    let hex = raw.get(i..i + 4)?;
    let mut v = 0u16;
    for &b in hex {
        v = v << 4 | u16::from((b as char).to_digit(16)? as u8);
    }
    Some(v)
}

fn analyse_json(
    line: &[u8],
    open: usize,
    spans: &[(usize, usize)],
    want_time: bool,
    ctx: &TimeContext,
    out: &mut Analysis,
) -> bool {
    let Analysis {
        time_ms,
        names,
        fields,
        json,
        ..
    } = out;
    let mut visit = JsonFields {
        spans,
        next: 0,
        next_start: usize::MAX,
        names,
        fields,
        time_ms,
        want_time,
        ctx,
    };
    visit.advance(spans.partition_point(|s| s.0 < open));
    walk_json(line, open, json, &mut visit)
}

/// Names the spans inside JSON keys and values, and finds the time.
struct JsonFields<'a> {
    spans: &'a [(usize, usize)],
    /// The first span not yet named or passed, and where it starts (`usize::MAX` past the
    /// last), so that most tokens cost one comparison.
    next: usize,
    next_start: usize,
    names: &'a mut Vec<u8>,
    fields: &'a mut [Option<(usize, usize)>],
    time_ms: &'a mut Option<i64>,
    /// Still looking for the time.
    want_time: bool,
    ctx: &'a TimeContext,
}

impl JsonFields<'_> {
    fn advance(&mut self, next: usize) {
        self.next = next;
        self.next_start = self.spans.get(next).map_or(usize::MAX, |s| s.0);
    }

    #[inline(never)]
    fn name(&mut self, path: Path<'_>, start: usize, end: usize) {
        let mut next = self.next;
        let JsonFields {
            spans,
            names,
            fields,
            ..
        } = self;
        spans_within(spans, &mut next, start, end, |k| {
            let at = names.len();
            if path.write(names) && names.len() > at {
                fields[k] = Some((at, names.len()));
            }
        });
        self.advance(next);
    }

    #[inline(never)]
    fn time(&mut self, path: Path<'_>, value: Value<'_>) {
        if path.top_key().is_some_and(is_time_key) {
            *self.time_ms = match value {
                Value::Str(raw) => time_value(raw, self.ctx),
                Value::Int(raw) | Value::Number(raw) => epoch_ms(raw),
                _ => None,
            };
            self.want_time = self.time_ms.is_none();
        }
    }
}

impl Visit for JsonFields<'_> {
    #[inline(always)]
    fn key(&mut self, parent: Path<'_>, start: usize, end: usize) {
        if self.next_start < end {
            self.name(parent, start, end);
        }
    }

    #[inline(always)]
    fn value(&mut self, path: Path<'_>, value: Value<'_>, _: bool, start: usize, end: usize) {
        if self.next_start < end {
            self.name(path, start, end);
        }
        if self.want_time && path.frames.len() == 1 {
            self.time(path, value);
        }
    }
}

// ---------------------------------------------------------------------------------------
// logfmt

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn skip_blank(line: &[u8], mut i: usize) -> usize {
    while i < line.len() && is_blank(line[i]) {
        i += 1;
    }
    i
}

/// One `key=value` pair: byte ranges, a quoted value without its quotes.
#[derive(Clone, Copy)]
struct Pair {
    key: (usize, usize),
    value: (usize, usize),
    quoted: bool,
    escaped: bool,
}

/// The end of a logfmt key that starts at `i`: the first blank or control byte, `=` or `"`.
fn key_end(line: &[u8], i: usize) -> usize {
    let stops = Stops {
        bytes: b"=\"",
        controls: true,
    };
    scan_until(line, i, stops)
}

/// The end of an unquoted logfmt value that starts at `i`: the first blank.
fn blank_at_or_after(line: &[u8], i: usize) -> usize {
    let stops = Stops {
        bytes: b" \t",
        controls: false,
    };
    scan_until(line, i, stops)
}

/// Walks the line as logfmt; true if all of it is pairs (at least one). Pairs before a
/// failure have been reported already.
fn walk_logfmt(line: &[u8], mut on: impl FnMut(Pair)) -> bool {
    let n = line.len();
    let mut i = skip_blank(line, 0);
    if i == n {
        return false;
    }
    while i < n {
        let key_start = i;
        i = key_end(line, i);
        if i == key_start || i == n || line[i] != b'=' {
            return false;
        }
        let key = (key_start, i);
        i += 1;
        let pair = if line.get(i) == Some(&b'"') {
            let Some((close, escaped)) = scan_quoted(line, i + 1, b'"') else {
                return false;
            };
            let pair = Pair {
                key,
                value: (i + 1, close),
                quoted: true,
                escaped,
            };
            i = close + 1;
            if i < n && !is_blank(line[i]) {
                return false;
            }
            pair
        } else {
            let end = blank_at_or_after(line, i);
            let pair = Pair {
                key,
                value: (i, end),
                quoted: false,
                escaped: false,
            };
            i = end;
            pair
        };
        on(pair);
        i = skip_blank(line, i);
    }
    true
}

/// From just after an opening `quote`: the index of the closing one (a backslash escapes any
/// byte), and whether there was a backslash.
fn scan_quoted(line: &[u8], mut i: usize, quote: u8) -> Option<(usize, bool)> {
    let mut escaped = false;
    loop {
        let k = i + memchr2(quote, b'\\', line.get(i..)?)?;
        if line[k] == quote {
            return Some((k, escaped));
        }
        escaped = true;
        i = k + 2;
    }
}

fn analyse_logfmt(
    line: &[u8],
    spans: &[(usize, usize)],
    want_time: bool,
    ctx: &TimeContext,
    out: &mut Analysis,
) -> bool {
    let mut next = 0;
    walk_logfmt(line, |pair| {
        let key = &line[pair.key.0..pair.key.1];
        // Most pairs hold no ID: the next one starts past them.
        if spans.get(next).is_some_and(|span| span.0 < pair.value.1) {
            spans_within(spans, &mut next, pair.key.0, pair.key.1, |_| {});
            spans_within(spans, &mut next, pair.value.0, pair.value.1, |k| {
                if key.len() <= MAX_FIELD {
                    out.set_field(k, key);
                }
            });
        }
        if want_time && out.time_ms.is_none() && is_time_key(key) {
            out.time_ms = time_value(&line[pair.value.0..pair.value.1], ctx);
        }
    })
}

// ---------------------------------------------------------------------------------------
// Plain text fields

/// Longest word the rules look back over; longer runs are not field names, and the bound
/// keeps the backward walks short on huge lines.
const MAX_WORD: usize = 128;

/// Longest JSON key path or logfmt key that names a field. Longer ones name none: they are
/// data rather than names, and copying one per ID made a long key over many IDs, or deep
/// nesting, cost time and memory quadratic in the line.
const MAX_FIELD: usize = 256;

fn is_word_byte(b: u8) -> bool {
    BYTE_CLASS[b as usize] & WORD != 0
}

/// Bytes that may stand between a key and its value, or before a word: quotes, opening
/// brackets and the backslash of an escaped quote.
fn is_opener(b: u8) -> bool {
    BYTE_CLASS[b as usize] & OPENER != 0
}

/// Bytes of a URL or file path segment.
fn is_segment_byte(b: u8) -> bool {
    BYTE_CLASS[b as usize] & SEGMENT != 0
}

/// Bytes that may separate the occurrences of a list.
fn is_list_separator(b: u8) -> bool {
    BYTE_CLASS[b as usize] & LIST_SEPARATOR != 0
}

const WORD: u8 = 1;
const OPENER: u8 = 2;
const SEGMENT: u8 = 4;
const LIST_SEPARATOR: u8 = 8;

/// The classes above for every byte, looked up rather than tested byte by byte: the plain
/// rules walk back over words and segments for every occurrence.
static BYTE_CLASS: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-') {
            table[b] |= WORD;
        }
        if matches!(c, b'"' | b'\'' | b'[' | b'(' | b'{' | b'<' | b'\\') {
            table[b] |= OPENER;
        }
        if c > b' '
            && !matches!(
                c,
                b'/' | b'"'
                    | b'\''
                    | b'='
                    | b':'
                    | b'('
                    | b')'
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
                    | b'<'
                    | b'>'
                    | b','
                    | b';'
                    | b'\\'
            )
        {
            table[b] |= SEGMENT;
        }
        if matches!(
            c,
            b' ' | b'\t'
                | b','
                | b';'
                | b'|'
                | b'"'
                | b'\''
                | b'['
                | b']'
                | b'('
                | b')'
                | b'{'
                | b'}'
                | b'<'
                | b'>'
        ) {
            table[b] |= LIST_SEPARATOR;
        }
        b += 1;
    }
    table
};

/// Hex digits and separators, with a digit, 5 bytes or more: a hash, an ID or a number
/// rather than a word.
fn looks_like_id(word: &[u8]) -> bool {
    word.len() >= 5
        && word.iter().any(u8::is_ascii_digit)
        && word
            .iter()
            .all(|&b| b.is_ascii_hexdigit() || matches!(b, b'.' | b'-' | b'_'))
}

/// Whether a trimmed word can name a field.
fn is_name(word: &[u8]) -> bool {
    word.iter().any(u8::is_ascii_alphabetic) && !looks_like_id(word)
}

/// A name with a hash in it, such as a Kubernetes pod name (`web-7b6bd9b949-x82q`).
fn is_generated(word: &[u8]) -> bool {
    word.split(|&b| matches!(b, b'-' | b'_' | b'.'))
        .any(looks_like_id)
}

/// The word that ends at `end`, trimmed, if it can name a field.
fn word_before(line: &[u8], end: usize) -> Option<(usize, usize)> {
    let mut a = end;
    while a > 0 && is_word_byte(line[a - 1]) {
        a -= 1;
        if end - a > MAX_WORD {
            return None;
        }
    }
    let mut b = end;
    while a < b && matches!(line[a], b'.' | b'-' | b'_') {
        a += 1;
    }
    while a < b && matches!(line[b - 1], b'.' | b'-' | b'_') {
        b -= 1;
    }
    is_name(&line[a..b]).then_some((a, b))
}

/// Where a rule found the field of an occurrence.
enum Source {
    /// A name in the line; `key` if it came from a key, which a following list inherits.
    Name {
        range: (usize, usize),
        key: bool,
    },
    /// The field of the previous occurrence.
    Previous,
    None,
}

/// Gives span `k` its field by the plain rules; returns whether a following list occurrence
/// may inherit it.
fn assign_plain(
    line: &[u8],
    spans: &[(usize, usize)],
    k: usize,
    previous_is_key: bool,
    out: &mut Analysis,
) -> bool {
    match plain_field(line, spans, k, previous_is_key) {
        Source::Name { range, key } => {
            out.set_field(k, &line[range.0..range.1]);
            key
        }
        Source::Previous => {
            out.fields[k] = out.fields[k - 1];
            true
        }
        Source::None => false,
    }
}

fn plain_field(line: &[u8], spans: &[(usize, usize)], k: usize, previous_is_key: bool) -> Source {
    let mut start = spans[k].0;
    if crate::id::has_urn_prefix(line, start) {
        start -= crate::id::URN_PREFIX.len();
    }
    let key = |range| Source::Name { range, key: true };

    // Rules 1 and 2: a key before `=` or `:`, or a word before a bracket.
    let mut p = start;
    while p > 0 && start - p < 4 && is_opener(line[p - 1]) {
        p -= 1;
    }
    let openers = start - p;
    let after_openers = p;
    while p > 0 && after_openers - p < 16 && is_blank(line[p - 1]) {
        p -= 1;
    }
    let blanks = after_openers - p;
    if p > 0 && matches!(line[p - 1], b'=' | b':') {
        let mut q = skip_back(line, p - 1, is_blank, 16);
        q = skip_back(line, q, |b| matches!(b, b'"' | b'\'' | b'\\'), 3);
        if let Some(range) = word_before(line, q) {
            return key(range);
        }
    }
    if openers > 0
        && blanks == 0
        && matches!(line[after_openers], b'(' | b'[')
        && p > 0
        && is_word_byte(line[p - 1])
        && let Some(word) = word_before(line, p)
    {
        let q = skip_back(line, word.0, |b| matches!(b, b'"' | b'\''), 1);
        if q > 0
            && line[q - 1] == b'='
            && let Some(range) = word_before(line, q - 1)
        {
            return key(range);
        }
        if !is_generated(&line[word.0..word.1]) {
            return key(word);
        }
        // A generated name (`in pod web-7b6bd9b949-x82q_ns(ID)`): the word before it tells
        // what it names.
        let q = skip_back(line, word.0, is_blank, 16);
        if q < word.0
            && let Some(range) = word_before(line, q)
            && !is_generated(&line[range.0..range.1])
        {
            return key(range);
        }
        return Source::None;
    }

    if openers == 0 && start > 0 {
        // Rule 3: a word glued on.
        if start >= 2
            && matches!(line[start - 1], b'-' | b'_' | b'.')
            && line[start - 2].is_ascii_alphanumeric()
        {
            let end = start - 1;
            let a = skip_back(line, end, |b| b.is_ascii_alphanumeric(), MAX_WORD + 1);
            if end - a <= MAX_WORD && is_name(&line[a..end]) {
                return Source::Name {
                    range: (a, end),
                    key: false,
                };
            }
        }
        // Rule 4: the previous path segment.
        let q = skip_back(line, start, is_segment_byte, MAX_WORD + 1);
        if start - q <= MAX_WORD && q > 0 && line[q - 1] == b'/' {
            let end = q - 1;
            let a = skip_back(line, end, is_segment_byte, MAX_WORD + 1);
            if end - a <= MAX_WORD && is_name(&line[a..end]) {
                return Source::Name {
                    range: (a, end),
                    key: false,
                };
            }
            return Source::None;
        }
    }

    // Rule 5: a list after an occurrence whose field is a key.
    if k > 0 {
        let gap = spans[k - 1].1..start;
        if previous_is_key
            && gap.len() <= 16
            && line[gap.clone()].iter().all(|&b| is_list_separator(b))
        {
            return Source::Previous;
        }
    }

    // Rule 6: the word before.
    if blanks > 0 {
        let q = skip_back(line, p, |b| matches!(b, b'"' | b'\'' | b'\\'), 3);
        if let Some(range) = word_before(line, q)
            && (k == 0 || range.1 > spans[k - 1].1 || range.1 <= spans[k - 1].0)
        {
            return Source::Name { range, key: false };
        }
    }
    Source::None
}

/// Steps back from `end` over at most `max` bytes that satisfy `f`.
fn skip_back(line: &[u8], end: usize, f: impl Fn(u8) -> bool, max: usize) -> usize {
    let mut i = end;
    while i > 0 && end - i < max && f(line[i - 1]) {
        i -= 1;
    }
    i
}

// ---------------------------------------------------------------------------------------
// Times

/// A civil date and time as written, checked for range but not for the month's length.
#[derive(Clone, Copy, Debug)]
struct Civil {
    year: i32,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
    milli: i64,
}

fn digit(line: &[u8], i: usize) -> Option<u32> {
    let b = *line.get(i)?;
    b.is_ascii_digit().then(|| u32::from(b - b'0'))
}

fn d2(line: &[u8], i: usize) -> Option<u8> {
    Some((digit(line, i)? * 10 + digit(line, i + 1)?) as u8)
}

fn d4(line: &[u8], i: usize) -> Option<i32> {
    Some((u32::from(d2(line, i)?) * 100 + u32::from(d2(line, i + 2)?)) as i32)
}

fn byte_is(line: &[u8], i: usize, b: u8) -> bool {
    line.get(i) == Some(&b)
}

/// Two digits at the start of `s`.
fn two(s: &[u8; 2]) -> Option<u8> {
    let (a, b) = (s[0].wrapping_sub(b'0'), s[1].wrapping_sub(b'0'));
    (a < 10 && b < 10).then_some(a * 10 + b)
}

/// `HH:MM:SS` and an optional fraction after `.` or `,`: hour, minute, second, millisecond
/// and the end.
fn clock_at(line: &[u8], i: usize) -> Option<(u8, u8, u8, i64, usize)> {
    let s: &[u8; 8] = line.get(i..)?.first_chunk()?;
    if s[2] != b':' || s[5] != b':' {
        return None;
    }
    let hour = two(s[0..].first_chunk()?)?;
    let minute = two(s[3..].first_chunk()?)?;
    let second = two(s[6..].first_chunk()?)?;
    let mut j = i + 8;
    let mut milli = 0;
    if matches!(line.get(j), Some(b'.' | b',')) && digit(line, j + 1).is_some() {
        j += 1;
        let mut scale = 100;
        while let Some(d) = digit(line, j) {
            milli += i64::from(d) * scale;
            scale /= 10;
            j += 1;
        }
    }
    Some((hour, minute, second, milli, j))
}

/// Whether a time may end at `i`: not in the middle of a word.
fn ends_token(line: &[u8], i: usize) -> bool {
    line.get(i).is_none_or(|b| !b.is_ascii_alphanumeric())
}

/// An ISO 8601 / RFC 3339 date and time at `i`, with its offset in seconds if written.
fn iso_at(line: &[u8], i: usize) -> Option<(Civil, Option<i32>, usize)> {
    let s: &[u8; 11] = line.get(i..)?.first_chunk()?;
    if s[4] != b'-' || s[7] != b'-' || !matches!(s[10], b'T' | b't' | b' ') {
        return None;
    }
    let year =
        i32::from(two(s[0..].first_chunk()?)?) * 100 + i32::from(two(s[2..].first_chunk()?)?);
    let month = two(s[5..].first_chunk()?)?;
    let day = two(s[8..].first_chunk()?)?;
    let (hour, minute, second, milli, mut j) = clock_at(line, i + 11)?;
    let mut offset = None;
    match line.get(j) {
        Some(b'Z' | b'z') => {
            offset = Some(0);
            j += 1;
        }
        Some(&sign @ (b'+' | b'-')) => {
            if let Some((o, end)) = offset_at(line, j + 1, sign, true) {
                offset = Some(o);
                j = end;
            }
        }
        Some(b' ') => {
            let zone = line.get(j + 1..j + 4);
            if matches!(zone, Some(b"UTC" | b"GMT")) && ends_token(line, j + 4) {
                offset = Some(0);
                j += 4;
            } else if let Some(&sign @ (b'+' | b'-')) = line.get(j + 1)
                && let Some((o, end)) = offset_at(line, j + 2, sign, false)
            {
                offset = Some(o);
                j = end;
            }
        }
        _ => {}
    }
    if !ends_token(line, j) {
        return None;
    }
    let civil = Civil {
        year,
        month,
        day,
        hour,
        minute,
        second,
        milli,
    };
    Some((civil, offset, j))
}

/// An offset after its sign: `HH:MM`, `HHMM`, or (if `short`) `HH`.
fn offset_at(line: &[u8], i: usize, sign: u8, short: bool) -> Option<(i32, usize)> {
    let hours = i32::from(d2(line, i)?);
    let (minutes, end) = if byte_is(line, i + 2, b':') {
        (i32::from(d2(line, i + 3)?), i + 5)
    } else if let Some(m) = d2(line, i + 2) {
        (i32::from(m), i + 4)
    } else if short {
        (0, i + 2)
    } else {
        return None;
    };
    if hours > 23 || minutes > 59 || !ends_token(line, end) {
        return None;
    }
    let seconds = hours * 3600 + minutes * 60;
    Some((if sign == b'-' { -seconds } else { seconds }, end))
}

const MONTHS: [&[u8; 3]; 12] = [
    b"jan", b"feb", b"mar", b"apr", b"may", b"jun", b"jul", b"aug", b"sep", b"oct", b"nov", b"dec",
];

fn month_at(line: &[u8], i: usize) -> Option<u8> {
    let name = line.get(i..i + 3)?;
    let lower = [
        name[0].to_ascii_lowercase(),
        name[1].to_ascii_lowercase(),
        name[2].to_ascii_lowercase(),
    ];
    MONTHS
        .iter()
        .position(|m| **m == lower)
        .map(|m| m as u8 + 1)
}

/// Syslog `Nov 29 10:00:00` (or `Jul  1 09:00:55`) at `i`.
fn syslog_at(line: &[u8], i: usize, ctx: &TimeContext) -> Option<i64> {
    // The blank first: it turns most lines away before the month names are tried.
    if !byte_is(line, i + 3, b' ') {
        return None;
    }
    let month = month_at(line, i)?;
    let mut j = i + 4;
    if byte_is(line, j, b' ') {
        j += 1;
    }
    let day = if let Some(d) = d2(line, j) {
        j += 2;
        d
    } else {
        j += 1;
        digit(line, j - 1)? as u8
    };
    if !byte_is(line, j, b' ') {
        return None;
    }
    year_less_at(line, j + 1, month, day, ctx)
}

/// klog `I1129 10:00:00.123456` at `i`.
fn klog_at(line: &[u8], i: usize, ctx: &TimeContext) -> Option<i64> {
    if !matches!(line.get(i), Some(b'I' | b'W' | b'E' | b'F')) || !byte_is(line, i + 5, b' ') {
        return None;
    }
    let month = d2(line, i + 1)?;
    let day = d2(line, i + 3)?;
    year_less_at(line, i + 6, month, day, ctx)
}

/// The clock at `at` of a syslog or klog time, dated `month`/`day` of the year the context
/// gives such lines.
fn year_less_at(line: &[u8], at: usize, month: u8, day: u8, ctx: &TimeContext) -> Option<i64> {
    let (hour, minute, second, milli, end) = clock_at(line, at)?;
    if !ends_token(line, end) {
        return None;
    }
    let civil = Civil {
        year: ctx.year_for_month(month),
        month,
        day,
        hour,
        minute,
        second,
        milli,
    };
    civil_ms(civil, None, ctx)
}

/// Access-log `29/Nov/2026:10:00:00 +0000` at `i` (just after the `[`).
fn access_at(line: &[u8], i: usize, ctx: &TimeContext) -> Option<i64> {
    let day = d2(line, i)?;
    if !byte_is(line, i + 2, b'/') || !byte_is(line, i + 6, b'/') || !byte_is(line, i + 11, b':') {
        return None;
    }
    let month = month_at(line, i + 3)?;
    let year = d4(line, i + 7)?;
    let (hour, minute, second, milli, end) = clock_at(line, i + 12)?;
    let mut offset = None;
    if byte_is(line, end, b' ')
        && let Some(&sign @ (b'+' | b'-')) = line.get(end + 1)
    {
        offset = Some(offset_at(line, end + 2, sign, false)?.0);
    }
    let civil = Civil {
        year,
        month,
        day,
        hour,
        minute,
        second,
        milli,
    };
    civil_ms(civil, offset, ctx)
}

/// The time of a plain text line (or of the text before a JSON object).
fn plain_time(line: &[u8], ctx: &TimeContext) -> Option<i64> {
    let mut i = skip_blank(line, 0);
    // A syslog priority, and the version of RFC 5424.
    if byte_is(line, i, b'<') {
        let digits = i + 1;
        let mut j = digits;
        while digit(line, j).is_some() && j - digits < 3 {
            j += 1;
        }
        if j > digits && byte_is(line, j, b'>') {
            i = j + 1;
            if byte_is(line, i, b'1') && byte_is(line, i + 1, b' ') {
                i += 2;
            }
        }
    }
    if let Some(ms) = klog_at(line, i, ctx).or_else(|| syslog_at(line, i, ctx)) {
        return Some(ms);
    }
    for _ in 0..4 {
        if i >= line.len() {
            break;
        }
        let at = if line[i] == b'[' { i + 1 } else { i };
        if let Some((civil, offset, _)) = iso_at(line, at) {
            return civil_ms(civil, offset, ctx);
        }
        while i < line.len() && !is_blank(line[i]) {
            i += 1;
        }
        i = skip_blank(line, i);
    }
    let mut from = 0;
    while let Some(k) = memchr(b'[', &line[from..]) {
        let k = from + k;
        if let Some(ms) = access_at(line, k + 1, ctx) {
            return Some(ms);
        }
        from = k + 1;
    }
    None
}

/// The value of a time key: ISO 8601 (all of it) or an epoch number.
fn time_value(value: &[u8], ctx: &TimeContext) -> Option<i64> {
    let value = value.trim_ascii();
    if value.len() >= 19 && byte_is(value, 4, b'-') {
        let (civil, offset, end) = iso_at(value, 0)?;
        return (end == value.len())
            .then(|| civil_ms(civil, offset, ctx))
            .flatten();
    }
    epoch_ms(value)
}

/// An epoch number, its unit told by the count of integer digits.
fn epoch_ms(raw: &[u8]) -> Option<i64> {
    let dot = memchr(b'.', raw).unwrap_or(raw.len());
    let (int, frac) = (&raw[..dot], raw.get(dot + 1..).unwrap_or(b""));
    if int.is_empty()
        || int.len() > 19
        || !int.iter().all(u8::is_ascii_digit)
        || !frac.iter().all(u8::is_ascii_digit)
        || (dot < raw.len() && frac.is_empty())
    {
        return None;
    }
    let mut n: u64 = 0;
    for &b in int {
        n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    let n = i64::try_from(n).ok()?;
    Some(match int.len() {
        0..=11 => {
            let mut milli = 0;
            let mut scale = 100;
            for &b in frac.iter().take(3) {
                milli += i64::from(b - b'0') * scale;
                scale /= 10;
            }
            n * 1000 + milli
        }
        12..=14 => n,
        15..=17 => n / 1_000,
        _ => n / 1_000_000,
    })
}

fn is_leap(year: i32) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a valid proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i32, month: u8, day: u8) -> i64 {
    let y = i64::from(if month <= 2 { year - 1 } else { year });
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(month) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

thread_local! {
    /// The date this thread converted last, packed as `year << 9 | month << 5 | day`, and
    /// its days: a log's consecutive lines mostly share their date.
    static LAST_DATE: std::cell::Cell<(i32, i64)> = const { std::cell::Cell::new((-1, 0)) };
}

/// A valid date (years 1 to 9999) as one positive number, distinct for each date.
fn pack_date(year: i32, month: u8, day: u8) -> i32 {
    year << 9 | i32::from(month) << 5 | i32::from(day)
}

/// [`days_from_civil`] through [`LAST_DATE`].
fn days_from_civil_cached(year: i32, month: u8, day: u8) -> i64 {
    let packed = pack_date(year, month, day);
    let (last, days) = LAST_DATE.get();
    if last == packed {
        return days;
    }
    let days = days_from_civil(year, month, day);
    LAST_DATE.set((packed, days));
    days
}

/// Unix milliseconds of a civil time, at `offset` seconds east of UTC if written, else in
/// the context's zone. None for a date or time that does not exist.
fn civil_ms(c: Civil, offset: Option<i32>, ctx: &TimeContext) -> Option<i64> {
    if !(1..=12).contains(&c.month)
        || c.day == 0
        || c.day > days_in_month(c.year, c.month)
        || c.hour > 23
        || c.minute > 59
        || c.second > 60
        || !(1..=9999).contains(&c.year)
    {
        return None;
    }
    // A leap second is read as the last second of its minute.
    let second = c.second.min(59);
    if let Some(offset) = offset.or(ctx.fixed_offset) {
        let local = days_from_civil_cached(c.year, c.month, c.day) * 86_400
            + i64::from(c.hour) * 3600
            + i64::from(c.minute) * 60
            + i64::from(second);
        return Some((local - i64::from(offset)) * 1000 + c.milli);
    }
    let dt = DateTime::new(
        c.year as i16,
        c.month as i8,
        c.day as i8,
        c.hour as i8,
        c.minute as i8,
        second as i8,
        0,
    )
    .ok()?;
    let ts = ctx.zone.to_ambiguous_timestamp(dt).compatible().ok()?;
    Some(ts.as_millisecond() + c.milli)
}

// ---------------------------------------------------------------------------------------
// Pairs

/// A value next to a key, as [`for_each_pair`] reports it.
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

/// Reusable buffers for [`for_each_pair`].
#[derive(Clone, Debug, Default)]
pub struct PairBuffers {
    json: JsonScratch,
    path: Vec<u8>,
    text: Vec<u8>,
}

/// Calls `f` with every key and its value on `line`, in order, so that audits can see keys
/// whose value is not an ID (`0`, `""`, `null`). JSON (after an optional prefix, with the same
/// test as [`analyse`]): every member at its key path (`a.b`, `a.ids[]`), containers as
/// [`Value::Other`] before their members. logfmt: every pair. Plain text: `key=value` (a quoted
/// value, or a bare one up to a blank or `,;)]}"`) and JSON-style `"key": value` members found
/// in the text; `key: value` without quotes is too common in prose to count.
pub fn for_each_pair(line: &[u8], buffers: &mut PairBuffers, mut f: impl FnMut(&[u8], Value<'_>)) {
    let PairBuffers { json, path, text } = buffers;
    if let Some(open) = json_start(line)
        // Walk once to know the line is JSON, since pairs reported before a failure could not
        // be taken back.
        && walk_json(line, open, json, &mut Validate)
    {
        walk_json(line, open, json, &mut JsonPairs { path, text, f });
        return;
    }
    if walk_logfmt(line, |_| {}) {
        walk_logfmt(line, |pair| {
            let key = &line[pair.key.0..pair.key.1];
            let raw = &line[pair.value.0..pair.value.1];
            if key.len() <= MAX_FIELD {
                report_text_value(key, raw, pair.quoted, pair.escaped, text, &mut f);
            }
        });
        return;
    }
    text_pairs(line, text, &mut f);
}

fn report_text_value(
    key: &[u8],
    raw: &[u8],
    quoted: bool,
    escaped: bool,
    text: &mut Vec<u8>,
    f: &mut impl FnMut(&[u8], Value<'_>),
) {
    if quoted && escaped {
        text.clear();
        unescape(raw, text);
        f(key, Value::Str(text));
    } else if quoted {
        f(key, Value::Str(raw));
    } else {
        f(key, bare_value(raw));
    }
}

/// What an unquoted value looks like.
fn bare_value(raw: &[u8]) -> Value<'_> {
    match raw {
        b"null" | b"nil" | b"<nil>" => return Value::Null,
        b"true" => return Value::Bool(true),
        b"false" => return Value::Bool(false),
        _ => {}
    }
    match scan_number(raw, 0) {
        Some((end, int)) if !raw.is_empty() && end == raw.len() => {
            if int {
                Value::Int(raw)
            } else {
                Value::Number(raw)
            }
        }
        _ => Value::Str(raw),
    }
}

/// Reports every JSON value with its path.
struct JsonPairs<'a, F> {
    path: &'a mut Vec<u8>,
    text: &'a mut Vec<u8>,
    f: F,
}

impl<F: FnMut(&[u8], Value<'_>)> Visit for JsonPairs<'_, F> {
    fn key(&mut self, _: Path<'_>, _: usize, _: usize) {}

    fn value(&mut self, at: Path<'_>, value: Value<'_>, escaped: bool, _: usize, _: usize) {
        self.path.clear();
        if !at.write(self.path) {
            return;
        }
        match value {
            Value::Str(raw) if escaped => {
                self.text.clear();
                unescape(raw, self.text);
                (self.f)(self.path, Value::Str(self.text));
            }
            _ => (self.f)(self.path, value),
        }
    }
}

/// `key=value` and `"key": value` pairs in free text.
fn text_pairs(line: &[u8], text: &mut Vec<u8>, f: &mut impl FnMut(&[u8], Value<'_>)) {
    let n = line.len();
    let mut i = 0;
    while let Some(k) = memchr2(b'=', b':', &line[i..]) {
        let p = i + k;
        i = p + 1;
        let key = if line[p] == b'=' {
            let a = skip_back(line, p, is_word_byte, MAX_WORD + 1);
            let boundary = a == 0 || !line[a - 1].is_ascii_graphic() || is_opener(line[a - 1]);
            if a == p || p - a > MAX_WORD || !boundary || matches!(line.get(p + 1), Some(b'=')) {
                continue;
            }
            (a, p)
        } else {
            // Only a quoted key: `"key":`, or `\"key\":` inside an escaped message.
            if p == 0 || line[p - 1] != b'"' {
                continue;
            }
            let close = p - 1;
            let Some(open) = line[..close].iter().rposition(|&b| b == b'"') else {
                continue;
            };
            let a = open + 1;
            let b = if line[close - 1] == b'\\' {
                close - 1
            } else {
                close
            };
            if a >= b || line[a..b].iter().any(|&c| !is_word_byte(c) && c != b'@') {
                continue;
            }
            (a, b)
        };
        let key = &line[key.0..key.1];
        let mut v = if line[p] == b':' {
            skip_blank(line, i)
        } else {
            i
        };
        // A value quoted with `\"` inside an escaped message ends at the next `\"`.
        let escaped_quote = line.get(v..v + 2) == Some(b"\\\"");
        if escaped_quote {
            v += 1;
        }
        match line.get(v) {
            Some(&q @ (b'"' | b'\'')) => {
                let close = if escaped_quote {
                    memchr::memmem::find(&line[v + 1..], b"\\\"").map(|c| v + 1 + c)
                } else {
                    scan_quoted(line, v + 1, q).map(|(c, _)| c)
                };
                let Some(close) = close else {
                    continue;
                };
                let raw = &line[v + 1..close];
                let escaped = !escaped_quote && memchr(b'\\', raw).is_some();
                report_text_value(key, raw, true, escaped, text, f);
                i = close + 1;
            }
            // Members of an object or array in the text follow as pairs of their own.
            Some(b'{' | b'[') => f(key, Value::Other),
            _ => {
                let mut end = v;
                while end < n
                    && !is_blank(line[end])
                    && !matches!(line[end], b',' | b';' | b')' | b']' | b'}' | b'"')
                {
                    end += 1;
                }
                f(key, bare_value(&line[v..end]));
                i = end.max(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan;
    use jiff::tz::{TimeZone, offset};

    const ULID: &str = "01m8kbygm5ng2pshny302zvwbs";
    const ULID2: &str = "01kb5v3q8m0c7rj2e9wqz4xnyd";
    const ULID3: &str = "01kb5v3q8n1d8sk3f0xr05ypze";
    const UUID: &str = "01a226bf-4285-ac05-6cc6-be1805fdf179";
    const UUID2: &str = "9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f";

    /// Two dates never share a cache key, and none is the empty cache's.
    #[test]
    fn packed_dates_are_distinct() {
        let mut seen = std::collections::HashSet::new();
        let years = (1..=9999)
            .step_by(97)
            .chain([1, 2, 1970, 2024, 2026, 9998, 9999]);
        for year in years.collect::<std::collections::BTreeSet<_>>() {
            for month in 1..=12 {
                for day in 1..=31 {
                    let packed = pack_date(year, month, day);
                    assert!(packed > 0, "{year}-{month}-{day}");
                    assert!(seen.insert(packed), "{year}-{month}-{day}");
                }
            }
        }
    }

    /// The cached conversion gives the plain one's days whatever date came before.
    #[test]
    fn cached_days_follow_the_date() {
        let dates = [
            (2026, 11, 29),
            (2026, 11, 29),
            (2026, 11, 30),
            (2024, 2, 29),
            (2026, 11, 29),
            (1, 1, 1),
            (9999, 12, 31),
            (9999, 12, 31),
            (1970, 1, 1),
        ];
        for (y, m, d) in dates {
            assert_eq!(
                days_from_civil_cached(y, m, d),
                days_from_civil(y, m, d),
                "{y}-{m}-{d}"
            );
        }
    }

    /// The vector scans stop where a byte-by-byte scan does (or find nothing where it finds
    /// nothing), for a stop byte at every position across the 16-byte steps, from every
    /// start, and at the end of the line.
    #[test]
    fn vector_scans_agree_with_bytes() {
        let naive = |line: &[u8], i: usize, stop: &dyn Fn(u8) -> bool| {
            (i..line.len())
                .find(|&k| stop(line[k]))
                .unwrap_or(line.len())
        };
        let key_stop = |b: u8| b <= b' ' || b == b'=' || b == b'"';
        for len in [0, 5, 16, 17, 40] {
            for &special in b" \t=\"\\\x01\xc3!" {
                for at in 0..len {
                    let mut line = vec![b'k'; len];
                    line[at] = special;
                    for i in 0..=len {
                        assert_eq!(
                            key_end(&line, i),
                            naive(&line, i, &key_stop),
                            "{line:?} {i}"
                        );
                        assert_eq!(
                            blank_at_or_after(&line, i),
                            naive(&line, i, &is_blank),
                            "{line:?} {i}"
                        );
                        let quote = naive(&line, i, &|b| b == b'"' || b == b'\\');
                        assert_eq!(
                            find_quote_or_backslash(&line, i),
                            (quote < len).then_some(quote),
                            "{line:?} {i}"
                        );
                    }
                }
            }
        }
    }

    fn ms(rfc3339: &str) -> i64 {
        rfc3339.parse::<Timestamp>().unwrap().as_millisecond()
    }

    /// A context in UTC whose reference time is the end of 2026.
    fn utc() -> TimeContext {
        TimeContext::new(TimeZone::UTC, "2026-12-31T12:00:00Z".parse().unwrap())
    }

    struct Got {
        format: Format,
        fields: Vec<Option<String>>,
        time: Option<i64>,
    }

    fn analyse_with(line: &[u8], ctx: &TimeContext) -> Got {
        let mut spans = Vec::new();
        scan::for_each_token(line, |hit| spans.push((hit.start, hit.end)));
        let mut out = Analysis::default();
        analyse(line, &spans, true, ctx, &mut out);
        Got {
            format: out.format(),
            fields: (0..spans.len())
                .map(|i| {
                    out.field(i)
                        .map(|f| String::from_utf8_lossy(f).into_owned())
                })
                .collect(),
            time: out.time_ms(),
        }
    }

    fn got(line: &str) -> Got {
        analyse_with(line.as_bytes(), &utc())
    }

    fn fields(line: &str) -> Vec<Option<String>> {
        got(line).fields
    }

    fn time(line: &str) -> Option<i64> {
        got(line).time
    }

    fn some(names: &[&str]) -> Vec<Option<String>> {
        names
            .iter()
            .map(|n| (!n.is_empty()).then(|| n.to_string()))
            .collect()
    }

    // ----- JSON

    #[test]
    fn json_key_paths() {
        let line = format!(
            r#"{{"ts":"2026-11-29T10:00:00.123Z","order_id":"{ULID}","ctx":{{"batch_id":"{ULID2}","n":3}},"sources":["{ULID3}","{UUID}"],"items":[{{"sku":"SKU-1","ref":"{UUID2}"}}],"msg":"charged order {ULID} ok"}}"#
        );
        let g = got(&line);
        assert_eq!(g.format, Format::Json);
        assert_eq!(
            g.fields,
            some(&[
                "order_id",
                "ctx.batch_id",
                "sources[]",
                "sources[]",
                "items[].ref",
                "msg"
            ])
        );
        assert_eq!(g.time, Some(ms("2026-11-29T10:00:00.123Z")));
    }

    #[test]
    fn json_nested_arrays_and_blanks() {
        let line =
            format!("  {{ \"a\" : {{ \"b\" : [ [ \"{ULID}\" ] , {{\"c\":[\"{UUID}\"]}} ] }} }} ");
        let g = got(&line);
        assert_eq!(g.format, Format::Json);
        assert_eq!(g.fields, some(&["a.b[][]", "a.b[].c[]"]));
    }

    #[test]
    fn json_escapes_in_strings_and_keys() {
        let line = format!(
            r#"{{"msg":"said \"stop\" to {ULID} \\","k\u0065y":"{UUID}","a\"b":"x\u0041 {ULID2}","\ud83d\ude00":"{ULID3}"}}"#
        );
        let g = got(&line);
        assert_eq!(g.format, Format::Json);
        assert_eq!(g.fields, some(&["msg", "key", "a\"b", "😀"]));
    }

    #[test]
    fn json_id_in_a_key_gets_the_objects_path() {
        let line = format!(r#"{{"{ULID}":1,"orders":{{"{ULID2}":{{"status":"paid"}}}}}}"#);
        assert_eq!(fields(&line), some(&["", "orders"]));
    }

    #[test]
    fn json_bare_number_id_gets_its_key() {
        // 32 digits: an undashed UUID that is also a JSON number.
        let line = r#"{"n":12345678901234567890123456789012}"#;
        assert_eq!(fields(line), some(&["n"]));
    }

    #[test]
    fn json_after_container_runtime_prefix() {
        let with_ts = format!(
            r#"2026-11-29T10:00:05.999999999Z stdout F {{"ts":"2026-11-29T10:00:01Z","user":"user_{ULID}"}}"#
        );
        let g = got(&with_ts);
        assert_eq!(g.format, Format::Json);
        assert_eq!(g.fields, some(&["user"]));
        assert_eq!(g.time, Some(ms("2026-11-29T10:00:01Z")));

        let without_ts = format!(
            r#"2026-11-29T10:00:05.999999999Z stdout F {{"level":"info","order":"{ULID}"}}"#
        );
        let g = got(&without_ts);
        assert_eq!(g.format, Format::Json);
        assert_eq!(g.time, Some(ms("2026-11-29T10:00:05.999Z")));

        // An ID in the prefix gets the plain rules.
        let in_prefix = format!(r#"req-{UUID} app: {{"order_id":"{ULID}"}}"#);
        let g = got(&in_prefix);
        assert_eq!(g.format, Format::Json);
        assert_eq!(g.fields, some(&["req", "order_id"]));
    }

    #[test]
    fn broken_json_falls_back_to_plain() {
        for line in [
            format!(r#"{{"order_id":"{ULID}","n":}}"#),
            format!(r#"{{"order_id":"{ULID}","n":1"#),
            format!(r#"{{"order_id":"{ULID}","n":tru}}"#),
            format!(r#"{{"order_id":"{ULID}" "n":1}}"#),
            format!(r#"{{"order_id":"{ULID}","bad":"\x"}}"#),
            format!(r#"{{"order_id":"{ULID}"}} trailing"#),
            format!(r#"{{"order_id":"{ULID}"}}}}"#),
        ] {
            let g = got(&line);
            assert_eq!(g.format, Format::Plain, "{line}");
            assert_eq!(g.fields, some(&["order_id"]), "{line}");
        }
    }

    #[test]
    fn json_in_text_after_equals_is_plain() {
        // The kubelet writes `event={...}` inside a text line: the object does not start a word.
        let line = format!(
            r#"I1129 10:00:00.000001    3224 kubelet.go:2430] "SyncLoop" pod="ns/web-0" event={{"ID":"{UUID}","Type":"ContainerDied"}}"#
        );
        let g = got(&line);
        assert_eq!(g.format, Format::Plain);
        assert_eq!(g.fields, some(&["ID"]));
    }

    #[test]
    fn json_time_keys_and_epochs() {
        let at = ms("2026-11-29T10:00:00Z");
        for (value, want) in [
            ("1795946400", Some(at)),
            ("1795946400.123", Some(at + 123)),
            ("1795946400.5", Some(at + 500)),
            ("1795946400123", Some(at + 123)),
            ("1795946400123.9", Some(at + 123)),
            ("1795946400123456", Some(at + 123)),
            ("1795946400123456789", Some(at + 123)),
            ("\"1795946400123\"", Some(at + 123)),
            ("\"2026-11-29T11:00:00+01:00\"", Some(at)),
            ("\"2026-11-29T10:00:00\"", Some(at)),
            ("-1795946400", None),
            ("1.7e9", None),
            ("17959464001234567890", None),
            ("\"yesterday\"", None),
            ("\"2026-02-30T10:00:00Z\"", None),
            ("null", None),
        ] {
            let line = format!(r#"{{"ts":{value},"id":"{ULID}"}}"#);
            assert_eq!(time(&line), want, "{value}");
        }
        for key in ["ts", "time", "timestamp", "@timestamp", "t", "date"] {
            let line = format!(r#"{{"{key}":"2026-11-29T10:00:00Z","id":"{ULID}"}}"#);
            assert_eq!(time(&line), Some(at), "{key}");
        }
        // Only top-level keys, and the first one that is a time.
        let nested = format!(r#"{{"ctx":{{"ts":1795946400}},"id":"{ULID}"}}"#);
        assert_eq!(time(&nested), None);
        let first_valid = format!(r#"{{"t":"GET","time":1795946400,"ts":1,"id":"{ULID}"}}"#);
        assert_eq!(time(&first_valid), Some(at));
    }

    // ----- logfmt

    #[test]
    fn logfmt_keys_and_lists() {
        let line = format!(
            r#"level=info ts=2019-12-12T15:00:08.325Z caller=compact.go:441 msg="compact blocks" ulid={ULID} sources="[{ULID2} {ULID3} {ULID}]" duration=2.8s"#
        );
        let g = got(&line);
        assert_eq!(g.format, Format::Logfmt);
        assert_eq!(g.fields, some(&["ulid", "sources", "sources", "sources"]));
        assert_eq!(g.time, Some(ms("2019-12-12T15:00:08.325Z")));
    }

    #[test]
    fn logfmt_keys_with_dots_dashes_and_quoted_text() {
        let line = format!(
            r#"x-request-id={UUID} ctx.order.id="{ULID}" msg="said \"hi\" to user {ULID2}" path=/var/log/pods/ns_web-7fd6786f4b-242cb_{UUID2}/0.log"#
        );
        let g = got(&line);
        assert_eq!(g.format, Format::Logfmt);
        assert_eq!(
            g.fields,
            some(&["x-request-id", "ctx.order.id", "msg", "path"])
        );
    }

    #[test]
    fn logfmt_time_keys() {
        let at = ms("2026-11-29T10:00:00Z");
        assert_eq!(
            time(&format!("time=2026-11-29T10:00:00Z id={ULID}")),
            Some(at)
        );
        assert_eq!(time(&format!("t=1795946400 id={ULID}")), Some(at));
        assert_eq!(time(&format!("t=\"1795946400000\" id={ULID}")), Some(at));
        assert_eq!(time(&format!("level=info id={ULID}")), None);
    }

    #[test]
    fn not_logfmt_when_a_token_is_not_a_pair() {
        let line = format!("level=info charged order {ULID}");
        let g = got(&line);
        assert_eq!(g.format, Format::Plain);
        assert_eq!(g.fields, some(&["order"]));
        // Unterminated quote.
        let g = got(&format!(r#"a=1 msg="order {ULID}"#));
        assert_eq!(g.format, Format::Plain);
    }

    // ----- Plain text fields

    #[test]
    fn plain_key_rules() {
        for (line, want) in [
            (format!("INFO order_id={ULID} done"), "order_id"),
            (format!("INFO order_id = {ULID}"), "order_id"),
            (format!("INFO ORDER={ULID} CUSTOMER=x"), "ORDER"),
            (format!("failed: order: {ULID}"), "order"),
            (format!(r#"got {{"order":"{ULID}"}} back"#), "order"),
            (format!(r#"got "order": "{ULID}" back"#), "order"),
            (
                format!(r#"msg "Volume for pod \"x\" (UID: \"{UUID}\")""#),
                "UID",
            ),
            (format!(r#"detail: \"order_id\":\"{ULID}\""#), "order_id"),
            (format!("[instance: {UUID}] VM Started"), "instance"),
            (format!("lookup key({ULID}) failed"), "key"),
            (format!("cache pods[{UUID}] stale"), "pods"),
            (format!("id=urn:uuid:{UUID}"), "id"),
            (
                format!("network-vif-plugged:{UUID} for x"),
                "network-vif-plugged",
            ),
            (format!("x-request.id={UUID}"), "x-request.id"),
            (format!("run --order_id={ULID}"), "order_id"),
        ] {
            assert_eq!(fields(&line), some(&[want]), "{line}");
        }
    }

    #[test]
    fn plain_kubelet_pod_names() {
        let line = format!("Killing pod=web-7b6bd9b949-x82q_shop({UUID}) now");
        assert_eq!(fields(&line), some(&["pod"]));
        let line = format!("start failed in pod web-7b6bd9b949-x82q_shop({UUID}), skip");
        assert_eq!(fields(&line), some(&["pod"]));
        let line = format!("3f9a1b2c7d-x({UUID})");
        assert_eq!(fields(&line), some(&[""]));
    }

    #[test]
    fn plain_glued_words() {
        for (line, want) in [
            (format!("[req-{UUID} - - -] ok"), "req"),
            (format!("loaded user_{ULID}"), "user"),
            (
                format!("com.apple.WebKit.Networking.{UUID}[33438]"),
                "Networking",
            ),
            (format!("order_item_{ULID}"), "item"),
        ] {
            assert_eq!(fields(&line), some(&[want]), "{line}");
        }
        // A glued hash is not a field; the path around it may be.
        let line = format!("open /var/log/pods/shop_web-7fd6786f4b-242cb_{UUID}/web/0.log");
        assert_eq!(fields(&line), some(&["pods"]));
        let line = format!("open web-7fd6786f4b-242cb_{UUID}");
        assert_eq!(fields(&line), some(&[""]));
    }

    #[test]
    fn plain_path_segments() {
        for (line, want) in [
            (
                format!(r#""GET /v2/servers/{UUID}/action HTTP/1.1" 200"#),
                "servers",
            ),
            (format!("POST /v1/users/{ULID}/orders 201"), "users"),
            (format!("rm kubernetes.io/secret/{UUID}-certs"), "secret"),
            (format!("watch /var/log/pods/*{UUID}/x/*.log"), "pods"),
            (format!("file //{UUID}/x"), ""),
            (format!("file /7fd6786f4b/{UUID}/x"), ""),
        ] {
            assert_eq!(fields(&line), some(&[want]), "{line}");
        }
    }

    #[test]
    fn plain_word_before() {
        for (line, want) in [
            (format!("charged order {ULID}"), "order"),
            (format!("processing for order {ULID} now"), "order"),
            (format!("Posted payment {{{UUID}}} for x"), "payment"),
            (format!("volume \"kubernetes\" pod \"{UUID}\""), "pod"),
            (format!("-- order. {ULID}"), "order"),
            (format!("status 200 {ULID}"), ""),
            (format!("took 0.144 {UUID}"), ""),
            (format!("hash 7fd6786f4b {UUID}"), ""),
            (format!("{ULID} at start"), ""),
            (format!("weird ({ULID})"), "weird"),
            (format!("x#{ULID}"), ""),
        ] {
            assert_eq!(fields(&line), some(&[want]), "{line}");
        }
    }

    #[test]
    fn plain_lists_inherit_only_keys() {
        assert_eq!(
            fields(&format!("ids: {ULID}, {ULID2}, {ULID3}")),
            some(&["ids", "ids", "ids"])
        );
        assert_eq!(
            fields(&format!(r#"batch merged sources="[{ULID} {ULID2}]" x"#)),
            some(&["sources", "sources"])
        );
        // OpenStack: `req-A USER TENANT`; the user and tenant are not requests.
        let line = format!(
            "2017-05-16 00:00:00.008 25746 INFO nova [req-{UUID} 113d3a99c3da401fbd62cc2caa5b96d2 54fadb412c4e40cdbaed9335e4c35a9e - - -] ok"
        );
        assert_eq!(fields(&line), some(&["req", "", ""]));
        // A word between two IDs breaks the list.
        assert_eq!(
            fields(&format!("order {ULID} for user {ULID2}")),
            some(&["order", "user"])
        );
        assert_eq!(
            fields(&format!("settlement {{{UUID}}}, payment {{{UUID2}}}")),
            some(&["settlement", "payment"])
        );
    }

    // ----- Plain text times

    #[test]
    fn plain_iso_times() {
        for (line, want) in [
            ("2026-11-29 10:00:00,123 INFO x", "2026-11-29T10:00:00.123Z"),
            ("2026-11-29 10:00:00.123 INFO x", "2026-11-29T10:00:00.123Z"),
            (
                "2026-11-29T10:00:00.123456789Z x",
                "2026-11-29T10:00:00.123Z",
            ),
            ("2026-11-29T10:00:00.1Z x", "2026-11-29T10:00:00.100Z"),
            ("2026-11-29t10:00:00z x", "2026-11-29T10:00:00Z"),
            ("2026-11-29T10:00:00+01:00 x", "2026-11-29T09:00:00Z"),
            ("2026-11-29T10:00:00-0130 x", "2026-11-29T11:30:00Z"),
            ("2026-11-29T10:00:00+01 x", "2026-11-29T09:00:00Z"),
            (
                "2026-11-29 10:05:02.801 UTC [billing-0] x",
                "2026-11-29T10:05:02.801Z",
            ),
            ("2026-11-29 10:00:00 +0200 x", "2026-11-29T08:00:00Z"),
            ("2016-09-28 04:30:30, Info CBS x", "2016-09-28T04:30:30Z"),
            ("[2026-11-29 10:00:00,5] x", "2026-11-29T10:00:00.500Z"),
            (
                "nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO",
                "2017-05-16T00:00:00.008Z",
            ),
            ("2024-02-29 23:59:60 leap", "2024-02-29T23:59:59Z"),
        ] {
            let line = format!("{line} {ULID}");
            assert_eq!(time(&line), Some(ms(want)), "{line}");
        }
    }

    #[test]
    fn plain_times_that_are_not() {
        for line in [
            "2026-02-30 10:00:00 Feb 30",
            "2026-02-29 10:00:00 not a leap year",
            "2026-11-29 24:00:00 hour 24",
            "2026-13-01 10:00:00 month 13",
            "2026-11-29 10:61:00 minute 61",
            "2026-11-29 10:00:00abc glued",
            "a b c d 2026-11-29 10:00:00 fifth token",
            "Feb 30 10:00:00 host x",
            "I0230 10:00:00.000001 x",
            "x [30/Feb/2026:10:00:00 +0000] y",
            "no time here",
        ] {
            let line = format!("{line} {ULID}");
            assert_eq!(time(&line), None, "{line}");
        }
    }

    #[test]
    fn syslog_klog_and_access_log_times() {
        for (line, want) in [
            ("Nov 29 10:00:00 host app[1]: x", "2026-11-29T10:00:00Z"),
            (
                "Jul  1 09:00:55 calvisitor kernel[0]: x",
                "2026-07-01T09:00:55Z",
            ),
            ("Jul 1 09:00:55 host x", "2026-07-01T09:00:55Z"),
            ("<34>Nov 29 10:00:00 host x", "2026-11-29T10:00:00Z"),
            (
                "<165>1 2026-11-29T10:00:00.003Z host x",
                "2026-11-29T10:00:00.003Z",
            ),
            (
                "I1129 10:00:00.123456    3224 kubelet.go:1] x",
                "2026-11-29T10:00:00.123Z",
            ),
            ("E0507 11:59:41.375655 x", "2026-05-07T11:59:41.375Z"),
            (
                r#"10.0.0.1 - - [29/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200"#,
                "2026-11-29T10:00:00Z",
            ),
            (
                r#"10.0.0.1 - [x] [29/Nov/2026:10:00:00 -0700] "GET /""#,
                "2026-11-29T17:00:00Z",
            ),
        ] {
            let line = format!("{line} {ULID}");
            assert_eq!(time(&line), Some(ms(want)), "{line}");
        }
    }

    #[test]
    fn year_less_times_across_new_year() {
        // The file was written early in January 2027: a December line is from 2026.
        let ctx = TimeContext::new(TimeZone::UTC, "2027-01-05T08:00:00Z".parse().unwrap());
        let at = |line: &str| analyse_with(format!("{line} {ULID}").as_bytes(), &ctx).time;
        assert_eq!(
            at("Dec 31 23:59:59 host x"),
            Some(ms("2026-12-31T23:59:59Z"))
        );
        assert_eq!(
            at("Jan  4 10:00:00 host x"),
            Some(ms("2027-01-04T10:00:00Z"))
        );
        assert_eq!(
            at("I1231 23:59:59.5 x"),
            Some(ms("2026-12-31T23:59:59.500Z"))
        );
        assert_eq!(
            at("I0105 07:00:00.000000 x"),
            Some(ms("2027-01-05T07:00:00Z"))
        );
        // The reference year is taken in the context's zone: the last hour of 2026 in UTC
        // is already 2027 two hours east.
        let east = TimeContext::new(
            TimeZone::fixed(offset(2)),
            "2026-12-31T23:00:00Z".parse().unwrap(),
        );
        let line = format!("Jan  1 00:30:00 host x {ULID}");
        assert_eq!(
            analyse_with(line.as_bytes(), &east).time,
            Some(ms("2027-01-01T00:30:00+02:00"))
        );
        // Feb 29 exists only in leap years.
        let leap = TimeContext::new(TimeZone::UTC, "2028-03-01T00:00:00Z".parse().unwrap());
        let line = format!("Feb 29 12:00:00 host x {ULID}");
        assert_eq!(
            analyse_with(line.as_bytes(), &leap).time,
            Some(ms("2028-02-29T12:00:00Z"))
        );
        assert_eq!(time(&line), None);
    }

    #[test]
    fn times_without_offset_use_the_context_zone() {
        let expect = |tz: &TimeZone, civil: &str| {
            civil
                .parse::<DateTime>()
                .unwrap()
                .to_zoned_datetime(tz.clone())
                .unwrap()
                .timestamp()
                .as_millisecond()
        };
        let reference: Timestamp = "2026-12-31T00:00:00Z".parse().unwrap();
        let fixed = TimeZone::fixed(offset(-5));
        let dst = TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap();
        for tz in [fixed, dst] {
            let ctx = TimeContext::new(tz.clone(), reference);
            for (line, civil) in [
                ("2026-07-01 12:00:00.250 x", "2026-07-01T12:00:00.250"),
                ("2026-01-15T08:30:00 x", "2026-01-15T08:30:00"),
                // In a gap of the daylight saving zone: the later offset.
                ("2026-03-29 02:30:00 x", "2026-03-29T02:30:00"),
                ("Jul  1 12:00:00 host x", "2026-07-01T12:00:00"),
                ("I0701 12:00:00.000000 x", "2026-07-01T12:00:00"),
            ] {
                let g = analyse_with(format!("{line} {ULID}").as_bytes(), &ctx);
                assert_eq!(g.time, Some(expect(&tz, civil)), "{line} in {tz:?}");
            }
            // Explicit offsets ignore the zone.
            let g = analyse_with(format!("2026-07-01T12:00:00Z {ULID}").as_bytes(), &ctx);
            assert_eq!(g.time, Some(ms("2026-07-01T12:00:00Z")));
            let g = analyse_with(
                format!(r#"{{"ts":1795946400,"id":"{ULID}"}}"#).as_bytes(),
                &ctx,
            );
            assert_eq!(g.time, Some(ms("2026-11-29T10:00:00Z")));
        }
    }

    #[test]
    fn time_only_when_wanted() {
        let line = format!("2026-11-29 10:00:00 order {ULID}");
        let mut spans = Vec::new();
        scan::for_each_token(line.as_bytes(), |hit| spans.push((hit.start, hit.end)));
        let mut out = Analysis::default();
        analyse(line.as_bytes(), &spans, false, &utc(), &mut out);
        assert_eq!(out.time_ms(), None);
        assert_eq!(out.field(0), Some(&b"order"[..]));
        assert_eq!(out.field(1), None);
    }

    // ----- Robustness

    #[test]
    fn analysis_is_reused_across_lines() {
        let mut out = Analysis::default();
        let ctx = utc();
        let first = format!(r#"{{"ts":1795946400,"a":"{ULID}","b":"{ULID2}"}}"#);
        let second = format!("order {ULID}");
        let at = |line: &str, id: &str| {
            let start = line.find(id).unwrap();
            (start, start + id.len())
        };
        let spans = [at(&first, ULID), at(&first, ULID2)];
        analyse(first.as_bytes(), &spans, true, &ctx, &mut out);
        assert_eq!(out.format(), Format::Json);
        assert_eq!(out.field(1), Some(&b"b"[..]));
        assert!(out.time_ms().is_some());
        analyse(
            second.as_bytes(),
            &[at(&second, ULID)],
            true,
            &ctx,
            &mut out,
        );
        assert_eq!(out.format(), Format::Plain);
        assert_eq!(out.field(0), Some(&b"order"[..]));
        assert_eq!(out.field(1), None);
        assert_eq!(out.time_ms(), None);
    }

    #[test]
    fn non_utf8_and_line_endings() {
        let mut line = b"{\"msg\":\"\xff\xfe charged ".to_vec();
        line.extend_from_slice(ULID.as_bytes());
        line.extend_from_slice(b"\"}");
        let g = analyse_with(&line, &utc());
        assert_eq!(g.format, Format::Json);
        assert_eq!(g.fields, some(&["msg"]));

        let mut line = b"\xc3\x28 order ".to_vec();
        line.extend_from_slice(ULID.as_bytes());
        assert_eq!(analyse_with(&line, &utc()).fields, some(&["order"]));

        // A CR that was not stripped counts as a blank after a JSON object.
        let line = format!("{{\"order\":\"{ULID}\"}}\r");
        assert_eq!(got(&line).format, Format::Json);
        // A logfmt line with CRLF already stripped.
        let g = got(&format!("ts=2026-11-29T10:00:00Z order={ULID}"));
        assert_eq!(g.format, Format::Logfmt);
        assert_eq!(g.time, Some(ms("2026-11-29T10:00:00Z")));
    }

    #[test]
    fn huge_lines() {
        let filler = "x".repeat(1 << 20);
        let line = format!(r#"{{"pad":"{filler}","deep":{{"order":"{ULID}"}}}}"#);
        assert_eq!(fields(&line), some(&["deep.order"]));

        let line = format!("{filler} {ULID} {filler}={ULID2} /{filler}/{ULID3}");
        assert_eq!(fields(&line), some(&["", "", ""]));

        let depth = 100_000;
        let line = format!(
            r#"{{"a":{}"{ULID}"{}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let g = got(&line);
        assert_eq!(g.format, Format::Json);
        // `a` and 100,000 `[]` is past the longest path that names a field.
        assert_eq!(g.fields, vec![None]);
        let unclosed = format!(r#"{{"a":{}"{ULID}"}}"#, "[".repeat(depth));
        assert_eq!(got(&unclosed).format, Format::Plain);
    }

    /// Deterministic xorshift, so a failure can be replayed.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        let pieces: [&[u8]; 24] = [
            b"{",
            b"}",
            b"[",
            b"]",
            b"\"",
            b":",
            b",",
            b"=",
            b" ",
            b"\\",
            b"\\u",
            b"/",
            b"-",
            b"_",
            b"(",
            b")",
            b"<",
            b">",
            b"2026-11-29T10:00:00",
            b"Nov 29 10:00:00 ",
            b"I1129 10:00:00.1 ",
            b"[29/Nov/2026:10:00:00 +0000]",
            ULID.as_bytes(),
            UUID.as_bytes(),
        ];
        let ctx = utc();
        let named = TimeContext::new(
            TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap(),
            "2026-01-01T00:00:00Z".parse().unwrap(),
        );
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut out = Analysis::default();
        let mut buffers = PairBuffers::default();
        let mut line = Vec::new();
        let mut spans = Vec::new();
        for round in 0..30_000 {
            line.clear();
            for _ in 0..rng.below(40) {
                if rng.below(3) == 0 {
                    line.push(rng.next() as u8);
                } else {
                    line.extend_from_slice(pieces[rng.below(pieces.len())]);
                }
            }
            spans.clear();
            scan::for_each_token(&line, |hit| spans.push((hit.start, hit.end)));
            let ctx = if round % 2 == 0 { &ctx } else { &named };
            analyse(&line, &spans, true, ctx, &mut out);
            for i in 0..spans.len() {
                let _ = out.field(i);
            }
            for_each_pair(&line, &mut buffers, |_, _| {});
        }
    }

    /// A JSON key path or logfmt key names a field up to 256 bytes, and no longer: so a long
    /// key over many IDs or deep nesting costs each ID at most that much.
    #[test]
    fn field_names_end_at_256_bytes() {
        let key = |n: usize| "k".repeat(n);
        for (n, named) in [(1, true), (256, true), (257, false), (5000, false)] {
            let want = named.then(|| key(n));
            let json = format!(r#"{{"{}":["{ULID}","{ULID2}"]}}"#, key(n));
            // The path of an array's members adds `[]`, past the bound for a 256-byte key.
            let field = want
                .as_ref()
                .map(|k| format!("{k}[]"))
                .filter(|p| p.len() <= 256);
            assert_eq!(fields(&json), vec![field.clone(), field], "json {n}");
            let logfmt = format!(r#"{}="{ULID} {ULID2}" ts=1"#, key(n));
            assert_eq!(
                fields(&logfmt),
                vec![want.clone(), want.clone()],
                "logfmt {n}"
            );
            let shown: Vec<String> = pairs(&logfmt).into_iter().map(|(k, _)| k).collect();
            let expected: Vec<String> = want.iter().cloned().chain(["ts".to_string()]).collect();
            assert_eq!(shown, expected, "pairs {n}");
        }
        // Exactly 256 bytes names a field, 257 does not, the `[]` of an array's members
        // included.
        for (n, named) in [(254, true), (255, false)] {
            let json = format!(r#"{{"{}":["{ULID}"]}}"#, key(n));
            let want = named.then(|| format!("{}[]", key(n)));
            assert_eq!(fields(&json), vec![want], "array key {n}");
        }
        // The bound is on the unescaped name: `\u00e9` is six bytes written, two read.
        for (n, named) in [(128, true), (129, false)] {
            let json = format!(r#"{{"{}":"{ULID}"}}"#, r"\u00e9".repeat(n));
            let want = named.then(|| "\u{e9}".repeat(n));
            assert_eq!(fields(&json), vec![want], "escaped key {n}");
        }
        // The path counts every level: 127 levels of `a` and a key `k` is 255 bytes, one more
        // level is past the bound.
        for (depth, named) in [(127, true), (128, false), (20_000, false)] {
            let line = format!(
                r#"{}{{"k":"{ULID}"}}{}"#,
                r#"{"a":"#.repeat(depth),
                "}".repeat(depth)
            );
            let want = named.then(|| "a.".repeat(depth) + "k");
            let deepest = pairs(&line)
                .into_iter()
                .map(|(k, _)| k)
                .max_by_key(String::len);
            assert_eq!(fields(&line), vec![want.clone()], "depth {depth}");
            if named {
                assert_eq!(deepest, want, "depth {depth}");
            } else {
                assert!(
                    deepest.is_some_and(|k| k.len() <= MAX_FIELD),
                    "depth {depth}"
                );
            }
        }
    }

    // ----- Pairs

    fn pairs(line: &str) -> Vec<(String, String)> {
        let mut buffers = PairBuffers::default();
        let mut all = Vec::new();
        for_each_pair(line.as_bytes(), &mut buffers, |key, value| {
            let shown = match value {
                Value::Str(s) => format!("str {}", String::from_utf8_lossy(s)),
                Value::Int(s) => format!("int {}", String::from_utf8_lossy(s)),
                Value::Number(s) => format!("num {}", String::from_utf8_lossy(s)),
                Value::Null => "null".to_string(),
                Value::Bool(b) => format!("bool {b}"),
                Value::Other => "other".to_string(),
            };
            all.push((String::from_utf8_lossy(key).into_owned(), shown));
        });
        all
    }

    fn expect(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn json_pairs() {
        let line = format!(
            r#"{{"order_id":"{ULID}","user_id":0,"batch_id":"","parent_id":null,"job_id":1001,"ok":true,"amount":-1.5e2,"ctx":{{"trace_id":"a\"b\u0041"}},"ids":["{ULID2}",7]}}"#
        );
        assert_eq!(
            pairs(&line),
            expect(&[
                ("order_id", &format!("str {ULID}")),
                ("user_id", "int 0"),
                ("batch_id", "str "),
                ("parent_id", "null"),
                ("job_id", "int 1001"),
                ("ok", "bool true"),
                ("amount", "num -1.5e2"),
                ("ctx", "other"),
                ("ctx.trace_id", "str a\"bA"),
                ("ids", "other"),
                ("ids[]", &format!("str {ULID2}")),
                ("ids[]", "int 7"),
            ])
        );
        // After a prefix too.
        let line = r#"2026-11-29T10:00:00Z stdout F {"user_id":0}"#;
        assert_eq!(pairs(line), expect(&[("user_id", "int 0")]));
    }

    #[test]
    fn logfmt_pairs() {
        let line = r#"ts=2026-11-29T10:00:00Z order_id=0 user_id="" parent_id=null batch_id=<nil> ok=false amount=1.5 msg="a \"b\" c" empty="#;
        assert_eq!(
            pairs(line),
            expect(&[
                ("ts", "str 2026-11-29T10:00:00Z"),
                ("order_id", "int 0"),
                ("user_id", "str "),
                ("parent_id", "null"),
                ("batch_id", "null"),
                ("ok", "bool false"),
                ("amount", "num 1.5"),
                ("msg", "str a \"b\" c"),
                ("empty", "str "),
            ])
        );
    }

    #[test]
    fn plain_pairs() {
        let line = format!(
            r#"I1129 10:00:00.1 x.go:1] "Done" podUID="{UUID}" job_id=1001, (bin=0) event={{"ID":"","Code":null}} note: ignored a==b url=/x?order_id=7&user_id=8"#
        );
        assert_eq!(
            pairs(&line),
            expect(&[
                ("podUID", &format!("str {UUID}")),
                ("job_id", "int 1001"),
                ("bin", "int 0"),
                ("event", "other"),
                ("ID", "str "),
                ("Code", "null"),
                ("url", "str /x?order_id=7&user_id=8"),
            ])
        );
        let escaped = format!(r#"msg="detail: \"order_id\":\"{ULID}\", \"n\": 0" x"#);
        assert_eq!(
            pairs(&escaped),
            expect(&[(
                "msg",
                &format!(r#"str detail: "order_id":"{ULID}", "n": 0"#)
            )])
        );
    }
}
