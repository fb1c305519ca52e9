//! Reading one log for the index: its ID keys by block (the lines that start in 256 bytes of
//! the file), each with the block's first line number, and the fingerprint taken from the
//! bytes as they pass, so the fingerprint describes exactly the bytes that were indexed.
//!
//! The IDs are found by the scanner's token walk ([`crate::scan::for_each_token`]), which
//! reports every ID-shaped token of every form, and its walk of trace tokens
//! ([`crate::scan::for_each_trace_token`]: X-Ray IDs, 16 hex digits and long decimals
//! anywhere); a search's matcher reports a subset of those, so every line a search can print
//! lies in a block the index lists.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

use memchr::{memchr, memrchr};

use super::fingerprint::{self, HEAD, Samples, Stat};
use super::format::{key_of, narrow_key_of};
use super::manifest::{FileEntry, Fingerprint, Layout};
use super::segment::Posting;
use super::spill::Spiller;
use crate::id::Shape;
use crate::scan::{TraceToken, for_each_token, for_each_trace_token};
use crate::search::BUFFER_SIZE;
use crate::source::{self, Input};

/// The span of a block: block `b` is the lines that start in bytes `b * BLOCK..(b + 1) *
/// BLOCK`, so a posting's block number is where to read, and a hit costs one read of about
/// this much. An ID on 3,000 lines of a 10 GiB corpus hits about as many blocks, each a read
/// of a random page-cache page. With 1 KiB blocks that lookup and `timeline --hops 2` took a
/// sixth less time than with 4 KiB; with 256 bytes, 0.91 and 0.96 of the time with 1 KiB, for
/// an index 6.5% larger (each read is its block and a line's length past it).
pub const BLOCK: u64 = 256;
const READ: usize = 1 << 20;

/// Bytes read, for the progress bar.
pub type Counter<'a> = Option<&'a std::sync::atomic::AtomicU64>;

fn count(counter: Counter, n: usize) {
    if let Some(c) = counter {
        c.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Whether the bytes a search reads are the file's bytes as stored (no decompression, no
/// byte-order mark to drop, no UTF-16 to transcode), judged by its first bytes.
pub fn is_verbatim(head: &[u8]) -> bool {
    let compressed = head.starts_with(&[0x1f, 0x8b])
        || head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
        || head.starts_with(b"BZh")
        || head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]);
    let marked = head.starts_with(&[0xef, 0xbb, 0xbf])
        || head.starts_with(&[0xff, 0xfe])
        || head.starts_with(&[0xfe, 0xff]);
    !compressed && !marked
}

/// Reads a whole file (`stat` taken just before) as file `id`.
pub fn whole_file(
    path: &std::path::Path,
    id: u32,
    stat: &Stat,
    spill: &mut Spiller,
    counter: Counter,
) -> io::Result<FileEntry> {
    let mut file = File::open(path)?;
    let mut head = [0u8; 6];
    let n = read_up_to(&mut file, &mut head)?;
    if is_verbatim(&head[..n]) {
        file.seek(SeekFrom::Start(0))?;
        return blocks(path, &mut file, id, stat, None, spill, counter);
    }
    decoded(path, id, stat, spill, counter)
}

/// Adds the keys of every value in `bytes` a search may find: each ID token's, and each
/// trace token's ([`for_each_trace_token`]). A 32-hex token or an X-Ray ID may be a 128-bit
/// trace, which a query of its low 64 bits (a 64-bit B3 or Datadog trace) finds too: it is
/// also filed under the key of that half.
fn push_keys(bytes: &[u8], keys: &mut Vec<u64>) {
    for_each_token(bytes, |hit| {
        keys.push(key_of(hit.id.0));
        if hit.shape == Shape::UuidUndashed {
            keys.push(narrow_key_of(hit.id.low64()));
        }
    });
    for_each_trace_token(bytes, |token| match token {
        TraceToken::Wide(id) => {
            keys.push(key_of(id.0));
            keys.push(narrow_key_of(id.low64()));
        }
        TraceToken::Narrow(value) => keys.push(narrow_key_of(value)),
    });
}

