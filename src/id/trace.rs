//! Trace and span IDs: the 128-bit trace ID of W3C Trace Context / OpenTelemetry, AWS X-Ray,
//! B3 and Datadog, and the 64-bit span ID, in every spelling those write them.
//!
//! A trace ID is one 128-bit [`Id`], the same value as a UUID written as 32 hex: W3C writes it
//! as 32 lowercase hex, X-Ray as `1-<8 hex>-<24 hex>` (the first 8 hex are epoch seconds), B3
//! as 32 hex or, for a 64-bit trace ID, 16 hex, and Datadog the low 64 bits as an unsigned
//! decimal. A span ID is 64 bits: 16 hex, or a decimal in Datadog's `dd.span_id`. Header
//! values carry them inside: `traceparent: 00-<trace>-<span>-<flags>`, the single `b3` header
//! `<trace>-<span>-<sampled>-<parent>`, and `X-Amzn-Trace-Id: Root=1-...;Parent=<span>`.
//!
//! Bare 16 hex and decimals are everywhere in logs (hashes, addresses, counters), so they
//! count as trace or span IDs only in a field whose name says so: [`field_before`] reads the
//! key written before a value.

use std::sync::LazyLock;

use super::{HEX_DECODE, INVALID, Id, Kind, ParseError, Parsed, Written, is_token_byte};

/// Length of an X-Ray trace ID: `1-` 8 hex `-` 24 hex.
pub const XRAY_LEN: usize = 35;
/// How an `X-Amzn-Trace-Id` value names its trace: `Root=`, then the ID, which starts with
/// its version, `1-`.
pub const XRAY_ROOT: &[u8] = b"Root=1-";
/// The bytes of [`XRAY_ROOT`] before the ID.
pub const XRAY_ROOT_KEY_LEN: usize = 5;

/// Whether the X-Ray ID of an `X-Amzn-Trace-Id` value starts at `at` in `hay`: [`XRAY_ROOT`]
/// is written there, its `Root=` before `at`.
pub fn is_xray_root_at(hay: &[u8], at: usize) -> bool {
    at >= XRAY_ROOT_KEY_LEN && hay[at - XRAY_ROOT_KEY_LEN..].starts_with(XRAY_ROOT)
}

/// Where the X-Ray IDs of `X-Amzn-Trace-Id` values start in `hay`, in order: a search for
/// [`XRAY_ROOT`], for callers whose token walk did not note them.
pub fn xray_roots(hay: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr::memmem::find_iter(hay, XRAY_ROOT).map(|at| at + XRAY_ROOT_KEY_LEN)
}
/// Length of a span ID (and a 64-bit trace ID) in hex.
pub const SPAN_HEX_LEN: usize = 16;
/// The most digits of a 64-bit unsigned decimal.
pub const DECIMAL_MAX_LEN: usize = 20;

/// What a field holds, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldRole {
    /// `trace_id`, `traceId`, `trace.id`, `X-B3-TraceId`, `dd.trace_id`, `otelTraceID`, ...
    Trace,
    /// `span_id`, `spanId`, `parent_span_id`, `X-B3-SpanId`, `dd.span_id`, ...
    Span,
    /// The single `b3` header: the value starts with the trace ID.
    B3,
}

impl FieldRole {
    /// Whether a trace ID's low 64 bits (16 hex or a decimal) may stand here.
    pub fn holds_trace(self) -> bool {
        matches!(self, FieldRole::Trace | FieldRole::B3)
    }
}

/// The role of a field named `key` (any case; `_`, `-`, `.` and `/` ignored), if it names a
/// trace or span ID.
pub fn field_role(key: &[u8]) -> Option<FieldRole> {
    if !may_have_role(key) {
        return None;
    }
    let mut buf = [0; FOLDED_MAX];
    let name = folded(key, &mut buf)?;
    // `b3`, also as the last segment of a key path (`headers.b3`).
    let last_segment = key
        .rsplit(|&b| matches!(b, b'.' | b'/' | b'[' | b']'))
        .find(|segment| !segment.is_empty());
    if name == b"b3" || last_segment.is_some_and(|s| s.eq_ignore_ascii_case(b"b3")) {
        Some(FieldRole::B3)
    } else if name.ends_with(b"traceid") || name.ends_with(b"traceidhex") {
        Some(FieldRole::Trace)
    } else if name.ends_with(b"spanid") || name == b"xdatadogparentid" {
        Some(FieldRole::Span)
    } else {
        None
    }
}

/// The most letters and digits of a key [`field_role`] gives a role.
pub(super) const FOLDED_MAX: usize = 48;

