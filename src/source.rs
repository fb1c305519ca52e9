//! What to search and how to read it: the paths from the command line walked into a sorted
//! list of files, standard input, and one reader per input that undoes gzip, zstd, bzip2 or
//! xz compression, recognised by magic bytes rather than by name.
//!
//! Log trees are not source trees: hidden files are searched and no `.gitignore` applies.
//! Symbolic links met in the walk are followed only when asked (`-L`); a link named on the
//! command line is always followed, as ripgrep does. Files are read through `read(2)`, never
//! mapped: a log rotated (truncated) under a mapping would kill the process with SIGBUS.

use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;

/// Whether standard input holds something to search: a file, a pipe or a socket, as ripgrep
/// judges it. A terminal is not, and neither is a device such as `/dev/null`, the standard
/// input of cron jobs and many CI steps, where `idgrep ID` with no path is meant to search
/// the working directory.
pub fn stdin_is_readable() -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::FileTypeExt;
        let Ok(fd) = io::stdin().as_fd().try_clone_to_owned() else {
            return false;
        };
        File::from(fd).metadata().is_ok_and(|meta| {
            let kind = meta.file_type();
            kind.is_file() || kind.is_fifo() || kind.is_socket()
        })
    }
    #[cfg(not(unix))]
    {
        use std::io::IsTerminal;
        !io::stdin().is_terminal()
    }
}

/// One thing to do, in output order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Stdin,
    File(PathBuf),
    /// A path that could not be walked, with the reason; reported in its place in the order.
    Error(PathBuf, String),
}

impl Input {
    /// The name shown in output: the path as given, or `<stdin>`.
    pub fn display_name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::File(p) | Input::Error(p, _) => p.display().to_string(),
        }
    }
}

/// How the walk chooses files.
#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    /// `-g` globs in ripgrep's syntax: a plain glob includes, `!glob` excludes.
    pub globs: Vec<String>,
    pub follow_links: bool,
    /// The path is `.` because none was given: files are named without the `./`.
    pub implicit_cwd: bool,
}

/// Checks the globs up front, so a bad one is an argument error before anything is read.
pub fn check_globs(globs: &[String]) -> Result<(), String> {
    build_overrides(globs).map(|_| ())
}

fn build_overrides(globs: &[String]) -> Result<ignore::overrides::Override, String> {
    let mut builder = OverrideBuilder::new(".");
    for glob in globs {
        builder
            .add(glob)
            .map_err(|e| format!("invalid glob {glob:?}: {e}"))?;
    }
    builder.build().map_err(|e| e.to_string())
}

/// Expands the command-line paths into inputs: directories recursively in sorted order (their
/// regular files), paths given as files as they are, `-` as standard input.
pub fn walk(paths: &[PathBuf], options: &WalkOptions) -> Result<Vec<Input>, String> {
    let overrides = build_overrides(&options.globs)?;
    let mut inputs = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push(Input::Stdin);
            continue;
        }
        let walker = WalkBuilder::new(path)
            .standard_filters(false)
            .follow_links(options.follow_links)
            .overrides(overrides.clone())
            .sort_by_file_name(|a, b| a.cmp(b))
            .build();
        for entry in walker {
            match entry {
                Ok(entry) => {
                    let Some(file_type) = entry.file_type() else {
                        // Only stdin has no file type, and the walker never yields it here.
                        continue;
                    };
                    if file_type.is_dir() {
                        continue;
                    }
                    if file_type.is_symlink() {
                        if entry.depth() > 0 {
                            // Not followed without -L (with -L the walker resolves links
                            // itself).
                            continue;
                        }
                        if entry.path().is_dir() {
                            // Named on the command line, a link is followed as ripgrep
                            // follows it: the walker goes into the directory it names and
                            // yields its files; the link itself is no file to read.
                            continue;
                        }
                    }
                    if !file_type.is_file() && entry.depth() > 0 {
                        // A FIFO, socket or device met in a directory, as ripgrep skips them:
                        // a FIFO would block the run until something writes to it. Named on
                        // the command line, it is read.
                        continue;
                    }
                    inputs.push(Input::File(shown(entry.into_path(), options)));
                }
                Err(err) => inputs.push(walk_error(path, err, options)),
            }
        }
    }
    Ok(inputs)
}

/// The inputs without the files already listed under another name (the same path twice,
/// overlapping globs, a directory and a file inside it, a hard link): the first occurrence
/// in walk order is kept. Counting and timeline commands read each file once; a search
/// prints every path it is given, as ripgrep does.
pub fn distinct(inputs: Vec<Input>) -> Vec<Input> {
    let mut seen = std::collections::HashSet::new();
    inputs
        .into_iter()
        .filter(|input| match input {
            Input::File(path) => file_key(path).is_none_or(|key| seen.insert(key)),
            _ => true,
        })
        .collect()
}

