//! One input, read to the end: its matching lines with their numbers, and the lines around
//! them when context is asked for.
//!
//! The reader fills a large buffer; the matcher searches everything up to the last newline in
//! it at once, and line bounds and numbers are worked out only around hits (the matcher's
//! vector loops count newlines as they go, see [`crate::scan::Numbering`]; no line is walked
//! one by one, except the context lines next to a hit). Where hits are dense, as for the
//! inventory views, the bounds come from a map of the buffer's newlines
//! ([`crate::scan::Newlines`]) rather than a `memchr` each way per line. The partial last
//! line moves to the front of the buffer for the next read, so an ID that straddles two
//! reads is still found; a line longer than the buffer grows it (in a memory map, module
//! `buffer`, so that a line of gigabytes costs about its size). The last lines of a buffer
//! that a hit early in the next could need as before-context are carried over (at most `-B`
//! of them).

use std::collections::VecDeque;
use std::io::{self, Read};

use memchr::{memchr, memrchr};

use crate::scan::{Hit, Matcher, Newlines, Numbering};
use crate::source;

mod buffer;

use buffer::ReadBuffer;

/// Size of the read buffer. Large enough that syscalls and the per-buffer overhead vanish,
/// small enough to stay in L2 and keep memory flat per thread.
pub const BUFFER_SIZE: usize = 256 * 1024;

/// Hits at most this many bytes apart on average make a buffer's lines found by a map of its
/// newlines: mapping costs about a `memchr` call per 500 bytes, and each hit line saves two.
const DENSE_HIT_SPACING: usize = 512;

/// A matching line as handed to the caller. Offsets in `hits` are relative to `line`.
pub struct LineMatch<'a> {
    pub line_no: u64,
    /// The line without its `\n` or `\r\n`.
    pub line: &'a [u8],
    pub hits: &'a [Hit],
    /// The bytes read before the line that are still in the buffer: whole lines, the
    /// nearest last. A caller that needs context (the time of an earlier line) reads back
    /// through them instead of reading the input again; they may not reach the input's start.
    pub before: &'a [u8],
    /// A line reported around a match (`-A`, `-B`), not a match itself: `hits` is empty.
    pub context: bool,
    /// With context lines only: lines of this input were passed over between the line
    /// reported before this one and this one (where ripgrep prints `--`).
    pub after_gap: bool,
}

/// A run of whole lines as read, for callers that look at every line and not only at the
/// lines with hits (the audit reads keys whose values are not IDs).
pub struct Chunk<'a> {
    /// Whole lines, each ending in `\n` except perhaps the last line of the input.
    pub bytes: &'a [u8],
    /// Number of the first line in `bytes` (counted with `line_numbers` or context only).
    pub first_line_no: u64,
    /// The lines the matcher's hits are on, which the line callback will be given, in
    /// order: where each starts and where it ends (its `\n`, or the end of `bytes`).
    pub lines: &'a [(usize, usize)],
    /// Where the X-Ray IDs of `X-Amzn-Trace-Id` values start in `bytes` (right after
    /// `Root=`), in order, when [`SearchOptions::xray_roots`] asked the matcher for them and
    /// it could tell; else `None`.
    pub xray_roots: Option<&'a [usize]>,
}

/// `line` without the `\r` of a `\r\n` ending.
pub fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// How to search.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchOptions {
    /// Count lines (`false` for -c, -l, -q, where no number is shown).
    pub line_numbers: bool,
    /// `-a`: treat binary files as text.
    pub text: bool,
    /// Lines around each matching line that are reported too.
    pub context: Context,
    /// Have a matcher of every ID note where X-Ray header values start as it searches
    /// ([`Chunk::xray_roots`]), for the inventory views.
    pub xray_roots: bool,
}

/// How many lines before and after each matching line are reported with it, as ripgrep's
/// `-B` and `-A`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Context {
    pub before: usize,
    pub after: usize,
}

/// What became of one input.
#[derive(Debug, Default)]
pub struct Outcome {
    pub matched_lines: u64,
    /// Matching lines not reported because the input is binary: it has a NUL byte in its
    /// first block ([`BUFFER_SIZE`] bytes), and the lines from there on were counted, not
    /// reported (lines read before it, from an input that arrives in small pieces such as a
    /// pipe, were reported as they came, as ripgrep does).
    pub withheld_lines: u64,
    /// The read failed part way; lines before the failure were reported.
    pub error: Option<io::Error>,
}

