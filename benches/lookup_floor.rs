//! The reads an indexed lookup of one ID cannot do without, timed by `benches/index.sh`
//! beside the real lookup: the walk (beside the index's opening, as a search does), the
//! postings looked up, then on each thread, file by file in walk order, what the index asks
//! of each file (a `statx`, and for a file with candidates an `open` and the read of each
//! candidate range's lines, ranges close together in one read as a search reads them),
//! through idgrep's own planning and reading code. No byte read is searched, no line
//! printed. A search does all of this and more, so on the same machine in the same hour it
//! has no way under this program's time: the floor of the design (one read per candidate
//! range, or per run of close ones) on that machine.
//!
//! `cargo bench --bench lookup_floor -- THREADS INDEX_DIR ID PATH...`; prints on stderr
//! how many files were skipped, planned and read whole, and how many ranges there were and
//! the bytes of their lines. A file the index cannot vouch for (read whole by a search) is
//! an error: the floor is only meaningful with a fresh index.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use idgrep::index::{self, Held, Index, Plan, RangeBytes};
use idgrep::source::{self, Input, WalkOptions};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// What one thread did.
#[derive(Default)]
struct Tally {
    skipped: u64,
    planned: u64,
    whole: u64,
    ranges: u64,
    bytes: u64,
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let usage = || io::Error::other("usage: lookup_floor THREADS INDEX_DIR ID PATH...");
    let threads: usize = args
        .first()
        .and_then(|t| t.parse().ok())
        .filter(|&t| t > 0)
        .ok_or_else(usage)?;
    if args.len() < 4 {
        return Err(usage());
    }
    let base = PathBuf::from(&args[1]);
    let query = idgrep::id::parse(&args[2]).map_err(|e| io::Error::other(e.to_string()))?;
    let paths: Vec<PathBuf> = args[3..].iter().map(PathBuf::from).collect();
    let (inputs, index) = std::thread::scope(|scope| {
        let walk = scope.spawn(|| source::walk(&paths, &WalkOptions::default()));
        let index = Index::find(&base, &paths);
        (walk.join().expect("the walk panicked"), index)
    });
    let inputs = inputs.map_err(io::Error::other)?;
    let index = index
        .map_err(io::Error::other)?
        .ok_or_else(|| io::Error::other("no index covers the paths"))?;
    let keys = index::keys_of(&[query]).ok_or_else(|| io::Error::other("no keys"))?;
    let candidates = index
        .candidates(keys, threads, index::SEARCH_RANGE_COST)
        .map_err(io::Error::other)?;
    let next = AtomicUsize::new(0);
    let tallies: Vec<io::Result<Tally>> = std::thread::scope(|scope| {
        let running: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut tally = Tally::default();
                    let mut held = Held::default();
                    while let Some(input) = inputs.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let Input::File(path) = input else {
                            continue;
                        };
                        match candidates.plan_path(path) {
                            Some((Plan::Skip, _)) => tally.skipped += 1,
                            Some((Plan::Ranges(ranges), Some((file, _)))) => {
                                tally.planned += 1;
                                for i in 0..ranges.len() {
                                    if !ranges[i].held_at_once() {
                                        // Bytes written since the index was built, or a
                                        // range a search reads as it goes.
                                        tally.whole += 1;
                                        continue;
                                    }
                                    if let Some((_, RangeBytes::Held(span))) =
                                        index::open_range(&file, &ranges, i, &mut held)?
                                    {
                                        tally.ranges += 1;
                                        tally.bytes += span.len() as u64;
                                    }
                                }
                            }
                            _ => tally.whole += 1,
                        }
                    }
                    Ok(tally)
                })
            })
            .collect();
        running
            .into_iter()
            .map(|t| t.join().expect("a thread panicked"))
            .collect()
    });
    let mut sum = Tally::default();
    for tally in tallies {
        let tally = tally?;
        sum.skipped += tally.skipped;
        sum.planned += tally.planned;
        sum.whole += tally.whole;
        sum.ranges += tally.ranges;
        sum.bytes += tally.bytes;
    }
    eprintln!(
        "{} files skipped, {} planned ({} ranges, {} bytes of their lines), {} to read whole",
        sum.skipped, sum.planned, sum.ranges, sum.bytes, sum.whole
    );
    if sum.whole > 0 {
        return Err(io::Error::other(
            "the index does not vouch for every file: build it again for a floor",
        ));
    }
    Ok(())
}