/// What tells one file from another whatever its path: device and inode.
#[cfg(unix)]
fn file_key(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// What tells one file from another whatever its path: the path with links resolved.
#[cfg(not(unix))]
fn file_key(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// `path` as output names it: `./logs/a.log` is `logs/a.log` when no path was given.
fn shown(path: PathBuf, options: &WalkOptions) -> PathBuf {
    match path.strip_prefix(".") {
        Ok(relative) if options.implicit_cwd && !relative.as_os_str().is_empty() => {
            relative.to_path_buf()
        }
        _ => path,
    }
}

/// Turns a walk error into an input that reports it; the walker's message names the path, so
/// we take the path out of it and keep the reason.
fn walk_error(root: &Path, err: ignore::Error, options: &WalkOptions) -> Input {
    fn innermost(err: &ignore::Error) -> (Option<PathBuf>, String) {
        match err {
            ignore::Error::WithPath { path, err } => {
                let (_, reason) = innermost(err);
                (Some(path.clone()), reason)
            }
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                innermost(err)
            }
            ignore::Error::Io(io) => (None, io_reason(io)),
            ignore::Error::Loop { child, .. } => {
                (Some(child.clone()), "symbolic link loop".to_string())
            }
            other => (None, other.to_string()),
        }
    }
    let (path, reason) = innermost(&err);
    let path = path.unwrap_or_else(|| root.to_path_buf());
    Input::Error(shown(path, options), reason)
}

/// An I/O error as a short lowercase reason, without Rust's `(os error N)` suffix.
pub fn io_reason(err: &io::Error) -> String {
    let text = match err.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => err.to_string(),
    };
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// The compression formats we undo, by their magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
    Bzip2,
    Xz,
}

impl Compression {
    fn detect(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(b"BZh") {
            Compression::Bzip2
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else {
            Compression::None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
        }
    }
}

/// Opens an input for reading its (decompressed) bytes. With `progress`, every raw byte
/// read (before decompression) is added to it.
pub fn open(input: &Input, progress: Option<&Arc<AtomicU64>>) -> io::Result<Box<dyn Read + Send>> {
    let raw: Box<dyn Read + Send> = match input {
        Input::Stdin => Box::new(io::stdin()),
        Input::File(path) => Box::new(File::open(path)?),
        Input::Error(_, reason) => return Err(io::Error::other(reason.clone())),
    };
    match progress {
        None => decompress(raw),
        Some(done) => decompress(Box::new(Counted {
            inner: raw,
            done: Arc::clone(done),
        })),
    }
}

/// The bytes an input holds on disk (before decompression), when known up front.
pub fn size(input: &Input) -> Option<u64> {
    match input {
        Input::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
        _ => None,
    }
}

/// When an input was last written, if it is a file.
pub fn modified(input: &Input) -> Option<std::time::SystemTime> {
    match input {
        Input::File(path) => std::fs::metadata(path).and_then(|m| m.modified()).ok(),
        _ => None,
    }
}

struct Counted {
    inner: Box<dyn Read + Send>,
    done: Arc<AtomicU64>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.done.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Wraps a reader in the decoder its first bytes call for. Every decoder reads concatenated
/// streams to the end (`cat a.gz b.gz`, multi-member gzip from logrotate).
pub fn decompress(mut raw: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    let mut head = [0u8; 6];
    let mut filled = 0;
    while filled < head.len() {
        match raw.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let head = head[..filled].to_vec();
    let compression = Compression::detect(&head);
    let whole = io::Cursor::new(head).chain(raw);
    let decoder: Box<dyn Read + Send> = match compression {
        Compression::None => return Ok(Box::new(whole)),
        Compression::Gzip => Box::new(GzipMembers::new(whole)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(whole)?),
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(whole)),
        Compression::Xz => Box::new(liblzma::read::XzDecoder::new_multi_decoder(whole)),
    };
    Ok(Box::new(Labelled {
        inner: decoder,
        format: compression.name(),
    }))
}

/// Concatenated gzip members read to the end, as `gzip -dc` reads them: zero bytes after the
/// last member (the padding of tape and block-padded archives) end the input; anything else
/// after a complete member ends it with [`TrailingGarbage`].
struct GzipMembers<R: Read> {
    decoder: Option<flate2::bufread::GzDecoder<io::BufReader<R>>>,
}

impl<R: Read> GzipMembers<R> {
    fn new(raw: R) -> Self {
        // The buffer flate2's own multi-member reader uses.
        let buffered = io::BufReader::with_capacity(32 * 1024, raw);
        GzipMembers {
            decoder: Some(flate2::bufread::GzDecoder::new(buffered)),
        }
    }
}

impl<R: Read> Read for GzipMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(decoder) = &mut self.decoder else {
                return Ok(0);
            };
            let n = decoder.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let mut rest = self.decoder.take().expect("read above").into_inner();
            let next = rest.fill_buf()?.first().copied();
            match next {
                None => return Ok(0),
                Some(0x1f) => self.decoder = Some(flate2::bufread::GzDecoder::new(rest)),
                Some(0) if only_zeros_left(&mut rest)? => return Ok(0),
                Some(_) => return Err(io::Error::new(io::ErrorKind::InvalidData, TrailingGarbage)),
            }
        }
    }
}

