//! `idgrep ids` on `testdata/`: counts against a regex oracle, the field and time of every
//! record format, the JSON and CSV schemas read back, filters, sorting and exit codes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use regex::bytes::Regex;
use serde::Deserialize;

use crate::support::{Rng, decompressed, files_under, run, run_with_input, testdata};

/// One `ids --json` object. Unknown keys fail the test: the schema is documented and stable.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonId {
    id: String,
    kind: String,
    version: Option<u8>,
    created: Option<String>,
    lines: u32,
    occurrences: u32,
    files: Vec<String>,
    fields: BTreeMap<String, u32>,
    forms: BTreeMap<String, u32>,
    first_seen: Option<String>,
    last_seen: Option<String>,
}

fn json_ids(args: &[&str]) -> Vec<JsonId> {
    let mut all = vec!["ids", "--json"];
    all.extend_from_slice(args);
    let out = run(&all);
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// What the oracle counts per value: lines, files and written forms.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counted {
    lines: u32,
    files: BTreeSet<String>,
    forms: BTreeMap<String, u32>,
}

/// The inventory of `dir` by regular expressions, the way a careful script would do it: ULIDs
/// and dashed UUIDs anywhere between non-alphanumerics; 32-hex tokens only in a trace field or
/// when the same value is also written another way.
fn oracle(dir: &str) -> BTreeMap<u128, Counted> {
    let token = Regex::new(
        r"(?-u)(?:^|[^0-9A-Za-z])([0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}|[0-9A-Fa-f]{32})(?:$|[^0-9A-Za-z])",
    )
    .unwrap();
    // (value, path, line number, form)
    let mut seen: Vec<(u128, String, usize, String)> = Vec::new();
    for file in files_under(&testdata(dir)) {
        if file.file_name().unwrap() == ".gitattributes" {
            continue;
        }
        let path = format!(
            "testdata/{}",
            file.strip_prefix(testdata("")).unwrap().display()
        );
        let data = decompressed(&file);
        if data.contains(&0) {
            continue;
        }
        for (n, line) in data.split(|&b| b == b'\n').enumerate() {
            // Overlapping boundaries: search again from the end of each token.
            let mut at = 0;
            while let Some(c) = token.captures_at(line, at) {
                let m = c.get(1).unwrap();
                at = m.end();
                let text = std::str::from_utf8(m.as_bytes()).unwrap();
                let value = idgrep::id::parse(text).unwrap().id.0;
                let form = form_of(line, m.start(), m.end());
                seen.push((value, path.clone(), n, form));
            }
        }
    }
    let written_otherwise: BTreeSet<u128> = seen
        .iter()
        .filter(|s| s.3 != "uuid_undashed")
        .map(|s| s.0)
        .collect();
    let mut counted: BTreeMap<u128, Counted> = BTreeMap::new();
    let mut lines: BTreeSet<(u128, String, usize)> = BTreeSet::new();
    for (value, path, n, form) in seen {
        if !written_otherwise.contains(&value) {
            continue;
        }
        let c = counted.entry(value).or_default();
        if lines.insert((value, path.clone(), n)) {
            c.lines += 1;
        }
        c.files.insert(path);
        *c.forms.entry(form).or_default() += 1;
    }
    counted
}

