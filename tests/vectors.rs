//! The official test vectors (ULID spec, RFC 9562, oklog/ulid, ulid-rs, uuid-rs), copied as
//! facts into `tests/data/`, against the ID module.

use idgrep::id::{self, Kind, ParseError, Variant};
use serde_json::Value;

fn load(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_valid_vector_parses_to_its_bytes_version_and_time() {
    let vectors = load("id_vectors.json");
    assert_eq!(vectors.len(), 50);
    for v in &vectors {
        let input = v["id"].as_str().unwrap();
        let parsed = id::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(parsed.id.hex(), v["bytes_hex"].as_str().unwrap(), "{input}");
        let kind = match v["kind"].as_str().unwrap() {
            "ulid" => Kind::Ulid,
            _ => Kind::Uuid,
        };
        assert_eq!(parsed.kind, kind, "{input}");
        assert_eq!(parsed.id.unix_ms(kind), v["unix_ms"].as_i64(), "{input}");
        match &v["version"] {
            // A vector's `version` is its version nibble. Outside the RFC variant (the vector's
            // `variant_bits` say which) that nibble names no RFC 9562 version, and idgrep
            // reports none, as its `uuid non-rfc` kind says.
            Value::Number(_) if v.get("variant_bits").is_some_and(|b| b != "10") => {
                assert_eq!(parsed.id.version(kind), None, "{input}");
                assert_eq!(parsed.id.describe(kind), "uuid non-rfc", "{input}");
            }
            Value::Number(n) => {
                assert_eq!(
                    parsed.id.version(kind),
                    Some(n.as_u64().unwrap() as u8),
                    "{input}"
                )
            }
            Value::String(s) if s == "nil" => {
                assert_eq!(parsed.id.version(kind), None);
                assert_eq!(parsed.id.variant(kind), Some(Variant::Nil));
            }
            Value::String(s) if s == "max" => {
                assert_eq!(parsed.id.version(kind), None);
                assert_eq!(parsed.id.variant(kind), Some(Variant::Max));
            }
            Value::Null => assert_eq!(parsed.id.version(kind), None, "{input}"),
            other => panic!("unexpected version {other}"),
        }
        // The canonical rendering is lowercase and parses back to the same bits.
        let canonical = parsed.id.canonical(kind);
        assert_eq!(canonical, canonical.to_lowercase());
        assert_eq!(id::parse(&canonical).unwrap().id, parsed.id);
    }
}

#[test]
fn the_ncs_variant_vector_has_no_time_and_no_rfc_version() {
    let p = id::parse("01020304-1112-2122-3132-414243444546").unwrap();
    assert_eq!(p.id.version(Kind::Uuid), None);
    assert_eq!(p.id.variant(Kind::Uuid), Some(Variant::Ncs));
    assert_eq!(p.id.unix_ms(Kind::Uuid), None);
}

#[test]
fn every_invalid_vector_is_rejected_for_its_reason() {
    for v in load("invalid_vectors.json") {
        let input = v["id"].as_str().unwrap();
        let why = v["why"].as_str().unwrap();
        let err = id::parse(input).expect_err(input);
        let fits = match &err {
            ParseError::Overflow { .. } => why.contains("overflow"),
            ParseError::Length(_) => {
                why.contains("chars")
                    || why.contains("digit")
                    || why.contains("short")
                    || why.contains("missing")
            }
            ParseError::BadChar { .. } => {
                why.contains("contains") || why.contains("char") || why.contains("non-hex")
            }
            ParseError::MisplacedDash { .. } => why.contains("hyphen"),
            _ => false,
        };
        assert!(fits, "{input}: rejected as {err:?}, vector says {why}");
    }
}
