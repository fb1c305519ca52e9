//! One followed file: the open handle, how far it has been read, the first bytes it held, and
//! the checks that tell a file that was truncated (copytruncate) or replaced under its name
//! (rename and create, delete and create, a symlink swap) from one that only grew.
//!
//! A file is known by its device and inode while its name changes; its first bytes
//! ([`HEAD`] of them) tell a copy of it (copytruncate's `app.log.1`, a compressed rotation)
//! from a new file, and its truncation from growth when the size alone cannot; the last bytes
//! read ([`TAIL`] of them) tell which of several files that begin alike a copy is of.

use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::lines::{Lines, Piece};
use crate::search::BUFFER_SIZE;

/// How many first bytes of a file are kept to recognise it.
pub const HEAD: usize = 4096;

/// How many of the last bytes read from a file are kept: a copy of it holds them at the same
/// place, a file that only begins like it (a shared banner) does not.
const TAIL: usize = 1024;

/// What tells one file from another whatever its name.
pub type Identity = (u64, u64, u64);

/// The file's creation time in nanoseconds, where the file system keeps one (else 0): a
/// rename keeps it, a new file changes it.
fn born(meta: &Metadata) -> u64 {
    meta.created()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The identity of the file `meta` describes: device, inode, and creation time, as a
/// deleted file's inode number is given to the next file created (ext4 does so at once).
#[cfg(unix)]
pub fn identity(meta: &Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino(), born(meta))
}

/// The identity of the file `meta` describes: where the OS gives no inode, its creation
/// time.
#[cfg(not(unix))]
pub fn identity(meta: &Metadata) -> Identity {
    (0, 0, born(meta))
}

/// The identity of the file standard output writes to, if it is one: following it would
/// print what it printed, forever.
#[cfg(unix)]
pub fn stdout_identity() -> Option<Identity> {
    use std::os::fd::AsFd;
    let fd = io::stdout().as_fd().try_clone_to_owned().ok()?;
    let meta = File::from(fd).metadata().ok()?;
    meta.is_file().then(|| identity(&meta))
}

#[cfg(not(unix))]
pub fn stdout_identity() -> Option<Identity> {
    None
}

/// Whether these first bytes of a file call for reading it whole once rather than following
/// it: compressed (a rotation's product), or UTF-16 text, which is transcoded from its
/// start.
pub fn read_once(head: &[u8]) -> bool {
    crate::source::is_compressed(head)
        || head.starts_with(&[0xff, 0xfe])
        || head.starts_with(&[0xfe, 0xff])
}

/// Where a file's reading stands: what a copy of the file continues from.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// Bytes read (including a partial last line).
    pub offset: u64,
    pub lines: Lines,
    /// Its first [`HEAD`] bytes as read (fewer while it is shorter).
    pub head: Vec<u8>,
    /// The last [`TAIL`] bytes read, up to `offset` (fewer while it is shorter).
    tail: Vec<u8>,
    /// A NUL byte in its first block: matching lines are counted, not printed.
    pub binary: bool,
}

impl Progress {
    /// Whether a file whose first bytes are `candidate` is a copy of this one. `None`: too
    /// few bytes yet to tell.
    pub fn copied_into(&self, candidate: &[u8]) -> Option<bool> {
        if self.head.is_empty() {
            return Some(false);
        }
        let n = candidate.len().min(self.head.len());
        if candidate[..n] != self.head[..n] {
            return Some(false);
        }
        // Equal so far: a copy being written, or a new file that begins the same.
        (n == self.head.len() || n == HEAD).then_some(true)
    }
}

/// A followed file.
pub struct Followed {
    /// The name it is shown by.
    pub shown: PathBuf,
    file: File,
    pub identity: Identity,
    pub progress: Progress,
    /// Compared with the files already known (a file that appears while following may be a
    /// copy of one); files present at the start are.
    pub settled: bool,
    /// `-a`: no NUL check.
    text: bool,
    /// The modification time at the last read.
    modified: Option<std::time::SystemTime>,
    /// Not settled yet, and found to hold so far what a followed file holds at the same
    /// places, that file standing further.
    pub behind: Option<Waiting>,
}

/// A new file that waits while it holds what a followed file holds (a copy being written).
#[derive(Clone, Copy, Debug)]
pub struct Waiting {
    /// Its size when its bytes were last found equal.
    pub size: u64,
    /// How far the file it was found equal to had been shown then; once that file is found
    /// truncated, how far it had been shown before.
    pub shown: u64,
    /// The file it was found equal to.
    pub original: Identity,
}

/// What a read found besides the new lines.
pub enum Change {
    Grew,
    /// The file was truncated (or rewritten from its start): where it stood before, and it
    /// was read again from its start.
    Truncated(Progress),
}

