//! Unit tests of the ID module: parsing, rendering, forms, and the SIMD decoders against the
//! scalar ones.

use super::*;

#[test]
fn case_masks_give_back_the_token_as_written() {
    for token in ["01M8KBYGM5NG2PSHNY302ZVWBS", "01m8KbYgm5ng2pshny302zvwbs"] {
        let id = parse(token).unwrap().id;
        assert_eq!(
            id.ulid_bytes_cased(case_mask(token.as_bytes())),
            token.as_bytes()
        );
    }
    let hex = "01A226BF4285ac056CC6BE1805FDF179";
    let id = parse(hex).unwrap().id;
    assert_eq!(
        id.hex_bytes_cased(case_mask(hex.as_bytes())),
        hex.as_bytes()
    );
}

#[test]
fn non_ascii_input_is_an_error_not_a_panic() {
    for input in [
        "ééééé",
        "urn:uuid€x",
        "urn:uu€id:01kb2x1x0m4v6f9a1t8e3q7c5d",
        "{é}",
        "01kb2x1x0m4v6f9a1t8e3q7c5é",
    ] {
        assert!(parse(input).is_err(), "{input}");
    }
    // Every cut of a string full of multi-byte characters.
    let text = "urn:uuid:€01kb2x1x0m4v6f9a1t8e3q7c5d{ß}";
    for (i, _) in text.char_indices() {
        let _ = parse(&text[i..]);
        let _ = parse(&text[..i]);
    }
}

/// Every byte of every token length counts, the overlapping last window's too, checked
/// against a byte-by-byte test.
#[test]
fn letter_cases_sees_every_byte() {
    let naive = |t: &[u8]| {
        (
            t.iter().any(u8::is_ascii_uppercase),
            t.iter().any(u8::is_ascii_lowercase),
        )
    };
    let alphabet = b"0123456789abcdefghjkmnpqrstvwxyzABCDEFGHJKMNPQRSTVWXYZ-";
    for len in [26, 32, 36] {
        for at in 0..len {
            for &letter in b"aZ" {
                let mut token = vec![b'7'; len];
                token[at] = letter;
                assert_eq!(letter_cases(&token), naive(&token), "{len} {at}");
            }
        }
        let mut state = len as u32;
        for _ in 0..200 {
            let token: Vec<u8> = (0..len)
                .map(|_| {
                    state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    alphabet[(state >> 16) as usize % alphabet.len()]
                })
                .collect();
            assert_eq!(letter_cases(&token), naive(&token), "{token:?}");
        }
    }
}

#[test]
fn forms_of_written_tokens() {
    let id = parse("01kb2x1x0m4v6f9a1t8e3q7c5d").unwrap().id;
    let (ulid, uuid, hex) = (id.ulid(), id.uuid(), id.hex());
    let cases = [
        (Shape::Ulid, ulid.clone(), Form::UlidLower),
        (Shape::Ulid, ulid.to_uppercase(), Form::UlidUpper),
        (
            Shape::Ulid,
            format!("{}{}", &ulid[..5], ulid[5..].to_uppercase()),
            Form::UlidMixed,
        ),
        (
            Shape::Ulid,
            "01234567890123456789012345".to_string(),
            Form::UlidLower,
        ),
        (Shape::UuidDashed, uuid.clone(), Form::UuidLower),
        (Shape::UuidDashed, uuid.to_uppercase(), Form::UuidUpper),
        (
            Shape::UuidDashed,
            format!("{}{}", &uuid[..9], uuid[9..].to_uppercase()),
            Form::UuidMixed,
        ),
        (Shape::UuidUndashed, hex.to_uppercase(), Form::UuidUndashed),
    ];
    for (shape, token, want) in cases {
        let line = format!("x={token};");
        assert_eq!(
            Form::of(shape, line.as_bytes(), 2, 2 + token.len()),
            want,
            "{token}"
        );
    }
    let braced = format!("{{{}}}", uuid.to_uppercase());
    assert_eq!(
        Form::of(Shape::UuidDashed, braced.as_bytes(), 1, 37),
        Form::UuidBraced
    );
    let half = format!("{{{uuid}");
    assert_eq!(
        Form::of(Shape::UuidDashed, half.as_bytes(), 1, 37),
        Form::UuidLower
    );
    let urn = format!("URN:UUID:{uuid}");
    assert_eq!(
        Form::of(Shape::UuidDashed, urn.as_bytes(), 9, 45),
        Form::UuidUrn
    );
    let names: std::collections::HashSet<_> = Form::ALL.iter().map(|f| f.name()).collect();
    assert_eq!(names.len(), Form::ALL.len());
}

