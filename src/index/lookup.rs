//! Answering a search from an index: which files to skip, which to read whole, and which
//! byte ranges of the others to read, each with the number of its first line.
//!
//! Every decision errs toward reading: a file the index does not know, or whose fingerprint
//! no longer holds, is read whole; a file that grew has its new bytes read after the ranges
//! its postings name. The postings of every query ID are looked up before anything is
//! read, so a damaged segment is found then and the caller falls back to a scan. A posting
//! names its block's bytes (256 bytes of the file, [`super::read::BLOCK`]) and first line, so
//! a file is planned from its postings and its fingerprint alone.

use std::collections::HashMap;
use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};

use super::fingerprint::{self, Freshness};
use super::format::{key_of, narrow_key_of};
use super::manifest::{FileEntry, Layout, Manifest};
use super::read::BLOCK;
use super::segment::{Hit, Segment};
use super::{covering, load_manifest};
use crate::id::{Kind, Parsed};
use crate::scan;
use crate::search::BUFFER_SIZE;

/// The keys the spellings of `queries` are filed under, as a search finds them
/// ([`crate::scan::Matcher::for_queries`]): a ULID or UUID query's 128-bit value; a trace
/// query's too, and its low 64 bits (16 hex digits or a decimal in a trace field); a span
/// query's 64 bits; a 64-bit trace's 64 bits only, under which the 128-bit traces it is the
/// low half of are filed too. `None` when the index cannot vouch for every block a search
/// would find something in: a trace or span value whose decimal is shorter than the index
/// files.
pub fn keys_of(queries: &[Parsed]) -> Option<Vec<u64>> {
    let mut keys = Vec::with_capacity(queries.len());
    for q in queries {
        let narrow = q.kind == Kind::Span || q.kind == Kind::Trace || q.may_be_trace();
        if narrow && !scan::trace_tokens_cover(q.id.low64()) {
            return None;
        }
        if q.kind != Kind::Span && !q.is_trace64() {
            keys.push(key_of(q.id.0));
        }
        if narrow {
            keys.push(narrow_key_of(q.id.low64()));
        }
    }
    Some(keys)
}

/// An index opened for lookups.
pub struct Index {
    pub dir: PathBuf,
    manifest: Manifest,
    segments: Vec<Segment>,
    by_inode: HashMap<(u64, u64), usize>,
}

impl Index {
    /// The index in `base` built for one of `paths` or a directory above it (the first path
    /// that has one). `Ok(None)`: there is none. `Err`: there is one and it cannot be used;
    /// the message says why, for the one warning line.
    pub fn find(base: &Path, paths: &[PathBuf]) -> Result<Option<Index>, String> {
        // Most searches run where no index was ever built: no path is resolved then.
        if !base.is_dir() {
            return Ok(None);
        }
        for path in paths {
            let Ok(canonical) = path.canonicalize() else {
                continue;
            };
            match covering(base, &canonical) {
                Ok(Some((dir, root))) => return Index::open(&dir, &root).map(Some),
                Ok(None) => {}
                Err((dir, e)) => {
                    return Err(format!(
                        "index {}: {}; searching without it",
                        dir.display(),
                        crate::source::io_reason(&e)
                    ));
                }
            }
        }
        Ok(None)
    }

