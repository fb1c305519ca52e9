//! Arguments as users type them, and the small things they notice: flags before a command's
//! name, the last of `-c`/`-l` winning, compound durations, fixed-offset zones, quoted and
//! mis-cased IDs in `decode`, a CI gate that read nothing, aligned columns around escaped
//! names, unambiguous CSV lists, and counts in the singular.

use std::process::Stdio;

use crate::support::run;

const HOT: &str = "01M8KBYGM5NG2PSHNY302ZVWBS";

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn flags_before_a_commands_name_are_the_commands_own() {
    let before = run(&["-j1", "ids", "--top", "2", "testdata/logs"]);
    let after = run(&["ids", "-j1", "--top", "2", "testdata/logs"]);
    assert_eq!(before.status.code(), Some(0), "{}", text(&before.stderr));
    assert_eq!(before.stdout, after.stdout);
    let spaced = run(&[
        "-j",
        "1",
        "--color",
        "never",
        "timeline",
        HOT,
        "testdata/logs",
    ]);
    assert_eq!(spaced.status.code(), Some(0), "{}", text(&spaced.stderr));
    // With -e the arguments are paths, whatever they are called.
    let path = run(&["-e", HOT, "ids"]);
    assert_eq!(path.status.code(), Some(2));
    assert!(
        text(&path.stderr).contains("ids: "),
        "{}",
        text(&path.stderr)
    );
}

#[test]
fn the_last_of_count_and_files_with_matches_wins() {
    let counts = run(&["-l", "-c", HOT, "testdata/logs/billing"]);
    assert_eq!(text(&counts.stdout), "testdata/logs/billing/ledger.log:8\n");
    let names = run(&["-c", "-l", HOT, "testdata/logs/billing"]);
    assert_eq!(text(&names.stdout), "testdata/logs/billing/ledger.log\n");
}

