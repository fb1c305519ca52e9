//! Segments: immutable files of postings, ID key -> (file, block, the block's first line)
//! triples, read by positional reads and found through a directory of the key table's pages.
//!
//! Layout: a 48-byte header (magic, format version, chunk size, counts, header CRC); the
//! body: the postings of every key as LEB128 varints (file id delta, then block and first
//! line, or, within the same file, the block delta and the first line's, zigzagged), zeros
//! to the next chunk, the sorted 8-byte keys, for each key the offset of its postings (one
//! more offset closes the last), and the directory: the first key of each chunk of the key
//! table; then a CRC-32 for every 4 KiB chunk of the body. The manifest holds the CRC of
//! that table, so a segment is tied to the manifest that names it. A lookup verifies only the
//! chunks it reads, the first time it reads them: a damaged byte anywhere it looks is found,
//! and a lookup reads a few dozen KiB, not the file.
//!
//! A chunk is a page: with 64 KiB chunks the lookups of a timeline's two hops (2,714 keys)
//! checked more than half of a 513 MB segment. The directory (8 bytes for 512 keys, 192 KB
//! for the 12 million keys of a 10 GiB corpus) is read a page at a time as lookups need it,
//! so a key costs one page of keys, one of offsets and its postings: a search guessing from
//! the keys' values (they are hashes, evenly spread) read two or three pages of keys for each.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::OnceLock;

use super::checked::{self, CheckedFile, ChunkSums, Held};
use super::format::{Damage, crc, push_varint};
use super::manifest::FORMAT_VERSION;

const MAGIC: &[u8; 8] = b"IDGRPSEG";
const HEADER_LEN: u64 = 48;
const CHUNK: u64 = 4 * 1024;
/// The keys in a chunk of the key table, which starts at a chunk: one directory entry each.
const KEYS_PER_CHUNK: u64 = CHUNK / 8;

/// One posting: an ID key is on a block of a file, whose first line is `line` (for files
/// read whole, block 0 and line 0). A block is the lines that start in 256 bytes of the file
/// ([`super::read::BLOCK`]), so its number gives its bytes and the posting its line numbers:
/// a lookup needs nothing else to read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Posting {
    pub key: u64,
    pub file: u32,
    pub block: u32,
    pub line: u64,
}

impl Posting {
    pub const BYTES: usize = 24;

    pub fn to_bytes(self) -> [u8; Self::BYTES] {
        let mut b = [0; Self::BYTES];
        b[..8].copy_from_slice(&self.key.to_le_bytes());
        b[8..12].copy_from_slice(&self.file.to_le_bytes());
        b[12..16].copy_from_slice(&self.block.to_le_bytes());
        b[16..].copy_from_slice(&self.line.to_le_bytes());
        b
    }

    pub fn from_bytes(b: &[u8; Self::BYTES]) -> Posting {
        Posting {
            key: u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            file: u32::from_le_bytes(b[8..12].try_into().expect("4 bytes")),
            block: u32::from_le_bytes(b[12..16].try_into().expect("4 bytes")),
            line: u64::from_le_bytes(b[16..].try_into().expect("8 bytes")),
        }
    }
}

/// A block's place in a postings list: its file, number and first line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hit {
    pub file: u32,
    pub block: u32,
    pub line: u64,
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// The length and the chunk table's CRC of a written segment.
pub struct Written {
    pub len: u64,
    pub table_crc: u32,
}