fn read_up_to(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Reads the bytes of a file stored as searched, from its start or, when `previous` is the
/// entry of its indexed part, from that part's last block on, up to the length in `stat`,
/// into blocks: the lines that start in one [`BLOCK`] of the file. The last block is read
/// again so that the lines added to it are filed under its first line, and its bytes are
/// the last block's of the fingerprint.
pub fn blocks(
    path: &std::path::Path,
    file: &mut File,
    id: u32,
    stat: &Stat,
    previous: Option<&FileEntry>,
    spill: &mut Spiller,
    counter: Counter,
) -> io::Result<FileEntry> {
    // Where reading starts: the file's start, or the last block's start and first line.
    let (offset, mut line) = previous.map_or((0, 1), |p| (p.fingerprint.last_start, p.last_line));
    // The last block read: its start and first line.
    let mut last = previous.map(|p| (p.fingerprint.last_start, p.last_line));
    file.seek(SeekFrom::Start(offset))?;
    let mut reader = file.take(stat.len - offset);
    let mut buf = vec![0u8; READ];
    let mut len = 0;
    // Absolute offset of buf[0].
    let mut base = offset;
    // The block being read: its number and first line.
    let mut open: Option<(u32, u64)> = None;
    let mut block_keys: Vec<u64> = Vec::new();
    let mut last_hasher = crc32fast::Hasher::new();
    let mut head = Vec::new();
    let mut samples = previous.map_or_else(|| Samples::new(stat.len), |_| Samples::new(0));
    let mut binary = false;
    let flush_block =
        |keys: &mut Vec<u64>, (block, line): (u32, u64), spill: &mut Spiller| -> io::Result<()> {
            keys.sort_unstable();
            keys.dedup();
            for &key in keys.iter() {
                spill.push(Posting {
                    key,
                    file: id,
                    block,
                    line,
                })?;
            }
            keys.clear();
            Ok(())
        };
    loop {
        if len == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = match reader.read(&mut buf[len..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        count(counter, n);
        let fresh = base + len as u64;
        if previous.is_none() {
            samples.see(fresh, &buf[len..len + n]);
            if head.len() < HEAD as usize {
                let want = (HEAD as usize - head.len()).min(n);
                head.extend_from_slice(&buf[len..len + want]);
            }
        }
        // A NUL in the first block makes a search call the file binary.
        if fresh < BUFFER_SIZE as u64 {
            let upto = ((BUFFER_SIZE as u64 - fresh) as usize).min(n);
            if memchr(0, &buf[len..len + upto]).is_some() {
                binary = true;
                break;
            }
        }
        if n == 0 {
            break;
        }
        len += n;
        let Some(last_newline) = memrchr(b'\n', &buf[..len]) else {
            continue;
        };
        let whole = &buf[..=last_newline];
        let mut at = 0;
        while at < whole.len() {
            let start = base + at as u64;
            let block = u32::try_from(start / BLOCK)
                .map_err(|_| io::Error::other("a file of 4 TiB or more is not indexed"))?;
            if open.map(|(b, _)| b) != Some(block) {
                if let Some(done) = open {
                    flush_block(&mut block_keys, done, spill)?;
                }
                last = Some((start, line));
                open = Some((block, line));
                last_hasher = crc32fast::Hasher::new();
            }
            // The block's lines run to the end of the one holding its last byte.
            let last_byte = ((u64::from(block) + 1) * BLOCK - 1 - base) as usize;
            let end = if last_byte >= whole.len() {
                whole.len()
            } else {
                last_byte + memchr(b'\n', &whole[last_byte..]).expect("ends in a newline") + 1
            };
            let piece = &whole[at..end];
            push_keys(piece, &mut block_keys);
            line += bytecount::count(piece, b'\n') as u64;
            last_hasher.update(piece);
            at = end;
        }
        buf.copy_within(last_newline + 1..len, 0);
        len -= last_newline + 1;
        base += last_newline as u64 + 1;
    }
    let meta_after = std::fs::metadata(path)?;
    let changed_meanwhile = {
        let after = fingerprint::stat_of(&meta_after);
        after.dev != stat.dev || after.ino != stat.ino || after.len < stat.len
    };
    if binary || changed_meanwhile {
        // Read whole by every search; nothing to index.
        return whole_entry(path, id, stat, Layout::Binary);
    }
    if let Some(done) = open {
        flush_block(&mut block_keys, done, spill)?;
    }
    let indexed = base;
    let (last_start, last_line) = last.unwrap_or((0, 1));
    let fingerprint = match previous {
        Some(p) => {
            let mut fp = p.fingerprint.clone();
            fp.len = stat.len;
            fp.mtime = stat.mtime;
            fp.ctime = stat.ctime;
            fp.last_start = last_start;
            fp.last_crc = last_hasher.finalize();
            fp
        }
        None => {
            let head_len = (HEAD.min(indexed)) as usize;
            let Some(sample_crc) = samples.crc() else {
                return Err(io::Error::other("the file ended before its length"));
            };
            Fingerprint {
                dev: stat.dev,
                ino: stat.ino,
                len: stat.len,
                mtime: stat.mtime,
                ctime: stat.ctime,
                birth: stat.birth,
                head_len: head_len as u32,
                head_crc: fingerprint_crc(&head[..head_len.min(head.len())]),
                last_start,
                last_crc: last_hasher.finalize(),
                sample_crc,
                sample_span: stat.len,
            }
        }
    };
    Ok(FileEntry {
        id,
        path: path.to_path_buf(),
        layout: Layout::Blocks,
        indexed,
        lines: line - 1,
        fingerprint,
        last_line,
    })
}

fn fingerprint_crc(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// An entry for a file read whole by every search that may hit it.
fn whole_entry(
    path: &std::path::Path,
    id: u32,
    stat: &Stat,
    layout: Layout,
) -> io::Result<FileEntry> {
    let last_start = stat.len.saturating_sub(BLOCK);
    let fingerprint = fingerprint::take(&mut File::open(path)?, stat, stat.len, last_start)?;
    Ok(FileEntry {
        id,
        path: path.to_path_buf(),
        layout,
        indexed: stat.len,
        lines: 0,
        fingerprint,
        last_line: 0,
    })
}

/// Reads a compressed or transcoded file through the decoder a search uses; one posting per
/// ID, block 0. A file that cannot be decoded to its end is left to be read whole.
fn decoded(
    path: &std::path::Path,
    id: u32,
    stat: &Stat,
    spill: &mut Spiller,
    counter: Counter,
) -> io::Result<FileEntry> {
    let input = Input::File(path.to_path_buf());
    let mut layout = Layout::Whole;
    let mut keys: Vec<u64> = Vec::new();
    match source::open(&input, None) {
        Err(_) => layout = Layout::Binary,
        Ok(mut reader) => {
            let mut buf = vec![0u8; READ];
            let mut len = 0;
            let mut seen = 0usize;
            loop {
                if len == buf.len() {
                    buf.resize(buf.len() * 2, 0);
                }
                let n = match reader.read(&mut buf[len..]) {
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => {
                        layout = Layout::Binary;
                        break;
                    }
                };
                if seen < BUFFER_SIZE
                    && memchr(0, &buf[len..len + n.min(BUFFER_SIZE - seen)]).is_some()
                {
                    layout = Layout::Binary;
                    break;
                }
                seen += n;
                if n == 0 {
                    push_keys(&buf[..len], &mut keys);
                    break;
                }
                len += n;
                let Some(nl) = memrchr(b'\n', &buf[..len]) else {
                    continue;
                };
                push_keys(&buf[..=nl], &mut keys);
                if keys.len() > 1 << 20 {
                    keys.sort_unstable();
                    keys.dedup();
                }
                buf.copy_within(nl + 1..len, 0);
                len -= nl + 1;
            }
        }
    }
    count(counter, stat.len as usize);
    let mut entry = whole_entry(path, id, stat, layout)?;
    let after = fingerprint::stat_of(&std::fs::metadata(path)?);
    if after != *stat {
        // Written while read: no search may trust what was read.
        entry.layout = Layout::Binary;
    }
    if entry.layout == Layout::Whole {
        keys.sort_unstable();
        keys.dedup();
        for key in keys {
            spill.push(Posting {
                key,
                file: id,
                block: 0,
                line: 0,
            })?;
        }
    }
    Ok(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(line: &str) -> Vec<u64> {
        let mut keys = Vec::new();
        push_keys(line.as_bytes(), &mut keys);
        keys
    }

    /// A 64-bit trace query knows only the low half of the 128-bit trace it finds: a 32-hex
    /// token and an X-Ray ID are filed under that half too, and a ULID or dashed UUID, which
    /// no 64-bit trace finds, is not.
    #[test]
    fn a_32_hex_token_and_an_xray_id_are_filed_under_their_low_half_too() {
        let low = 0xa3ce_929d_0e0e_4736;
        let traceparent =
            keys("traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assert!(traceparent.contains(&key_of(0x4bf92f3577b34da6a3ce929d0e0e4736)));
        assert!(traceparent.contains(&narrow_key_of(low)));
        assert!(traceparent.contains(&narrow_key_of(0x00f067aa0ba902b7)));
        let xray = keys("Root=1-4bf92f35-77b34da6a3ce929d0e0e4736");
        assert!(xray.contains(&narrow_key_of(low)), "{xray:?}");
        let dashed = keys("id=4bf92f35-77b3-4da6-a3ce-929d0e0e4736");
        assert_eq!(dashed, [key_of(0x4bf92f3577b34da6a3ce929d0e0e4736)]);
    }
}
