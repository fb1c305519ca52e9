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
//! zeroed by writing (see `group::Table::reserve` for why), the tables summed at the end. It
//! spends memory for speed (32-byte slots, half full, one table per thread: more than `ids`).
//!
//! `cargo bench --bench ids_floor -- THREADS PATH...` (a file or a directory, walked
//! recursively); prints the table on stdout and `occurrences distinct` on stderr.

use std::hash::BuildHasher;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use idgrep::id::Id;
use idgrep::output::inventory::push_decimal;
use idgrep::scan::Matcher;
use idgrep::search::{self, Scratch, SearchOptions};

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
        let hash = foldhash::fast::FixedState::default().hash_one(value);
        self.batch.push((value, hash));
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
            let hash = foldhash::fast::FixedState::default().hash_one(value);
            self.insert(value, hash, count);
        }
    }
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

fn files_under(path: PathBuf, files: &mut Vec<(u64, PathBuf)>) -> io::Result<()> {
    let meta = std::fs::metadata(&path)?;
    if meta.is_dir() {
        for entry in std::fs::read_dir(&path)? {
            files_under(entry?.path(), files)?;
        }
    } else {
        files.push((meta.len(), path));
    }
    Ok(())
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
    let mut files = Vec::new();
    for path in &args[1..] {
        files_under(PathBuf::from(path), &mut files)?;
    }
    // Largest first, as `ids` schedules them.
    files.sort_by_key(|(size, _)| std::cmp::Reverse(*size));

    let next = AtomicUsize::new(0);
    let matcher = Matcher::every_id();
    let options = SearchOptions::default();
    let per_thread: Vec<io::Result<(Counts, u64)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut counts = Counts::with_bits(16);
                    let mut scratch = Scratch::default();
                    let mut occurrences = 0u64;
                    while let Some((_, path)) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let mut file = std::fs::File::open(path)?;
                        search::search(&matcher, options, &mut file, &mut scratch, &mut |m| {
                            occurrences += m.hits.len() as u64;
                            for hit in m.hits {
                                counts.add(hit.id.0);
                            }
                            true
                        });
                    }
                    counts.flush();
                    Ok((counts, occurrences))
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });

    let per_thread = per_thread.into_iter().collect::<io::Result<Vec<_>>>()?;
    // Sized for every value at once: a table's slots come out in the order of their hashes,
    // which would pile up in a smaller table's first slots as it grew.
    let at_most: usize = per_thread.iter().map(|(counts, _)| counts.len).sum();
    let mut total = Counts::with_bits((at_most * 2).next_power_of_two().trailing_zeros());
    let mut occurrences = 0;
    for (counts, n) in per_thread {
        occurrences += n;
        for (value, count) in counts.slots.into_iter().filter(|s| s.1 > 0) {
            let hash = foldhash::fast::FixedState::default().hash_one(value);
            total.insert(value, hash, count);
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