/// Writes the postings `sorted` (ascending, without duplicates) as a segment at `path`.
/// Keys and offsets go to two spill files in `scratch_dir` as they come and are appended
/// after the postings, so memory stays flat however many keys there are.
pub fn write(
    path: &Path,
    scratch_dir: &Path,
    sorted: impl Iterator<Item = io::Result<Posting>>,
) -> io::Result<Written> {
    let keys_path = scratch_dir.join(format!("{}.keys", file_name(path)));
    let offsets_path = scratch_dir.join(format!("{}.offsets", file_name(path)));
    let result = write_with(path, &keys_path, &offsets_path, sorted);
    let _ = std::fs::remove_file(&keys_path);
    let _ = std::fs::remove_file(&offsets_path);
    result
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn write_with(
    path: &Path,
    keys_path: &Path,
    offsets_path: &Path,
    sorted: impl Iterator<Item = io::Result<Posting>>,
) -> io::Result<Written> {
    let mut file = File::create(path)?;
    file.write_all(&[0; HEADER_LEN as usize])?;
    let mut body = ChunkSums::new(BufWriter::with_capacity(1 << 20, file), CHUNK);
    let mut keys = BufWriter::new(File::create(keys_path)?);
    let mut offsets = BufWriter::new(File::create(offsets_path)?);
    let mut n_keys = 0u64;
    let mut postings_len = 0u64;
    let mut directory = Vec::new();
    let mut previous: Option<Posting> = None;
    let mut encoded = Vec::with_capacity(16);
    for posting in sorted {
        let p = posting?;
        encoded.clear();
        match previous {
            Some(q) if q.key == p.key => {
                if q.file == p.file {
                    push_varint(&mut encoded, 0);
                    push_varint(&mut encoded, u64::from(p.block - q.block));
                    let step = p.line.wrapping_sub(q.line) as i64;
                    push_varint(&mut encoded, zigzag(step));
                } else {
                    push_varint(&mut encoded, u64::from(p.file - q.file));
                    push_varint(&mut encoded, u64::from(p.block));
                    push_varint(&mut encoded, p.line);
                }
            }
            _ => {
                if n_keys.is_multiple_of(KEYS_PER_CHUNK) {
                    directory.push(p.key);
                }
                keys.write_all(&p.key.to_le_bytes())?;
                offsets.write_all(&postings_len.to_le_bytes())?;
                n_keys += 1;
                push_varint(&mut encoded, u64::from(p.file));
                push_varint(&mut encoded, u64::from(p.block));
                push_varint(&mut encoded, p.line);
            }
        }
        body.write_all(&encoded)?;
        postings_len += encoded.len() as u64;
        previous = Some(p);
    }
    offsets.write_all(&postings_len.to_le_bytes())?;
    let padding = keys_at(postings_len) - postings_len;
    body.write_all(&vec![0; padding as usize])?;
    for (spill, spill_path) in [(keys, keys_path), (offsets, offsets_path)] {
        drop(spill.into_inner().map_err(|e| e.into_error())?);
        io::copy(&mut File::open(spill_path)?, &mut body)?;
    }
    for first in directory {
        body.write_all(&first.to_le_bytes())?;
    }
    let (out, n_chunks, table_crc) = body.finish()?;
    let mut file = out.into_inner().map_err(|e| e.into_error())?;
    let header = header(n_keys, postings_len, n_chunks);
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&header)?;
    file.sync_all()?;
    let len = file.metadata()?.len();
    Ok(Written { len, table_crc })
}

/// Where the key table starts in a body whose postings take `postings_len` bytes: at a
/// chunk, so each chunk of keys is one directory entry's.
fn keys_at(postings_len: u64) -> u64 {
    postings_len.next_multiple_of(CHUNK)
}

fn header(n_keys: u64, postings_len: u64, n_chunks: u64) -> [u8; HEADER_LEN as usize] {
    let mut h = [0u8; HEADER_LEN as usize];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(CHUNK as u32).to_le_bytes());
    h[16..24].copy_from_slice(&n_keys.to_le_bytes());
    h[24..32].copy_from_slice(&postings_len.to_le_bytes());
    h[32..40].copy_from_slice(&n_chunks.to_le_bytes());
    let c = crc(&h[..40]);
    h[40..44].copy_from_slice(&c.to_le_bytes());
    h
}

/// A segment opened for lookups; shared by the search threads.
pub struct Segment {
    file: CheckedFile,
    n_keys: u64,
    postings_len: u64,
    /// The directory (the first key of each chunk of the key table), a chunk's worth of
    /// entries at a time, each read on first use: a lookup of one key reads one, a timeline's
    /// hops all of them (192 KB for 12 million keys), once.
    directory_pages: Vec<OnceLock<Box<[u64]>>>,
}

