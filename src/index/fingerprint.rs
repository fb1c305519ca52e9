//! Whether a file still holds what was indexed, without reading all of it.
//!
//! The identity is the device, inode and birth time, so a renamed file (logrotate's `app.log`
//! to `app.log.1`) is the same file under another name, and a file deleted and written anew
//! is another file even where the file system gives it the freed inode (ext4 does). The
//! content checks are the length, a CRC of the first 4 KiB, a CRC of the last indexed block,
//! and a CRC of eight 4 KiB pages spread through the indexed part. When the device, inode,
//! length, mtime and ctime are all as recorded, nothing has written to the file since (the
//! kernel moves the ctime on every write, and nothing can set it back), and no byte is read.
//! A file of the same length with another mtime was written without growing: read whole.
//! Otherwise the CRCs decide: a file that kept its indexed bytes has only grown; any other
//! change makes it read whole.

use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, SeekFrom};

use super::manifest::{Fingerprint, Stamp};

pub const HEAD: u64 = 4096;
const SAMPLE_PAGES: u64 = 8;
const PAGE: u64 = 4096;

/// What `stat` says about a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub dev: u64,
    pub ino: u64,
    pub len: u64,
    pub mtime: Stamp,
    pub ctime: Stamp,
    /// The birth time, or zero where the file system does not keep one.
    pub birth: Stamp,
}

/// A time as [`Stamp`], zero when there is none.
fn stamp_of(time: io::Result<std::time::SystemTime>) -> Stamp {
    time.ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(Stamp::default(), |d| Stamp {
            secs: d.as_secs() as i64,
            nanos: d.subsec_nanos(),
        })
}

#[cfg(unix)]
pub fn stat_of(meta: &Metadata) -> Stat {
    use std::os::unix::fs::MetadataExt;
    Stat {
        dev: meta.dev(),
        ino: meta.ino(),
        len: meta.len(),
        mtime: Stamp {
            secs: meta.mtime(),
            nanos: meta.mtime_nsec() as u32,
        },
        ctime: Stamp {
            secs: meta.ctime(),
            nanos: meta.ctime_nsec() as u32,
        },
        birth: stamp_of(meta.created()),
    }
}

#[cfg(not(unix))]
pub fn stat_of(meta: &Metadata) -> Stat {
    Stat {
        dev: 0,
        ino: 0,
        len: meta.len(),
        mtime: stamp_of(meta.modified()),
        ctime: Stamp::default(),
        birth: stamp_of(meta.created()),
    }
}

/// The CRC of `len` bytes from `start`; an error if the file is shorter.
fn crc_range(file: &mut File, start: u64, len: u64) -> io::Result<u32> {
    file.seek(SeekFrom::Start(start))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut left = len;
    let mut buf = vec![0u8; 64 * 1024];
    while left > 0 {
        let want = left.min(buf.len() as u64) as usize;
        file.read_exact(&mut buf[..want])?;
        hasher.update(&buf[..want]);
        left -= want as u64;
    }
    Ok(hasher.finalize())
}

/// Where the sampled pages of the first `span` bytes start (none in a file of one page).
fn sample_starts(span: u64) -> impl Iterator<Item = u64> {
    (1..=SAMPLE_PAGES)
        .filter(move |_| span > PAGE)
        .map(move |i| (span - PAGE) * i / SAMPLE_PAGES)
}

fn sample_crc(file: &mut File, span: u64) -> io::Result<u32> {
    let mut hasher = crc32fast::Hasher::new();
    let mut page = vec![0u8; PAGE as usize];
    for start in sample_starts(span) {
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut page)?;
        hasher.update(&page);
    }
    Ok(hasher.finalize())
}

/// The sampled pages of the first `span` bytes, caught as a file's bytes stream past, so
/// that the fingerprint describes the bytes that were indexed, not a later reread.
pub struct Samples {
    starts: Vec<u64>,
    pages: Vec<Vec<u8>>,
}

impl Samples {
    pub fn new(span: u64) -> Samples {
        let starts: Vec<u64> = sample_starts(span).collect();
        let pages = starts
            .iter()
            .map(|_| Vec::with_capacity(PAGE as usize))
            .collect();
        Samples { starts, pages }
    }

    /// Notes `bytes`, which sit at offset `at` of the file; offsets come in order.
    pub fn see(&mut self, at: u64, bytes: &[u8]) {
        let end = at + bytes.len() as u64;
        for (start, page) in self.starts.iter().zip(&mut self.pages) {
            let from = (*start + page.len() as u64).max(at);
            let to = (*start + PAGE).min(end);
            if from < to && from == *start + page.len() as u64 {
                page.extend_from_slice(&bytes[(from - at) as usize..(to - at) as usize]);
            }
        }
    }

    /// The CRC, if every page was seen whole.
    pub fn crc(&self) -> Option<u32> {
        let mut hasher = crc32fast::Hasher::new();
        for page in &self.pages {
            if page.len() as u64 != PAGE {
                return None;
            }
            hasher.update(page);
        }
        Some(hasher.finalize())
    }
}