    /// Opens the index in `dir`, which should be `root`'s.
    pub fn open(dir: &Path, root: &Path) -> Result<Index, String> {
        let unusable =
            |why: String| format!("index {}: {why}; searching without it", dir.display());
        let manifest = match load_manifest(dir) {
            Ok(Some(m)) => m,
            Ok(None) => return Err(unusable("no manifest".to_string())),
            Err(damage) => return Err(unusable(damage.to_string())),
        };
        if manifest.root != root {
            return Err(unusable(format!("built for {}", manifest.root.display())));
        }
        let mut segments = Vec::with_capacity(manifest.segments.len());
        for s in &manifest.segments {
            let segment = Segment::open(&dir.join(&s.name), s.len, s.table_crc)
                .map_err(|d| unusable(format!("segment {}: {d}", s.name)))?;
            segments.push(segment);
        }
        let by_inode = manifest
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| ((f.fingerprint.dev, f.fingerprint.ino), i))
            .collect();
        Ok(Index {
            dir: dir.to_path_buf(),
            manifest,
            segments,
            by_inode,
        })
    }

    /// The blocks that may hold any of `keys` ([`keys_of`]), by file, looked up on up to
    /// `threads` threads. `Err`: the index is damaged where the lookup read it (the warning
    /// line).
    /// `range_cost`: what reading a range costs the caller ([`SEARCH_RANGE_COST`],
    /// [`TIMELINE_RANGE_COST`]).
    pub fn candidates(
        &self,
        mut keys: Vec<u64>,
        threads: usize,
        range_cost: u64,
    ) -> Result<Candidates<'_>, String> {
        keys.sort_unstable();
        keys.dedup();
        // Each key's search reads pages of its own, mostly page faults: the second hop of a
        // timeline looks up thousands, which threads share.
        let per_thread = keys.len().div_ceil(threads.max(1)).max(KEYS_PER_THREAD);
        let parts: Vec<Result<Vec<Hit>, String>> = if keys.len() <= per_thread {
            vec![self.postings_of(&keys)]
        } else {
            std::thread::scope(|scope| {
                let running: Vec<_> = keys
                    .chunks(per_thread)
                    .map(|part| scope.spawn(|| self.postings_of(part)))
                    .collect();
                running
                    .into_iter()
                    .map(|t| {
                        t.join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    })
                    .collect()
            })
        };
        let hits = merge_parts(parts.into_iter().collect::<Result<_, _>>()?);
        let mut by_file = HashMap::new();
        let mut at = 0;
        for file in hits.chunk_by(|a, b| a.file == b.file) {
            by_file.insert(file[0].file, at..at + file.len());
            at += file.len();
        }
        Ok(Candidates {
            index: self,
            hits,
            by_file,
            range_cost,
        })
    }

    /// The blocks of `keys`' postings, sorted, each once.
    fn postings_of(&self, keys: &[u64]) -> Result<Vec<Hit>, String> {
        let mut found = Vec::new();
        for (segment, named) in self.segments.iter().zip(&self.manifest.segments) {
            for &key in keys {
                segment
                    .lookup(key, &mut |hit| found.push(hit))
                    .map_err(|d| {
                        format!(
                            "index {}: segment {}: {d}; searching without it",
                            self.dir.display(),
                            named.name
                        )
                    })?;
            }
        }
        sort_blocks(&mut found);
        Ok(found)
    }

    fn entry_for(&self, dev: u64, ino: u64) -> Option<&FileEntry> {
        self.by_inode
            .get(&(dev, ino))
            .map(|&i| &self.manifest.files[i])
    }
}

/// The fewest keys worth a thread of their own: a lookup costs tens of microseconds, about as
/// much as starting a thread.
const KEYS_PER_THREAD: usize = 64;

/// What to read of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// Nothing in it can match.
    Skip,
    /// Read it all, as without an index.
    Whole,
    /// Read only these byte ranges, in order, not touching.
    Ranges(Vec<Range>),
}

/// The lines of a file that start in `start..end` (to the end of the file when `None`), the
/// first of them line number `first_line`. The index gives the edges of blocks, which are
/// rarely line starts: a reader moves each to the first line start at or after it
/// ([`super::ranges::read_lines`]), so the bytes read are whole lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub start: u64,
    pub end: Option<u64>,
    pub first_line: u64,
}

/// The longest range read whole into a buffer ([`super::ranges::read_lines`]) and searched
/// there; a longer one is searched as it is read ([`super::ranges::open_range`]). One range at a
/// time, so the buffer stays small and its bytes are still in the processor's cache when they
/// are searched: a timeline that read each file's ranges ahead into one buffer (up to 8 MiB)
/// spent a twentieth of its time growing it into fresh pages.
pub(super) const HELD_AT_ONCE: u64 = 256 << 10;

impl Range {
    /// Its length, nothing when it runs to the end of the file.
    fn len(&self) -> u64 {
        self.end.map_or(0, |end| end - self.start)
    }

    /// Whether it is short enough to be read at once (it has an end).
    pub fn held_at_once(&self) -> bool {
        self.end
            .is_some_and(|end| end.saturating_sub(self.start) <= HELD_AT_ONCE)
    }
}

/// The postings of one query, ready to plan each file's reading.
pub struct Candidates<'a> {
    index: &'a Index,
    /// The blocks, by file id and number, each once.
    hits: Vec<Hit>,
    /// Where each file's blocks stand in `hits`, by file id.
    by_file: HashMap<u32, std::ops::Range<usize>>,
    /// What a range costs beyond its bytes, in bytes of a whole read.
    range_cost: u64,
}

