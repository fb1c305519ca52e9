//! `idgrep query`: each engine's query, run in that engine where one installs here, selects
//! exactly the lines idgrep prints. ClickHouse SQL runs in chdb (RE2), the regex in GNU grep's
//! PCRE and in chdb's RE2; the Elasticsearch DSL and LogQL are checked against their documented
//! grammar.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::support::{Rng, decompressed, files_under, idgrep, testdata};

/// Every line of the testdata files whose contents the tests can read without idgrep (plain,
/// gzip, zstd), as idgrep reads them: split at `\n`, without a trailing `\r` or a leading BOM.
struct Corpus {
    files: Vec<PathBuf>,
    /// (file, 1-based line number, text), in file order.
    lines: Vec<(String, usize, Vec<u8>)>,
}

fn corpus() -> Corpus {
    let skip = ["xz", "bz2", "bin"];
    let files: Vec<PathBuf> = files_under(&testdata(""))
        .into_iter()
        .filter(|p| {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            !skip.contains(&ext) && !p.ends_with("corrupt.gz")
        })
        .collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let files: Vec<PathBuf> = files
        .iter()
        .map(|f| f.strip_prefix(&root).unwrap().to_path_buf())
        .collect();
    let mut lines = Vec::new();
    for file in &files {
        let name = file.display().to_string();
        let text = decompressed(&root.join(file));
        let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&text);
        let body = text.strip_suffix(b"\n").unwrap_or(text);
        for (i, line) in body.split(|&b| b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            lines.push((name.clone(), i + 1, line.to_vec()));
        }
    }
    Corpus { files, lines }
}

/// The IDs to query: every ID `ids --all-hex` finds in testdata, and a few that are nowhere.
/// Trace and span IDs come last, from `trace_from` on: idgrep also finds them as values of
/// trace and span fields (the low 64 bits, decimals), which no regex can tell from other
/// numbers, so a query's lines are only among idgrep's (docs/query.md).
fn query_ids() -> (Vec<String>, usize) {
    let out = idgrep()
        .args(["ids", "--all-hex", "--json", "testdata"])
        .output()
        .unwrap();
    let (mut ids, mut traces) = (Vec::new(), Vec::new());
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let entry: Value = serde_json::from_str(line).unwrap();
        let id = entry["id"].as_str().unwrap().to_string();
        match entry["kind"].as_str().unwrap() {
            "trace" | "span" => traces.push(id),
            _ => ids.push(id),
        }
    }
    assert!(ids.len() > 50, "testdata holds many IDs: {}", ids.len());
    assert!(
        traces.len() > 10,
        "testdata holds trace IDs: {}",
        traces.len()
    );
    let mut rng = Rng(5);
    for _ in 0..3 {
        ids.push(format!("{:032x}", rng.u128()));
    }
    let trace_from = ids.len();
    ids.extend(traces);
    (ids, trace_from)
}

/// Checks a query's lines against idgrep's: the same, or for the `i`th ID past `trace_from`
/// among them.
fn assert_lines(
    i: usize,
    trace_from: usize,
    got: &BTreeSet<usize>,
    expected: &BTreeSet<usize>,
    what: &str,
) {
    if i < trace_from {
        assert_eq!(got, expected, "{what}");
    } else {
        assert!(
            got.is_subset(expected),
            "{what}: {got:?} not among {expected:?}"
        );
    }
}

/// For each ID, the corpus lines (indexes into `corpus.lines`) idgrep's search prints.
fn idgrep_lines(corpus: &Corpus, ids: &[String]) -> Vec<BTreeSet<usize>> {
    let index: BTreeMap<(String, usize), usize> = corpus
        .lines
        .iter()
        .enumerate()
        .map(|(n, (file, line, _))| ((file.clone(), *line), n))
        .collect();
    let mut found = Vec::new();
    for id in ids {
        let out = idgrep()
            .args(["--json", "-e", id])
            .args(&corpus.files)
            .output()
            .unwrap();
        let mut lines = BTreeSet::new();
        for row in String::from_utf8(out.stdout).unwrap().lines() {
            let row: Value = serde_json::from_str(row).unwrap();
            let key = (
                row["path"].as_str().unwrap().to_string(),
                row["line"].as_u64().unwrap() as usize,
            );
            lines.insert(index[&key]);
        }
        found.push(lines);
    }
    found
}

