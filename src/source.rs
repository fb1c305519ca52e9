//! What to search and how to read it: the paths from the command line walked into a sorted
//! list of files, standard input, and one reader per input that undoes gzip, zstd, bzip2 or
//! xz compression, recognised by magic bytes rather than by name, and hands on text as UTF-8
//! (a byte-order mark dropped, UTF-16 transcoded).
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
    /// The name shown in output: the path as given, or `<stdin>`. A byte of the path that is
    /// not UTF-8 is written `\xff`, so the name still tells the file apart (a lossy U+FFFD
    /// would not); the printers escape control characters in it.
    ///
    /// With `--label NAME`, standard input is `NAME` and a path is `NAME:PATH`.
    pub fn display_name(&self) -> String {
        match (self, LABEL.get()) {
            (Input::Stdin, None) => "<stdin>".to_string(),
            (Input::Stdin, Some(label)) => label.clone(),
            (Input::File(p) | Input::Error(p, _), None) => path_name(p),
            (Input::File(p) | Input::Error(p, _), Some(label)) => {
                format!("{label}:{}", path_name(p))
            }
        }
    }

    /// The name as JSON gives it: the path's bytes as the file system has them (after
    /// `--label`'s `NAME:`); [`Input::display_name`] shows these bytes.
    pub fn name_bytes(&self) -> Vec<u8> {
        let path = match self {
            Input::Stdin => return self.display_name().into_bytes(),
            Input::File(p) | Input::Error(p, _) => p.as_os_str().as_encoded_bytes(),
        };
        match LABEL.get() {
            None => path.to_vec(),
            Some(label) => [label.as_bytes(), b":", path].concat(),
        }
    }
}

/// `--label NAME`, once set. The inputs are named in a dozen places (the printers, the
/// notices, the exports), and one process has one label, so it is kept here rather than
/// carried by every input.
static LABEL: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Names standard input `label`, and prefixes every path with `label:`, in all that follows;
/// the first call wins.
pub fn set_label(label: &str) {
    let _ = LABEL.set(label.to_string());
}

/// `path` as text, with each byte that is not UTF-8 written `\xNN`.
fn path_name(path: &Path) -> String {
    match path.to_str() {
        Some(text) => text.to_string(),
        None => shown_name(path.as_os_str().as_encoded_bytes()),
    }
}

