//! Trace and span IDs read where a field or header puts them, for `audit`'s trace rules and
//! the timeline's related spans: the value of a trace or span field (`trace_id`,
//! `dd.trace_id`, `X-B3-SpanId`, `span.id`, ...), the W3C `traceparent` around a 32-hex trace
//! ID, and every span a line writes ([`for_each_span`]). A search looks for one value in
//! every spelling; these say how each value is written instead: its width, its case, and
//! whether W3C Trace Context refuses it.

use memchr::memchr2_iter;

use super::trace::{
    FOLDED_MAX, FieldRole, ROLE_KEY_ENDS, SPAN_HEX_LEN, XRAY_LEN, b3_spans, decode_decimal,
    decode_hex64, decode_xray, field_before, field_role, folded, for_each_hex_run_start,
    is_key_gap, key_before,
};
use super::{HEX_DECODE, UUID_UNDASHED_LEN, all_hex, decode_hex, is_token_byte};

/// How a trace or span ID is written in a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueForm {
    /// 32 hex: a 128-bit trace ID.
    Hex32,
    /// An X-Ray `Root=1-...` value: a 128-bit trace ID.
    Xray,
    /// 16 hex: a span ID, or a 64-bit (B3) trace ID.
    Hex16,
    /// An unsigned decimal of 64 bits, as Datadog writes them.
    Decimal,
}

/// A trace or span ID as a field holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldValue {
    /// [`FieldRole::Trace`] or [`FieldRole::Span`].
    pub role: FieldRole,
    pub form: ValueForm,
    /// 128 bits for [`ValueForm::Hex32`] and [`ValueForm::Xray`], 64 for the others.
    pub value: u128,
    /// Upper-case hex letters, which W3C Trace Context (and B3) do not write.
    pub upper: bool,
    /// A parent span field (`parent_span_id`, `x-datadog-parent-id`), where zero stands for
    /// "no parent" (a root span) in several tracers.
    pub parent: bool,
}

impl FieldValue {
    /// A 64-bit trace ID: the low half of a 128-bit one.
    pub fn is_64_bit_trace(&self) -> bool {
        self.role == FieldRole::Trace && matches!(self.form, ValueForm::Hex16 | ValueForm::Decimal)
    }
}

/// Reads `raw`, the value of the field `key`, as a trace or span ID: `None` when the key names
/// no trace or span ID (or is the single `b3` header, read by no rule), or when the value is
/// none of the forms (empty, a Google Cloud `projects/.../traces/...` path, prose).
///
/// Digits only are a decimal, except 16 of them outside a Datadog key (`dd.*`, `*datadog*`),
/// which B3 and W3C mean as hex.
pub fn field_value(key: &[u8], raw: &[u8]) -> Option<FieldValue> {
    key_role(key).and_then(|key| value_under(key, raw))
}

/// What the name of a trace or span field says of its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRole {
    /// [`FieldRole::Trace`] or [`FieldRole::Span`].
    pub role: FieldRole,
    /// A Datadog key (`dd.*`, `*datadog*`): 16 digits are a decimal there.
    datadog: bool,
    /// A parent span field.
    parent: bool,
}

/// The role of the field `key` for [`value_under`]: `None` when it names no trace or span
/// ID, or is the single `b3` header. A caller reading many values of a few keys keeps these.
pub fn key_role(key: &[u8]) -> Option<KeyRole> {
    let role = field_role(key)?;
    if role == FieldRole::B3 {
        return None;
    }
    // A key with a role is short enough to fold.
    let mut buf = [0; FOLDED_MAX];
    let folded = folded(key, &mut buf)?;
    Some(KeyRole {
        role,
        datadog: folded.starts_with(b"dd") || contains(folded, b"datadog"),
        parent: contains(folded, b"parent"),
    })
}

/// [`field_value`] of a key whose role is known.
pub fn value_under(key: KeyRole, raw: &[u8]) -> Option<FieldValue> {
    let KeyRole {
        role,
        datadog,
        parent,
    } = key;
    let (form, value) = if role == FieldRole::Trace && raw.len() == UUID_UNDASHED_LEN {
        (ValueForm::Hex32, decode_hex(raw)?.0)
    } else if role == FieldRole::Trace
        && let Some(root) = xray_root(raw)
    {
        (ValueForm::Xray, decode_xray(root)?.0)
    } else if raw.len() != SPAN_HEX_LEN {
        // Digits only, or no ID at all.
        (ValueForm::Decimal, u128::from(decode_decimal(raw)?))
    } else if datadog && let Some(decimal) = decode_decimal(raw) {
        (ValueForm::Decimal, u128::from(decimal))
    } else {
        (ValueForm::Hex16, u128::from(decode_hex64(raw)?))
    };
    let upper = form != ValueForm::Decimal && has_upper_hex(raw);
    Some(FieldValue {
        role,
        form,
        value,
        upper,
        parent,
    })
}

