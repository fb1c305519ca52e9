//! `idgrep ids` over trace and span IDs: the bundled five-vendor trace (testdata/traces) and
//! generated logs checked against the model of what was planted, with digests, addresses,
//! cache keys and counters that are no IDs.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::support::{Rng, run};

/// `ids --json` of `args`, by ID.
fn ids_json(args: &[&str]) -> BTreeMap<String, Value> {
    let out = run(&[&["ids", "--json"], args].concat());
    assert!(out.status.code().unwrap() < 2, "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["id"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

fn forms(entry: &Value) -> BTreeMap<String, u64> {
    entry["forms"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect()
}

#[test]
fn one_trace_in_five_vendors_logs_is_one_row_with_its_spans() {
    let ids = ids_json(&["testdata/traces"]);
    let trace = &ids["4bf92f3577b34da6a3ce929d0e0e4736"];
    assert_eq!(trace["kind"], "trace");
    // otlp 1, 2; ecs 1; app.logfmt 1-3; access.log 1; datadog.json 1.
    assert_eq!(
        (
            trace["lines"].as_u64(),
            trace["files"].as_array().unwrap().len()
        ),
        (Some(8), 5)
    );
    let want: BTreeMap<String, u64> = [
        ("trace_hex", 3),
        ("traceparent", 1),
        ("b3", 1),
        ("hex16", 1),
        ("xray", 1),
        ("dd_decimal", 1),
    ]
    .into_iter()
    .map(|(f, n)| (f.to_string(), n))
    .collect();
    assert_eq!(forms(trace), want);
    let span = |id: &str| {
        let e = &ids[id];
        assert_eq!(e["kind"], "span", "{id}");
        (
            e["lines"].as_u64().unwrap(),
            e["occurrences"].as_u64().unwrap(),
        )
    };
    // X-Ray Parent, span_id, the b3 parent, an OTLP spanId.
    assert_eq!(span("53995c3f42cd8ad8"), (4, 4));
    // The b3 span, X-B3-ParentSpanId, and Datadog's decimal.
    assert_eq!(span("e457b5a2e4d86bd1"), (3, 3));
    // In the traceparent and as parent_span_id on one line: that line counts once.
    assert_eq!(span("00f067aa0ba902b7"), (2, 3));
    // The trace's low 64 bits as a span.id are a span, not the trace; as a cache key, an
    // 0x address and under "attempts" they are nothing.
    assert_eq!(span("a3ce929d0e0e4736"), (1, 1));
    // A Datadog trace no other log writes whole: a 64-bit trace, padded as OpenTelemetry does.
    let dd = &ids["000000000000000064fe8b2a57d3eff7"];
    assert_eq!(
        (dd["kind"].as_str(), dd["lines"].as_u64()),
        (Some("trace"), Some(1))
    );
    assert_eq!(forms(dd), BTreeMap::from([("dd_decimal".to_string(), 1)]));
    // The MD5 under file.hash.md5 is no ID.
    assert!(!ids.contains_key("9e107d9d372bb6826bd81d3542a419d6"));
    assert!(!ids.keys().any(|id| id.contains("9e107d9d")));

    let kinds = |kind: &str| -> BTreeSet<String> {
        ids_json(&["--kind", kind, "testdata/traces"])
            .into_keys()
            .collect()
    };
    let traces = kinds("trace");
    let spans = kinds("span");
    assert_eq!(traces.len(), 4, "{traces:?}");
    assert!(traces.contains("5759e988bd862e3fe1be46a994272793"));
    assert_eq!(spans.len() + traces.len(), ids.len());
    assert!(
        spans.contains("1b2c3d4e5f607182"),
        "the X-Ray Parent of access.log:2"
    );
}

/// One planted trace: its 128-bit value and its spans.
struct Planted {
    trace: u128,
    spans: Vec<u64>,
}

/// What the model expects of one ID: lines, files, forms.
#[derive(Debug, Default, PartialEq, Eq)]
struct Expected {
    lines: u64,
    files: BTreeSet<String>,
    forms: BTreeMap<String, u64>,
}

/// Writes generated logs of `traces` in every spelling into `dir`, with decoys, and returns
/// the model: canonical ID -> what `ids` must say.
fn plant(dir: &std::path::Path, rng: &mut Rng, traces: &[Planted]) -> BTreeMap<String, Expected> {
    let mut model: BTreeMap<String, Expected> = BTreeMap::new();
    // Traces written whole somewhere: their 64-bit spellings join them.
    let mut whole = BTreeSet::new();
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    for (n, p) in traces.iter().enumerate() {
        let t = format!("{:032x}", p.trace);
        let low = p.trace as u64;
        // Every third trace is written only in 64-bit spellings.
        let only_64 = n % 3 == 2;
        // Joined to the whole trace at the end, if some line writes it whole.
        let trace_key = format!("{low:032x}");
        for (k, &s) in p.spans.iter().enumerate() {
            let parent = p.spans[k.saturating_sub(1)];
            let choice = if only_64 {
                4 + rng.below(2)
            } else {
                rng.below(6)
            };
            if choice < 4 {
                whole.insert(p.trace);
            }
            let (file, line, occ): (&str, String, Vec<(String, &str)>) = match choice {
                0 => (
                    "otel.jsonl",
                    format!(
                        r#"{{"ts":"2025-01-01T00:00:0{k}Z","trace_id":"{t}","span_id":"{s:016x}","sha":"{:032x}","dd":{{"trace_id":"{low}"}}}}"#,
                        rng.u128()
                    ),
                    // The Datadog spelling beside the whole trace adds no line.
                    vec![
                        (t.clone(), "trace_hex"),
                        (format!("{s:016x}"), "hex16"),
                        (t.clone(), "dd_decimal"),
                    ],
                ),
                1 => (
                    "app.logfmt",
                    format!(
                        "ts=2025-01-01T00:00:0{k}Z traceparent=00-{t}-{s:016x}-01 addr=0x{s:016x} key={s:016x}"
                    ),
                    vec![
                        (t.clone(), "traceparent"),
                        (format!("{s:016x}"), "traceparent"),
                    ],
                ),
                2 => (
                    "b3.logfmt",
                    format!(
                        "ts=2025-01-01T00:00:0{k}Z b3={t}-{s:016x}-1-{parent:016x} count={low}"
                    ),
                    if parent == s {
                        vec![
                            (t.clone(), "b3"),
                            (format!("{s:016x}"), "b3"),
                            (format!("{s:016x}"), "b3"),
                        ]
                    } else {
                        vec![
                            (t.clone(), "b3"),
                            (format!("{s:016x}"), "b3"),
                            (format!("{parent:016x}"), "b3"),
                        ]
                    },
                ),
                3 => (
                    "edge.log",
                    format!(
                        "10.0.0.1 [2025-01-01T00:00:0{k}Z] \"GET /\" 200 \"Root=1-{}-{};Parent={s:016x};Sampled=1\" md5={:032x}",
                        &t[..8],
                        &t[8..],
                        rng.u128()
                    ),
                    vec![(t.clone(), "xray"), (format!("{s:016x}"), "xray")],
                ),
                4 => (
                    "dd.json",
                    format!(
                        r#"{{"timestamp":"2025-01-01T00:00:0{k}Z","dd":{{"trace_id":"{low}","span_id":"{s}"}},"attempts":{s}}}"#
                    ),
                    vec![
                        (trace_key.clone(), "dd_decimal"),
                        (format!("{s:016x}"), "dd_decimal"),
                    ],
                ),
                _ => (
                    "legacy.logfmt",
                    format!(
                        "ts=2025-01-01T00:00:0{k}Z X-B3-TraceId={low:016x} X-B3-SpanId={s:016x} cache={low:016x}"
                    ),
                    vec![(trace_key.clone(), "hex16"), (format!("{s:016x}"), "hex16")],
                ),
            };
            let text = files.entry(file.to_string()).or_default();
            text.push_str(&line);
            text.push('\n');
            let mut on_line = BTreeSet::new();
            for (id, form) in occ {
                let e = model.entry(id.clone()).or_default();
                e.lines += u64::from(on_line.insert(id));
                e.files.insert(file.to_string());
                *e.forms.entry(form.to_string()).or_default() += 1;
            }
        }
    }
    // A 64-bit spelling of a trace written whole joins it.
    for p in traces {
        let low = format!("{:032x}", p.trace as u64);
        if whole.contains(&p.trace)
            && let Some(narrow) = model.remove(&low)
        {
            let e = model.entry(format!("{:032x}", p.trace)).or_default();
            e.lines += narrow.lines;
            e.files.extend(narrow.files);
            for (form, n) in narrow.forms {
                *e.forms.entry(form).or_default() += n;
            }
        }
    }
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    model
}

/// A span ID whose 16 hex digits read as a number with an exponent (`3e51234567890123`),
/// as about one random span ID in 1,300 does: bare in logfmt, it is still a span ID.
fn number_shaped(rng: &mut Rng) -> u64 {
    let e_at = 1 + rng.below(14);
    let digits: String = (0..16)
        .map(|i| match i {
            0 => char::from(b'1' + rng.below(9) as u8),
            _ if i == e_at => 'e',
            _ => char::from(b'0' + rng.below(10) as u8),
        })
        .collect();
    u64::from_str_radix(&digits, 16).unwrap()
}

#[test]
fn generated_trace_logs_count_as_the_model_of_what_was_planted() {
    let mut rng = Rng(20);
    for round in 0..4 {
        let traces: Vec<Planted> = (0..40)
            .map(|_| Planted {
                trace: rng.u128() | 1,
                spans: (0..1 + rng.below(5))
                    .map(|_| {
                        if rng.below(4) == 0 {
                            number_shaped(&mut rng)
                        } else {
                            rng.next() | 1
                        }
                    })
                    .collect(),
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let model = plant(dir.path(), &mut rng, &traces);
        let got = ids_json(&[dir.path().to_str().unwrap()]);
        let got: BTreeMap<String, Expected> = got
            .into_iter()
            .map(|(id, v)| {
                let files = v["files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| {
                        let f = f.as_str().unwrap();
                        f.rsplit('/').next().unwrap().to_string()
                    })
                    .collect();
                let e = Expected {
                    lines: v["lines"].as_u64().unwrap(),
                    files,
                    forms: forms(&v),
                };
                (id, e)
            })
            .collect();
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            model.keys().collect::<Vec<_>>(),
            "round {round}: the IDs"
        );
        for (id, want) in &model {
            assert_eq!(&got[id], want, "round {round}: {id}");
        }
    }
}

/// Trace and span keys in `key: value` (or `key : value`) text count as they do as
/// `key=value`, where a search finds them: span IDs and a Datadog decimal trace ID after bare
/// keys.
#[test]
fn trace_values_after_bare_keys_in_text_count() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    std::fs::write(
        &log,
        "2026-11-29T10:00:00Z span_id: 00f067aa0ba902b7 done\n\
         2026-11-29T10:00:01Z dd.trace_id:1234567890123456789 retry\n\
         2026-11-29T10:00:02Z word: 53995c3f42cd8ad8\n\
         {\"ts\":\"2026-11-29T10:00:03Z\",\"parent_span_id\" : \"63995c3f42cd8ad8\"}\n\
         2026-11-29T10:00:04Z span_id : 73995c3f42cd8ad8 trace_id : 4bf92f3577b34da6a3ce929d0e0e4736\n",
    )
    .unwrap();
    let ids = ids_json(&[log.to_str().unwrap()]);
    let span = &ids["00f067aa0ba902b7"];
    assert_eq!(span["kind"], "span");
    assert_eq!(span["fields"]["span_id"], 1);
    let trace = &ids[&format!("{:032x}", 1_234_567_890_123_456_789u64)];
    assert_eq!(trace["kind"], "trace");
    assert_eq!(
        forms(trace),
        BTreeMap::from([("dd_decimal".to_string(), 1)])
    );
    // A key spaced from its colon, as some JSON writers write it.
    assert_eq!(ids["63995c3f42cd8ad8"]["fields"]["parent_span_id"], 1);
    // A bare key spaced from its colon, as the trace ID beside it on the line.
    assert_eq!(ids["73995c3f42cd8ad8"]["fields"]["span_id"], 1);
    assert_eq!(
        ids["4bf92f3577b34da6a3ce929d0e0e4736"]["fields"]["trace_id"],
        1
    );
    // A 16-hex value after a key that names no span is no ID.
    assert_eq!(ids.len(), 5, "{ids:?}");
    // What a search for each finds.
    let trace_hex = format!("{:032x}", 1_234_567_890_123_456_789u64);
    for id in ["00f067aa0ba902b7", &trace_hex] {
        let out = run(&["-c", id, log.to_str().unwrap()]);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "1\n", "{id}");
    }
}