/// The form name of the token at `line[start..end]`, written out from the table in docs/ids.md.
fn form_of(line: &[u8], start: usize, end: usize) -> String {
    let token = &line[start..end];
    let case = if token.iter().any(u8::is_ascii_uppercase) {
        if token.iter().any(u8::is_ascii_lowercase) {
            "mixed"
        } else {
            "upper"
        }
    } else {
        "lower"
    };
    match token.len() {
        26 => format!("ulid_{case}"),
        // A trace ID in a trace field (the logs here write them as `trace_id=` and
        // `"trace_id":"`), else a plain 32-hex token.
        32 if Regex::new(r#"(?i-u)trace[_.-]?id"?\s*[:=]\s*"?$"#)
            .unwrap()
            .is_match(&line[..start]) =>
        {
            "trace_hex".to_string()
        }
        32 => "uuid_undashed".to_string(),
        _ if start > 0 && line[start - 1] == b'{' && line.get(end) == Some(&b'}') => {
            "uuid_braced".to_string()
        }
        _ if start >= 9 && line[start - 9..start].eq_ignore_ascii_case(b"urn:uuid:") => {
            "uuid_urn".to_string()
        }
        _ => format!("uuid_{case}"),
    }
}

#[test]
fn counts_equal_a_regex_oracle() {
    let want = oracle("logs");
    let got: BTreeMap<u128, Counted> = json_ids(&["testdata/logs"])
        .into_iter()
        .map(|j| {
            let value = idgrep::id::parse(&j.id).unwrap().id.0;
            let c = Counted {
                lines: j.lines,
                files: j.files.into_iter().collect(),
                forms: j.forms,
            };
            (value, c)
        })
        .collect();
    assert_eq!(got.len(), want.len());
    for (value, want) in &want {
        assert_eq!(
            got.get(value),
            Some(want),
            "{}",
            idgrep::id::Id(*value).ulid()
        );
    }
}

#[test]
fn one_entry_per_value_whatever_the_form() {
    let ids = json_ids(&["testdata/logs"]);
    let hot = ids
        .iter()
        .find(|j| j.id == "01m8kbygm5ng2pshny302zvwbs")
        .expect("the hot order");
    assert!(
        !ids.iter()
            .any(|j| j.id == "01a226bf-4285-ac05-6cc6-be1805fdf179")
    );
    assert_eq!((hot.kind.as_str(), hot.version), ("ulid", None));
    assert_eq!(hot.created.as_deref(), Some("2026-11-29T09:59:58.341Z"));
    assert_eq!((hot.lines, hot.files.len()), (63, 7));
    // Its first line is its creation; its last, the worker's CRM note (worker.log:55).
    assert_eq!(hot.first_seen, hot.created);
    assert_eq!(hot.last_seen.as_deref(), Some("2026-11-29T10:14:10.010Z"));
    let forms: BTreeSet<&str> = hot.forms.keys().map(String::as_str).collect();
    for form in [
        "ulid_lower",
        "ulid_upper",
        "uuid_lower",
        "uuid_upper",
        "uuid_undashed",
        "uuid_braced",
        "uuid_urn",
    ] {
        assert!(forms.contains(form), "{form} in {forms:?}");
    }
    assert_eq!(hot.occurrences, hot.forms.values().sum::<u32>());
    // Most lines first, ties by the 128-bit value (which is time order for ULIDs and v7).
    let keys: Vec<(std::cmp::Reverse<u32>, u128)> = ids
        .iter()
        .map(|j| {
            (
                std::cmp::Reverse(j.lines),
                idgrep::id::parse(&j.id).unwrap().id.0,
            )
        })
        .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "not in order");
}

/// Copies `testdata/records` to a temporary directory with a known modification time, since
/// syslog and klog lines carry no year and take it from the file.
fn records_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let december = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_796_083_200); // 2026-12-01
    for file in files_under(&testdata("records")) {
        let to = dir.path().join(file.file_name().unwrap());
        std::fs::copy(&file, &to).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&to)
            .unwrap()
            .set_modified(december)
            .unwrap();
    }
    dir
}

