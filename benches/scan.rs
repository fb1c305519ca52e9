//! Criterion benchmarks of the hot path in bytes per second: the known-ID scanner against
//! what a generic tool does (memchr's memmem for one exact form, as `rg -F` does, and
//! aho-corasick's case-insensitive search for the same tails idgrep looks for), the token
//! walk of `-f` with many IDs and of the inventory views (against its byte-at-a-time
//! reference), and the ID decoders against the `ulid` and `uuid` crates.
//!
//! `cargo bench --bench scan`. The haystack is 32 MiB of the deterministic benchmark corpus
//! (`benches/corpus/`), generated once into `target/bench-scan-corpus`.

#[path = "corpus/mod.rs"]
mod corpus;

use std::path::{Path, PathBuf};

use aho_corasick::AhoCorasick;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use idgrep::id::{self, Id};
use idgrep::scan::{self, Matcher};

const CORPUS_BYTES: u64 = 32 << 20;

/// The corpus as one buffer, and the hot ULID its query file names.
fn corpus() -> (Vec<u8>, String) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-scan-corpus");
    let query = dir.with_extension("query.json");
    if !query.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        let summary = corpus::generate(&corpus::Config {
            out: dir.clone(),
            total: CORPUS_BYTES,
            seed: 1,
            distinct_ids: None,
        })
        .expect("generate the benchmark corpus");
        std::fs::write(&query, summary.json).unwrap();
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&query).unwrap()).unwrap();
    let mut data = Vec::new();
    for service in corpus::SERVICES {
        read_tree(&dir.join(service), &mut data);
    }
    (data, json["ulid"].as_str().unwrap().to_string())
}

/// Appends the files of one service directory, in name order.
fn read_tree(dir: &Path, out: &mut Vec<u8>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        out.extend(std::fs::read(&path).unwrap());
    }
}

fn scanners(c: &mut Criterion) {
    let (hay, ulid) = corpus();
    let parsed = id::parse(&ulid).unwrap().id;
    let mut group = c.benchmark_group("scan");
    group.throughput(Throughput::Bytes(hay.len() as u64));
    group.sample_size(20);

    let matcher = Matcher::new(&[parsed]);
    let mut hits = Vec::new();
    group.bench_function("idgrep every form", |b| {
        b.iter(|| {
            matcher.find(&hay, &mut hits);
            hits.len()
        })
    });

    let finder = memchr::memmem::Finder::new(ulid.as_bytes());
    group.bench_function("memmem one exact form", |b| {
        b.iter(|| finder.find_iter(&hay).count())
    });

    let tails = [&parsed.ulid()[10..], &parsed.hex()[20..]];
    let ac = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(tails)
        .unwrap();
    group.bench_function("aho-corasick tails, case-insensitive", |b| {
        b.iter(|| ac.find_iter(&hay).count())
    });

    let many: Vec<Id> = (0..50u128).map(|i| Id(parsed.0 ^ (i << 3))).collect();
    let many_matcher = Matcher::new(&many);
    group.bench_function("idgrep 50 IDs (token walk)", |b| {
        b.iter(|| {
            many_matcher.find(&hay, &mut hits);
            hits.len()
        })
    });

    group.bench_function("token walk, every ID", |b| {
        b.iter(|| {
            let mut n = 0;
            scan::for_each_token(&hay, |_| n += 1);
            n
        })
    });
    group.bench_function("token walk, every ID, scalar reference", |b| {
        b.iter(|| {
            let mut n = 0;
            scan::for_each_token_scalar(&hay, |_| n += 1);
            n
        })
    });
    group.finish();
}

fn parsers(c: &mut Criterion) {
    let values: Vec<u128> = (0..10_000u128)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) >> 2)
        .collect();
    let ulids: Vec<String> = values
        .iter()
        .map(|&v| Id(v).ulid().to_uppercase())
        .collect();
    let uuids: Vec<String> = values.iter().map(|&v| Id(v).uuid()).collect();
    let mut group = c.benchmark_group("parse");

    group.throughput(Throughput::Bytes((ulids.len() * id::ULID_LEN) as u64));
    group.bench_function("idgrep decode_ulid", |b| {
        b.iter(|| {
            ulids
                .iter()
                .filter_map(|s| id::decode_ulid(s.as_bytes()))
                .count()
        })
    });
    group.bench_function("ulid crate from_string", |b| {
        b.iter(|| {
            ulids
                .iter()
                .filter_map(|s| ulid::Ulid::from_string(s).ok())
                .count()
        })
    });

    group.throughput(Throughput::Bytes(
        (uuids.len() * id::UUID_DASHED_LEN) as u64,
    ));
    group.bench_function("idgrep decode_dashed", |b| {
        b.iter(|| {
            uuids
                .iter()
                .filter_map(|s| id::decode_dashed(s.as_bytes()))
                .count()
        })
    });
    group.bench_function("uuid crate try_parse_ascii", |b| {
        b.iter(|| {
            uuids
                .iter()
                .filter_map(|s| uuid::Uuid::try_parse_ascii(s.as_bytes()).ok())
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, scanners, parsers);
criterion_main!(benches);