/// `key` in lowercase without its separators, as [`field_role`] compares it; `None` past
/// [`FOLDED_MAX`] letters and digits.
pub(super) fn folded<'b>(key: &[u8], buf: &'b mut [u8; FOLDED_MAX]) -> Option<&'b [u8]> {
    let mut n = 0;
    for &b in key.iter().filter(|b| b.is_ascii_alphanumeric()) {
        if n == FOLDED_MAX {
            return None;
        }
        buf[n] = b.to_ascii_lowercase();
        n += 1;
    }
    Some(&buf[..n])
}

/// The last letters or digits of every key [`field_role`] gives a role: `d` (`...id`), `x`
/// (`...idhex`) or `3` (`b3`), in either case.
pub const ROLE_KEY_ENDS: &[u8] = b"dDxX3";

/// Whether [`field_role`] may give `key` a role, by its last letter or digit
/// ([`ROLE_KEY_ENDS`]): most keys of a record (`timestamp`, `message`) are ruled out before
/// any folding.
pub fn may_have_role(key: &[u8]) -> bool {
    key.iter()
        .rev()
        .find(|b| b.is_ascii_alphanumeric())
        .is_some_and(|last| ROLE_KEY_ENDS.contains(last))
}

/// Whether `key` (a key, or a key path's last key) may name a trace or span value that is
/// not a token: its letters and digits end in `id` after `race`, `span` or `rent`, or in
/// `traceidhex`, or are just `id` (`"span":{"id":...}`, where the path decides).
#[inline]
pub fn may_key_trace_value(key: &[u8]) -> bool {
    // Most keys end in neither letter.
    matches!(key.last().map(|b| b | 0x20), Some(b'd' | b'x')) && key_may_trace(key)
}

/// Out of line: the walks call it for a few keys in ten, and inlined it grew their loops.
#[inline(never)]
fn key_may_trace(key: &[u8]) -> bool {
    let n = key.len();
    if n < 2 {
        return false;
    }
    match key[n - 1] | 0x20 {
        b'd' if key[n - 2] | 0x20 == b'i' => {
            let mut end = n - 2;
            if end == 0 {
                return true;
            }
            if matches!(key[end - 1], b'_' | b'.' | b'-') {
                end -= 1;
            }
            ends_in_trace_word(&key[..end])
        }
        b'x' => ends_in_trace_id_hex(key),
        _ => false,
    }
}

#[cold]
fn ends_in_trace_id_hex(key: &[u8]) -> bool {
    let mut buf = [0; FOLDED_MAX];
    folded(key, &mut buf).is_some_and(|name| name.ends_with(b"traceidhex"))
}

/// Whether `bytes` ends in `race`, `span` or `rent`, in any case: the words before `id` in
/// the keys of trace and span values (`trace_id`, `spanId`, `x-datadog-parent-id`).
#[inline]
pub fn ends_in_trace_word(bytes: &[u8]) -> bool {
    let Some(start) = bytes.len().checked_sub(4) else {
        return false;
    };
    let word = u32::from_le_bytes([
        bytes[start],
        bytes[start + 1],
        bytes[start + 2],
        bytes[start + 3],
    ]) | 0x2020_2020;
    [b"race", b"span", b"rent"]
        .iter()
        .any(|w| word == u32::from_le_bytes(**w))
}

/// The role of the field whose value starts at `line[start]`: the key before it in JSON
/// (`"trace_id":"..."`, also escaped inside a string), logfmt (`trace_id=...`) or text
/// (`X-B3-TraceId: ...`), with quotes and blanks around the `:` or `=`.
pub fn field_before(line: &[u8], start: usize) -> Option<FieldRole> {
    let key = key_before(line, start)?;
    if !key.eq_ignore_ascii_case(b"id") {
        return field_role(key);
    }
    // `"trace":{"id":...}`: ECS writes `trace.id` and `span.id` nested as well as dotted.
    let key_start = key.as_ptr() as usize - line.as_ptr() as usize;
    let parent = object_key(line, key_start)?;
    let mut name = [0u8; 72];
    let len = parent.len() + 3;
    name.get_mut(..len)?[..parent.len()].copy_from_slice(parent);
    name[parent.len()..len].copy_from_slice(b".id");
    field_role(&name[..len])
}

/// The key of the JSON object whose first key starts at `line[key_start]`: `span` for the
/// `id` of `"span":{"id":...}`.
pub fn object_key(line: &[u8], key_start: usize) -> Option<&[u8]> {
    let mut i = key_start;
    while i > 0 && matches!(line[i - 1], b'"' | b'\\' | b' ' | b'\t') {
        i -= 1;
    }
    (i > 0 && line[i - 1] == b'{').then_some(())?;
    key_before(line, i - 1)
}

