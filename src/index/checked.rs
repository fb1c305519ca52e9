//! The shape of a segment: a header, a body, then a CRC-32 for every chunk of the body, the
//! whole file written once. Writing keeps a CRC per chunk as the body goes out
//! ([`ChunkSums`]). Reading takes whole chunks and checks each against its CRC
//! ([`CheckedFile::read`]), so a lookup checks the few KiB it reads, not the file, and still
//! finds any damaged byte it relies on. The chunk table itself is read a page at a time, as
//! the chunks it vouches for are checked: reading and checking the chunk tables of a 10 GiB
//! index whole (1.2 MB) took 0.8-1.0 ms of opening it, most of what a lookup that finds
//! nothing spends beyond the walk. The manifest holds the CRC of the chunk table, which
//! [`CheckedFile::verify`] checks with every byte (an update does): with the file's unique
//! name, its length and its header's CRC, it ties a segment to the manifest that names it.

use std::fs::File;
use std::io::{self, Write};
use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

use super::format::{Damage, crc};
use super::ranges::read_exact_at;

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

/// Opens the file at `path`, which the manifest says is `len` bytes, and reads its first
/// `header.len()` bytes into `header`.
pub fn open(path: &Path, len: u64, header: &mut [u8]) -> Result<File, Damage> {
    let file = File::open(path).map_err(unreadable)?;
    has_len(file.metadata().map_err(unreadable)?.len(), len)?;
    if len < header.len() as u64 {
        return Err(Damage::truncated());
    }
    read_exact_at(&file, header, 0).map_err(unreadable)?;
    Ok(file)
}

/// A file that could not be opened or read. The damage messages need not name the file: the
/// warning line does.
fn unreadable(e: io::Error) -> Damage {
    Damage(crate::source::io_reason(&e))
}

/// Checks that a file is the `len` bytes the manifest says.
fn has_len(actual: u64, len: u64) -> Result<(), Damage> {
    if actual != len {
        return Err(Damage(format!(
            "the file is {actual} bytes, the manifest says {len}"
        )));
    }
    Ok(())
}

