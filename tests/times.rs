//! Line times as the commands see them: the formats of common loggers and servers, time
//! inference across read buffers, and IDs dated past the year 9999.

use std::path::Path;
use std::process::{Output, Stdio};

use serde_json::Value;

use crate::support::idgrep;

/// A ULID of 2026-11-29T10:00:00Z: two days before the lines below.
const ID: &str = "01M8KBYJ80Y0SZMZ2C5ZDG7QF1";

fn run(args: &[&str]) -> Output {
    let out = idgrep().args(args).stdin(Stdio::null()).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// The timeline's NDJSON export: `(file name, line, rule, ts)` per line.
fn timeline(id: &str, paths: &[&str]) -> Vec<(String, u64, String, Option<String>)> {
    let mut args = vec!["timeline", id];
    args.extend_from_slice(paths);
    args.extend_from_slice(&["--format", "ndjson"]);
    let out = run(&args);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let path = v["path"].as_str().unwrap();
            let name = Path::new(path).file_name().unwrap().to_str().unwrap();
            (
                name.to_string(),
                v["line"].as_u64().unwrap(),
                v["rule"].as_str().unwrap().to_string(),
                v["ts"].as_str().map(str::to_string),
            )
        })
        .collect()
}

fn row(name: &str, line: u64, rule: &str, ts: &str) -> (String, u64, String, Option<String>) {
    (
        name.to_string(),
        line,
        rule.to_string(),
        Some(ts.to_string()),
    )
}

#[test]
fn go_nginx_jul_and_apache_times_place_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let go = write(
        d,
        "go.log",
        &format!("2026/12/01 10:00:12 charged order {ID}\n"),
    );
    let jul = write(
        d,
        "jul.log",
        &format!("Dec 01, 2026 10:00:15 AM org.example.Ship run\nINFO: shipped order {ID}\n"),
    );
    let apache = write(
        d,
        "error.log",
        &format!("[Tue Dec 01 10:00:00.123456 2026] [core:error] [pid 7] order {ID}\n"),
    );
    let mongo = write(
        d,
        "mongod.log",
        &format!(
            "{{\"t\":{{\"$date\":\"2026-12-01T10:00:20.000+00:00\"}},\"s\":\"I\",\"attr\":{{\"order\":\"{ID}\"}}}}\n"
        ),
    );
    assert_eq!(
        timeline(ID, &[&go, &jul, &apache, &mongo]),
        [
            // Apache writes microseconds, so the whole export shows them.
            row("error.log", 1, "line", "2026-12-01T10:00:00.123456Z"),
            row("go.log", 1, "line", "2026-12-01T10:00:12.000000Z"),
            row("jul.log", 2, "inferred", "2026-12-01T10:00:15.000000Z"),
            row("mongod.log", 1, "line", "2026-12-01T10:00:20.000000Z"),
        ]
    );
}

#[test]
fn an_untimed_run_longer_than_the_read_buffer_reads_back_to_the_last_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = String::from("2026-12-01T10:00:00.250Z ERROR worker crashed\n");
    while log.len() < 320 * 1024 {
        log.push_str("\tat org.example.worker.Handler.process(Handler.java:42)\n");
    }
    log.push_str(&format!("\tat order {ID}\n"));
    let lines = log.lines().count() as u64;
    log.push_str("2026-12-01T10:05:00Z INFO next\n");
    let path = write(dir.path(), "trace.log", &log);
    assert_eq!(
        timeline(ID, &[&path]),
        [row(
            "trace.log",
            lines,
            "inferred",
            "2026-12-01T10:00:00.250Z"
        )]
    );
}