/// Whether `bytes` holds an upper-case hex letter, which W3C Trace Context (and B3) do not
/// write.
fn has_upper_hex(bytes: &[u8]) -> bool {
    // Every byte is tested, with no branch, as in `all_hex`: most values have none.
    bytes
        .iter()
        .fold(false, |upper, &b| upper | (b.wrapping_sub(b'A') < 6))
}

/// Whether `bytes` starts with a 32-hex token: 32 hex digits, then no letter or digit.
pub fn is_hex32_token(bytes: &[u8]) -> bool {
    bytes.len() >= UUID_UNDASHED_LEN
        && all_hex(&bytes[..UUID_UNDASHED_LEN])
        && !bytes
            .get(UUID_UNDASHED_LEN)
            .is_some_and(u8::is_ascii_alphanumeric)
}

/// The 32-hex token `token` as the value of a trace field.
pub fn trace_hex32(token: &[u8]) -> Option<FieldValue> {
    (token.len() == UUID_UNDASHED_LEN).then_some(())?;
    Some(FieldValue {
        role: FieldRole::Trace,
        form: ValueForm::Hex32,
        value: decode_hex(token)?.0,
        upper: has_upper_hex(token),
        parent: false,
    })
}

/// Whether `key` names a span's parent (`parent_span_id`, `parentSpanId`, `X-B3-ParentSpanId`,
/// `x-datadog-parent-id`): the span the line's own span was called from.
pub fn is_parent_span_field(key: &[u8]) -> bool {
    field_role(key) == Some(FieldRole::Span)
        && folded(key, &mut [0; FOLDED_MAX]).is_some_and(|name| contains(name, b"parent"))
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The X-Ray ID of an `X-Amzn-Trace-Id` value, `Root=1-...;Parent=...`.
fn xray_root(raw: &[u8]) -> Option<&[u8]> {
    let rest = raw
        .get(..5)?
        .eq_ignore_ascii_case(b"root=")
        .then(|| &raw[5..])?;
    let end = rest.iter().position(|&b| b == b';').unwrap_or(rest.len());
    (end == XRAY_LEN).then(|| &rest[..end])
}

/// A W3C `traceparent` value, `<version>-<trace>-<parent span>-<flags>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traceparent {
    pub version: u8,
    pub span: u64,
    /// Upper-case hex letters anywhere in it.
    pub upper: bool,
    /// Where it is written in the line.
    pub start: usize,
    pub end: usize,
}

/// Whether the 32-hex token `line[start..end]` is written as a trace ID: inside a
/// `traceparent` (not of version `ff`, which W3C refuses), as the value of a trace field or
/// the first part of a `b3` value, or in Google Cloud's `projects/<project>/traces/<32 hex>`.
pub fn hex32_is_trace(line: &[u8], start: usize, end: usize) -> bool {
    if let Some(header) = traceparent_around(line, start, end) {
        return header.version != 0xff;
    }
    field_before(line, start).is_some_and(FieldRole::holds_trace)
        || line[..start].ends_with(b"/traces/")
}