/// Whether `b` may stand between a key, its `:` or `=`, and its value: quotes (also escaped
/// ones) and blanks.
pub(super) fn is_key_gap(b: u8) -> bool {
    matches!(b, b'"' | b'\'' | b' ' | b'\t' | b'\\')
}

/// The key written before the value that starts at `line[start]`, as [`field_before`] reads
/// it.
pub fn key_before(line: &[u8], start: usize) -> Option<&[u8]> {
    const GAP: usize = 4;
    const KEY_MAX: usize = 64;
    let mut i = start;
    let floor = start.saturating_sub(GAP);
    while i > floor && is_key_gap(line[i - 1]) {
        i -= 1;
    }
    if i == 0 || !matches!(line[i - 1], b':' | b'=') {
        return None;
    }
    i -= 1;
    let floor = i.saturating_sub(GAP);
    while i > floor && is_key_gap(line[i - 1]) {
        i -= 1;
    }
    let end = i;
    let floor = end.saturating_sub(KEY_MAX);
    while i > floor && (line[i - 1].is_ascii_alphanumeric() || b"_.-/@".contains(&line[i - 1])) {
        i -= 1;
    }
    Some(&line[i..end])
}

/// Calls `f(start)` for the start of every maximal run of hex digits (either case) in `bytes`
/// that is at least `len` (1 to 64) long, in order.
///
/// Runs are found 64 bytes at a time from masks of the hex digits, where a walk of every byte
/// cost the timeline a tenth of its per-line work: most lines hold a few such runs or none.
pub(super) fn for_each_hex_run_start(bytes: &[u8], len: usize, mut f: impl FnMut(usize)) {
    let mut chunks = bytes.chunks_exact(64);
    let mut last = [0; 64];
    let rest = chunks.remainder();
    last[..rest.len()].copy_from_slice(rest);
    let mut masks = chunks
        .by_ref()
        .chain([&last[..]])
        .map(|chunk| hex_mask(chunk.try_into().expect("64 bytes")));
    // Each chunk's mask with the next one's above it, so that a run may cross into it.
    let (mut mask, mut before_last) = (masks.next().unwrap_or(0), 0);
    let mut base = 0;
    loop {
        let next = masks.next();
        let both = u128::from(mask) | (u128::from(next.unwrap_or(0)) << 64);
        // Bit i of `run`: bytes i .. i + len are all hex digits.
        let (mut run, mut have) = (both, 1);
        while have < len {
            let step = have.min(len - have);
            run &= run >> step;
            have += step;
        }
        let mut starts = (run as u64) & !((mask << 1) | before_last);
        while starts != 0 {
            f(base + starts.trailing_zeros() as usize);
            starts &= starts - 1;
        }
        let Some(next) = next else { return };
        before_last = mask >> 63;
        mask = next;
        base += 64;
    }
}

/// Bit i is set when byte i of `chunk` is a hex digit, either case: four SSE2 compares of
/// 16 bytes, where a byte at a time costs a lookup, a shift and an or each.
#[cfg(target_arch = "x86_64")]
fn hex_mask(chunk: &[u8; 64]) -> u64 {
    use std::arch::x86_64::*;
    let mut mask = 0;
    for (k, part) in chunk.chunks_exact(16).enumerate() {
        // SAFETY: every x86_64 CPU has SSE2; the load reads the 16 bytes of `part`.
        let bits = unsafe {
            let v = _mm_loadu_si128(part.as_ptr().cast());
            // Unsigned `x <= n` as `min(x, n) == x`: SSE2 has no unsigned compare.
            let at_most = |x, n: u8| _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(n as i8)), x);
            let digit = _mm_sub_epi8(v, _mm_set1_epi8(b'0' as i8));
            let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
            let letter = _mm_sub_epi8(folded, _mm_set1_epi8(b'a' as i8));
            _mm_movemask_epi8(_mm_or_si128(at_most(digit, 9), at_most(letter, 5))) as u16
        };
        mask |= u64::from(bits) << (16 * k);
    }
    mask
}

#[cfg(not(target_arch = "x86_64"))]
fn hex_mask(chunk: &[u8; 64]) -> u64 {
    chunk.iter().enumerate().fold(0, |m, (i, &b)| {
        m | (u64::from(HEX_DECODE[b as usize] != INVALID) << i)
    })
}