/// Checks that a header of `header_len` bytes, a body of `body_len` and the table of its
/// `chunk`-byte chunks add up to `len`; returns the number of chunks.
fn chunk_count(header_len: u64, body_len: u64, chunk: u64, len: u64) -> Result<u64, Damage> {
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
fn check_table(table: &[u8], table_crc: u32) -> Result<(), Damage> {
    if crc(table) != table_crc {
        return Err(Damage(
            "the file's checksum table does not match the manifest".to_string(),
        ));
    }
    Ok(())
}

/// Checks `bytes`, a chunk of a body, against `want`, its CRC in the chunk table.
fn check_chunk(want: u32, bytes: &[u8]) -> Result<(), Damage> {
    if crc(bytes) != want {
        return Err(Damage("a chunk's checksum does not match".to_string()));
    }
    Ok(())
}

/// The CRC of chunk `c` in `table`, bytes of a chunk table starting at chunk `first`.
fn crc_in(table: &[u8], first: u64, c: u64) -> u32 {
    let at = (c - first) as usize * 4;
    u32::from_le_bytes(table[at..at + 4].try_into().expect("4 bytes"))
}

/// Bytes of a chunk table read at once, when a chunk it vouches for is first checked: the
/// CRCs of 1,024 chunks.
const TABLE_PAGE: u64 = 4096;

/// A file whose header its owner has checked and measured, read by positional reads: each
/// read takes the whole chunks that hold the bytes asked for and checks them against their
/// CRCs, so a lookup checks the few KiB it reads, not the file. Shared by the search threads.
///
/// Not mapped: a timeline's second hop looks up thousands of keys, a few pages each, and each
/// page fault of a map also mapped the 64 KiB around it: 419 MB of a 470 MB segment was mapped
/// by the end of such a run, and unmapping it took 13 ms of the run.
pub struct CheckedFile {
    file: File,
    header_len: u64,
    body_len: u64,
    chunk: u64,
    /// The chunk table's CRC, as the manifest says.
    table_crc: u32,
    /// The chunk table (a CRC-32 per chunk of the body, little-endian), a [`TABLE_PAGE`] at a
    /// time, each read on first use. Shared by the search threads: two that need the same
    /// page at once may both read it, and one copy is kept.
    table_pages: Vec<OnceLock<Box<[u8]>>>,
}

impl CheckedFile {
    /// Checks that a header of `header_len` bytes, a body of `body_len` and the table of its
    /// `chunk`-byte chunks add up to `len`, the file's length; `table_crc` is the table's
    /// CRC, as the manifest says, for [`CheckedFile::verify`].
    pub fn new(
        file: File,
        len: u64,
        header_len: u64,
        body_len: u64,
        chunk: u64,
        table_crc: u32,
    ) -> Result<CheckedFile, Damage> {
        let chunks = chunk_count(header_len, body_len, chunk, len)?;
        let pages = (chunks * 4).div_ceil(TABLE_PAGE) as usize;
        Ok(CheckedFile {
            file,
            header_len,
            body_len,
            chunk,
            table_crc,
            table_pages: (0..pages).map(|_| OnceLock::new()).collect(),
        })
    }

    /// The CRC of chunk `c`, from its page of the chunk table (read now if it has not been).
    fn crc_of(&self, c: u64) -> Result<u32, Damage> {
        let at = c * 4;
        let page = (at / TABLE_PAGE) as usize;
        let cell = &self.table_pages[page];
        let bytes = match cell.get() {
            Some(bytes) => bytes,
            None => {
                let start = page as u64 * TABLE_PAGE;
                let len = TABLE_PAGE.min(self.chunks() * 4 - start);
                let mut read = vec![0u8; len as usize];
                read_exact_at(&self.file, &mut read, self.table_at() + start)
                    .map_err(unreadable)?;
                // Another thread may have read it meanwhile: the bytes are the same.
                let _ = cell.set(read.into_boxed_slice());
                cell.get().expect("set above")
            }
        };
        Ok(crc_in(bytes, page as u64 * TABLE_PAGE / 4, c))
    }

    fn chunks(&self) -> u64 {
        self.body_len.div_ceil(self.chunk)
    }

    /// Where the chunk table starts in the file.
    fn table_at(&self) -> u64 {
        self.header_len + self.body_len
    }

    /// Reads the chunks that hold the body bytes `start..end` into `buf` and checks each
    /// against its CRC; returns where those bytes lie in `buf`.
    pub fn read(&self, start: u64, end: u64, buf: &mut Vec<u8>) -> Result<Range<usize>, Damage> {
        self.read_checked(start, end, buf, |c| self.crc_of(c))
    }

    /// [`CheckedFile::read`], each chunk `c` checked against `crc_of(c)`.
    fn read_checked(
        &self,
        start: u64,
        end: u64,
        buf: &mut Vec<u8>,
        crc_of: impl Fn(u64) -> Result<u32, Damage>,
    ) -> Result<Range<usize>, Damage> {
        if start > end || end > self.body_len {
            return Err(Damage("an offset points outside the file".to_string()));
        }
        if start == end {
            return Ok(0..0);
        }
        let first = start / self.chunk;
        let from = first * self.chunk;
        let to = end
            .div_ceil(self.chunk)
            .saturating_mul(self.chunk)
            .min(self.body_len);
        buf.resize((to - from) as usize, 0);
        read_exact_at(&self.file, buf, self.header_len + from).map_err(unreadable)?;
        for (c, bytes) in (first..).zip(buf.chunks(self.chunk as usize)) {
            check_chunk(crc_of(c)?, bytes)?;
        }
        Ok((start - from) as usize..(end - from) as usize)
    }

    /// Checks the chunk table against its CRC in the manifest, then every chunk of the body
    /// against its CRC, a MiB at a time.
    pub fn verify(&self) -> Result<(), Damage> {
        let mut table = vec![0u8; self.chunks() as usize * 4];
        read_exact_at(&self.file, &mut table, self.table_at()).map_err(unreadable)?;
        check_table(&table, self.table_crc)?;
        let step = self.chunk * 256;
        let mut buf = Vec::new();
        let mut at = 0;
        while at < self.body_len {
            let end = (at + step).min(self.body_len);
            self.read_checked(at, end, &mut buf, |c| Ok(crc_in(&table, 0, c)))?;
            at = end;
        }
        Ok(())
    }

    /// The body bytes `start..end`: from the chunks `held` holds when they cover them, else
    /// read and checked into it.
    pub fn get<'h>(&self, start: u64, end: u64, held: &'h mut Held) -> Result<&'h [u8], Damage> {
        if !(held.from <= start && start <= end && end <= held.to) {
            // Nothing is held while the read may fail half done.
            (held.from, held.to) = (0, 0);
            let range = self.read(start, end, &mut held.bytes)?;
            held.from = start - range.start as u64;
            held.to = held.from + held.bytes.len() as u64;
        }
        Ok(&held.bytes[(start - held.from) as usize..(end - held.from) as usize])
    }
}

/// Chunks of a [`CheckedFile`]'s body as last read and checked, for [`CheckedFile::get`].
#[derive(Default)]
pub struct Held {
    bytes: Vec<u8>,
    /// The body offsets `bytes` starts and ends at.
    from: u64,
    to: u64,
}