impl Candidates<'_> {
    /// What to read of the file at `path`, with the file opened (and its metadata) when
    /// ranges of it are to be read; `None`: read it as without an index. A file with no
    /// candidate is judged by its metadata alone, so a lookup costs no `open` for each file it
    /// skips. Only regular files are judged: opening a FIFO would wait for a writer, and take
    /// data the search then misses.
    pub fn plan_path(&self, path: &Path) -> Option<(Plan, Option<(File, Metadata)>)> {
        let meta = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
        let stat = fingerprint::stat_of(&meta);
        match self.plan(&stat, || File::open(path)) {
            Plan::Ranges(ranges) => {
                let file = File::open(path).ok()?;
                // The ranges are those of the file stat'ed: one put in its place since is read
                // whole.
                let meta = file.metadata().ok()?;
                (fingerprint::stat_of(&meta) == stat)
                    .then_some((Plan::Ranges(ranges), Some((file, meta))))
            }
            plan => Some((plan, None)),
        }
    }

    /// What to read of the file whose metadata is `stat`; `open` opens it, when its bytes
    /// must be checked against the fingerprint.
    fn plan(&self, stat: &fingerprint::Stat, open: impl FnOnce() -> std::io::Result<File>) -> Plan {
        let index = self.index;
        let Some(entry) = index.entry_for(stat.dev, stat.ino) else {
            return Plan::Whole;
        };
        let freshness = fingerprint::check(&entry.fingerprint, entry.indexed, stat, open);
        if reads_whole(entry, freshness, stat.len) {
            return Plan::Whole;
        }
        let blocks = self.by_file.get(&entry.id).map(|at| &self.hits[at.clone()]);
        match entry.layout {
            // Compressed or UTF-16, untouched since indexed (a binary file is read whole
            // above): one posting per ID for the whole file.
            Layout::Whole | Layout::Binary => match blocks {
                Some(_) => Plan::Whole,
                None => Plan::Skip,
            },
            Layout::Blocks => {
                let grown = stat.len > entry.indexed;
                let mut ranges = blocks.map_or_else(Vec::new, |b| ranges_of(entry, b));
                let cost: u64 = ranges.iter().map(|r| self.range_cost + r.len()).sum();
                if cost >= entry.indexed {
                    return Plan::Whole;
                }
                if grown {
                    ranges.push(Range {
                        start: entry.indexed,
                        end: None,
                        first_line: entry.lines.saturating_add(1),
                    });
                }
                if ranges.is_empty() {
                    Plan::Skip
                } else {
                    Plan::Ranges(ranges)
                }
            }
        }
    }
}

/// Whether a search reads the indexed file `entry`, now `len` bytes long and `freshness` as
/// its fingerprint says, whole whatever its postings say: changed, binary, compressed (or
/// UTF-16) and grown, or grown from under a search buffer (new bytes inside the first block
/// could make a search call the file binary: only a whole read decides that as a scan would).
/// `index --status` counts bytes by the same rule.
pub(super) fn reads_whole(entry: &FileEntry, freshness: Freshness, len: u64) -> bool {
    match (entry.layout, freshness) {
        (_, Freshness::Changed) | (Layout::Binary, _) | (Layout::Whole, Freshness::Kept) => true,
        (Layout::Whole, Freshness::Untouched) => false,
        (Layout::Blocks, _) => {
            len > entry.fingerprint.len && entry.fingerprint.len < BUFFER_SIZE as u64
        }
    }
}

/// What reading a range costs a search beyond its bytes, in bytes its scan reads in the same
/// time: a file whose ranges would cost more than its bytes is read whole. A range costs 2-3
/// µs (its read and setting up a search), and a search scans 2-3 GB/s a thread. With an ID list
/// on a tenth of a small file's lines, reading each range took longer than the scan; 767 IDs
/// on real logs, each on a line of every copy, took 0.82 of the time they take at 2 KiB.
pub const SEARCH_RANGE_COST: u64 = 8 << 10;

/// [`SEARCH_RANGE_COST`] for a timeline's pass, whose scan reads about 1 GB/s a thread (each
/// found line's tokens, fields and time are read): at 8 KiB a second hop read ten files whole
/// (119 MB), and took 1.05 of the time it takes at 2 KiB.
pub const TIMELINE_RANGE_COST: u64 = 2 << 10;

/// Sorts `hits` by file and block and keeps each block once: a block is found once for each
/// key and segment that names it, with one first line.
fn sort_blocks(hits: &mut Vec<Hit>) {
    hits.sort_unstable_by_key(block_of);
    hits.dedup_by_key(|h| block_of(h));
}

/// Where a hit's block stands in [`sort_blocks`]'s order: its file, then its number.
fn block_of(hit: &Hit) -> (u32, u32) {
    (hit.file, hit.block)
}

/// The blocks of `parts`, each sorted by [`sort_blocks`], in one list sorted the same way,
/// each once. Each part is sorted on the thread that looked it up: sorting the 80,000 blocks
/// of a timeline's second hop on one thread took a third of its lookup.
fn merge_parts(parts: Vec<Vec<Hit>>) -> Vec<Hit> {
    let mut merged = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    merged.extend(crate::par::merge_sorted(parts, block_of));
    merged.dedup_by_key(|h| block_of(h));
    merged
}

