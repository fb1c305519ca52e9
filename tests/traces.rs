//! Trace and span IDs: the W3C Trace Context, X-Ray and B3 vectors in `tests/data/`, `decode`
//! of each spelling, a search of `testdata/traces/` (one trace written by five kinds of logs)
//! for every spelling of it, and the matcher against a regex oracle on generated haystacks
//! full of digests, addresses and numbers that must not match.

use std::collections::BTreeSet;
use std::process::Output;

use idgrep::id::{self, Id, Kind, Parsed};
use idgrep::scan::Matcher;
use regex::bytes::Regex;
use serde_json::Value;

use crate::support::{Rng, run, run_with_input};

fn load(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn every_trace_vector_parses_to_its_value_kind_and_time() {
    let vectors = load("trace_vectors.json");
    assert_eq!(vectors.len(), 11);
    for v in &vectors {
        let input = v["input"].as_str().unwrap();
        let parsed = id::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        let value = v["value_hex"].as_str().unwrap();
        let kind = match v["kind"].as_str().unwrap() {
            "trace" => Kind::Trace,
            "span" => Kind::Span,
            _ => Kind::Uuid,
        };
        assert_eq!(parsed.kind, kind, "{input}");
        assert_eq!(parsed.id.canonical(kind).replace('-', ""), value, "{input}");
        assert_eq!(parsed.unix_ms(), v["unix_ms"].as_i64(), "{input}");
        if let Some(decimal) = v["dd_decimal"].as_str() {
            assert_eq!(parsed.id.low64().to_string(), decimal, "{input}");
        }
        if v["may_be_trace"].as_bool() == Some(true) {
            assert!(parsed.may_be_trace(), "{input}");
        }
        // The span a header carries is its own ID too.
        if let Some(span) = v["span_hex"].as_str() {
            let p = id::parse(span).unwrap();
            assert_eq!((p.kind, p.id.hex16()), (Kind::Span, span.to_string()));
        }
    }
}

#[test]
fn every_invalid_trace_vector_is_refused_naming_what_is_accepted() {
    for v in load("trace_invalid_vectors.json") {
        let input = v["input"].as_str().unwrap();
        let why = v["why"].as_str().unwrap();
        let err = id::parse(input).expect_err(input).to_string();
        let fits = match why {
            w if w.starts_with("all-zero") => err.contains("all-zero"),
            "version ff" => err.contains("version ff"),
            "non-hex character" => err.contains("bad character 'g'"),
            "length" => err.starts_with("length 34"),
            "sampled field" => err.contains("0, 1 or d"),
            other => panic!("no expectation for {other}"),
        };
        assert!(fits, "{input}: {err}, vector says {why}");
        let out = run(&["decode", input]);
        assert_eq!(out.status.code(), Some(2), "{input}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("accepted forms:") && stderr.contains("traceparent"),
            "{stderr}"
        );
    }
}

#[test]
fn decode_calls_bare_hex_a_uuid_layout_or_a_trace_never_plainly_uuid_v4() {
    let text = stdout(&run(&["decode", "4bf92f3577b34da6a3ce929d0e0e4736"]));
    assert!(
        text.contains("kind     uuid v4 layout or trace\n"),
        "{text}"
    );
    assert!(text.contains("xray     1-4bf92f35-77b34da6a3ce929d0e0e4736\n"));
    assert!(text.contains("dd       11803532876627986230 (dd.trace_id)\n"));
    let json: Value = serde_json::from_slice(
        &run(&["decode", "--json", "4bf92f3577b34da6a3ce929d0e0e4736"]).stdout,
    )
    .unwrap();
    assert_eq!(json["kind"], "uuid");
    assert_eq!(json["version"], 4);
    assert_eq!(json["trace"]["b3_64"], "a3ce929d0e0e4736");
    // A UUID written with dashes stays a UUID.
    let dashed = stdout(&run(&["decode", "4bf92f35-77b3-4da6-a3ce-929d0e0e4736"]));
    assert!(dashed.contains("kind     uuid\n"), "{dashed}");
}

#[test]
fn decode_of_an_xray_id_says_trace_and_shows_its_time() {
    let text = stdout(&run(&["decode", "1-5759e988-bd862e3fe1be46a994272793"]));
    assert!(text.contains("kind     trace\n"), "{text}");
    assert!(text.contains("time     2016-06-09T22:11:20.000Z"), "{text}");
    assert!(text.contains("hex      5759e988bd862e3fe1be46a994272793\n"));
    let span = stdout(&run(&["decode", "--json", "00f067aa0ba902b7"]));
    let json: Value = serde_json::from_str(&span).unwrap();
    assert_eq!(json["kind"], "span");
    assert_eq!(json["span"]["dd_decimal"], "67667974448284343");
    assert!(json.get("uuid").is_none());
}

/// `path:line` of every line a search prints, with file names forced on.
fn found(query: &str) -> BTreeSet<String> {
    let out = run(&["-H", "--color", "never", query, "testdata/traces"]);
    assert!(
        out.status.code() == Some(0),
        "{query}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
        .lines()
        .map(|l| {
            let mut parts = l.splitn(3, ':');
            let path = parts.next().unwrap().replace('\\', "/");
            format!("{path}:{}", parts.next().unwrap())
        })
        .collect()
}

fn set(lines: &[&str]) -> BTreeSet<String> {
    lines
        .iter()
        .map(|l| format!("testdata/traces/{l}"))
        .collect()
}

#[test]
fn one_trace_is_found_in_every_log_whichever_spelling_is_asked() {
    // The lines that hold the trace: OTLP's traceId, ECS's trace.id, a traceparent, a b3
    // header, the low 64 bits in X-B3-TraceId, the X-Ray header of nginx, the Datadog
    // decimal. Not: the same 16 hex as a span.id, as a cache key, as 0x..., glued to more
    // hex, nor the decimal in a field that names no trace.
    let expected = set(&[
        "access.log:1",
        "app.logfmt:1",
        "app.logfmt:2",
        "app.logfmt:3",
        "datadog.json:1",
        "ecs.json:1",
        "otlp.json:1",
        "otlp.json:2",
    ]);
    for query in [
        "4bf92f3577b34da6a3ce929d0e0e4736",
        "4BF92F3577B34DA6A3CE929D0E0E4736",
        "1-4bf92f35-77b34da6a3ce929d0e0e4736",
        "Root=1-4bf92f35-77b34da6a3ce929d0e0e4736;Parent=53995c3f42cd8ad8;Sampled=1",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "4bf92f3577b34da6a3ce929d0e0e4736-e457b5a2e4d86bd1-1-53995c3f42cd8ad8",
    ] {
        assert_eq!(found(query), expected, "{query}");
    }
}

/// A 64-bit trace ID (a `b3` value with 16 hex digits, or the 32 hex OpenTelemetry pads it to,
/// as `ids` lists it) is the low half of the fleet's 128-bit trace: a search for it finds the
/// same lines as a search for that trace, and the same 16 hex as a span, a cache key or an
/// address stays out.
#[test]
fn a_64_bit_trace_finds_the_128_bit_trace_it_is_the_low_half_of() {
    let whole_trace = found("4bf92f3577b34da6a3ce929d0e0e4736");
    for query in [
        "a3ce929d0e0e4736-05e3ac9a4f6e3b90-1",
        "0000000000000000a3ce929d0e0e4736",
    ] {
        assert_eq!(found(query), whole_trace, "{query}");
        let text = stdout(&run(&["decode", query]));
        assert!(text.contains("kind     trace (64-bit)\n"), "{text}");
        assert!(
            text.contains("dd       11803532876627986230 (dd.trace_id)\n"),
            "{text}"
        );
        let json: Value =
            serde_json::from_slice(&run(&["decode", "--json", query]).stdout).unwrap();
        assert_eq!(json["kind"], "trace", "{query}");
        assert_eq!(json["id"], "0000000000000000a3ce929d0e0e4736", "{query}");
        assert!(
            json.get("span").is_none() && json.get("uuid").is_none(),
            "{json}"
        );
        // No X-Ray spelling: an X-Ray ID starts with a time, which 64 bits do not hold. An
        // X-Ray ID of time 0 given as such keeps it.
        assert!(!text.contains("xray"), "{text}");
        let xray = stdout(&run(&["decode", "1-00000000-00000000a3ce929d0e0e4736"]));
        assert!(
            xray.contains("xray     1-00000000-00000000a3ce929d0e0e4736\n"),
            "{xray}"
        );
        assert_eq!(json["trace"]["b3_64"], "a3ce929d0e0e4736", "{json}");
        assert!(json["trace"].get("xray").is_none(), "{json}");
        // Its padded value in a UUID or ULID rendering, as a bare token or in a version ff
        // traceparent is no trace; in a trace field it is.
        let out = run_with_input(
            &["-n", query],
            b"order=00000000-0000-0000-a3ce-929d0e0e4736\n\
              order={00000000-0000-0000-A3CE-929D0E0E4736}\n\
              order=0000000000000a7kmjkm70whsp\n\
              sha=0000000000000000a3ce929d0e0e4736\n\
              traceparent=ff-0000000000000000a3ce929d0e0e4736-00f067aa0ba902b7-01\n\
              trace_id=0000000000000000A3CE929D0E0E4736\n",
        );
        assert_eq!(
            stdout(&out),
            "6:trace_id=0000000000000000A3CE929D0E0E4736\n",
            "{query}"
        );
    }
}

/// A decimal as the Datadog UI shows an ID may be a span's or a 64-bit trace's: its search
/// finds what both find.
#[test]
fn a_datadog_decimal_finds_its_span_and_its_trace() {
    let trace = "11803532876627986230";
    let mut both = found("a3ce929d0e0e4736");
    both.extend(found("a3ce929d0e0e4736-05e3ac9a4f6e3b90-1"));
    assert_eq!(found(trace), both);
    assert!(both.contains("testdata/traces/otlp.json:1"), "{both:?}");
    // A span's decimal: no trace has it as its low half.
    assert_eq!(found("16453819474850114513"), found("e457b5a2e4d86bd1"));
    let text = stdout(&run(&["decode", trace]));
    assert!(text.contains("kind     span or trace (64-bit)\n"), "{text}");
    assert!(!text.contains("xray"), "{text}");
    assert!(
        text.contains("(dd.trace_id)") && text.contains("(dd.span_id)"),
        "{text}"
    );
}

#[test]
fn a_span_is_found_as_16_hex_anywhere_and_as_a_decimal_in_a_span_field() {
    assert_eq!(
        found("00f067aa0ba902b7"),
        set(&["app.logfmt:1", "otlp.json:1"])
    );
    assert_eq!(
        found("e457b5a2e4d86bd1"),
        set(&["app.logfmt:2", "app.logfmt:3", "datadog.json:1"])
    );
    // A 16-hex span inside a 32-hex trace ID is no whole token.
    let out = run(&["77b34da6a3ce929d", "testdata/traces"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}

/// A span query with a small value (its decimal shorter than 12 digits) among trace queries,
/// on lines that begin with a short number: each found where its span field holds it, and
/// no crash.
#[test]
fn a_small_span_among_trace_queries_is_found_in_lines_that_begin_with_numbers() {
    let out = run_with_input(
        &[
            "-e",
            "00000000000004d2",
            "-e",
            "4bf92f3577b34da6a3ce929d0e0e4736",
            "-e",
            "5759e988bd862e3fe1be46a994272793",
        ],
        b"1234567 items\n12 dd.span_id=1234\n1234 dd.span_id=12345\n",
    );
    assert_eq!(
        (
            out.status.code(),
            stdout(&out),
            String::from_utf8_lossy(&out.stderr)
        ),
        (Some(0), "2:12 dd.span_id=1234\n".to_string(), "".into())
    );
}

/// A key a log might write a trace ID's low 64 bits under, and one it might not.
const TRACE_KEYS: &[&str] = &[
    "\"trace_id\":\"",
    "\"traceId\": \"",
    "X-B3-TraceId: ",
    "dd.trace_id=",
    "trace.id=",
    "\"dd\":{\"trace_id\":",
    "b3=",
    // ECS nested: the object's key names the `id`.
    "{\"trace\": {\"id\":\"",
];
const OTHER_KEYS: &[&str] = &[
    "\"span_id\":\"",
    "sha=",
    "key: ",
    "count=",
    "0x",
    "",
    "{\"user\":{\"id\":\"",
];

/// A haystack with `target` in every trace spelling, the low 64 bits (16 hex, decimal) under
/// trace keys and under other keys, near misses and random digests.
fn trace_haystack(rng: &mut Rng, target: Id, len: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let cased = |s: String, rng: &mut Rng| {
        if rng.below(2) == 0 {
            s.to_uppercase()
        } else {
            s
        }
    };
    while out.len() < len {
        let value = match rng.below(4) {
            0 => target,
            1 => Id(target.0 ^ (1 << rng.below(128))),
            _ => Id(rng.u128()),
        };
        let low = value.low64();
        let text = match rng.below(12) {
            0 => cased(value.hex(), rng),
            1 => cased(value.uuid(), rng),
            2 => cased(value.xray(), rng),
            3 => format!("traceparent: 00-{}-{:016x}-01", value.hex(), rng.next()),
            4 => format!("Root={};Parent={:016x}", value.xray(), rng.next()),
            5 => format!("{}{:016x}", rng.pick(TRACE_KEYS), low),
            6 => format!("{}{}", rng.pick(TRACE_KEYS), low),
            7 => format!("{}{:016x}", rng.pick(OTHER_KEYS), low),
            8 => format!("{}{}", rng.pick(OTHER_KEYS), low),
            9 => format!("md5 {:032x}", rng.u128()),
            10 => format!("{}{}", rng.pick(TRACE_KEYS), cased(value.hex(), rng)),
            _ => format!("{}a", value.hex()),
        };
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(if rng.below(3) == 0 { b"\n" } else { b" " });
    }
    out
}

/// The spans where `target` stands, found the obvious way: each spelling's regex at each
/// token start, and the low 64 bits only right after one of the trace keys.
fn trace_oracle(hay: &[u8], target: Id) -> Vec<(usize, usize)> {
    let hex = target.hex();
    let low = target.low64();
    let anywhere = [
        Regex::new(&format!("(?i-u)^{hex}")).unwrap(),
        Regex::new(&format!("(?i-u)^{}", target.uuid())).unwrap(),
        Regex::new(&format!("(?i-u)^{}", target.xray())).unwrap(),
        Regex::new(&format!("(?i-u)^{}", target.ulid())).unwrap(),
    ];
    let keys = TRACE_KEYS
        .iter()
        .map(|k| regex::escape(k))
        .collect::<Vec<_>>()
        .join("|");
    let in_field = Regex::new(&format!("(?i-u)(?:{keys})({low:016x}|{low})")).unwrap();
    let mut found = BTreeSet::new();
    for start in 0..hay.len() {
        for re in &anywhere {
            if let Some(m) = re.find(&hay[start..])
                && is_whole(hay, start, start + m.end())
            {
                found.insert((start, start + m.end()));
            }
        }
    }
    insert_whole_captures(hay, &in_field, &mut found);
    found.into_iter().collect()
}

/// Whether `hay[start..end]` is a whole token: no ASCII letter or digit right before or after.
fn is_whole(hay: &[u8], start: usize, end: usize) -> bool {
    let alnum = |b: u8| b.is_ascii_alphanumeric();
    (start == 0 || !alnum(hay[start - 1])) && (end == hay.len() || !alnum(hay[end]))
}

/// Adds where each match's first group of `re` stands in `hay`, when it is a whole token.
fn insert_whole_captures(hay: &[u8], re: &Regex, found: &mut BTreeSet<(usize, usize)>) {
    for c in re.captures_iter(hay) {
        let m = c.get(1).unwrap();
        if is_whole(hay, m.start(), m.end()) {
            found.insert((m.start(), m.end()));
        }
    }
}

#[test]
fn trace_matcher_agrees_with_a_regex_scan_and_skips_digests_and_addresses() {
    let mut rng = Rng(2020);
    for round in 0..40 {
        let target = Id(rng.u128());
        let len = 3000 + rng.below(5000);
        let hay = trace_haystack(&mut rng, target, len);
        let expected = trace_oracle(&hay, target);
        assert!(
            expected.len() > 5,
            "round {round}: the generator planted little"
        );
        let query = id::parse(&target.hex()).unwrap();
        // Among many queries (`-f`, a timeline's related IDs) a different searcher runs:
        // the others' values are not in the haystack, so it finds what one query finds.
        let mut among_many = vec![query];
        among_many.extend((0..12).map(|_| id::parse(&Id(rng.u128()).hex()).unwrap()));
        for queries in [
            vec![query],
            vec![Parsed {
                kind: Kind::Trace,
                ..query
            }],
            among_many,
        ] {
            let mut hits = Vec::new();
            Matcher::for_queries(&queries).find(&hay, &mut hits);
            let got: Vec<(usize, usize)> = hits.iter().map(|h| (h.start, h.end)).collect();
            // A query written as a trace ID does not look for the ULID rendering.
            let expected: Vec<_> = if queries[0].kind == Kind::Trace {
                let ulid = target.ulid();
                expected
                    .iter()
                    .copied()
                    .filter(|&(s, e)| !hay[s..e].eq_ignore_ascii_case(ulid.as_bytes()))
                    .collect()
            } else {
                expected.clone()
            };
            assert_eq!(got, expected, "round {round}, {:?}", queries[0].kind);
        }
    }
}

/// Where the 64-bit trace `low` stands, found the obvious way: the 128-bit traces it is the
/// low half of, as X-Ray IDs anywhere and as 32 hex inside a `traceparent` or right after a
/// trace key, and its 16 hex or decimal right after a trace key.
fn trace64_oracle(hay: &[u8], low: u64) -> Vec<(usize, usize)> {
    let keys = TRACE_KEYS
        .iter()
        .map(|k| regex::escape(k))
        .collect::<Vec<_>>()
        .join("|");
    let spellings = [
        format!("(?i-u)\\b(1-[0-9a-f]{{8}}-[0-9a-f]{{8}}{low:016x})"),
        format!("(?i-u)traceparent: 00-([0-9a-f]{{16}}{low:016x})-"),
        format!("(?i-u)(?:{keys})([0-9a-f]{{16}}{low:016x}|{low:016x}|{low})"),
    ];
    let mut found = BTreeSet::new();
    for spelling in &spellings {
        insert_whole_captures(hay, &Regex::new(spelling).unwrap(), &mut found);
    }
    found.into_iter().collect()
}

/// A 64-bit trace query (a `b3` value with 16 hex digits) finds what the regex scan finds:
/// the 128-bit traces whose low half it is where they are written as traces, and itself in
/// trace fields; not the same low half in a bare 32-hex token, a digest or another field.
#[test]
fn trace64_matcher_agrees_with_a_regex_scan() {
    let mut rng = Rng(2022);
    for round in 0..40 {
        let target = Id(rng.u128());
        let len = 3000 + rng.below(5000);
        let hay = trace_haystack(&mut rng, target, len);
        let low = target.low64();
        let expected = trace64_oracle(&hay, low);
        assert!(
            expected.len() > 5,
            "round {round}: the generator planted little"
        );
        let query = id::parse(&format!("{low:016x}-{:016x}-1", rng.next() | 1)).unwrap();
        assert!(query.is_trace64(), "{query:?}");
        let mut among_many = vec![query];
        among_many.extend((0..12).map(|_| id::parse(&Id(rng.u128()).hex()).unwrap()));
        for queries in [vec![query], among_many] {
            let mut hits = Vec::new();
            Matcher::for_queries(&queries).find(&hay, &mut hits);
            let got: Vec<(usize, usize)> = hits.iter().map(|h| (h.start, h.end)).collect();
            assert_eq!(got, expected, "round {round}, {} queries", queries.len());
        }
    }
}

#[test]
fn span_matcher_agrees_with_a_regex_scan() {
    let mut rng = Rng(2021);
    for round in 0..40 {
        let span = rng.next() | 1 << 60;
        let mut hay = Vec::new();
        while hay.len() < 4000 {
            let value = match rng.below(3) {
                0 => span,
                1 => span ^ (1 << rng.below(64)),
                _ => rng.next(),
            };
            let text = match rng.below(7) {
                0 => format!("{value:016x}"),
                1 => format!("{value:016X}"),
                2 => format!("\"dd\":{{\"span_id\":\"{value}\"}}"),
                3 => format!("count={value}"),
                4 => format!("0x{value:016x}"),
                5 => format!("{:016x}{value:016x}", rng.next()),
                _ => format!("traceparent=00-{:032x}-{value:016x}-01", rng.u128()),
            };
            hay.extend_from_slice(text.as_bytes());
            hay.push(if rng.below(3) == 0 { b'\n' } else { b' ' });
        }
        let hex = Regex::new(&format!(r"(?i-u)\b{span:016x}\b")).unwrap();
        let decimal = Regex::new(&format!(r#""span_id":"({span})""#)).unwrap();
        let alnum = |b: u8| b.is_ascii_alphanumeric();
        let mut expected: Vec<(usize, usize)> = hex
            .find_iter(&hay)
            .map(|m| (m.start(), m.end()))
            .filter(|&(s, e)| (s == 0 || !alnum(hay[s - 1])) && (e == hay.len() || !alnum(hay[e])))
            .chain(decimal.captures_iter(&hay).map(|c| {
                let m = c.get(1).unwrap();
                (m.start(), m.end())
            }))
            .collect();
        expected.sort();
        assert!(!expected.is_empty(), "round {round}");
        let query = id::parse(&format!("{span:016x}")).unwrap();
        // Alone, and among spans the haystack does not hold (the many-query searcher). The
        // span's decimal, which may be a 64-bit trace too, finds the same: no trace here has
        // it as its low half, and the 32 hex that ends in it is no trace's spelling.
        let mut among_many = vec![query];
        among_many.extend((0..12).map(|_| id::parse(&format!("{:016x}", rng.next())).unwrap()));
        let decimal = id::parse(&span.to_string()).unwrap();
        for queries in [vec![query], among_many, vec![decimal]] {
            let mut hits = Vec::new();
            Matcher::for_queries(&queries).find(&hay, &mut hits);
            let got: Vec<(usize, usize)> = hits.iter().map(|h| (h.start, h.end)).collect();
            assert_eq!(got, expected, "round {round}, {} queries", queries.len());
        }
    }
}

#[test]
fn a_trace_timeline_lists_its_spans_as_related_ids_and_follows_them_with_hops() {
    let listed = stdout(&run(&[
        "timeline",
        "--color",
        "never",
        "4bf92f3577b34da6a3ce929d0e0e4736",
        "testdata/traces",
    ]));
    assert!(
        listed.starts_with(
            "id        4bf92f35-77b3-4da6-a3ce-929d0e0e4736 (uuid v4 layout or trace)\n"
        ),
        "{listed}"
    );
    // Every line has its time, the OTLP records' `timeUnixNano` included.
    assert!(listed.contains("lines     8\n"), "{listed}");
    for span in [
        "53995c3f42cd8ad8",
        "00f067aa0ba902b7",
        "7a085853722dc6d2",
        "05e3ac9a4f6e3b90",
        "e457b5a2e4d86bd1",
    ] {
        let row = listed
            .lines()
            .find(|l| l.trim_start().starts_with(span))
            .unwrap_or_else(|| panic!("{span} not related: {listed}"));
        assert!(row.contains(" span "), "{row}");
    }
    // The span on the ECS decoy line is no related ID: that line is not on the timeline.
    assert!(!listed.contains("a3ce929d0e0e4736  "), "{listed}");
    // One hop follows the spans: the Datadog line that writes e457b5a2e4d86bd1 as a decimal
    // span_id is on the trace already; nothing else in these logs names the spans.
    let followed = stdout(&run(&[
        "timeline",
        "--color",
        "never",
        "--hops",
        "1",
        "4bf92f3577b34da6a3ce929d0e0e4736",
        "testdata/traces",
    ]));
    assert!(followed.contains("lines     8\n"), "{followed}");
    assert!(followed.contains("followed (3 lines)"), "{followed}");
}

/// ECS writes `trace.id` and `span.id` nested as well as dotted: `ids` counts both, and the
/// trace's timeline lists the span.
#[test]
fn nested_ecs_trace_and_span_ids_are_read_by_their_objects_key() {
    let line = br#"{"@timestamp":"2025-12-01T10:00:00Z","trace":{"id":"a3ce929d0e0e4736"},"span":{"id":"00f067aa0ba902b7"},"user":{"id":"1111111111111111"},"t":{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"}}"#;
    let ids = stdout(&run_with_input(&["ids", "--json"], line));
    let rows: Vec<Value> = ids
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let row = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id}: {ids}"))
    };
    assert_eq!(
        row("4bf92f3577b34da6a3ce929d0e0e4736")["fields"]["trace.id"],
        1
    );
    assert_eq!(row("00f067aa0ba902b7")["fields"]["span.id"], 1);
    assert_eq!(rows.len(), 2, "a user's 16 hex is no ID: {ids}");
    let timeline = stdout(&run_with_input(
        &[
            "timeline",
            "--color",
            "never",
            "4bf92f3577b34da6a3ce929d0e0e4736",
        ],
        line,
    ));
    let related = timeline
        .lines()
        .find(|l| l.trim_start().starts_with("00f067aa0ba902b7"));
    assert!(related.is_some_and(|r| r.contains(" span ")), "{timeline}");
}

/// A span's trace is a related ID of the span: where the span's lines write the trace (an X-Ray
/// header, a `traceparent`, an OTLP `traceId`, a `b3` value) the timeline lists it as a trace
/// on each of those lines, and one hop follows it to every line of the trace.
#[test]
fn a_span_timeline_lists_its_trace_and_one_hop_follows_it() {
    let timeline = |extra: &[&str]| {
        let mut args = vec!["timeline", "--color", "never"];
        args.extend_from_slice(extra);
        args.push("testdata/traces");
        stdout(&run(&args))
    };
    // The SOURCE column of each line of the table.
    let sources = |text: &str| -> BTreeSet<String> {
        text.lines()
            .skip_while(|l| !l.starts_with("TIME"))
            .skip(1)
            .filter_map(|l| l.split_whitespace().nth(3).map(str::to_string))
            .collect()
    };
    let listed = timeline(&["53995c3f42cd8ad8"]);
    let row = listed
        .lines()
        .find(|l| {
            l.trim_start()
                .starts_with("4bf92f3577b34da6a3ce929d0e0e4736")
        })
        .unwrap_or_else(|| panic!("the trace is not listed:\n{listed}"));
    assert!(
        row.contains(" trace ") && row.contains(" 4 lines "),
        "{row}"
    );
    let trace = sources(&timeline(&["4bf92f3577b34da6a3ce929d0e0e4736"]));
    let hopped = sources(&timeline(&["--hops", "1", "53995c3f42cd8ad8"]));
    assert!(trace.len() == 8 && hopped.is_superset(&trace), "{hopped:?}");
}