/// Calls `f(start, end, trace, parent)` for each X-Ray trace ID of `hay` that is a whole
/// token, not all zero: `hay[start..end]` is `1-<8 hex>-<24 hex>`, and `parent` the span ID
/// of an `X-Amzn-Trace-Id` value's `;Parent=<16 hex>` right after it, with its place, if
/// there is one and it is not zero.
pub fn for_each_xray(hay: &[u8], mut f: impl FnMut(usize, usize, Id, Option<(usize, u64)>)) {
    static XRAY_START: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"1-"));
    for start in XRAY_START.find_iter(hay) {
        if let Some(xray) = xray_at(hay, start) {
            f(start, xray.end, xray.trace, xray.parent);
        }
    }
}

/// An X-Ray trace ID found in text by [`xray_at`].
pub struct XrayAt {
    /// Where it ends.
    pub end: usize,
    pub trace: Id,
    /// The span ID of a `;Parent=<16 hex>` right after it, with its place.
    pub parent: Option<(usize, u64)>,
}

/// The X-Ray trace ID that starts at `hay[start]`, as [`for_each_xray`] reports it.
pub fn xray_at(hay: &[u8], start: usize) -> Option<XrayAt> {
    let end = start + XRAY_LEN;
    if end > hay.len()
        || (start > 0 && is_token_byte(hay[start - 1]))
        || hay.get(end).is_some_and(|&b| is_token_byte(b))
    {
        return None;
    }
    let trace = decode_xray(&hay[start..end]).filter(|id| id.0 != 0)?;
    const PARENT: &[u8] = b";parent=";
    let at = end + PARENT.len();
    let parent = hay
        .get(end..at)
        .filter(|key| key.eq_ignore_ascii_case(PARENT))
        .and_then(|_| hex16_token(hay, at))
        .filter(|&span| span != 0)
        .map(|span| (at, span));
    Some(XrayAt { end, trace, parent })
}

/// The 16 hex digits at `hay[at..]`, when they are a whole token: no letter, digit or `-`
/// right after them.
pub fn hex16_token(hay: &[u8], at: usize) -> Option<u64> {
    let end = at + SPAN_HEX_LEN;
    let value = decode_hex64(hay.get(at..end)?)?;
    (!hay.get(end).is_some_and(|&b| is_token_byte(b))).then_some(value)
}

/// The span and parent span IDs of a single `b3` header whose trace ID ends at `hay[end]`:
/// `-<span>[-<sampled>[-<parent>]]`, each with its place; zero IDs are left out.
pub fn b3_spans(hay: &[u8], end: usize) -> [Option<(usize, u64)>; 2] {
    let span_at = end + 1;
    let span_end = span_at + SPAN_HEX_LEN;
    let span = (hay.get(end) == Some(&b'-'))
        .then(|| hex16_token(hay, span_at))
        .flatten();
    let Some(span) = span else {
        return [None, None];
    };
    let nonzero = |at: usize, v: u64| (v != 0).then_some((at, v));
    // `-<sampled>-<parent>`: one flag character (`0`, `1`, `d`), then the parent.
    let parent_at = span_end + 3;
    let parent = (hay.get(span_end) == Some(&b'-') && hay.get(span_end + 2) == Some(&b'-'))
        .then(|| hex16_token(hay, parent_at))
        .flatten();
    [
        nonzero(span_at, span),
        parent.and_then(|p| nonzero(parent_at, p)),
    ]
}

/// Decodes 16 hex digits (either case) to a 64-bit value: checked all at once without a
/// branch, then decoded eight at a time in a word, where a table lookup per digit cost about
/// 65 instructions a span ID.
#[inline]
pub fn decode_hex64(bytes: &[u8]) -> Option<u64> {
    let digits: &[u8; SPAN_HEX_LEN] = bytes.try_into().ok()?;
    if !super::all_hex(digits) {
        return None;
    }
    let half = |at: usize| {
        let word = u64::from_le_bytes(digits[at..at + 8].try_into().expect("8 digits"));
        // Each byte's value: its low four bits, plus 9 for a letter (bit 6 set).
        let nibbles = (word & 0x0f0f_0f0f_0f0f_0f0f) + ((word >> 6) & 0x0101_0101_0101_0101) * 9;
        // Two digits to a byte, in the low byte of each 16-bit lane, then the lanes' bytes
        // side by side: the first digit's pair ends up in the lowest byte.
        let pairs = (nibbles & 0x00ff_00ff_00ff_00ff) << 4 | (nibbles >> 8) & 0x00ff_00ff_00ff_00ff;
        let pairs = (pairs | pairs >> 8) & 0x0000_ffff_0000_ffff;
        let pairs = (pairs | pairs >> 16) as u32;
        u64::from(pairs.swap_bytes())
    };
    Some(half(0) << 32 | half(8))
}