fn query(args: &[&str]) -> String {
    let out = idgrep().arg("query").args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_regex_in_pcre_finds_the_lines_idgrep_prints() {
    let corpus = corpus();
    let (ids, trace_from) = query_ids();
    let expected = idgrep_lines(&corpus, &ids);
    let dir = tempfile::tempdir().unwrap();
    let all = dir.path().join("lines");
    let mut text = Vec::new();
    for (_, _, line) in &corpus.lines {
        text.extend_from_slice(line);
        text.push(b'\n');
    }
    std::fs::write(&all, text).unwrap();
    let mut seen = 0;
    for (i, (id, expected)) in ids.iter().zip(&expected).enumerate() {
        let regex = query(&[id, "--for", "regex"]);
        // GNU grep's -P is PCRE2; in the C locale it reads bytes, as idgrep does.
        let out = Command::new("grep")
            .env("LC_ALL", "C")
            .args(["-P", "-a", "-n", "-e", regex.trim_end()])
            .arg(&all)
            .output()
            .expect("GNU grep with PCRE (-P) is needed");
        assert!(out.status.code().unwrap() < 2, "grep -P: {out:?}");
        let got: BTreeSet<usize> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.split(':').next().unwrap().parse::<usize>().unwrap() - 1)
            .collect();
        assert_lines(i, trace_from, &got, expected, &format!("{id}: {regex}"));
        seen += got.len();
    }
    assert!(seen > 300, "the IDs match many lines: {seen}");
}

#[test]
fn the_clickhouse_statement_in_chdb_selects_the_lines_idgrep_prints() {
    let corpus = corpus();
    let (ids, trace_from) = query_ids();
    let expected = idgrep_lines(&corpus, &ids);
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("lines.tsv");
    let mut tsv = Vec::new();
    for (n, (_, _, line)) in corpus.lines.iter().enumerate() {
        tsv.extend_from_slice(format!("{n}\t").as_bytes());
        for &b in line {
            match b {
                b'\\' => tsv.extend_from_slice(b"\\\\"),
                b'\t' => tsv.extend_from_slice(b"\\t"),
                b'\r' => tsv.extend_from_slice(b"\\r"),
                _ => tsv.push(b),
            }
        }
        tsv.push(b'\n');
    }
    std::fs::write(&table, tsv).unwrap();
    // Each ID's statement, and the plain regex run by ClickHouse's `match`, which is RE2 in
    // UTF-8 mode: there the line must be valid UTF-8 (a Latin-1 byte beside an ID in
    // worker.log matches no class otherwise), as docs/query.md says of RE2.
    let mut statements = String::new();
    for id in &ids {
        let sql = query(&[
            id,
            "--for",
            "clickhouse",
            "--table",
            "logs",
            "--column",
            "body",
        ]);
        assert!(sql.starts_with("SELECT * FROM logs WHERE "), "{sql}");
        statements.push_str(&sql);
        let regex = query(&[id, "--for", "regex"]);
        statements.push_str(&format!(
            "SELECT * FROM logs WHERE match(toValidUTF8(body), '{}')\n",
            regex.trim_end().replace('\\', "\\\\").replace('\'', "\\'")
        ));
    }
    let sql_file = dir.path().join("statements.sql");
    std::fs::write(&sql_file, statements).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/engines/chdb_query.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&table)
        .arg(&sql_file)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "chdb (PyPI: chdb; scripts/test installs it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut rows = stdout.lines();
    let header: Value = serde_json::from_str(rows.next().unwrap()).unwrap();
    assert_eq!(
        header["rows"],
        corpus.lines.len(),
        "every line loaded: {header}"
    );
    for (i, (id, expected)) in ids.iter().zip(&expected).enumerate() {
        for what in ["statement", "regex in match()"] {
            let got: BTreeSet<usize> = serde_json::from_str(rows.next().unwrap()).unwrap();
            assert_lines(i, trace_from, &got, expected, &format!("{id}: the {what}"));
        }
    }
}

#[test]
fn logql_is_a_stream_selector_and_a_regex_line_filter() {
    let id = "01m8kbygm5ng2pshny302zvwbs";
    let regex = query(&[id, "--for", "regex"]);
    for (args, selector) in [
        (vec![], "{job=~\".+\"}"),
        (
            vec!["--selector", "{app=\"api\", env!=\"dev\"}"],
            "{app=\"api\", env!=\"dev\"}",
        ),
    ] {
        let mut all = vec![id, "--for", "logql"];
        all.extend(args);
        let logql = query(&all);
        // LogQL: `{label op "value", ...}` then a line filter `|~` with a string; a
        // backquoted string is raw, so the regex goes in as it is.
        let (stream, filter) = logql.trim_end().split_once(" |~ ").unwrap();
        assert_eq!(stream, selector);
        assert!(filter.starts_with('`') && filter.ends_with('`') && filter.len() > 2);
        assert_eq!(&filter[1..filter.len() - 1], regex.trim_end());
        assert!(!regex.contains('`'));
    }
}