/// Reads `reader` to the end; true if every byte left was zero.
fn only_zeros_left(reader: &mut impl io::BufRead) -> io::Result<bool> {
    loop {
        let bytes = reader.fill_buf()?;
        if bytes.is_empty() {
            return Ok(true);
        }
        if bytes.iter().any(|&b| b != 0) {
            return Ok(false);
        }
        let n = bytes.len();
        reader.consume(n);
    }
}

/// Bytes after the last complete member of an archive that are neither a member nor padding.
/// Everything before them was read whole (see [`ends_whole`]); gzip's own words name it.
#[derive(Debug)]
pub struct TrailingGarbage;

impl std::fmt::Display for TrailingGarbage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("trailing garbage ignored")
    }
}

impl std::error::Error for TrailingGarbage {}

/// Whether a read error came after every byte of the input's content: its last line, even
/// without a final newline, is whole and can be searched.
pub fn ends_whole(err: &io::Error) -> bool {
    err.get_ref()
        .is_some_and(|inner| inner.is::<TrailingGarbage>())
}

/// Prefixes decoder errors with the format, so `unexpected end of file` reads as
/// `gzip: unexpected end of file`.
struct Labelled {
    inner: Box<dyn Read + Send>,
    format: &'static str,
}

impl Read for Labelled {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if ends_whole(&e) {
                // Said in gzip's words, which need no prefix.
                return e;
            }
            io::Error::new(e.kind(), format!("{}: {}", self.format, io_reason(&e)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn read_all(bytes: Vec<u8>) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        decompress(Box::new(io::Cursor::new(bytes)))?.read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn plain_and_short_inputs_pass_through() {
        assert_eq!(read_all(b"ab".to_vec()).unwrap(), b"ab");
        assert_eq!(read_all(Vec::new()).unwrap(), b"");
        assert_eq!(
            read_all(b"hello world\n".to_vec()).unwrap(),
            b"hello world\n"
        );
    }

    #[test]
    fn multi_member_gzip_reads_every_member() {
        let mut all = Vec::new();
        for part in [&b"one\n"[..], b"two\n"] {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(part).unwrap();
            all.extend(enc.finish().unwrap());
        }
        assert_eq!(read_all(all).unwrap(), b"one\ntwo\n");
    }

    #[test]
    fn zstd_bzip2_xz_are_recognised_by_content() {
        let text = b"line 1\nline 2\n".repeat(100);
        let z = zstd::encode_all(&text[..], 1).unwrap();
        assert_eq!(read_all(z).unwrap(), text);
        let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        bz.write_all(&text).unwrap();
        assert_eq!(read_all(bz.finish().unwrap()).unwrap(), text);
        let mut xz = liblzma::write::XzEncoder::new(Vec::new(), 1);
        xz.write_all(&text).unwrap();
        assert_eq!(read_all(xz.finish().unwrap()).unwrap(), text);
    }

    fn gzip(text: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(text).unwrap();
        enc.finish().unwrap()
    }

    /// Reads at most `step` bytes at a time, to the end or the first error.
    fn read_in_steps(bytes: Vec<u8>, step: usize) -> (Vec<u8>, Option<io::Error>) {
        let mut reader = decompress(Box::new(io::Cursor::new(bytes))).unwrap();
        let mut out = Vec::new();
        let mut buf = vec![0; step];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => return (out, Some(e)),
            }
        }
    }

    #[test]
    fn zero_padding_after_the_last_gzip_member_ends_the_input() {
        let mut padded = gzip(b"one\n");
        padded.extend(gzip(b"two"));
        padded.extend(vec![0; 70_000]);
        for step in [1, 7, 65_536] {
            let (out, err) = read_in_steps(padded.clone(), step);
            assert_eq!(out, b"one\ntwo", "step {step}");
            assert!(err.is_none(), "step {step}: {err:?}");
        }
    }

    #[test]
    fn garbage_after_a_gzip_member_follows_its_whole_content() {
        for garbage in [&b"junk"[..], b"\0\0\0x"] {
            let mut bytes = gzip(b"one\ntwo");
            bytes.extend_from_slice(garbage);
            for step in [1, 65_536] {
                let (out, err) = read_in_steps(bytes.clone(), step);
                assert_eq!(out, b"one\ntwo");
                let err = err.expect("trailing garbage is reported");
                assert!(ends_whole(&err));
                assert_eq!(io_reason(&err), "trailing garbage ignored");
            }
        }
    }

    #[test]
    fn truncated_gzip_is_an_error_naming_the_format() {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&b"some line of text\n".repeat(1000)).unwrap();
        let mut gz = enc.finish().unwrap();
        gz.truncate(gz.len() / 2);
        let err = read_all(gz).unwrap_err();
        assert!(err.to_string().starts_with("gzip: "), "{err}");
    }
}
