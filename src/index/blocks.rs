//! The block tables file: every indexed file's blocks (start offset and first line number),
//! fixed-width, so a lookup turns a posting into bytes by reading two entries instead of
//! decoding a whole table. A hot ID names thousands of blocks across hundreds of files;
//! decoding those files' delta-encoded tables cost more than reading the blocks.
//!
//! Layout: a 32-byte header (magic, format version, chunk size, entry count, header CRC);
//! the entries, 16 bytes each (start, first line; little-endian); a CRC-32 for every
//! [`CHUNK`] bytes of entries. The manifest holds the CRC of that table, as it does for a
//! segment, and each file's first entry and count. A lookup reads and checks the chunks
//! that hold the entries it needs, so it reads a KiB per block it reads, not the file's table.
//!
//! The file is read with positional reads, not mapped: a hot ID's entries lie in thousands
//! of pages of a file of 150 MB (10 GiB of logs), and mapping them cost a page fault per
//! 64 KiB touched and as much again to unmap them when the search ends, each several times
//! a read of the same KiB.
//!
//! Like a segment, the file is written once under a fresh name (`blocks-*`), before the
//! manifest that names it is renamed into place.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use super::checked::{self, CheckedFile, ChunkSums};
use super::format::{Damage, crc};
use super::manifest::FORMAT_VERSION;

const MAGIC: &[u8; 8] = b"IDGRPBLK";
const HEADER_LEN: usize = 32;
const ENTRY: usize = 16;
/// Bytes of entries under one CRC: 64 entries, so a lookup checks about 1 KiB per block it
/// reads.
const CHUNK: usize = 1024;

/// The length and the chunk table's CRC of a written blocks file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub len: u64,
    pub table_crc: u32,
}

/// Writes `entries` (every file's table, one after another) to `path` and syncs it.
pub fn write(path: &Path, entries: &[(u64, u64)]) -> io::Result<Written> {
    let mut header = [0u8; HEADER_LEN];
    header[..8].copy_from_slice(MAGIC);
    header[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    header[12..16].copy_from_slice(&(CHUNK as u32).to_le_bytes());
    header[16..24].copy_from_slice(&(entries.len() as u64).to_le_bytes());
    let c = crc(&header[..24]);
    header[24..28].copy_from_slice(&c.to_le_bytes());
    let mut file = File::create(path)?;
    let mut out = io::BufWriter::with_capacity(1 << 20, &mut file);
    out.write_all(&header)?;
    let mut body = ChunkSums::new(out, CHUNK as u64);
    for &(start, line) in entries {
        body.write_all(&start.to_le_bytes())?;
        body.write_all(&line.to_le_bytes())?;
    }
    let (out, _, table_crc) = body.finish()?;
    drop(out);
    file.sync_all()?;
    Ok(Written {
        len: file.metadata()?.len(),
        table_crc,
    })
}

/// A blocks file opened for reading; shared by the search threads.
pub struct Blocks {
    file: CheckedFile,
    entries: u64,
}

impl Blocks {
    /// Opens the blocks file at `path`, expected to be `len` bytes with a chunk table whose
    /// CRC is `table_crc` (what the manifest says).
    pub fn open(path: &Path, len: u64, table_crc: u32) -> Result<Blocks, Damage> {
        let mut h = [0u8; HEADER_LEN];
        let file = checked::open(path, len, &mut h)?;
        if &h[..8] != MAGIC {
            return Err(Damage("not an idgrep block tables file".to_string()));
        }
        let half = |at: usize| u32::from_le_bytes(h[at..at + 4].try_into().expect("4 bytes"));
        if half(8) != FORMAT_VERSION || half(12) as usize != CHUNK {
            return Err(Damage("block tables of another idgrep version".to_string()));
        }
        if half(24) != crc(&h[..24]) {
            return Err(Damage(
                "the block tables' header checksum does not match".to_string(),
            ));
        }
        let entries = u64::from_le_bytes(h[16..24].try_into().expect("8 bytes"));
        let body_len = entries
            .checked_mul(ENTRY as u64)
            .ok_or_else(Damage::truncated)?;
        let file = CheckedFile::new(
            file,
            len,
            HEADER_LEN as u64,
            body_len,
            CHUNK as u64,
            table_crc,
        )?;
        Ok(Blocks { file, entries })
    }

    /// How many entries the file holds.
    pub fn len(&self) -> u64 {
        self.entries
    }

    /// Checks every chunk against its CRC.
    pub fn verify(&self) -> Result<(), Damage> {
        self.file.verify()
    }

    /// Entries `first..first + count`, each a block's start offset and first line, read at
    /// once with every chunk they touch checked. `first_of`: the runs of entries (first,
    /// count) the caller reads one after another, when this is the first of them; if they are
    /// on disk, they are asked for at once ([`CheckedFile::read_first`]).
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
        let mut bytes = Vec::new();
        let (start, end) = (first * ENTRY as u64, (first + count) * ENTRY as u64);
        let range = match first_of {
            None => self.file.read(start, end, &mut bytes)?,
            Some(runs) => {
                // Runs out of bounds are left to their own reads to report.
                let spans: Vec<(u64, u64)> = runs
                    .iter()
                    .filter(|&&(f, n)| f.checked_add(n).is_some_and(|e| e <= self.entries))
                    .map(|&(f, n)| (f * ENTRY as u64, (f + n) * ENTRY as u64))
                    .collect();
                self.file.read_first(start, end, &mut bytes, &spans)?
            }
        };
        Ok(bytes[range]
            .chunks_exact(ENTRY)
            .map(|e| {
                (
                    u64::from_le_bytes(e[..8].try_into().expect("8 bytes")),
                    u64::from_le_bytes(e[8..].try_into().expect("8 bytes")),
                )
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
        for keep in [0, 10, HEADER_LEN, good.len() - 1] {
            std::fs::write(&path, &good[..keep]).unwrap();
            assert!(Blocks::open(&path, keep as u64, w.table_crc).is_err());
        }
    }
}
