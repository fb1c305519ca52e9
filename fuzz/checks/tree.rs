//! `ids` and `audit` over a small tree made from fuzzer bytes (up to four files, some in a
//! subdirectory, IDs from a pool of three planted in any form): no panic, exit 0 or 1, no
//! error line, and the counts equal a naive count over the oracle's tokens. `ids --all-hex`:
//! per ID, its occurrences, lines and files; `audit`, which leaves out a 32-hex token whose
//! value is written in no other form anywhere (a trace ID or digest) unless it is the nil or
//! max value: the occurrences, the lines with an ID token, the distinct IDs and the 32-hex
//! tokens left out. A trace or span ID that `ids` reads from a field the bytes happen to
//! spell is outside the oracle, and only its kind is checked.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::PathBuf;

use idgrep::id::{self, Id, Shape};

use super::{Bytes, Output, Run, lines, oracle_tokens, plant};

/// Per ID value: occurrences, (file, line) pairs, files.
#[derive(Default, Debug, PartialEq, Eq)]
struct Count {
    occurrences: u64,
    lines: HashSet<(usize, u64)>,
    files: HashSet<usize>,
}

pub fn check(data: &[u8], run: Run) {
    let mut input = Bytes::new(data);
    let threads = 1 + input.u8() % 2;
    let pool: Vec<Id> = (0..3).map(|_| Id(input.u128())).collect();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut paths = Vec::new();
    let mut counts: HashMap<u128, Count> = HashMap::new();
    // Every counted token: its value, whether it is 32 hex digits, its file and line.
    let mut written: Vec<(u128, bool, usize, u64)> = Vec::new();
    for (file, raw) in input.rest().split(|&b| b == 0xFE).take(4).enumerate() {
        // A fixed first byte: no compression magic or byte-order mark.
        let mut content = b"> ".to_vec();
        content.extend(plant(raw, &pool));
        let path: PathBuf = if file % 2 == 1 {
            dir.path().join("sub").join(format!("{file}.log"))
        } else {
            dir.path().join(format!("{file}.log"))
        };
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a directory");
        std::fs::write(&path, &content).expect("written");
        paths.push(path);
        let tokens = oracle_tokens(&content);
        for (no, start, line) in lines(&content) {
            let end = start + line.len();
            for t in tokens.iter().filter(|t| t.start >= start && t.end <= end) {
                if super::is_number(t, &content) {
                    continue;
                }
                written.push((t.id.0, t.shape == Shape::UuidUndashed, file, no));
                let count = counts.entry(t.id.0).or_default();
                count.occurrences += 1;
                count.lines.insert((file, no));
                count.files.insert(file);
            }
        }
    }
    let root = dir.path().as_os_str().to_owned();
    let args = |words: &[&str]| -> Vec<OsString> {
        let mut v: Vec<OsString> = words.iter().map(OsString::from).collect();
        v.push(format!("-j{threads}").into());
        v.push(root.clone());
        v
    };

    let ids = run(&args(&["ids", "--json", "--all-hex", "-a"]));
    let listing: Vec<&[u8]> = ids
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    // Found: any ID listed, the oracle's or a trace the bytes spell under a trace key (every
    // one of the oracle's is listed, as checked below).
    clean(&ids, !listing.is_empty(), "ids");
    let mut seen = 0;
    for line in listing {
        let entry: serde_json::Value = serde_json::from_slice(line).expect("a JSON line");
        let text = entry["id"].as_str().expect("an id");
        let value = id::parse(text).expect("an ID").id.0;
        let Some(count) = counts.get(&value) else {
            // Random bytes can spell a trace or span field (`x_trace-id=12`), whose decimal
            // or 16 hex `ids` counts and the token oracle does not model; tests/ids_traces.rs
            // checks those. Anything else listed must be the oracle's.
            assert!(
                matches!(entry["kind"].as_str(), Some("trace" | "span")),
                "ids lists {text}, which the oracle did not find"
            );
            continue;
        };
        assert_eq!(entry["occurrences"], count.occurrences, "{text}");
        assert_eq!(entry["lines"], count.lines.len() as u64, "{text}");
        let files = entry["files"].as_array().expect("files");
        assert_eq!(files.len(), count.files.len(), "{text}");
        seen += 1;
    }
    assert_eq!(seen, counts.len(), "IDs listed");

    let audit = run(&args(&["audit", "--json", "-a"]));
    clean(&audit, true, "audit");
    let report: serde_json::Value = serde_json::from_slice(&audit.stdout).expect("a JSON report");
    let written_otherwise: HashSet<u128> = written
        .iter()
        .filter(|&&(_, hex, _, _)| !hex)
        .map(|&(value, _, _, _)| value)
        .collect();
    // The nil and max values count in any form: they are `nil-id`'s (docs/audit.md).
    let counted: Vec<_> = written
        .iter()
        .filter(|&&(value, hex, _, _)| {
            !hex || written_otherwise.contains(&value) || Id(value).is_nil_or_max()
        })
        .collect();
    // A line counts with any ID token on it, a 32-hex one left out too.
    let id_lines: HashSet<(usize, u64)> = written.iter().map(|t| (t.2, t.3)).collect();
    let distinct: HashSet<u128> = counted.iter().map(|t| t.0).collect();
    let totals = &report["totals"];
    assert_eq!(totals["inputs"], paths.len() as u64);
    assert_eq!(
        totals["occurrences"],
        counted.len() as u64,
        "audit occurrences"
    );
    assert_eq!(
        totals["undashed_ignored"],
        (written.len() - counted.len()) as u64,
        "audit 32-hex tokens left out"
    );
    assert_eq!(
        totals["lines_with_ids"],
        id_lines.len() as u64,
        "audit lines with IDs"
    );
    assert_eq!(
        totals["distinct_ids"],
        distinct.len() as u64,
        "audit distinct IDs"
    );
}

/// A run that found what it should, with nothing on standard error. `audit` exits 1 when it
/// found nothing at all, so its status is only held to "no error".
fn clean(out: &Output, found: bool, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{what}: {stderr}");
    if what == "ids" {
        assert_eq!(out.status, if found { 0 } else { 1 }, "{what}");
    } else {
        assert_ne!(out.status, 2, "{what}");
    }
}
