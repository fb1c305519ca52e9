//! The shape segments and the block tables file share: a header, a body, then a CRC-32 for
//! every chunk of the body, the whole file written once. Writing keeps a CRC per chunk as the
//! body goes out ([`ChunkSums`]). A segment is memory-mapped and checks a chunk the first
//! time anything in it is read ([`CheckedMap::body`]), so a lookup checks the few KiB it
//! reads, not the file, and still finds any damaged byte it relies on (the blocks file reads
//! and checks its chunks itself). The manifest holds the CRC of the chunk table, which ties
//! each such file to the manifest that names it.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::Mmap;

use super::format::{Damage, crc};

/// A writer that keeps a CRC of every `chunk` bytes written through it.
pub struct ChunkSums<W> {
    inner: W,
    chunk: u64,
    hasher: crc32fast::Hasher,
    in_chunk: u64,
    crcs: Vec<u32>,
}

impl<W: Write> ChunkSums<W> {
    pub fn new(inner: W, chunk: u64) -> Self {
        ChunkSums {
            inner,
            chunk,
            hasher: crc32fast::Hasher::new(),
            in_chunk: 0,
            crcs: Vec::new(),
        }
    }

    /// Flushes the body and writes the chunk table after it; returns the writer, the number
    /// of chunks and the table's CRC (for the manifest).
    pub fn finish(mut self) -> io::Result<(W, u64, u32)> {
        if self.in_chunk > 0 {
            self.crcs.push(self.hasher.finalize());
        }
        let mut table = Vec::with_capacity(self.crcs.len() * 4);
        for c in &self.crcs {
            table.extend_from_slice(&c.to_le_bytes());
        }
        self.inner.write_all(&table)?;
        self.inner.flush()?;
        Ok((self.inner, self.crcs.len() as u64, crc(&table)))
    }
}

impl<W: Write> Write for ChunkSums<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = buf.len().min((self.chunk - self.in_chunk) as usize);
        let n = self.inner.write(&buf[..n])?;
        self.hasher.update(&buf[..n]);
        self.in_chunk += n as u64;
        if self.in_chunk == self.chunk {
            let done = std::mem::take(&mut self.hasher);
            self.crcs.push(done.finalize());
            self.in_chunk = 0;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Maps the segment at `path`, which the manifest says is `len` bytes.
pub fn map(path: &Path, len: u64) -> Result<Mmap, Damage> {
    let file = File::open(path).map_err(unreadable)?;
    // SAFETY: segments are never written after a manifest names them:
    // an update writes new files under new names and renames a new manifest into place. A
    // file truncated under the map by something else would fault; idgrep itself never does.
    let map = unsafe { Mmap::map(&file) }.map_err(unreadable)?;
    has_len(map.len() as u64, len)?;
    Ok(map)
}

/// A file that could not be opened or read. The damage messages need not name the file: the
/// warning line does.
pub fn unreadable(e: io::Error) -> Damage {
    Damage(crate::source::io_reason(&e))
}

/// Checks that a file is the `len` bytes the manifest says.
pub fn has_len(actual: u64, len: u64) -> Result<(), Damage> {
    if actual != len {
        return Err(Damage(format!(
            "the file is {actual} bytes, the manifest says {len}"
        )));
    }
    Ok(())
}

/// Checks that a header of `header_len` bytes, a body of `body_len` and the table of its
/// `chunk`-byte chunks add up to `len`; returns the number of chunks.
pub fn chunk_count(header_len: u64, body_len: u64, chunk: u64, len: u64) -> Result<u64, Damage> {
    let chunks = body_len.div_ceil(chunk);
    if header_len
        .checked_add(body_len)
        .and_then(|b| b.checked_add(chunks.checked_mul(4)?))
        != Some(len)
    {
        return Err(Damage("the file's sizes do not add up".to_string()));
    }
    Ok(chunks)
}

/// Checks a chunk table against its CRC in the manifest, `table_crc`.
pub fn check_table(table: &[u8], table_crc: u32) -> Result<(), Damage> {
    if crc(table) != table_crc {
        return Err(Damage(
            "the file's checksum table does not match the manifest".to_string(),
        ));
    }
    Ok(())
}

/// Checks `bytes`, chunk `c` of a body, against its CRC in the chunk table `table`.
pub fn check_chunk(table: &[u8], c: u64, bytes: &[u8]) -> Result<(), Damage> {
    let at = c as usize * 4;
    let want = u32::from_le_bytes(table[at..at + 4].try_into().expect("4 bytes"));
    if crc(bytes) != want {
        return Err(Damage("a chunk's checksum does not match".to_string()));
    }
    Ok(())
}

/// A mapped file whose header its owner has checked and measured: the body's chunks are
/// checked against their CRCs as they are first read. Shared by the search threads.
///
/// The CRCs are read where they lie in the map and the checked chunks are kept as bits, so
/// opening costs nothing per chunk: the segment of 10 GiB of logs has 125,000 chunks, of
/// which a lookup reads a few dozen.
pub struct CheckedMap {
    map: Mmap,
    header_len: u64,
    body_len: u64,
    chunk: u64,
    chunks: u64,
    /// Bit c is set once chunk c has matched its CRC.
    verified: Vec<AtomicU64>,
}

impl CheckedMap {
    /// Checks that a header of `header_len` bytes, a body of `body_len` and the table of its
    /// `chunk`-byte chunks add up to the mapped length, and that the table's CRC is
    /// `table_crc` (what the manifest says).
    pub fn new(
        map: Mmap,
        header_len: u64,
        body_len: u64,
        chunk: u64,
        table_crc: u32,
    ) -> Result<CheckedMap, Damage> {
        let chunks = chunk_count(header_len, body_len, chunk, map.len() as u64)?;
        check_table(&map[(header_len + body_len) as usize..], table_crc)?;
        let verified = (0..chunks.div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        Ok(CheckedMap {
            map,
            header_len,
            body_len,
            chunk,
            chunks,
            verified,
        })
    }

    /// The body bytes `start..end`, each chunk they touch checked against its CRC once.
    pub fn body(&self, start: u64, end: u64) -> Result<&[u8], Damage> {
        if start > end || end > self.body_len {
            return Err(Damage("an offset points outside the file".to_string()));
        }
        if start == end {
            return Ok(&[]);
        }
        let first = start / self.chunk;
        let last = end.saturating_sub(1).max(start) / self.chunk;
        for c in first..=last.min(self.chunks - 1) {
            let (word, bit) = (&self.verified[(c / 64) as usize], 1u64 << (c % 64));
            if word.load(Ordering::Relaxed) & bit == 0 {
                let from = self.header_len + c * self.chunk;
                let to = (from + self.chunk).min(self.header_len + self.body_len);
                check_chunk(self.table(), c, &self.map[from as usize..to as usize])?;
                // Two threads may both check a chunk; both find it sound.
                word.fetch_or(bit, Ordering::Relaxed);
            }
        }
        let from = (self.header_len + start) as usize;
        Ok(&self.map[from..from + (end - start) as usize])
    }

    /// Checks every chunk of the body against its CRC.
    pub fn verify(&self) -> Result<(), Damage> {
        self.body(0, self.body_len).map(|_| ())
    }

    /// The chunk table, after the body.
    fn table(&self) -> &[u8] {
        &self.map[(self.header_len + self.body_len) as usize..]
    }

    /// The 8 little-endian bytes of the body at `at`.
    pub fn u64_at(&self, at: u64) -> Result<u64, Damage> {
        let b = self.body(at, at + 8)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }
}
