//! The block tables file: every indexed file's blocks (start offset and first line number),
//! fixed-width, so a lookup turns a posting into bytes by reading two entries instead of
//! decoding a whole table. A hot ID names thousands of blocks across hundreds of files;
//! decoding those files' delta-encoded tables cost more than reading the blocks.
//!
//! Layout: a 32-byte header (magic, format version, chunk size, entry count, header CRC),
//! then the entries in chunks of [`CHUNK`] bytes: [`PER_CHUNK`] entries of 12 bytes (start
//! and first line, 48 bits each, little-endian; the last chunk padded with zeros) and the
//! CRC-32 of those 60 bytes. A chunk is a cache line that vouches for itself, so turning a
//! posting into bytes is one read of 64 or 128 bytes, checked as it arrives. A CRC per KiB
//! of entries kept in a table apart would cost each posting a read of a KiB and each file
//! one of a page of CRCs: copying those bytes out of the page cache was a fifth of a
//! lookup's time. The manifest holds the CRC of the chunks' CRCs, checked with every byte by
//! [`Blocks::verify`] (an update does): with the file's unique name, its length and its
//! header's CRC, it ties the file to the manifest that names it.
//!
//! The file is read with positional reads, not mapped: a hot ID's entries lie in thousands
//! of pages of a file of 150 MB (10 GiB of logs), and mapping them cost a page fault per
//! 64 KiB touched and as much again to unmap them when the search ends, each several times
//! a read of the same bytes.
//!
//! Like a segment, the file is written once under a fresh name (`blocks-*`), before the
//! manifest that names it is renamed into place.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use super::checked;
use super::format::{Damage, crc};
use super::manifest::FORMAT_VERSION;
use super::ranges::{read_exact_at, read_exact_first};
use super::readahead;

const MAGIC: &[u8; 8] = b"IDGRPBLK";
const HEADER_LEN: u64 = 32;
const ENTRY: usize = 12;
/// Entries per chunk: as many as fit a 64-byte chunk beside its CRC.
const PER_CHUNK: u64 = 5;
const CHUNK: u64 = 64;
/// The bytes of a chunk its CRC covers.
const ENTRIES_LEN: usize = PER_CHUNK as usize * ENTRY;
/// The largest start offset or line number an entry holds (48 bits: 256 TiB).
const MAX_VALUE: u64 = (1 << 48) - 1;
/// Chunks checked at a time by [`Blocks::verify`] (1 MiB).
const VERIFY_CHUNKS: u64 = 16 * 1024;

/// The chunks `first..upto` that hold entries `first_entry..first_entry + count`.
fn chunks_of(first_entry: u64, count: u64) -> (u64, u64) {
    (
        first_entry / PER_CHUNK,
        (first_entry + count).div_ceil(PER_CHUNK),
    )
}

/// The length and the CRC of the chunks' CRCs of a written blocks file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub len: u64,
    pub table_crc: u32,
}