/// A name's bytes as text, with each byte that is not UTF-8 written `\xNN`: how
/// [`Input::display_name`] shows a path, and how a name read back from JSON is shown.
pub fn shown_name(bytes: &[u8]) -> String {
    let mut name = String::new();
    for chunk in bytes.utf8_chunks() {
        name.push_str(chunk.valid());
        for b in chunk.invalid() {
            name.push_str(&format!("\\x{b:02x}"));
        }
    }
    name
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
            // Siblings share their parent's path, so comparing whole paths as bytes orders
            // them by name, without the component parsing that `file_name` costs per
            // comparison (a tenth of a lookup's instructions on a tree of 866 files).
            .sort_by_file_path(|a, b| a.as_os_str().cmp(b.as_os_str()))
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

/// An I/O error as a short lowercase reason, without Rust's `(os error N)` suffix, and
/// without the walker's "IO error for operation on PATH:" around it (the path is said once,
/// before the reason).
pub fn io_reason(err: &io::Error) -> String {
    if err.raw_os_error().is_none()
        && let Some(inner) = err
            .get_ref()
            .and_then(|e| e.source())
            .and_then(|e| e.downcast_ref::<io::Error>())
    {
        return io_reason(inner);
    }
    let text = match err.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => err.to_string(),
    };
    let text = match text.find(" (os error") {
        Some(i) => &text[..i],
        None => &text,
    };
    // The C library's messages start with a capital ("Too many levels of symbolic links");
    // idgrep's reasons do not.
    let mut chars = text.chars();
    match chars.next() {
        Some(first) if err.raw_os_error().is_some() => first.to_lowercase().chain(chars).collect(),
        _ => text.to_string(),
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

/// Whether these first bytes of a file (six are enough) begin a compressed stream that
/// [`open`] undoes.
pub fn is_compressed(head: &[u8]) -> bool {
    Compression::detect(head) != Compression::None
}

/// A matcher for the `-g` globs, as the walk applies them: whether a path met under a
/// walked directory is to be read.
pub fn glob_filter(globs: &[String]) -> Result<impl Fn(&Path) -> bool + use<>, String> {
    let overrides = build_overrides(globs)?;
    Ok(move |path: &Path| !overrides.matched(path, false).is_ignore())
}

/// Opens an input for reading its (decompressed) bytes. With `progress`, every raw byte
/// read (before decompression) is added to it.
pub fn open(input: &Input, progress: Option<&Arc<AtomicU64>>) -> io::Result<Box<dyn Read + Send>> {
    let raw: Box<dyn Read + Send> = match input {
        Input::Stdin => Box::new(io::stdin()),
        Input::File(path) => Box::new(Shrinking::new(File::open(path)?)),
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

/// A file that tells when it ended early because it shrank while it was read (truncated by
/// `logrotate`'s copytruncate, or by hand): a read that finds the end before the size the file
/// had when opened fails once, if the file is now smaller, instead of passing for the end.
/// The lines read before are kept, as for any read error. A file whose size says nothing of
/// its content (under `/proc` or `/sys`) does not shrink, so it never fails here.
struct Shrinking {
    file: File,
    size_at_open: u64,
    read: u64,
    reported: bool,
}

impl Shrinking {
    fn new(file: File) -> Shrinking {
        let size_at_open = file.metadata().map_or(0, |m| m.len());
        Shrinking {
            file,
            size_at_open,
            read: 0,
            reported: false,
        }
    }
}

impl Read for Shrinking {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        self.read += n as u64;
        if n == 0 && !buf.is_empty() && self.read < self.size_at_open && !self.reported {
            let now = self.file.metadata().map_or(self.size_at_open, |m| m.len());
            if now < self.size_at_open {
                self.reported = true;
                return Err(io::Error::other(format!(
                    "the file shrank while it was read, from {} to {now} bytes; {} bytes read",
                    self.size_at_open, self.read
                )));
            }
        }
        Ok(n)
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

/// Wraps a reader in the decoder its first bytes call for, then in [`text_decoded`]. Every
/// decoder reads concatenated streams to the end (`cat a.gz b.gz`, multi-member gzip from
/// logrotate).
pub fn decompress(mut raw: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    let (head, error) = read_head(&mut raw, 6);
    if let Some(e) = error {
        return Err(e);
    }
    let compression = Compression::detect(&head);
    let head = io::Cursor::new(head);
    let decoder: Box<dyn Read + Send> = match compression {
        Compression::None => return Ok(text_decoded(head.into_inner(), raw)),
        Compression::Gzip => Box::new(GzipMembers::new(head.chain(raw))),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(head.chain(raw))?),
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(head.chain(raw))),
        Compression::Xz => Box::new(liblzma::read::XzDecoder::new_multi_decoder(head.chain(raw))),
    };
    let mut decoded: Box<dyn Read + Send> = Box::new(Labelled {
        inner: decoder,
        format: compression.name(),
    });
    let (head, error) = read_head(&mut decoded, 3);
    Ok(match error {
        // Reported by the first read, after the bytes that came before it, as a failure
        // further on would be.
        Some(e) => Box::new(io::Cursor::new(head).chain(FailOnce(Some(e)))),
        None => text_decoded(head, decoded),
    })
}

/// The first `n` bytes of `reader` (fewer at its end), and the error that stopped the read.
fn read_head(reader: &mut dyn Read, n: usize) -> (Vec<u8>, Option<io::Error>) {
    let mut head = vec![0; n];
    let mut filled = 0;
    while filled < n {
        match reader.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                head.truncate(filled);
                return (head, Some(e));
            }
        }
    }
    head.truncate(filled);
    (head, None)
}

/// A reader whose first read fails with the error it holds.
struct FailOnce(Option<io::Error>);

impl Read for FailOnce {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        self.0.take().map_or(Ok(0), Err)
    }
}