#[test]
fn skew_takes_the_durations_since_takes() {
    for skew in ["1h30m", "1h 30m", "90m"] {
        let o = run(&["audit", "--skew", skew, "testdata/audit"]);
        assert_eq!(o.status.code(), Some(0), "{skew}: {}", text(&o.stderr));
    }
    let o = run(&["audit", "--skew", "1h30", "testdata/audit"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("1h30m"), "{}", text(&o.stderr));
}

#[test]
fn tz_takes_a_fixed_offset_and_refuses_an_impossible_one() {
    let o = run(&[
        "timeline",
        "--color",
        "never",
        "--tz",
        "+05:30",
        HOT,
        "testdata/logs",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("2026-11-29T15:29:58.341+05:30"),
        "{}",
        text(&o.stdout)
    );
    let o = run(&["--tz", "+25:00", HOT, "testdata/logs"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("\"+25:00\"") && err.contains("+05:30"),
        "{err}"
    );
}

#[test]
fn decode_takes_a_quoted_id_and_names_a_typeid_prefix() {
    for quoted in [
        "\"01m8kbygm5ng2pshny302zvwbs\"",
        "'01m8kbygm5ng2pshny302zvwbs'",
    ] {
        let o = run(&["decode", "--json", quoted]);
        assert_eq!(o.status.code(), Some(0), "{quoted}: {}", text(&o.stderr));
        let row: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(row["id"], "01m8kbygm5ng2pshny302zvwbs", "{quoted}");
    }
    let o = run(&["decode", "--json", "order_01m8kbygm5ng2pshny302zvwbs", HOT]);
    let rows: Vec<serde_json::Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows[0]["prefix"], "order");
    assert_eq!(rows[1]["prefix"], serde_json::Value::Null);
    assert_eq!(rows[0]["id"], rows[1]["id"]);
    let shown = run(&["decode", "order_01m8kbygm5ng2pshny302zvwbs"]);
    assert!(text(&shown.stdout).contains("  prefix   order\n"));
}

#[test]
fn a_typeid_prefix_in_upper_case_is_blamed_on_the_prefix() {
    let o = run(&["decode", "ORDER_01M8KBYGM5NG2PSHNY302ZVWBS"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("'O' at position 1 of a TypeID prefix"),
        "{err}"
    );
    assert!(!err.contains("hex digits 0-9"), "{err}");
}

#[test]
fn a_gate_that_reads_no_file_fails() {
    let o = run(&[
        "audit",
        "--deny",
        "all",
        "-g",
        "*.nothing",
        "testdata/audit",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no files to read"));
    // Without --deny it is a report of nothing, as before.
    let o = run(&["audit", "-g", "*.nothing", "testdata/audit"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn audit_field_columns_line_up_around_escaped_names() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.jsonl"),
        "{\"ord\\u001b_id\":\"01M8KBYGM5NG2PSHNY302ZVWBS\"}\n\
         {\"order_id\":\"01m8kbygm5ng2pshny302zvwbt\"}\n\
         {\"commandé_id\":\"01m8kbygm5ng2pshny302zvwbt\"}\n",
    )
    .unwrap();
    let o = run(&["audit", "--color", "never", dir.path().to_str().unwrap()]);
    let out = text(&o.stdout);
    let table: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("FIELD"))
        .take(4)
        .collect();
    assert_eq!(table.len(), 4, "{out}");
    let column = |line: &str| {
        line.find("ulid")
            .unwrap_or_else(|| line.find("FORMAT").unwrap())
    };
    let columns: Vec<usize> = table
        .iter()
        .map(|l| l.chars().count() - l[column(l)..].chars().count())
        .collect();
    assert!(columns.iter().all(|&c| c == columns[0]), "{out}");
    assert!(out.contains("ord\\x1b_id"), "{out}");
}

#[test]
fn csv_lists_escape_their_separators() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("a;b=c\\d.log");
    std::fs::write(&odd, format!("x {HOT}\n")).unwrap();
    std::fs::write(dir.path().join("plain.log"), format!("order;id={HOT}\n")).unwrap();
    let o = run(&["ids", "--csv", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let mut reader = csv::Reader::from_reader(&o.stdout[..]);
    let row = reader.records().next().unwrap().unwrap();
    // Split at the `;` that no `\` escapes, then drop the escapes.
    let split = |cell: &str| -> Vec<String> {
        let (mut items, mut item, mut escaped) = (Vec::new(), String::new(), false);
        for c in cell.chars() {
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, ';') => items.push(std::mem::take(&mut item)),
                _ => {
                    item.push(c);
                    escaped = false;
                }
            }
        }
        items.push(item);
        items
    };
    let paths = split(&row[7]);
    assert_eq!(
        paths,
        [
            odd.to_str().unwrap().to_string(),
            dir.path().join("plain.log").to_str().unwrap().to_string()
        ]
    );
    assert!(
        split(&row[8]).contains(&"order;id=1".to_string()),
        "{:?}",
        &row[8]
    );
}

#[test]
fn one_line_is_one_line() {
    let o = run(&[
        "timeline",
        "--color",
        "never",
        "--related",
        "--max-fanout",
        "1",
        HOT,
        "testdata/logs",
    ]);
    let out = text(&o.stdout);
    assert!(out.contains("more than 1 line)"), "{out}");
    assert!(!out.contains(" 1 lines"), "{out}");
}

#[test]
fn a_26_digit_number_is_no_id_unless_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let number = "20261201100000123456789012";
    std::fs::write(
        dir.path().join("a.log"),
        format!("txn_ref={number} order={HOT}\nnil=00000000000000000000000000\n"),
    )
    .unwrap();
    let path = dir.path().to_str().unwrap();
    let ids = text(&run(&["ids", "--json", path]).stdout);
    assert!(!ids.contains(number), "{ids}");
    assert!(ids.contains("01m8kbygm5ng2pshny302zvwbs"), "{ids}");
    // The nil ULID stays: it is a placeholder the audit reports.
    assert!(ids.contains("00000000000000000000000000"), "{ids}");
    let audit = text(&run(&["audit", "--json", path]).stdout);
    assert!(!audit.contains("4202-"), "{audit}");
    let found = run(&[number, path]);
    assert_eq!(found.status.code(), Some(0));
    assert!(text(&found.stdout).contains(number));
}

#[test]
fn ids_and_audit_call_a_ulid_stored_as_a_uuid_alike() {
    let dir = tempfile::tempdir().unwrap();
    // The ULID 01m8kbygm5ng2pshny302zvwbs as a UUID: version nibble 10, no RFC variant.
    std::fs::write(
        dir.path().join("a.log"),
        "ref=01a226bf-4285-ac05-6cc6-be1805fdf179\nref=01a226bf-4285-ac05-6cc6-be1805fdf179\n",
    )
    .unwrap();
    let path = dir.path().to_str().unwrap();
    let ids = text(&run(&["ids", "--color", "never", path]).stdout);
    assert!(ids.contains("uuid non-rfc"), "{ids}");
    assert!(!ids.contains("uuid v10"), "{ids}");
    let audit = text(&run(&["audit", "--json", path]).stdout);
    assert!(audit.contains("\"non-rfc\""), "{audit}");
}

#[test]
fn integer_ids_are_entity_keys_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.log"),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"charge\",\"order_id\":\"01m8kbygm5ng2pshny302zvwbs\"}\n\
         ts=2026-11-29T10:00:00Z thread_id=7 shard_id=3 worker_id=2 kafka_partition_id=5 msg=x\n\
         {\"EventID\":4624,\"ThreadID\":88,\"order\":{\"id\":42}}\n\
         {\"ts\":\"2026-11-29T10:00:00Z\",\"id\":1006}\n\
         customer_id=1001 order=01m8kbygm5ng2pshny302zvwbs\n",
    )
    .unwrap();
    let o = run(&["audit", "--json", dir.path().to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rule = &report["rules"]["integer-ids"];
    assert_eq!(rule["count"], 3, "{rule}");
    let fields: Vec<&str> = rule["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields.len(), 3, "{rule}");
    for field in ["customer_id", "order.id", "id"] {
        assert!(fields.contains(&field), "{field} in {fields:?}");
    }
}

#[test]
fn an_export_inside_the_searched_folder_is_the_same_on_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let log = logs.join("api.log");
    std::fs::write(&log, format!("order={HOT}\n")).unwrap();
    let logs = logs.to_str().unwrap();
    for format in ["html", "csv", "ndjson", "md", "json", "txt"] {
        let export = dir.path().join("logs").join(format!("incident.{format}"));
        let export = export.to_str().unwrap();
        let first = run(&["timeline", HOT, logs, "-o", export]);
        assert_eq!(
            first.status.code(),
            Some(0),
            "{format}: {}",
            text(&first.stderr)
        );
        let made = std::fs::read(export).unwrap();
        // The second run meets the first one's export in the folder, and leaves it out.
        let second = run(&["timeline", HOT, logs, "-o", export]);
        assert_eq!(
            second.status.code(),
            Some(0),
            "{format}: {}",
            text(&second.stderr)
        );
        assert!(
            text(&second.stderr).contains("an earlier export, not read"),
            "{format}"
        );
        assert_eq!(std::fs::read(export).unwrap(), made, "{format}");
        std::fs::remove_file(export).unwrap();
    }
    // A log named as the export is refused and left whole.
    let o = run(&["timeline", HOT, logs, "-o", log.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("-o names one of the logs"));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!("order={HOT}\n")
    );
}

#[test]
fn on_a_terminal_timeline_rows_fit_its_width_with_wide_characters() {
    use unicode_width::UnicodeWidthStr;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("jp.log");
    let wide = "注文の支払いが失敗しました🚀".repeat(8);
    std::fs::write(&log, format!("{wide} order={HOT}\n{wide} retry {HOT}\n")).unwrap();
    let inner = format!(
        "COLUMNS=80 '{}' timeline --color never {HOT} '{}'",
        env!("CARGO_BIN_EXE_idgrep"),
        log.display()
    );
    let o = std::process::Command::new("script")
        .args(["-qec", &inner, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("the terminal test needs util-linux's script (Debian's bsdutils)");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let rows: Vec<&str> = out.lines().filter(|l| l.contains('…')).collect();
    assert_eq!(rows.len(), 2, "{out}");
    for row in out.lines() {
        let row = row.trim_end_matches('\r');
        assert!(row.width() <= 80, "{} columns: {row}", row.width());
    }
}

#[test]
fn an_audit_of_an_id_dated_after_9999_writes_no_date_a_parser_chokes_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.log"),
        "2026-11-29T10:00:00Z order=7XGETPKNW28Y3TZQ2KGP88HWGA\n",
    )
    .unwrap();
    let o = run(&["audit", "--json", dir.path().to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let examples = report["rules"]["id-time-skew"]["examples"]
        .as_array()
        .unwrap();
    assert_eq!(examples.len(), 1, "{report}");
    assert_eq!(examples[0]["skew"], "future");
    assert_eq!(examples[0]["id_time"], serde_json::Value::Null);
    assert!(!text(&o.stdout).contains("unix_ms:"));
}

#[test]
fn the_ids_table_lines_up_around_a_time_after_9999() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.log"),
        format!("a=7XGETPKNW28Y3TZQ2KGP88HWGA\nb={HOT}\n"),
    )
    .unwrap();
    let out = text(&run(&["ids", "--color", "never", dir.path().to_str().unwrap()]).stdout);
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert!(out.contains("(after 9999)"), "{out}");
    let lines_end = rows[0].find("LINES").unwrap() + "LINES".len();
    for row in &rows[1..] {
        assert!(row[..lines_end].ends_with(" 1"), "{out}");
    }
}

/// A ULID stored as a UUID has random version bits: the timeline's summary calls it
/// `uuid non-rfc`, as `ids` and `audit` do, not `uuid v10`.
#[test]
fn the_timeline_calls_a_uuid_without_an_rfc_version_non_rfc() {
    let o = run(&[
        "timeline",
        "01a226bf-4285-ac05-6cc6-be1805fdf179",
        "testdata/logs",
        "--color",
        "never",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        text(&o.stdout)
            .starts_with("id        01a226bf-4285-ac05-6cc6-be1805fdf179 (uuid non-rfc)\n"),
        "{}",
        text(&o.stdout)
    );
}
