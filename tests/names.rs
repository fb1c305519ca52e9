//! File names that could break an output: bytes that are not UTF-8, a newline, a terminal
//! escape, a spreadsheet formula, HTML. In every command's output the text views show them
//! escaped, JSON gives them exactly (a string, or `{"bytes": base64}` of a name that is not
//! UTF-8, as ripgrep writes it), CSV and HTML hold them without running them, and `merge`
//! reads them back byte for byte.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Output, Stdio};

use base64::Engine;

use crate::support::idgrep;

/// In the files as written (upper case: `audit` has a finding for every file).
const ID: &str = "01M592WYVRM6F3S97B8YS6VSXC";
/// As the outputs write it.
const CANONICAL: &str = "01m592wyvrm6f3s97b8ys6vsxc";

/// The names, in the order they are given on the command line (which is walk order).
const NAMES: [&[u8]; 5] = [
    b"=HYPERLINK(\"x\").log",
    b"bad\xffname.log",
    b"new\nline.log",
    b"esc\x1b]0;owned\x07\x1b[31mred.log",
    b"<img src=x onerror=alert(1)>.log",
];

/// Each name as the text views and CSV show it: a byte that is not UTF-8 as `\xNN`.
fn shown(name: &[u8]) -> String {
    let mut text = String::new();
    for chunk in name.utf8_chunks() {
        text.push_str(chunk.valid());
        for b in chunk.invalid() {
            text.push_str(&format!("\\x{b:02x}"));
        }
    }
    text
}

/// A directory holding a two-line log under each name.
fn logs() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in NAMES {
        std::fs::write(
            dir.path().join(OsStr::from_bytes(name)),
            format!(
                "2026-11-29T10:00:00Z order_id={ID} start\n2026-11-29T10:00:01Z order_id={ID} end\n"
            ),
        )
        .unwrap();
    }
    dir
}

/// idgrep run in `dir` with `args`, then `names`.
fn run_in(dir: &Path, args: &[&str], names: &[&[u8]]) -> Output {
    let mut all: Vec<OsString> = args.iter().map(OsString::from).collect();
    all.extend(names.iter().map(|n| OsStr::from_bytes(n).to_os_string()));
    let output = idgrep()
        .args(&all)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A JSON path read back: a string when the name is UTF-8 (never the bytes object then),
/// else the base64 of its bytes.
fn path_bytes(value: &serde_json::Value) -> Vec<u8> {
    match value.as_str() {
        Some(text) => text.as_bytes().to_vec(),
        None => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(
                    value["bytes"]
                        .as_str()
                        .expect("a string or {\"bytes\": base64}"),
                )
                .unwrap();
            assert!(
                std::str::from_utf8(&bytes).is_err(),
                "{value}: UTF-8 as bytes"
            );
            assert_eq!(value.as_object().unwrap().len(), 1, "{value}");
            bytes
        }
    }
}

/// Output for a terminal: no escape, bell or other control byte but the line ends (and the
/// tabs some views align with).
fn assert_drives_no_terminal(what: &str, out: &[u8]) {
    assert!(
        !out.iter()
            .any(|&b| (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f),
        "{what}: {}",
        String::from_utf8_lossy(out)
    );
}

/// JSON lines: each a whole object (a name's newline is `\n` inside its string).
fn json_lines(what: &str, out: &[u8]) -> Vec<serde_json::Value> {
    assert_drives_no_terminal(what, out);
    String::from_utf8(out.to_vec())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{what}: {e}: {l}")))
        .collect()
}

/// The base64 object of the one name that is not UTF-8, as it must appear in JSON.
fn bytes_object() -> String {
    format!(
        "{{\"bytes\":\"{}\"}}",
        base64::engine::general_purpose::STANDARD.encode(NAMES[1])
    )
}

/// A CSV cell that a spreadsheet would run as a formula.
fn runs_as_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

#[test]
fn ids_json_gives_each_name_exactly_and_csv_runs_none() {
    let dir = logs();
    let out = run_in(dir.path(), &["ids", "--json"], &NAMES);
    let rows = json_lines("ids --json", &out.stdout);
    assert_eq!(rows.len(), 1);
    let files: Vec<Vec<u8>> = rows[0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(path_bytes)
        .collect();
    assert_eq!(files, NAMES.map(<[u8]>::to_vec));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&bytes_object()));

    let out = run_in(dir.path(), &["ids", "--csv"], &NAMES);
    let mut csv = csv::Reader::from_reader(&out.stdout[..]);
    let header = csv.headers().unwrap().clone();
    let records: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    assert_eq!(
        records.len(),
        1,
        "one row: the newline of a name is written `\\x0a`"
    );
    let paths = &records[0][header.iter().position(|h| h == "paths").unwrap()];
    assert!(!runs_as_formula(paths), "{paths:?}");
    // `;`-separated, a `;`, `=` or `\` inside a name escaped with a `\`.
    let mut names = vec![String::new()];
    let mut chars = paths.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => names.last_mut().unwrap().push(chars.next().unwrap()),
            ';' => names.push(String::new()),
            c => names.last_mut().unwrap().push(c),
        }
    }
    // Control characters made visible, as the text views show them.
    let visible = NAMES.map(|name| {
        let mut escaped = Vec::new();
        idgrep::text::escape_into(&mut escaped, shown(name).as_bytes());
        String::from_utf8(escaped).unwrap()
    });
    assert_eq!(names, visible);
}