impl Followed {
    /// Opens `path` (through a symlink) to follow it from its start.
    pub fn open(path: &Path, shown: PathBuf, text: bool) -> io::Result<Followed> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_dir() {
            return Err(io::Error::other("Is a directory"));
        }
        Ok(Followed {
            shown,
            identity: identity(&meta),
            file,
            progress: Progress::default(),
            settled: true,
            text,
            modified: None,
            behind: None,
        })
    }

    /// Up to [`HEAD`] first bytes of the file as it is now.
    pub fn read_head(&self) -> io::Result<Vec<u8>> {
        read_at_most(&self.file, 0, HEAD)
    }

    /// Reads what was written since the last read, up to the size the file has now, and
    /// hands on its whole lines (`emit` returns whether it printed). The file is read again
    /// from its start when it got shorter or its first bytes changed, after its partial last
    /// line is handed on as it is.
    pub fn read_new(
        &mut self,
        buf: &mut Vec<u8>,
        now: Instant,
        emit: &mut dyn FnMut(&Piece, bool) -> bool,
    ) -> io::Result<Change> {
        let meta = self.file.metadata()?;
        let size = meta.len();
        let mut change = Change::Grew;
        // Unchanged since the last read. A file truncated and written again to the same size
        // has a new modification time, and is checked below.
        let modified = meta.modified().ok();
        if size == self.progress.offset && modified == self.modified {
            return Ok(change);
        }
        self.modified = modified;
        if self.truncated_at(size)? {
            let mut before = std::mem::take(&mut self.progress);
            // The partial line the file ended in will never be completed in it: it is shown
            // as it was, before the lines written since the truncation.
            let binary = before.binary;
            before
                .lines
                .flush_quiet(None, &mut |piece| emit(piece, binary));
            change = Change::Truncated(before);
        }
        self.read_to(size, buf, now, emit)?;
        Ok(change)
    }

    /// Takes on the first `end` bytes as shown already, a copy of lines printed from another
    /// file: its line numbers go on from there, and a partial line there is not shown.
    pub fn skip_to(&mut self, end: u64, buf: &mut Vec<u8>) -> io::Result<()> {
        self.progress = Progress::default();
        self.modified = None;
        self.read_to(end, buf, Instant::now(), &mut |_, _| false)?;
        self.progress.lines.mark_shown();
        self.settled = true;
        Ok(())
    }

    /// The file's size now.
    pub fn size(&self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    /// Up to `n` bytes from `offset`.
    pub fn bytes_at(&self, offset: u64, n: usize) -> io::Result<Vec<u8>> {
        read_at_most(&self.file, offset, n)
    }

    /// Reads on from where the file stands up to `size` (or its end, if shorter).
    fn read_to(
        &mut self,
        size: u64,
        buf: &mut Vec<u8>,
        now: Instant,
        emit: &mut dyn FnMut(&Piece, bool) -> bool,
    ) -> io::Result<()> {
        let p = &mut self.progress;
        if buf.len() < BUFFER_SIZE {
            buf.resize(BUFFER_SIZE, 0);
        }
        let mut file = &self.file;
        file.seek(SeekFrom::Start(p.offset))?;
        while p.offset < size {
            let want = buf.len().min((size - p.offset) as usize);
            let n = match file.read(&mut buf[..want]) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let mut data = &buf[..n];
            keep_tail(&mut p.tail, data);
            if (p.offset as usize) < HEAD {
                let keep = n.min(HEAD - p.offset as usize);
                p.head.extend_from_slice(&data[..keep]);
            }
            if !self.text && !p.binary && (p.offset as usize) < BUFFER_SIZE {
                let look = n.min(BUFFER_SIZE - p.offset as usize);
                p.binary = memchr::memchr(0, &data[..look]).is_some();
            }
            if p.offset == 0 && data.starts_with(&[0xef, 0xbb, 0xbf]) {
                // A UTF-8 byte-order mark is not text, as in a search.
                data = &data[3..];
            }
            p.offset += n as u64;
            let binary = p.binary;
            p.lines.feed(data, now, &mut |piece| emit(piece, binary));
        }
        Ok(())
    }

    /// Whether the file only grew since the last read: it is no shorter and begins as it did.
    pub fn only_grew(&self) -> bool {
        self.file
            .metadata()
            .is_ok_and(|m| self.truncated_at(m.len()).is_ok_and(|truncated| !truncated))
    }

    /// Whether the file, `size` bytes now, was truncated (or rewritten from its start) since
    /// the last read: it got shorter or its first bytes changed.
    fn truncated_at(&self, size: u64) -> io::Result<bool> {
        let p = &self.progress;
        Ok(size < p.offset
            || (!p.head.is_empty() && read_at_most(&self.file, 0, p.head.len())? != p.head))
    }

    /// Whether the file holds `bytes` at `offset` (a file that cannot be read holds nothing).
    pub fn holds_at(&self, offset: u64, bytes: &[u8]) -> bool {
        self.bytes_at(offset, bytes.len())
            .is_ok_and(|held| held == bytes)
    }

    /// Whether the file holds, just before where `progress` stands, the bytes its file was
    /// last read to there: a copy of that file, not of another one that begins alike.
    pub fn holds_tail_of(&self, progress: &Progress) -> bool {
        let from = progress.offset.saturating_sub(progress.tail.len() as u64);
        self.holds_at(from, &progress.tail)
    }

    /// Takes on where a file this one is a copy of stood.
    pub fn continue_from(&mut self, progress: Progress) {
        self.progress = progress;
        self.settled = true;
    }
}

