//! Where findings are and how they are shown: walk-order locations (`Loc`, `At`), examples
//! with their text kept inline, and the earliest three of them (`Top3`), so the examples
//! chosen are the same whatever the number of threads.

use super::rules::Skewed;

/// Bits of [`Loc`] for the line number; the input index has the rest.
const LINE_BITS: u32 = 40;

/// A line in walk order: the input's index in the top 24 bits, the line number in the low 40.
/// Both saturate, which could only blur the choice of examples past 16 million inputs or a
/// trillion lines in one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Loc(u64);

impl Loc {
    /// Later than every line.
    pub(super) const NONE: Loc = Loc(u64::MAX);

    pub(super) fn new(file: u32, line: u64) -> Loc {
        let file = u64::from(file).min((1 << (64 - LINE_BITS)) - 1);
        Loc(file << LINE_BITS | line.min((1 << LINE_BITS) - 1))
    }

    pub(super) fn file(self) -> usize {
        (self.0 >> LINE_BITS) as usize
    }

    pub(super) fn line(self) -> u64 {
        self.0 & ((1 << LINE_BITS) - 1)
    }
}

/// The column of a value read by [`crate::record::for_each_pair`]: after every token of its line,
/// in the order of the pairs.
pub(super) const PAIR_COL: u32 = 1 << 31;

/// Where an occurrence is: its line, then its byte offset in the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct At {
    pub(super) loc: Loc,
    pub(super) col: u32,
}

/// Longest example text kept: `urn:uuid:` and a dashed UUID are 45 bytes, a `traceparent` 55.
const TOKEN_MAX: usize = 55;

/// An example's text, inline so that examples cost no allocation: an ID token as written
/// (with its braces or `urn:uuid:`), or a value (`1180`, `""`).
#[derive(Clone, Copy, Debug)]
pub(super) struct ExampleText {
    len: u8,
    bytes: [u8; TOKEN_MAX],
}

impl ExampleText {
    fn new(text: &[u8]) -> ExampleText {
        let len = text.len().min(TOKEN_MAX);
        let mut bytes = [0; TOKEN_MAX];
        bytes[..len].copy_from_slice(&text[..len]);
        ExampleText {
            len: len as u8,
            bytes,
        }
    }

    pub(super) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Example {
    pub(super) at: At,
    pub(super) token: ExampleText,
    /// For id-time-skew.
    pub(super) skew: Option<Skewed>,
}

impl Example {
    pub(super) fn new(at: At, token: &[u8]) -> Example {
        Example {
            at,
            token: ExampleText::new(token),
            skew: None,
        }
    }
}

/// Keeps `slot` the earliest example; `make` runs only when the new one is earlier.
pub(super) fn offer(slot: &mut Option<Example>, at: At, make: impl FnOnce() -> Example) {
    if slot.is_none_or(|e| at < e.at) {
        *slot = Some(make());
    }
}

/// How many examples a rule shows, overall and per field.
pub(super) const EXAMPLES: usize = 3;

/// The earliest three examples, in order. A thread reads its inputs in walk order, so once
/// three are kept, later candidates fail the first comparison.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Top3 {
    items: [Option<Example>; EXAMPLES],
}

impl Top3 {
    pub(super) fn offer(&mut self, at: At, make: impl FnOnce() -> Example) {
        if self.items[EXAMPLES - 1].is_some_and(|last| last.at <= at) {
            return;
        }
        let mut new = make();
        for slot in &mut self.items {
            match slot {
                Some(kept) if kept.at <= new.at => {}
                Some(kept) => std::mem::swap(kept, &mut new),
                None => {
                    *slot = Some(new);
                    return;
                }
            }
        }
    }

    pub(super) fn merge(&mut self, other: &Top3) {
        for e in other.items.iter().flatten() {
            self.offer(e.at, || *e);
        }
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &Example> {
        self.items.iter().flatten()
    }
}
