//! Plain text records, anything neither JSON nor logfmt, and the text before a JSON object.
//! Per occurrence, the first rule that applies gives its field:
//! 1. `key=ID`, `key: ID`, `"key":"ID"`, `[key: ID]`, `\"key\": \"ID\"`: the key before the
//!    `=` or `:` (quotes, brackets and blanks between are skipped). A `urn:uuid:` before the
//!    ID counts as part of it, and so does a `traceparent` value around its trace and span
//!    IDs (`traceparent: 00-<trace>-<span>-01` gives `traceparent` to both).
//! 2. `key(ID)`, `key[ID]`: the word before the bracket, except after `=`: the kubelet's
//!    `pod=name_ns(ID)` gives `pod`, since the word is a name, not a field; and a generated
//!    name (one with a hash-like part: `in pod web-7b6bd9b949-x82q_ns(ID)`) gives the word
//!    before it (`pod`), or no field.
//! 3. `req-ID`, `user_ID`, `Networking.ID`: the letters and digits glued on with `-`, `_` or
//!    `.`, unless they look like an ID or a number themselves (below).
//! 4. `/servers/ID`, `/pods/ns_pod_ID/`: the path segment before the one holding the ID.
//! 5. After another occurrence and only separators (`[A B C]`, `A, B`): the field of that
//!    one, if it came from a key (rules 1, 2 or this one), since such lists share their key.
//!    A field from a name (`[req-A B C]` in OpenStack) is not passed on.
//! 6. `order ID`, `for order ID`, `payment {ID}`: the word before, quotes and brackets
//!    skipped.
//!
//! A word is a run of ASCII letters, digits, `_`, `.` and `-` (at most 128 bytes), with `.`,
//! `-` and `_` trimmed off its ends. It must hold a letter and must not look like an ID or a
//! number: a word of 5 or more bytes made only of hex digits and separators with at least
//! one digit (`242cb`, `7fd6786f4b`, `0.144`) gives no field, nor does a word that is a
//! previous occurrence itself.

use super::{Analysis, is_blank};

/// Longest word the rules look back over; longer runs are not field names, and the bound
/// keeps the backward walks short on huge lines.
pub(super) const MAX_WORD: usize = 128;

pub(super) fn is_word_byte(b: u8) -> bool {
    BYTE_CLASS[b as usize] & WORD != 0
}

/// Bytes that may stand between a key and its value, or before a word: quotes, opening
/// brackets and the backslash of an escaped quote.
pub(super) fn is_opener(b: u8) -> bool {
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
pub(super) fn assign_plain(
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

/// Where the value that holds the occurrence `line[start..end]` starts: before a `urn:uuid:`,
/// and at a `traceparent` value's version when the occurrence is its trace (32 hex) or its
/// span (16 hex).
fn value_start(line: &[u8], start: usize, end: usize) -> usize {
    use crate::id::trace_value::traceparent_around;
    if crate::id::has_urn_prefix(line, start) {
        return start - crate::id::URN_PREFIX.len();
    }
    let trace_at = match end - start {
        crate::id::UUID_UNDASHED_LEN => Some(start),
        // `<trace>-<span>`: the span's trace ends at the `-` before it.
        crate::id::trace::SPAN_HEX_LEN => start.checked_sub(crate::id::UUID_UNDASHED_LEN + 1),
        _ => None,
    };
    trace_at
        .and_then(|at| traceparent_around(line, at, at + crate::id::UUID_UNDASHED_LEN))
        .map_or(start, |header| header.start)
}

fn plain_field(line: &[u8], spans: &[(usize, usize)], k: usize, previous_is_key: bool) -> Source {
    let start = value_start(line, spans[k].0, spans[k].1);
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
pub(super) fn skip_back(line: &[u8], end: usize, f: impl Fn(u8) -> bool, max: usize) -> usize {
    let mut i = end;
    while i > 0 && end - i < max && f(line[i - 1]) {
        i -= 1;
    }
    i
}
