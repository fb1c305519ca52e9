//! The least work any `idgrep ids` must do, timed by `benches/ids.sh` beside the real thing:
//! every ID token found by idgrep's own scanner, its occurrences counted per 128-bit value,
//! the values sorted by count and printed as 32 hex digits and a count. No line is read as a
//! record (no field, no time), no written form, file or line is told apart, and undashed
//! 32-hex values are kept rather than dropped. `ids` does all of this and more, so on the same
//! machine in the same hour it has no realistic way under this program's time: a practical
//! floor for the 1 GB/s bar (for the designs we know; not a proof).
//!
//! Counting is as cheap as we know how to make it: a private open-addressing table per
//! thread, its slots prefetched a batch ahead (the table is far larger than the caches),
//! zeroed by writing (see `inventory::table::Table::reserve` for why), the tables summed at
//! the end. It spends memory for speed (32-byte slots, half full, one table per thread: more
//! than `ids`).
//!
//! `cargo bench --bench ids_floor -- THREADS PATH...` (files or directories, walked, opened
//! and shared out to the threads by idgrep's own code, as `ids` does); prints the table on
//! stdout and `occurrences distinct` on stderr.

use std::hash::BuildHasher;
use std::io::{self, Write};
use std::path::PathBuf;

use idgrep::id::Id;
use idgrep::output::inventory::push_decimal;
use idgrep::par::{self, Notice};
use idgrep::scan::Matcher;
use idgrep::search::{self, Scratch, SearchOptions};
use idgrep::source::{self, WalkOptions};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Occurrences hashed, then counted this many at a time, so each slot can be prefetched.
const BATCH: usize = 512;
/// How many occurrences ahead of its use a slot is prefetched.
const AHEAD: usize = 16;

/// A value and its count; count 0 marks an empty slot.
type Slot = (u128, u32);

struct Counts {
    slots: Vec<Slot>,
    len: usize,
    batch: Vec<(u128, u64)>,
}

impl Counts {
    fn with_bits(bits: u32) -> Counts {
        let mut slots = std::hint::black_box(Vec::with_capacity(1 << bits));
        slots.resize(1 << bits, (0, 0));
        Counts {
            slots,
            len: 0,
            batch: Vec::with_capacity(BATCH),
        }
    }

    fn home(&self, hash: u64) -> usize {
        (hash >> (64 - self.slots.len().trailing_zeros())) as usize
    }

    fn add(&mut self, value: u128) {
        self.batch.push((value, hash(value)));
        if self.batch.len() == BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let batch = std::mem::take(&mut self.batch);
        for (i, &(value, hash)) in batch.iter().enumerate() {
            if let Some(&(_, ahead)) = batch.get(i + AHEAD) {
                prefetch(&self.slots[self.home(ahead)]);
            }
            self.insert(value, hash, 1);
        }
        self.batch = batch;
        self.batch.clear();
    }

    fn insert(&mut self, value: u128, hash: u64, count: u32) {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(hash);
        loop {
            let slot = &mut self.slots[i];
            if slot.1 == 0 {
                *slot = (value, count);
                self.len += 1;
                return;
            }
            if slot.0 == value {
                slot.1 += count;
                return;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let bits = self.slots.len().trailing_zeros() + 1;
        let old = std::mem::replace(self, Counts::with_bits(bits));
        self.batch = old.batch;
        for (value, count) in old.slots.into_iter().filter(|s| s.1 > 0) {
            self.insert(value, hash(value), count);
        }
    }
}

fn hash(value: u128) -> u64 {
    foldhash::fast::FixedState::default().hash_one(value)
}

fn prefetch(slot: &Slot) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint, valid for any address; SSE is baseline on x86_64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (slot as *const Slot).cast(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}

fn main() -> io::Result<()> {
    // `cargo bench` passes `--bench` to a harness-less bench.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let usage = || io::Error::other("usage: ids_floor THREADS PATH...");
    let threads: usize = args
        .first()
        .and_then(|t| t.parse().ok())
        .ok_or_else(usage)?;
    if args.len() < 2 || threads == 0 {
        return Err(usage());
    }
    // Inputs listed, opened and shared out to the threads (largest first) as `ids` does.
    let paths: Vec<PathBuf> = args[1..].iter().map(PathBuf::from).collect();
    let inputs = source::walk(&paths, &WalkOptions::default()).map_err(io::Error::other)?;
    let matcher = Matcher::every_id();
    let (per_thread, notices) = par::scan_all(
        &par::Ordered::largest_first(&inputs),
        threads,
        || (Counts::with_bits(16), Scratch::default(), 0u64),
        |(counts, scratch, occurrences), _, input| {
            let mut reader = match source::open(input, None) {
                Ok(reader) => reader,
                Err(e) => return Some(Notice::failed(&e)),
            };
            let options = SearchOptions::default();
            let outcome = search::search(&matcher, options, &mut reader, scratch, &mut |m| {
                *occurrences += m.hits.len() as u64;
                for hit in m.hits {
                    counts.add(hit.id.0);
                }
                true
            });
            Notice::after_scan(outcome, "not counted")
        },
        |_| {},
    );
    if par::report_notices(&inputs, &notices) {
        return Err(io::Error::other("an input could not be read"));
    }
    let per_thread: Vec<(Counts, u64)> = per_thread
        .into_iter()
        .map(|(mut counts, _, occurrences)| {
            counts.flush();
            (counts, occurrences)
        })
        .collect();
    // Sized for every value at once: a table's slots come out in the order of their hashes,
    // which would pile up in a smaller table's first slots as it grew.
    let at_most: usize = per_thread.iter().map(|(counts, _)| counts.len).sum();
    let mut total = Counts::with_bits((at_most * 2).next_power_of_two().trailing_zeros());
    let mut occurrences = 0;
    for (counts, n) in per_thread {
        occurrences += n;
        for (value, count) in counts.slots.into_iter().filter(|s| s.1 > 0) {
            total.insert(value, hash(value), count);
        }
    }
    let mut rows: Vec<Slot> = total.slots.into_iter().filter(|s| s.1 > 0).collect();
    eprintln!("{occurrences} {}", rows.len());
    rows.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));

    // Written as `ids` writes its rows: `fmt` would cost more than the floor's rest.
    let mut out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
    let mut row = Vec::with_capacity(64);
    for (value, count) in rows {
        row.clear();
        row.extend_from_slice(&Id(value).hex_bytes());
        row.push(b' ');
        push_decimal(&mut row, count.into(), 0);
        row.push(b'\n');
        out.write_all(&row)?;
    }
    out.flush()
}