/// Reusable per-thread state.
#[derive(Default)]
pub struct Scratch {
    buf: ReadBuffer,
    hits: Vec<Hit>,
    line_hits: Vec<Hit>,
    hit_lines: Vec<(usize, usize)>,
    numbering: Numbering,
    newlines: Newlines,
    xray_roots: Vec<usize>,
}

/// Reads `reader` to the end, calling `on_line` for each matching line (not for binary
/// inputs) until it returns `false`.
pub fn search(
    matcher: &Matcher,
    options: SearchOptions,
    reader: &mut dyn Read,
    scratch: &mut Scratch,
    on_line: &mut dyn FnMut(&LineMatch) -> bool,
) -> Outcome {
    search_with_chunks(matcher, options, reader, scratch, None, on_line)
}

/// [`search`], also handing every chunk of whole lines to `on_chunk` (not for binary inputs),
/// before the matching lines in it.
pub fn search_with_chunks(
    matcher: &Matcher,
    options: SearchOptions,
    reader: &mut dyn Read,
    scratch: &mut Scratch,
    on_chunk: Option<&mut dyn FnMut(&Chunk)>,
    on_line: &mut dyn FnMut(&LineMatch) -> bool,
) -> Outcome {
    search_from(matcher, options, reader, scratch, 1, on_chunk, on_line)
}

/// [`search_with_chunks`] over a part of an input that starts at a line start,
/// `first_line_no` being that line's number: what the index hands over instead of the whole
/// input. The caller decides binary-ness (`options.text`), as the part may not hold the
/// input's first block.
pub fn search_part(
    matcher: &Matcher,
    options: SearchOptions,
    reader: &mut dyn Read,
    scratch: &mut Scratch,
    first_line_no: u64,
    on_chunk: Option<&mut dyn FnMut(&Chunk)>,
    on_line: &mut dyn FnMut(&LineMatch) -> bool,
) -> Outcome {
    search_from(
        matcher,
        options,
        reader,
        scratch,
        first_line_no,
        on_chunk,
        on_line,
    )
}

/// [`search_part`] over a part already in memory, `bytes` (whole lines; the last may lack
/// its newline): searched where it lies, not copied into the scratch buffer first. The
/// outcome and the calls are those of [`search_part`] reading the same bytes.
pub fn search_bytes(
    matcher: &Matcher,
    options: SearchOptions,
    bytes: &[u8],
    scratch: &mut Scratch,
    first_line_no: u64,
    mut on_chunk: Option<&mut dyn FnMut(&Chunk)>,
    on_line: &mut dyn FnMut(&LineMatch) -> bool,
) -> Outcome {
    let (_, mut lines) = LineState::new(matcher, options, scratch, first_line_no);
    let mut outcome = Outcome::default();
    if !options.text && memchr(0, &bytes[..bytes.len().min(BUFFER_SIZE)]).is_some() {
        lines.report = false;
    }
    if !bytes.is_empty() {
        lines.process(bytes, &mut outcome, &mut on_chunk, on_line);
    }
    outcome
}

