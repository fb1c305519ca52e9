//! `idgrep timeline` of a trace across services (`testdata/trace-spans/`): every spelling of
//! the trace highlighted, `--hops` following parent-span links, and the Perfetto export's span
//! slices, checked against the trace-event format's rules.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::{run, run_with_input};

const TRACE: &str = "6e0c63257de34c926f9efcd03899b76e";
const DIR: &str = "testdata/trace-spans";
const ROOT_SPAN: &str = "9a1b2c3d4e5f6071";
const CHARGE_SPAN: &str = "3c4d5e6f70819203";
const PSP_SPAN: &str = "5e6f708192a3b4c5";
/// The ledger's span, written only as a Datadog decimal (`42424242424242421`).
const LEDGER_SPAN: &str = "0096b89fab8fe0f5";

fn timeline(extra: &[&str]) -> String {
    let mut args = vec!["timeline", TRACE, DIR];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The `SOURCE` column of each line of the text timeline, in order.
fn sources(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.starts_with("TIME"))
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(3).map(str::to_string))
        .collect()
}

#[test]
fn the_x_ray_and_decimal_spellings_are_highlighted_with_their_field() {
    const ON: &str = "\x1b[1;31m";
    const OFF: &str = "\x1b[0m";
    let colored = timeline(&["--color", "always"]);
    for token in [
        "1-6e0c6325-7de34c926f9efcd03899b76e",
        "8043143955763279726",
        TRACE,
    ] {
        assert!(
            colored.contains(&format!("{ON}{token}{OFF}")),
            "{token} highlighted in:\n{colored}"
        );
    }
    // The span ID on the trace's lines is no spelling of the trace: not highlighted.
    assert!(!colored.contains(&format!("{ON}{ROOT_SPAN}")), "{colored}");
    let plain = timeline(&["--color", "never"]);
    let ledger = plain.lines().find(|l| l.contains("ledger.json:1")).unwrap();
    assert!(ledger.contains(" dd.trace_id "), "{ledger}");

    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("trace.html");
    timeline(&["-o", html.to_str().unwrap()]);
    let html = std::fs::read_to_string(html).unwrap();
    for token in ["1-6e0c6325-7de34c926f9efcd03899b76e", "8043143955763279726"] {
        assert!(html.contains(&format!("<mark>{token}</mark>")), "{token}");
    }
}

#[test]
fn hops_follow_the_parent_span_links_the_logs_write() {
    let direct = timeline(&["--color", "never"]);
    assert_eq!(
        sources(&direct),
        [
            "checkout.jsonl:1",
            "edge.log:1",
            "checkout.jsonl:2",
            "payments.logfmt:1",
            "ledger.json:1",
            "payments.logfmt:4",
            "checkout.jsonl:3",
        ]
    );
    // One hop: the line whose parent_span_id is the charge span, without the trace ID.
    let one = timeline(&["--color", "never", "--hops", "1"]);
    let lines = sources(&one);
    assert_eq!(lines.len(), 8, "{one}");
    assert_eq!(lines[4], "payments.logfmt:2");
    let psp = one.lines().find(|l| l.contains(PSP_SPAN)).unwrap();
    assert!(psp.contains(" span ") && psp.contains("listed"), "{psp}");
    // Two hops: the PSP span's own lines.
    let two = timeline(&["--color", "never", "--hops", "2"]);
    let lines = sources(&two);
    assert_eq!(lines.len(), 9, "{two}");
    assert_eq!(lines[6], "payments.logfmt:3");
}