#[test]
fn ulid_round_trip_and_case() {
    let p = parse("01ARZ3NDEKTSV4RRFFQ69G5FAV").unwrap();
    assert_eq!(p.kind, Kind::Ulid);
    assert_eq!(p.id.ulid(), "01arz3ndektsv4rrffq69g5fav");
    assert_eq!(parse("01arz3ndektsv4rrffq69g5fav").unwrap(), p);
    assert_eq!(p.id.unix_ms(Kind::Ulid), Some(1469922850259));
}

#[test]
fn ulid_overflow_and_bad_chars_are_rejected() {
    assert_eq!(
        parse("80000000000000000000000000"),
        Err(ParseError::Overflow { first: '8' })
    );
    assert!(matches!(
        parse("2D9RW50LA499CMAGHM6DD42DTP"),
        Err(ParseError::BadChar {
            pos: 8,
            ch: 'L',
            ..
        })
    ));
    assert_eq!(
        parse("2D9RW50MA499CMAGHM6DD42DT"),
        Err(ParseError::Length(25))
    );
}

#[test]
fn uuid_forms_are_one_value() {
    let canon = parse("67e55044-10b1-426f-9247-bb680e5fe0c8").unwrap();
    for s in [
        "67E55044-10B1-426F-9247-BB680E5FE0C8",
        "67e5504410b1426f9247bb680e5fe0c8",
        "{67e55044-10b1-426f-9247-bb680e5fe0c8}",
        "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
        "URN:UUID:67E55044-10B1-426F-9247-BB680E5FE0C8",
    ] {
        let p = parse(s).unwrap();
        assert_eq!((p.id, p.kind), (canon.id, canon.kind), "{s}");
    }
    assert_eq!(canon.id.uuid(), "67e55044-10b1-426f-9247-bb680e5fe0c8");
    // Bare hex may be a trace ID; braces and the URN make it a UUID.
    assert!(
        parse("67e5504410b1426f9247bb680e5fe0c8")
            .unwrap()
            .may_be_trace()
    );
    assert!(
        parse("\"67e5504410b1426f9247bb680e5fe0c8\"")
            .unwrap()
            .may_be_trace()
    );
    assert!(!canon.may_be_trace());
}

#[test]
fn trace_fields_are_recognised_by_name_in_any_case_and_layout() {
    use trace::{FieldRole, field_before};
    let role = |line: &str| {
        let at = line.find('V').unwrap();
        field_before(line.as_bytes(), at)
    };
    for line in [
        r#"{"trace_id":"V"}"#,
        r#"{"traceId": "V"}"#,
        "trace.id=V",
        "X-B3-TraceId: V",
        "dd.trace_id=V",
        r#"{"dd":{"trace_id":V}}"#,
        r#"msg="{\"otelTraceID\":\"V\"}""#,
        "TRACE_ID_HEX = V",
    ] {
        assert_eq!(role(line), Some(FieldRole::Trace), "{line}");
    }
    for line in ["span_id=V", "X-B3-ParentSpanId: V", r#""parentSpanId":"V""#] {
        assert_eq!(role(line), Some(FieldRole::Span), "{line}");
    }
    assert_eq!(role("b3: V"), Some(FieldRole::B3));
    for line in ["V", "sha=V", "key: V", "trace V", "traces=V", "id=V"] {
        assert_eq!(role(line), None, "{line}");
    }
}

#[test]
fn trace_shapes_decode_only_their_layout() {
    let xray = b"1-5759e988-bd862e3fe1be46a994272793";
    assert_eq!(
        decode_shape(Shape::Xray, xray).map(|id| id.hex()),
        Some("5759e988bd862e3fe1be46a994272793".to_string())
    );
    assert_eq!(
        decode_shape(Shape::Xray, b"2-5759e988-bd862e3fe1be46a994272793"),
        None
    );
    assert_eq!(
        trace::decode_decimal(b"18446744073709551615"),
        Some(u64::MAX)
    );
    assert_eq!(trace::decode_decimal(b"18446744073709551616"), None);
    assert_eq!(trace::decode_decimal(b"12a"), None);
    assert_eq!(trace::decode_decimal(b""), None);
    assert_eq!(
        trace::decode_hex64(b"00F067AA0BA902B7"),
        Some(0x00f0_67aa_0ba9_02b7)
    );
    assert_eq!(Id(0x5759e988 << 96).xray_unix_ms(), 1_465_510_280_000);
}

