//! JSON records: the walker that reads a line's object without building it, and the JSON
//! field and time rules it serves.
//!
//! A line is JSON when it ends with `}` and holds one object that runs to the end of the line,
//! either from its first byte or after a text prefix (`2026-11-29T10:00:00Z stdout F {...}`
//! from container runtimes), where the object's `{` follows a blank and is followed by `"`.
//! The field of an occurrence is the key path of the value holding it: `order_id`,
//! `ctx.batch_id` for nested objects, `sources[]` for array members (`a.b[]`, `items[].sku`),
//! whether the ID is the whole string or sits in text (`"msg":"charged order 01kb..."` gives
//! `msg`). Keys are unescaped (`\"`, `\u0041`). An ID in a key gets the path of the object
//! holding that key (none at the top level). The walker is lenient about raw control bytes
//! and invalid UTF-8 inside strings; any other departure from JSON makes the line text.
//!
//! The byte scans here ([`scan_until`]) also serve logfmt and the words before a plain
//! line's time, and the walker also serves [`super::for_each_pair`].

use memchr::memchr;

use crate::id::trace::may_key_trace_value;

use super::line_time::{LineTime, epoch_time, time_value};
use super::pairs::KeyedValues;
use super::{Analysis, MAX_FIELD, TimeContext, Value, is_blank, is_time_key, spans_within};

#[derive(Clone, Debug, Default)]
pub(super) struct JsonScratch {
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
pub(super) struct Path<'a> {
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
    pub(super) fn write(&self, out: &mut Vec<u8>) -> bool {
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

impl Path<'_> {
    /// Whether the value's key (the last key of its path) may name a trace or span value
    /// ([`may_key_trace_value`]), read from the raw key: an escaped key may (its escapes are
    /// decoded only when the path is written, and the written path is checked again).
    #[inline(always)]
    fn last_key_may_trace(&self) -> bool {
        match self.frames.iter().rev().find(|frame| frame.object) {
            Some(frame) if frame.escaped => true,
            Some(frame) => may_key_trace_value(&self.line[frame.key.0..frame.key.1]),
            None => false,
        }
    }

    /// Whether the value here is the line's time: a top-level time key, MongoDB's
    /// `{"t":{"$date":...}}`, or an OpenTelemetry log record's time at any depth (OTLP JSON
    /// nests its records in `resourceLogs[].scopeLogs[].logRecords[]`).
    fn is_time(&self) -> bool {
        match self.frames {
            [_] => self.top_key().is_some_and(is_time_key) || self.is_log_record_time(),
            [top, inner] if self.last_key && top.object && inner.object => {
                (!top.escaped
                    && !inner.escaped
                    && &self.line[inner.key.0..inner.key.1] == b"$date"
                    && is_time_key(&self.line[top.key.0..top.key.1]))
                    || self.is_log_record_time()
            }
            _ => self.is_log_record_time(),
        }
    }

    /// Whether the value here is an OpenTelemetry log record's time: a test cheap enough for
    /// every value of a line still without a time.
    #[inline(always)]
    fn is_log_record_time(&self) -> bool {
        self.log_record_time().is_some()
    }

    /// Which of an OpenTelemetry log record's times the value here is, if one.
    #[inline(always)]
    fn log_record_time(&self) -> Option<RecordTime> {
        match self.frames.last() {
            Some(frame) if self.last_key && frame.object && !frame.escaped => {
                let key = &self.line[frame.key.0..frame.key.1];
                if key.len() == EVENT_TIME.len() && key.eq_ignore_ascii_case(EVENT_TIME) {
                    Some(RecordTime::Event)
                } else if key.len() == OBSERVED_TIME.len()
                    && key.eq_ignore_ascii_case(OBSERVED_TIME)
                {
                    Some(RecordTime::Observed)
                } else {
                    None
                }
            }
            _ => None,
        }
    }
}

/// An OpenTelemetry log record's time, and the time its collector received it.
const EVENT_TIME: &[u8] = b"timeUnixNano";
const OBSERVED_TIME: &[u8] = b"observedTimeUnixNano";

/// The two times of an OpenTelemetry log record.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RecordTime {
    /// `timeUnixNano`: when the event happened.
    Event,
    /// `observedTimeUnixNano`: when the collector received it, the record's time only where
    /// the record has none.
    Observed,
}