/// The trace export of `--hops 2`, parsed.
fn exported() -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.json");
    timeline(&["--hops", "2", "-o", path.to_str().unwrap()]);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_trace_export_draws_each_span_as_a_slice_on_its_service_track() {
    let trace = exported();
    let events = trace["traceEvents"].as_array().unwrap();
    let thread_name = |pid: u64, tid: u64| {
        events
            .iter()
            .find(|e| {
                e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == pid && e["tid"] == tid
            })
            .map(|e| e["args"]["name"].as_str().unwrap().to_string())
    };
    assert!(events.iter().any(|e| e["ph"] == "M"
        && e["name"] == "process_name"
        && e["pid"] == 3
        && e["args"]["name"] == "spans"));
    let slices: BTreeMap<String, &Value> = events
        .iter()
        .filter(|e| e["cat"] == "span")
        .map(|e| (e["name"].as_str().unwrap().to_string(), e))
        .collect();
    assert_eq!(
        slices.keys().collect::<Vec<_>>(),
        [LEDGER_SPAN, CHARGE_SPAN, PSP_SPAN, ROOT_SPAN]
    );
    // ts 0 is the first line, 09:00:00.000.
    let placed = |span: &str| {
        let e = slices[span];
        assert_eq!((e["ph"].as_str(), e["pid"].as_u64()), (Some("X"), Some(3)));
        let track = thread_name(3, e["tid"].as_u64().unwrap()).unwrap();
        (track, e["ts"].as_i64().unwrap(), e["dur"].as_i64().unwrap())
    };
    assert_eq!(placed(ROOT_SPAN), ("checkout".into(), 0, 900_000));
    assert_eq!(placed(CHARGE_SPAN), ("payments".into(), 150_000, 550_000));
    assert_eq!(placed(PSP_SPAN), ("payments".into(), 400_000, 200_000));
    // One line: the shortest slice the format allows, on its own service's track.
    assert_eq!(placed(LEDGER_SPAN), ("ledger".into(), 500_000, 1));
    // The PSP span nests under the charge span, on the same track.
    assert_eq!(slices[PSP_SPAN]["tid"], slices[CHARGE_SPAN]["tid"]);
    assert_eq!(slices[PSP_SPAN]["args"]["parent"], CHARGE_SPAN);
    assert_eq!(slices[CHARGE_SPAN]["args"]["parent"], ROOT_SPAN);
    assert_eq!(slices[ROOT_SPAN]["args"].get("parent"), None);
    assert_eq!(slices[CHARGE_SPAN]["args"]["service"], "payments");
    assert_eq!(slices[CHARGE_SPAN]["args"]["lines"], 3);
}

/// The rules of the trace-event JSON object format that Perfetto and chrome://tracing hold a
/// file to: every event has a name, a phase, a process and a thread; complete events have a
/// time and a positive duration; the complete events of one thread nest or follow one
/// another, never overlap partly.
#[test]
fn the_trace_export_keeps_to_the_trace_event_format() {
    let trace = exported();
    assert_eq!(trace["displayTimeUnit"], "ms");
    assert!(trace["otherData"].is_object());
    let events = trace["traceEvents"].as_array().unwrap();
    let mut per_thread: BTreeMap<(u64, u64), Vec<(i64, i64)>> = BTreeMap::new();
    for e in events {
        assert!(e["name"].is_string(), "{e}");
        assert!(e["pid"].is_u64() && e["tid"].is_u64(), "{e}");
        assert!(e["args"].is_object(), "{e}");
        match e["ph"].as_str().unwrap() {
            "M" => assert!(e.get("ts").is_none(), "{e}"),
            "i" => {
                assert!(e["ts"].as_i64().unwrap() >= 0);
                assert_eq!(e["s"], "t");
            }
            "X" => {
                let (ts, dur) = (e["ts"].as_i64().unwrap(), e["dur"].as_i64().unwrap());
                assert!(ts >= 0 && dur >= 1, "{e}");
                let thread = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
                per_thread.entry(thread).or_default().push((ts, ts + dur));
            }
            other => panic!("unexpected phase {other}: {e}"),
        }
    }
    assert!(per_thread.keys().any(|(pid, _)| *pid == 3));
    for (thread, mut slices) in per_thread {
        slices.sort_by_key(|&(start, end)| (start, std::cmp::Reverse(end)));
        let mut open: Vec<i64> = Vec::new();
        for (start, end) in slices {
            while open.last().is_some_and(|&e| e <= start) {
                open.pop();
            }
            assert!(
                open.last().is_none_or(|&e| end <= e),
                "{thread:?}: a slice {start}..{end} overlaps its enclosing one partly"
            );
            open.push(end);
        }
    }
}