/// id -> (fields, first time) from `ids --json` over the records.
fn fields_and_times(
    dir: &Path,
    extra: &[&str],
) -> BTreeMap<String, (BTreeMap<String, u32>, Option<String>)> {
    let mut args = vec![dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    json_ids(&args)
        .into_iter()
        .map(|j| (j.id, (j.fields, j.first_seen)))
        .collect()
}

/// (id, field, count, line time) of each line of `testdata/records`; see testdata/README.md.
const RECORDS: &[(&str, &str, u32, Option<&str>)] = &[
    // JSON
    (
        "01m8nyba78h4qx4fr84g98pbsk",
        "order_id",
        1,
        Some("2026-11-29T10:00:00.123Z"),
    ),
    (
        "01m8nybb6gg7kyhrjxjg7dj13n",
        "ctx.batch_id",
        1,
        Some("2026-11-29T10:00:00.000Z"),
    ),
    (
        "01m8nybc5r27h6p3amkdqg6stt",
        "sources[]",
        1,
        Some("2026-11-29T10:00:00.000Z"),
    ),
    (
        "01m8nybd50tep0y8expspatjh6",
        "sources[]",
        1,
        Some("2026-11-29T10:00:00.000Z"),
    ),
    (
        "01m8nybe48m2ft2w5k70wjcc2s",
        "msg",
        1,
        Some("2026-11-29T10:00:01.500Z"),
    ),
    (
        "01m8nybf3gcp69bsgayp9vt16f",
        "event.id",
        1,
        Some("2026-11-29T10:00:00.123Z"),
    ),
    (
        "01m8nybg2rvf28x0cq7r5ysnxg",
        "event.note",
        1,
        Some("2026-11-29T10:00:00.123Z"),
    ),
    (
        "01m8nybh203rkrmtk3xgjevsn4",
        "user",
        1,
        Some("2026-11-29T10:00:02.000Z"),
    ),
    (
        "01m8nybj185s2ax5xtjk8eva1f",
        "job",
        1,
        Some("2026-11-29T10:00:00.123Z"),
    ),
    (
        "01m8nybk0gbxak062grphrzna7",
        "job",
        1,
        Some("2026-11-29T10:00:00.123Z"),
    ),
    (
        "01a22be5-a8e8-7181-a54c-66175d9dc9f8",
        "payment_id",
        1,
        Some("2026-11-29T10:00:04.000Z"),
    ),
    // Not JSON (no closing brace): the plain rules.
    ("01m8nybkzr1x190ykgrc815w1q", "order_id", 1, None),
    // logfmt
    (
        "01a22be5-acd0-736f-8580-28d6099950d8",
        "payment_id",
        1,
        Some("2026-11-29T10:00:06.000Z"),
    ),
    (
        "01m8nybmz0dnv8g7phcaq2xcam",
        "sources",
        1,
        Some("2026-11-29T10:00:07.250Z"),
    ),
    (
        "01m8nybny8eg1yrsn7gyayereh",
        "sources",
        1,
        Some("2026-11-29T10:00:07.250Z"),
    ),
    (
        "01m8nybpxgpbrjw19hkb5nrx17",
        "order",
        1,
        Some("2026-11-29T10:00:08.000Z"),
    ),
    // plain text
    (
        "01a22be5-b0b8-73d9-a344-5bb31738f7d9",
        "payment",
        1,
        Some("2026-11-29T10:00:09.000Z"),
    ),
    (
        "01m8nybqwrgssmsq90ap9gtvnf",
        "batch",
        1,
        Some("2026-11-29T10:00:10.500Z"),
    ),
    (
        "01m8nybrw096v75spc7axbsv90",
        "order",
        1,
        Some("2026-11-29T10:00:11.000Z"),
    ),
    (
        "01a22be5-b4a0-790c-bca3-04171fb17c23",
        "pod",
        1,
        Some("2026-11-29T10:00:12.000Z"),
    ),
    ("01a22be5-b888-7953-83f5-8c3cf29d0da9", "instance", 1, None),
    ("01a22be5-bc70-70cb-8e26-3464f9ebdacc", "req", 1, None),
    ("01a22be5-c058-7221-9ad3-2c904a23d596", "servers", 1, None),
    (
        "01a22be5-c440-7922-a3db-41564ef8aa38",
        "podUID",
        1,
        Some("2026-11-29T10:00:13.123Z"),
    ),
    (
        "01m8nybsv8dc5863g7qgf3k3rg",
        "orders",
        1,
        Some("2026-11-29T10:00:14.000Z"),
    ),
    (
        "01m8nybttgfmpextpbw8kegxan",
        "order",
        1,
        Some("2026-11-29T08:00:15.000Z"),
    ),
    (
        "01m8nyb9804tff59tdwh9edd1r",
        "order",
        1,
        Some("2026-11-29T10:00:16.000Z"),
    ),
];

#[test]
fn every_record_format_gives_field_and_time() {
    let dir = records_copy();
    let got = fields_and_times(dir.path(), &[]);
    for &(id, field, count, time) in RECORDS {
        let (fields, first) = got.get(id).unwrap_or_else(|| panic!("{id} missing"));
        let want_fields = BTreeMap::from([(field.to_string(), count)]);
        assert_eq!((fields, first.as_deref()), (&want_fields, time), "{id}");
    }
    assert_eq!(got.len(), RECORDS.len());
}

#[test]
fn search_json_gives_the_same_field_and_time_to_the_millisecond() {
    let dir = records_copy();
    for &(id, field, _, time) in RECORDS {
        let out = run(&["--json", id, dir.path().to_str().unwrap()]);
        let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // Search keeps the log's precision (microseconds); `ids` shows milliseconds.
        let ts = line["ts"].as_str().map(|ts| match ts.len() {
            27 => format!("{}Z", &ts[..23]),
            _ => ts.to_string(),
        });
        assert_eq!(ts.as_deref(), time, "{id}");
        assert_eq!(line["matches"][0]["field"].as_str(), Some(field), "{id}");
    }
}

#[test]
fn tz_reads_zoneless_times_in_that_zone() {
    let dir = records_copy();
    let got = fields_and_times(dir.path(), &["--tz", "Europe/Paris"]);
    // Written without an offset: 10:00:16 in Paris is 09:00:16 UTC; JSON output stays UTC.
    assert_eq!(
        got["01m8nyb9804tff59tdwh9edd1r"].1.as_deref(),
        Some("2026-11-29T09:00:16.000Z")
    );
    // With an offset, the zone changes nothing.
    assert_eq!(
        got["01m8nybttgfmpextpbw8kegxan"].1.as_deref(),
        Some("2026-11-29T08:00:15.000Z")
    );
    let bad = run(&["ids", "--tz", "Mars/Olympus", "testdata/records"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown time zone"));
}

#[test]
fn csv_reads_back_like_the_json() {
    let out = run(&["ids", "--csv", "testdata/logs"]);
    assert!(out.status.success());
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header,
        [
            "id",
            "kind",
            "version",
            "created",
            "lines",
            "occurrences",
            "files",
            "paths",
            "fields",
            "forms",
            "first_seen",
            "last_seen"
        ]
    );
    let json = json_ids(&["testdata/logs"]);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), json.len());
    for (row, j) in rows.iter().zip(&json) {
        assert_eq!(row[0], j.id);
        assert_eq!(row[4], j.lines.to_string());
        assert_eq!(row[6], j.files.len().to_string());
        assert_eq!(row[7], j.files.join(";"));
        let fields: Vec<String> = j.fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(row[8], fields.join(";"));
        assert_eq!(row[10], j.first_seen.clone().unwrap_or_default());
    }
}