/// Decodes an X-Ray trace ID, `1-<8 hex>-<24 hex>` (either case), to its 128-bit value.
#[inline]
pub fn decode_xray(bytes: &[u8]) -> Option<Id> {
    if bytes.len() != XRAY_LEN || &bytes[..2] != b"1-" || bytes[10] != b'-' {
        return None;
    }
    // The time's 8 digits and the first 8 of the rest make the high half.
    let mut high = [0u8; SPAN_HEX_LEN];
    high[..8].copy_from_slice(&bytes[2..10]);
    high[8..].copy_from_slice(&bytes[11..19]);
    let high = decode_hex64(&high)?;
    let low = decode_hex64(&bytes[19..])?;
    Some(Id(u128::from(high) << 64 | u128::from(low)))
}

/// Decodes an unsigned decimal of at most 20 digits that fits in 64 bits.
#[inline]
pub fn decode_decimal(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() || bytes.len() > DECIMAL_MAX_LEN {
        return None;
    }
    // Nineteen digits never overflow 64 bits, so only a twentieth is added with a check; the
    // digits are tested all at once at the end (a wrapped value is then thrown away).
    let (head, twentieth) = bytes.split_at(bytes.len().min(DECIMAL_MAX_LEN - 1));
    let mut value = 0u64;
    let mut bad = false;
    for &b in head {
        let d = b.wrapping_sub(b'0');
        bad |= d > 9;
        value = value.wrapping_mul(10).wrapping_add(u64::from(d));
    }
    if bad {
        return None;
    }
    match twentieth.first() {
        None => Some(value),
        Some(b) => {
            let d = b.checked_sub(b'0').filter(|&d| d < 10)?;
            value.checked_mul(10)?.checked_add(u64::from(d))
        }
    }
}

/// The decimal digits of `value`, as Datadog writes a 64-bit ID.
pub fn decimal_bytes(value: u64) -> Vec<u8> {
    value.to_string().into_bytes()
}

impl Id {
    /// The low 64 bits: what a 64-bit B3 trace ID or a Datadog `dd.trace_id` holds.
    pub fn low64(self) -> u64 {
        self.0 as u64
    }

    /// The X-Ray rendering, `1-<8 hex>-<24 hex>`, lowercase.
    pub fn xray(self) -> String {
        let hex = self.hex();
        format!("1-{}-{}", &hex[..8], &hex[8..])
    }

    /// The time an X-Ray trace ID carries: its first 32 bits are epoch seconds.
    pub fn xray_unix_ms(self) -> i64 {
        ((self.0 >> 96) as i64) * 1000
    }

    /// A 64-bit value (span ID) as 16 lowercase hex.
    pub fn hex16(self) -> String {
        format!("{:016x}", self.low64())
    }
}

/// Parses the trace and span spellings of `body` (quotes and blanks already removed), or
/// `None` when `body` is none of them and the ULID and UUID forms should be tried. `at`
/// maps a byte offset in `body` to a 1-based position in the input.
pub(super) fn parse_trace(
    body: &str,
    at: &dyn Fn(usize) -> usize,
) -> Option<Result<Parsed, ParseError>> {
    let bytes = body.as_bytes();
    // An X-Amzn-Trace-Id value: `Root=1-...;Parent=...;Sampled=1`, or its Root field alone.
    if let Some(root) = xray_root(body) {
        let offset = root.as_ptr() as usize - body.as_ptr() as usize;
        return Some(parse_xray(root.as_bytes(), &|i| at(offset + i)));
    }
    if bytes.len() == XRAY_LEN && bytes.starts_with(b"1-") && bytes[10] == b'-' {
        return Some(parse_xray(bytes, at));
    }
    let parts: Vec<&[u8]> = bytes.split(|&b| b == b'-').collect();
    let lens: Vec<usize> = parts.iter().map(|p| p.len()).collect();
    match lens.as_slice() {
        [16] => Some(hex_part(bytes, 0, at, "span").and_then(|v| {
            nonzero(v, "span")?;
            Ok(Parsed {
                id: Id(v),
                kind: Kind::Span,
                written: Written::SpanHex,
            })
        })),
        // traceparent: version, trace, parent span, flags (a future version may add fields).
        [2, 32, 16, 2, ..] if lens.len() == 4 || parts[0] != b"00" => {
            Some(parse_traceparent(&parts, at))
        }
        // b3: trace (16 or 32 hex), span, then optionally sampled (`0`, `1`, `d`) and parent.
        [32 | 16, 16] | [32 | 16, 16, 1] | [32 | 16, 16, 1, 16] => Some(parse_b3(&parts, at)),
        // Near misses of the headers above: their layout says more than a length would.
        [1, _, _] if bytes.len() == XRAY_LEN => Some(Err(ParseError::TraceForm {
            what: "an X-Ray trace ID is 1-<8 hex>-<24 hex> (version 1)",
        })),
        [2, 32, ..] => Some(Err(ParseError::TraceForm {
            what: "a traceparent is <2 hex version>-<32 hex trace>-<16 hex parent>-<2 hex flags>",
        })),
        [32 | 16, 16, ..] => Some(Err(ParseError::TraceForm {
            what: "a b3 value is <32 or 16 hex trace>-<16 hex span>[-<sampled 0, 1 or d>[-<16 hex \
                   parent>]]",
        })),
        _ => None,
    }
}