/// The keys the Elasticsearch query DSL documents for each query this command writes.
fn check_dsl(query: &Value, field: &str) {
    let object = query.as_object().expect("a query is an object");
    assert_eq!(object.len(), 1, "one query type per object: {query}");
    let (kind, body) = object.iter().next().unwrap();
    match kind.as_str() {
        "bool" => {
            let body = body.as_object().unwrap();
            assert!(
                body.keys()
                    .all(|k| ["should", "minimum_should_match"].contains(&k.as_str()))
            );
            assert_eq!(body["minimum_should_match"], 1);
            let should = body["should"].as_array().unwrap();
            assert!(!should.is_empty());
            should.iter().for_each(|q| check_dsl(q, field));
        }
        "regexp" => {
            let params = body[field].as_object().expect("regexp { field: { ... } }");
            assert!(
                params
                    .keys()
                    .all(|k| ["value", "case_insensitive"].contains(&k.as_str()))
            );
            assert!(params["value"].is_string() && params["case_insensitive"] == true);
        }
        "span_near" => {
            let clauses = body["clauses"].as_array().unwrap();
            assert_eq!(body["slop"], 0);
            assert_eq!(body["in_order"], true);
            for clause in clauses {
                let (k, inner) = clause.as_object().unwrap().iter().next().unwrap();
                match k.as_str() {
                    "span_term" => assert!(inner[field].is_string()),
                    "span_multi" => check_dsl(&inner["match"], field),
                    other => panic!("not a span query: {other}"),
                }
            }
        }
        other => panic!("unexpected query type {other}"),
    }
}

#[test]
fn the_elasticsearch_request_is_json_in_the_documented_grammar() {
    let ids = [
        "01m8kbygm5ng2pshny302zvwbs",
        "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
    ];
    for engine in ["elasticsearch", "opensearch"] {
        let text = query(&[ids[0], ids[1], "--for", engine, "--field", "log.message"]);
        let body: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(body.as_object().unwrap().len(), 1);
        check_dsl(&body["query"], "log.message");
        assert_eq!(body["query"]["bool"]["should"].as_array().unwrap().len(), 4);
        // The dashed form as the standard analyzer's five lowercase terms.
        let span = &body["query"]["bool"]["should"][1]["span_near"]["clauses"];
        assert_eq!(span[1]["span_term"]["log.message"], "79b0");
    }
}

#[test]
fn bad_arguments_exit_2_naming_what_is_accepted() {
    for (args, says) in [
        (
            vec!["01m8kbygm5ng2pshny302zvwbs"],
            "--for ENGINE (accepted: regex, logql",
        ),
        (
            vec!["01m8kbygm5ng2pshny302zvwbs", "--for", "splunk"],
            "accepted: regex, logql",
        ),
        (vec!["--for", "regex"], "give one or more IDs"),
        (
            vec!["01m8kbygm5ng2pshny302zvwbL", "--for", "regex"],
            "accepted forms",
        ),
        (
            vec![
                "01m8kbygm5ng2pshny302zvwbs",
                "--for",
                "regex",
                "--table",
                "t",
            ],
            "--table applies only to --for clickhouse",
        ),
        (
            vec![
                "01m8kbygm5ng2pshny302zvwbs",
                "--for",
                "logql",
                "--field",
                "m",
            ],
            "applies only to --for clickhouse or elasticsearch",
        ),
    ] {
        let out = idgrep().arg("query").args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn ids_come_from_a_file_too() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("ids.txt");
    std::fs::write(
        &list,
        "# incident 4411\n01m8kbygm5ng2pshny302zvwbs\n\n017F22E2-79B0-7CC3-98C4-DC0C0C07398F\n",
    )
    .unwrap();
    let from_file = query(&["-f", list.to_str().unwrap(), "--for", "regex"]);
    let from_args = query(&[
        "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
        "01m8kbygm5ng2pshny302zvwbs",
        "--for",
        "regex",
    ]);
    assert_eq!(from_file, from_args);
    assert!(from_file.contains("017f22e279b07cc398c4dc0c0c07398f|"));
}
