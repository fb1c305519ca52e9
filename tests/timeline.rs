//! `idgrep timeline` on `testdata/timeline/` (a shipment's story in six files: JSON with a
//! +09:00 offset, logfmt without a zone, text with -05:00 and untimed stack-trace lines,
//! year-less syslog, an access log, and an export with no timestamps) and on the incident in
//! `testdata/logs/`: ordering, inferred times, ties, hops and fan-out, the window, every export
//! read back, and the HTML page in a real headless Chromium.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

use serde::Deserialize;

use crate::support::{idgrep, run, testdata};

/// The shipment: the timeline's ID.
const SHIPMENT: &str = "01M8NQFJ00JP2J77QD4K1C0RZY";
/// Its parcel (UUIDv7), one hop out; the label (ULID) two hops out.
const PARCEL: &str = "01a22b77-c9e0-7cb0-9966-eb44e0c67744";
const LABEL: &str = "01m8nr1vtwq721e8401s6agac4";
/// The tenant: on 13 lines, more than `--max-fanout 10`.
const TENANT: &str = "01hp95mbe0am8gx6mdyqvpg1jf";
/// The incident's hot order.
const HOT: &str = "01M8KBYGM5NG2PSHNY302ZVWBS";

/// A copy of `testdata/timeline` whose files were last written on 2026-12-01, so the year-less
/// syslog lines are dated 2026 whenever the tests run.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let written = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_083_200);
        copy_tree(&testdata("timeline"), dir.path(), written);
        Fixture { dir }
    }

    fn root(&self) -> &str {
        self.dir.path().to_str().unwrap()
    }

    /// `path` relative to the fixture.
    fn rel<'a>(&self, path: &'a str) -> &'a str {
        path.strip_prefix(self.root())
            .unwrap()
            .trim_start_matches('/')
    }

    fn run(&self, args: &[&str]) -> Output {
        let mut all = vec!["timeline", SHIPMENT, self.root()];
        all.extend_from_slice(args);
        run(&all)
    }
}

fn copy_tree(from: &Path, to: &Path, written: SystemTime) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target, written);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            let file = std::fs::File::options().write(true).open(&target).unwrap();
            file.set_modified(written).unwrap();
        }
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// One NDJSON object; unknown keys fail the test, so the schema in docs/timeline.md stays true.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct JsonLine {
    ts: Option<String>,
    ts_inferred: bool,
    rule: String,
    path: String,
    line: u64,
    field: Option<String>,
    via: String,
    text: String,
}

fn ndjson(o: &Output) -> Vec<JsonLine> {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `path:line rule ts` per line, paths relative to the fixture.
fn story(fixture: &Fixture, lines: &[JsonLine]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            format!(
                "{}:{} {} {}",
                fixture.rel(&l.path),
                l.line,
                l.rule,
                l.ts.as_deref().unwrap_or("-")
            )
        })
        .collect()
}

