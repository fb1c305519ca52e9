//! The index reader: a search with an index answers exactly as one without it, whatever has
//! happened to the index or the logs since it was built. Over a small tree made from fuzzer
//! bytes (files repeated to span several blocks, IDs from a pool of three planted in
//! any form), an index is built, then damaged as the input says: the manifest replaced by
//! fuzzer bytes, bytes of the manifest or of a segment flipped, one of them cut short, a log grown or rewritten in place. Each pool ID is then searched with the index and with
//! `--no-index`: the same output and status, byte for byte, no panic, and nothing on standard
//! error but the one warning that the index is not used. With the damage byte's high bit set,
//! each file also writes the pool's trace spellings (X-Ray, 16 hex under a trace key, the
//! decimal under a Datadog key, a span field), and each ID is also asked as a 32-hex trace,
//! an X-Ray ID and a span, whose keys the index files apart.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use idgrep::id::{Id, Written, parse};

use super::{Bytes, Output, Run, plant};

pub fn check(data: &[u8], run: Run) {
    let mut input = Bytes::new(data);
    let damage = input.u8();
    let repeat = 1 + usize::from(input.u8() % 24);
    let edits: Vec<(usize, u8)> = (0..input.u8() % 8)
        .map(|_| (usize::from(input.u16()), input.u8().max(1)))
        .collect();
    let pool: Vec<Id> = (0..3).map(|_| Id(input.u128())).collect();
    let (tree, raw) = split_once(input.rest(), 0xFD);

    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = dir.path().join("logs");
    let base = dir.path().join("index");
    let mut logs = Vec::new();
    let traces = damage & 0x80 != 0;
    for (file, part) in tree.split(|&b| b == 0xFE).take(3).enumerate() {
        let mut content = b"> ".to_vec();
        let planted = plant(part, &pool);
        for round in 0..repeat {
            content.extend_from_slice(&planted);
            content.push(b'\n');
            if traces {
                let id = pool[(file + round) % pool.len()];
                content.extend_from_slice(trace_line(id, round).as_bytes());
            }
        }
        let path = root.join(format!("{file}.log"));
        fs::create_dir_all(&root).expect("a directory");
        fs::write(&path, &content).expect("written");
        logs.push(path);
    }
    let built = run(&[
        "index".into(),
        "-j1".into(),
        "--index-dir".into(),
        base.clone().into(),
        root.clone().into(),
    ]);
    assert_eq!(
        built.status,
        0,
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let index_dir = only_entry(&base);
    let manifest = index_dir.join("manifest");
    let named = |prefix: &str| {
        fs::read_dir(&index_dir)
            .expect("the index directory")
            .map(|e| e.expect("an entry").path())
            .find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
            })
    };
    let target = match damage % 2 {
        0 => Some(manifest.clone()),
        _ => named("seg-"),
    };
    match (damage / 3) % 6 {
        0 => {}
        1 => fs::write(&manifest, raw).expect("written"),
        2 => {
            if let Some(target) = &target {
                flip(target, &edits);
            }
        }
        3 => {
            if let Some(target) = &target {
                let bytes = fs::read(target).expect("read");
                let at = edits.first().map_or(0, |e| e.0) % bytes.len().max(1);
                fs::write(target, &bytes[..at]).expect("written");
            }
        }
        4 => {
            if let Some(log) = logs.first() {
                let mut content = fs::read(log).expect("read");
                content.extend_from_slice(&plant(raw, &pool));
                fs::write(log, content).expect("written");
            }
        }
        _ => {
            if let Some(log) = logs.first() {
                flip(log, &edits);
            }
        }
    }

    let mut queries: Vec<String> = pool.iter().map(|id| id.ulid()).collect();
    if traces {
        // All-zero trace and span IDs are refused as queries. The `b3` value, the padded 32
        // hex and the Datadog decimal are 64-bit traces, found in the 128-bit traces they are
        // the low half of too (a decimal where the parser takes it as one).
        for id in pool.iter().filter(|id| id.0 != 0 && id.low64() != 0) {
            let b3 = format!("{}-{}-1", id.hex16(), id.hex16());
            let padded = format!("{:032x}", id.low64());
            queries.extend([id.hex(), id.xray(), id.hex16(), b3, padded]);
            let decimal = id.low64().to_string();
            if parse(&decimal).is_ok_and(|p| p.written == Written::Decimal) {
                queries.push(decimal);
            }
        }
    }
    for query in &queries {
        let ask = |index: &[OsString]| -> Vec<OsString> {
            let mut args: Vec<OsString> = index.to_vec();
            args.extend(["-j1".into(), "-n".into(), query.into(), root.clone().into()]);
            args
        };
        let with = run(&ask(&["--index-dir".into(), base.clone().into()]));
        let without = run(&ask(&["--no-index".into()]));
        assert_clean(&without, "without the index");
        assert_eq!(with.status, without.status, "exit status");
        assert!(
            with.stdout == without.stdout,
            "output with the index differs:\n{}\n---- without:\n{}",
            String::from_utf8_lossy(&with.stdout),
            String::from_utf8_lossy(&without.stdout)
        );
        let stderr = String::from_utf8_lossy(&with.stderr);
        for line in stderr.lines() {
            assert!(
                line.starts_with("idgrep: index ") && line.ends_with("searching without it"),
                "with the index: {line}"
            );
        }
    }
}

/// A line with `id` in one of the trace spellings the index files under their own keys.
fn trace_line(id: Id, round: usize) -> String {
    match round % 4 {
        0 => format!("edge \"Root={};Parent={}\"\n", id.xray(), id.hex16()),
        1 => format!("X-B3-TraceId: {} x\n", id.hex16()),
        2 => format!("{{\"dd.trace_id\":\"{}\",\"n\":1}}\n", id.low64()),
        _ => format!("span_id={} trace_id={}\n", id.hex16(), id.hex()),
    }
}

fn split_once(bytes: &[u8], at: u8) -> (&[u8], &[u8]) {
    match bytes.iter().position(|&b| b == at) {
        Some(i) => (&bytes[..i], &bytes[i + 1..]),
        None => (bytes, &[]),
    }
}

/// XORs bytes of the file at `path`: each edit an offset (wrapped to the length) and a mask.
fn flip(path: &Path, edits: &[(usize, u8)]) {
    let mut bytes = fs::read(path).expect("read");
    if bytes.is_empty() {
        return;
    }
    for &(at, mask) in edits {
        let len = bytes.len();
        bytes[at % len] ^= mask;
    }
    fs::write(path, bytes).expect("written");
}

fn only_entry(dir: &Path) -> PathBuf {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .expect("the index base")
        .map(|e| e.expect("an entry").path())
        .collect();
    assert_eq!(entries.len(), 1, "one index in {}", dir.display());
    entries.pop().expect("one")
}

fn assert_clean(out: &Output, what: &str) {
    assert!(
        out.stderr.is_empty(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(out.status, 2, "{what}");
}
