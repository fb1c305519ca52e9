use regex::bytes::Regex;

use super::*;
use crate::id::{Id, Written};
use crate::scan::Matcher;
use crate::testing::Rng;

const ULID: &str = "01m8kbygm5ng2pshny302zvwbs";

fn id() -> Parsed {
    crate::id::parse(ULID).unwrap()
}

/// A value given as a dashed UUID: not a trace ID.
fn uuid(id: Id) -> Parsed {
    Parsed {
        id,
        kind: Kind::Uuid,
        written: Written::Uuid,
    }
}

fn target() -> Target {
    Target {
        selector: "{job=~\".+\"}".to_string(),
        table: "logs".to_string(),
        column: "message".to_string(),
    }
}

#[test]
fn the_regex_names_each_rendering_once_whole_tokens_any_case() {
    let second = crate::id::parse("01a226bf-4285-ac05-6cc6-be1805fdf179").unwrap();
    assert_eq!(
        render(Engine::Regex, &[id(), second, id()], &target()),
        "(?i)(?:^|[^0-9A-Za-z])(?:01a226bf-4285-ac05-6cc6-be1805fdf179|\
         01a226bf4285ac056cc6be1805fdf179|01m8kbygm5ng2pshny302zvwbs)(?:[^0-9A-Za-z]|$)\n"
    );
}

#[test]
fn a_trace_id_adds_its_xray_form_and_a_span_is_its_16_hex() {
    let trace = crate::id::parse("4BF92F3577B34DA6A3CE929D0E0E4736").unwrap();
    let span = crate::id::parse("00f067aa0ba902b7").unwrap();
    assert_eq!(
        ulid::Ulid(trace.id.0).to_string().to_lowercase(),
        "2bz4qkaxxk9pka7kmjkm70whsp"
    );
    assert_eq!(
        renderings(&[trace, span]),
        [
            "00f067aa0ba902b7",
            "1-4bf92f35-77b34da6a3ce929d0e0e4736",
            "2bz4qkaxxk9pka7kmjkm70whsp",
            "4bf92f35-77b3-4da6-a3ce-929d0e0e4736",
            "4bf92f3577b34da6a3ce929d0e0e4736",
        ]
    );
    let body: serde_json::Value =
        serde_json::from_str(&render(Engine::Elasticsearch, &[trace, span], &target())).unwrap();
    let should = body["query"]["bool"]["should"].as_array().unwrap();
    // The span's term, then the trace's whole term, its dashed groups and its X-Ray groups.
    assert_eq!(should.len(), 4);
    let xray = should
        .iter()
        .find(|c| {
            c["span_near"]["clauses"]
                .as_array()
                .is_some_and(|c| c.len() == 3)
        })
        .expect("the X-Ray form's three groups");
    assert_eq!(
        xray["span_near"]["clauses"][1]["span_term"]["message"],
        "4bf92f35"
    );
}

/// The lines the scanner matches are the lines the regex matches, on lines full of near
/// misses: each rendering in random case, glued to letters and digits or set off by every kind
/// of separator, other IDs, invalid UTF-8.
#[test]
fn the_regex_matches_the_lines_the_scanner_matches() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut matched = [0usize; 2];
    for round in 0..200 {
        let wanted: Vec<Id> = (0..1 + round % 3)
            .map(|_| Id(u128::from(rng.next()) << 64 | u128::from(rng.next())))
            .collect();
        let decoy = Id(wanted[0].0 ^ 1);
        let given: Vec<Parsed> = wanted.iter().map(|&id| uuid(id)).collect();
        let pattern = render(Engine::Regex, &given, &target());
        let re = Regex::new(&format!("(?-u){}", pattern.trim_end())).unwrap();
        let matcher = Matcher::new(&wanted);
        let separators: &[&[u8]] = &[
            b" ",
            b"-",
            b"_",
            b"=",
            b"{",
            b"}",
            b":",
            b"\t",
            b"\xff",
            b"\xc3\xa9",
            b"x",
            b"7",
            b"Z",
            b"",
        ];
        for _ in 0..50 {
            let mut line = Vec::new();
            for _ in 0..1 + rng.next() % 4 {
                line.extend_from_slice(rng.pick::<&[u8]>(separators));
                let id = if rng.next().is_multiple_of(4) {
                    decoy
                } else {
                    *rng.pick(&wanted)
                };
                let mut text = match rng.next() % 3 {
                    0 => id.ulid(),
                    1 => id.uuid(),
                    _ => id.hex(),
                }
                .into_bytes();
                for b in &mut text {
                    if rng.next().is_multiple_of(2) {
                        b.make_ascii_uppercase();
                    }
                }
                line.extend_from_slice(&text);
                line.extend_from_slice(rng.pick::<&[u8]>(separators));
            }
            let mut hits = Vec::new();
            matcher.find(&line, &mut hits);
            assert_eq!(
                re.is_match(&line),
                !hits.is_empty(),
                "{}",
                String::from_utf8_lossy(&line)
            );
            matched[usize::from(hits.is_empty())] += 1;
        }
    }
    // Both answers are common, so neither side can pass by always saying one thing.
    assert!(matched.iter().all(|&n| n > 2000), "{matched:?}");
}