fn search_from(
    matcher: &Matcher,
    options: SearchOptions,
    reader: &mut dyn Read,
    scratch: &mut Scratch,
    first_line_no: u64,
    mut on_chunk: Option<&mut dyn FnMut(&Chunk)>,
    on_line: &mut dyn FnMut(&LineMatch) -> bool,
) -> Outcome {
    let (buf, mut lines) = LineState::new(matcher, options, scratch, first_line_no);
    buf.reset();
    let mut outcome = Outcome::default();
    let mut len = 0;
    // Bytes still to look at for a NUL: the first block's, however the reads split it (a
    // decompressing reader hands its magic bytes back as a read of their own). Lines are
    // searched as they arrive, so that a live pipe shows them at once; from one that
    // arrives in small pieces, lines before a NUL may be reported before it is seen.
    let mut unchecked = if options.text { 0 } else { BUFFER_SIZE };
    loop {
        if len == buf.len()
            && let Err(e) = buf.grow()
        {
            // No memory for a longer line: the lines before it were searched already.
            outcome.error = Some(e);
            return outcome;
        }
        let n = match reader.read(&mut buf[len..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                // Complete lines read before the damage have been searched already; the
                // partial line after the last newline is not a line we can vouch for, unless
                // the error came after the whole content.
                if len > 0 && source::ends_whole(&e) {
                    lines.process(&buf[..len], &mut outcome, &mut on_chunk, on_line);
                }
                outcome.error = Some(e);
                return outcome;
            }
        };
        if n == 0 {
            break;
        }
        let look = n.min(unchecked);
        unchecked -= look;
        if look > 0 && memchr(0, &buf[len..len + look]).is_some() {
            lines.report = false;
            unchecked = 0;
        }
        let fresh = len;
        len += n;
        let Some(last_newline) = memrchr(b'\n', &buf[fresh..len]).map(|i| fresh + i) else {
            continue;
        };
        let keep_going = lines.process(&buf[..=last_newline], &mut outcome, &mut on_chunk, on_line);
        if !keep_going {
            return outcome;
        }
        len = buf.keep(last_newline + 1..len);
    }
    if len > 0 {
        lines.process(&buf[..len], &mut outcome, &mut on_chunk, on_line);
    }
    outcome
}

struct LineState<'a> {
    matcher: &'a Matcher,
    options: SearchOptions,
    /// Number of the line that starts at the beginning of the next chunk.
    line_no: u64,
    hits: &'a mut Vec<Hit>,
    line_hits: &'a mut Vec<Hit>,
    hit_lines: &'a mut Vec<(usize, usize)>,
    numbering: &'a mut Numbering,
    newlines: &'a mut Newlines,
    xray_roots: &'a mut Vec<usize>,
    /// Lines are counted (for their numbers, or to place context lines).
    numbered: bool,
    report: bool,
    /// After-context lines still owed to the last match.
    after_left: usize,
    /// The last lines of the chunks read so far that were not reported: the before-context
    /// of a match early in the next chunk. At most `context.before`.
    carry: Carry,
    /// A line of this input has been reported.
    reported_any: bool,
    /// A line has been passed over since the last one reported.
    skipped: bool,
}

impl<'a> LineState<'a> {
    /// The state at the start of an input's part whose first line is `first_line_no`, and
    /// the scratch's read buffer.
    fn new(
        matcher: &'a Matcher,
        options: SearchOptions,
        scratch: &'a mut Scratch,
        first_line_no: u64,
    ) -> (&'a mut ReadBuffer, LineState<'a>) {
        let Scratch {
            buf,
            hits,
            line_hits,
            hit_lines,
            numbering,
            newlines,
            xray_roots,
        } = scratch;
        let lines = LineState {
            matcher,
            options,
            line_no: first_line_no,
            hits,
            line_hits,
            hit_lines,
            numbering,
            newlines,
            xray_roots,
            // Context lines are placed by their numbers, shown or not.
            numbered: options.line_numbers || options.context != Context::default(),
            report: true,
            after_left: 0,
            carry: Carry::default(),
            reported_any: false,
            skipped: false,
        };
        (buf, lines)
    }
}