/// Keys a merge reads at once, with their offsets and postings.
const KEYS_PER_READ: u64 = 64 * 1024;
/// The most postings bytes a merge reads at once, unless one key's postings are longer.
const POSTINGS_PER_READ: u64 = 8 << 20;

impl Segment {
    /// Opens the segment at `path`, expected to be `len` bytes with a chunk table whose CRC
    /// is `table_crc` (what the manifest says).
    pub fn open(path: &Path, len: u64, table_crc: u32) -> Result<Segment, Damage> {
        let mut h = [0u8; HEADER_LEN as usize];
        let file = checked::open(path, len, &mut h)?;
        if &h[..8] != MAGIC {
            return Err(Damage("not an idgrep index segment".to_string()));
        }
        let word = |at: usize| u64::from_le_bytes(h[at..at + 8].try_into().expect("8 bytes"));
        let half = |at: usize| u32::from_le_bytes(h[at..at + 4].try_into().expect("4 bytes"));
        if half(8) != FORMAT_VERSION || u64::from(half(12)) != CHUNK {
            return Err(Damage("a segment of another idgrep version".to_string()));
        }
        if half(40) != crc(&h[..40]) {
            return Err(Damage(
                "a segment header's checksum does not match".to_string(),
            ));
        }
        let (n_keys, postings_len, n_chunks) = (word(16), word(24), word(32));
        let directory_len = n_keys.div_ceil(KEYS_PER_CHUNK);
        let body_len = n_keys
            .checked_mul(2)
            .and_then(|n| n.checked_add(directory_len + 1))
            .and_then(|n| n.checked_mul(8))
            .and_then(|tables| tables.checked_add(postings_len.checked_next_multiple_of(CHUNK)?))
            .ok_or_else(Damage::truncated)?;
        if n_chunks != body_len.div_ceil(CHUNK) {
            return Err(Damage("a segment's sizes do not add up".to_string()));
        }
        let file = CheckedFile::new(file, len, HEADER_LEN, body_len, CHUNK, table_crc)?;
        Ok(Segment {
            file,
            n_keys,
            postings_len,
            directory_pages: (0..directory_len.div_ceil(KEYS_PER_CHUNK))
                .map(|_| OnceLock::new())
                .collect(),
        })
    }

    /// Checks every byte of the segment against its CRCs: an update keeps a segment only
    /// when it is sound, where a search checks only the chunks it reads.
    pub fn verify(&self) -> Result<(), Damage> {
        self.file.verify()
    }

