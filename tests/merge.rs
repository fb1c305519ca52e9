//! `idgrep merge` and `--label`: results of runs over disjoint parts of the inputs, merged,
//! print byte for byte what one run over all of them prints (the oracle), for every output
//! mode, on the bundled logs and on generated trees; results that cannot be merged are
//! reported with their path.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{Rng, files_under, run, run_with_input, testdata};

/// Runs idgrep with `args`, standard input empty.
fn code(output: &Output) -> i32 {
    output.status.code().unwrap()
}

/// Splits `files` (in walk order) into `parts` runs of consecutive files, none empty.
fn split(files: &[PathBuf], parts: usize, rng: &mut Rng) -> Vec<Vec<PathBuf>> {
    let mut cuts: Vec<usize> = Vec::new();
    while cuts.len() < parts - 1 {
        let cut = 1 + rng.below(files.len() - 1);
        if !cuts.contains(&cut) {
            cuts.push(cut);
        }
    }
    cuts.sort_unstable();
    cuts.push(files.len());
    let mut start = 0;
    cuts.iter()
        .map(|&end| {
            let part = files[start..end].to_vec();
            start = end;
            part
        })
        .collect()
}

fn strs(paths: &[PathBuf]) -> Vec<&str> {
    paths.iter().map(|p| p.to_str().unwrap()).collect()
}

/// Each part's result of `producer` (its args before the paths), written to a file in `dir`.
fn results(dir: &Path, tag: &str, producer: &[&str], parts: &[Vec<PathBuf>]) -> Vec<String> {
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let mut args = producer.to_vec();
            args.extend(strs(part));
            let output = run(&args);
            assert!(
                code(&output) < 2,
                "{args:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            let path = dir.join(format!("{tag}{i}"));
            std::fs::write(&path, &output.stdout).unwrap();
            path.to_str().unwrap().to_string()
        })
        .collect()
}

/// The ids views compared: every format, sort key, and each filter.
const IDS_VIEWS: &[&[&str]] = &[
    &[],
    &["--json"],
    &["--csv"],
    &["--sort", "id", "--top", "7"],
    &["--sort", "created", "--csv"],
    &["--sort", "first", "--json"],
    &["--sort", "files", "--top", "3"],
    &["--kind", "uuid7", "--json"],
    &["--kind", "ulid", "--min-lines", "2"],
    &["--field", "order_id", "--json"],
    &["--all-hex", "--csv"],
    &["--kind", "max"],
];

/// Every output mode over `root` (whose files are `files`), split into `parts` parts:
/// merged, each equals the single run, stdout byte for byte, and the exit status.
fn assert_merges(root: &Path, files: &[PathBuf], id: &str, parts: usize, rng: &mut Rng) {
    let dir = tempfile::tempdir().unwrap();
    let split = split(files, parts, rng);
    let root = root.to_str().unwrap();
    let check = |what: &str, single: &[&str], merge: Vec<String>| {
        let expected = run(single);
        let mut args = vec!["merge".to_string()];
        args.extend(merge);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let merged = run(&args);
        assert_eq!(
            String::from_utf8_lossy(&merged.stdout),
            String::from_utf8_lossy(&expected.stdout),
            "{what}: {parts} parts {split:?}\n{}",
            String::from_utf8_lossy(&merged.stderr)
        );
        assert_eq!(code(&merged), code(&expected), "{what}: exit status");
        assert!(
            !expected.stdout.is_empty() || code(&expected) == 1,
            "{what}"
        );
    };

    let partials = results(dir.path(), "ids", &["ids", "--partial"], &split);
    for view in IDS_VIEWS {
        let mut single = vec!["ids"];
        single.extend_from_slice(view);
        single.push(root);
        let mut merge: Vec<String> = view.iter().map(|s| s.to_string()).collect();
        merge.extend(partials.iter().cloned());
        check(&format!("ids {view:?}"), &single, merge);
    }
    for producer in [&["--json", id][..], &["--json", "-C", "1", id]] {
        let parts = results(dir.path(), "search", producer, &split);
        let mut single = producer.to_vec();
        single.push(root);
        check(&format!("search {producer:?}"), &single, parts);
    }
    let producer = ["timeline", id, "--format", "ndjson"];
    let parts = results(dir.path(), "timeline", &producer, &split);
    let mut single = producer.to_vec();
    single.push(root);
    check("timeline", &single, parts);
}