/// A Datadog ID as the Datadog UI shows it, a decimal of [`DECIMAL_QUERY_MIN_LEN`] to
/// [`DECIMAL_MAX_LEN`] digits: a span ID or a 64-bit trace ID (`dd.span_id`,
/// `dd.trace_id`), so `Kind::Span` and [`Written::Decimal`], which a search reads as both.
/// `None` when `body` is no such run of digits (16 digits are 16 hex: a span ID).
pub(super) fn parse_decimal(body: &str) -> Option<Result<Parsed, ParseError>> {
    let bytes = body.as_bytes();
    if !(DECIMAL_QUERY_MIN_LEN..=DECIMAL_MAX_LEN).contains(&bytes.len())
        || !bytes.iter().all(u8::is_ascii_digit)
    {
        return None;
    }
    let Some(value) = decode_decimal(bytes) else {
        return Some(Err(ParseError::TraceForm {
            what: "a Datadog ID is a 64-bit value: at most 18446744073709551615",
        }));
    };
    Some(nonzero(value.into(), "span or trace").map(|()| Parsed {
        id: Id(value.into()),
        kind: Kind::Span,
        written: Written::Decimal,
    }))
}

/// Fewest digits of a decimal query: a random 64-bit ID has fewer once in 10^7, and a shorter
/// number is a count or a code, refused with the accepted forms.
pub const DECIMAL_QUERY_MIN_LEN: usize = 12;

/// The `Root=` field of an X-Ray header value, when `body` is one.
fn xray_root(body: &str) -> Option<&str> {
    body.split(';').find_map(|field| {
        let (key, value) = field.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("root")
            .then(|| value.trim())
    })
}

fn parse_xray(bytes: &[u8], at: &dyn Fn(usize) -> usize) -> Result<Parsed, ParseError> {
    if bytes.len() != XRAY_LEN || !bytes.starts_with(b"1-") || bytes[10] != b'-' {
        return Err(ParseError::TraceForm {
            what: "an X-Ray trace ID is 1-<8 hex>-<24 hex>",
        });
    }
    let high = hex_part(&bytes[2..10], 2, at, "trace")?;
    let low = hex_part(&bytes[11..], 11, at, "trace")?;
    let id = Id((high << 96) | low);
    nonzero(id.0, "trace")?;
    Ok(Parsed {
        id,
        kind: Kind::Trace,
        written: Written::Xray,
    })
}

fn parse_traceparent(parts: &[&[u8]], at: &dyn Fn(usize) -> usize) -> Result<Parsed, ParseError> {
    let version = hex_part(parts[0], 0, at, "trace")?;
    if version == 0xff {
        return Err(ParseError::TraceForm {
            what: "traceparent version ff is invalid (W3C Trace Context)",
        });
    }
    let trace = hex_part(parts[1], 3, at, "trace")?;
    nonzero(trace, "trace")?;
    nonzero(hex_part(parts[2], 36, at, "span")?, "parent span")?;
    hex_part(parts[3], 53, at, "trace")?;
    Ok(Parsed {
        id: Id(trace),
        kind: Kind::Trace,
        written: Written::Traceparent,
    })
}