/// The `traceparent` value whose trace ID is the 32 hex at `line[start..end]`: two hex digits
/// and `-` before, `-`, 16 hex, `-` and two hex after, as a whole token (a later version may
/// add fields after a `-`).
pub fn traceparent_around(line: &[u8], start: usize, end: usize) -> Option<Traceparent> {
    let hex = |range: std::ops::Range<usize>| line.get(range).filter(|part| all_hex(part));
    if start < 3 || line[start - 1] != b'-' || end - start != UUID_UNDASHED_LEN {
        return None;
    }
    let version = hex(start - 3..start - 1)?;
    if start > 3 && (line[start - 4].is_ascii_alphanumeric() || line[start - 4] == b'-') {
        return None;
    }
    let span_at = end + 1;
    let flags_at = span_at + SPAN_HEX_LEN + 1;
    if line.get(end) != Some(&b'-') || line.get(flags_at - 1) != Some(&b'-') {
        return None;
    }
    let span = hex(span_at..span_at + SPAN_HEX_LEN)?;
    hex(flags_at..flags_at + 2)?;
    let tail = flags_at + 2;
    if line.get(tail).is_some_and(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let version = (HEX_DECODE[version[0] as usize] << 4) | HEX_DECODE[version[1] as usize];
    let written = &line[start - 3..tail];
    Some(Traceparent {
        version,
        span: decode_hex64(span)?,
        upper: has_upper_hex(written),
        start: start - 3,
        end: tail,
    })
}

/// Calls `f(start, end, value, decimal)` for each span ID `line` writes, as `ids` counts them:
/// the 16 hex of a span field (`span_id`, `parent_span_id`, `X-B3-SpanId`, ...) or its decimal
/// (`dd.span_id`), the parent ID of a `traceparent` (not of version `ff`, which W3C refuses),
/// the span and parent of a single `b3` header, and the `Parent` of an X-Ray header; whole
/// tokens, not zero; the hex ones in line order, then the decimals. `decimal`: written as a
/// decimal.
pub fn for_each_span(line: &[u8], mut f: impl FnMut(usize, usize, u64, bool)) {
    // Every hex span, and every 32-hex trace ID a header writes its spans after, starts a run
    // of at least 16 hex digits; most lines hold few or none.
    for_each_hex_run_start(line, SPAN_HEX_LEN, |at| hex_span_at(line, at, &mut f));
    for_each_decimal_span(line, &mut f);
}

/// The spans of the run of hex digits that starts at `at`, if it is a whole token: itself
/// where it is a span of 16, the spans a header writes after it where it is a trace of 32.
fn hex_span_at(line: &[u8], at: usize, f: &mut impl FnMut(usize, usize, u64, bool)) {
    if at > 0 && is_token_byte(line[at - 1]) {
        return;
    }
    let run = line[at..]
        .iter()
        .take(UUID_UNDASHED_LEN + 1)
        .take_while(|&&b| is_token_byte(b))
        .count();
    let end = at + run;
    let role = || field_before(line, at);
    if run == SPAN_HEX_LEN
        && let Some(value) = decode_hex64(&line[at..end]).filter(|&v| v != 0)
    {
        let xray_parent = line[..at]
            .len()
            .checked_sub(XRAY_PARENT.len())
            .is_some_and(|k| line[k..at].eq_ignore_ascii_case(XRAY_PARENT));
        match role() {
            // Unless a Datadog key makes 16 digits a decimal, which the decimal walk reads
            // (a nested `"span":{"id":...}` has no key of its own to say so).
            Some(FieldRole::Span) => {
                let hex = key_before(line, at).and_then(key_role).is_none_or(|key| {
                    value_under(key, &line[at..end]).is_some_and(|v| v.form == ValueForm::Hex16)
                });
                if hex {
                    f(at, end, value, false);
                }
            }
            // A 64-bit trace ID in a single `b3` header.
            Some(FieldRole::B3) => b3_header_spans(line, end, f),
            _ if xray_parent => f(at, end, value, false),
            _ => {}
        }
    } else if run == UUID_UNDASHED_LEN && decode_hex(&line[at..end]).is_some() {
        if let Some(header) = traceparent_around(line, at, end) {
            if header.version != 0xff && header.span != 0 {
                let span_at = end + 1;
                f(span_at, span_at + SPAN_HEX_LEN, header.span, false);
            }
        } else if role() == Some(FieldRole::B3) {
            b3_header_spans(line, end, f);
        }
    }
}

/// An X-Ray header's span, `Root=1-...;Parent=<16 hex>`.
const XRAY_PARENT: &[u8] = b";parent=";

fn b3_header_spans(line: &[u8], trace_end: usize, f: &mut impl FnMut(usize, usize, u64, bool)) {
    for (at, value) in b3_spans(line, trace_end).into_iter().flatten() {
        f(at, at + SPAN_HEX_LEN, value, false);
    }
}

/// The decimals of span fields (`dd.span_id`, `x-datadog-parent-id`): a digit run right after
/// the `:` or `=` (quotes and blanks between) of a key that ends as a role key does.
fn for_each_decimal_span(line: &[u8], f: &mut impl FnMut(usize, usize, u64, bool)) {
    for sep in memchr2_iter(b':', b'=', line) {
        let key_end = line[..sep].iter().rposition(|&b| !is_key_gap(b));
        if !key_end.is_some_and(|k| ROLE_KEY_ENDS.contains(&line[k])) {
            continue;
        }
        let Some(start) = (sep + 1..line.len().min(sep + 6)).find(|&i| !is_key_gap(line[i])) else {
            continue;
        };
        let digits = line[start..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let end = start + digits;
        if digits == 0 || line.get(end).is_some_and(|&b| is_token_byte(b)) {
            continue;
        }
        let value = key_before(line, start)
            .and_then(key_role)
            .filter(|key| key.role == FieldRole::Span)
            .and_then(|key| value_under(key, &line[start..end]))
            .filter(|v| v.form == ValueForm::Decimal && v.value != 0);
        if let Some(value) = value {
            f(start, end, value.value as u64, true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_value_says_its_width_case_and_role() {
        let trace = field_value(b"trace_id", b"4bf92f3577b34da6a3ce929d0e0e4736").unwrap();
        assert_eq!(
            (trace.role, trace.form, trace.upper),
            (FieldRole::Trace, ValueForm::Hex32, false)
        );
        assert_eq!(trace.value, 0x4bf92f3577b34da6a3ce929d0e0e4736);
        let upper = field_value(b"traceId", b"4BF92F3577B34DA6A3CE929D0E0E4736").unwrap();
        assert!(upper.upper);
        let dd = field_value(b"dd.trace_id", b"11803532876627986230").unwrap();
        assert_eq!(dd.form, ValueForm::Decimal);
        assert_eq!(dd.value, 11803532876627986230);
        assert!(dd.is_64_bit_trace());
        // 16 digits: hex in a B3 field, a decimal in a Datadog one.
        let b3 = field_value(b"X-B3-TraceId", b"1234567890123456").unwrap();
        assert_eq!(b3.form, ValueForm::Hex16);
        assert!(b3.is_64_bit_trace());
        let dd16 = field_value(b"dd.trace_id", b"1234567890123456").unwrap();
        assert_eq!(
            (dd16.form, dd16.value),
            (ValueForm::Decimal, 1234567890123456)
        );
        // 16 digits with a letter among them: hex, in a Datadog field too.
        let dd_hex = field_value(b"dd.trace_id", b"000462d53c8abac0").unwrap();
        assert_eq!(
            (dd_hex.form, dd_hex.value),
            (ValueForm::Hex16, 0x0004_62d5_3c8a_bac0)
        );
        assert_eq!(field_value(b"dd.span_id", b"12x"), None);
        let span = field_value(b"span_id", b"00F067AA0BA902B7").unwrap();
        assert_eq!(
            (span.role, span.upper, span.parent),
            (FieldRole::Span, true, false)
        );
        assert!(!span.is_64_bit_trace());
        assert!(
            field_value(b"parentSpanId", b"0000000000000000")
                .unwrap()
                .parent
        );
        assert!(is_parent_span_field(b"X-B3-ParentSpanId"));
        assert!(is_parent_span_field(b"x-datadog-parent-id"));
        assert!(!is_parent_span_field(b"span_id") && !is_parent_span_field(b"parent_id"));
        let xray = field_value(
            b"X-Amzn-Trace-Id",
            b"Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1",
        )
        .unwrap();
        assert_eq!(xray.form, ValueForm::Xray);
        assert_eq!(xray.value, 0x5759e988bd862e3fe1be46a994272793);
    }

    #[test]
    fn a_32_hex_token_is_whole() {
        assert!(is_hex32_token(b"4bf92f3577b34da6a3ce929d0e0e4736\",\"x\""));
        assert!(is_hex32_token(b"4BF92F3577B34DA6A3CE929D0E0E4736"));
        assert!(!is_hex32_token(b"4bf92f3577b34da6a3ce929d0e0e4736ff"));
        assert!(!is_hex32_token(b"a3ce929d0e0e4736 "));
        let value = trace_hex32(b"4BF92F3577B34DA6A3CE929D0E0E4736").unwrap();
        assert!(value.upper && value.role == FieldRole::Trace);
        assert_eq!(value.value, 0x4bf92f3577b34da6a3ce929d0e0e4736);
    }

    #[test]
    fn other_keys_and_values_are_no_trace_ids() {
        assert_eq!(
            field_value(b"user_id", b"4bf92f3577b34da6a3ce929d0e0e4736"),
            None
        );
        assert_eq!(
            field_value(b"b3", b"a3ce929d0e0e4736-e457b5a2e4d86bd1"),
            None
        );
        assert_eq!(field_value(b"parentSpanId", b""), None);
        assert_eq!(
            field_value(b"logging.googleapis.com/trace", b"projects/p/traces/abc"),
            None
        );
        assert_eq!(field_value(b"span_id", b"0xa3ce929d0e0e47"), None);
        // 21 digits do not fit in 64 bits.
        assert_eq!(field_value(b"dd.span_id", b"999999999999999999999"), None);
    }

    #[test]
    fn a_traceparent_is_read_around_its_trace_id() {
        let line = b"traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 x";
        let tp = traceparent_around(line, 15, 47).unwrap();
        assert_eq!(
            tp,
            Traceparent {
                version: 0,
                span: 0x00f067aa0ba902b7,
                upper: false,
                start: 12,
                end: 67
            }
        );
        let ff = b"ff-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01";
        let tp = traceparent_around(ff, 3, 35).unwrap();
        assert_eq!((tp.version, tp.upper), (0xff, true));
        // A b3 value and a longer dashed token are no traceparent.
        let b3 = b"b3=4bf92f3577b34da6a3ce929d0e0e4736-e457b5a2e4d86bd1-1";
        assert_eq!(traceparent_around(b3, 3, 35), None);
        let glued = b"x00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        assert_eq!(traceparent_around(glued, 4, 36), None);
        let long = b"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01ab";
        assert_eq!(traceparent_around(long, 3, 35), None);
    }

    /// Each span [`for_each_span`] finds in `line`, as the text it stands on and whether it
    /// is a decimal.
    fn spans(line: &str) -> Vec<(&str, u64, bool)> {
        let mut found = Vec::new();
        for_each_span(line.as_bytes(), |start, end, value, decimal| {
            found.push((&line[start..end], value, decimal))
        });
        found
    }

    #[test]
    fn the_spans_of_a_line_are_read_from_fields_and_headers() {
        let t = "4bf92f3577b34da6a3ce929d0e0e4736";
        let line = format!("traceparent=00-{t}-00f067aa0ba902b7-01 span_id=1111111111111111");
        assert_eq!(
            spans(&line),
            [
                ("00f067aa0ba902b7", 0x00f067aa0ba902b7, false),
                ("1111111111111111", 0x1111111111111111, false)
            ]
        );
        // W3C refuses version ff: no span is read from it.
        assert_eq!(spans(&format!("tp=ff-{t}-00f067aa0ba902b7-01")), []);
        // The single b3 header with a 128-bit or a 64-bit trace: its span and parent.
        let line = format!("b3={t}-e457b5a2e4d86bd1-1-53995c3f42cd8ad8");
        let texts = |found: Vec<(&str, u64, bool)>| {
            found.iter().map(|s| s.0.to_string()).collect::<Vec<_>>()
        };
        assert_eq!(
            texts(spans(&line)),
            ["e457b5a2e4d86bd1", "53995c3f42cd8ad8"]
        );
        assert_eq!(
            texts(spans("\"b3\":\"a3ce929d0e0e4736-e457b5a2e4d86bd1-0\"")),
            ["e457b5a2e4d86bd1"]
        );
        // X-Ray's Parent, after the root.
        let xray =
            spans("Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1");
        assert_eq!(xray, [("53995c3f42cd8ad8", 0x53995c3f42cd8ad8, false)]);
        // Decimals in span fields, 16 digits too under a Datadog key; 16 digits elsewhere are hex.
        assert_eq!(
            spans(
                r#"{"dd":{"trace_id":"1","span_id":"42"},"dd.span_id":1234567890123456,"x-b3-spanid":"1234567890123456"}"#
            ),
            [
                ("1234567890123456", 0x1234567890123456, false),
                ("42", 42, true),
                ("1234567890123456", 1234567890123456, true)
            ]
        );
        // Not spans: a zero span, a decimal glued to a letter, a trace field's value, 16 hex
        // in a longer token or under no span key, a Parent outside an X-Ray header.
        let line = "span_id=0000000000000000 dd.span_id=12ab trace_id=a3ce929d0e0e4736 \
                    span_id=00f067aa0ba902b7ff key=00f067aa0ba902b7 Parent: 00f067aa0ba902b7";
        assert_eq!(spans(line), []);
    }
}
