//! The binary on `testdata/`, as a user runs it: forms, boundaries, compressed and corrupt
//! inputs, binary files, stdin, exit codes, JSON, colour, walking rules and thread counts.

use std::collections::BTreeSet;
use std::process::{Output, Stdio};

use regex::bytes::Regex;
use serde::Deserialize;

use crate::support::{decompressed, files_under, idgrep, run, run_with_input, testdata};

/// The incident's hot order, and its renderings.
const HOT: &str = "01M8KBYGM5NG2PSHNY302ZVWBS";
const HOT_UUID: &str = "01a226bf-4285-ac05-6cc6-be1805fdf179";
/// Created in the same millisecond as HOT: shares its first ten characters.
const TWIN: &str = "01M8KBYGM5NG2PSHNY302ZVWBT";
const PAYMENT: &str = "01a226bf-5052-7e7f-bf69-4da8a434d6f9";

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// `path:line` of every line holding `ulid` in any form as a whole token, by regex.
fn oracle_lines(ulid: &str) -> BTreeSet<String> {
    let id = idgrep::id::parse(ulid).unwrap().id;
    let pattern = format!(
        "(?i-u)(?:^|[^0-9a-z])(?:{}|{}|{})(?:$|[^0-9a-z])",
        id.ulid(),
        id.uuid(),
        id.hex()
    );
    let re = Regex::new(&pattern).unwrap();
    let root = testdata("logs");
    let mut lines = BTreeSet::new();
    for file in files_under(&root) {
        if file.file_name().unwrap() == ".gitattributes" {
            continue;
        }
        let data = decompressed(&file);
        for (i, line) in data.split(|&b| b == b'\n').enumerate() {
            if re.is_match(line) {
                let rel = file.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
                lines.insert(format!("{}:{}", rel.display(), i + 1));
            }
        }
    }
    lines
}

fn path_lines(out: &str) -> BTreeSet<String> {
    out.lines()
        .map(|l| {
            let mut parts = l.splitn(3, ':');
            format!("{}:{}", parts.next().unwrap(), parts.next().unwrap())
        })
        .collect()
}