/// What the JSON walker reports to, in line order. The walker calls these for every key and
/// value, so implementations keep them small and inlined, with a cheap test before any work.
pub(super) trait Visit {
    /// A key, `start..end` without its quotes, in the object at `parent`.
    fn key(&mut self, parent: Path<'_>, start: usize, end: usize);

    /// A value at `path`: a string's bytes (raw, `escaped` if they hold a backslash) without
    /// quotes, or the whole token; for an object or array ([`Value::Other`]) its opening byte.
    fn value(&mut self, path: Path<'_>, value: Value<'_>, escaped: bool, start: usize, end: usize);
}

/// Only checks that a line is JSON.
pub(super) struct Validate;

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
pub(super) fn json_start(line: &[u8]) -> Option<usize> {
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
pub(super) fn walk_json(
    line: &[u8],
    open: usize,
    scratch: &mut JsonScratch,
    visit: &mut impl Visit,
) -> bool {
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
pub(super) struct Stops {
    pub(super) bytes: &'static [u8],
    pub(super) controls: bool,
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
pub(super) fn scan_until(line: &[u8], mut i: usize, stops: Stops) -> usize {
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
pub(super) fn find_quote_or_backslash(line: &[u8], i: usize) -> Option<usize> {
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
pub(super) fn scan_number(line: &[u8], mut i: usize) -> Option<(usize, bool)> {
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
pub(super) fn unescape(raw: &[u8], out: &mut Vec<u8>) {
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

pub(super) fn analyse_json(
    line: &[u8],
    open: usize,
    spans: &[(usize, usize)],
    want_time: bool,
    ctx: &TimeContext,
    out: &mut Analysis,
    trace_values: bool,
) -> bool {
    let Analysis {
        time,
        names,
        fields,
        json,
        keyed,
        ..
    } = out;
    let mut visit = JsonFields {
        spans,
        next: 0,
        next_start: usize::MAX,
        names,
        fields,
        time,
        want_time,
        ctx,
        keyed: trace_values.then_some(keyed),
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
    time: &'a mut Option<LineTime>,
    /// Still looking for the time.
    want_time: bool,
    ctx: &'a TimeContext,
    /// Where the values of trace and span keys go, when they are wanted.
    keyed: Option<&'a mut KeyedValues>,
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
        if !path.is_time() {
            return;
        }
        let record_time = path.log_record_time();
        let found = match value {
            // OpenTelemetry writes 0 for a record whose time is unknown.
            Value::Str(b"0") | Value::Int(b"0") if record_time.is_some() => None,
            Value::Str(raw) => time_value(raw, self.ctx),
            Value::Int(raw) | Value::Number(raw) => epoch_time(raw),
            _ => None,
        };
        if record_time == Some(RecordTime::Observed) {
            // OpenTelemetry's rule: the observed time stands in for a missing time, so any
            // time key after it still wins.
            if self.time.is_none() {
                *self.time = found;
            }
        } else if found.is_some() {
            *self.time = found;
            self.want_time = false;
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
    fn value(&mut self, path: Path<'_>, value: Value<'_>, escaped: bool, start: usize, end: usize) {
        // A value that is one of the line's ID tokens whole (a ULID, a UUID) holds no trace
        // value the key's check would find.
        let is_token = self.next_start == start && self.spans[self.next].1 == end;
        if self.next_start < end {
            self.name(path, start, end);
        }
        // The value's length first: a 32-hex value, a token the walk has already, is left
        // out whatever its key, and the key's check costs more.
        if let Some(keyed) = &mut self.keyed
            && !is_token
            && let Value::Str(raw) | Value::Int(raw) | Value::Number(raw) = value
            && (escaped || !KeyedValues::is_token_length(raw))
            && path.last_key_may_trace()
        {
            keyed.push_json(path, raw, escaped);
        }
        if self.want_time && (path.frames.len() <= 2 || path.is_log_record_time()) {
            self.time(path, value);
        }
    }
}