#[test]
fn trace_parse_errors_point_at_the_culprit() {
    assert_eq!(
        parse("00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01"),
        Err(ParseError::BadTraceChar {
            pos: 35,
            ch: 'g',
            kind: "trace"
        })
    );
    assert_eq!(
        parse("0000000000000000"),
        Err(ParseError::ZeroTrace { what: "span" })
    );
    // Near misses of a header are named by the header's layout, not by a length.
    for (near_miss, header) in [
        (
            "1-5759e98-bd862e3fe1be46a9942727931",
            "an X-Ray trace ID is",
        ),
        (
            "2-5759e988-bd862e3fe1be46a994272793",
            "an X-Ray trace ID is",
        ),
        (
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",
            "a traceparent is",
        ),
        (
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "a traceparent is",
        ),
        (
            "4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1-zz",
            "a b3 value is",
        ),
    ] {
        let error = parse(near_miss).unwrap_err().to_string();
        assert!(error.starts_with(header), "{near_miss}: {error}");
    }
    let b3_64 = parse("a3ce929d0e0e4736-00f067aa0ba902b7-1").unwrap();
    assert_eq!(
        (b3_64.kind, b3_64.describe()),
        (Kind::Trace, "trace (64-bit)")
    );
}

#[test]
fn misplaced_dash_names_its_position() {
    assert_eq!(
        parse("F9168C5E-CEB-24fa-eB6BFF32-BF39FA1E4"),
        Err(ParseError::MisplacedDash { pos: 13 })
    );
    assert!(matches!(
        parse("F9168C5E-CEB2-4faa-BGBF-329BF39FA1E4"),
        Err(ParseError::BadChar {
            pos: 21,
            ch: 'G',
            ..
        })
    ));
}

#[test]
fn typeid_suffix_is_a_ulid() {
    let p = parse("user_01h455vb4pex5vsknk084sn02q").unwrap();
    assert_eq!(p.kind, Kind::Ulid);
    assert_eq!(p.id.ulid(), "01h455vb4pex5vsknk084sn02q");
    assert_eq!(p.id.uuid(), "01890a5d-ac96-774b-bcce-b302099a8057");
    // The prefix plus the suffix is 32 characters, the length of an undashed UUID.
    let p = parse("order_01m8kbygm5ng2pshny302zvwbs").unwrap();
    assert_eq!(p.id.ulid(), "01m8kbygm5ng2pshny302zvwbs");
    assert_eq!(
        parse("user_01h455vb4pex5vsknk084sn02"),
        Err(ParseError::Length(25))
    );
}

#[test]
fn ulid_and_uuid_renderings_are_the_same_bits() {
    let p = parse("3Q38XWW0Q98GMAD3NHWZM2PZWZ").unwrap();
    assert_eq!(p.id.uuid(), "771a3bce-02e9-4428-a68e-b1e7e82b7f9f");
    let back = parse(&p.id.uuid()).unwrap();
    assert_eq!(back.id, p.id);
}

#[test]
fn times_from_rfc_examples() {
    for s in [
        "C232AB00-9414-11EC-B3C8-9F6BDECED846",
        "1EC9414C-232A-6B00-B3C8-9F6BDECED846",
        "017F22E2-79B0-7CC3-98C4-DC0C0C07398F",
    ] {
        let p = parse(s).unwrap();
        assert_eq!(p.id.unix_ms(p.kind), Some(1645557742000), "{s}");
    }
    let v8 = parse("2489E9AD-2EE2-8E00-8EC9-32D5F69181C0").unwrap();
    assert_eq!(v8.id.unix_ms(Kind::Uuid), None);
}

#[test]
fn nil_and_max_have_no_version() {
    let nil = parse("00000000-0000-0000-0000-000000000000").unwrap();
    assert_eq!(nil.id.uuid_version(), None);
    assert_eq!(nil.id.uuid_variant(), Variant::Nil);
    assert_eq!(nil.id.describe(Kind::Uuid), "uuid nil");
    let max = parse("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF").unwrap();
    assert_eq!(max.id.uuid_variant(), Variant::Max);
    assert_eq!(max.id.unix_ms(Kind::Uuid), None);
}