#[test]
fn audit_shows_each_name_escaped_and_gives_it_exactly_in_json() {
    let dir = logs();
    for name in NAMES {
        let out = run_in(dir.path(), &["audit", "--json"], &[name]);
        let report: serde_json::Value = json_lines("audit --json", &out.stdout).remove(0);
        let examples = report["rules"]["ulid-uppercase"]["examples"]
            .as_array()
            .unwrap();
        assert_eq!(examples.len(), 2, "{report}");
        for (line, example) in examples.iter().enumerate() {
            assert_eq!(path_bytes(&example["path"]), name);
            assert_eq!(example["line"], line + 1);
        }
        if std::str::from_utf8(name).is_err() {
            assert!(String::from_utf8_lossy(&out.stdout).contains(&bytes_object()));
        }

        let out = run_in(dir.path(), &["audit"], &[name]);
        assert_drives_no_terminal("audit", &out.stdout);
        let mut escaped = Vec::new();
        idgrep::text::escape_into(&mut escaped, shown(name).as_bytes());
        let text = String::from_utf8(out.stdout).unwrap();
        let escaped = String::from_utf8(escaped).unwrap();
        assert!(
            text.contains(&format!("{escaped}:1  {ID}  [order_id]")),
            "{text}"
        );
    }
}

#[test]
fn timeline_names_in_every_format() {
    let dir = logs();
    let ndjson = run_in(dir.path(), &["timeline", ID, "--format", "ndjson"], &NAMES);
    let lines = json_lines("timeline ndjson", &ndjson.stdout);
    let mut got: Vec<(Vec<u8>, u64)> = lines
        .iter()
        .map(|l| (path_bytes(&l["path"]), l["line"].as_u64().unwrap()))
        .collect();
    got.sort();
    let mut expected: Vec<(Vec<u8>, u64)> = NAMES
        .iter()
        .flat_map(|n| [(n.to_vec(), 1), (n.to_vec(), 2)])
        .collect();
    expected.sort();
    assert_eq!(got, expected);
    assert!(String::from_utf8_lossy(&ndjson.stdout).contains(&bytes_object()));

    let text = run_in(dir.path(), &["timeline", ID], &NAMES);
    assert_drives_no_terminal("timeline", &text.stdout);
    let text = String::from_utf8(text.stdout).unwrap();
    for name in NAMES {
        let mut escaped = Vec::new();
        idgrep::text::escape_into(&mut escaped, shown(name).as_bytes());
        let escaped = String::from_utf8(escaped).unwrap();
        assert!(text.contains(&format!("{escaped}:2")), "{escaped}\n{text}");
    }

    let csv = run_in(dir.path(), &["timeline", ID, "--format", "csv"], &NAMES);
    let mut reader = csv::Reader::from_reader(&csv.stdout[..]);
    let mut paths: Vec<String> = reader
        .records()
        .map(|r| r.unwrap()[3].to_string())
        .collect();
    assert_eq!(
        paths.len(),
        10,
        "a row per line: the newline of a name is written `\\x0a`"
    );
    assert!(paths.iter().all(|p| !runs_as_formula(p)), "{paths:?}");
    paths.sort();
    paths.dedup();
    let mut expected: Vec<String> = NAMES
        .iter()
        .map(|n| {
            // Control characters made visible, as the text views show them.
            let mut escaped = Vec::new();
            idgrep::text::escape_into(&mut escaped, shown(n).as_bytes());
            let name = String::from_utf8(escaped).unwrap();
            // A formula's cell gets a leading `'`.
            if runs_as_formula(&name) {
                format!("'{name}")
            } else {
                name
            }
        })
        .collect();
    expected.sort();
    assert_eq!(paths, expected);

    let html = run_in(dir.path(), &["timeline", ID, "--format", "html"], &NAMES);
    let html = String::from_utf8(html.stdout).unwrap();
    assert!(!html.contains("<img"), "a name became markup");
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;.log"));
    assert!(!html.contains('\x1b'));

    let md = run_in(dir.path(), &["timeline", ID, "--format", "md"], &NAMES);
    assert_drives_no_terminal("timeline md", &md.stdout);
    // Markdown punctuation backslash-escaped: a `<` is text, never a tag.
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(
        md.contains(r"\<img src\=x onerror\=alert\(1\)\>\.log"),
        "{md}"
    );
    assert!(
        md.match_indices('<').all(|(i, _)| md[..i].ends_with('\\')),
        "{md}"
    );

    let trace = run_in(dir.path(), &["timeline", ID, "--format", "trace"], &NAMES);
    let trace: serde_json::Value = serde_json::from_slice(&trace.stdout).unwrap();
    assert!(trace.is_object() || trace.is_array());
}

