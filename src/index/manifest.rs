//! The manifest: the one small file that says what an index holds. Its root, its segments
//! (name, length, checksum of their chunk table) and, for every indexed file, the
//! fingerprint that decides at search time whether the file's postings still hold, and where
//! an update reads on from when the file grows.
//!
//! It is written whole to a temporary file and renamed over the old one, so a reader sees
//! the old manifest or the new, never half of one; a header with magic, format version,
//! length and CRC-32 lets a damaged or foreign one be told apart from a good one.

use std::path::{Path, PathBuf};

use super::format::{Damage, Reader, Writer, crc};

const MAGIC: &[u8; 8] = b"IDGRPMAN";
/// Bumped whenever any index file changes shape or meaning; another value is refused.
pub const FORMAT_VERSION: u32 = 11;
const HEADER_LEN: usize = 8 + 4 + 8 + 4;

/// How an indexed file's postings point into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Plain text as stored: postings name blocks of whole lines, and the part after the
    /// indexed bytes can be read on its own.
    Blocks,
    /// Compressed or transcoded: one posting per ID for the whole file, read whole on a hit.
    Whole,
    /// A NUL in the first block: searches report it as binary; always read whole.
    Binary,
}

impl Layout {
    fn code(self) -> u8 {
        match self {
            Layout::Blocks => 0,
            Layout::Whole => 1,
            Layout::Binary => 2,
        }
    }

    fn from_code(code: u8) -> Result<Layout, Damage> {
        match code {
            0 => Ok(Layout::Blocks),
            1 => Ok(Layout::Whole),
            2 => Ok(Layout::Binary),
            _ => Err(Damage(format!("unknown file layout {code}"))),
        }
    }
}

/// A time as seconds and nanoseconds since the epoch, as `stat` gives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamp {
    pub secs: i64,
    pub nanos: u32,
}

/// What identifies a file's content without reading all of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fingerprint {
    pub dev: u64,
    pub ino: u64,
    /// The file's length when indexed.
    pub len: u64,
    pub mtime: Stamp,
    pub ctime: Stamp,
    /// Zero where the file system keeps no birth time.
    pub birth: Stamp,
    /// CRC of the first `head_len` bytes (4 KiB, or fewer in a short file).
    pub head_len: u32,
    pub head_crc: u32,
    /// CRC of the bytes from `last_start` to the end of the indexed part.
    pub last_start: u64,
    pub last_crc: u32,
    /// CRC of pages spread evenly through the first `sample_span` bytes
    /// ([`super::fingerprint`]).
    pub sample_crc: u32,
    pub sample_span: u64,
}

/// One indexed file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEntry {
    /// What the postings call it; never reused within one index.
    pub id: u32,
    pub path: PathBuf,
    pub layout: Layout,
    /// Bytes indexed: up to the last newline for [`Layout::Blocks`], the whole file else.
    pub indexed: u64,
    /// Newlines in the indexed bytes: the line after them is number `lines + 1`.
    pub lines: u64,
    pub fingerprint: Fingerprint,
    /// The number of the first line of the last block, which starts at the fingerprint's
    /// `last_start` ([`Layout::Blocks`] only): an update that finds the file grown reads on
    /// from that block, so that the lines added to it are filed under that line.
    pub last_line: u64,
}

/// A segment of the index, as the manifest names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRef {
    pub name: String,
    pub len: u64,
    /// CRC of the file's chunk checksum table: ties it to this manifest.
    pub table_crc: u32,
}

/// Writes a list of [`FileRef`]s as [`read_refs`] reads it.
fn write_refs(w: &mut Writer, refs: &[FileRef]) {
    w.varint(refs.len() as u64);
    for f in refs {
        w.bytes(f.name.as_bytes());
        w.u64(f.len);
        w.u32(f.table_crc);
    }
}