/// The fingerprint of `file` read again, whose first `indexed` bytes were indexed and whose
/// last block starts at `last_start`: for files indexed through a decoder, which any change
/// at all sends back to a whole read.
pub fn take(
    file: &mut File,
    stat: &Stat,
    indexed: u64,
    last_start: u64,
) -> io::Result<Fingerprint> {
    let head_len = HEAD.min(indexed);
    Ok(Fingerprint {
        dev: stat.dev,
        ino: stat.ino,
        len: stat.len,
        mtime: stat.mtime,
        ctime: stat.ctime,
        birth: stat.birth,
        head_len: head_len as u32,
        head_crc: crc_range(file, 0, head_len)?,
        last_start,
        last_crc: crc_range(file, last_start, indexed - last_start)?,
        sample_crc: sample_crc(file, indexed)?,
        sample_span: indexed,
    })
}

/// What became of an indexed file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Not written since it was indexed.
    Untouched,
    /// The indexed bytes are as they were; `len - indexed` bytes may follow them.
    Kept,
    /// Shorter, rewritten or unreadable: its postings no longer hold.
    Changed,
}

/// Compares the file now (`stat`, and its bytes when the stat alone cannot tell) with what
/// was recorded for its first `indexed` bytes.
pub fn check(
    recorded: &Fingerprint,
    indexed: u64,
    stat: &Stat,
    open: impl FnOnce() -> io::Result<File>,
) -> Freshness {
    if stat.dev != recorded.dev
        || stat.ino != recorded.ino
        || stat.birth != recorded.birth
        || stat.len < indexed.max(recorded.sample_span)
    {
        return Freshness::Changed;
    }
    if stat.len == recorded.len {
        if stat.mtime != recorded.mtime {
            // Written, and no longer: rewritten in place, which the CRCs may not see.
            return Freshness::Changed;
        }
        if stat.ctime == recorded.ctime {
            return Freshness::Untouched;
        }
    }
    let same = open().and_then(|mut file| {
        Ok(
            crc_range(&mut file, 0, u64::from(recorded.head_len))? == recorded.head_crc
                && crc_range(
                    &mut file,
                    recorded.last_start,
                    indexed - recorded.last_start,
                )? == recorded.last_crc
                && sample_crc(&mut file, recorded.sample_span)? == recorded.sample_crc,
        )
    });
    match same {
        Ok(true) => Freshness::Kept,
        _ => Freshness::Changed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn fingerprint_of(path: &std::path::Path, indexed: u64, last: u64) -> (Fingerprint, Stat) {
        let stat = stat_of(&std::fs::metadata(path).unwrap());
        let mut f = File::open(path).unwrap();
        (take(&mut f, &stat, indexed, last).unwrap(), stat)
    }

    fn now(path: &std::path::Path) -> Stat {
        stat_of(&std::fs::metadata(path).unwrap())
    }

    #[test]
    fn untouched_grown_and_rewritten_files_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.log");
        let text: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        std::fs::write(&path, &text).unwrap();
        let indexed = text.len() as u64;
        let (fp, _) = fingerprint_of(&path, indexed, indexed - 100);
        let open = || File::open(&path);
        assert_eq!(check(&fp, indexed, &now(&path), open), Freshness::Untouched);

        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"more\n")
            .unwrap();
        assert_eq!(check(&fp, indexed, &now(&path), open), Freshness::Kept);

        // The same length, one byte in the middle changed: the sampled pages see it.
        let mut changed = text.clone().into_bytes();
        let middle = changed.len() / 2 - PAGE as usize / 2;
        changed[middle] = b'X';
        changed.extend_from_slice(b"more\n");
        std::fs::write(&path, &changed).unwrap();
        assert_eq!(check(&fp, indexed, &now(&path), open), Freshness::Changed);

        std::fs::write(&path, &text[..100]).unwrap();
        assert_eq!(check(&fp, indexed, &now(&path), open), Freshness::Changed);
    }

    #[test]
    fn another_birth_time_or_a_write_that_kept_the_length_is_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.log");
        let text: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        std::fs::write(&path, &text).unwrap();
        let indexed = text.len() as u64;
        let (fp, stat) = fingerprint_of(&path, indexed, indexed - 100);
        let open = || File::open(&path);
        // The same bytes: the CRCs alone would vouch for it.
        let born_again = Stat {
            birth: Stamp {
                secs: stat.birth.secs + 1,
                ..stat.birth
            },
            ..stat
        };
        assert_eq!(check(&fp, indexed, &born_again, open), Freshness::Changed);
        let written = Stat {
            mtime: Stamp {
                secs: stat.mtime.secs + 1,
                ..stat.mtime
            },
            ctime: Stamp {
                secs: stat.ctime.secs + 1,
                ..stat.ctime
            },
            ..stat
        };
        assert_eq!(check(&fp, indexed, &written, open), Freshness::Changed);
        // A rename moves only the ctime: the CRCs decide, and the bytes are the same.
        let renamed = Stat {
            ctime: written.ctime,
            ..stat
        };
        assert_eq!(check(&fp, indexed, &renamed, open), Freshness::Kept);
    }

    #[test]
    fn pages_caught_in_passing_match_pages_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.log");
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        for step in [1, 999, 4096, 70_000] {
            let mut samples = Samples::new(bytes.len() as u64);
            for (i, piece) in bytes.chunks(step).enumerate() {
                samples.see((i * step) as u64, piece);
            }
            let read = sample_crc(&mut File::open(&path).unwrap(), bytes.len() as u64).unwrap();
            assert_eq!(samples.crc(), Some(read), "pieces of {step}");
        }
    }
}