#[test]
fn a_file_with_timestamps_only_after_the_lines_is_not_called_untimed() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "late.log",
        &format!("starting order {ID}\n2026-12-01T10:00:00Z INFO ready\n"),
    );
    assert_eq!(
        timeline(ID, &[&path]),
        [row("late.log", 1, "inferred", "2026-12-01T10:00:00.000Z")]
    );
    let text = run(&["timeline", ID, &path, "--color", "never"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(!text.contains("no timestamps"), "{text}");
}

/// A ULID of 10889: its time has no RFC 3339 form.
const FAR: &str = "7ZZZZZZZZZZZZZZZZZZZZZZZZZ";
const FAR_MS: u64 = 281_474_976_710_655;

fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn ids_dated_after_9999_have_null_times_in_json_and_readable_text() {
    let decoded = &json_lines(&run(&["decode", "--json", FAR]))[0];
    assert_eq!(decoded["time"], Value::Null);
    assert_eq!(decoded["unix_ms"], FAR_MS);
    let text = String::from_utf8(run(&["decode", FAR]).stdout).unwrap();
    assert!(
        text.contains(&format!("time     unix_ms {FAR_MS} (after 9999)\n")),
        "{text}"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "far.log", &format!("order {FAR} packed\n"));
    let ids = json_lines(&run(&["ids", "--json", &path]));
    let far = ids
        .iter()
        .find(|r| r["id"].as_str() == Some(&FAR.to_lowercase()))
        .unwrap();
    assert_eq!(far["created"], Value::Null);

    let line = &json_lines(&run(&["timeline", FAR, &path, "--format", "ndjson"]))[0];
    assert_eq!(line["ts"], Value::Null);
    assert_eq!(line["rule"], "id_time");
    let trace: Value =
        serde_json::from_slice(&run(&["timeline", FAR, &path, "--format", "trace"]).stdout)
            .unwrap();
    assert_eq!(trace["otherData"]["origin"], Value::Null);
    let text = String::from_utf8(run(&["timeline", FAR, &path]).stdout).unwrap();
    assert!(!text.contains("unix_ms:"), "{text}");
    assert!(text.contains("(after 9999)"), "{text}");
}

/// Two services writing microseconds within one millisecond: the timeline interleaves them in
/// the order they happened, and shows the microseconds, in every view.
#[test]
fn microsecond_times_from_two_files_sort_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let api = write(
        d,
        "api.log",
        &format!("2026-12-01T10:00:00.000900Z api replied {ID}\n"),
    );
    let db = write(
        d,
        "db.jsonl",
        &format!(
            "{{\"ts\":\"2026-12-01T10:00:00.000100Z\",\"msg\":\"query\",\"order\":\"{ID}\"}}\n\
             {{\"ts\":1796119200000500,\"msg\":\"commit\",\"order\":\"{ID}\"}}\n"
        ),
    );
    assert_eq!(
        timeline(ID, &[&api, &db]),
        [
            row("db.jsonl", 1, "line", "2026-12-01T10:00:00.000100Z"),
            row("db.jsonl", 2, "line", "2026-12-01T10:00:00.000500Z"),
            row("api.log", 1, "line", "2026-12-01T10:00:00.000900Z"),
        ]
    );
    let text = run(&["timeline", ID, &api, &db, "--color", "never"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("duration  0.000800s"), "{text}");
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("10:00:00.000"))
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert!(rows[0].starts_with("10:00:00.000100 "), "{text}");
    // Search keeps the precision of each line.
    let out = run(&["--json", ID, &db]);
    let ts: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["ts"].to_string())
        .collect();
    assert_eq!(
        ts,
        [
            "\"2026-12-01T10:00:00.000100Z\"",
            "\"2026-12-01T10:00:00.000500Z\""
        ]
    );
}

/// Times before 1970 and at the ends of the four-digit years, in IDs and in logs: a UUIDv1
/// of the Gregorian epoch (1582) decodes with a negative Unix time; lines of the years 1,
/// 1969 and 9999 are placed in order by their own times; a line of the year 10000 has no time
/// of its own (RFC 3339 has four-digit years): `null` in search JSON, and the timeline infers
/// it from the line before and places it there.
#[test]
fn dates_before_1970_and_after_9999_in_logs_and_ids() {
    const GREGORIAN: &str = "00000000-0000-1000-8000-000000000000";
    let decoded = &json_lines(&run(&["decode", "--json", GREGORIAN]))[0];
    assert_eq!(decoded["time"], "1582-10-15T00:00:00.000Z");
    assert_eq!(decoded["unix_ms"], -12_219_292_800_000i64);

    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "old.log",
        &format!(
            "9999-12-31T23:59:59.999Z last {GREGORIAN}\n\
             0001-01-01T00:00:00Z first {GREGORIAN}\n\
             1969-12-31T23:59:59.999Z before {GREGORIAN}\n\
             10000-01-01T00:00:00Z beyond {GREGORIAN}\n"
        ),
    );
    let ids = json_lines(&run(&["ids", "--json", &path]));
    assert_eq!(ids[0]["created"], "1582-10-15T00:00:00.000Z");
    assert_eq!(ids[0]["first_seen"], "0001-01-01T00:00:00.000Z");
    assert_eq!(ids[0]["last_seen"], "9999-12-31T23:59:59.999Z");

    let found: Vec<Value> = json_lines(&run(&["--json", GREGORIAN, &path]))
        .into_iter()
        .map(|l| l["ts"].clone())
        .collect();
    assert_eq!(
        found,
        [
            Value::from("9999-12-31T23:59:59.999Z"),
            Value::from("0001-01-01T00:00:00.000Z"),
            Value::from("1969-12-31T23:59:59.999Z"),
            Value::Null
        ]
    );
    assert_eq!(
        timeline(GREGORIAN, &[&path]),
        [
            row("old.log", 2, "line", "0001-01-01T00:00:00.000Z"),
            row("old.log", 3, "line", "1969-12-31T23:59:59.999Z"),
            row("old.log", 4, "inferred", "1969-12-31T23:59:59.999Z"),
            row("old.log", 1, "line", "9999-12-31T23:59:59.999Z"),
        ]
    );
}