    /// Calls `found` with every posting of `key`: the directory names the one chunk of keys
    /// that may hold it.
    pub fn lookup(&self, key: u64, found: &mut dyn FnMut(Hit)) -> Result<(), Damage> {
        let Some(chunk) = self.chunk_of(key)? else {
            return Ok(());
        };
        let mut held = Held::default();
        let first = chunk * KEYS_PER_CHUNK;
        let last = (first + KEYS_PER_CHUNK).min(self.n_keys);
        let at = self.keys_at() + first * 8;
        let keys = self.file.get(at, self.keys_at() + last * 8, &mut held)?;
        let (mut lo, mut hi) = (0, keys.len() / 8);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let probe = u64::from_le_bytes(keys[mid * 8..mid * 8 + 8].try_into().expect("8 bytes"));
            match probe.cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let (start, end) = self.bounds(first + mid as u64, &mut held)?;
                    return decode_postings(self.file.get(start, end, &mut held)?, found);
                }
            }
        }
        Ok(())
    }

    /// Every posting, in order: what a merge reads. The keys, their offsets and their postings
    /// are read a run of keys at a time.
    pub fn for_each(&self, found: &mut dyn FnMut(Posting)) -> Result<(), Damage> {
        self.for_each_read(KEYS_PER_READ, POSTINGS_PER_READ, found)
    }

    /// [`Segment::for_each`], reading up to `keys_per_read` keys at once and their postings
    /// if they take up to `postings_per_read` bytes.
    fn for_each_read(
        &self,
        keys_per_read: u64,
        postings_per_read: u64,
        found: &mut dyn FnMut(Posting),
    ) -> Result<(), Damage> {
        let (mut keys, mut offsets, mut postings) = (Vec::new(), Vec::new(), Vec::new());
        let mut first = 0;
        while first < self.n_keys {
            let mut count = keys_per_read.max(1).min(self.n_keys - first);
            // The offsets of `count` keys, fewer while their postings are too long to hold.
            let bounds = loop {
                let at = self.offsets_at() + first * 8;
                let range = self.file.read(at, at + (count + 1) * 8, &mut offsets)?;
                let bounds: Vec<u64> = offsets[range]
                    .chunks_exact(8)
                    .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
                    .collect();
                if count == 1
                    || bounds[count as usize].saturating_sub(bounds[0]) <= postings_per_read
                {
                    break bounds;
                }
                count /= 2;
            };
            let at = self.keys_at() + first * 8;
            let key_range = self.file.read(at, at + count * 8, &mut keys)?;
            let (start, end) = (bounds[0], bounds[count as usize]);
            if start > end || end > self.postings_len {
                return Err(Damage("a postings list runs outside it".to_string()));
            }
            let read = self.file.read(start, end, &mut postings)?;
            let all = &postings[read];
            for (i, key) in keys[key_range].chunks_exact(8).enumerate() {
                let key = u64::from_le_bytes(key.try_into().expect("8 bytes"));
                let (from, to) = (bounds[i], bounds[i + 1]);
                if from < start || from > to || to > end {
                    return Err(Damage("a postings list runs outside it".to_string()));
                }
                let list = &all[(from - start) as usize..(to - start) as usize];
                decode_postings(list, &mut |hit| {
                    found(Posting {
                        key,
                        file: hit.file,
                        block: hit.block,
                        line: hit.line,
                    })
                })?;
            }
            first += count;
        }
        Ok(())
    }

    fn keys_at(&self) -> u64 {
        keys_at(self.postings_len)
    }

    /// The chunk of the key table whose keys span `key`, if any: the last whose first key is
    /// at most `key`. Keys are hashes, spread evenly, so the directory page that holds its
    /// entry is guessed from `key`'s value and is nearly always the one; from a wrong guess
    /// the walk moves one page at a time, and never back.
    fn chunk_of(&self, key: u64) -> Result<Option<u64>, Damage> {
        let pages = self.directory_pages.len();
        if pages == 0 {
            return Ok(None);
        }
        let mut p = ((u128::from(key) * pages as u128) >> 64) as usize;
        loop {
            let page = self.directory_page(p)?;
            if page.first().is_none_or(|&first| key < first) {
                if p == 0 {
                    return Ok(None);
                }
                p -= 1;
                continue;
            }
            let beyond = page.last().is_some_and(|&last| key >= last);
            if beyond && p + 1 < pages && self.directory_page(p + 1)?[0] <= key {
                p += 1;
                continue;
            }
            let i = page.partition_point(|&first| first <= key) - 1;
            return Ok(Some(p as u64 * KEYS_PER_CHUNK + i as u64));
        }
    }

    /// Page `p` of the directory, read and checked on first use. Two threads that need it at
    /// once may both read it; one copy is kept.
    fn directory_page(&self, p: usize) -> Result<&[u64], Damage> {
        let cell = &self.directory_pages[p];
        if let Some(page) = cell.get() {
            return Ok(page);
        }
        let first = p as u64 * KEYS_PER_CHUNK;
        let last = (first + KEYS_PER_CHUNK).min(self.n_keys.div_ceil(KEYS_PER_CHUNK));
        let mut bytes = Vec::new();
        // The directory follows the key offsets, one more than the keys.
        let at = self.offsets_at() + (self.n_keys + 1) * 8;
        let read = self.file.read(at + first * 8, at + last * 8, &mut bytes)?;
        let page = bytes[read]
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect();
        let _ = cell.set(page);
        Ok(cell.get().expect("set above"))
    }

    fn offsets_at(&self) -> u64 {
        self.keys_at() + self.n_keys * 8
    }

    /// Where the encoded postings of the `i`th key start and end.
    fn bounds(&self, i: u64, held: &mut Held) -> Result<(u64, u64), Damage> {
        let at = self.offsets_at() + i * 8;
        let bytes = self.file.get(at, at + 16, held)?;
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let (start, end) = (word(&bytes[..8]), word(&bytes[8..]));
        if start > end || end > self.postings_len {
            return Err(Damage("a postings list runs outside it".to_string()));
        }
        Ok((start, end))
    }
}