impl LineState<'_> {
    /// Searches a chunk of whole lines (the last may lack its newline at end of input).
    fn process(
        &mut self,
        chunk: &[u8],
        outcome: &mut Outcome,
        on_chunk: &mut Option<&mut dyn FnMut(&Chunk)>,
        on_line: &mut dyn FnMut(&LineMatch) -> bool,
    ) -> bool {
        let first_line_no = self.line_no;
        let mut roots_found = false;
        if self.numbered {
            self.matcher.find_numbered(chunk, self.hits, self.numbering);
        } else if self.options.xray_roots {
            roots_found = self
                .matcher
                .find_with_xray_roots(chunk, self.hits, self.xray_roots);
        } else {
            self.matcher.find(chunk, self.hits);
        }
        self.hit_lines.clear();
        let dense = self.hits.len() * DENSE_HIT_SPACING >= chunk.len();
        if dense {
            self.newlines.map(chunk);
        }
        let mut i = 0;
        while let Some(first) = self.hits.get(i) {
            let (line_start, line_end) = if dense {
                (
                    self.newlines.line_start(first.start),
                    self.newlines.line_end(first.end),
                )
            } else {
                (
                    memrchr(b'\n', &chunk[..first.start]).map_or(0, |p| p + 1),
                    memchr(b'\n', &chunk[first.end..]).map_or(chunk.len(), |p| first.end + p),
                )
            };
            self.hit_lines.push((line_start, line_end));
            while self.hits.get(i).is_some_and(|h| h.start < line_end) {
                i += 1;
            }
        }
        if let (true, Some(on_chunk)) = (self.report, on_chunk) {
            on_chunk(&Chunk {
                bytes: chunk,
                first_line_no,
                lines: self.hit_lines,
                xray_roots: roots_found.then_some(&self.xray_roots[..]),
            });
        }
        let with_context = self.report && self.options.context != Context::default();
        // With context: lines before `cursor` (numbered from `cursor_no`) are reported or
        // passed over.
        let mut cursor = 0;
        let mut cursor_no = first_line_no;
        let mut i = 0;
        for l in 0..self.hit_lines.len() {
            let (line_start, line_end) = self.hit_lines[l];
            self.line_hits.clear();
            if self.numbered {
                // No newline lies between the line's start and its first hit.
                self.line_no = first_line_no + self.numbering.before[i];
            }
            if with_context
                && !self.context_before(chunk, &mut cursor, &mut cursor_no, line_start, on_line)
            {
                return false;
            }
            while i < self.hits.len() && self.hits[i].start < line_end {
                let mut hit = self.hits[i];
                hit.start -= line_start;
                hit.end -= line_start;
                self.line_hits.push(hit);
                i += 1;
            }
            outcome.matched_lines += 1;
            if self.report {
                let line = trim_cr(&chunk[line_start..line_end]);
                let after_gap = with_context && self.take_gap();
                let m = LineMatch {
                    line_no: self.line_no,
                    line,
                    hits: self.line_hits,
                    before: &chunk[..line_start],
                    context: false,
                    after_gap,
                };
                if !on_line(&m) {
                    return false;
                }
            } else {
                outcome.withheld_lines += 1;
            }
            if with_context {
                cursor = (line_end + 1).min(chunk.len());
                cursor_no = self.line_no + 1;
                self.after_left = self.options.context.after;
            }
        }
        if self.numbered {
            self.line_no = first_line_no + self.numbering.total;
        }
        !with_context || self.context_at_end(chunk, cursor, cursor_no, on_line)
    }

    /// Whether the next line reported follows a gap; it is reported now.
    fn take_gap(&mut self) -> bool {
        let gap = self.skipped && self.reported_any;
        self.skipped = false;
        self.reported_any = true;
        gap
    }

    /// Reports one context line (`line` may end in `\n` or `\r\n`).
    fn context_line(
        &mut self,
        line_no: u64,
        line: &[u8],
        before: &[u8],
        on_line: &mut dyn FnMut(&LineMatch) -> bool,
    ) -> bool {
        let line = trim_cr(line.strip_suffix(b"\n").unwrap_or(line));
        let m = LineMatch {
            line_no,
            line,
            hits: &[],
            before,
            context: true,
            after_gap: self.take_gap(),
        };
        on_line(&m)
    }

    /// Reports the after-context owed from `cursor` on, up to `limit`.
    fn context_after(
        &mut self,
        chunk: &[u8],
        cursor: &mut usize,
        cursor_no: &mut u64,
        limit: usize,
        on_line: &mut dyn FnMut(&LineMatch) -> bool,
    ) -> bool {
        for line in lines_of(&chunk[*cursor..limit]).take(self.after_left) {
            if !self.context_line(*cursor_no, line, &chunk[..*cursor], on_line) {
                return false;
            }
            *cursor += line.len();
            *cursor_no += 1;
            self.after_left -= 1;
        }
        true
    }

    /// Before the matching line at `line_start`: the after-context owed to the match before
    /// it, then its own before-context, from this chunk and the lines carried from the chunk
    /// before.
    fn context_before(
        &mut self,
        chunk: &[u8],
        cursor: &mut usize,
        cursor_no: &mut u64,
        line_start: usize,
        on_line: &mut dyn FnMut(&LineMatch) -> bool,
    ) -> bool {
        if !self.context_after(chunk, cursor, cursor_no, line_start, on_line) {
            return false;
        }
        let wanted = self.options.context.before;
        let (start, in_chunk) = last_lines(chunk, *cursor, line_start, wanted);
        let line_no = self.line_no;
        let first_no = line_no - in_chunk as u64;
        if start > *cursor {
            self.skipped = true;
        }
        // The carried lines are the ones just before this chunk: some of them are context
        // if this chunk has too few lines before the match, the others are passed over.
        let mut carried = std::mem::take(&mut self.carry);
        if *cursor == 0 && !carried.is_empty() {
            let from_carry = if start == 0 {
                (wanted - in_chunk).min(carried.len())
            } else {
                0
            };
            if from_carry < carried.len() {
                self.skipped = true;
            }
            carried.keep_last(from_carry);
            let (bytes, lengths) = carried.lines();
            let mut at = 0;
            for (no, &len) in (first_no - from_carry as u64..).zip(lengths) {
                if !self.context_line(no, &bytes[at..at + len], b"", on_line) {
                    return false;
                }
                at += len;
            }
        }
        carried.clear();
        self.carry = carried;
        let mut at = start;
        for (no, line) in (first_no..).zip(lines_of(&chunk[start..line_start])) {
            if !self.context_line(no, line, &chunk[..at], on_line) {
                return false;
            }
            at += line.len();
        }
        true
    }

    /// After the chunk's last match: the after-context owed, then the lines that may be
    /// before-context for a match in the next chunk are carried (the others are passed over).
    fn context_at_end(
        &mut self,
        chunk: &[u8],
        mut cursor: usize,
        mut cursor_no: u64,
        on_line: &mut dyn FnMut(&LineMatch) -> bool,
    ) -> bool {
        if !self.context_after(chunk, &mut cursor, &mut cursor_no, chunk.len(), on_line) {
            return false;
        }
        if cursor == chunk.len() {
            return true;
        }
        let wanted = self.options.context.before;
        let (start, _) = last_lines(chunk, cursor, chunk.len(), wanted);
        if start > cursor {
            self.skipped = true;
        }
        for line in lines_of(&chunk[start..]) {
            self.carry.push(line);
        }
        if self.carry.len() > wanted {
            self.carry.keep_last(wanted);
            self.skipped = true;
        }
        true
    }
}