/// Writes `entries` (every file's table, one after another) to `path` and syncs it. A start
/// or line number past 48 bits (a file of 256 TiB) is an error, not a wrong table.
pub fn write(path: &Path, entries: &[(u64, u64)]) -> io::Result<Written> {
    let mut header = [0u8; HEADER_LEN as usize];
    header[..8].copy_from_slice(MAGIC);
    header[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    header[12..16].copy_from_slice(&(CHUNK as u32).to_le_bytes());
    header[16..24].copy_from_slice(&(entries.len() as u64).to_le_bytes());
    let c = crc(&header[..24]);
    header[24..28].copy_from_slice(&c.to_le_bytes());
    let mut file = File::create(path)?;
    let mut out = io::BufWriter::with_capacity(1 << 20, &mut file);
    out.write_all(&header)?;
    let mut crcs = crc32fast::Hasher::new();
    for group in entries.chunks(PER_CHUNK as usize) {
        let mut chunk = [0u8; CHUNK as usize];
        for (slot, &(start, line)) in chunk.chunks_exact_mut(ENTRY).zip(group) {
            if start > MAX_VALUE || line > MAX_VALUE {
                return Err(io::Error::other("a file too large to index (256 TiB)"));
            }
            slot[..6].copy_from_slice(&start.to_le_bytes()[..6]);
            slot[6..].copy_from_slice(&line.to_le_bytes()[..6]);
        }
        let sum = crc(&chunk[..ENTRIES_LEN]).to_le_bytes();
        chunk[ENTRIES_LEN..].copy_from_slice(&sum);
        crcs.update(&sum);
        out.write_all(&chunk)?;
    }
    out.flush()?;
    drop(out);
    file.sync_all()?;
    Ok(Written {
        len: file.metadata()?.len(),
        table_crc: crcs.finalize(),
    })
}

/// A blocks file opened for reading; shared by the search threads.
pub struct Blocks {
    file: File,
    entries: u64,
    /// The CRC of the chunks' CRCs, as the manifest says, for [`Blocks::verify`].
    table_crc: u32,
}

impl Blocks {
    /// Opens the blocks file at `path`, expected to be `len` bytes whose chunks' CRCs have
    /// the CRC `table_crc` (what the manifest says).
    pub fn open(path: &Path, len: u64, table_crc: u32) -> Result<Blocks, Damage> {
        let mut h = [0u8; HEADER_LEN as usize];
        let file = checked::open(path, len, &mut h)?;
        if &h[..8] != MAGIC {
            return Err(Damage("not an idgrep block tables file".to_string()));
        }
        let half = |at: usize| u32::from_le_bytes(h[at..at + 4].try_into().expect("4 bytes"));
        if half(8) != FORMAT_VERSION || u64::from(half(12)) != CHUNK {
            return Err(Damage("block tables of another idgrep version".to_string()));
        }
        if half(24) != crc(&h[..24]) {
            return Err(Damage(
                "the block tables' header checksum does not match".to_string(),
            ));
        }
        let entries = u64::from_le_bytes(h[16..24].try_into().expect("8 bytes"));
        let body = entries.div_ceil(PER_CHUNK).checked_mul(CHUNK);
        if body.and_then(|b| b.checked_add(HEADER_LEN)) != Some(len) {
            return Err(Damage("the file's sizes do not add up".to_string()));
        }
        Ok(Blocks {
            file,
            entries,
            table_crc,
        })
    }

    /// How many entries the file holds.
    pub fn len(&self) -> u64 {
        self.entries
    }

    /// Checks every chunk against its CRC, and their CRCs against the manifest's.
    pub fn verify(&self) -> Result<(), Damage> {
        let chunks = self.entries.div_ceil(PER_CHUNK);
        let mut crcs = crc32fast::Hasher::new();
        let mut buf = Vec::new();
        let mut at = 0;
        while at < chunks {
            let upto = (at + VERIFY_CHUNKS).min(chunks);
            self.read_chunks(at, upto, &mut buf, None)?;
            for chunk in buf.chunks_exact(CHUNK as usize) {
                crcs.update(&chunk[ENTRIES_LEN..]);
            }
            at = upto;
        }
        if crcs.finalize() != self.table_crc {
            return Err(Damage(
                "the file's checksums do not match the manifest".to_string(),
            ));
        }
        Ok(())
    }

    /// Reads chunks `first..upto` into `buf` and checks each against its CRC. `first_of`: as
    /// for [`Blocks::entries`], the runs of entries read one after another.
    fn read_chunks(
        &self,
        first: u64,
        upto: u64,
        buf: &mut Vec<u8>,
        first_of: Option<&[(u64, u64)]>,
    ) -> Result<(), Damage> {
        buf.resize(((upto - first) * CHUNK) as usize, 0);
        let at = HEADER_LEN + first * CHUNK;
        match first_of {
            Some(runs) => read_exact_first(&self.file, buf, at, || self.will_need(runs)),
            None => read_exact_at(&self.file, buf, at),
        }
        .map_err(checked::unreadable)?;
        for chunk in buf.chunks_exact(CHUNK as usize) {
            let want = u32::from_le_bytes(chunk[ENTRIES_LEN..].try_into().expect("4 bytes"));
            if crc(&chunk[..ENTRIES_LEN]) != want {
                return Err(Damage("a chunk's checksum does not match".to_string()));
            }
        }
        Ok(())
    }

    /// Asks for the chunks that hold the runs of entries (first, count); runs out of bounds
    /// are left to their own reads to report.
    fn will_need(&self, runs: &[(u64, u64)]) {
        let spans = runs
            .iter()
            .filter(|&&(f, n)| n > 0 && f.checked_add(n).is_some_and(|e| e <= self.entries))
            .map(|&(f, n)| {
                let (from, upto) = chunks_of(f, n);
                (HEADER_LEN + from * CHUNK, (upto - from) * CHUNK)
            });
        readahead::will_need(&self.file, spans);
    }

    /// Entries `first..first + count`, each a block's start offset and first line, read at
    /// once with every chunk they touch checked. `first_of`: the runs of entries (first,
    /// count) the caller reads one after another, when this is the first of them; if they are
    /// on disk, they are asked for at once ([`super::readahead`]).
    pub fn entries(
        &self,
        first: u64,
        count: u64,
        first_of: Option<&[(u64, u64)]>,
    ) -> Result<Vec<(u64, u64)>, Damage> {
        if first
            .checked_add(count)
            .is_none_or(|end| end > self.entries)
        {
            return Err(Damage(
                "a block table points outside the block tables".to_string(),
            ));
        }
        if count == 0 {
            return Ok(Vec::new());
        }
        let (from, upto) = chunks_of(first, count);
        let mut bytes = Vec::new();
        self.read_chunks(from, upto, &mut bytes, first_of)?;
        let skip = (first - from * PER_CHUNK) as usize;
        Ok(bytes
            .chunks_exact(CHUNK as usize)
            .flat_map(|chunk| chunk[..ENTRIES_LEN].chunks_exact(ENTRY))
            .skip(skip)
            .take(count as usize)
            .map(|e| {
                let mut start = [0u8; 8];
                let mut line = [0u8; 8];
                start[..6].copy_from_slice(&e[..6]);
                line[..6].copy_from_slice(&e[6..]);
                (u64::from_le_bytes(start), u64::from_le_bytes(line))
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries() -> Vec<(u64, u64)> {
        (0..1000u64).map(|i| (i * 4100, i * 37 + 1)).collect()
    }

    #[test]
    fn every_entry_reads_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blocks");
        let all = entries();
        let w = write(&path, &all).unwrap();
        let blocks = Blocks::open(&path, w.len, w.table_crc).unwrap();
        assert_eq!(blocks.len(), all.len() as u64);
        for (i, &e) in all.iter().enumerate().rev() {
            assert_eq!(blocks.entries(i as u64, 1, None), Ok(vec![e]));
        }
        assert!(blocks.entries(all.len() as u64, 1, None).is_err());
        assert_eq!(blocks.entries(0, all.len() as u64, None), Ok(all.clone()));
        assert_eq!(blocks.entries(70, 3, None), Ok(all[70..73].to_vec()));
        // Runs that cross chunks (five entries each) and end in the last, padded one.
        assert_eq!(blocks.entries(4, 2, None), Ok(all[4..6].to_vec()));
        assert_eq!(blocks.entries(9, 7, None), Ok(all[9..16].to_vec()));
        let spans = [(9, 7), (500, 3)];
        assert_eq!(blocks.entries(9, 7, Some(&spans)), Ok(all[9..16].to_vec()));
        let odd = &all[..998];
        let w = write(&path, odd).unwrap();
        let blocks = Blocks::open(&path, w.len, w.table_crc).unwrap();
        assert_eq!(blocks.entries(990, 8, None), Ok(odd[990..].to_vec()));
        assert!(blocks.entries(990, 9, None).is_err());
        assert_eq!(blocks.verify(), Ok(()));
        // Tables from another index: their chunks are sound, their CRCs are not the manifest's.
        let other = Blocks::open(&path, w.len, w.table_crc ^ 1).unwrap();
        assert!(other.verify().is_err());
    }

    /// A table whose values do not fit the entries' 48 bits is refused, not written wrong.
    #[test]
    fn values_past_48_bits_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blocks");
        let top = (1u64 << 48) - 1;
        let w = write(&path, &[(top, top)]).unwrap();
        let blocks = Blocks::open(&path, w.len, w.table_crc).unwrap();
        assert_eq!(blocks.entries(0, 1, None), Ok(vec![(top, top)]));
        assert!(write(&path, &[(top + 1, 1)]).is_err());
        assert!(write(&path, &[(1, top + 1)]).is_err());
    }

    #[test]
    fn an_empty_table_opens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blocks");
        let w = write(&path, &[]).unwrap();
        let blocks = Blocks::open(&path, w.len, w.table_crc).unwrap();
        assert_eq!(blocks.len(), 0);
        assert!(blocks.entries(0, 1, None).is_err());
        assert_eq!(blocks.entries(0, 0, None), Ok(vec![]));
    }

    #[test]
    fn a_flipped_byte_anywhere_is_found_where_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blocks");
        let all = entries();
        let w = write(&path, &all).unwrap();
        let good = std::fs::read(&path).unwrap();
        for at in (0..good.len()).step_by(61) {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            std::fs::write(&path, &bad).unwrap();
            let damaged = match Blocks::open(&path, w.len, w.table_crc) {
                Err(_) => true,
                Ok(blocks) => (0..all.len() as u64).any(|i| blocks.entries(i, 1, None).is_err()),
            };
            assert!(damaged, "a flip at byte {at} went unnoticed");
        }
    }

    #[test]
    fn a_cut_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blocks");
        let w = write(&path, &entries()).unwrap();
        let good = std::fs::read(&path).unwrap();
        for keep in [0, 10, HEADER_LEN as usize, good.len() - 1] {
            std::fs::write(&path, &good[..keep]).unwrap();
            assert!(Blocks::open(&path, keep as u64, w.table_crc).is_err());
        }
    }
}
