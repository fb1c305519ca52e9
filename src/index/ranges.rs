//! Reading the parts of a file the index vouches for: the byte ranges of its candidate
//! blocks, and the lines around them that a timeline needs to date a line (the nearest
//! timestamped line before a range, the file's first one).
//!
//! The walks for those lines read little (the line before a block is almost always dated)
//! but give up past [`WALK_LIMIT`] bytes, so that a file of undated lines costs its caller a
//! whole read, as without the index, and never a walk per range.

use std::fs::File;
use std::io::{self, Read};

use memchr::{memchr, memrchr};

use super::readahead;

/// How far back (or, for the first line, forward) a walk reads before giving up.
pub const WALK_LIMIT: u64 = 1 << 20;

/// The first windows of a walk: most walks end in the first.
const WINDOWS: [u64; 3] = [4 << 10, 64 << 10, WALK_LIMIT];

/// What a walk found.
#[derive(Debug, PartialEq, Eq)]
pub enum Walk<T> {
    Found(T),
    /// No line gave a value before the file's start (or end).
    Nothing,
    /// [`WALK_LIMIT`] bytes gave none: the caller reads the file whole.
    TooFar,
}

/// Offers each line that ends before `offset` (a line start) to `find`, nearest first, until
/// it gives a value. Lines come without their `\n`.
pub fn find_before<T>(
    file: &File,
    offset: u64,
    mut find: impl FnMut(&[u8]) -> Option<T>,
) -> io::Result<Walk<T>> {
    if offset == 0 {
        return Ok(Walk::Nothing);
    }
    let mut buf = Vec::new();
    for window in WINDOWS {
        let start = offset.saturating_sub(window);
        buf.resize((offset - start) as usize, 0);
        read_exact_at(file, &mut buf, start)?;
        // `None`: the line goes on before the window, so a wider one.
        if let Some(walk) = walk_back(&buf, start == 0, &mut find) {
            return Ok(walk);
        }
    }
    Ok(Walk::TooFar)
}

/// Offers the lines of `window` (bytes that end where a line starts) to `find`, nearest
/// first; `None` when the first of them may begin before the window and none gave a value.
/// `at_line_start`: the window begins a line (the file's, say), so its first line is whole.
fn walk_back<T>(
    window: &[u8],
    at_line_start: bool,
    find: &mut impl FnMut(&[u8]) -> Option<T>,
) -> Option<Walk<T>> {
    if window.last() != Some(&b'\n') {
        // Not a line start: the index's offsets no longer describe the file.
        return Some(Walk::TooFar);
    }
    let mut end = window.len() - 1;
    loop {
        match memrchr(b'\n', &window[..end]) {
            Some(newline) => {
                if let Some(value) = find(&window[newline + 1..end]) {
                    return Some(Walk::Found(value));
                }
                end = newline;
            }
            None if at_line_start => {
                return Some(find(&window[..end]).map_or(Walk::Nothing, Walk::Found));
            }
            None => return None,
        }
    }
}

/// The value of the nearest line before `offset` (a line start) that gives one, however far
/// back it is: [`find_before`]'s walk, and past its limit the file read from its start.
pub fn last_before<T>(
    file: &File,
    offset: u64,
    mut find: impl FnMut(&[u8]) -> Option<T>,
) -> io::Result<Option<T>> {
    match find_before(file, offset, &mut find)? {
        Walk::Found(value) => Ok(Some(value)),
        Walk::Nothing => Ok(None),
        Walk::TooFar => last_from_start(file, offset, find),
    }
}

/// [`last_before`] by reading the lines before `offset` from the file's start, a MiB at a
/// time, keeping the last value: each MiB's whole lines are walked back until one gives a
/// value.
fn last_from_start<T>(
    file: &File,
    offset: u64,
    mut find: impl FnMut(&[u8]) -> Option<T>,
) -> io::Result<Option<T>> {
    const READ: u64 = 1 << 20;
    let mut last = None;
    let mut buf: Vec<u8> = Vec::new();
    // The file offset of buf[0], a line start.
    let mut pos = 0;
    loop {
        let kept = buf.len();
        let want = (offset - pos - kept as u64).min(READ) as usize;
        if want == 0 {
            return Ok(last);
        }
        buf.resize(kept + want, 0);
        read_exact_at(file, &mut buf[kept..], pos + kept as u64)?;
        // A line longer than what is read so far: read on.
        let Some(newline) = memrchr(b'\n', &buf) else {
            continue;
        };
        if let Some(Walk::Found(value)) = walk_back(&buf[..=newline], true, &mut find) {
            last = Some(value);
        }
        buf.drain(..=newline);
        pos += newline as u64 + 1;
    }
}