/// A span field before a UUID on a line: each token keeps its own field (the record reader
/// takes them in line order).
#[test]
fn a_span_field_before_a_uuid_keeps_each_field() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("order.log");
    std::fs::write(
        &log,
        "ts=2025-12-01T10:00:00Z span_id=53995c3f42cd8ad8 uuid=0197353b-c928-79e7-98a7-d1b72a5636ba\n",
    )
    .unwrap();
    let log = log.to_str().unwrap();
    let by_uuid = run(&[
        "timeline",
        "--color",
        "never",
        "0197353b-c928-79e7-98a7-d1b72a5636ba",
        log,
    ]);
    let text = String::from_utf8(by_uuid.stdout).unwrap();
    let line = text.lines().last().unwrap();
    assert!(line.contains("order.log:1  uuid "), "{text}");
    let by_span = run(&["timeline", "--color", "never", "53995c3f42cd8ad8", log]);
    let text = String::from_utf8(by_span.stdout).unwrap();
    assert!(text.contains("order.log:1  span_id "), "{text}");
    let related = text
        .lines()
        .find(|l| l.contains("0197353b-c928-79e7-98a7-d1b72a5636ba"))
        .unwrap();
    assert!(related.contains(" uuid "), "{related}");
}

/// The span IDs `ids` counts on a trace's lines are the trace's related spans, on as many
/// lines, whether a span field, a `traceparent`, a `b3` header, an X-Ray `Parent` or a Datadog
/// decimal writes them.
#[test]
fn a_traces_related_spans_are_the_spans_ids_counts_on_its_lines() {
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let dir = "testdata/traces";
    let ndjson = run(&["timeline", trace, dir, "--format", "ndjson"]);
    assert_eq!(ndjson.status.code(), Some(0));
    let lines: Vec<String> = String::from_utf8(ndjson.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let counted = run_with_input(
        &["ids", "--json", "--kind", "span"],
        lines.join("\n").as_bytes(),
    );
    let mut expected: Vec<(String, u64)> = String::from_utf8(counted.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let row: Value = serde_json::from_str(l).unwrap();
            (
                row["id"].as_str().unwrap().to_string(),
                row["lines"].as_u64().unwrap(),
            )
        })
        .collect();
    expected.sort();
    // Written in a header or as a decimal on more of the trace's lines than in span fields.
    for (span, lines) in [("53995c3f42cd8ad8", 4), ("e457b5a2e4d86bd1", 3)] {
        assert!(
            expected.contains(&(span.to_string(), lines)),
            "{expected:?}"
        );
    }
    let text = run(&["timeline", trace, dir, "--color", "never"]);
    let text = String::from_utf8(text.stdout).unwrap();
    // `<id> span <field> <n> line(s) ...`: each related span and its lines on the timeline.
    let mut related: Vec<(String, u64)> = text
        .lines()
        .skip_while(|l| !l.starts_with("related"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            (cells.get(1) == Some(&"span"))
                .then(|| (cells[0].to_string(), cells[3].parse().unwrap()))
        })
        .collect();
    related.sort();
    assert_eq!(related, expected, "{text}");
}

/// A 64-bit trace ID (the `b3` value a B3 client writes, 16 hex digits) is the low half of the
/// trace: its timeline is the 128-bit trace's, hops and all, but for the row naming the ID.
#[test]
fn the_timeline_of_a_64_bit_trace_is_that_of_the_trace_it_is_the_low_half_of() {
    let b3 = format!("{}-{ROOT_SPAN}-1", &TRACE[16..]);
    for extra in [&["--related"][..], &["--hops", "2"]] {
        let mut args = vec!["timeline", b3.as_str(), DIR];
        args.extend_from_slice(extra);
        let out = run(&args);
        let narrow = String::from_utf8(out.stdout).unwrap();
        assert!(
            narrow.starts_with(&format!(
                "id        0000000000000000{} (trace (64-bit))\n",
                &TRACE[16..]
            )),
            "{narrow}"
        );
        let wide = timeline(extra);
        let after_id = |text: &str| text.lines().skip(1).collect::<Vec<_>>().join("\n");
        assert_eq!(after_id(&narrow), after_id(&wide), "{extra:?}");
    }
}