fn parse_b3(parts: &[&[u8]], at: &dyn Fn(usize) -> usize) -> Result<Parsed, ParseError> {
    let trace = hex_part(parts[0], 0, at, "trace")?;
    nonzero(trace, "trace")?;
    let span_at = parts[0].len() + 1;
    nonzero(hex_part(parts[1], span_at, at, "span")?, "span")?;
    if let Some(sampled) = parts.get(2)
        && !matches!(sampled, [b'0' | b'1' | b'd'])
    {
        return Err(ParseError::TraceForm {
            what: "a b3 header's sampled field is 0, 1 or d",
        });
    }
    if let Some(parent) = parts.get(3) {
        let parent_at = span_at + SPAN_HEX_LEN + 3;
        nonzero(hex_part(parent, parent_at, at, "span")?, "parent span")?;
    }
    let written = if parts[0].len() == SPAN_HEX_LEN {
        Written::B3Trace64
    } else {
        Written::B3
    };
    Ok(Parsed {
        id: Id(trace),
        kind: Kind::Trace,
        written,
    })
}

/// The value of hex digits `part`, which starts at byte `offset` of the input.
fn hex_part(
    part: &[u8],
    offset: usize,
    at: &dyn Fn(usize) -> usize,
    kind: &'static str,
) -> Result<u128, ParseError> {
    if let Some(i) = part.iter().position(|&b| HEX_DECODE[b as usize] == INVALID) {
        return Err(ParseError::BadTraceChar {
            pos: at(offset + i),
            ch: super::char_at(part, i),
            kind,
        });
    }
    Ok(part.iter().fold(0u128, |acc, &b| {
        (acc << 4) | u128::from(HEX_DECODE[b as usize])
    }))
}