/// Bytes read past a range's end in the same read: its last line goes on past its end, by a
/// line's length (a few hundred bytes in most logs).
const TAIL_SLACK: u64 = 512;

/// Room for the bytes of a file's ranges, kept from range to range ([`open_range`]). A read
/// takes in the ranges that follow it within [`JOIN_GAP`] bytes of each other, and those are
/// then cut from the bytes held, with no read of their own.
#[derive(Default)]
pub struct Held {
    bytes: Vec<u8>,
    /// What `bytes` hold: where they start in the file and how many the last read gave.
    window: Option<(u64, usize)>,
}

impl std::ops::Index<std::ops::Range<usize>> for Held {
    type Output = [u8];

    fn index(&self, span: std::ops::Range<usize>) -> &[u8] {
        let len = self.window.map_or(0, |(_, len)| len);
        &self.bytes[..len][span]
    }
}

impl Held {
    /// The lines that start in `range`, as [`read_lines`] gives them, when the bytes held
    /// have them all (the rest of the last one included); `None` otherwise.
    fn lines_of(&self, range: &super::Range) -> Option<(std::ops::Range<usize>, super::Range)> {
        let end = range.end?;
        let from = range.start.saturating_sub(1);
        let (held_from, len) = self.window.filter(|&(held_from, _)| held_from <= from)?;
        let bytes = &self.bytes[..len];
        let at = usize::try_from(from - held_from).ok()?;
        let head = if range.start == 0 {
            0
        } else {
            at + memchr(b'\n', bytes.get(at..)?)? + 1
        };
        let start = held_from + head as u64;
        if start >= end {
            let exact = super::Range {
                start,
                end: Some(start),
                ..*range
            };
            return Some((head..head, exact));
        }
        let last = usize::try_from(end - 1 - held_from).ok()?;
        let tail = last + memchr(b'\n', bytes.get(last..)?)? + 1;
        let exact = super::Range {
            start,
            end: Some(held_from + tail as u64),
            first_line: range.first_line,
        };
        Some((head..tail, exact))
    }
}

/// The widest gap between two ranges read at once ([`Held`]). The bytes between are copied
/// for nothing, so the gap is short: at 1 KiB a timeline's second hop on the bench corpus
/// reads a quarter fewer times and takes 0.976 of the time, at 4 KiB no less than with no
/// join (the ranges' reads cost in the bytes they copy from the page cache more than in
/// the calls).
const JOIN_GAP: u64 = 1 << 10;

/// Where the read of the first of `ranges` ends: the end of the last range that follows it
/// within [`JOIN_GAP`] of the one before, each held at once and all within
/// [`super::lookup::HELD_AT_ONCE`] of the first's start.
fn joined_end(ranges: &[super::Range]) -> Option<u64> {
    let (first, rest) = ranges.split_first()?;
    let mut end = first.end?;
    for next in rest {
        match next.end {
            Some(next_end)
                if next.start.saturating_sub(end) <= JOIN_GAP
                    && next_end.saturating_sub(first.start) <= super::lookup::HELD_AT_ONCE =>
            {
                end = next_end
            }
            _ => break,
        }
    }
    Some(end)
}

