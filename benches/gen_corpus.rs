//! `gen_corpus`: writes the deterministic log corpus that idgrep's benchmarks search, and
//! the query IDs to search it for. This file owns the command line; the generator is in
//! `corpus/`.
//!
//! ```text
//! cargo bench --bench gen_corpus -- --out DIR --size 1G [--seed N] [--distinct-ids N] [--force]
//! ```
//!
//! Writes about SIZE bytes (suffixes K, M, G, T; binary) of mixed-format logs into
//! `DIR/<service>/<service>-NNNN.log`, then `DIR.query.json` beside DIR (not inside it, since
//! DIR is what gets searched) and the same JSON on stdout. The output depends only on
//! `--size`, `--seed` and `--distinct-ids`: it uses only the standard library and its own
//! PRNG, so two machines produce identical bytes.

#[path = "corpus/mod.rs"]
mod corpus;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str =
    "usage: gen_corpus --out DIR --size SIZE[K|M|G|T] [--seed N] [--distinct-ids N] [--force]

  --out DIR           directory to fill (must be empty or absent unless --force)
  --size SIZE         bytes to write, approximately; suffixes are binary (1G = 2^30)
  --seed N            PRNG seed (default 1)
  --distinct-ids N    steer the number of distinct IDs in the corpus toward N
  --force             replace the service directories of an earlier corpus in DIR

Writes DIR.query.json next to DIR and prints it.";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("gen_corpus: {msg}");
            ExitCode::from(2)
        }
    }
}

struct Args {
    out: PathBuf,
    size: u64,
    seed: u64,
    distinct_ids: Option<u64>,
    force: bool,
}

fn run() -> Result<(), String> {
    let args = match parse_args(std::env::args().skip(1))? {
        Parsed::Run(args) => args,
        Parsed::Help => {
            println!("{USAGE}");
            return Ok(());
        }
        Parsed::Nothing => {
            // A bare `cargo bench` (or `cargo test --all-targets`) lands here; it should
            // pass, not fail for want of an output directory.
            eprintln!("gen_corpus: nothing to do without --out and --size\n\n{USAGE}");
            return Ok(());
        }
    };
    prepare_dir(&args.out, args.force)?;

    let started = Instant::now();
    let cfg = corpus::Config {
        out: args.out.clone(),
        total: args.size,
        seed: args.seed,
        distinct_ids: args.distinct_ids,
    };
    let summary =
        corpus::generate(&cfg).map_err(|e| format!("writing {}: {e}", args.out.display()))?;
    let query = query_path(&args.out);
    fs::write(&query, format!("{}\n", summary.json))
        .map_err(|e| format!("writing {}: {e}", query.display()))?;

    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "gen_corpus: wrote {} in {secs:.1}s ({:.0} MiB/s); query in {}",
        args.out.display(),
        args.size as f64 / (1 << 20) as f64 / secs.max(1e-9),
        query.display()
    );
    println!("{}", summary.json);
    Ok(())
}

enum Parsed {
    Run(Args),
    Help,
    /// No arguments but cargo's own.
    Nothing,
}

fn parse_args(mut argv: impl Iterator<Item = String>) -> Result<Parsed, String> {
    let mut out = None;
    let mut size = None;
    let mut seed = 1;
    let mut distinct_ids = None;
    let mut force = false;
    let mut any = false;
    while let Some(arg) = argv.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| argv.next())
                .ok_or_else(|| format!("{name} needs a value\n\n{USAGE}"))
        };
        any |= flag != "--bench";
        match flag.as_str() {
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "--size" => size = Some(parse_size(&value("--size")?)?),
            "--seed" => seed = parse_u64("--seed", &value("--seed")?)?,
            "--distinct-ids" => {
                distinct_ids = Some(parse_u64("--distinct-ids", &value("--distinct-ids")?)?)
            }
            "--force" => force = true,
            "-h" | "--help" => return Ok(Parsed::Help),
            // Cargo hands harness=false bench binaries a `--bench` flag; it means nothing here.
            "--bench" => {}
            other => eprintln!("gen_corpus: ignoring unknown argument {other:?}"),
        }
    }
    if !any {
        return Ok(Parsed::Nothing);
    }
    let out = out.ok_or_else(|| format!("--out is required\n\n{USAGE}"))?;
    let size = size.ok_or_else(|| format!("--size is required\n\n{USAGE}"))?;
    Ok(Parsed::Run(Args {
        out,
        size,
        seed,
        distinct_ids,
        force,
    }))
}

fn parse_u64(flag: &str, s: &str) -> Result<u64, String> {
    s.replace('_', "")
        .parse()
        .map_err(|_| format!("{flag}: not a whole number: {s:?}"))
}

/// `1G`, `50M`, `512K`, `1GiB`, `1073741824`: binary multiples, as file sizes are reported.
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .or_else(|| t.strip_suffix('b'))
        .unwrap_or(t);
    let (num, shift) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 10),
        Some('M') => (&t[..t.len() - 1], 20),
        Some('G') => (&t[..t.len() - 1], 30),
        Some('T') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let n: u64 = num.parse().map_err(|_| {
        format!("--size: expected a number with an optional K/M/G/T suffix, got {s:?}")
    })?;
    n.checked_shl(shift)
        .filter(|v| v >> shift == n && *v > 0)
        .ok_or_else(|| format!("--size: {s:?} is zero or too large"))
}

/// `DIR.query.json`, beside DIR.
fn query_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    // Trailing slashes would put the file inside DIR.
    while s.len() > 1 && s.to_string_lossy().ends_with('/') {
        s = s.to_string_lossy().trim_end_matches('/').into();
    }
    s.push(".query.json");
    PathBuf::from(s)
}

/// Refuses to mix a new corpus into a non-empty directory: leftovers of a larger corpus
/// would change what gets searched. With `--force`, removes only what this generator writes.
fn prepare_dir(out: &Path, force: bool) -> Result<(), String> {
    let err = |e: std::io::Error| format!("{}: {e}", out.display());
    if out.exists() {
        let non_empty = fs::read_dir(out).map_err(err)?.next().is_some();
        if non_empty && !force {
            return Err(format!(
                "{} exists and is not empty; pass --force to replace an earlier corpus",
                out.display()
            ));
        }
        if non_empty {
            for name in corpus::SERVICES {
                let dir = out.join(name);
                if dir.exists() {
                    fs::remove_dir_all(&dir).map_err(err)?;
                }
            }
            let query = query_path(out);
            if query.exists() {
                fs::remove_file(&query).map_err(err)?;
            }
            if fs::read_dir(out).map_err(err)?.next().is_some() {
                eprintln!(
                    "gen_corpus: warning: {} holds files this generator did not write; they stay",
                    out.display()
                );
            }
        }
    }
    fs::create_dir_all(out).map_err(err)
}
