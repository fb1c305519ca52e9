//! Trace and span IDs read where a field or header puts them, for `audit`'s trace rules: the
//! value of a trace or span field (`trace_id`, `dd.trace_id`, `X-B3-SpanId`, `span.id`, ...)
//! and the W3C `traceparent` around a 32-hex trace ID. A search looks for one value in every
//! spelling; these say how each value is written instead: its width, its case, and whether
//! W3C Trace Context refuses it.

use super::trace::{
    FOLDED_MAX, FieldRole, SPAN_HEX_LEN, XRAY_LEN, decode_decimal, decode_hex64, decode_xray,
    field_role, folded,
};
use super::{HEX_DECODE, INVALID, UUID_UNDASHED_LEN, decode_hex};

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
    let upper = raw.iter().any(|b| (b'A'..=b'F').contains(b));
    let digits = !raw.is_empty() && raw.iter().all(u8::is_ascii_digit);
    let (form, value) = if role == FieldRole::Trace && raw.len() == UUID_UNDASHED_LEN {
        (ValueForm::Hex32, decode_hex(raw)?.0)
    } else if role == FieldRole::Trace
        && let Some(root) = xray_root(raw)
    {
        (ValueForm::Xray, decode_xray(root)?.0)
    } else if digits && (raw.len() != SPAN_HEX_LEN || datadog) {
        (ValueForm::Decimal, u128::from(decode_decimal(raw)?))
    } else {
        (ValueForm::Hex16, u128::from(decode_hex64(raw)?))
    };
    Some(FieldValue {
        role,
        form,
        value,
        upper: upper && form != ValueForm::Decimal,
        parent,
    })
}

/// Whether `bytes` starts with a 32-hex token: 32 hex digits, then no letter or digit.
pub fn is_hex32_token(bytes: &[u8]) -> bool {
    bytes.len() >= UUID_UNDASHED_LEN
        && bytes[..UUID_UNDASHED_LEN]
            .iter()
            .all(|&b| HEX_DECODE[b as usize] != INVALID)
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
        upper: token.iter().any(|b| (b'A'..=b'F').contains(b)),
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

/// The `traceparent` value whose trace ID is the 32 hex at `line[start..end]`: two hex digits
/// and `-` before, `-`, 16 hex, `-` and two hex after, as a whole token (a later version may
/// add fields after a `-`).
pub fn traceparent_around(line: &[u8], start: usize, end: usize) -> Option<Traceparent> {
    let hex = |range: std::ops::Range<usize>| {
        line.get(range)
            .filter(|part| part.iter().all(|&b| HEX_DECODE[b as usize] != INVALID))
    };
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
        upper: written.iter().any(|b| (b'A'..=b'F').contains(b)),
        start: start - 3,
        end: tail,
    })
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
}