#[test]
fn finds_every_line_of_the_hot_order_in_every_form() {
    let o = run(&[HOT, "testdata/logs"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let found = path_lines(&stdout(&o));
    assert_eq!(found, oracle_lines(HOT));
    // The incident's README lists 63 lines; the ledger holds every UUID spelling.
    assert_eq!(found.len(), 63);
    for line in [4, 5, 6, 7, 9, 10, 11, 12] {
        assert!(found.contains(&format!("testdata/logs/billing/ledger.log:{line}")));
    }
}

#[test]
fn every_spelling_of_the_query_gives_the_same_output() {
    let reference = stdout(&run(&[HOT, "testdata/logs"]));
    let undashed = HOT_UUID.replace('-', "").to_uppercase();
    let braced = format!("{{{HOT_UUID}}}");
    let urn = format!("urn:uuid:{HOT_UUID}");
    let typeid = format!("order_{}", HOT.to_lowercase());
    for query in [
        HOT.to_lowercase().as_str(),
        HOT_UUID,
        &HOT_UUID.to_uppercase(),
        &undashed,
        &braced,
        &urn,
        &typeid,
    ] {
        let out = stdout(&run(&[query, "testdata/logs"]));
        assert!(out == reference, "{query}: output differs");
    }
}

#[test]
fn look_alikes_do_not_match() {
    let out = stdout(&run(&[HOT, "testdata/logs"]));
    // x<ID>z, a 27-character run, the same-millisecond twin.
    assert!(!out.contains("testdata/logs/worker/worker.log:56:"));
    assert!(!out.contains("testdata/logs/gateway/access.log:64:"));
    let twin = path_lines(&stdout(&run(&[TWIN, "testdata/logs"])));
    assert_eq!(twin, oracle_lines(TWIN));
    assert!(!twin.is_empty());
}

#[test]
fn a_uuid_query_finds_its_upper_case_and_undashed_forms() {
    let o = run(&[PAYMENT, "testdata/logs"]);
    assert_eq!(path_lines(&stdout(&o)), oracle_lines(PAYMENT));
    assert!(stdout(&o).contains("payment_id=01A226BF-5052-7E7F-BF69-4DA8A434D6F9"));
}

#[test]
fn crlf_is_stripped_from_printed_lines() {
    let out = run(&[HOT, "testdata/logs/payments/payments.log"]).stdout;
    assert!(!out.is_empty());
    assert!(!out.contains(&b'\r'));
    // A single file: no file name, like ripgrep.
    assert!(out.starts_with(b"8:ts="));
}

#[test]
fn compressed_inputs_are_read_by_content() {
    for (file, lines) in [
        ("testdata/edge/hot.bz2", "1 3 4"),
        ("testdata/edge/hot.xz", "1 3 4"),
        ("testdata/edge/hot.zst", "1 3 4"),
        ("testdata/edge/multi.gz", "1 3 4 6"),
    ] {
        let o = run(&[HOT, file]);
        assert_eq!(o.status.code(), Some(0), "{file}");
        let out = stdout(&o);
        let numbers: Vec<&str> = out.lines().map(|l| l.split(':').next().unwrap()).collect();
        assert_eq!(numbers.join(" "), lines, "{file}");
    }
    // A gzip file renamed to look like plain text is still decompressed.
    let dir = tempfile::tempdir().unwrap();
    let disguised = dir.path().join("app.log");
    std::fs::copy(testdata("edge/multi.gz"), &disguised).unwrap();
    let o = run(&[HOT, disguised.to_str().unwrap()]);
    assert_eq!(stdout(&o).lines().count(), 4);
}

#[test]
fn a_corrupt_archive_yields_the_lines_before_the_damage_then_an_error() {
    let o = run(&[HOT, "testdata/edge/corrupt.gz", "testdata/edge/hot.xz"]);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    let corrupt: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("testdata/edge/corrupt.gz:"))
        .map(|l| l.split(':').nth(1).unwrap())
        .collect();
    assert_eq!(corrupt, ["1", "2", "4", "5", "6"]);
    // The run went on with the next file.
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("testdata/edge/hot.xz:"))
            .count(),
        3
    );
    let err = stderr(&o);
    assert!(
        err.starts_with("idgrep: testdata/edge/corrupt.gz: gzip: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn binary_files_are_reported_not_dropped() {
    let o = run(&[HOT, "testdata/edge/binary.bin"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        "testdata/edge/binary.bin: binary file matches (2 lines)\n"
    );
    let o = run(&["-a", HOT, "testdata/edge/binary.bin"]);
    let out = stdout(&o);
    let numbers: Vec<&str> = out.lines().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(numbers, ["2", "4"]);
    // A NUL past the first bytes, and past the first line, is still in the first block
    // (the reader that recognises compression reads the first six bytes on their own).
    let dir = tempfile::tempdir().unwrap();
    let late = dir.path().join("late.bin");
    std::fs::write(
        &late,
        format!("first line of text\nbin\0ary {HOT}\nx {HOT}\n"),
    )
    .unwrap();
    let o = run(&[HOT, late.to_str().unwrap()]);
    assert_eq!(
        stdout(&o),
        format!("{}: binary file matches (2 lines)\n", late.display())
    );
}

#[test]
fn stdin_is_searched_when_no_path_is_given() {
    let data = std::fs::read(testdata("logs/payments/payments.log")).unwrap();
    let o = run_with_input(&[&HOT.to_lowercase()], &data);
    assert_eq!(o.status.code(), Some(0));
    let file = stdout(&run(&[HOT, "testdata/logs/payments/payments.log"]));
    assert_eq!(stdout(&o), file);

    // Compressed stdin, and `-` among other paths.
    let gz = std::fs::read(testdata("edge/multi.gz")).unwrap();
    let out = stdout(&run_with_input(&[HOT, "-", "testdata/edge/hot.xz"], &gz));
    assert_eq!(out.lines().filter(|l| l.starts_with("<stdin>:")).count(), 4);

    // A redirected file is standard input too.
    let file = std::fs::File::open(testdata("logs/payments/payments.log")).unwrap();
    let o = idgrep().arg(HOT).stdin(file).output().unwrap();
    assert_eq!(
        stdout(&o),
        stdout(&run(&[HOT, "testdata/logs/payments/payments.log"]))
    );
}

/// Under cron and in many CI steps standard input is `/dev/null`: with no path, that is no
/// input, and the working directory is searched, its files named without `./` (as ripgrep).
#[test]
fn dev_null_stdin_searches_the_working_directory() {
    let at_logs = |args: &[&str]| {
        let mut cmd = idgrep();
        cmd.current_dir(testdata("logs"))
            .args(args)
            .stdin(Stdio::null());
        cmd.output().unwrap()
    };
    let implicit = at_logs(&["-c", HOT]);
    let explicit = at_logs(&["-c", HOT, "."]);
    assert_eq!(implicit.status.code(), Some(0));
    let named = stdout(&explicit).replace("./", "");
    assert!(named.lines().count() >= 5, "{named}");
    assert_eq!(stdout(&implicit), named);
    let ids = at_logs(&["ids", "--json"]);
    assert_eq!(ids.status.code(), Some(0));
    assert!(stdout(&ids).contains("\"payments/payments.log\""));
}

#[test]
fn exit_codes() {
    assert_eq!(run(&[HOT, "testdata/logs"]).status.code(), Some(0));
    let none = run(&["01arz3ndektsv4rrffq69g5fav", "testdata/logs"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(none.stdout.is_empty() && none.stderr.is_empty());
    let missing = run(&[HOT, "testdata/no-such-dir", "testdata/logs/api"]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(
        stderr(&missing),
        "idgrep: testdata/no-such-dir: no such file or directory\n"
    );
    // The other path was still searched.
    assert_eq!(stdout(&missing).lines().count(), 18);
}

#[test]
fn an_invalid_query_stops_before_anything_is_read() {
    for (query, needle) in [
        ("01M8KBYGM5NG2PSHNY302ZVWB", "length 25"),
        ("81M8KBYGM5NG2PSHNY302ZVWBS", "overflow"),
        ("01M8KBYGM5NG2PSHNY302ZVWBL", "'L' at position 26"),
        ("01a226bf-4285-ac05-6cc6-be1805fdf17g", "'g' at position 36"),
    ] {
        let o = run(&[query, "testdata/no-such-dir"]);
        assert_eq!(o.status.code(), Some(2), "{query}");
        assert!(o.stdout.is_empty());
        let err = stderr(&o);
        assert!(err.contains(needle), "{query}: {err}");
        assert!(err.contains("accepted forms"), "{err}");
        // The bad path was never looked at.
        assert!(!err.contains("no-such-dir"));
        assert_eq!(err.lines().count(), 1);
    }
}

/// ripgrep habits: `-j 0` is every core, and `--hidden`, `--no-ignore`, `-uu` and `-z` ask
/// for what idgrep always does. The output is the plain run's.
#[test]
fn ripgrep_flags_for_what_idgrep_always_does_change_nothing() {
    let plain = run(&[HOT, "testdata/logs"]);
    assert_eq!(plain.status.code(), Some(0));
    for flags in [
        &["-j", "0"][..],
        &["--hidden", "--no-ignore"],
        &["-uu"],
        &["-z"],
        &["--search-zip", "--unrestricted"],
    ] {
        let mut args = flags.to_vec();
        args.extend([HOT, "testdata/logs"]);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{flags:?}: {}", stderr(&o));
        assert_eq!(o.stdout, plain.stdout, "{flags:?}");
    }
    let ids = run(&["ids", "-z", "--hidden", "testdata/logs"]);
    assert_eq!(ids.stdout, run(&["ids", "testdata/logs"]).stdout);
}

/// A mistyped command is not reported as a bad ID: the message names the command meant.
#[test]
fn a_mistyped_command_is_named() {
    for (word, meant) in [("timelin", "timeline"), ("IDS", "ids"), ("decod", "decode")] {
        let o = run(&[word, HOT, "testdata/logs"]);
        assert_eq!(o.status.code(), Some(2), "{word}");
        let err = stderr(&o);
        assert!(
            err.contains(&format!("no command {word:?}; did you mean {meant:?}?")),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1);
    }
    // A word far from every command is a bad ID, as before.
    let o = run(&["hello", "testdata/logs"]);
    assert!(stderr(&o).starts_with("idgrep: invalid ID \"hello\""));
}

/// `idgrep ID1 ID2 logs/` and `idgrep timeline ID1 ID2 logs/`: the second ID is no path, and
/// the message says how to give several, before anything is read.
#[test]
fn a_second_id_where_a_path_goes_says_how_to_give_several() {
    const OTHER: &str = "01GTYDHD4J1PCJACCBY9XRGPBN";
    for (args, how) in [
        (&[HOT, OTHER, "testdata/logs"][..], "-e ID -e ID"),
        (&["timeline", HOT, OTHER, "testdata/logs"], "--related"),
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty());
        assert!(stderr(&o).contains(how), "{}", stderr(&o));
    }
    // A file that is there is searched, whatever its name.
    let dir = tempfile::tempdir().unwrap();
    let named_like_an_id = dir.path().join(OTHER);
    std::fs::write(&named_like_an_id, format!("x {HOT}\n")).unwrap();
    let o = run(&[HOT, named_like_an_id.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_bad_flag_is_one_line_naming_what_is_accepted() {
    for (args, needles) in [
        (vec!["--bogus", HOT], vec!["'--bogus'"]),
        (
            vec!["ids", "--sort", "bogus", "testdata"],
            vec![
                "'bogus'",
                "--sort",
                "accepted: lines, id, created, first, files",
            ],
        ),
        (
            vec!["--color", "sometimes", HOT],
            vec!["accepted: auto, always, never"],
        ),
        (vec!["--versio"], vec!["'--version'"]),
        (
            vec!["-C", "x", HOT],
            vec!["'x'", "--context", "accepted: a whole number from 0"],
        ),
        (
            vec!["decode"],
            vec!["decode: give one or more IDs, or pipe them in"],
        ),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty());
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("idgrep: "), "{err}");
        for needle in needles {
            assert!(err.contains(needle), "{args:?}: {err}");
        }
    }
    // Help is not an error.
    let help = run(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(stdout(&help).contains("Usage: idgrep"));
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct JsonLine {
    path: String,
    line: u64,
    ts: Option<String>,
    text: JsonText,
    matches: Vec<JsonMatch>,
}

/// A line's text: a string, or `{"bytes": base64}` when the line is not UTF-8.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum JsonText {
    Text(String),
    Bytes { bytes: String },
}

impl JsonText {
    fn bytes(&self) -> Vec<u8> {
        use base64::Engine;
        match self {
            JsonText::Text(text) => text.clone().into_bytes(),
            JsonText::Bytes { bytes } => base64::engine::general_purpose::STANDARD
                .decode(bytes)
                .unwrap(),
        }
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct JsonMatch {
    id: String,
    raw: String,
    start: usize,
    end: usize,
    field: Option<String>,
}

#[test]
fn json_lines_read_back_into_typed_records() {
    let o = run(&["--json", HOT, "testdata/logs"]);
    assert_eq!(o.status.code(), Some(0));
    let records: Vec<JsonLine> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let paths: BTreeSet<String> = records
        .iter()
        .map(|r| format!("{}:{}", r.path, r.line))
        .collect();
    assert_eq!(paths, oracle_lines(HOT));
    let mut raws = BTreeSet::new();
    let mut not_utf8 = 0;
    for r in &records {
        assert!(!r.matches.is_empty());
        let text = r.text.bytes();
        not_utf8 += usize::from(matches!(r.text, JsonText::Bytes { .. }));
        assert!(
            std::str::from_utf8(&text).is_err()
                == (not_utf8 > 0 && matches!(r.text, JsonText::Bytes { .. }))
        );
        for m in &r.matches {
            assert_eq!(m.id, HOT.to_lowercase());
            // The offsets point into the line as read, UTF-8 or not.
            assert_eq!(
                &text[m.start..m.end],
                m.raw.as_bytes(),
                "{}:{}",
                r.path,
                r.line
            );
            raws.insert(m.raw.clone());
        }
    }
    // The incident has a line that is not UTF-8: it comes as bytes.
    assert!(not_utf8 > 0);
    // Lowercase, upper case, dashed, undashed upper and dashed upper UUID spellings.
    assert!(raws.contains(&HOT.to_lowercase()) && raws.contains(HOT));
    assert!(raws.contains(HOT_UUID) && raws.contains(&HOT_UUID.replace('-', "").to_uppercase()));
    let payments = records
        .iter()
        .find(|r| r.path.ends_with("payments.log"))
        .unwrap();
    assert!(!payments.text.bytes().ends_with(b"\r"));
    // -N hides line numbers from text lines only; JSON lines keep them.
    let without = run(&["--json", "-N", HOT, "testdata/logs"]);
    assert_eq!(stdout(&without), stdout(&o));
    // The order's creation line: its time, and the field that holds it.
    let created = &records[0];
    assert_eq!(created.ts.as_deref(), Some("2026-11-29T09:59:58.341Z"));
    assert_eq!(created.matches[0].field.as_deref(), Some("order_id"));
}

#[test]
fn output_is_the_same_for_one_and_two_threads() {
    for args in [
        vec![HOT, "testdata"],
        vec!["--json", HOT, "testdata/logs"],
        vec!["-c", PAYMENT, "testdata/logs"],
        // The tables are listed, and 64-bit traces joined to their 128-bit ones, on two
        // threads.
        vec!["ids", "--csv", "testdata"],
    ] {
        let one = run(&[&["-j1"], &args[..]].concat());
        let two = run(&[&["-j2"], &args[..]].concat());
        assert_eq!(one.stdout, two.stdout, "{args:?}");
        assert_eq!(one.stderr, two.stderr, "{args:?}");
        assert_eq!(one.status.code(), two.status.code());
    }
}

#[test]
fn inputs_with_more_output_than_a_thread_holds_back_print_in_order() {
    // Each file prints more than a search thread holds back for an input that is not yet its
    // turn (4 MiB), so with several threads some wait for their turn mid-file; a corrupt
    // archive in between puts its error in its place.
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.log", "c.log", "d.log"] {
        let mut text = String::new();
        for n in 0..70_000 {
            text.push_str(&format!("{name} {n} order_id={HOT} amount={n}\n"));
        }
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    std::fs::copy("testdata/edge/corrupt.gz", dir.path().join("b.gz")).unwrap();
    let path = dir.path().to_str().unwrap();
    let one = run(&["-j1", HOT, path]);
    assert_eq!(one.status.code(), Some(2));
    assert_eq!(stdout(&one).lines().count(), 3 * 70_000 + 5);
    assert_eq!(stderr(&one).lines().count(), 1);
    for threads in ["-j2", "-j3"] {
        let many = run(&[threads, HOT, path]);
        assert!(one.stdout == many.stdout, "{threads}");
        assert_eq!(one.stderr, many.stderr, "{threads}");
        assert_eq!(many.status.code(), Some(2));
    }
}

#[test]
fn count_names_quiet_and_no_filename() {
    let count = stdout(&run(&["-c", HOT, "testdata/logs"]));
    assert!(count.contains("testdata/logs/api/api.jsonl:18\n"));
    let total: u64 = count
        .lines()
        .map(|l| l.rsplit(':').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 63);
    let names = stdout(&run(&["-l", HOT, "testdata/logs"]));
    assert_eq!(names.lines().count(), 7);
    assert!(!names.contains("kubelet"));
    let quiet = run(&["-q", HOT, "testdata/logs"]);
    assert_eq!(quiet.status.code(), Some(0));
    assert!(quiet.stdout.is_empty());
    let bare = stdout(&run(&["--no-filename", HOT, "testdata/logs"]));
    assert!(bare.lines().all(|l| !l.starts_with("testdata")));
    assert_eq!(bare.lines().count(), 63);
}

/// -A, -B and -C print the lines around each match as grep and ripgrep do: `-` after the name
/// and number of a context line, `--` between groups that are not adjacent and between files.
/// The expected output is built from the files themselves and the regex oracle's matches.
#[test]
fn context_lines_around_matches_as_grep_prints_them() {
    let matches = oracle_lines(HOT);
    let plain = stdout(&run(&[HOT, "testdata/logs"]));
    let mut files: Vec<&str> = Vec::new();
    for line in plain.lines() {
        let path = line.split(':').next().unwrap();
        if files.last() != Some(&path) {
            files.push(path);
        }
    }
    for (flags, before, after) in [
        (vec!["-C1"], 1, 1),
        (vec!["-A", "2"], 0, 2),
        (vec!["-B3", "-A0"], 3, 0),
        (vec!["-C", "2", "-B0"], 0, 2),
        (vec!["-N", "-C2"], 2, 2),
    ] {
        let numbers = !flags.contains(&"-N");
        let mut expected = Vec::new();
        for path in &files {
            let data = decompressed(std::path::Path::new(path));
            let mut lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
            if data.ends_with(b"\n") {
                lines.pop();
            }
            let is_match = |i: usize| matches.contains(&format!("{path}:{}", i + 1));
            let mut last = None;
            for (i, text) in lines.iter().enumerate() {
                let near = (i.saturating_sub(after)..=i + before).any(&is_match);
                if !near {
                    continue;
                }
                if last.is_some_and(|l| l + 1 != i) || (last.is_none() && !expected.is_empty()) {
                    expected.extend_from_slice(b"--\n");
                }
                let mark = if is_match(i) { ':' } else { '-' };
                let number = if numbers {
                    format!("{}{mark}", i + 1)
                } else {
                    String::new()
                };
                expected.extend_from_slice(format!("{path}{mark}{number}").as_bytes());
                // Log text is printed escaped (the worker log holds an escape sequence).
                idgrep::text::escape_into(&mut expected, text.strip_suffix(b"\r").unwrap_or(text));
                expected.push(b'\n');
                last = Some(i);
            }
        }
        for threads in ["-j1", "-j2"] {
            let o = run(&[&[threads, HOT, "testdata/logs"], &flags[..]].concat());
            assert_eq!(o.status.code(), Some(0), "{flags:?}");
            assert!(
                o.stdout == expected,
                "{flags:?} {threads}:\n{}\nexpected:\n{}",
                stdout(&o),
                String::from_utf8_lossy(&expected)
            );
        }
    }

    // As in ripgrep, the last of a repeated flag counts (an alias may hold one).
    assert_eq!(
        stdout(&run(&["-C9", "-C1", HOT, "testdata/logs"])),
        stdout(&run(&["-C1", HOT, "testdata/logs"]))
    );

    // JSON: a context line is marked, with no matches; a match line has no such key.
    let json = stdout(&run(&["--json", "-C1", HOT, "testdata/logs"]));
    let records: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (context, matched): (Vec<_>, Vec<_>) =
        records.iter().partition(|r| r.get("context").is_some());
    assert_eq!(matched.len(), 63);
    assert!(!context.is_empty());
    for r in &context {
        assert_eq!(r["context"], true);
        assert_eq!(r["matches"].as_array().unwrap().len(), 0);
    }
    // Counts and names are not changed by context, as in ripgrep.
    assert_eq!(
        stdout(&run(&["-c", "-C3", HOT, "testdata/logs"])),
        stdout(&run(&["-c", HOT, "testdata/logs"]))
    );
}

/// ripgrep habits: -n (the last of -n and -N wins), and -i, -w, -F, which an ID search always
/// is, change nothing.
#[test]
fn ripgrep_habits_are_accepted() {
    let plain = stdout(&run(&[HOT, "testdata/logs"]));
    assert!(
        plain.starts_with("testdata/logs/api/api.jsonl:2:"),
        "{plain}"
    );
    assert_eq!(
        stdout(&run(&["-n", "-i", "-w", "-F", HOT, "testdata/logs"])),
        plain
    );
    assert_eq!(stdout(&run(&["-N", "-n", HOT, "testdata/logs"])), plain);
    let unnumbered = stdout(&run(&["-n", "-N", HOT, "testdata/logs"]));
    assert!(
        unnumbered.starts_with("testdata/logs/api/api.jsonl:{"),
        "{unnumbered}"
    );
}

#[test]
fn control_characters_never_reach_the_terminal() {
    for color in ["never", "always"] {
        let o = run(&["--color", color, HOT, "testdata/logs/worker/worker.log"]);
        let out = stdout(&o);
        let line = out
            .lines()
            .find(|l| l.contains("state regression"))
            .unwrap();
        assert!(line.contains("\\x1b["), "{line}");
        // The only escape bytes are the ones idgrep writes for its own colours.
        let ours = out.matches("\x1b[0m").count() * 2;
        assert_eq!(
            out.matches('\x1b').count(),
            if color == "never" { 0 } else { ours }
        );
    }
    // Invalid UTF-8 next to the ID is shown as escapes, not passed through.
    let raw = run(&[HOT, "testdata/logs/worker/worker.log"]).stdout;
    assert!(String::from_utf8(raw).is_ok());
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let always = stdout(&run(&["--color", "always", HOT, "testdata/logs/api"]));
    assert!(always.contains("\x1b[1;31m01m8kbygm5ng2pshny302zvwbs\x1b[0m"));
    assert!(always.contains("\x1b[35mtestdata/logs/api/api.jsonl\x1b[0m"));
    let auto = idgrep()
        .args([HOT, "testdata/logs/api"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!auto.stdout.contains(&0x1b));
    let o = run(&["--color", "sometimes", HOT]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn several_ids_at_once_from_flags_and_a_file() {
    let both = run(&["-e", HOT, "-e", PAYMENT, "testdata/logs"]);
    let expected: BTreeSet<String> = oracle_lines(HOT)
        .union(&oracle_lines(PAYMENT))
        .cloned()
        .collect();
    assert_eq!(path_lines(&stdout(&both)), expected);
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("ids.txt");
    std::fs::write(&list, format!("# incident ids\n{HOT}\n\n{PAYMENT}\n")).unwrap();
    let from_file = run(&["-f", list.to_str().unwrap(), "testdata/logs"]);
    assert_eq!(from_file.stdout, both.stdout);
    // Many IDs take the token walk; the lines must be the same.
    let mut many = format!("{HOT}\n{PAYMENT}\n");
    for i in 0..20u128 {
        many.push_str(&idgrep::id::Id(i << 90 | 77).ulid());
        many.push('\n');
    }
    std::fs::write(&list, many).unwrap();
    let o = run(&["-f", list.to_str().unwrap(), "testdata/logs"]);
    assert_eq!(path_lines(&stdout(&o)), expected);
    std::fs::write(&list, format!("{HOT}\nnot-an-id\n")).unwrap();
    let bad = run(&["-f", list.to_str().unwrap(), "testdata/logs"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("ids.txt:2"));
}

#[test]
fn walk_includes_hidden_files_skips_links_unless_asked_and_honours_globs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".hidden")).unwrap();
    std::fs::write(root.join(".hidden/a.log"), format!("x {HOT}\n")).unwrap();
    std::fs::write(root.join("b.txt"), format!("y {HOT}\n")).unwrap();
    std::fs::write(root.join(".gitignore"), "b.txt\n").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("c.log"), format!("z {HOT}\n")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("linked")).unwrap();
    let names = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["-l", HOT];
        all.extend_from_slice(args);
        all.push(root.to_str().unwrap());
        let o = run(&all);
        stdout(&o)
            .lines()
            .map(|l| l.strip_prefix(root.to_str().unwrap()).unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&[]), ["/.hidden/a.log", "/b.txt"]);
    assert_eq!(
        names(&["-L"]),
        ["/.hidden/a.log", "/b.txt", "/linked/c.log"]
    );
    assert_eq!(names(&["-g", "*.log"]), ["/.hidden/a.log"]);
    assert_eq!(names(&["-g", "!*.log"]), ["/b.txt"]);
    let bad = run(&["-g", "a{b", HOT, "testdata"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("invalid glob"));
}

/// A FIFO or a socket inside a searched directory is skipped, as ripgrep does (reading the FIFO
/// would wait forever for a writer); every view finishes and finds the ID in the log beside
/// them.
#[cfg(unix)]
#[test]
fn fifos_and_sockets_met_in_a_walk_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let id = "01kbmjneh9nj0n4csmzgsm8hxn";
    std::fs::write(dir.path().join("a.log"), format!("order_id={id}\n")).unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let _socket = std::os::unix::net::UnixListener::bind(dir.path().join("sock")).unwrap();
    let path = dir.path().to_str().unwrap();
    for args in [
        vec!["-c", id, path],
        vec!["ids", path],
        vec!["audit", path],
        vec!["timeline", id, path],
    ] {
        let mut child = idgrep()
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                panic!("{args:?} is still waiting on the FIFO");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).is_empty(), "{args:?}: {}", stderr(&out));
        let shown = stdout(&out);
        match args[0] {
            "-c" => assert!(shown.ends_with("a.log:1\n"), "{shown}"),
            "audit" => {}
            _ => assert!(shown.contains(id), "{args:?}: {shown}"),
        }
    }
}

#[test]
fn a_broken_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.log");
    let line = format!("2026-11-29T10:00:00Z order={HOT} some padding text here\n");
    std::fs::write(&big, line.repeat(200_000)).unwrap();
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' {HOT} '{}' | head -n 1",
            env!("CARGO_BIN_EXE_idgrep"),
            big.display()
        ))
        .output()
        .unwrap();
    assert_eq!(stdout(&o).lines().count(), 1);
    assert_eq!(stderr(&o), "");
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Decoded {
    input: String,
    id: String,
    kind: String,
    prefix: Option<String>,
    version: Option<u8>,
    variant: Option<String>,
    unix_ms: Option<i64>,
    time: Option<String>,
    ulid: String,
    uuid: String,
    hex: String,
}

#[test]
fn decode_reports_both_renderings_and_the_time() {
    let o = run(&[
        "decode",
        "--json",
        HOT,
        "017F22E2-79B0-7CC3-98C4-DC0C0C07398F",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let rows: Vec<Decoded> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows[0].input, HOT);
    assert_eq!(rows[0].id, HOT.to_lowercase());
    assert_eq!(rows[0].kind, "ulid");
    assert_eq!(rows[0].prefix, None);
    assert_eq!(rows[0].version, None);
    assert_eq!(rows[0].variant, None);
    assert_eq!(rows[0].uuid, HOT_UUID);
    assert_eq!(rows[0].time.as_deref(), Some("2026-11-29T09:59:58.341Z"));
    assert_eq!(rows[1].id, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    assert_eq!(rows[1].version, Some(7));
    assert_eq!(rows[1].variant.as_deref(), Some("rfc9562"));
    assert_eq!(rows[1].unix_ms, Some(1645557742000));
    assert_eq!(rows[1].ulid, "01fwhe4ydgfk1shh6w1g60eecf");
    assert_eq!(rows[1].hex, "017f22e279b07cc398c4dc0c0c07398f");

    let text = stdout(&run(&["decode", PAYMENT]));
    assert!(text.contains("version  7") && text.contains("2026-11-29T10:00:01.874Z"));

    let bad = run(&["decode", HOT, "01M8KBYGM5NG2PSHNY302ZVWB"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stdout(&bad).contains(HOT));
    assert!(stderr(&bad).contains("length 25"));

    // With no argument, the words of a pipe: the same rows as the arguments give.
    let piped = |input: &[u8]| run_with_input(&["decode", "--json"], input);
    let from_pipe = piped(format!("{HOT}\n  017F22E2-79B0-7CC3-98C4-DC0C0C07398F\n").as_bytes());
    assert_eq!(from_pipe.status.code(), Some(0));
    assert_eq!(stdout(&from_pipe), stdout(&o));
    assert_eq!(piped(b"\n").status.code(), Some(1), "nothing to decode");
    // A bad word, here not even UTF-8, is reported; the words around it are still decoded.
    let mut input = format!("{HOT} caf").into_bytes();
    input.extend_from_slice(b"\xe9x\n017F22E2-79B0-7CC3-98C4-DC0C0C07398F");
    let mixed = piped(&input);
    assert_eq!(mixed.status.code(), Some(2));
    assert_eq!(stdout(&mixed), stdout(&o));
    assert_eq!(stderr(&mixed).lines().count(), 1, "{}", stderr(&mixed));
}

#[test]
fn a_non_ascii_argument_is_a_usage_error() {
    for arg in ["ééééé", "urn:uuid€x"] {
        let o = run(&[arg, "testdata/logs"]);
        assert_eq!(o.status.code(), Some(2), "{arg}");
        assert!(
            stderr(&o).starts_with("idgrep: invalid ID"),
            "{}",
            stderr(&o)
        );
    }
}