#[test]
fn lines_are_ordered_across_formats_and_zones_with_inferred_times_and_ties() {
    let f = Fixture::new();
    let lines = ndjson(&f.run(&["--format", "ndjson"]));
    assert_eq!(
        story(&f, &lines),
        [
            // No timestamps in the file: the shipment ULID's own time, file order.
            "legacy/export.txt:2 id_time 2026-11-30T08:00:00.000Z",
            "legacy/export.txt:3 id_time 2026-11-30T08:00:00.000Z",
            // 17:00:00.120+09:00.
            "web/api.jsonl:13 line 2026-11-30T08:00:00.120Z",
            // logfmt without a zone: UTC by default.
            "ship/shipper.log:1 line 2026-11-30T08:00:00.500Z",
            // Before the file's first timestamp: that timestamp, then line order.
            "ship/worker.log:1 inferred 2026-11-30T08:00:01.000Z",
            "ship/worker.log:2 line 2026-11-30T08:00:01.000Z",
            // Year-less syslog, dated by the file's modification time.
            "sys/messages:1 line 2026-11-30T08:00:02.000Z",
            // Four lines at the same instant: file order, then line order.
            "ship/shipper.log:2 line 2026-11-30T08:00:03.000Z",
            "ship/shipper.log:3 line 2026-11-30T08:00:03.000Z",
            "web/api.jsonl:14 line 2026-11-30T08:00:03.000Z",
            "web/api.jsonl:15 line 2026-11-30T08:00:03.000Z",
            // A stack trace line: the time of line 3, which does not mention the ID.
            "ship/worker.log:4 inferred 2026-11-30T08:00:04.000Z",
            "ship/worker.log:5 inferred 2026-11-30T08:00:04.000Z",
            "web/api.jsonl:16 line 2026-11-30T08:00:05.250Z",
            "ship/worker.log:6 line 2026-11-30T08:00:06.000Z",
        ]
    );
    for l in &lines {
        assert_eq!(l.ts_inferred, l.rule != "line");
        assert_eq!(l.via, SHIPMENT.to_lowercase());
    }
    let api = lines
        .iter()
        .find(|l| l.path.ends_with("api.jsonl"))
        .unwrap();
    assert_eq!(api.field.as_deref(), Some("shipment_id"));
    assert!(
        api.text
            .starts_with(r#"{"ts":"2026-11-30T17:00:00.120+09:00""#)
    );
    // The same with one thread.
    assert_eq!(
        f.run(&["--format", "ndjson", "-j1"]).stdout,
        f.run(&["--format", "ndjson", "-j2"]).stdout
    );
}

#[test]
fn tz_reads_zone_less_times_in_that_zone() {
    let f = Fixture::new();
    let lines = ndjson(&f.run(&["--format", "ndjson", "--tz", "Asia/Tokyo"]));
    // The logfmt and syslog times are now +09:00: nine hours earlier, before everything else.
    let first: Vec<String> = story(&f, &lines).into_iter().take(5).collect();
    assert_eq!(
        first,
        [
            "ship/shipper.log:1 line 2026-11-29T23:00:00.500Z",
            "sys/messages:1 line 2026-11-29T23:00:02.000Z",
            "ship/shipper.log:2 line 2026-11-29T23:00:03.000Z",
            "ship/shipper.log:3 line 2026-11-29T23:00:03.000Z",
            "legacy/export.txt:2 id_time 2026-11-30T08:00:00.000Z",
        ]
    );
    // The text view shows times in the zone.
    let text = stdout(&f.run(&["--tz", "Asia/Tokyo"]));
    assert!(
        text.contains("first     2026-11-30T08:00:00.500+09:00\n"),
        "{text}"
    );
    assert!(text.contains("\n17:00:00.000*  "), "{text}");
}

#[test]
fn the_text_view_has_a_summary_then_aligned_rows() {
    let f = Fixture::new();
    let o = f.run(&["--color", "never"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    let mut rows = text.lines();
    let summary: Vec<&str> = rows.by_ref().take_while(|l| !l.is_empty()).collect();
    assert_eq!(summary[0], "id        01m8nqfj00jp2j77qd4k1c0rzy (ulid)");
    assert!(summary.contains(&"created   2026-11-30T08:00:00.000Z (embedded in the ID)"));
    assert!(summary.contains(&"duration  6.000s"));
    assert!(summary.contains(&"lines     15 (3 ~ inferred, 2 * by the ID's time)"));
    assert!(summary.iter().any(|l| l.starts_with("files     5 under ")));
    assert!(summary.contains(&"related   3 IDs (listed; --related follows them)"));
    assert!(
        summary
            .iter()
            .any(|l| l.contains(PARCEL) && l.contains("parcel"))
    );
    let header = rows.next().unwrap();
    assert!(header.starts_with("TIME") && header.ends_with("LINE"));
    let at = header.find("LINE").unwrap();
    let body: Vec<&str> = rows.collect();
    assert_eq!(body.len(), 15);
    for row in &body {
        // Every log line starts in the LINE column.
        assert!(
            row.is_char_boundary(at) && row[..at].ends_with("  "),
            "{row}"
        );
    }
    assert!(body[0].starts_with("08:00:00.000*  +0.000s  +0.000s  legacy/export.txt:2"));
    // One day: the rows give the time of day, the summary the date.
    assert!(body[4].starts_with("08:00:01.000~"));
    assert!(body[13].contains("+5.250s") && body[13].contains("+1.250s"));
    // Piped: no colour, full lines.
    assert!(!text.contains('\x1b'));
    assert!(body[2].ends_with(r#""parcel":"01a22b77-c9e0-7cb0-9966-eb44e0c67744"}"#));
    // Colour on request: a colour per source, the ID in bold red.
    let colored = stdout(&f.run(&["--color", "always"]));
    assert!(colored.contains("\x1b[36mlegacy/export.txt:2\x1b[0m"));
    assert!(colored.contains("\x1b[1;31m01M8NQFJ00JP2J77QD4K1C0RZY\x1b[0m"));
}

#[test]
fn related_ids_are_followed_hop_by_hop_and_fan_out_ids_are_listed_only() {
    let f = Fixture::new();
    let via = |lines: &[JsonLine], suffix: &str| -> String {
        lines
            .iter()
            .find(|l| format!("{}:{}", l.path, l.line).ends_with(suffix))
            .map(|l| l.via.clone())
            .unwrap_or_else(|| panic!("{suffix} is not on the timeline"))
    };
    // One hop, the tenant over the limit: the parcel's two other lines join.
    let one = ndjson(&f.run(&["--format", "ndjson", "--related", "--max-fanout", "10"]));
    assert_eq!(one.len(), 17);
    assert_eq!(via(&one, "ship/shipper.log:4"), PARCEL);
    assert_eq!(via(&one, "sys/messages:2"), PARCEL);
    assert!(!one.iter().any(|l| l.via == TENANT));
    assert!(!one.iter().any(|l| l.path.ends_with("edge.log")));
    // The same limit, two hops: the label's access-log line joins, brought by the label.
    let two = ndjson(&f.run(&["--format", "ndjson", "--hops", "2", "--max-fanout", "10"]));
    assert_eq!(two.len(), 18);
    assert_eq!(via(&two, "web/edge.log:1"), LABEL);
    assert_eq!(
        two.last().unwrap().ts.as_deref(),
        Some("2026-11-30T08:30:00.000Z")
    );
    // The default limit follows the tenant (13 lines): its 12 other lines join.
    let all = ndjson(&f.run(&["--format", "ndjson", "--related"]));
    assert_eq!(all.len(), 29);
    assert_eq!(all.iter().filter(|l| l.via == TENANT).count(), 12);
    // The summary says what was followed and why not.
    let text = stdout(&f.run(&["--related", "--max-fanout", "10"]));
    assert!(
        text.contains("related   4 IDs (2 followed in 1 hop, 1 not followed: more than 10 lines)"),
        "{text}"
    );
    let tenant = text.lines().find(|l| l.contains(TENANT)).unwrap();
    assert!(
        tenant.contains(
            "1 line   not followed: 13 lines > --max-fanout 10  2026-11-30T08:00:00.120Z"
        ),
        "{tenant}"
    );
    let label = text
        .lines()
        .find(|l| l.contains(LABEL) && !l.contains("ts="))
        .unwrap();
    assert!(label.contains("listed (beyond --hops 1)"), "{label}");
    // Lines brought by another ID name it in the VIA column.
    let row = text.lines().find(|l| l.contains("sys/messages:2")).unwrap();
    assert!(row.contains("\u{2026}e0c67744"), "{row}");
}

/// A line that lists an ID many times counts once for it, and a line found through several
/// related IDs names the first of them on the line as its way in, also past the number of hits
/// compared one by one.
#[test]
fn long_lists_count_a_line_once_and_keep_the_first_id_as_the_way_in() {
    let dir = tempfile::tempdir().unwrap();
    let others: Vec<String> = (0..20)
        .map(|i| format!("01m8nr1vtwq721e8401s6ag{i:03}"))
        .collect();
    let lines = [
        format!(
            "ts=2026-11-30T08:00:00Z shipment={SHIPMENT} items=\"[{} {}]\"",
            vec![LABEL; 20].join(" "),
            others.join(" ")
        ),
        format!("ts=2026-11-30T08:01:00Z shipment={SHIPMENT} item={LABEL}"),
        format!(
            "ts=2026-11-30T08:02:00Z note={} items=\"[{}]\"",
            others[5],
            vec![LABEL; 17].join(" ")
        ),
    ];
    let path = dir.path().join("x.log");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let path = path.to_str().unwrap();

    let found = ndjson(&run(&[
        "timeline",
        SHIPMENT,
        path,
        "--related",
        "--format",
        "ndjson",
    ]));
    let ways: Vec<(u64, &str)> = found.iter().map(|l| (l.line, l.via.as_str())).collect();
    let shipment = SHIPMENT.to_lowercase();
    assert_eq!(ways, [(1, &*shipment), (2, &*shipment), (3, &*others[5])]);
    let text = stdout(&run(&["timeline", SHIPMENT, path, "--related"]));
    let row = |id: &str| text.lines().find(|l| l.contains(id)).unwrap().to_string();
    assert!(row(LABEL).contains("3 lines  followed"), "{text}");
    assert!(row(&others[5]).contains("2 lines  followed"), "{text}");
    assert!(row(&others[6]).contains("1 line   followed"), "{text}");
}

/// A timeline of many rows reads the same on one thread and on several (its rows are
/// measured and written a chunk at a time on each), and every row is padded to the widest
/// cell of the whole timeline: here a field name that only the last rows have, and a second
/// date.
#[test]
fn many_rows_line_up_the_same_on_one_thread_and_on_three() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = String::new();
    for i in 0..20_000 {
        // Three threads measure a third of the rows each: the last third has the other date.
        let day = if i < 13_334 { "11-30" } else { "12-01" };
        let key = if i < 19_990 {
            "shipment"
        } else {
            "shipment_of_the_long_name"
        };
        let (h, m, s) = (i / 3600 % 24, i / 60 % 60, i % 60);
        log.push_str(&format!(
            "ts=2026-{day}T{h:02}:{m:02}:{s:02}Z {key}={SHIPMENT} n={i}\n"
        ));
    }
    let path = dir.path().join("x.log");
    std::fs::write(&path, log).unwrap();
    let path = path.to_str().unwrap();
    let text = |threads: &str| {
        let o = run(&[
            "timeline", "-j", threads, "--color", "never", SHIPMENT, path,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stdout(&o)
    };
    let one = text("1");
    assert_eq!(one, text("3"));
    let rows: Vec<&str> = one.lines().skip_while(|l| !l.starts_with("TIME")).collect();
    assert_eq!(rows.len(), 20_001);
    // Two dates: every row gives its time in full.
    assert!(
        rows[1].starts_with("2026-11-30T00:00:00.000Z "),
        "{}",
        rows[1]
    );
    // The FIELD column is as wide as its widest cell, up to 24 columns.
    let line_at = rows[0].find("LINE").unwrap();
    assert_eq!(rows[1].find("ts=").unwrap(), line_at, "{}", rows[1]);
    let field_at = rows[0].find("FIELD").unwrap();
    assert_eq!(line_at - field_at, 24 + 2, "{}", rows[0]);
    assert!(
        rows[20_000].contains("shipment_of_the_long_na\u{2026}  "),
        "{}",
        rows[20_000]
    );
}

#[test]
fn since_and_until_keep_a_window() {
    let f = Fixture::new();
    let lines = ndjson(&f.run(&[
        "--format",
        "ndjson",
        "--since",
        "2026-11-30T08:00:03Z",
        "--until",
        "2026-11-30 08:00:04",
    ]));
    assert_eq!(
        story(&f, &lines),
        [
            "ship/shipper.log:2 line 2026-11-30T08:00:03.000Z",
            "ship/shipper.log:3 line 2026-11-30T08:00:03.000Z",
            "web/api.jsonl:14 line 2026-11-30T08:00:03.000Z",
            "web/api.jsonl:15 line 2026-11-30T08:00:03.000Z",
            "ship/worker.log:4 inferred 2026-11-30T08:00:04.000Z",
            "ship/worker.log:5 inferred 2026-11-30T08:00:04.000Z",
        ]
    );
    // Relative times count back from now: 100000 days ago keeps everything, until then
    // nothing (exit 1).
    assert_eq!(
        ndjson(&f.run(&["--format", "ndjson", "--since", "100000d"])).len(),
        15
    );
    let none = f.run(&["--until", "100000d"]);
    assert_eq!(none.status.code(), Some(1));
    // The summary says the lines exist but fall outside, not that they have no time.
    let summary = stdout(&none);
    assert!(
        summary.contains("no line within --since/--until"),
        "{summary}"
    );
    assert!(
        summary.contains("0 (15 more outside --since/--until)"),
        "{summary}"
    );
    let window = f.run(&[
        "--since",
        "2026-11-30T08:00:03Z",
        "--until",
        "2026-11-30 08:00:04",
    ]);
    assert!(stdout(&window).contains("6 (2 ~ inferred, 9 more outside --since/--until)"));
    let bad = f.run(&["--since", "yesterday-ish"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("invalid --since"), "{}", stderr(&bad));
}

#[test]
fn csv_cells_read_back_and_formulas_are_neutralised() {
    let f = Fixture::new();
    let out = f.dir.path().join("out.csv");
    let o = f.run(&["-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let mut reader = csv::Reader::from_path(&out).unwrap();
    assert_eq!(
        reader.headers().unwrap(),
        vec![
            "ts",
            "ts_inferred",
            "rule",
            "path",
            "line",
            "field",
            "via",
            "text"
        ]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 15);
    let text_of = |suffix: &str| -> String {
        rows.iter()
            .find(|r| format!("{}:{}", &r[3], &r[4]).ends_with(suffix))
            .map(|r| r[7].to_string())
            .unwrap()
    };
    // Cells starting with = or - get a leading quote; the rest of the text is intact,
    // quotes and commas included (RFC 4180).
    assert_eq!(
        text_of("worker.log:5"),
        format!("'=cmd|' /C calc'!A0 shipment {SHIPMENT}")
    );
    assert_eq!(text_of("export.txt:3"), format!("'-1,{SHIPMENT},refund"));
    assert!(
        text_of("api.jsonl:16").contains(r#""msg":"note from carrier: <script>alert(1)</script>""#)
    );
    assert_eq!(&rows[0][0], "2026-11-30T08:00:00.000Z");
    assert_eq!(&rows[0][1], "true");
    assert_eq!(&rows[0][2], "id_time");
    for r in &rows {
        for cell in r.iter() {
            assert!(
                !matches!(cell.as_bytes().first(), Some(b'=' | b'+' | b'-' | b'@')),
                "{cell}"
            );
        }
    }
}

#[test]
fn markdown_has_a_summary_and_a_table_that_keeps_log_text_as_code() {
    let f = Fixture::new();
    let out = f.dir.path().join("postmortem.md");
    let o = f.run(&[
        "--related",
        "--max-fanout",
        "10",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.starts_with("## Timeline of `01m8nqfj00jp2j77qd4k1c0rzy`\n"));
    assert!(md.contains("| duration | 20m00\\.000s |"), "{md}");
    assert!(md.contains("### Related IDs"));
    assert!(
        md.contains(&format!("| `{PARCEL}` | uuid v7 | parcel | 4 |")),
        "{md}"
    );
    let table: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with("| time |"))
        .skip(2)
        .collect();
    assert_eq!(table.len(), 17);
    // A log line is a code span; its pipes are escaped so the row keeps its cells.
    let cmd = table.iter().find(|l| l.contains("=cmd")).unwrap();
    assert!(
        cmd.ends_with(&format!("| `=cmd\\|' /C calc'!A0 shipment {SHIPMENT}` |")),
        "{cmd}"
    );
    assert!(
        table
            .iter()
            .all(|l| l.starts_with("| ") && l.ends_with(" |"))
    );
    assert!(md.contains("`{\"ts\":\"2026-11-30T17:00:05.250+09:00\",\"level\":\"warn\",\"msg\":\"note from carrier: <script>alert(1)</script>\""));
}

/// The HTML export of the fixture, with one thread of related IDs.
fn html_export(f: &Fixture) -> (PathBuf, String) {
    let out = f.dir.path().join("incident.html");
    let o = f.run(&[
        "--related",
        "--max-fanout",
        "10",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let html = std::fs::read_to_string(&out).unwrap();
    (out, html)
}

#[test]
fn html_is_self_contained_and_escapes_log_text() {
    let f = Fixture::new();
    let (_, html) = html_export(&f);
    assert!(html.starts_with("<!DOCTYPE html>"));
    // Nothing is fetched: no links, sources, imports or URLs in styles.
    for needle in ["<link", " src=", "@import", "url(", "<iframe", "<img"] {
        assert!(!html.contains(needle), "{needle}");
    }
    // The page's two scripts, and the log's <script> only as text.
    assert_eq!(html.matches("<script").count(), 2);
    assert!(html.contains("note from carrier: &lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("&#39; /C calc&#39;!A0"));
    assert_eq!(html.matches("<g class=\"lane\"").count(), 5);
    assert_eq!(html.matches("class=\"mark").count(), 17);
    assert_eq!(html.matches("<tr id=\"r").count(), 17);
}

#[test]
fn trace_is_chrome_trace_event_json() {
    #[derive(Deserialize)]
    struct Trace {
        #[serde(rename = "traceEvents")]
        trace_events: Vec<Event>,
        #[serde(rename = "displayTimeUnit")]
        display_time_unit: String,
        #[serde(rename = "otherData")]
        other_data: OtherData,
    }
    #[derive(Deserialize)]
    struct OtherData {
        id: String,
        origin: String,
        unplaced_lines: u64,
        generator: String,
    }
    #[derive(Deserialize)]
    struct Event {
        name: String,
        ph: String,
        pid: u32,
        tid: u64,
        ts: Option<i64>,
        dur: Option<i64>,
        s: Option<String>,
        args: serde_json::Map<String, serde_json::Value>,
    }
    let f = Fixture::new();
    let o = f.run(&["--related", "--max-fanout", "10", "--format", "trace"]);
    assert_eq!(o.status.code(), Some(0));
    let trace: Trace = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(trace.display_time_unit, "ms");
    assert_eq!(trace.other_data.origin, "2026-11-30T08:00:00.000Z");
    assert_eq!(trace.other_data.id, SHIPMENT.to_lowercase());
    assert_eq!(trace.other_data.generator, "idgrep timeline");
    assert_eq!(trace.other_data.unplaced_lines, 0);
    let tracks: Vec<&Event> = trace
        .trace_events
        .iter()
        .filter(|e| e.ph == "M" && e.name == "thread_name" && e.pid == 1)
        .collect();
    assert_eq!(tracks.len(), 5);
    let instants: Vec<&Event> = trace.trace_events.iter().filter(|e| e.ph == "i").collect();
    assert_eq!(instants.len(), 17);
    assert!(
        instants
            .iter()
            .all(|e| e.s.as_deref() == Some("t") && e.pid == 1)
    );
    assert!(instants.windows(2).all(|w| w[0].ts <= w[1].ts));
    assert_eq!(instants[0].ts, Some(0));
    // 20 minutes after the first line, in microseconds.
    assert_eq!(instants.last().unwrap().ts, Some(1_200_000_000));
    // Each instant's track is named after its file.
    let first_track = tracks.iter().find(|t| t.tid == instants[0].tid).unwrap();
    assert!(
        first_track.args["name"]
            .as_str()
            .unwrap()
            .ends_with("legacy/export.txt")
    );
    assert_eq!(instants[0].args["rule"], "id_time");
    // Every event names its field, null when there is none.
    assert!(instants.iter().all(|e| e.args.contains_key("field")));
    assert!(instants.iter().any(|e| e.args["field"].is_null()));
    assert!(instants.iter().any(|e| e.args["field"].is_string()));
    let spans: Vec<&Event> = trace.trace_events.iter().filter(|e| e.ph == "X").collect();
    let parcel = spans.iter().find(|e| e.name == PARCEL).unwrap();
    assert_eq!(parcel.pid, 2);
    assert_eq!(parcel.ts, Some(120_000));
    assert_eq!(parcel.dur, Some(1_200_000_000 - 120_000));
    assert!(spans.iter().all(|e| e.dur.unwrap() >= 1));

    // A UUIDv4 has no time of its own: its line in a file without times has no place on the
    // axis and is counted instead.
    let dir = tempfile::tempdir().unwrap();
    let refund = "5f0c2a1e-8a4b-4c3d-9e2f-1a2b3c4d5e6f";
    let logged = format!("ts=2026-11-30T08:00:00Z msg=refunded refund={refund}\n");
    std::fs::write(dir.path().join("a.log"), logged).unwrap();
    let note = format!("handover: refund {refund} checked by hand\n");
    std::fs::write(dir.path().join("note.txt"), note).unwrap();
    let root = dir.path().to_str().unwrap();
    let trace = run(&["timeline", refund, root, "--format", "trace"]);
    let trace: Trace = serde_json::from_slice(&trace.stdout).unwrap();
    let lines = ndjson(&run(&["timeline", refund, root, "--format", "ndjson"]));
    assert_eq!(lines.iter().filter(|l| l.ts.is_none()).count(), 1);
    assert_eq!(trace.other_data.unplaced_lines, 1);
    assert_eq!(trace.trace_events.iter().filter(|e| e.ph == "i").count(), 1);
    // A window leaves such a line out, and the summary says why: not as outside the window.
    let windowed = run(&["timeline", refund, root, "--since", "2000-01-01T00:00:00Z"]);
    let summary = stdout(&windowed);
    assert!(
        summary.contains("lines     1 (1 more without a time, which --since/--until leaves out)"),
        "{summary}"
    );
}

/// Runs `cmd`, killing it after `limit`.
fn output_within(mut cmd: Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("chromium did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn chromium(profile: &Path, extra: &[&str], page: &Path) -> Output {
    let mut cmd = Command::new("chromium");
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
    ]);
    cmd.arg(format!("--user-data-dir={}", profile.display()));
    cmd.args(extra);
    cmd.arg(format!("file://{}", page.display()));
    output_within(cmd, Duration::from_secs(120))
}

#[test]
fn the_html_export_renders_in_headless_chromium() {
    if Command::new("chromium").arg("--version").output().is_err() {
        if std::env::var_os("IDGREP_SKIP_BROWSER").is_some_and(|v| v == "1") {
            eprintln!("skipped: chromium is not installed and IDGREP_SKIP_BROWSER=1");
            return;
        }
        panic!(
            "the browser test needs Debian's chromium (scripts/test installs it); set \
             IDGREP_SKIP_BROWSER=1 to skip it"
        );
    }
    let f = Fixture::new();
    let (page, _) = html_export(&f);
    let profile = f.dir.path().join("chromium-profile");
    let o = chromium(&profile, &["--dump-dom"], &page);
    assert!(o.status.success(), "{}", stderr(&o));
    let dom = stdout(&o);
    let body = dom
        .split("<body")
        .nth(1)
        .and_then(|b| b.split('>').next())
        .unwrap_or_else(|| panic!("no <body> in the DOM: {dom}"));
    // The page's script ran to its end without an error.
    assert!(body.contains("data-ready=\"1\""), "{body}");
    assert!(body.contains("data-errors=\"0\""), "{body}");
    assert!(body.contains("data-marks=\"17\""), "{body}");
    assert_eq!(dom.matches("<g class=\"lane\"").count(), 5);
    assert_eq!(dom.matches("class=\"mark").count(), 17);
    // The log line's <script> is text in the DOM, not an element.
    assert!(dom.contains("note from carrier: &lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_eq!(dom.matches("<script").count(), 2);

    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("timeline.png");
    let _ = std::fs::remove_file(&shot);
    let o = chromium(
        &profile,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1400,900",
        ],
        &page,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "{}",
        shot.display()
    );
}

#[test]
fn the_incident_reads_in_time_order() {
    let o = run(&["timeline", HOT, "testdata/logs", "--format", "ndjson"]);
    let lines = ndjson(&o);
    assert_eq!(lines.len(), 63);
    let times: Vec<&str> = lines.iter().map(|l| l.ts.as_deref().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(
        format!("{}:{}", lines[0].path, lines[0].line),
        "testdata/logs/api/api.jsonl:2"
    );
    assert_eq!(times[0], "2026-11-29T09:59:58.341Z");
    assert_eq!(times[62], "2026-11-29T10:14:10.010Z");
    // Every UUID spelling of the order is on it, brought in by the order itself.
    assert!(
        lines
            .iter()
            .any(|l| l.text.contains("ref=01A226BF4285AC056CC6BE1805FDF179"))
    );
    assert!(lines.iter().all(|l| l.via == HOT.to_lowercase()));
    // Any spelling of the query gives the same timeline; `via` is in the kind it was given.
    let uuid = ndjson(&run(&[
        "timeline",
        "urn:uuid:01a226bf-4285-ac05-6cc6-be1805fdf179",
        "testdata/logs",
        "--format",
        "ndjson",
    ]));
    let key = |l: &JsonLine| (l.path.clone(), l.line, l.ts.clone());
    assert!(uuid.iter().map(key).eq(lines.iter().map(key)));
    assert!(
        uuid.iter()
            .all(|l| l.via == "01a226bf-4285-ac05-6cc6-be1805fdf179")
    );
}

#[test]
fn errors_exit_codes_and_standard_input() {
    let f = Fixture::new();
    // None found: exit 1, nothing on stderr.
    let none = run(&["timeline", "01arz3ndektsv4rrffq69g5fav", f.root()]);
    assert_eq!(none.status.code(), Some(1));
    assert_eq!(stderr(&none), "");
    // A bad ID stops before reading, naming the accepted forms.
    let bad = run(&[
        "timeline",
        "01M8NQFJ00JP2J77QD4K1C0RZ",
        "testdata/no-such-dir",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("length 25") && stderr(&bad).contains("accepted forms"));
    // An unreadable input is reported and the run goes on.
    let o = f.run(&["testdata/no-such-file", "--format", "ndjson"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "idgrep: testdata/no-such-file: no such file or directory\n"
    );
    assert_eq!(stdout(&o).lines().count(), 15);
    // A file name that names no format.
    let o = f.run(&["-o", "timeline.xyz"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--format"));
    // An export that cannot be written fails before anything is read: the unreadable input
    // is never reached.
    let o = f.run(&["testdata/no-such-file", "-o", "no-such-dir/timeline.html"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "idgrep: no-such-dir/timeline.html: no such file or directory\n"
    );
    // An export that would overwrite one of the logs is refused, and the log is left alone.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("api.jsonl");
    std::fs::copy(testdata("timeline/web/api.jsonl"), &log).unwrap();
    let before = std::fs::read(&log).unwrap();
    let o = run(&[
        "timeline",
        SHIPMENT,
        dir.path().to_str().unwrap(),
        "-o",
        log.to_str().unwrap(),
        "--format",
        "ndjson",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("-o names one of the logs"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&log).unwrap(), before);
    // Standard input, read once and kept for the second hop.
    let mut child = idgrep()
        .args(["timeline", SHIPMENT, "--related", "--format", "ndjson"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let data = std::fs::read(testdata("timeline/web/api.jsonl")).unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &data).unwrap();
    let o = child.wait_with_output().unwrap();
    let lines = ndjson(&o);
    // The shipment's 4 lines and the tenant's 12 others.
    assert_eq!(lines.len(), 16);
    assert!(lines.iter().all(|l| l.path == "<stdin>"));
}

#[test]
fn a_window_that_ends_before_it_starts_is_a_usage_error() {
    let out = idgrep()
        .args([
            "timeline",
            "01M8KBYGM5NG2PSHNY302ZVWBS",
            "testdata/logs",
            "--since",
            "2026-11-29T11:00:00Z",
            "--until",
            "2026-11-29T10:00:00Z",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--since is later than --until"));
}