#[test]
fn filters_and_sort_orders() {
    let all = json_ids(&["testdata/logs"]);
    let v7 = json_ids(&["testdata/logs", "--kind", "uuid7"]);
    assert!(!v7.is_empty());
    assert!(v7.iter().all(|j| j.kind == "uuid" && j.version == Some(7)));
    assert_eq!(
        v7.len(),
        all.iter()
            .filter(|j| j.kind == "uuid" && j.version == Some(7))
            .count()
    );

    let busy = json_ids(&["testdata/logs", "--min-lines", "10"]);
    assert_eq!(busy.len(), all.iter().filter(|j| j.lines >= 10).count());

    let top: Vec<String> = json_ids(&["testdata/logs", "--top", "3"])
        .into_iter()
        .map(|j| j.id)
        .collect();
    let first3: Vec<String> = all.iter().take(3).map(|j| j.id.clone()).collect();
    assert_eq!(top, first3);

    let by_id: Vec<String> = json_ids(&["testdata/logs", "--sort", "id"])
        .into_iter()
        .map(|j| j.id)
        .collect();
    let mut values: Vec<u128> = by_id
        .iter()
        .map(|s| idgrep::id::parse(s).unwrap().id.0)
        .collect();
    let unsorted = values.clone();
    values.sort();
    assert_eq!(values, unsorted);

    let dir = records_copy();
    let path = dir.path().to_str().unwrap();
    let orders = json_ids(&[path, "--field", "order_id"]);
    assert_eq!(orders.len(), 2);
    let batch = json_ids(&[path, "--field", "batch_id"]);
    assert_eq!(
        batch.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(),
        ["01m8nybb6gg7kyhrjxjg7dj13n"]
    );

    // Nothing left after the filters: exit 1, as a search that finds nothing.
    let none = run(&["ids", "--field", "no_such_field", "testdata/logs"]);
    assert_eq!(none.status.code(), Some(1));

    let bad = run(&["ids", "--kind", "uuid9", "testdata/logs"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("not a kind (accepted: ulid, uuid, uuid1 ... uuid8, nil, max, trace, span)")
    );
}

#[test]
fn table_shows_the_busiest_ids_first() {
    let out = run(&["ids", "--top", "2", "testdata/logs"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "ID", "KIND", "CREATED", "LINES", "FILES", "FIRST", "LAST", "FIELDS"
        ]
    );
    let hot: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        &hot[..5],
        [
            "01m8kbygm5ng2pshny302zvwbs",
            "ulid",
            "2026-11-29T09:59:58.341Z",
            "63",
            "7"
        ]
    );
    assert!(!text.contains('\x1b'), "no colour in a pipe");
    let coloured = run(&["ids", "--top", "1", "--color", "always", "testdata/logs"]);
    assert!(String::from_utf8_lossy(&coloured.stdout).starts_with("\x1b[1mID"));
}