/// Reads the lines of a file that start in `range` ([`super::Range`]) into `held`, in one
/// read with the byte before them, the bytes on to `read_to` (past the range's end: the
/// ranges after it), and the rest of the last line in all but files of very long lines.
/// Returns where they are in `held` and the range they span exactly; empty when no line
/// starts in it. `first_of`: the file's ranges, when this is the first read of them (see
/// [`open_range`]). A file that ends inside the last line is shorter than its index says: an
/// error. A range to the file's end is read by a [`RangeReader`].
fn read_lines(
    file: &File,
    range: &super::Range,
    read_to: u64,
    held: &mut Held,
    mut first_of: Option<&[super::Range]>,
) -> io::Result<(std::ops::Range<usize>, super::Range)> {
    let Some(end) = range.end else {
        return Err(io::Error::other(
            "a range to the end of the file is not held",
        ));
    };
    held.window = None;
    let from = range.start.saturating_sub(1);
    let mut want = read_to
        .max(end)
        .saturating_sub(from)
        .saturating_add(TAIL_SLACK);
    loop {
        let len =
            usize::try_from(want).map_err(|_| io::Error::other("a range too long to hold"))?;
        if held.bytes.len() < len {
            held.bytes.resize(len, 0);
        }
        let buf = &mut held.bytes[..len];
        let n = match first_of.take() {
            Some(ranges) => match readahead::read_cached(file, buf, from) {
                Some(()) => len,
                None => {
                    will_need(file, ranges);
                    read_up_to_at(file, buf, from)?
                }
            },
            None => read_up_to_at(file, buf, from)?,
        };
        held.window = Some((from, n));
        let whole = n < len;
        if let Some(found) = held.lines_of(range) {
            return Ok(found);
        }
        // No line start or no end of the last line in the bytes read.
        let bytes = &held.bytes[..n];
        let head = (range.start == 0)
            .then_some(0)
            .or_else(|| memchr(b'\n', bytes));
        if whole {
            return match head {
                None => {
                    let start = from + n as u64;
                    let exact = super::Range {
                        start,
                        end: Some(start),
                        ..*range
                    };
                    Ok((n..n, exact))
                }
                Some(_) => Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the file is shorter than its index says",
                )),
            };
        }
        want = want.saturating_mul(2);
    }
}

/// Where the first line that starts at or after `offset` starts (the file's end when none
/// does), read in pieces: for the ends of a range too long to hold.
fn line_start_from(file: &File, offset: u64) -> io::Result<u64> {
    if offset == 0 {
        return Ok(0);
    }
    let mut buf = vec![0u8; 4 << 10];
    let mut at = offset - 1;
    loop {
        let n = read_up_to_at(file, &mut buf, at)?;
        if let Some(i) = memchr(b'\n', &buf[..n]) {
            return Ok(at + i as u64 + 1);
        }
        if n < buf.len() {
            return Ok(at + n as u64);
        }
        at += n as u64;
    }
}

/// `range` ([`super::Range`]) with its ends moved to the lines that start in it, found with
/// a few small reads; `None` when no line starts in it.
pub fn snap(file: &File, range: &super::Range) -> io::Result<Option<super::Range>> {
    let start = line_start_from(file, range.start)?;
    let end = match range.end {
        Some(end) => {
            let end = line_start_from(file, end)?;
            if start >= end {
                return Ok(None);
            }
            Some(end)
        }
        None => None,
    };
    Ok(Some(super::Range {
        start,
        end,
        ..*range
    }))
}

/// Offers the file's lines to `find` from its first, until it gives a value.
pub fn find_from_start<T>(
    file: &File,
    mut find: impl FnMut(&[u8]) -> Option<T>,
) -> io::Result<Walk<T>> {
    let mut buf = Vec::new();
    for window in WINDOWS {
        buf.resize(window as usize, 0);
        let len = read_up_to_at(file, &mut buf, 0)?;
        let whole = len < buf.len();
        let mut start = 0;
        while start < len {
            let end = match memchr(b'\n', &buf[start..len]) {
                Some(i) => start + i,
                None if whole => len,
                None => break,
            };
            if let Some(value) = find(&buf[start..end]) {
                return Ok(Walk::Found(value));
            }
            start = end + 1;
        }
        if whole {
            return Ok(Walk::Nothing);
        }
    }
    Ok(Walk::TooFar)
}

/// A range of a file ready to be searched ([`open_range`]).
pub enum RangeBytes<'a> {
    /// Its lines, read at once: where they are in the buffer.
    Held(std::ops::Range<usize>),
    /// A long range's lines, read as they are asked for.
    Streamed(RangeReader<'a>),
}