/// `tail`, then the bytes `read` after it, cut to the last [`TAIL`].
fn keep_tail(tail: &mut Vec<u8>, read: &[u8]) {
    if read.len() >= TAIL {
        tail.clear();
        tail.extend_from_slice(&read[read.len() - TAIL..]);
        return;
    }
    let excess = (tail.len() + read.len()).saturating_sub(TAIL);
    tail.drain(..excess);
    tail.extend_from_slice(read);
}

/// Up to `n` first bytes of the file at `path`.
pub fn first_bytes(path: &Path, n: usize) -> io::Result<Vec<u8>> {
    read_at_most(&File::open(path)?, 0, n)
}

/// Up to `n` bytes of `file` from `offset`.
fn read_at_most(file: &File, offset: u64, n: usize) -> io::Result<Vec<u8>> {
    let mut file = file;
    file.seek(SeekFrom::Start(offset))?;
    let mut head = Vec::with_capacity(n);
    file.take(n as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// Up to [`HEAD`] first bytes of what `path` holds, decompressed: what a compressed rotation
/// is recognised by. An incomplete stream (still being written) gives what it holds so far.
pub fn decompressed_head(path: &Path) -> io::Result<Vec<u8>> {
    let reader = crate::source::decompress(Box::new(File::open(path)?))?;
    let mut head = Vec::with_capacity(HEAD);
    let mut reader = reader.take(HEAD as u64);
    let mut chunk = [0u8; 1024];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => head.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    Ok(head)
}

/// Reads the compressed file at `path` to the end of its stream. `UnexpectedEof`: the stream
/// stops short (still being written); another error: it is damaged.
pub fn stream_end(path: &Path) -> io::Result<()> {
    let mut reader = crate::source::decompress(Box::new(File::open(path)?))?;
    io::copy(&mut reader, &mut io::sink()).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where reading the file at `path` to its end leaves it.
    fn read_through(path: &Path) -> Progress {
        let mut followed = Followed::open(path, path.to_path_buf(), false).unwrap();
        followed
            .read_to(u64::MAX, &mut Vec::new(), Instant::now(), &mut |_, _| true)
            .unwrap();
        followed.progress
    }

    #[test]
    fn a_copy_is_told_by_its_first_bytes_once_enough_are_there() {
        let known = Progress {
            head: b"first line\nsecond line\n".to_vec(),
            ..Progress::default()
        };
        assert_eq!(
            known.copied_into(b"first line\nsecond line\nthird\n"),
            Some(true)
        );
        assert_eq!(known.copied_into(b"first line\nsec"), None);
        assert_eq!(known.copied_into(b"other line\n"), Some(false));
        assert_eq!(
            Progress::default().copied_into(b"first line\n"),
            Some(false)
        );
    }

    #[test]
    fn the_last_bytes_read_are_kept_however_the_reads_split_them() {
        let bytes: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        for piece in [1, 7, 1000, TAIL, TAIL + 1, 4096] {
            let mut tail = Vec::new();
            for (n, chunk) in bytes.chunks(piece).enumerate() {
                keep_tail(&mut tail, chunk);
                let read = (n * piece + chunk.len()).min(bytes.len());
                assert_eq!(
                    tail,
                    bytes[read.saturating_sub(TAIL)..read],
                    "pieces of {piece}"
                );
            }
        }
    }

    #[test]
    fn a_copy_holds_the_last_bytes_read_where_they_were_and_a_look_alike_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let banner = "the same first line in every file\n".repeat(200);
        let original = dir.path().join("a.log");
        std::fs::write(&original, format!("{banner}a's own line\n")).unwrap();
        let progress = read_through(&original);
        let check = |name: &str, text: String| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            Followed::open(&path, path.clone(), false)
                .unwrap()
                .holds_tail_of(&progress)
        };
        assert!(check(
            "copy.log",
            format!("{banner}a's own line\nwritten since\n")
        ));
        assert!(!check(
            "other.log",
            format!("{banner}b's own line\nwritten since\n")
        ));
        assert!(!check("short.log", banner.clone()));
    }

    #[test]
    fn a_stream_cut_short_is_told_from_a_damaged_one() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let text: Vec<u8> = (0..100_000u32)
            .flat_map(|n| format!("line {n}\n").into_bytes())
            .collect();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&text).unwrap();
        let compressed = gz.finish().unwrap();
        let path = dir.path().join("a.log.gz");
        let end_of = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            stream_end(&path)
        };
        assert!(end_of(&compressed).is_ok());
        let cut = end_of(&compressed[..compressed.len() / 2]).unwrap_err();
        assert_eq!(cut.kind(), io::ErrorKind::UnexpectedEof);
        let mut damaged = compressed.clone();
        let crc = damaged.len() - 8;
        damaged[crc] ^= 0xff;
        let damaged = end_of(&damaged).unwrap_err();
        assert_ne!(damaged.kind(), io::ErrorKind::UnexpectedEof, "{damaged}");
    }
}
