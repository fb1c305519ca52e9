//! The ID parser: every input it accepts round-trips through each of its renderings, a ULID's
//! and a UUID's value and time are the `ulid` and `uuid` crates', a bare 26-, 32- or
//! 36-character token is accepted exactly when those crates accept it, and a rejection
//! never panics and always has a message.

use idgrep::id::{self, Kind};

pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = match id::parse(text) {
        Ok(parsed) => parsed,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            agrees_on_rejection(text);
            return;
        }
    };
    let value = parsed.id;
    match parsed.kind {
        // A trace ID reads back from its 32 hex and its X-Ray form; a span ID from its 16 hex.
        Kind::Trace => {
            for rendering in [value.hex(), value.xray()] {
                let back = id::parse(&rendering).expect("a trace ID's rendering parses");
                assert_eq!(back.id, value, "{text:?} -> {rendering:?}");
            }
            return;
        }
        Kind::Span => {
            let back = id::parse(&value.hex16()).expect("a span ID's 16 hex parse");
            assert_eq!(back.id.low64(), value.low64(), "{text:?}");
            return;
        }
        Kind::Ulid | Kind::Uuid => {}
    }
    // Bare 32 hex with its high 64 bits zero is a 64-bit trace ID as OpenTelemetry pads it,
    // not a UUID: no UUID version leaves those bits zero.
    let bare_hex = if value.0 >> 64 == 0 && value.0 != 0 {
        Kind::Trace
    } else {
        Kind::Uuid
    };
    let renderings = [
        (value.ulid(), Kind::Ulid),
        (value.ulid().to_uppercase(), Kind::Ulid),
        (value.uuid(), Kind::Uuid),
        (value.uuid().to_uppercase(), Kind::Uuid),
        (value.hex(), bare_hex),
        (value.hex().to_uppercase(), bare_hex),
        (format!("{{{}}}", value.uuid()), Kind::Uuid),
        (format!("urn:uuid:{}", value.uuid()), Kind::Uuid),
        (format!("order_{}", value.ulid()), Kind::Ulid),
        (value.canonical(parsed.kind), parsed.kind),
    ];
    for (rendering, kind) in renderings {
        // A value over 2^128 - 1 has no ULID: the first character is at most 7.
        let back = id::parse(&rendering)
            .unwrap_or_else(|e| panic!("{text:?} renders as {rendering:?}, which fails: {e}"));
        assert_eq!(back.id, value, "{text:?} -> {rendering:?}");
        assert_eq!(back.kind, kind, "{text:?} -> {rendering:?}");
    }
    let mut written = Vec::new();
    value.write_canonical(parsed.kind, &mut written);
    assert_eq!(written, value.canonical(parsed.kind).as_bytes());

    // The crates' values, from the ID's own text: the last 26 characters of a ULID or
    // TypeID; the UUID with its wrapper, which the uuid crate reads too (`urn:uuid:` in
    // lower case only). Quotes around it, as jq and JSON print IDs, are idgrep's to read.
    let trimmed = unquoted(text.trim());
    match parsed.kind {
        Kind::Ulid => {
            let body = trimmed.trim_start_matches('{').trim_end_matches('}');
            let suffix = &body[body.len() - 26..];
            let oracle = ulid::Ulid::from_string(suffix).expect("the ulid crate reads it");
            assert_eq!(oracle.0, value.0, "{text:?}");
            assert_eq!(
                value.unix_ms(Kind::Ulid),
                Some(oracle.timestamp_ms() as i64),
                "{text:?}"
            );
        }
        Kind::Trace | Kind::Span => {}
        Kind::Uuid => {
            // The wrappers are idgrep's to read (`{...}`, `urn:uuid:` in any case, around
            // either form); the uuid crate reads the 36 or 32 characters inside.
            let mut inner = trimmed;
            if let Some(braced) = inner.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                inner = braced;
            }
            if inner.len() > 9 && inner[..9].eq_ignore_ascii_case("urn:uuid:") {
                inner = &inner[9..];
            }
            let oracle = uuid::Uuid::try_parse(inner).expect("the uuid crate reads it");
            assert_eq!(oracle.as_u128(), value.0, "{text:?}");
            let oracle_ms = oracle.get_timestamp().map(|t| {
                let (s, ns) = t.to_unix();
                s as i64 * 1000 + i64::from(ns) / 1_000_000
            });
            // idgrep dates only UUIDs of the RFC 9562 variant (a v1 layout under another
            // variant means something else); the uuid crate reads the version alone. Its
            // Unix time is unsigned: a v1 or v6 time before 1970 wraps there; idgrep's is
            // negative.
            if oracle.get_variant() != uuid::Variant::RFC4122 {
                assert_eq!(value.unix_ms(Kind::Uuid), None, "{text:?}");
            } else if value.unix_ms(Kind::Uuid).is_some_and(|ms| ms >= 0) {
                assert_eq!(value.unix_ms(Kind::Uuid), oracle_ms, "{text:?}");
            } else if value.unix_ms(Kind::Uuid).is_none() {
                assert_eq!(oracle_ms, None, "{text:?}");
            }
        }
    }
}

/// `text` without the pairs of double or single quotes around it.
fn unquoted(mut text: &str) -> &str {
    while let Some(inner) = ['"', '\''].into_iter().find_map(|quote| {
        text.strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
    }) {
        text = inner;
    }
    text
}

/// A bare token of an ID's length that idgrep rejects, the crates reject too.
fn agrees_on_rejection(text: &str) {
    let bytes = text.as_bytes();
    match bytes.len() {
        26 => {
            let crate_reads = ulid::Ulid::from_string(text).is_ok();
            assert!(
                !crate_reads || !(b'0'..=b'7').contains(&bytes[0]),
                "{text:?}: the ulid crate reads it"
            );
        }
        32 | 36 => {
            let hexish = bytes.iter().all(|&b| b.is_ascii_hexdigit() || b == b'-');
            assert!(
                !hexish || uuid::Uuid::try_parse_ascii(bytes).is_err(),
                "{text:?}: the uuid crate reads it"
            );
        }
        _ => {}
    }
}