/// Every way to cut the bundled incident in two, and random cuts into three and into one part
/// per file.
#[test]
fn merged_results_of_the_bundled_logs_equal_one_run() {
    let (root, files) = bundled("logs");
    assert!(files.len() >= 7);
    let mut rng = Rng(22);
    let id = "01m8kbygm5ng2pshny302zvwbs";
    for _ in 0..2 {
        assert_merges(&root, &files, id, 2, &mut rng);
    }
    assert_merges(&root, &files, id, 3, &mut rng);
    assert_merges(&root, &files, id, files.len(), &mut rng);
}

/// Trace logs split in parts: a Datadog decimal in one part joins the trace another part
/// writes whole, as in one run.
#[test]
fn merged_results_of_the_trace_logs_equal_one_run() {
    let (root, files) = bundled("traces");
    let mut rng = Rng(23);
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    for parts in [2, 3, files.len()] {
        assert_merges(&root, &files, trace, parts, &mut rng);
    }
}

/// The files of `testdata/<dir>`, as paths from the crate's root, and that root.
fn bundled(dir: &str) -> (PathBuf, Vec<PathBuf>) {
    let root = Path::new("testdata").join(dir);
    let files = files_under(&testdata(dir))
        .iter()
        .map(|f| root.join(f.strip_prefix(testdata(dir)).unwrap()))
        .collect();
    (root, files)
}

/// A generated tree where a merge has work to do: a value written only undashed in one part
/// and dashed in another (counted only because of the other part), microsecond times in one
/// part and milliseconds in another (the timeline shows all to the microsecond), a field name
/// that is not UTF-8, compressed files, and one hot ID across many files.
#[test]
fn merged_results_of_generated_trees_equal_one_run() {
    for seed in [1, 2] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("logs");
        let mut rng = Rng(seed);
        let hot = 0x0190_0000_0000_7000_8000_0000_0000_0001u128 | (rng.u128() & 0xffff_ffff);
        let shared_hex = rng.u128();
        let pool: Vec<u128> = (0..40).map(|_| rng.u128()).collect();
        for f in 0..12 {
            let path = root
                .join(format!("svc{}", f % 4))
                .join(format!("app{f}.log"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let mut text = Vec::new();
            for line in 0..(20 + rng.below(60)) {
                let id = if rng.below(4) == 0 {
                    hot
                } else {
                    *rng.pick(&pool)
                };
                let written = match rng.below(6) {
                    0 => ulid::Ulid(id).to_string().to_lowercase(),
                    1 => ulid::Ulid(id).to_string(),
                    2 => uuid::Uuid::from_u128(id).to_string(),
                    3 => format!("{{{}}}", uuid::Uuid::from_u128(id)),
                    4 => uuid::Uuid::from_u128(id).simple().to_string(),
                    _ => format!("urn:uuid:{}", uuid::Uuid::from_u128(id)),
                };
                // Microseconds in the first files only.
                let frac = if f < 4 {
                    format!("{:06}", rng.below(1_000_000))
                } else {
                    format!("{:03}", rng.below(1000))
                };
                let second = (f * 7 + line) % 60;
                match rng.below(3) {
                    0 => writeln!(
                        text,
                        r#"{{"ts":"2026-11-29T10:{:02}:{second:02}.{frac}Z","order_id":"{written}","n":{line}}}"#,
                        line % 60
                    ),
                    1 => writeln!(
                        text,
                        "ts=2026-11-29T10:{:02}:{second:02}.{frac}Z level=info k\u{e9}y={written}",
                        line % 60
                    ),
                    _ => writeln!(text, "no time here {written} trailing"),
                }
                .unwrap();
                if rng.below(10) == 0 {
                    text.extend_from_slice(b"bad\xffname=");
                    text.extend_from_slice(ulid::Ulid(id).to_string().as_bytes());
                    text.push(b'\n');
                }
            }
            // The shared value: undashed in the first file, dashed in the last only.
            if f == 0 {
                writeln!(
                    text,
                    "digest {}",
                    uuid::Uuid::from_u128(shared_hex).simple()
                )
                .unwrap();
            }
            if f == 11 {
                writeln!(text, "later {}", uuid::Uuid::from_u128(shared_hex)).unwrap();
            }
            if f % 5 == 3 {
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), Default::default());
                gz.write_all(&text).unwrap();
                text = gz.finish().unwrap();
            }
            std::fs::write(&path, text).unwrap();
        }
        let files = files_under(&root);
        let hot = ulid::Ulid(hot).to_string().to_lowercase();
        for parts in [2, 3, 5] {
            assert_merges(&root, &files, &hot, parts, &mut rng);
        }
    }
}