#[test]
fn logql_is_the_selector_and_a_raw_regex_filter() {
    let mut t = target();
    t.selector = "{app=\"api\"}".to_string();
    let regex = render(Engine::Regex, &[id()], &t);
    assert_eq!(
        render(Engine::Logql, &[id()], &t),
        format!("{{app=\"api\"}} |~ `{}`\n", regex.trim_end())
    );
}

#[test]
fn clickhouse_is_a_whole_statement_with_quoted_names() {
    let mut t = target();
    t.table = "db.my-logs".to_string();
    t.column = "Body".to_string();
    let sql = render(Engine::Clickhouse, &[id()], &t);
    assert!(
        sql.starts_with(
            "SELECT * FROM db.`my-logs` WHERE multiSearchAnyCaseInsensitive(Body, \
             ['01a226bf-4285-ac05-6cc6-be1805fdf179', '01a226bf4285ac056cc6be1805fdf179', \
             '01m8kbygm5ng2pshny302zvwbs']) AND match(toValidUTF8(Body), '(?i)(?:^|[^0-9A-Za-z])"
        ),
        "{sql}"
    );
    assert_eq!(clickhouse_string("a'b\\c"), "'a\\'b\\\\c'");
    assert_eq!(clickhouse_identifier("we`ird"), "`we\\`ird`");
}

#[test]
fn clickhouse_splits_the_prefilter_at_its_needle_limit() {
    let ids: Vec<Parsed> = (1..=100u128).map(|i| uuid(Id(i << 80))).collect();
    let sql = render(Engine::Clickhouse, &ids, &target());
    // 300 renderings: two calls, 255 and 45 needles.
    assert_eq!(sql.matches("multiSearchAnyCaseInsensitive").count(), 2);
    assert!(sql.contains("WHERE (multiSearchAnyCaseInsensitive("));
    assert!(sql.contains(") OR multiSearchAnyCaseInsensitive("));
}

#[test]
fn elasticsearch_has_a_term_and_a_span_clause_per_id() {
    let body: serde_json::Value =
        serde_json::from_str(&render(Engine::Elasticsearch, &[id(), id()], &target())).unwrap();
    let should = body["query"]["bool"]["should"].as_array().unwrap();
    assert_eq!(should.len(), 2);
    assert_eq!(
        should[0]["regexp"]["message"]["value"],
        "(.*[^0-9A-Za-z])?(01m8kbygm5ng2pshny302zvwbs|01a226bf4285ac056cc6be1805fdf179|\
         01a226bf-4285-ac05-6cc6-be1805fdf179)([^0-9A-Za-z].*)?"
    );
    let clauses = should[1]["span_near"]["clauses"].as_array().unwrap();
    assert_eq!(clauses.len(), 5);
    assert_eq!(
        clauses[0]["span_multi"]["match"]["regexp"]["message"]["value"],
        "(.*[^0-9A-Za-z])?01a226bf"
    );
    assert_eq!(clauses[2]["span_term"]["message"], "ac05");
    assert_eq!(
        clauses[4]["span_multi"]["match"]["regexp"]["message"]["value"],
        "be1805fdf179([^0-9A-Za-z].*)?"
    );
    assert_eq!(should[1]["span_near"]["slop"], 0);
}

