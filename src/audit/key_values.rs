//! Values under id-like keys that are not ID tokens (`job_id=1180`, `"user_id":""`,
//! `parent_id=0`): which keys name an ID, which values are integers or nil, and the cheap
//! per-chunk filter that finds the lines that may hold them, on top of
//! [`keys::for_each_key_end`].

use memchr::{memchr, memrchr};

use crate::search::{self, Chunk};

use super::rules::NilKind;
use crate::record::keys;

/// True for keys that name an entity's ID: `id`, `*_id`, `*Id`, `*ID`, judged on the last
/// segment of a key path (`ctx.user_id`, `items[].id`). Left out, since their integers are
/// no entity keys: the IDs of things that are not entities ([`NOT_ENTITIES`]: `thread_id`,
/// `shard_id`, `partition_id`, `worker_id`, Windows' `EventID`, ...). JSON-RPC's `"id": 1`
/// is left out by [`is_jsonrpc`].
pub(super) fn is_id_key(key: &[u8]) -> bool {
    let key = key.strip_suffix(b"[]").unwrap_or(key);
    let key = match memrchr(b'.', key) {
        Some(dot) => &key[dot + 1..],
        None => key,
    };
    let key = key.strip_suffix(b"[]").unwrap_or(key);
    if key.eq_ignore_ascii_case(b"id") {
        return true;
    }
    let Some(name) = key
        .strip_suffix(b"_id")
        .or_else(|| key.strip_suffix(b"_ID"))
        .or_else(|| (key.len() > 2).then(|| key.strip_suffix(b"Id")).flatten())
        .or_else(|| (key.len() > 2).then(|| key.strip_suffix(b"ID")).flatten())
    else {
        return false;
    };
    let word = last_word(name);
    !NOT_ENTITIES.iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// Whether `line` is a JSON-RPC message, whose top-level `id` numbers the request, not an
/// entity.
pub(super) fn is_jsonrpc(line: &[u8]) -> bool {
    memchr::memmem::find(line, b"\"jsonrpc\"").is_some()
}

/// Words before `_id` whose integers number threads, shards and events, not entities: the
/// `integer-ids` rule and nil checks skip their keys.
const NOT_ENTITIES: [&[u8]; 9] = [
    b"thread",
    b"shard",
    b"partition",
    b"worker",
    b"process",
    b"event",
    b"cpu",
    b"core",
    b"goroutine",
];

/// The last word of a snake_case or camelCase name: `partition` of `kafka_partition`,
/// `Partition` of `kafkaPartition`.
fn last_word(name: &[u8]) -> &[u8] {
    let snake = memrchr(b'_', name).map_or(0, |i| i + 1);
    let camel = (1..name.len())
        .rev()
        .find(|&i| name[i].is_ascii_uppercase() && name[i - 1].is_ascii_lowercase())
        .unwrap_or(0);
    &name[snake.max(camel)..]
}

/// Most digits an integer ID has (u64 has 20): longer digit runs are not taken as integers,
/// and 26 or 32 digits are ID tokens already.
const MAX_DIGITS: usize = 20;

/// For a value under an id-like key: `Some(Some(nil kind))` for an empty value or zero,
/// `Some(None)` for another integer, `None` for anything else.
pub(super) fn scalar_kind(raw: &[u8]) -> Option<Option<NilKind>> {
    if raw.is_empty() {
        return Some(Some(NilKind::Empty));
    }
    let digits = raw.strip_prefix(b"-").unwrap_or(raw);
    if digits.is_empty() || digits.len() > MAX_DIGITS || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(digits.iter().all(|&b| b == b'0').then_some(NilKind::Zero))
}

/// Calls `on_line` with each line of `chunk` (no line ending) that may hold an id-like key
/// with an integer or empty value, or a trace or span field, and with its number, so that only
/// those lines are read as records: a key ending in `id` in any case ([`keys::for_each_key_end`]), then `=` or `":`
/// and a value that starts like an integer, `""` or nothing. ID values fail the test at their
/// first letter or dash; [`crate::record::for_each_pair`] has the last word on each line.
pub(super) fn key_lines(chunk: &Chunk, mut on_line: impl FnMut(&[u8], u64)) {
    let bytes = chunk.bytes;
    let (mut line_no, mut counted) = (chunk.first_line_no, 0);
    // A line is handed over once, whatever the number of keys on it.
    let mut next_line = 0;
    keys::for_each_key_end(bytes, |sep| {
        if sep < next_line
            || !keys::ends_in_id(bytes, sep)
            || !(scalar_follows(bytes, sep) || keys::trace_value_follows(bytes, sep))
        {
            return;
        }
        let start = memrchr(b'\n', &bytes[..sep]).map_or(0, |p| p + 1);
        let end = memchr(b'\n', &bytes[sep..]).map_or(bytes.len(), |p| sep + p);
        line_no += bytecount::count(&bytes[counted..start], b'\n') as u64;
        counted = start;
        let line = &bytes[start..end];
        on_line(search::trim_cr(line), line_no);
        next_line = end + 1;
    });
}

/// True when the bytes after the separator `sep` of an id-like key may be an integer or an
/// empty value.
fn scalar_follows(bytes: &[u8], sep: usize) -> bool {
    let bare = bytes[sep] == b'=';
    if !bare && bytes[sep - 2] == b'\\' {
        // Escaped quotes inside a message: rare enough to leave to the record reader.
        return true;
    }
    let mut v = sep + 1;
    if !bare {
        while matches!(bytes.get(v), Some(b' ' | b'\t')) {
            v += 1;
        }
    }
    match bytes.get(v) {
        // `key=` with nothing after it.
        None | Some(b'\n' | b'\r' | b' ' | b'\t' | b',' | b';' | b')' | b']' | b'}') => bare,
        Some(&quote @ (b'"' | b'\'')) => bytes.get(integer_end(bytes, v + 1)) == Some(&quote),
        Some(_) => {
            let end = integer_end(bytes, v);
            end > v
                && !bytes
                    .get(end)
                    .is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'))
        }
    }
}

/// The end of an optional `-` and up to [`MAX_DIGITS`] + 1 digits from `i`; `i` when there
/// are no digits.
fn integer_end(bytes: &[u8], i: usize) -> usize {
    let digits = i + usize::from(bytes.get(i) == Some(&b'-'));
    let n = bytes[digits.min(bytes.len())..]
        .iter()
        .take(MAX_DIGITS + 1)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if n == 0 { i } else { digits + n }
}
