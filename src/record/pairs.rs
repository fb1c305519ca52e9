//! Every key and its value on a line, for audits: unlike the fields of [`super::Analysis`],
//! these include keys whose value is not an ID (`0`, `""`, `null`).

use memchr::{memchr, memchr2};

use crate::id::trace::may_key_trace_value;

use super::json::{
    JsonScratch, Path, Validate, Visit, json_start, scan_number, unescape, walk_json,
};
use super::logfmt::{Pair, scan_quoted, walk_logfmt};
use super::plain::{MAX_WORD, is_opener, is_word_byte, skip_back};
use super::{MAX_FIELD, Value, is_blank, skip_blank};

/// Reusable buffers for [`for_each_pair`].
#[derive(Clone, Debug, Default)]
pub struct PairBuffers {
    json: JsonScratch,
    path: Vec<u8>,
    text: Vec<u8>,
}

/// Calls `f` with every key and its value on `line`, in order, so that audits can see keys
/// whose value is not an ID (`0`, `""`, `null`). JSON (after an optional prefix, with the same
/// test as [`analyse`](super::analyse)): every member at its key path (`a.b`, `a.ids[]`),
/// containers as [`Value::Other`] before their members. logfmt: every pair. Plain text:
/// `key=value` (a quoted value, or a bare one up to a blank or `,;)]}"`) and JSON-style
/// `"key": value` members found in the text; `key: value` without quotes is too common in
/// prose to count.
pub fn for_each_pair(line: &[u8], buffers: &mut PairBuffers, f: impl FnMut(&[u8], Value<'_>)) {
    pairs_of(line, buffers, false, f);
}

/// [`for_each_pair`], and in plain text also `key: value` with a bare key: what `ids` reads
/// for the values of trace and span keys ([`super::analyse_hits_with_trace_values`]).
pub fn for_each_pair_with_bare_keys(
    line: &[u8],
    buffers: &mut PairBuffers,
    f: impl FnMut(&[u8], Value<'_>),
) {
    pairs_of(line, buffers, true, f);
}

fn pairs_of(
    line: &[u8],
    buffers: &mut PairBuffers,
    bare_colon: bool,
    mut f: impl FnMut(&[u8], Value<'_>),
) {
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
        walk_logfmt(line, |pair| logfmt_pair(line, pair, text, &mut f));
        return;
    }
    text_pairs(line, bare_colon, text, &mut f);
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

/// The string and number values of the keys that may name trace and span values, collected
/// while a line is analysed ([`super::analyse_hits_with_trace_values`]): what
/// [`for_each_pair`] would give for those keys, without walking the line again. Numbers
/// count as written: a bare span ID such as `1e51234567890123` reads as one. Values 32 bytes
/// long are left out ([`KeyedValues::is_token_length`]).
#[derive(Clone, Debug, Default)]
pub(super) struct KeyedValues {
    /// Each key followed by its value (escapes decoded).
    bytes: Vec<u8>,
    /// Where each key starts, where its value starts, and where that ends, in `bytes`.
    pairs: Vec<(usize, usize, usize)>,
}

impl KeyedValues {
    /// Whether a value this long is left out: 32 hex digits are a token of the line, counted
    /// with its other tokens, and nothing else that long is a trace or span value (a decimal
    /// has at most 20 digits, a span 16 hex, an X-Ray ID 35 bytes).
    pub(super) fn is_token_length(value: &[u8]) -> bool {
        value.len() == crate::id::UUID_UNDASHED_LEN
    }

    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.pairs.clear();
    }

    pub(super) fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Every key and its value, in line order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.pairs
            .iter()
            .map(|&(key, value, end)| (&self.bytes[key..value], &self.bytes[value..end]))
    }

    /// Adds the value at the JSON path `path` if the path may name a trace or span value
    /// ([`may_key_trace_value`]), as [`JsonPairs`] gives it (a key path longer than
    /// [`MAX_FIELD`] gives none). The walk has left out unescaped values of a token's length
    /// ([`KeyedValues::is_token_length`]); an escaped one is checked once decoded, as an
    /// escape only shortens a value.
    #[inline(never)]
    pub(super) fn push_json(&mut self, path: Path<'_>, raw: &[u8], escaped: bool) {
        let key = self.bytes.len();
        if !path.write(&mut self.bytes) || !may_key_trace_value(&self.bytes[key..]) {
            self.bytes.truncate(key);
            return;
        }
        let value = self.bytes.len();
        if escaped {
            unescape(raw, &mut self.bytes);
            if Self::is_token_length(&self.bytes[value..]) {
                self.bytes.truncate(key);
                return;
            }
        } else {
            self.bytes.extend_from_slice(raw);
        }
        self.pairs.push((key, value, self.bytes.len()));
    }

    /// Adds a text or logfmt value, as [`for_each_pair`] reports it, if it is a string or a
    /// number and its key may name a trace or span value.
    pub(super) fn push_text(&mut self, key: &[u8], value: Value<'_>) {
        let (Value::Str(raw) | Value::Int(raw) | Value::Number(raw)) = value else {
            return;
        };
        if Self::is_token_length(raw) || !may_key_trace_value(key) {
            return;
        }
        let at = self.bytes.len();
        self.bytes.extend_from_slice(key);
        self.bytes.extend_from_slice(raw);
        self.pairs.push((at, at + key.len(), self.bytes.len()));
    }
}

/// The logfmt pair `pair` of `line` as [`for_each_pair`] reports it.
pub(super) fn logfmt_pair(
    line: &[u8],
    pair: Pair,
    text: &mut Vec<u8>,
    f: &mut impl FnMut(&[u8], Value<'_>),
) {
    let key = &line[pair.key.0..pair.key.1];
    let raw = &line[pair.value.0..pair.value.1];
    if key.len() <= MAX_FIELD {
        report_text_value(key, raw, pair.quoted, pair.escaped, text, f);
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
pub(super) fn text_pairs(
    line: &[u8],
    bare_colon: bool,
    text: &mut Vec<u8>,
    f: &mut impl FnMut(&[u8], Value<'_>),
) {
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
        } else if bare_colon && p > 0 && line[p - 1] != b'"' {
            // `key: value` in text, or `key : value`, where the caller asks for it.
            let end = if line[p - 1] == b' ' { p - 1 } else { p };
            let a = skip_back(line, end, is_word_byte, MAX_WORD + 1);
            let boundary = a == 0 || !line[a - 1].is_ascii_graphic() || is_opener(line[a - 1]);
            if a == end || end - a > MAX_WORD || !boundary {
                continue;
            }
            (a, end)
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
            if a >= b
                || b - a > MAX_FIELD
                || line[a..b].iter().any(|&c| !is_word_byte(c) && c != b'@')
            {
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