/// The text of an input whose first bytes, `head`, were read from `rest`, as UTF-8 without a
/// byte-order mark: a UTF-8 mark is dropped (it would hide the first line's time and be
/// printed), and UTF-16 with its mark, as Windows writes logs, is transcoded (unread, it is
/// all NUL bytes, a binary file). Without a mark, bytes pass as they are.
fn text_decoded(head: Vec<u8>, rest: Box<dyn Read + Send>) -> Box<dyn Read + Send> {
    let (skip, utf16) = match head.as_slice() {
        [0xef, 0xbb, 0xbf, ..] => (3, None),
        [0xff, 0xfe, ..] => (2, Some(Endian::Little)),
        [0xfe, 0xff, ..] => (2, Some(Endian::Big)),
        _ => (0, None),
    };
    let mut head = io::Cursor::new(head);
    head.set_position(skip);
    let whole = head.chain(rest);
    match utf16 {
        None => Box::new(whole),
        Some(endian) => Box::new(Utf16ToUtf8::new(whole, endian)),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Endian {
    Little,
    Big,
}

/// UTF-16 read as UTF-8, as the data arrives. An unpaired surrogate, or an odd byte at the
/// end, reads as U+FFFD.
struct Utf16ToUtf8<R> {
    inner: R,
    endian: Endian,
    raw: Box<[u8]>,
    /// Bytes in `raw`: at most one between reads, half of a unit.
    raw_len: usize,
    /// A high surrogate whose low half is still to come.
    high: Option<u16>,
    out: Vec<u8>,
    out_pos: usize,
    ended: bool,
}

impl<R: Read> Utf16ToUtf8<R> {
    fn new(inner: R, endian: Endian) -> Self {
        Utf16ToUtf8 {
            inner,
            endian,
            raw: vec![0; 64 * 1024].into_boxed_slice(),
            raw_len: 0,
            high: None,
            out: Vec::new(),
            out_pos: 0,
            ended: false,
        }
    }

    fn push_char(&mut self, c: char) {
        let mut utf8 = [0; 4];
        self.out
            .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
    }

    fn push_unit(&mut self, unit: u16) {
        match unit {
            0xd800..=0xdbff => {
                if self.high.replace(unit).is_some() {
                    self.push_char(char::REPLACEMENT_CHARACTER);
                }
            }
            0xdc00..=0xdfff => match self.high.take() {
                Some(high) => {
                    let code =
                        0x10000 + ((u32::from(high) - 0xd800) << 10) + (u32::from(unit) - 0xdc00);
                    self.push_char(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                }
                None => self.push_char(char::REPLACEMENT_CHARACTER),
            },
            _ => {
                if self.high.take().is_some() {
                    self.push_char(char::REPLACEMENT_CHARACTER);
                }
                let c = char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER);
                self.push_char(c);
            }
        }
    }
}

impl<R: Read> Read for Utf16ToUtf8<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.out_pos < self.out.len() {
                let n = buf.len().min(self.out.len() - self.out_pos);
                buf[..n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
                self.out_pos += n;
                return Ok(n);
            }
            if self.ended || buf.is_empty() {
                return Ok(0);
            }
            self.out.clear();
            self.out_pos = 0;
            let n = self.inner.read(&mut self.raw[self.raw_len..])?;
            if n == 0 {
                self.ended = true;
                if self.high.take().is_some() {
                    self.push_char(char::REPLACEMENT_CHARACTER);
                }
                if self.raw_len > 0 {
                    self.push_char(char::REPLACEMENT_CHARACTER);
                }
                continue;
            }
            let len = self.raw_len + n;
            let whole = len & !1;
            for i in (0..whole).step_by(2) {
                let pair = [self.raw[i], self.raw[i + 1]];
                let unit = match self.endian {
                    Endian::Little => u16::from_le_bytes(pair),
                    Endian::Big => u16::from_be_bytes(pair),
                };
                self.push_unit(unit);
            }
            self.raw_len = len - whole;
            if self.raw_len > 0 {
                self.raw[0] = self.raw[whole];
            }
        }
    }
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

    fn utf16(text: &str, endian: Endian) -> Vec<u8> {
        let mut bytes = match endian {
            Endian::Little => vec![0xff, 0xfe],
            Endian::Big => vec![0xfe, 0xff],
        };
        for unit in text.encode_utf16() {
            bytes.extend(match endian {
                Endian::Little => unit.to_le_bytes(),
                Endian::Big => unit.to_be_bytes(),
            });
        }
        bytes
    }

    #[test]
    fn a_utf8_byte_order_mark_is_dropped() {
        assert_eq!(
            read_all(b"\xef\xbb\xbfts=1 a\n".to_vec()).unwrap(),
            b"ts=1 a\n"
        );
        assert_eq!(read_all(b"\xef\xbb\xbf".to_vec()).unwrap(), b"");
        assert_eq!(read_all(gzip(b"\xef\xbb\xbfa\n")).unwrap(), b"a\n");
        // Only at the start.
        assert_eq!(
            read_all(b"a\xef\xbb\xbf".to_vec()).unwrap(),
            b"a\xef\xbb\xbf"
        );
    }

    #[test]
    fn utf16_with_a_byte_order_mark_reads_as_utf8_at_every_read_size() {
        let text = "2026-12-01 caf\u{e9} \u{1f600} \u{4e2d}\r\nsecond line\n";
        for endian in [Endian::Little, Endian::Big] {
            for step in [1, 2, 3, 5, 4096] {
                let (out, err) = read_in_steps(utf16(text, endian), step);
                assert!(err.is_none());
                assert_eq!(
                    String::from_utf8(out).unwrap(),
                    text,
                    "{endian:?} step {step}"
                );
            }
            let (out, _) = read_in_steps(gzip(&utf16(text, endian)), 7);
            assert_eq!(String::from_utf8(out).unwrap(), text, "gzipped {endian:?}");
        }
    }

    #[test]
    fn broken_utf16_reads_as_replacement_characters() {
        // A lone low surrogate, a high surrogate before a letter, a high surrogate at the
        // end, then half a unit.
        let mut bytes = vec![
            0xff, 0xfe, 0x00, 0xdc, b'a', 0, 0x00, 0xd8, b'b', 0, 0x3d, 0xd8,
        ];
        let (out, _) = read_in_steps(bytes.clone(), 1);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\u{fffd}a\u{fffd}b\u{fffd}"
        );
        bytes.push(b'c');
        let (out, _) = read_in_steps(bytes, 4096);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\u{fffd}a\u{fffd}b\u{fffd}\u{fffd}"
        );
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
