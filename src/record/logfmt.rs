//! logfmt records: the whole line is blank-separated `key=value` or `key="quoted value"`
//! pairs. The field is the key, for every ID inside the value (`sources="[X Y Z]"` gives
//! `sources` three times).

use memchr::memchr2;

use crate::id::trace::may_key_trace_value;

use super::json::{Stops, scan_until};
use super::line_time::time_value;
use super::pairs::logfmt_pair;
use super::{Analysis, MAX_FIELD, TimeContext, is_blank, is_time_key, skip_blank, spans_within};

/// One `key=value` pair: byte ranges, a quoted value without its quotes.
#[derive(Clone, Copy)]
pub(super) struct Pair {
    pub(super) key: (usize, usize),
    pub(super) value: (usize, usize),
    pub(super) quoted: bool,
    pub(super) escaped: bool,
}

/// The end of a logfmt key that starts at `i`: the first blank or control byte, `=` or `"`.
pub(super) fn key_end(line: &[u8], i: usize) -> usize {
    let stops = Stops {
        bytes: b"=\"",
        controls: true,
    };
    scan_until(line, i, stops)
}

/// The first blank at or after `i`: the end of an unquoted logfmt value, or of a word of a
/// plain line.
pub(super) fn blank_at_or_after(line: &[u8], i: usize) -> usize {
    let stops = Stops {
        bytes: b" \t",
        controls: false,
    };
    scan_until(line, i, stops)
}

/// Walks the line as logfmt; true if all of it is pairs (at least one). Pairs before a
/// failure have been reported already.
pub(super) fn walk_logfmt(line: &[u8], mut on: impl FnMut(Pair)) -> bool {
    let mut i = skip_blank(line, 0);
    if i == line.len() {
        return false;
    }
    while i < line.len() {
        let Some((pair, end)) = pair_at(line, i) else {
            return false;
        };
        on(pair);
        i = skip_blank(line, end);
    }
    true
}

/// The pair that starts at `i`, `key=value` or `key="quoted value"` followed by a blank or
/// the line's end, and where it ends; `None` when the bytes there are no pair.
#[inline(always)]
pub(super) fn pair_at(line: &[u8], i: usize) -> Option<(Pair, usize)> {
    let n = line.len();
    let equals = key_end(line, i);
    if equals == i || equals == n || line[equals] != b'=' {
        return None;
    }
    let key = (i, equals);
    let value = equals + 1;
    if line.get(value) == Some(&b'"') {
        let (close, escaped) = scan_quoted(line, value + 1, b'"')?;
        let end = close + 1;
        if end < n && !is_blank(line[end]) {
            return None;
        }
        let pair = Pair {
            key,
            value: (value + 1, close),
            quoted: true,
            escaped,
        };
        Some((pair, end))
    } else {
        let end = blank_at_or_after(line, value);
        let pair = Pair {
            key,
            value: (value, end),
            quoted: false,
            escaped: false,
        };
        Some((pair, end))
    }
}

/// From just after an opening `quote`: the index of the closing one (a backslash escapes any
/// byte), and whether there was a backslash.
pub(super) fn scan_quoted(line: &[u8], mut i: usize, quote: u8) -> Option<(usize, bool)> {
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

pub(super) fn analyse_logfmt(
    line: &[u8],
    spans: &[(usize, usize)],
    want_time: bool,
    ctx: &TimeContext,
    out: &mut Analysis,
    trace_values: bool,
) -> bool {
    let mut next = 0;
    walk_logfmt(line, |pair| {
        // A value that is one of the line's ID tokens whole (a ULID, a UUID) holds no trace
        // value, whatever its key.
        if trace_values
            && spans.get(next) != Some(&pair.value)
            && may_key_trace_value(&line[pair.key.0..pair.key.1])
        {
            let Analysis { keyed, text, .. } = &mut *out;
            logfmt_pair(line, pair, text, &mut |key, value| {
                keyed.push_text(key, value)
            });
        }
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
        if want_time && out.time.is_none() && is_time_key(key) {
            out.time = time_value(&line[pair.value.0..pair.value.1], ctx);
        }
    })
}
