//! The committed fuzz corpora (`fuzz/corpus/TARGET/`) replayed through the fuzz targets' own
//! checks (`fuzz/checks/`) on stable Rust: every input a fuzzer found interesting, and every
//! crash it ever found (kept in the corpus once fixed), holds to the same properties in CI.
//! The scanner's check runs every SIMD level the CPU has; `ids`, `audit` and the index run
//! as the built binary here (in the fuzzers, in their own process).

use std::ffi::OsString;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

#[path = "../fuzz/checks/mod.rs"]
mod checks;

use idgrep::scan::{Level, Matcher};

use crate::support::idgrep;

/// The inputs of one target's corpus, by name; a target without inputs fails the test.
fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut inputs: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "{}: no inputs", dir.display());
    inputs
}

/// Runs `check` on every input of `target`'s corpus; a failure names the input.
fn replay(target: &str, mut check: impl FnMut(&[u8])) {
    let inputs = corpus(target);
    for (name, data) in &inputs {
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| check(data))) {
            let why = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("fuzz/corpus/{target}/{name}: {why}");
        }
    }
    eprintln!("{target}: {} inputs replayed", inputs.len());
}

/// The binary, as the tree and index checks run a command.
fn run_binary(args: &[OsString]) -> checks::Output {
    let out = idgrep().args(args).output().unwrap();
    checks::Output {
        stdout: out.stdout,
        stderr: out.stderr,
        status: out.status.code().expect("an exit status, not a signal"),
    }
}

#[test]
fn id_parse_corpus() {
    replay("id_parse", checks::id_parse::check);
}

/// The scanner's check runs each level the CPU has; a level `IDGREP_REQUIRE_SIMD` names
/// (scripts/test sets it from the CPU's flags) that cannot run fails the test.
#[test]
fn scanner_corpus_at_every_simd_level() {
    let ran: Vec<&str> = Level::ALL
        .into_iter()
        .filter(|&level| Matcher::every_id().at_level(level).is_some())
        .map(Level::name)
        .collect();
    eprintln!("scanner corpus: SIMD levels {}", ran.join(", "));
    if let Ok(required) = std::env::var("IDGREP_REQUIRE_SIMD") {
        for name in required.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            assert!(
                Level::ALL.iter().any(|l| l.name() == name),
                "IDGREP_REQUIRE_SIMD: {name:?} is no level"
            );
            assert!(
                ran.contains(&name),
                "IDGREP_REQUIRE_SIMD lists {name}, which cannot run here"
            );
        }
    }
    replay("scanner", checks::scanner::check);
}

#[test]
fn record_corpus() {
    replay("record", checks::record::check);
}

#[test]
fn input_corpus() {
    replay("input", checks::input::check);
}

#[test]
fn tree_corpus_ids_and_audit() {
    replay("tree", |data| checks::tree::check(data, &mut run_binary));
}

#[test]
fn index_corpus() {
    replay("index", |data| checks::index::check(data, &mut run_binary));
}