fn nonzero(value: u128, what: &'static str) -> Result<(), ParseError> {
    if value == 0 {
        Err(ParseError::ZeroTrace { what })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word before `id` is compared a word at a time; a byte at a time, in any case,
    /// says the same, also of words of bytes next to the letters (`R` and `r`, `@` and `` ` ``).
    #[test]
    fn trace_words_are_the_case_free_compare_of_their_bytes() {
        let others = b"aceprnstRT@`_.- 0";
        let mut rng = crate::testing::Rng(0x6a09_e667_f3bc_c908);
        let mut seen = 0;
        for _ in 0..100_000 {
            // A word, each byte in either case or now and then another byte, after a few
            // bytes or none, cut short now and then.
            let mut bytes: Vec<u8> = (0..rng.below(3)).map(|_| *rng.pick(others)).collect();
            for &b in *rng.pick(&[b"race", b"span", b"rent"]) {
                bytes.push(match rng.below(8) {
                    0 => *rng.pick(others),
                    1..4 => b.to_ascii_uppercase(),
                    _ => b,
                });
            }
            bytes.truncate(bytes.len() - rng.below(2));
            let want = bytes.len() >= 4
                && [&b"race"[..], b"span", b"rent"]
                    .iter()
                    .any(|w| bytes[bytes.len() - 4..].eq_ignore_ascii_case(w));
            seen += want as u32;
            assert_eq!(
                ends_in_trace_word(&bytes),
                want,
                "{:?}",
                String::from_utf8_lossy(&bytes)
            );
        }
        assert!(seen > 10_000, "the generator made {seen} trace words");
        assert!(ends_in_trace_word(b"x-datadog-paRent"));
        assert!(!ends_in_trace_word(b"rac"));
    }

    /// Every X-Ray ID a byte-by-byte look at each place finds, and only those, over haystacks
    /// of dates, dashes, digits and X-Ray IDs cut, joined and run together.
    #[test]
    fn xray_ids_are_found_where_a_look_at_every_place_finds_them() {
        let pieces: [&[u8]; 9] = [
            b"1-5759e988-bd862e3fe1be46a994272793",
            b"1-5759E988-BD862E3FE1BE46A994272793",
            b"2026-11-18T11:06:40Z",
            b"-",
            b"1-",
            b"11",
            b"a",
            b" ",
            b";Parent=53995c3f42cd8ad8",
        ];
        let mut rng = crate::testing::Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..5_000 {
            let mut hay = Vec::new();
            for _ in 0..rng.below(12) {
                let piece = *rng.pick(&pieces);
                // Sometimes only part of a piece, so IDs are cut short.
                let cut = if rng.below(4) == 0 {
                    rng.below(piece.len() + 1)
                } else {
                    piece.len()
                };
                hay.extend_from_slice(&piece[..cut]);
            }
            let mut found = Vec::new();
            for_each_xray(&hay, |start, end, id, _| found.push((start, end, id)));
            let want: Vec<(usize, usize, Id)> = (0..hay.len())
                .filter_map(|start| {
                    let end = start + XRAY_LEN;
                    let whole = end <= hay.len()
                        && (start == 0 || !is_token_byte(hay[start - 1]))
                        && hay.get(end).is_none_or(|&b| !is_token_byte(b));
                    let id = decode_xray(hay.get(start..end)?).filter(|id| id.0 != 0)?;
                    whole.then_some((start, end, id))
                })
                .collect();
            assert_eq!(found, want, "{:?}", String::from_utf8_lossy(&hay));
        }
    }

    #[test]
    fn xray_ids_are_whole_tokens_with_their_parent() {
        let mut found = Vec::new();
        let hay = b"a Root=1-5759e988-bd862e3fe1be46a994272793;parent=53995C3F42CD8AD8;S=1 \
            x1-5759e988-bd862e3fe1be46a994272793 1-5759e988-bd862e3fe1be46a994272793ab \
            1-00000000-000000000000000000000000 [1-5759e988-bd862e3fe1be46a994272793;Parent=0000000000000000]";
        for_each_xray(hay, |start, end, id, parent| {
            found.push((start, end, id.0, parent))
        });
        let value = 0x5759e988bd862e3fe1be46a994272793;
        assert_eq!(
            found,
            vec![
                (7, 42, value, Some((50, 0x53995c3f42cd8ad8))),
                (hay.len() - 60, hay.len() - 25, value, None),
            ]
        );
    }

    #[test]
    fn b3_spans_follow_the_trace_id() {
        let t = b"x-e457b5a2e4d86bd1-1-05e3ac9a4f6e3b90";
        assert_eq!(
            b3_spans(t, 1),
            [
                Some((2, 0xe457b5a2e4d86bd1)),
                Some((21, 0x05e3ac9a4f6e3b90))
            ]
        );
        assert_eq!(
            b3_spans(b"x-e457b5a2e4d86bd1", 1),
            [Some((2, 0xe457b5a2e4d86bd1)), None]
        );
        // Longer than 16 hex, or none: no span.
        assert_eq!(b3_spans(b"x-e457b5a2e4d86bd1ff", 1), [None, None]);
        assert_eq!(b3_spans(b"x", 1), [None, None]);
        assert_eq!(b3_spans(b"x-0000000000000000-1", 1), [None, None]);
    }
    use crate::testing::Rng;

    /// The plain answer: where each maximal run of hex digits at least `len` long starts,
    /// a byte at a time.
    fn oracle(bytes: &[u8], len: usize) -> Vec<usize> {
        let hex = |b: &u8| HEX_DECODE[*b as usize] != INVALID;
        let mut starts = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let run = bytes[at..].iter().take_while(|b| hex(b)).count();
            if run >= len {
                starts.push(at);
            }
            at += run.max(1);
        }
        starts
    }

    #[test]
    fn a_nested_id_has_the_role_of_its_objects_key() {
        let line = br#"{"trace":{"id":"a"},"span": { "id":"b"},"user":{"id":"c"},"id":"d","x":{"k":1,"id":"e"}}"#;
        let role_of = |value: &[u8]| {
            let at = line.windows(value.len()).position(|w| w == value).unwrap();
            field_before(line, at)
        };
        assert_eq!(role_of(b"a\""), Some(FieldRole::Trace));
        assert_eq!(role_of(b"b\""), Some(FieldRole::Span));
        // Another object's id, a top-level id, an id that is not the object's first key.
        for other in [b"c\"", b"d\"", b"e\""] {
            assert_eq!(role_of(other), None);
        }
    }

    #[test]
    fn every_long_hex_run_is_found_wherever_it_stands_against_the_chunks() {
        let mut rng = Rng(0x5eed_0016);
        // Hex digits of both cases, letters and digits that are not hex, and separators.
        let alphabet = b"0123456789abcdefABCDEFghxyzGZ-_:= \"";
        for round in 0..20_000 {
            let size = rng.below(300);
            // Runs of hex now and then, long enough to matter, at any offset.
            let mut bytes: Vec<u8> = (0..size).map(|_| *rng.pick(alphabet)).collect();
            if size > 0 && round % 2 == 0 {
                for _ in 0..1 + rng.below(3) {
                    let run = 10 + rng.below(60);
                    let at = rng.below(size);
                    for b in bytes.iter_mut().skip(at).take(run) {
                        *b = *rng.pick(b"0123456789abcdefABCDEF");
                    }
                }
            }
            for len in [1, 2, 15, 16, 17, 32, 64] {
                let mut starts = Vec::new();
                for_each_hex_run_start(&bytes, len, |at| starts.push(at));
                assert_eq!(
                    starts,
                    oracle(&bytes, len),
                    "len {len} in {:?}",
                    String::from_utf8_lossy(&bytes)
                );
            }
        }
    }
}