/// Gets `ranges[i]` of `file` ready to be searched, with its exact edges (where its first
/// line starts, and where the line after its last); `None` when no line starts in it.
/// `ranges`: the file's ranges, in order, each opened in turn. A range short enough
/// ([`super::Range::held_at_once`]) is cut from `held`, read at once with the ranges just
/// after it where it is not there already ([`read_lines`]); a longer one, its ends moved to
/// line starts ([`snap`]), is read as it is searched. The first range's read tells whether
/// the file is on disk, and if so asks for all of them at once.
pub fn open_range<'a>(
    file: &'a File,
    ranges: &[super::Range],
    i: usize,
    held: &mut Held,
) -> io::Result<Option<(super::Range, RangeBytes<'a>)>> {
    let range = &ranges[i];
    let first_of = (i == 0).then_some(ranges);
    if first_of.is_some() {
        // Another file's bytes.
        held.window = None;
    }
    if range.held_at_once() {
        let (span, exact) = match held.lines_of(range) {
            Some(found) => found,
            None => {
                let read_to = joined_end(&ranges[i..]).unwrap_or(0);
                read_lines(file, range, read_to, held, first_of)?
            }
        };
        return Ok((!span.is_empty()).then_some((exact, RangeBytes::Held(span))));
    }
    // Only ranges with an end are asked for: a grown file's new bytes alone need no probe.
    if let Some(ranges) = first_of
        && ranges.iter().any(|r| r.end.is_some())
        && readahead::read_cached(file, &mut [0], range.start).is_none()
    {
        will_need(file, ranges);
    }
    Ok(
        snap(file, range)?
            .map(|exact| (exact, RangeBytes::Streamed(RangeReader::of(file, &exact)))),
    )
}

/// The lines of a file that start in a range ([`super::Range`]) whose ends are line starts,
/// read as they are asked for, with positioned reads: a range costs no seek, and threads
/// never share a file offset.
pub struct RangeReader<'a> {
    file: &'a File,
    /// The bytes still to give, `pos..end` (to the file's end when `None`).
    pos: u64,
    end: Option<u64>,
}

impl<'a> RangeReader<'a> {
    /// The reader of `exact`, a range already snapped.
    fn of(file: &'a File, exact: &super::Range) -> RangeReader<'a> {
        RangeReader {
            file,
            pos: exact.start,
            end: exact.end,
        }
    }
}

impl Read for RangeReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = match self.end {
            Some(end) => end.saturating_sub(self.pos).min(buf.len() as u64) as usize,
            None => buf.len(),
        };
        if want == 0 {
            return Ok(0);
        }
        let n = read_at(self.file, &mut buf[..want], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// Asks for the bytes of `ranges` of `file` at once ([`super::readahead`]), with the rest of
/// each one's last line; a range to the file's end (the bytes it grew by since it was
/// indexed) is left to the reads.
fn will_need(file: &File, ranges: &[super::Range]) {
    readahead::will_need(
        file,
        ranges.iter().filter_map(|r| {
            let from = r.start.saturating_sub(1);
            r.end.map(|end| (from, end - from + TAIL_SLACK))
        }),
    );
}

/// Fills `buf` from `at`, short only at the end of the file; returns how much was read.
fn read_up_to_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match read_at(file, &mut buf[n..], at + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Fills `buf` from `at`; a file that ends first is an error.
pub(super) fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    if read_up_to_at(file, buf, at)? < buf.len() {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the file is shorter than its index says",
        ));
    }
    Ok(())
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

/// Windows' positional read moves the file's cursor, but each call names its offset, so
/// threads may share the file as on Unix.
#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, at)
}