/// A 64-bit trace (a `b3` value with 16 hex digits) is written in logs as those 16 hex digits
/// (`X-B3-TraceId`) or padded to 32: the query holds both, in every engine.
#[test]
fn a_64_bit_trace_is_queried_as_its_16_hex_and_its_padded_32() {
    let trace64 = crate::id::parse("a3ce929d0e0e4736-05e3ac9a4f6e3b90-1").unwrap();
    let forms = renderings(&[trace64]);
    for form in ["a3ce929d0e0e4736", "0000000000000000a3ce929d0e0e4736"] {
        assert!(forms.iter().any(|f| f == form), "{form}: {forms:?}");
    }
    // Not the UUID and ULID renderings of the padded value, which the search does not find,
    // nor an X-Ray form of time 0, which no tracer writes.
    let uuid = "00000000-0000-0000-a3ce-929d0e0e4736";
    assert!(!forms.iter().any(|f| f == uuid), "{forms:?}");
    assert!(!forms.iter().any(|f| f.starts_with("1-")), "{forms:?}");
    let body = elasticsearch::request(&[trace64], "message");
    assert!(
        body.contains("(.*[^0-9A-Za-z])?([0-9a-f]{16})?a3ce929d0e0e4736([^0-9A-Za-z].*)?"),
        "{body}"
    );
    assert!(
        body.contains("\"[0-9a-f]{8}a3ce929d0e0e4736([^0-9A-Za-z].*)?\""),
        "{body}"
    );
    // The UUID's groups as terms: its fourth, `a3ce`, would be one; the X-Ray form's
    // `00000000` another.
    assert!(!body.contains("\"a3ce\""), "{body}");
    assert!(!body.contains("\"00000000\""), "{body}");
}

/// The regex of a 64-bit trace (a `b3` value, or a Datadog decimal, which may also be a span's)
/// matches the 128-bit trace it is the low half of, as 32 hex or as an X-Ray ID, as the search
/// finds it; not a trace with another low half, nor its 16 hex inside a longer token.
#[test]
fn a_64_bit_trace_regex_finds_the_128_bit_traces_it_is_the_low_half_of() {
    for query in [
        "a3ce929d0e0e4736-05e3ac9a4f6e3b90-1",
        "11803532876627986230",
    ] {
        let parsed = crate::id::parse(query).unwrap();
        let regex = Regex::new(&line_regex(&alternatives(
            &[parsed],
            &renderings(&[parsed]),
        )))
        .unwrap();
        for line in [
            "traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            r#"{"traceId":"4BF92F3577B34DA6A3CE929D0E0E4736"}"#,
            "X-Amzn-Trace-Id: Root=1-5759e988-bd862e3fa3ce929d0e0e4736;Sampled=1",
            "X-B3-TraceId: a3ce929d0e0e4736",
            "trace_id=0000000000000000a3ce929d0e0e4736",
        ] {
            assert!(regex.is_match(line.as_bytes()), "{query}: {line}");
        }
        for line in [
            "traceparent=00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-01",
            "key=xa3ce929d0e0e4736",
            "sha=4bf92f3577b34da6a3ce929d0e0e4736ff",
            "X-Amzn-Trace-Id: Root=1-5759e988-bd862e3fa3ce929d0e0e47",
        ] {
            assert!(!regex.is_match(line.as_bytes()), "{query}: {line}");
        }
    }
    // A span ID's and a 128-bit trace's regexes are their renderings alone.
    for query in ["00f067aa0ba902b7", "4bf92f3577b34da6a3ce929d0e0e4736"] {
        let parsed = crate::id::parse(query).unwrap();
        let forms = renderings(&[parsed]);
        assert_eq!(alternatives(&[parsed], &forms), forms, "{query}");
    }
}