/// The ranges of `hits` (blocks, ascending) in `entry`'s indexed bytes, neighbours joined.
fn ranges_of(entry: &FileEntry, hits: &[Hit]) -> Vec<Range> {
    let mut ranges: Vec<Range> = Vec::new();
    for &Hit {
        block,
        line: first_line,
        ..
    } in hits
    {
        let start = u64::from(block) * BLOCK;
        if start >= entry.indexed {
            break;
        }
        let end = (start + BLOCK).min(entry.indexed);
        match ranges.last_mut() {
            Some(last) if last.end == Some(start) => last.end = Some(end),
            _ => ranges.push(Range {
                start,
                end: Some(end),
                first_line,
            }),
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(query: &str) -> Option<Vec<u64>> {
        keys_of(&[crate::id::parse(query).unwrap()])
    }

    /// Touching blocks make one range, from the first's start to the last's end, numbered
    /// from the first's first line; the last block ends at the indexed end, and a block past
    /// it (a posting of a file since cut short) is not read.
    #[test]
    fn touching_blocks_make_one_range() {
        let entry = FileEntry {
            id: 1,
            path: PathBuf::from("a.log"),
            layout: Layout::Blocks,
            indexed: 7 * BLOCK + BLOCK / 4,
            lines: 24,
            fingerprint: Default::default(),
            last_line: 22,
        };
        // Blocks 1 and 2 touch, 5 stands alone, 7 is the last, 9 is past the end.
        let hits = [(1, 4), (2, 7), (5, 16), (7, 22), (9, 30)].map(|(block, line)| Hit {
            file: 1,
            block,
            line,
        });
        let got: Vec<(u64, Option<u64>, u64)> = ranges_of(&entry, &hits)
            .into_iter()
            .map(|r| (r.start, r.end, r.first_line))
            .collect();
        assert_eq!(
            got,
            vec![
                (BLOCK, Some(3 * BLOCK), 4),
                (5 * BLOCK, Some(6 * BLOCK), 16),
                (7 * BLOCK, Some(7 * BLOCK + BLOCK / 4), 22)
            ]
        );
    }

    /// Parts sorted on their threads and merged give the blocks one sort of all the postings
    /// gives, each once, whatever the parts overlap.
    #[test]
    fn merged_parts_are_the_blocks_of_one_sort() {
        let mut rng = crate::testing::Rng(0x10c4);
        for round in 0..300 {
            let mut all = Vec::new();
            let parts: Vec<Vec<Hit>> = (0..rng.below(4))
                .map(|_| {
                    let mut part: Vec<Hit> = (0..rng.below(60))
                        .map(|_| {
                            let (file, block) = (rng.below(4) as u32, rng.below(20) as u32);
                            // A block's first line is the block's, whoever names it.
                            let line = u64::from(file) * 1000 + u64::from(block);
                            Hit { file, block, line }
                        })
                        .collect();
                    all.extend(part.iter().copied());
                    sort_blocks(&mut part);
                    part
                })
                .collect();
            all.sort_unstable();
            all.dedup();
            assert_eq!(merge_parts(parts), all, "round {round}");
        }
    }

    /// A 64-bit trace (a `b3` value with 16 hex digits, a Datadog decimal) is looked up under
    /// its 64 bits, where the 128-bit traces it is the low half of are filed too, not
    /// scanned for; a 128-bit trace under its value and its low half.
    #[test]
    fn a_64_bit_trace_is_looked_up_under_its_64_bits() {
        let low = 0xa3ce_929d_0e0e_4736u64;
        assert_eq!(
            keys("a3ce929d0e0e4736-05e3ac9a4f6e3b90-1"),
            Some(vec![narrow_key_of(low)])
        );
        assert_eq!(
            keys("0000000000000000a3ce929d0e0e4736"),
            Some(vec![narrow_key_of(low)])
        );
        assert_eq!(keys(&low.to_string()), Some(vec![narrow_key_of(low)]));
        assert_eq!(
            keys("4bf92f3577b34da6a3ce929d0e0e4736"),
            Some(vec![
                key_of(0x4bf92f3577b34da6a3ce929d0e0e4736),
                narrow_key_of(low)
            ])
        );
        // A span ID is 64 bits; a ULID has no narrow key.
        assert_eq!(
            keys("00f067aa0ba902b7"),
            Some(vec![narrow_key_of(0x00f067aa0ba902b7)])
        );
        assert_eq!(keys("01m8kbygm5ng2pshny302zvwbs").map(|k| k.len()), Some(1));
    }
}