#[cfg(not(any(unix, windows)))]
fn read_at(mut file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(at))?;
    file.read(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(text: &[u8]) -> (tempfile::NamedTempFile, File) {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text).unwrap();
        let file = File::open(f.path()).unwrap();
        (f, file)
    }

    /// The value of lines that start with `t=`.
    fn dated(line: &[u8]) -> Option<String> {
        line.strip_prefix(b"t=")
            .map(|v| String::from_utf8_lossy(v).into_owned())
    }

    #[test]
    fn the_nearest_line_before_an_offset_is_found_across_windows() {
        let mut text = b"t=first\nplain\n".to_vec();
        // 100 KiB of undated lines, then a dated one, more undated, and the offset.
        for _ in 0..2000 {
            text.extend_from_slice(b"an undated line of about fifty bytes, padded out.\n");
        }
        let far = text.len() as u64;
        text.extend_from_slice(b"t=near\nx\n");
        let near = text.len() as u64;
        let (_keep, file) = file_of(&text);
        assert_eq!(
            find_before(&file, near, dated).unwrap(),
            Walk::Found("near".into())
        );
        assert_eq!(
            find_before(&file, far, dated).unwrap(),
            Walk::Found("first".into())
        );
        assert_eq!(
            find_before(&file, 8, dated).unwrap(),
            Walk::Found("first".into())
        );
        assert_eq!(find_before(&file, 0, dated).unwrap(), Walk::Nothing);
        // Not a line start: the index is out of step with the file.
        assert_eq!(find_before(&file, 3, dated).unwrap(), Walk::TooFar);
        assert_eq!(
            find_from_start(&file, |l| dated(l).filter(|v| v == "near")).unwrap(),
            Walk::Found("near".into())
        );
    }

    /// The lines that start in a range, as a plain walk of the text finds them: from the
    /// first line start at or after its start to the first at or after its end.
    fn lines_in(starts: &[u64], start: u64, end: u64) -> Option<(u64, u64)> {
        let first = *starts.iter().find(|&&s| s >= start)?;
        let after = *starts.iter().find(|&&s| s >= end)?;
        (first < after).then_some((first, after))
    }

    /// 3,000 lines shorter and longer than the read past a range's end, and than a range,
    /// and where each starts (the text's end last).
    fn lines_of_every_length(rng: &mut crate::testing::Rng) -> (Vec<u8>, Vec<u64>) {
        let mut text = Vec::new();
        let mut starts = vec![0u64];
        for n in 0..3000 {
            let len = [0, 3, 40, 300, 5000][rng.below(5)];
            text.extend(std::iter::repeat_n(b'a' + (n % 26) as u8, len));
            text.push(b'\n');
            starts.push(text.len() as u64);
        }
        (text, starts)
    }

    #[test]
    fn a_range_read_gives_the_lines_that_start_in_it() {
        let mut rng = crate::testing::Rng(0xda7e);
        let (text, starts) = lines_of_every_length(&mut rng);
        let size = text.len() as u64;
        let (_keep, file) = file_of(&text);
        // One room for every read, as a search keeps it: what a read held before is not
        // taken for what this one read.
        let mut held = Held::default();
        for round in 0..3000 {
            // Ranges of one block or many, at line starts or not, up to the file's end.
            let start = if round % 7 == 0 {
                0
            } else {
                rng.below(text.len()) as u64
            };
            let end = (start + 1 + rng.below(if round % 2 == 0 { 1024 } else { 60_000 }) as u64)
                .min(size);
            let range = super::super::Range {
                start,
                end: Some(end),
                first_line: 9,
            };
            // Read on past the range's end now and then, as for the ranges after it.
            let read_to = end + [0, 0, 100, 5000][rng.below(4)];
            let (span, exact) = read_lines(&file, &range, read_to, &mut held, None).unwrap();
            let snapped = snap(&file, &range).unwrap();
            match lines_in(&starts, start, end) {
                Some((from, to)) => {
                    assert_eq!(
                        &held[span],
                        &text[from as usize..to as usize],
                        "{start}..{end}"
                    );
                    let want = super::super::Range {
                        start: from,
                        end: Some(to),
                        first_line: 9,
                    };
                    assert_eq!(exact, want);
                    assert_eq!(snapped, Some(want));
                }
                None => {
                    assert!(span.is_empty(), "{start}..{end}");
                    assert_eq!(snapped, None);
                }
            }
            // A reader of the snapped range, which reads as it is asked, gives the same bytes.
            let mut read = Vec::new();
            if let Some(exact) = snapped {
                RangeReader::of(&file, &exact)
                    .read_to_end(&mut read)
                    .unwrap();
            }
            let want = lines_in(&starts, start, end)
                .map_or(&[][..], |(from, to)| &text[from as usize..to as usize]);
            assert!(read == want, "{start}..{end}");
        }
        // A file cut short inside the range's last line is shorter than its index says.
        let (_keep, short) = file_of(&text[..starts[100] as usize - 1]);
        let range = super::super::Range {
            start: starts[99] - 1,
            end: Some(starts[99] + 1),
            first_line: 1,
        };
        let end = range.end.unwrap();
        assert!(read_lines(&short, &range, end, &mut Held::default(), None).is_err());
        // A range to the file's end is streamed, never held.
        let to_end = super::super::Range { end: None, ..range };
        assert!(read_lines(&file, &to_end, end, &mut Held::default(), None).is_err());
    }

    /// A file's ranges opened in turn with one room, where a read takes in the ranges just
    /// after it and those are cut from what it read, give the lines a plain walk of the
    /// text finds in each, with their exact edges.
    #[test]
    fn ranges_opened_in_turn_give_the_lines_that_start_in_each() {
        let mut rng = crate::testing::Rng(0x70e1);
        let (text, starts) = lines_of_every_length(&mut rng);
        let size = text.len() as u64;
        let (_keep, file) = file_of(&text);
        for round in 0..400 {
            // Blocks of a few hundred bytes (or, now and then, longer than a range held at
            // once), gaps shorter and longer than the join, and the last range to the
            // file's end in some rounds.
            let mut ranges = Vec::new();
            let mut at = rng.below(600) as u64;
            while at < size {
                let len = if rng.below(40) == 0 {
                    super::super::lookup::HELD_AT_ONCE + 1
                } else {
                    1 + rng.below(600) as u64
                };
                let end = (at + len).min(size);
                ranges.push(super::super::Range {
                    start: at,
                    end: Some(end),
                    first_line: ranges.len() as u64 + 1,
                });
                at = end + [0, 1, 200, JOIN_GAP, JOIN_GAP + 1, 40_000][rng.below(6)];
            }
            if round % 3 == 0
                && let Some(last) = ranges.last_mut()
            {
                last.end = None;
            }
            let mut held = Held::default();
            for (i, range) in ranges.iter().enumerate() {
                let got =
                    open_range(&file, &ranges, i, &mut held)
                        .unwrap()
                        .map(|(exact, bytes)| {
                            let bytes = match bytes {
                                RangeBytes::Held(span) => held[span].to_vec(),
                                RangeBytes::Streamed(mut reader) => {
                                    let mut read = Vec::new();
                                    reader.read_to_end(&mut read).unwrap();
                                    read
                                }
                            };
                            (exact, bytes)
                        });
                // A range to the file's end is streamed from its first line start on, the
                // file's end if none.
                let lines = match range.end {
                    Some(end) => lines_in(&starts, range.start, end),
                    None => starts
                        .iter()
                        .find(|&&s| s >= range.start)
                        .map(|&from| (from, size)),
                };
                let want = lines.map(|(from, to)| {
                    let exact = super::super::Range {
                        start: from,
                        end: range.end.map(|_| to),
                        first_line: range.first_line,
                    };
                    (exact, text[from as usize..to as usize].to_vec())
                });
                assert!(got == want, "round {round}, range {i}: {range:?}");
            }
        }
    }

    #[test]
    fn the_last_dated_line_before_an_offset_is_found_however_far_back() {
        // Dated lines now and then among undated ones of every length, and runs of undated
        // lines longer than a walk goes, so that walks end in its first window, past it, at
        // the file's start, and past its limit.
        let mut rng = crate::testing::Rng(0x1a57);
        let mut text = Vec::new();
        // Each line start, with the value of the last dated line before it.
        let mut starts = vec![(0u64, None)];
        let mut last = None;
        for n in 0..800 {
            match rng.below(100) {
                0..10 => {
                    text.extend_from_slice(format!("t={n}").as_bytes());
                    last = Some(n.to_string());
                }
                10..12 => {
                    for _ in 0..(WALK_LIMIT as usize / 5000 + 5) {
                        text.extend(std::iter::repeat_n(b'u', 4999));
                        text.push(b'\n');
                    }
                    text.pop();
                }
                _ => {
                    let len = [3, 40, 300, 5000][rng.below(4)];
                    text.extend(std::iter::repeat_n(b'u', len));
                }
            }
            text.push(b'\n');
            starts.push((text.len() as u64, last.clone()));
        }
        let (_keep, file) = file_of(&text);
        let mut far = 0;
        for _ in 0..300 {
            let (start, want) = &starts[rng.below(starts.len())];
            far += usize::from(find_before(&file, *start, dated).unwrap() == Walk::TooFar);
            assert_eq!(
                &last_before(&file, *start, dated).unwrap(),
                want,
                "at {start}"
            );
        }
        assert!(far > 0, "no walk went past its limit");
    }

    #[test]
    fn a_walk_gives_up_past_its_limit_and_stops_at_the_file_edges() {
        let line = b"undated\n";
        let text: Vec<u8> = line
            .iter()
            .copied()
            .cycle()
            .take(line.len() * (WALK_LIMIT as usize / line.len() + 10))
            .collect();
        let (_keep, file) = file_of(&text);
        assert_eq!(
            find_before(&file, text.len() as u64, dated).unwrap(),
            Walk::TooFar
        );
        assert_eq!(find_from_start(&file, dated).unwrap(), Walk::TooFar);
        let (_keep, small) = file_of(b"a\nb\nt=last-no-newline");
        assert_eq!(find_before(&small, 4, dated).unwrap(), Walk::Nothing);
        assert_eq!(
            find_from_start(&small, dated).unwrap(),
            Walk::Found("last-no-newline".into())
        );
        let (_keep, empty) = file_of(b"");
        assert_eq!(find_from_start(&empty, dated).unwrap(), Walk::Nothing);
    }
}