/// Whether the CPU has SSE4.1 for the shuffle decoders, said on stderr. They serve the
/// AVX2 and AVX-512 token walks, so a skip fails the test when `IDGREP_REQUIRE_SIMD` lists
/// either.
#[cfg(target_arch = "x86_64")]
fn sse41_or_skip(test: &str) -> bool {
    use crate::scan::simd::{Level, coverage};
    if std::is_x86_feature_detected!("sse4.1") {
        eprintln!("{test}: ran sse4.1");
        return true;
    }
    eprintln!("{test}: skipped sse4.1 (CPU lacks sse4.1)");
    let required = coverage::required();
    assert!(
        !required.contains(&Level::Avx2) && !required.contains(&Level::Avx512),
        "{test}: IDGREP_REQUIRE_SIMD lists a level that needs SSE4.1, which this CPU lacks"
    );
    false
}

#[cfg(target_arch = "x86_64")]
#[test]
fn shuffle_ulid_decoder_agrees_with_the_table_one_on_every_character() {
    if !sse41_or_skip("id shuffle ulid decoder") {
        return;
    }
    let base = Id(0x0123_4567_89ab_cdef_0fed_cba9_8765_4321).ulid_bytes();
    for at in 0..ULID_LEN {
        for &c in b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" {
            let mut token = base;
            token[at] = c;
            // SAFETY: the CPU has SSE4.1, checked above.
            let got = unsafe { sse41::decode_ulid(&token) };
            assert_eq!(got, decode_ulid(&token), "{:?}", token.escape_ascii());
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn shuffle_uuid_decoders_agree_with_the_table_ones_on_every_digit() {
    if !sse41_or_skip("id shuffle uuid decoders") {
        return;
    }
    let mut state = 0x4e8u64;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let z = (state ^ (state >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for round in 0..200 {
        let id = Id(((next() as u128) << 64) | next() as u128);
        let (mut hex, mut dashed) = (id.hex_bytes(), id.uuid_bytes());
        const HEX_DIGITS: &[u8] = b"0123456789abcdefABCDEF";
        let digit = HEX_DIGITS[round % HEX_DIGITS.len()];
        hex[round % UUID_UNDASHED_LEN] = digit;
        let at = round % UUID_DASHED_LEN;
        if dashed[at] != b'-' {
            dashed[at] = digit;
        }
        // SAFETY: the CPU has SSE4.1, checked above.
        unsafe {
            assert_eq!(Some(sse41::decode_hex(&hex)), decode_hex(&hex));
            assert_eq!(Some(sse41::decode_dashed(&dashed)), decode_dashed(&dashed));
        }
    }
}

#[test]
fn digits_only_ulid_tokens_are_numbers_but_the_nil_ulid_is_not() {
    assert!(is_number(Shape::Ulid, b"20261201100000123456789012"));
    assert!(!is_number(Shape::Ulid, b"00000000000000000000000000"));
    assert!(!is_number(Shape::Ulid, b"0123456789012345678901234a"));
    assert!(!is_number(
        Shape::UuidUndashed,
        b"12345678901234567890123456789012"
    ));
}

#[test]
fn a_value_of_no_rfc_version_reports_no_version() {
    // A ULID stored as a UUID: variant bits 0b0xx (NCS), version nibble 10.
    let ncs = parse("0192d4f8-6b1e-a7c3-3f00-8e2b1c4d5a6f").unwrap();
    assert_eq!(ncs.id.uuid_version(), None);
    assert_eq!(ncs.id.version(Kind::Uuid), None);
    assert_eq!(ncs.id.describe(Kind::Uuid), "uuid non-rfc");
    // The RFC variant with version nibble 7 but NCS variant bits: no version, no time.
    let v7_bits_ncs = parse("0192d4f8-6b1e-77c3-3f00-8e2b1c4d5a6f").unwrap();
    assert_eq!(v7_bits_ncs.id.uuid_version(), None);
    assert_eq!(v7_bits_ncs.id.unix_ms(Kind::Uuid), None);
    // The RFC variant with an undefined version nibble (0 and 15).
    for text in [
        "0192d4f8-6b1e-07c3-8f00-8e2b1c4d5a6f",
        "0192d4f8-6b1e-f7c3-8f00-8e2b1c4d5a6f",
    ] {
        let id = parse(text).unwrap().id;
        assert_eq!(id.uuid_version(), None, "{text}");
        assert_eq!(id.describe(Kind::Uuid), "uuid non-rfc", "{text}");
    }
    let v7 = parse("0192d4f8-6b1e-77c3-8f00-8e2b1c4d5a6f").unwrap();
    assert_eq!(v7.id.uuid_version(), Some(7));
}

/// A decimal of 12 to 20 digits is a Datadog ID, a span's or a 64-bit trace's; shorter, longer
/// than 64 bits or all zero, it is refused with the reason.
#[test]
fn a_datadog_decimal_is_a_span_or_a_64_bit_trace() {
    for (input, value) in [
        ("11803532876627986230", 11803532876627986230u64),
        ("100000000000", 100_000_000_000),
        ("18446744073709551615", u64::MAX),
        (" 067667974448284343 ", 67667974448284343),
    ] {
        let parsed = parse(input).unwrap();
        assert_eq!(
            (parsed.id.low64(), parsed.kind, parsed.written),
            (value, Kind::Span, Written::Decimal),
            "{input}"
        );
        assert!(parsed.is_trace64(), "{input}");
        assert_eq!(parsed.describe(), "span or trace (64-bit)");
    }
    // 16 digits are 16 hex: a span ID.
    assert_eq!(parse("1234567890123456").unwrap().written, Written::SpanHex);
    for (input, error) in [
        ("18446744073709551616", "at most 18446744073709551615"),
        ("000000000000", "all-zero span or trace ID"),
        ("12345678901", "length 11"),
        ("123456789012345678901", "length 21"),
    ] {
        let text = parse(input).unwrap_err().to_string();
        assert!(text.contains(error), "{input}: {text}");
    }
}

/// Decimals of up to 20 digits decode as the standard library parses them: digits only, a
/// stray byte anywhere, values either side of `u64::MAX`.
#[test]
fn decimals_decode_as_the_standard_parser_does() {
    let mut rng = crate::testing::Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..50_000 {
        let len = rng.below(23);
        let mut text: Vec<u8> = (0..len).map(|_| b'0' + rng.below(10) as u8).collect();
        match rng.below(4) {
            0 if len > 0 => text[rng.below(len)] = *rng.pick(b"/:a -+"),
            1 if len == 20 => text[0] = b'1',
            _ => {}
        }
        let want = std::str::from_utf8(&text)
            .ok()
            // No more digits than a 64-bit value needs, leading zeros or not.
            .filter(|t| t.len() <= trace::DECIMAL_MAX_LEN && t.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|t| t.parse::<u64>().ok());
        assert_eq!(
            trace::decode_decimal(&text),
            want,
            "{:?}",
            String::from_utf8_lossy(&text)
        );
    }
}

/// The branch-free hex test agrees with the decode table on every byte, and on strings of
/// every length up to 40 with one byte anywhere not a digit.
#[test]
fn all_hex_agrees_with_the_decode_table() {
    for b in 0..=255u8 {
        assert_eq!(all_hex(&[b]), HEX_DECODE[b as usize] != INVALID, "{b:#x}");
    }
    let digits = b"0123456789abcdefABCDEF";
    let mut rng = crate::testing::Rng(11);
    for len in 0..=40 {
        let mut bytes: Vec<u8> = (0..len).map(|_| *rng.pick(digits)).collect();
        assert!(all_hex(&bytes));
        for at in 0..len {
            let kept = bytes[at];
            for b in [b'g', b'G', b'/', b':', b'@', b'`', 0x80, 0] {
                bytes[at] = b;
                assert!(!all_hex(&bytes), "{len} {at} {b:#x}");
            }
            bytes[at] = kept;
        }
    }
}

/// 16 hex digits decode as a digit-by-digit table decode does: every value of every byte at
/// every position of valid digits (so each invalid byte is refused wherever it stands), other
/// lengths refused, and random strings of digits in both cases.
#[test]
fn hex64_decodes_as_the_table_does() {
    let table = |bytes: &[u8]| -> Option<u64> {
        (bytes.len() == 16).then_some(())?;
        bytes.iter().try_fold(0u64, |value, &b| {
            let d = HEX_DECODE[b as usize];
            (d != INVALID).then(|| value << 4 | u64::from(d))
        })
    };
    let base = *b"0123456789abcdef";
    for at in 0..16 {
        for b in 0..=255u8 {
            let mut digits = base;
            digits[at] = b;
            assert_eq!(trace::decode_hex64(&digits), table(&digits), "{at} {b}");
        }
    }
    assert_eq!(trace::decode_hex64(b"0123456789abcde"), None);
    assert_eq!(trace::decode_hex64(b"0123456789abcdef0"), None);
    let mut rng = crate::testing::Rng(0x16);
    const DIGITS: &[u8] = b"0123456789abcdefABCDEF";
    for _ in 0..10_000 {
        let digits: Vec<u8> = (0..16).map(|_| *rng.pick(DIGITS)).collect();
        let value = table(&digits).expect("hex digits");
        assert_eq!(trace::decode_hex64(&digits), Some(value));
        assert_eq!(
            format!("{value:016x}"),
            String::from_utf8_lossy(&digits).to_lowercase()
        );
    }
}

/// 32 hex digits and X-Ray IDs decode as `u128::from_str_radix` reads their digits, with any
/// byte value at any place refused unless it is a digit.
#[test]
fn hex32_and_xray_decode_as_the_standard_library_reads_them() {
    let oracle = |digits: &[u8]| -> Option<u128> {
        let text = std::str::from_utf8(digits).ok()?;
        // `from_str_radix` takes a leading `+`; a token never does.
        (!text.starts_with('+')).then_some(())?;
        u128::from_str_radix(text, 16).ok()
    };
    let base = *b"4bf92f3577b34da6a3ce929d0e0e4736";
    for at in 0..UUID_UNDASHED_LEN {
        for b in 0..=255u8 {
            let mut digits = base;
            digits[at] = b;
            assert_eq!(
                decode_hex(&digits).map(|id| id.0),
                oracle(&digits),
                "{at} {b}"
            );
            let mut xray = b"1-".to_vec();
            xray.extend_from_slice(&digits[..8]);
            xray.push(b'-');
            xray.extend_from_slice(&digits[8..]);
            assert_eq!(
                trace::decode_xray(&xray).map(|id| id.0),
                oracle(&digits),
                "{}",
                String::from_utf8_lossy(&xray)
            );
        }
    }
    let mut rng = crate::testing::Rng(0x32);
    const DIGITS: &[u8] = b"0123456789abcdefABCDEF";
    for _ in 0..10_000 {
        let digits: Vec<u8> = (0..32).map(|_| *rng.pick(DIGITS)).collect();
        assert_eq!(decode_hex(&digits).map(|id| id.0), oracle(&digits));
    }
    assert_eq!(decode_hex(&base[..31]), None);
    assert_eq!(
        trace::decode_xray(b"1-5759e988bd862e3fe1be46a994272793"),
        None
    );
    assert_eq!(
        trace::decode_xray(b"1-5759e988-bd862e3fe1be46a994272793").map(|id| id.0),
        Some(0x5759e988bd862e3fe1be46a994272793)
    );
}

/// The word-at-a-time renderings spell every value as the `ulid` and `uuid` crates do: all
/// zeros, all ones, each single bit, and random values.
#[test]
fn renderings_match_the_ulid_and_uuid_crates() {
    let mut rng = crate::testing::Rng(0x05ee_d1d5);
    let edges = [0, u128::MAX]
        .into_iter()
        .chain((0..128).map(|bit| 1u128 << bit));
    let random = (0..20_000).map(|_| u128::from(rng.next()) << 64 | u128::from(rng.next()));
    for value in edges.chain(random) {
        let id = Id(value);
        let ulid = ulid::Ulid(value).to_string().to_ascii_lowercase();
        assert_eq!(id.ulid_bytes(), ulid.as_bytes(), "{value:#x}");
        let uuid = uuid::Uuid::from_u128(value);
        assert_eq!(
            id.uuid_bytes(),
            uuid.hyphenated().to_string().as_bytes(),
            "{value:#x}"
        );
        assert_eq!(
            id.hex_bytes(),
            uuid.simple().to_string().as_bytes(),
            "{value:#x}"
        );
    }
}