/// The lines of `bytes`, each with its `\n` (the last may have none).
fn lines_of(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split_inclusive(|&b| b == b'\n')
}

/// Where the last `n` lines of `chunk[floor..end]` start (`end` is the end of a line), and
/// how many there are: fewer than `n` when `floor` comes first.
fn last_lines(chunk: &[u8], floor: usize, end: usize, n: usize) -> (usize, usize) {
    let (mut start, mut count) = (end, 0);
    while count < n && start > floor {
        start = memrchr(b'\n', &chunk[floor..start - 1]).map_or(floor, |p| floor + p + 1);
        count += 1;
    }
    (start, count)
}

/// Whole lines in a row, oldest first, as carried from one chunk to the next: one buffer
/// for their bytes and their lengths, so that a large `-B` holds the lines, not an
/// allocation per line.
#[derive(Default)]
struct Carry {
    bytes: VecDeque<u8>,
    lengths: VecDeque<usize>,
}

impl Carry {
    fn len(&self) -> usize {
        self.lengths.len()
    }

    fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    fn push(&mut self, line: &[u8]) {
        self.bytes.extend(line);
        self.lengths.push_back(line.len());
    }

    /// Drops all but the last `n` lines.
    fn keep_last(&mut self, n: usize) {
        while self.lengths.len() > n {
            let len = self.lengths.pop_front().unwrap_or(0);
            self.bytes.drain(..len);
        }
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.lengths.clear();
    }

    /// The lines' bytes, one after the other, and their lengths.
    fn lines(&mut self) -> (&[u8], &VecDeque<usize>) {
        (self.bytes.make_contiguous(), &self.lengths)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id;
    use crate::testing::Rng;

    const ULID: &str = "01kb2x1x0m4v6f9a1t8e3q7c5d";

    /// Reads in pieces of `step` bytes, to push IDs and lines across read boundaries.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn run(data: &[u8], step: usize) -> (Vec<(u64, String)>, Outcome) {
        let matcher = Matcher::new(&[id::parse(ULID).unwrap().id]);
        let options = SearchOptions {
            line_numbers: true,
            ..SearchOptions::default()
        };
        let mut found = Vec::new();
        let outcome = search(
            &matcher,
            options,
            &mut Trickle { data, step },
            &mut Scratch::default(),
            &mut |m| {
                found.push((m.line_no, String::from_utf8_lossy(m.line).into_owned()));
                true
            },
        );
        (found, outcome)
    }