/// `--label` names standard input: bytes streamed in under their path's name give the result
/// of a run over the path (here a compressed file), so a merge of streamed parts is exact;
/// with paths, the label prefixes each one.
#[test]
fn label_names_standard_input_and_prefixes_paths() {
    let id = "01m8kbygm5ng2pshny302zvwbs";
    let file = "testdata/logs/worker/worker.log.1.gz";
    let bytes = std::fs::read(testdata("logs/worker/worker.log.1.gz")).unwrap();
    let piped = |args: &[&str]| run_with_input(args, &bytes);
    for args in [
        &["--json", id][..],
        &["ids", "--partial"],
        &["timeline", id, "--format", "ndjson"],
    ] {
        let mut by_path = args.to_vec();
        by_path.push(file);
        let expected = run(&by_path);
        let mut streamed = args.to_vec();
        streamed.extend(["--label", file, "-"]);
        let got = piped(&streamed);
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&expected.stdout),
            "{args:?}"
        );
        assert!(!got.stdout.is_empty(), "{args:?}");
    }
    let text = run(&["-H", id, "--label", "h1", "testdata/logs/api/api.jsonl"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.lines()
            .all(|l| l.starts_with("h1:testdata/logs/api/api.jsonl:")),
        "{text}"
    );
    let bad = run(&["--label", "", id, "testdata/logs"]);
    assert_eq!(code(&bad), 2);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--label"));
}

/// Results that cannot be merged are reported as `idgrep: PATH: reason` and left out, the
/// rest is merged, and the exit status is 2; flags that do not apply are argument errors.
#[test]
fn bad_results_are_reported_with_their_path() {
    let dir = tempfile::tempdir().unwrap();
    let id = "01m8kbygm5ng2pshny302zvwbs";
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_string()
    };
    let good = write(
        "good",
        &run(&["ids", "--partial", "testdata/logs/api"]).stdout,
    );
    let alone = run(&["merge", &good]);
    assert_eq!(code(&alone), 0);
    let partial = run(&["ids", "--partial", "testdata/logs/billing"]).stdout;
    let cut = write("cut", &partial[..partial.len() - 20]);
    let public = write(
        "public",
        &run(&["ids", "--json", "testdata/logs/billing"]).stdout,
    );
    let search = write(
        "search",
        &run(&["--json", id, "testdata/logs/billing"]).stdout,
    );
    let text = write("text", b"testdata/logs/x.log:1:hello\n");
    let missing = dir.path().join("missing").to_str().unwrap().to_string();
    // Partials that parse but cannot be the counts of a scan, or of another version.
    let header = r#"{"idgrep_partial":"ids","version":2,"inputs":["x.log"]}"#;
    let record = |occurrences: u32, file: u32| {
        format!(
            r#"{{"value":"01a226bf-4285-ac05-6cc6-be1805fdf179","lines":1,"occurrences":{occurrences},"files":[{file}],"fields":[],"forms":{{"ulid_lower":1}},"first_ms":null,"last_ms":null}}"#
        )
    };
    let uneven = write("uneven", format!("{header}\n{}\n", record(2, 0)).as_bytes());
    let outside = write(
        "outside",
        format!("{header}\n{}\n", record(1, 1)).as_bytes(),
    );
    let newer = write(
        "newer",
        format!("{}\n{}\n", header.replace(":2,", ":3,"), record(1, 0)).as_bytes(),
    );
    let cases = [
        (&uneven, "line 2: the forms do not add up"),
        (&outside, "line 2: file 1 is not among the 1 inputs"),
        (&newer, "version 3"),
        (&cut, "line"),
        (&public, "--partial"),
        (&search, "one kind"),
        (&text, "not JSON"),
        (&missing, "no such file"),
    ];
    for (bad, reason) in cases {
        let merged = run(&["merge", &good, bad]);
        let stderr = String::from_utf8_lossy(&merged.stderr);
        assert_eq!(code(&merged), 2, "{bad}: {stderr}");
        assert!(stderr.starts_with(&format!("idgrep: {bad}: ")), "{stderr}");
        assert!(stderr.contains(reason), "{reason}: {stderr}");
        assert_eq!(
            merged.stdout, alone.stdout,
            "{bad}: the good result is still merged"
        );
    }
    // Search results take no list flag; a partial run takes no view flag.
    let searched = run(&["merge", "--top", "3", &search]);
    assert_eq!(code(&searched), 2);
    assert!(String::from_utf8_lossy(&searched.stderr).contains("--top"));
    let both = run(&["ids", "--partial", "--json", "testdata/logs"]);
    assert_eq!(code(&both), 2);
    // Results that found nothing merge into nothing, exit 1.
    let empty = write("empty", b"");
    let nothing = run(&["merge", &empty, &empty]);
    assert_eq!((code(&nothing), nothing.stdout.len()), (1, 0));
}
