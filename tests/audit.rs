//! `idgrep audit`: planted violations of every rule (`testdata/audit/`) and clean logs
//! (`testdata/audit-clean/`) read back from `--json` into typed structs; the same report for
//! any thread count; the `--deny` gate, `--skew`, `--clump`, exit codes and escaping.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Output;

use serde::Deserialize;

use crate::support::{Rng, run};

/// `audit --json`. Unknown keys fail the test: the schema is documented and stable.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Report {
    totals: Totals,
    rules: BTreeMap<String, Rule>,
    fields: Vec<FieldVerdict>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Totals {
    inputs: usize,
    lines_with_ids: u64,
    occurrences: u64,
    distinct_ids: u64,
    fields: usize,
    integer_values: u64,
    undashed_ignored: u64,
    trace_values: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rule {
    count: u64,
    unit: String,
    breakdown: BTreeMap<String, u64>,
    ids: Option<u64>,
    missed_lines: Option<u64>,
    min_ids: Option<u64>,
    skew_ms: Option<i64>,
    zone_guessed_lines: Option<u64>,
    unknown_zone_ms: Option<i64>,
    fields: Vec<Finding>,
    examples: Vec<Evidence>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Finding {
    field: Option<String>,
    count: u64,
    breakdown: BTreeMap<String, u64>,
    examples: Vec<Evidence>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Evidence {
    path: String,
    line: u64,
    field: Option<String>,
    token: String,
    skew: Option<String>,
    id_time: Option<String>,
    line_time: Option<String>,
    ids: Option<u64>,
    lowercase: Option<Box<Evidence>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldVerdict {
    field: String,
    occurrences: u64,
    integers: u64,
    nil: u64,
    forms: BTreeMap<String, u64>,
    versions: BTreeMap<String, u64>,
    #[serde(default)]
    traces: BTreeMap<String, u64>,
    format: String,
    issues: Vec<String>,
    consistent: bool,
}

const RULES: [&str; 12] = [
    "ulid-uppercase",
    "ulid-mixed-case",
    "uuid-noncanonical",
    "nil-id",
    "format-mix",
    "version-mix",
    "integer-ids",
    "backfill-clump",
    "id-time-skew",
    "trace-invalid",
    "trace-noncanonical",
    "trace-mixed-width",
];

fn audit(args: &[&str]) -> (Report, Output) {
    let mut all = vec!["audit", "--json"];
    all.extend_from_slice(args);
    let out = run(&all);
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (report, out)
}

/// `path:line token`, as the README shows examples.
fn shown(examples: &[Evidence]) -> Vec<String> {
    examples
        .iter()
        .map(|e| format!("{}:{} {}", e.path, e.line, e.token))
        .collect()
}

/// A field's count per field name (`-` for no field).
fn fields(rule: &Rule) -> Vec<(String, u64)> {
    rule.fields
        .iter()
        .map(|f| (f.field.clone().unwrap_or("-".into()), f.count))
        .collect()
}

fn map(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn owned(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

const API: &str = "testdata/audit/api/orders.jsonl";
const WORKER: &str = "testdata/audit/worker/worker.log";
const LEDGER: &str = "testdata/audit/billing/ledger.log";
const MIGRATION: &str = "testdata/audit/migration/backfill.log";

#[test]
fn planted_violations_of_every_rule() {
    let (report, out) = audit(&["--clump", "5", "testdata/audit"]);
    assert_eq!(out.status.code(), Some(0));
    let mut names = RULES.to_vec();
    names.sort();
    assert_eq!(
        report.rules.keys().collect::<Vec<_>>(),
        names,
        "one entry per rule"
    );
    // The trace rules have their own fixtures (`planted_trace_violations`).
    for name in RULES.iter().filter(|r| !r.starts_with("trace-")) {
        assert!(report.rules[*name].count > 0, "{name} has no finding");
    }
    let rule = |name: &str| &report.rules[name];

    let upper = rule("ulid-uppercase");
    assert_eq!((upper.count, upper.ids), (3, Some(2)));
    assert_eq!(upper.unit, "occurrences");
    assert_eq!(fields(upper), vec![("order".into(), 3)]);
    assert_eq!(
        shown(&upper.examples),
        vec![
            format!("{WORKER}:1 01JWTG9PQ4R9GHS6JPVT4C4M0E"),
            format!("{WORKER}:2 01JWTG9PQ4R9GHS6JPVT4C4M0E"),
            format!("{WORKER}:3 01JWTG9RZ0M1F0V57GGP334Z64"),
        ]
    );

    assert!(
        upper
            .examples
            .iter()
            .all(|e| e.field.as_deref() == Some("order"))
    );

    let mixed = rule("ulid-mixed-case");
    assert_eq!((mixed.count, mixed.missed_lines), (2, Some(3)));
    assert_eq!(mixed.unit, "ULIDs");
    assert_eq!(
        shown(&mixed.examples),
        vec![
            format!("{WORKER}:1 01JWTG9PQ4R9GHS6JPVT4C4M0E"),
            format!("{WORKER}:3 01JWTG9RZ0M1F0V57GGP334Z64"),
        ]
    );
    let lower_field = mixed.examples[0]
        .lowercase
        .as_ref()
        .unwrap()
        .field
        .as_deref();
    assert_eq!(lower_field, Some("order_id"));
    let lower: Vec<String> = mixed
        .examples
        .iter()
        .map(|e| shown(std::slice::from_ref(e.lowercase.as_ref().unwrap()))[0].clone())
        .collect();
    assert_eq!(
        lower,
        vec![
            format!("{API}:1 01jwtg9pq4r9ghs6jpvt4c4m0e"),
            format!("{API}:3 01jwtg9rz0m1f0v57ggp334z64"),
        ]
    );

    let noncanonical = rule("uuid-noncanonical");
    assert_eq!(noncanonical.count, 4);
    assert_eq!(
        noncanonical.breakdown,
        map(&[
            ("uuid_braced", 1),
            ("uuid_undashed", 1),
            ("uuid_upper", 1),
            ("uuid_urn", 1)
        ])
    );
    let per_field: Vec<(String, BTreeMap<String, u64>, Vec<String>)> = noncanonical
        .fields
        .iter()
        .map(|f| {
            (
                f.field.clone().unwrap(),
                f.breakdown.clone(),
                shown(&f.examples),
            )
        })
        .collect();
    assert_eq!(
        per_field,
        vec![
            (
                "invoice_id".into(),
                map(&[("uuid_upper", 1)]),
                vec![format!("{LEDGER}:1 01973504-EDA4-7E39-B71C-C6493FF73999")]
            ),
            (
                "payment".into(),
                map(&[("uuid_braced", 1)]),
                vec![format!(
                    "{LEDGER}:1 {{01973504-db34-7ff2-94be-e600af1affec}}"
                )]
            ),
            (
                "ref_hex".into(),
                map(&[("uuid_undashed", 1)]),
                vec![format!("{LEDGER}:3 01973504DB347FF294BEE600AF1AFFEC")]
            ),
            (
                "subject".into(),
                map(&[("uuid_urn", 1)]),
                vec![format!(
                    "{LEDGER}:2 urn:uuid:f22f61dd-8034-4e7a-9ed3-e977d3276054"
                )]
            ),
        ]
    );

    let nil = rule("nil-id");
    assert_eq!(nil.count, 5);
    assert_eq!(
        nil.breakdown,
        map(&[
            ("empty", 1),
            ("max", 1),
            ("nil_ulid", 1),
            ("nil_uuid", 1),
            ("zero", 1)
        ])
    );
    assert_eq!(
        fields(nil),
        vec![
            ("user_id".into(), 2),
            ("invoice_id".into(), 1),
            ("owner".into(), 1),
            ("session_id".into(), 1)
        ]
    );
    assert_eq!(
        shown(&nil.examples),
        vec![
            format!("{API}:4 0"),
            format!("{API}:5 \"\""),
            format!("{API}:7 00000000-0000-0000-0000-000000000000"),
        ]
    );

    let formats = rule("format-mix");
    assert_eq!((formats.count, formats.unit.as_str()), (2, "fields"));
    let mixes: Vec<(String, BTreeMap<String, u64>)> = formats
        .fields
        .iter()
        .map(|f| (f.field.clone().unwrap(), f.breakdown.clone()))
        .collect();
    assert_eq!(
        mixes,
        vec![
            ("customer_id".into(), map(&[("integer", 1), ("uuid", 1)])),
            ("ref".into(), map(&[("ulid", 1), ("uuid", 1)])),
        ]
    );
    assert_eq!(
        shown(&formats.fields[1].examples),
        vec![
            format!("{API}:10 01jwtg9pq4r9ghs6jpvt4c4m0e"),
            format!("{API}:11 01973504-db34-7ff2-94be-e600af1affec"),
        ]
    );

    let versions = rule("version-mix");
    assert_eq!(versions.count, 1);
    assert_eq!(versions.fields[0].field.as_deref(), Some("payment_id"));
    assert_eq!(versions.fields[0].breakdown, map(&[("v4", 1), ("v7", 2)]));
    assert_eq!(
        shown(&versions.examples),
        vec![
            format!("{API}:1 01973504-db34-7ff2-94be-e600af1affec"),
            format!("{API}:3 f22f61dd-8034-4e7a-9ed3-e977d3276054"),
        ]
    );

    let integers = rule("integer-ids");
    assert_eq!((integers.count, integers.unit.as_str()), (2, "values"));
    assert_eq!(
        shown(&integers.examples),
        vec![format!("{API}:8 1001"), format!("{WORKER}:4 1180")]
    );
    assert_eq!(
        fields(integers),
        vec![("customer_id".into(), 1), ("job_id".into(), 1)]
    );

    let clump = rule("backfill-clump");
    assert_eq!(
        (clump.count, clump.ids, clump.min_ids),
        (1, Some(6), Some(5))
    );
    assert_eq!(fields(clump), vec![("order_id".into(), 6)]);
    let e = &clump.examples[0];
    assert_eq!(
        (e.path.as_str(), e.line, e.ids, e.id_time.as_deref()),
        (MIGRATION, 1, Some(6), Some("2025-06-03T09:30:00.000Z"))
    );

    let skew = rule("id-time-skew");
    assert_eq!(skew.count, 2);
    assert_eq!(skew.skew_ms, Some(300_000));
    assert_eq!(skew.breakdown, map(&[("after_line", 1), ("future", 1)]));
    let late = &skew.examples[0];
    assert_eq!(
        (
            late.line,
            late.skew.as_deref(),
            late.id_time.as_deref(),
            late.line_time.as_deref()
        ),
        (
            13,
            Some("after_line"),
            Some("2025-06-03T09:10:12.000Z"),
            Some("2025-06-03T09:00:12.000Z")
        )
    );
    let future = &skew.examples[1];
    assert_eq!(
        (
            future.line,
            future.skew.as_deref(),
            future.id_time.as_deref()
        ),
        (14, Some("future"), Some("2100-01-01T00:00:00.000Z"))
    );

    // Totals: the lone 32-hex trace ID is not an ID; ref_hex is (its value is also dashed).
    let t = &report.totals;
    assert_eq!((t.inputs, t.integer_values, t.undashed_ignored), (4, 2, 1));
    assert_eq!(t.fields, report.fields.len());
    assert!(t.lines_with_ids > 0 && t.occurrences >= t.lines_with_ids && t.distinct_ids > 0);

    let verdict = |name: &str| report.fields.iter().find(|f| f.field == name).unwrap();
    let payment = verdict("payment_id");
    assert_eq!(payment.format, "uuid v7, v4 lowercase");
    assert_eq!(payment.issues, owned(&["version-mix"]));
    assert_eq!(payment.versions, map(&[("v4", 1), ("v7", 2)]));
    assert_eq!(payment.forms, map(&[("uuid_lower", 3)]));
    assert!(!payment.consistent);
    let customer = verdict("customer_id");
    assert_eq!(customer.format, "uuid v7 lowercase; integer");
    assert_eq!((customer.occurrences, customer.integers), (1, 1));
    assert_eq!(customer.issues, owned(&["format-mix", "integer-ids"]));
    let user = verdict("user_id");
    assert_eq!((user.nil, user.issues.clone()), (2, owned(&["nil-id"])));
    let request = verdict("request_id");
    assert_eq!(request.format, "uuid v7 lowercase");
    assert!(request.consistent && request.issues.is_empty());
}

#[test]
fn clean_logs_have_no_finding() {
    let (report, out) = audit(&["testdata/audit-clean"]);
    assert_eq!(out.status.code(), Some(0), "IDs were found");
    for name in RULES {
        let rule = &report.rules[name];
        assert_eq!(rule.count, 0, "{name}: {rule:?}");
        assert!(rule.fields.is_empty() && rule.examples.is_empty(), "{name}");
    }
    let verdicts: Vec<(&str, &str, bool)> = report
        .fields
        .iter()
        .map(|f| (f.field.as_str(), f.format.as_str(), f.consistent))
        .collect();
    assert_eq!(
        verdicts,
        vec![
            ("order_id", "ulid lowercase", true),
            ("payment_id", "uuid v7 lowercase", true),
            ("request_id", "uuid v7 lowercase", true),
            ("session_id", "uuid v4 lowercase", true),
            ("trace_id", "trace 128-bit", true),
        ]
    );
    // The 32-hex trace IDs are not IDs; `amount_paid=12` and `"attempt":2` are not ID keys.
    assert_eq!(report.totals.undashed_ignored, 12);
    assert_eq!(report.totals.integer_values, 0);
    let gate = run(&["audit", "--deny", "all", "testdata/audit-clean"]);
    assert_eq!(gate.status.code(), Some(0));
}

#[test]
fn same_report_whatever_the_thread_count() {
    let paths = ["testdata/audit", "testdata/logs", "testdata/records"];
    for format in ["--json", "--color=never"] {
        let outputs: Vec<Vec<u8>> = ["-j1", "-j2", "-j4"]
            .iter()
            .map(|j| {
                let mut args = vec!["audit", format, "--clump", "3", j];
                args.extend(paths);
                run(&args).stdout
            })
            .collect();
        assert!(!outputs[0].is_empty());
        assert_eq!(outputs[0], outputs[1], "{format} -j1 against -j2");
        assert_eq!(outputs[0], outputs[2], "{format} -j1 against -j4");
    }
}

#[test]
fn deny_gates_on_the_named_rules() {
    let code = |args: &[&str]| {
        let mut all = vec!["audit"];
        all.extend_from_slice(args);
        run(&all).status.code()
    };
    let planted = "testdata/audit";
    assert_eq!(
        code(&["--deny", "ulid-uppercase,uuid-noncanonical", planted]),
        Some(1)
    );
    assert_eq!(
        code(&["--deny", "nil-id", "--deny", "format-mix", planted]),
        Some(1)
    );
    assert_eq!(code(&["--deny", "all", planted]), Some(1));
    // No millisecond holds 100 IDs here.
    assert_eq!(code(&["--deny", "backfill-clump", planted]), Some(0));
    assert_eq!(
        code(&["--deny", "backfill-clump", "--clump", "5", planted]),
        Some(1)
    );
    assert_eq!(
        code(&["--deny", "ulid-uppercase", "testdata/audit-clean"]),
        Some(0)
    );

    let out = run(&["audit", "--deny", "ulid-uppercase,bogus", planted]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "nothing is scanned");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown rule \"bogus\""), "{err}");
    for name in RULES {
        assert!(err.contains(name), "{err} names {name}");
    }
}

/// `missed_lines` against a plain count, on generated lines of a few and of many ULIDs in
/// random cases: for each ULID also written lowercase somewhere, the lines that hold it only
/// in upper or mixed case.
#[test]
fn missed_lines_match_a_plain_count_on_short_and_long_lines() {
    let mut rng = Rng(41);
    let pool: Vec<String> = (0..30)
        .map(|_| {
            ulid::Ulid((rng.u128() >> 2) | 1 << 120)
                .to_string()
                .to_lowercase()
        })
        .collect();
    let mut text = String::new();
    let mut lines: Vec<Vec<(usize, u8)>> = Vec::new();
    for _ in 0..200 {
        let hits = if rng.below(4) == 0 {
            17 + rng.below(30)
        } else {
            1 + rng.below(4)
        };
        // 0 lowercase, 1 upper case, 2 mixed case.
        let line: Vec<(usize, u8)> = (0..hits)
            .map(|_| (rng.below(pool.len()), rng.below(3) as u8))
            .collect();
        let tokens: Vec<String> = line
            .iter()
            .map(|&(v, case)| match case {
                0 => pool[v].clone(),
                1 => pool[v].to_uppercase(),
                _ => pool[v][..13].to_uppercase() + &pool[v][13..],
            })
            .collect();
        text += &format!("batch items={}\n", tokens.join(","));
        lines.push(line);
    }
    let lower_somewhere: BTreeSet<usize> = lines
        .iter()
        .flatten()
        .filter(|(_, case)| *case == 0)
        .map(|(v, _)| *v)
        .collect();
    let mut want = 0;
    for line in &lines {
        for &v in &lower_somewhere {
            let upper = line.iter().any(|&(w, case)| w == v && case != 0);
            let lower = line.iter().any(|&(w, case)| w == v && case == 0);
            want += u64::from(upper && !lower);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("items.log");
    std::fs::write(&path, text).unwrap();
    let (report, _) = audit(&[path.to_str().unwrap()]);
    let mixed = &report.rules["ulid-mixed-case"];
    assert!(want > 100, "the generated lines should miss some: {want}");
    assert_eq!(mixed.missed_lines, Some(want));
}

#[test]
fn skew_threshold_and_bad_durations() {
    let (report, _) = audit(&["--skew", "15m", "testdata/audit"]);
    let skew = &report.rules["id-time-skew"];
    assert_eq!(skew.skew_ms, Some(900_000));
    assert_eq!(
        skew.breakdown,
        map(&[("future", 1)]),
        "10 minutes is within 15"
    );
    let (report, _) = audit(&["--skew", "30s", "testdata/audit"]);
    assert_eq!(report.rules["id-time-skew"].count, 2);

    // Several units are one duration (1h30m), as --since reads them; a bare number is not.
    for bad in ["5", "5x", "1h30", "-5m"] {
        let flag = format!("--skew={bad}");
        let out = run(&["audit", &flag, "testdata/audit"]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("30s, 5m, 2h"), "{bad}: {err}");
    }
    let out = run(&["audit", "--clump", "1", "testdata/audit"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A log written in local time without an offset, five hours west of UTC: read as UTC, every
/// ID looks five hours after its line. Without `--tz` the rule says the zone is unknown and
/// allows for it; with the zone, it checks to `--skew` and finds the one real skew.
#[test]
fn skew_on_local_times_without_an_offset_waits_for_the_zone() {
    let dir = tempfile::tempdir().unwrap();
    // ULIDs of 2026-11-20T15:00:00Z and 16:00:00Z, logged at 10:00 New York time.
    let log = dir.path().join("app.log");
    std::fs::write(
        &log,
        "2026-11-20 10:00:00 INFO created order_id=01m7wqhdc000000000000004hm\n\
         2026-11-20 10:00:01 INFO created order_id=01m7wtz9000000000000000nkr\n",
    )
    .unwrap();
    let log = log.to_str().unwrap();
    let (report, _) = audit(&[log]);
    let skew = &report.rules["id-time-skew"];
    assert_eq!(skew.count, 0, "{skew:?}");
    assert_eq!(skew.zone_guessed_lines, Some(2));
    assert_eq!(skew.unknown_zone_ms, Some(14 * 3_600_000));
    let text = run(&["audit", log]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("2 lines written without a UTC offset, read as UTC")
            && text.contains("give --tz ZONE"),
        "{text}"
    );
    // `--deny id-time-skew` does not fail on the unknown zone.
    let gate = run(&["audit", "--deny", "id-time-skew", log]);
    assert_eq!(gate.status.code(), Some(0));

    let (report, _) = audit(&["--tz", "America/New_York", log]);
    let skew = &report.rules["id-time-skew"];
    assert_eq!(skew.zone_guessed_lines, Some(0));
    assert_eq!(skew.breakdown, map(&[("after_line", 1)]));
    assert_eq!(
        shown(&skew.examples),
        [format!("{log}:2 01m7wtz9000000000000000nkr")]
    );
    // An offset in the line is as good as --tz.
    std::fs::write(
        dir.path().join("app.log"),
        "2026-11-20 10:00:01-05:00 INFO created order_id=01m7wtz9000000000000000nkr\n",
    )
    .unwrap();
    let (report, _) = audit(&[log]);
    assert_eq!(report.rules["id-time-skew"].count, 1);
}

#[test]
fn backfill_clump_at_the_default_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(7);
    // A migration gives 150 rows IDs of one millisecond (2025-01-01T00:00:00.000Z); 99 IDs
    // of another millisecond stay under the threshold.
    let migrated: u128 = 1_735_689_600_000;
    let busy: u128 = migrated + 60_000;
    let ulid = |ms: u128, rng: &mut Rng| {
        let random = rng.u128() & ((1 << 80) - 1);
        idgrep::id::Id(ms << 80 | random).ulid()
    };
    let mut first = String::new();
    let mut second = String::new();
    for i in 0..150 {
        let target = if i % 2 == 0 { &mut first } else { &mut second };
        target.push_str(&format!(
            "2025-01-01T00:00:00.000Z row {i} order_id={}\n",
            ulid(migrated, &mut rng)
        ));
    }
    for i in 0..99 {
        second.push_str(&format!(
            "2025-01-01T00:01:00.000Z order_id={} n={i}\n",
            ulid(busy, &mut rng)
        ));
    }
    std::fs::write(dir.path().join("a.log"), first).unwrap();
    std::fs::write(dir.path().join("b.log"), second).unwrap();
    let path = dir.path().to_str().unwrap();
    let (report, _) = audit(&[path]);
    let clump = &report.rules["backfill-clump"];
    assert_eq!(
        (clump.count, clump.ids, clump.min_ids),
        (1, Some(150), Some(100))
    );
    let e = &clump.examples[0];
    assert_eq!(e.id_time.as_deref(), Some("2025-01-01T00:00:00.000Z"));
    assert_eq!((e.line, e.ids), (1, Some(150)));
    assert!(e.path.ends_with("a.log"), "{}", e.path);
    let (report, _) = audit(&["--clump", "99", path]);
    assert_eq!(report.rules["backfill-clump"].count, 2);
}

#[test]
fn exit_codes_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("none.log"), "no ids here\nattempt=3\n").unwrap();
    let none = run(&["audit", dir.path().to_str().unwrap()]);
    assert_eq!(none.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&none.stdout)
            .starts_with("idgrep audit: 1 input, 0 lines with IDs, 0 ID occurrences"),
        "the report is printed, in the singular for one"
    );

    std::fs::write(dir.path().join("ints.log"), "job_id=7\n").unwrap();
    let ints = run(&["audit", dir.path().to_str().unwrap()]);
    assert_eq!(ints.status.code(), Some(0), "an integer ID is an ID");

    let missing = dir.path().join("missing.log");
    let (report, out) = audit(&["testdata/audit/worker", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(report.rules["ulid-uppercase"].count, 3, "the rest is read");
    assert_eq!(
        report.totals.inputs, 1,
        "an input not read is not counted as read"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("idgrep: ") && err.contains("missing.log: "),
        "{err}"
    );
    let denied = run(&[
        "audit",
        "--deny",
        "all",
        "testdata/audit-clean",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(denied.status.code(), Some(2), "an error wins over the gate");

    let binary = run(&["audit", "testdata/edge/binary.bin"]);
    assert!(String::from_utf8_lossy(&binary.stderr).contains("binary file"));

    let clump = run(&["audit", "--clump", "1", "testdata/audit"]);
    assert_eq!(clump.status.code(), Some(2));
    let err = String::from_utf8_lossy(&clump.stderr);
    assert!(
        err.contains("at least 2 IDs (accepted: a whole number from 2)"),
        "{err}"
    );
}

#[test]
fn text_report_escapes_log_text_and_colours_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let line =
        "{\"ts\":\"2025-01-01T00:00:00Z\",\"ord\\u001b[31m_id\":\"01JGJ8YC00AAAAAAAAAAAAAAAA\"}\n";
    std::fs::write(dir.path().join("evil.jsonl"), line).unwrap();
    let path = dir.path().to_str().unwrap();
    let out = run(&["audit", "--color", "never", path]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains('\x1b'), "{text}");
    assert!(text.contains("ord\\x1b[31m_id"), "{text}");
    let coloured = run(&["audit", "--color", "always", path]);
    let text = String::from_utf8_lossy(&coloured.stdout);
    assert!(text.contains("\x1b[1mulid-uppercase"), "{text}");
    assert!(text.contains("ord\\x1b[31m_id"), "escaped in colour too");
    let json = run(&["audit", "--json", "--color", "always", path]);
    assert!(!json.stdout.contains(&0x1b), "JSON has no colour");
}

#[test]
fn the_bundled_incident() {
    let (report, out) = audit(&["testdata/logs"]);
    assert_eq!(out.status.code(), Some(0));
    let rule = |name: &str| &report.rules[name];
    // The Java worker writes ULIDs in upper case; the api writes the same ones in lowercase.
    assert!(
        rule("ulid-uppercase")
            .fields
            .iter()
            .any(|f| f.field.as_deref() == Some("order"))
    );
    let hot = &rule("ulid-mixed-case").examples[0];
    assert_eq!(hot.token, "01M8KBYGM5NG2PSHNY302ZVWBS");
    let lower = hot.lowercase.as_ref().unwrap();
    assert_eq!(
        format!("{}:{}", lower.path, lower.line),
        "testdata/logs/api/api.jsonl:2"
    );
    // Billing stores the hot order as a UUID in four non-canonical forms.
    let forms: Vec<&str> = rule("uuid-noncanonical")
        .breakdown
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        forms,
        vec!["uuid_braced", "uuid_undashed", "uuid_upper", "uuid_urn"]
    );
    assert!(shown(&rule("uuid-noncanonical").examples).contains(
        &"testdata/logs/billing/ledger.log:10 {01a226bf-4285-ac05-6cc6-be1805fdf179}".to_string()
    ));
    assert_eq!(rule("nil-id").count, 0);
    assert_eq!(rule("backfill-clump").count, 0);
}

/// A file the audit reads by its README example: the text output names every rule.
#[test]
fn text_report_lists_every_rule_then_the_fields() {
    let out = run(&[
        "audit",
        "--clump",
        "5",
        "--color",
        "never",
        "testdata/audit",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let mut at = 0;
    for name in RULES {
        let found = text[at..]
            .find(&format!("\n{name} "))
            .unwrap_or_else(|| panic!("{name} in order: {text}"));
        at += found + 1;
    }
    assert!(text.contains("\nFIELD "), "{text}");
    assert!(text.contains(&format!(
        "  {}:1  01JWTG9PQ4R9GHS6JPVT4C4M0E  [order]  lowercase at {}:1 [order_id]",
        WORKER, API
    )));
    assert!(Path::new(API).exists());
}

const CHECKOUT: &str = "testdata/audit-traces/planted/checkout.jsonl";
const GATEWAY: &str = "testdata/audit-traces/planted/gateway.logfmt";
const PAYMENTS: &str = "testdata/audit-traces/planted/payments.json";

/// `testdata/audit-traces/planted`: all-zero trace and span IDs, a version-ff `traceparent`,
/// upper-case hex in `trace_id`, `span_id` and a `traceparent`, and a fleet writing 128-bit
/// trace IDs beside a B3 64-bit one and a Datadog decimal (see `testdata/README.md`).
#[test]
fn planted_trace_violations() {
    let (report, out) = audit(&["testdata/audit-traces/planted"]);
    assert_eq!(out.status.code(), Some(0));
    let rule = |name: &str| &report.rules[name];

    let invalid = rule("trace-invalid");
    assert_eq!((invalid.count, invalid.unit.as_str()), (6, "occurrences"));
    assert_eq!(
        invalid.breakdown,
        map(&[("zero_trace", 2), ("zero_span", 3), ("version_ff", 1)])
    );
    assert_eq!(
        fields(invalid),
        vec![
            ("traceparent".into(), 2),
            ("dd.span_id".into(), 1),
            ("dd.trace_id".into(), 1),
            ("span_id".into(), 1),
            ("trace_id".into(), 1),
        ]
    );
    assert_eq!(
        shown(&invalid.examples),
        vec![
            format!("{CHECKOUT}:3 00000000000000000000000000000000"),
            format!("{CHECKOUT}:3 0000000000000000"),
            format!("{GATEWAY}:2 ff-5b8efff798038103d269b633813fc60c-eee19b7ec3c1b174-01"),
        ]
    );
    let traceparent = &invalid.fields[0];
    assert_eq!(
        shown(&traceparent.examples),
        vec![
            format!("{GATEWAY}:2 ff-5b8efff798038103d269b633813fc60c-eee19b7ec3c1b174-01"),
            format!("{GATEWAY}:4 00-5b8efff798038103d269b633813fc60c-0000000000000000-01"),
        ]
    );
    let dd_trace = invalid
        .fields
        .iter()
        .find(|f| f.field.as_deref() == Some("dd.trace_id"));
    assert_eq!(
        shown(&dd_trace.unwrap().examples),
        vec![format!("{PAYMENTS}:2 0")]
    );

    let upper = rule("trace-noncanonical");
    assert_eq!(upper.count, 3);
    assert_eq!(
        upper.breakdown,
        map(&[("trace_id", 1), ("span_id", 1), ("traceparent", 1)])
    );
    assert_eq!(
        shown(&upper.examples),
        vec![
            format!("{CHECKOUT}:2 5B8EFFF798038103D269B633813FC60C"),
            format!("{CHECKOUT}:2 EEE19B7EC3C1B174"),
            format!("{GATEWAY}:3 00-5B8EFFF798038103D269B633813FC60C-EEE19B7EC3C1B174-01"),
        ]
    );

    let mixed = rule("trace-mixed-width");
    assert_eq!(mixed.count, 2);
    // Valid trace IDs only: the zero and version-ff ones are trace-invalid's.
    assert_eq!(
        mixed.breakdown,
        map(&[("128_bit", 5), ("64_bit_hex", 1), ("64_bit_decimal", 1)])
    );
    assert_eq!(
        fields(mixed),
        vec![("X-B3-TraceId".into(), 1), ("dd.trace_id".into(), 1)]
    );
    assert_eq!(
        shown(&mixed.examples),
        vec![
            format!("{CHECKOUT}:1 5b8efff798038103d269b633813fc60c"),
            format!("{GATEWAY}:5 d269b633813fc60c"),
            format!("{PAYMENTS}:1 15161849952847513100"),
        ]
    );
    // A Datadog decimal is a trace ID, not an integer entity key; a zero parent span is a
    // root span, no finding.
    assert_eq!(rule("integer-ids").count, 0);
    assert_eq!(report.totals.integer_values, 0);
    assert_eq!(report.totals.trace_values, 19);
    let verdict = |name: &str| report.fields.iter().find(|f| f.field == name).unwrap();
    assert_eq!(verdict("dd.trace_id").format, "trace 64-bit decimal");
    assert_eq!(
        verdict("dd.trace_id").issues,
        owned(&["trace-invalid", "trace-mixed-width"])
    );
    assert_eq!(verdict("trace_id").traces, map(&[("128_bit", 3)]));
    assert!(verdict("X-B3-SpanId").consistent);
    assert!(
        !report
            .fields
            .iter()
            .any(|f| f.field == "parent_span_id" && !f.consistent)
    );
}

/// Canonical OpenTelemetry logs (lowercase 128-bit trace IDs, `traceparent`, a root span's
/// zero parent, an upper-case digest and a 16-hex cache key as decoys) give no trace finding.
#[test]
fn clean_otel_logs_have_no_trace_finding() {
    let (report, out) = audit(&["testdata/audit-traces/clean"]);
    assert_eq!(out.status.code(), Some(0), "trace IDs were read");
    for name in RULES {
        let rule = &report.rules[name];
        assert_eq!(rule.count, 0, "{name}: {rule:?}");
        assert!(rule.fields.is_empty() && rule.examples.is_empty(), "{name}");
    }
    assert_eq!(report.totals.trace_values, 10);
    let gate = run(&[
        "audit",
        "--deny",
        "trace-invalid,trace-noncanonical,trace-mixed-width",
        "testdata/audit-traces/clean",
    ]);
    assert_eq!(gate.status.code(), Some(0));
    for rule in ["trace-invalid", "trace-noncanonical", "trace-mixed-width"] {
        let gate = run(&["audit", "--deny", rule, "testdata/audit-traces/planted"]);
        assert_eq!(gate.status.code(), Some(1), "{rule}");
    }
}

/// The text report names the trace rules, their parts and examples, as the JSON does.
#[test]
fn text_report_shows_the_trace_rules() {
    let out = run(&["audit", "--color", "never", "testdata/audit-traces/planted"]);
    let text = String::from_utf8(out.stdout).unwrap();
    for line in [
        "  and 19 trace and span IDs in trace fields and headers\n",
        "\ntrace-invalid      6 invalid trace or span IDs (all zero, or traceparent version ff) (version_ff 1, zero_span 3, zero_trace 2)\n",
        "\ntrace-noncanonical 3 trace or span IDs in upper-case hex (W3C writes lowercase) (span_id 1, trace_id 1, traceparent 1)\n",
        "\ntrace-mixed-width  2 64-bit trace IDs beside 128-bit ones: they hold only the low 64 bits (128_bit 5, 64_bit_decimal 1, 64_bit_hex 1)\n",
        "  fields: X-B3-TraceId 1 (64_bit_hex 1), dd.trace_id 1 (64_bit_decimal 1)\n",
        "\ndd.trace_id   trace 64-bit decimal  invalid trace IDs, 64-bit trace IDs\n",
    ] {
        assert!(text.contains(line), "{line:?} in:\n{text}");
    }
    assert!(text.contains(&format!(
        "  {PAYMENTS}:1  15161849952847513100  [dd.trace_id]\n"
    )));
}