/// Reads a list of [`FileRef`]s, each named as a sibling of the manifest.
fn read_refs(r: &mut Reader) -> Result<Vec<FileRef>, Damage> {
    let n = r.count(13)?;
    let mut refs = Vec::with_capacity(n);
    for _ in 0..n {
        refs.push(FileRef {
            name: sibling_name(r.bytes()?)?,
            len: r.u64()?,
            table_crc: r.u32()?,
        });
    }
    Ok(refs)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// The canonical directory or file the index was built for.
    pub root: PathBuf,
    pub next_file_id: u32,
    pub built_secs: i64,
    pub updated_secs: i64,
    pub segments: Vec<FileRef>,
    pub files: Vec<FileEntry>,
}

impl Manifest {
    pub fn empty(root: PathBuf) -> Manifest {
        Manifest {
            root,
            next_file_id: 0,
            built_secs: 0,
            updated_secs: 0,
            segments: Vec::new(),
            files: Vec::new(),
        }
    }

    /// The manifest's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(path_bytes(&self.root));
        w.u32(self.next_file_id);
        w.i64(self.built_secs);
        w.i64(self.updated_secs);
        write_refs(&mut w, &self.segments);
        w.varint(self.files.len() as u64);
        for f in &self.files {
            w.u32(f.id);
            w.bytes(path_bytes(&f.path));
            w.u8(f.layout.code());
            w.u64(f.indexed);
            w.u64(f.lines);
            let p = &f.fingerprint;
            for v in [p.dev, p.ino, p.len] {
                w.u64(v);
            }
            for s in [p.mtime, p.ctime, p.birth] {
                w.i64(s.secs);
                w.u32(s.nanos);
            }
            w.u32(p.head_len);
            w.u32(p.head_crc);
            w.u64(p.last_start);
            w.u32(p.last_crc);
            w.u32(p.sample_crc);
            w.u64(p.sample_span);
            w.u64(f.last_line);
        }
        let body = w.bytes;
        let mut out = Vec::with_capacity(HEADER_LEN + body.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<Manifest, Damage> {
        let mut r = Reader::new(bytes);
        if r.take(8).ok() != Some(&MAGIC[..]) {
            return Err(Damage("not an idgrep index manifest".to_string()));
        }
        let version = r.u32()?;
        if version != FORMAT_VERSION {
            return Err(Damage(format!(
                "made by another idgrep version (format {version}, this one reads {FORMAT_VERSION})"
            )));
        }
        let len = r.u64()?;
        let expected = r.u32()?;
        let body = r.take(usize::try_from(len).map_err(|_| Damage::truncated())?)?;
        if !r.at_end() {
            return Err(Damage("bytes after the manifest's end".to_string()));
        }
        if crc(body) != expected {
            return Err(Damage("checksum mismatch".to_string()));
        }
        decode_body(body)
    }
}

fn decode_body(body: &[u8]) -> Result<Manifest, Damage> {
    let mut r = Reader::new(body);
    let root = path_from(r.bytes()?);
    let next_file_id = r.u32()?;
    let built_secs = r.i64()?;
    let updated_secs = r.i64()?;
    let segments = read_refs(&mut r)?;
    let n = r.count(100)?;
    let mut files = Vec::with_capacity(n);
    for _ in 0..n {
        let id = r.u32()?;
        let path = path_from(r.bytes()?);
        let layout = Layout::from_code(r.u8()?)?;
        let indexed = r.u64()?;
        let lines = r.u64()?;
        let (dev, ino, len) = (r.u64()?, r.u64()?, r.u64()?);
        let mtime = Stamp {
            secs: r.i64()?,
            nanos: r.u32()?,
        };
        let ctime = Stamp {
            secs: r.i64()?,
            nanos: r.u32()?,
        };
        let birth = Stamp {
            secs: r.i64()?,
            nanos: r.u32()?,
        };
        let fingerprint = Fingerprint {
            dev,
            ino,
            len,
            mtime,
            ctime,
            birth,
            head_len: r.u32()?,
            head_crc: r.u32()?,
            last_start: r.u64()?,
            last_crc: r.u32()?,
            sample_crc: r.u32()?,
            sample_span: r.u64()?,
        };
        let last_line = r.u64()?;
        if indexed > len
            || fingerprint.sample_span > len
            || fingerprint.last_start > indexed
            || last_line > lines.saturating_add(1)
        {
            return Err(Damage(format!("file {id} is described inconsistently")));
        }
        files.push(FileEntry {
            id,
            path,
            layout,
            indexed,
            lines,
            fingerprint,
            last_line,
        });
    }
    if !r.at_end() {
        return Err(Damage("bytes after the last file".to_string()));
    }
    Ok(Manifest {
        root,
        next_file_id,
        built_secs,
        updated_secs,
        segments,
        files,
    })
}

/// The name of a file beside the manifest: no path separator, not hidden.
fn sibling_name(bytes: &[u8]) -> Result<String, Damage> {
    let name = String::from_utf8(bytes.to_vec())
        .map_err(|_| Damage("a file name in the manifest is not UTF-8".to_string()))?;
    if name.contains('/') || name.starts_with('.') {
        return Err(Damage(format!("bad file name {name:?} in the manifest")));
    }
    Ok(name)
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes()
}

#[cfg(unix)]
fn path_from(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> &[u8] {
    path.to_str().unwrap_or("").as_bytes()
}

#[cfg(not(unix))]
fn path_from(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    pub(crate) fn sample() -> Manifest {
        Manifest {
            root: PathBuf::from("/var/log/app"),
            next_file_id: 3,
            built_secs: 1_700_000_000,
            updated_secs: 1_700_000_100,
            segments: vec![FileRef {
                name: "seg-1-0".to_string(),
                len: 4096,
                table_crc: 77,
            }],
            files: vec![FileEntry {
                id: 2,
                path: PathBuf::from("/var/log/app/a.log"),
                layout: Layout::Blocks,
                indexed: 200_000,
                lines: 1234,
                fingerprint: Fingerprint {
                    dev: 1,
                    ino: 2,
                    len: 200_010,
                    mtime: Stamp { secs: 5, nanos: 6 },
                    ctime: Stamp { secs: 7, nanos: 8 },
                    birth: Stamp { secs: 3, nanos: 4 },
                    head_len: 4096,
                    head_crc: 9,
                    last_start: 131_072,
                    last_crc: 10,
                    sample_crc: 11,
                    sample_span: 200_010,
                },
                last_line: 800,
            }],
        }
    }

    #[test]
    fn a_manifest_reads_back_as_written() {
        let m = sample();
        assert_eq!(Manifest::decode(&m.encode()), Ok(m));
    }

    #[test]
    fn every_cut_and_every_flipped_byte_is_refused_without_panic() {
        let bytes = sample().encode();
        for cut in 0..bytes.len() {
            assert!(Manifest::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for i in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x20;
            assert!(Manifest::decode(&damaged).is_err(), "flip at {i}");
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        // What a fuzz target would feed the reader: garbage, and a good manifest with random
        // bytes overwritten and its checksum made right again, so the body parser itself
        // meets damaged counts, lengths and offsets.
        let good = sample().encode();
        let mut rng = Rng(0x1234_5678);
        let mut next = move || rng.next();
        for _ in 0..20_000 {
            let len = (next() % 300) as usize;
            let garbage: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let _ = Manifest::decode(&garbage);
            let mut bad = good.clone();
            for _ in 0..1 + next() % 4 {
                let at = HEADER_LEN + (next() as usize) % (bad.len() - HEADER_LEN);
                bad[at] = next() as u8;
            }
            let body_crc = crc(&bad[HEADER_LEN..]);
            bad[20..24].copy_from_slice(&body_crc.to_le_bytes());
            let _ = Manifest::decode(&bad);
        }
    }

    #[test]
    fn another_version_is_named_in_the_refusal() {
        let mut bytes = sample().encode();
        bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        let err = Manifest::decode(&bytes).unwrap_err();
        assert!(err.0.contains("another idgrep version"), "{err}");
    }

    #[test]
    fn a_last_block_past_the_indexed_lines_is_refused() {
        let mut m = sample();
        m.files[0].last_line = m.files[0].lines + 2;
        let err = Manifest::decode(&m.encode()).unwrap_err();
        assert!(err.0.contains("inconsistently"), "{err}");
    }
}