fn decode_postings(bytes: &[u8], found: &mut dyn FnMut(Hit)) -> Result<(), Damage> {
    let mut r = super::format::Reader::new(bytes);
    let mut hit = Hit {
        file: 0,
        block: 0,
        line: 0,
    };
    let mut first = true;
    let bad = || Damage("a postings list is damaged".to_string());
    while !r.at_end() {
        let file_delta = u32::try_from(r.varint()?).map_err(|_| bad())?;
        let value = u32::try_from(r.varint()?).map_err(|_| bad())?;
        let line = r.varint()?;
        if first || file_delta > 0 {
            hit.file = hit.file.checked_add(file_delta).ok_or_else(bad)?;
            hit.block = value;
            hit.line = line;
        } else {
            hit.block = hit.block.checked_add(value).ok_or_else(bad)?;
            hit.line = hit.line.wrapping_add(unzigzag(line) as u64);
        }
        first = false;
        found(hit);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    fn postings() -> Vec<Posting> {
        let mut v = Vec::new();
        for k in 0..20_000u64 {
            let key = k.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            for f in 0..(k % 4) as u32 {
                for b in [0, 3, 90_000] {
                    // Lines that rise with the blocks, and one that falls (a damaged file's
                    // postings must still read back as written).
                    v.push(Posting {
                        key,
                        file: f * 7,
                        block: b + f,
                        line: if b == 3 { 1 } else { u64::from(b) * 5 + k },
                    });
                }
            }
        }
        v.sort();
        v
    }

    fn written(dir: &Path) -> (std::path::PathBuf, Written) {
        let path = dir.join("seg");
        let w = write(&path, dir, postings().into_iter().map(Ok)).unwrap();
        (path, w)
    }

    #[test]
    fn every_key_finds_exactly_its_postings_and_others_find_none() {
        let dir = tempfile::tempdir().unwrap();
        let (path, w) = written(dir.path());
        let seg = Segment::open(&path, w.len, w.table_crc).unwrap();
        let all = postings();
        let mut seen = Vec::new();
        seg.for_each(&mut |p| seen.push(p)).unwrap();
        assert_eq!(seen, all);
        for p in all.iter().step_by(97) {
            let mut got = Vec::new();
            seg.lookup(p.key, &mut |h| got.push((h.file, h.block, h.line)))
                .unwrap();
            let want: Vec<_> = all
                .iter()
                .filter(|q| q.key == p.key)
                .map(|q| (q.file, q.block, q.line))
                .collect();
            assert_eq!(got, want);
        }
        let mut none = 0;
        seg.lookup(12345, &mut |_| none += 1).unwrap();
        assert_eq!(none, 0);
    }

    /// A merge reads every posting in order however few keys or postings bytes it reads at
    /// once, down to one key whose postings are longer than the bytes it may hold.
    #[test]
    fn every_posting_is_read_in_order_in_runs_of_any_size() {
        let dir = tempfile::tempdir().unwrap();
        let all: Vec<Posting> = postings().into_iter().take(3000).collect();
        let path = dir.path().join("seg");
        let w = write(&path, dir.path(), all.iter().copied().map(Ok)).unwrap();
        let seg = Segment::open(&path, w.len, w.table_crc).unwrap();
        for (keys, bytes) in [(1, 1 << 20), (7, 1 << 20), (1000, 64), (1 << 20, 3), (3, 0)] {
            let mut seen = Vec::new();
            seg.for_each_read(keys, bytes, &mut |p| seen.push(p))
                .unwrap();
            assert!(seen == all, "{keys} keys, {bytes} bytes at once");
        }
    }

    /// A segment of one posting for each of `keys` (sorted, distinct), written in `dir`.
    fn one_posting_each(dir: &Path, keys: &[u64]) -> (Vec<Posting>, Segment) {
        let all: Vec<Posting> = keys
            .iter()
            .map(|&key| Posting {
                key,
                file: (key % 5) as u32,
                block: (key % 11) as u32,
                line: key % 13,
            })
            .collect();
        let path = dir.join("seg");
        let w = write(&path, dir, all.iter().copied().map(Ok)).unwrap();
        (all, Segment::open(&path, w.len, w.table_crc).unwrap())
    }

    /// Each of `probes` (positions in `all`, whose keys are `keys`) finds its one posting, and
    /// the keys next to it that are absent find none.
    fn assert_found(
        seg: &Segment,
        all: &[Posting],
        keys: &[u64],
        probes: impl Iterator<Item = usize>,
    ) {
        for i in probes {
            let p = all[i];
            let mut got = Vec::new();
            seg.lookup(p.key, &mut |h| got.push((h.file, h.block, h.line)))
                .unwrap();
            assert_eq!(got, [(p.file, p.block, p.line)], "key {}", p.key);
            for absent in [p.key.wrapping_add(1), p.key.wrapping_sub(1)] {
                if keys.binary_search(&absent).is_err() {
                    let mut none = 0;
                    seg.lookup(absent, &mut |_| none += 1).unwrap();
                    assert_eq!(none, 0, "absent {absent}");
                }
            }
        }
    }

    #[test]
    fn every_key_is_found_however_unevenly_the_keys_are_spread() {
        // Keys crowded at both ends and in runs: the directory's chunks span uneven key ranges.
        let mut keys: Vec<u64> = (0..3000u64).collect();
        keys.extend((0..3000u64).map(|k| u64::MAX - k * 3));
        keys.extend((0..3000u64).map(|k| (1 << 40) + k * k));
        keys.sort_unstable();
        keys.dedup();
        let dir = tempfile::tempdir().unwrap();
        let (all, seg) = one_posting_each(dir.path(), &keys);
        assert_found(&seg, &all, &keys, 0..keys.len());
    }

    /// With more keys than one page of the directory names (512 chunks of 512 keys), a key is
    /// found from any page: keys spread evenly, where the guess is right, and crowded into a
    /// narrow span, where the walk moves from page to page; the first and last key of every
    /// chunk, and the keys next to them that are absent.
    #[test]
    fn every_key_is_found_through_a_directory_of_many_pages() {
        let spread = (1..400_000u64).map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        // Crowds at both ends: the guess for the keys between falls short of their page, and
        // for those of the crowd at the top, beyond it.
        let crowded = (0..300_000u64).map(|k| {
            if k % 2 == 0 {
                (1 << 50) + k * 7
            } else {
                u64::MAX - k * 7
            }
        });
        let mut keys: Vec<u64> = spread.chain(crowded).collect();
        keys.sort_unstable();
        keys.dedup();
        let dir = tempfile::tempdir().unwrap();
        let (all, seg) = one_posting_each(dir.path(), &keys);
        let pages = seg.directory_pages.len();
        assert!(pages > 2, "{pages} pages");
        let edges = (0..keys.len()).step_by(KEYS_PER_CHUNK as usize);
        let probes = edges
            .flat_map(|i| [i, i.saturating_sub(1)])
            .chain((0..keys.len()).step_by(997));
        assert_found(&seg, &all, &keys, probes);
        let mut none = 0;
        for absent in [0, u64::MAX] {
            if keys.binary_search(&absent).is_err() {
                seg.lookup(absent, &mut |_| none += 1).unwrap();
            }
        }
        assert_eq!(none, 0);
    }

    /// Recomputes the chunk CRCs and the header CRC of a damaged segment, as a forger would,
    /// so that the damage reaches the parser; returns the chunk table's CRC.
    /// `n_chunks`: the undamaged segment's, as its header counts may be damaged.
    fn reseal(bytes: &mut [u8], n_chunks: usize) -> u32 {
        let table_at = bytes.len() - n_chunks * 4;
        for c in 0..n_chunks {
            let from = HEADER_LEN as usize + c * CHUNK as usize;
            let to = (from + CHUNK as usize).min(table_at);
            let sum = crc(&bytes[from..to]);
            bytes[table_at + c * 4..table_at + c * 4 + 4].copy_from_slice(&sum.to_le_bytes());
        }
        let h = crc(&bytes[..40]);
        bytes[40..44].copy_from_slice(&h.to_le_bytes());
        crc(&bytes[table_at..])
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seg");
        let mut v: Vec<Posting> = (0..3000u64)
            .map(|k| Posting {
                key: k * 31,
                file: (k % 7) as u32,
                block: (k % 5) as u32,
                line: k % 5 * 3,
            })
            .collect();
        v.sort();
        let w = write(&path, dir.path(), v.iter().copied().map(Ok)).unwrap();
        let good = std::fs::read(&path).unwrap();
        let n_chunks = u64::from_le_bytes(good[32..40].try_into().unwrap()) as usize;
        let mut rng = Rng(0x9e37_79b9);
        let mut next = move || rng.next();
        for round in 0..300 {
            let mut bad = good.clone();
            for _ in 0..1 + next() % 3 {
                let at =
                    HEADER_LEN as usize + (next() as usize) % (bad.len() - HEADER_LEN as usize);
                bad[at] = next() as u8;
            }
            if round % 10 == 0 {
                // Damaged counts in the header too.
                let at = 16 + (next() as usize) % 24;
                bad[at] = next() as u8;
            }
            let table_crc = reseal(&mut bad, n_chunks);
            std::fs::write(&path, &bad).unwrap();
            if let Ok(seg) = Segment::open(&path, bad.len() as u64, table_crc) {
                let _ = seg.for_each(&mut |_| {});
                for k in 0..200u64 {
                    let _ = seg.lookup(k * 31 + next() % 2, &mut |_| {});
                }
            }
            let garbage: Vec<u8> = (0..next() % 200).map(|_| next() as u8).collect();
            std::fs::write(&path, &garbage).unwrap();
            let _ = Segment::open(&path, garbage.len() as u64, next() as u32);
        }
        let _ = w;
    }

    /// Lookups read the chunk table as they check chunks; an update's check of every byte
    /// also holds the table to its CRC in the manifest.
    #[test]
    fn verify_holds_the_table_to_the_manifests_crc() {
        let dir = tempfile::tempdir().unwrap();
        let (path, w) = written(dir.path());
        Segment::open(&path, w.len, w.table_crc)
            .unwrap()
            .verify()
            .unwrap();
        let named_otherwise = Segment::open(&path, w.len, w.table_crc ^ 1).unwrap();
        assert!(named_otherwise.verify().is_err());
    }

    #[test]
    fn a_damaged_byte_is_found_by_the_lookup_that_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let (path, w) = written(dir.path());
        let good = std::fs::read(&path).unwrap();
        let all = postings();
        for at in (0..good.len()).step_by(good.len() / 40) {
            let mut bad = good.clone();
            bad[at] ^= 0x01;
            std::fs::write(&path, &bad).unwrap();
            let result = Segment::open(&path, w.len, w.table_crc).and_then(|seg| {
                seg.for_each(&mut |_| {})?;
                for p in &all {
                    seg.lookup(p.key, &mut |_| {})?;
                }
                Ok(())
            });
            assert!(result.is_err(), "flip at {at} not found");
        }
        for cut in [0, 10, HEADER_LEN as usize, good.len() - 1] {
            std::fs::write(&path, &good[..cut]).unwrap();
            assert!(Segment::open(&path, w.len, w.table_crc).is_err());
        }
    }
}