#[test]
fn search_json_gives_each_name_exactly_with_its_label() {
    let dir = logs();
    let out = run_in(dir.path(), &["--json", "--label", "h1", CANONICAL], &NAMES);
    let mut paths: Vec<Vec<u8>> = json_lines("search --json", &out.stdout)
        .iter()
        .map(|l| path_bytes(&l["path"]))
        .collect();
    paths.dedup();
    let labelled: Vec<Vec<u8>> = NAMES.iter().map(|n| [b"h1:", *n].concat()).collect();
    assert_eq!(paths, labelled);
    let text = run_in(dir.path(), &["-H", "--label", "h1", CANONICAL], &NAMES);
    assert_drives_no_terminal("search", &text.stdout);
    assert!(
        String::from_utf8(text.stdout)
            .unwrap()
            .contains("h1:bad\\xffname.log:")
    );
}

/// Each file's result on its own, merged, prints what one run over all of them prints: the
/// names come back byte for byte.
#[test]
fn merge_reads_every_name_back_exactly() {
    let dir = logs();
    let results = |args: &[&str]| -> Vec<OsString> {
        NAMES
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let out = run_in(dir.path(), args, &[name]);
                let result = format!("result{i}");
                std::fs::write(dir.path().join(&result), out.stdout).unwrap();
                OsString::from(result)
            })
            .collect()
    };
    let merged = |extra: &[&str], results: &[OsString]| -> Vec<u8> {
        let output = idgrep()
            .arg("merge")
            .args(extra)
            .args(results)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        output.stdout
    };
    let partials = results(&["ids", "--partial"]);
    for view in [&[][..], &["--json"], &["--csv"]] {
        let mut single = vec!["ids"];
        single.extend_from_slice(view);
        let expected = run_in(dir.path(), &single, &NAMES).stdout;
        assert_eq!(
            String::from_utf8_lossy(&merged(view, &partials)),
            String::from_utf8_lossy(&expected),
            "ids {view:?}"
        );
    }
    for producer in [
        &["--json", CANONICAL][..],
        &["timeline", ID, "--format", "ndjson"],
    ] {
        let expected = run_in(dir.path(), producer, &NAMES).stdout;
        assert!(String::from_utf8_lossy(&expected).contains(&bytes_object()));
        assert_eq!(
            String::from_utf8_lossy(&merged(&[], &results(producer))),
            String::from_utf8_lossy(&expected),
            "{producer:?}"
        );
    }
}