    #[test]
    fn line_numbers_crlf_and_missing_final_newline() {
        let data = format!("a\r\nb {ULID}\r\nc\r\nd {}", ULID.to_uppercase());
        for step in [1, 2, 3, 7, 64, 1 << 20] {
            let (found, outcome) = run(data.as_bytes(), step);
            assert_eq!(
                found,
                vec![
                    (2, format!("b {ULID}")),
                    (4, format!("d {}", ULID.to_uppercase()))
                ],
                "step {step}"
            );
            assert_eq!(outcome.matched_lines, 2);
        }
    }

    #[test]
    fn a_line_longer_than_the_buffer_is_whole() {
        let long = "x".repeat(BUFFER_SIZE * 3);
        let data = format!("first\n{long} {ULID} {long}\nlast {ULID}\n");
        let (found, _) = run(data.as_bytes(), BUFFER_SIZE);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].0, 2);
        assert_eq!(found[0].1.len(), long.len() * 2 + ULID.len() + 2);
        assert_eq!(found[1].0, 3);
    }

    /// The chunks, as (first line number, bytes), and the matching lines' numbers.
    fn run_chunks(data: &[u8], step: usize) -> (Vec<(u64, Vec<u8>)>, Vec<u64>) {
        let matcher = Matcher::new(&[id::parse(ULID).unwrap().id]);
        let options = SearchOptions {
            line_numbers: true,
            ..SearchOptions::default()
        };
        let mut chunks = Vec::new();
        let mut lines = Vec::new();
        search_with_chunks(
            &matcher,
            options,
            &mut Trickle { data, step },
            &mut Scratch::default(),
            Some(&mut |c: &Chunk| chunks.push((c.first_line_no, c.bytes.to_vec()))),
            &mut |m| {
                lines.push(m.line_no);
                true
            },
        );
        (chunks, lines)
    }

    #[test]
    fn chunks_cover_every_line_once_with_its_number() {
        let data = format!("a\r\nb {ULID}\nc\n\nd {ULID}\ne");
        for step in [1, 2, 3, 7, 64, 1 << 20] {
            let (chunks, lines) = run_chunks(data.as_bytes(), step);
            assert_eq!(lines, vec![2, 5], "step {step}");
            let joined: Vec<u8> = chunks.iter().flat_map(|c| c.1.clone()).collect();
            assert_eq!(joined, data.as_bytes(), "step {step}");
            let mut line_no = 1;
            for (first, bytes) in &chunks {
                assert_eq!(*first, line_no, "step {step}");
                assert!(bytes.ends_with(b"\n") || bytes.ends_with(b"e"));
                line_no += bytecount::count(bytes, b'\n') as u64;
            }
        }
        let (chunks, lines) = run_chunks(format!("\0\n{ULID}\n").as_bytes(), 1 << 20);
        assert!(chunks.is_empty() && lines.is_empty(), "binary input");
    }

    #[test]
    fn before_holds_whole_earlier_lines_of_the_buffer() {
        let matcher = Matcher::new(&[id::parse(ULID).unwrap().id]);
        let options = SearchOptions {
            line_numbers: true,
            ..SearchOptions::default()
        };
        let data = format!("t1 one\r\nt2 two\nx {ULID}\n");
        let mut before = Vec::new();
        search(
            &matcher,
            options,
            &mut data.as_bytes(),
            &mut Scratch::default(),
            &mut |m| {
                before = m.before.to_vec();
                true
            },
        );
        assert_eq!(before, b"t1 one\r\nt2 two\n");
    }

    /// What `search` reports with `context`: (number, text, is context, after a gap).
    /// Lines are numbered with context also when no number is shown (`-N`).
    fn run_context(
        data: &[u8],
        step: usize,
        context: Context,
        line_numbers: bool,
    ) -> Vec<(u64, String, bool, bool)> {
        let matcher = Matcher::new(&[id::parse(ULID).unwrap().id]);
        let options = SearchOptions {
            line_numbers,
            context,
            ..SearchOptions::default()
        };
        let mut found = Vec::new();
        search(
            &matcher,
            options,
            &mut Trickle { data, step },
            &mut Scratch::default(),
            &mut |m| {
                let text = String::from_utf8_lossy(m.line).into_owned();
                found.push((m.line_no, text, m.context, m.after_gap));
                true
            },
        );
        found
    }

    /// The same from the whole input at once: every line within `before` lines before or
    /// `after` lines after a matching line, a gap wherever a line between two is left out.
    fn context_reference(data: &str, context: Context) -> Vec<(u64, String, bool, bool)> {
        let mut lines: Vec<&str> = data.split('\n').collect();
        if data.ends_with('\n') {
            lines.pop();
        }
        let is_match: Vec<bool> = lines.iter().map(|l| l.contains(ULID)).collect();
        let shown = |i: usize| {
            (i.saturating_sub(context.after)..=i + context.before)
                .any(|m| is_match.get(m) == Some(&true))
        };
        let mut expected = Vec::new();
        let mut last: Option<usize> = None;
        for (i, line) in lines.iter().enumerate() {
            if shown(i) {
                // Without context, no gap is marked: every line is a group of its own.
                let gap = context != Context::default() && last.is_some_and(|l| l + 1 != i);
                let text = line.strip_suffix('\r').unwrap_or(line).to_string();
                expected.push((i as u64 + 1, text, !is_match[i], gap));
                last = Some(i);
            }
        }
        expected
    }

    #[test]
    fn context_lines_agree_with_a_whole_input_reference_at_every_read_size() {
        // A small generator, so that the inputs are the same on every run.
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut next = |n: u64| rng.next() % n;
        for round in 0..60 {
            let mut data = String::new();
            for l in 0..next(40) {
                match next(6) {
                    0 => data.push_str(&format!("m{l} {ULID}")),
                    1 => data.push_str(&format!("w{l}\r")),
                    _ => data.push_str(&format!("x{l}")),
                }
                data.push('\n');
            }
            if next(2) == 0 {
                data.push_str(&format!("last {ULID}"));
            }
            let context = Context {
                before: next(4) as usize,
                after: next(4) as usize,
            };
            let expected = context_reference(&data, context);
            for step in [1, 2, 5, 13, 1 << 20] {
                for numbers in [true, false] {
                    let mut found = run_context(data.as_bytes(), step, context, numbers);
                    if !numbers && context == Context::default() {
                        // Not counted: no number is shown and no context placed.
                        let numbered = expected.iter().map(|e| e.0);
                        found.iter_mut().zip(numbered).for_each(|(f, n)| f.0 = n);
                    }
                    assert_eq!(
                        found, expected,
                        "round {round}, {context:?}, step {step}, numbers {numbers}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_nul_in_the_first_block_withholds_the_lines_from_there_on_at_every_read_size() {
        let data = format!(
            "a {ULID}\nb {ULID}\n{}\0 {ULID}\nc {ULID}\n",
            "x".repeat(5000)
        );
        for step in [1, 2, 7, 64, 4096, 1 << 20] {
            let (found, outcome) = run(data.as_bytes(), step);
            assert_eq!(outcome.matched_lines, 4, "step {step}");
            assert_eq!(
                found.len() as u64 + outcome.withheld_lines,
                4,
                "step {step}"
            );
            // Only lines before the NUL's, and only if they came in reads before it.
            let before: Vec<u64> = found.iter().map(|f| f.0).collect();
            assert!(before.iter().all(|&n| n <= 2), "step {step}: {before:?}");
            if step > data.find('\0').unwrap() {
                assert!(found.is_empty(), "step {step}");
            }
        }
    }

    #[test]
    fn binary_input_is_counted_not_reported() {
        let data = format!("\0bin\n{ULID}\nx {ULID}\n");
        let (found, outcome) = run(data.as_bytes(), 1 << 20);
        assert!(found.is_empty());
        assert_eq!(outcome.withheld_lines, 2);
        assert_eq!(outcome.matched_lines, 2);
    }
}