#[test]
fn exit_codes_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("none.log"), "no ids here\n").unwrap();
    let none = run(&["ids", dir.path().to_str().unwrap()]);
    assert_eq!(none.status.code(), Some(1));
    assert!(none.stdout.is_empty(), "no bare header");

    let missing = dir.path().join("missing.log");
    let out = run(&[
        "ids",
        "--json",
        "testdata/logs/api",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        !out.stdout.is_empty(),
        "the readable input is still counted"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing.log: "), "{err}");

    let corrupt = run(&["ids", "--json", "testdata/edge/corrupt.gz"]);
    assert_eq!(corrupt.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&corrupt.stderr).contains("corrupt.gz: gzip: "));

    let binary = run(&["ids", "testdata/edge/binary.bin"]);
    assert!(String::from_utf8_lossy(&binary.stderr).contains("binary file"));
}

#[test]
fn stdin_and_all_hex() {
    let hex = "54fadb412c4e40cdbaed9335e4c35a9e";
    let input = format!("trace={hex} order=01m8nyba78h4qx4fr84g98pbsk\n");
    let run_stdin = |args: &[&str]| {
        let out = run_with_input(args, input.as_bytes());
        let err = String::from_utf8(out.stderr).unwrap();
        (String::from_utf8(out.stdout).unwrap(), err)
    };
    let (plain, err) = run_stdin(&["ids", "--csv"]);
    assert_eq!(
        plain.lines().count(),
        2,
        "a lone 32-hex token is not counted: {plain}"
    );
    assert!(
        err.starts_with("idgrep: 1 32-hex token not counted: its value"),
        "{err}"
    );
    let (all, _) = run_stdin(&["ids", "--csv", "--all-hex"]);
    assert_eq!(all.lines().count(), 3, "{all}");
    assert!(all.contains("54fadb41-2c4e-40cd-baed-9335e4c35a9e"));
}

/// Every view of a large inventory ends quietly with exit 0 when its reader stops early, as
/// a search does (`ids --csv` used to report the broken pipe and exit 2).
#[test]
fn views_end_quietly_on_a_broken_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("orders.log");
    let mut rng = Rng(7);
    let text: String = (0..100_000)
        .map(|_| {
            format!(
                "order={}\n",
                ulid::Ulid(rng.u128() >> 2).to_string().to_lowercase()
            )
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    for format in ["--color=never", "--json", "--csv"] {
        let o = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "set -o pipefail; '{}' ids {format} '{}' | head -n 1",
                env!("CARGO_BIN_EXE_idgrep"),
                path.display()
            ))
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{format}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&o.stdout).lines().count(),
            1,
            "{format}"
        );
        assert!(
            o.stderr.is_empty(),
            "{format}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// The `version` of each UUID row is the `uuid` crate's RFC 9562 version, and null wherever the
/// text's KIND column says `uuid non-rfc`: a ULID stored as a UUID has random version bits.
#[test]
fn json_version_is_the_rfc_version_or_null() {
    let json = json_ids(&["testdata/logs"]);
    let text = run(&["ids", "testdata/logs"]);
    let kinds: BTreeMap<String, String> = String::from_utf8(text.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let cols: Vec<&str> = l.split("  ").filter(|c| !c.is_empty()).collect();
            (cols[0].trim().to_string(), cols[1].trim().to_string())
        })
        .collect();
    let mut non_rfc = 0;
    for j in json.iter().filter(|j| j.kind == "uuid") {
        let u = uuid::Uuid::parse_str(&j.id).unwrap();
        let expected = match (u.get_variant(), u.get_version_num()) {
            (uuid::Variant::RFC4122, v @ 1..=8) => Some(v as u8),
            _ => None,
        };
        assert_eq!(j.version, expected, "{}", j.id);
        let kind = &kinds[&j.id];
        assert_eq!(
            kind == "uuid non-rfc",
            j.version.is_none() && !u.is_nil() && !u.is_max(),
            "{} {kind}",
            j.id
        );
        non_rfc += usize::from(kind == "uuid non-rfc");
    }
    assert!(non_rfc > 0, "testdata/logs holds UUIDs of no RFC version");
}
