//! Line assembly for one followed file. Bytes arrive in whatever pieces the writer made;
//! whole lines are handed on at once, and the partial line after the last newline waits for
//! its newline. After [`QUIET`] without growth it is handed on as it is, and when it was
//! printed then, the whole line is not handed on again when its newline comes.

use std::time::{Duration, Instant};

use memchr::memchr;

/// How long a partial line waits for its newline before it is handed on as it is.
pub const QUIET: Duration = Duration::from_secs(1);

/// Lines handed on: whole lines ending in `\n`, or one partial line without it.
pub struct Piece<'a> {
    pub bytes: &'a [u8],
    /// Number of the first line in `bytes`.
    pub first_line_no: u64,
}

/// Where one file's lines stand.
#[derive(Clone, Debug)]
pub struct Lines {
    /// Number of the line that starts after the last newline read.
    next_line_no: u64,
    /// The partial line after the last newline.
    pending: Vec<u8>,
    /// Bytes of `pending` already handed on after a quiet spell.
    offered: usize,
    /// The partial line was printed when it was handed on: its completion is not.
    printed: bool,
    /// When `pending` last grew.
    grew_at: Option<Instant>,
}

impl Default for Lines {
    fn default() -> Lines {
        Lines {
            next_line_no: 1,
            pending: Vec::new(),
            offered: 0,
            printed: false,
            grew_at: None,
        }
    }
}

impl Lines {
    /// Takes bytes as read; `emit` gets the whole lines among them and returns whether it
    /// printed anything.
    pub fn feed(&mut self, data: &[u8], now: Instant, emit: &mut dyn FnMut(&Piece) -> bool) {
        let Some(first_newline) = memchr(b'\n', data) else {
            if !data.is_empty() {
                self.pending.extend_from_slice(data);
                self.grew_at = Some(now);
            }
            return;
        };
        let last_newline = memchr::memrchr(b'\n', data).unwrap_or(first_newline);
        let mut rest_start = 0;
        if !self.pending.is_empty() {
            // The line the partial one was: handed on whole, unless its first part was
            // printed already.
            if !self.printed {
                self.pending.extend_from_slice(&data[..=first_newline]);
                emit(&Piece {
                    bytes: &self.pending,
                    first_line_no: self.next_line_no,
                });
            }
            self.next_line_no += 1;
            rest_start = first_newline + 1;
            self.clear_pending();
        }
        let whole = &data[rest_start..=last_newline];
        if !whole.is_empty() {
            emit(&Piece {
                bytes: whole,
                first_line_no: self.next_line_no,
            });
            self.next_line_no += bytecount::count(whole, b'\n') as u64;
        }
        let tail = &data[last_newline + 1..];
        if !tail.is_empty() {
            self.pending.extend_from_slice(tail);
            self.grew_at = Some(now);
        }
    }

    /// When the partial line is due to be handed on as it is, if it waits.
    pub fn quiet_due(&self) -> Option<Instant> {
        let waiting = self.pending.len() > self.offered && !self.printed;
        waiting.then_some(self.grew_at?).map(|at| at + QUIET)
    }

    /// Hands on the partial line if it is due at `now` (always when `now` is `None`: the
    /// follow ends).
    pub fn flush_quiet(&mut self, now: Option<Instant>, emit: &mut dyn FnMut(&Piece) -> bool) {
        let Some(due) = self.quiet_due() else {
            return;
        };
        if now.is_some_and(|now| now < due) {
            return;
        }
        self.printed = emit(&Piece {
            bytes: &self.pending,
            first_line_no: self.next_line_no,
        });
        self.offered = self.pending.len();
    }

    /// Counts the partial line, if there is one, as printed: its bytes were shown from
    /// another file.
    pub fn mark_shown(&mut self) {
        if !self.pending.is_empty() {
            self.offered = self.pending.len();
            self.printed = true;
        }
    }

    fn clear_pending(&mut self) {
        self.pending.clear();
        self.offered = 0;
        self.printed = false;
        self.grew_at = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `emit` saw: (first line number, bytes, partial), printing what contains `X`.
    fn run(steps: &[(&[u8], bool)]) -> Vec<(u64, String, bool)> {
        let mut lines = Lines::default();
        let mut seen = Vec::new();
        let mut emit = |p: &Piece| {
            let text = String::from_utf8_lossy(p.bytes).into_owned();
            let printed = text.contains('X');
            let partial = !text.ends_with('\n');
            seen.push((p.first_line_no, text, partial));
            printed
        };
        let start = Instant::now();
        for (i, (data, quiet_after)) in steps.iter().enumerate() {
            let now = start + Duration::from_millis(10 * i as u64);
            lines.feed(data, now, &mut emit);
            if *quiet_after {
                lines.flush_quiet(Some(now + QUIET), &mut emit);
            }
        }
        seen
    }

    #[test]
    fn whole_lines_go_on_at_once_and_a_split_line_when_its_newline_comes() {
        let seen = run(&[(b"a\nb\npar", false), (b"tial\nc", false), (b"\n", false)]);
        assert_eq!(
            seen,
            [
                (1, "a\nb\n".to_string(), false),
                (3, "partial\n".to_string(), false),
                (4, "c\n".to_string(), false),
            ]
        );
    }

    #[test]
    fn a_partial_line_printed_after_quiet_is_not_printed_again() {
        let seen = run(&[(b"one X", true), (b" two\nnext X\n", false)]);
        assert_eq!(
            seen,
            [
                (1, "one X".to_string(), true),
                (2, "next X\n".to_string(), false),
            ]
        );
    }

    #[test]
    fn a_partial_line_not_printed_after_quiet_is_searched_whole_later() {
        let seen = run(&[(b"one ", true), (b"X\n", false)]);
        assert_eq!(
            seen,
            [
                (1, "one ".to_string(), true),
                (1, "one X\n".to_string(), false),
            ]
        );
    }

    #[test]
    fn a_partial_line_is_offered_once_per_growth() {
        let mut lines = Lines::default();
        let start = Instant::now();
        let mut offered = 0;
        lines.feed(b"abc", start, &mut |_| unreachable!());
        assert_eq!(lines.quiet_due(), Some(start + QUIET));
        lines.flush_quiet(Some(start), &mut |_| unreachable!());
        for _ in 0..2 {
            lines.flush_quiet(Some(start + QUIET), &mut |_| {
                offered += 1;
                false
            });
        }
        assert_eq!(offered, 1);
        assert_eq!(lines.quiet_due(), None);
    }
}
