//! The hot path: finds ID tokens in a byte buffer of complete lines. No lines, no output.
//!
//! Two searchers:
//! - [`Matcher`] finds the known IDs of a query in every written form. For a few IDs it runs a
//!   SIMD "packed pair" prefilter over case-folded bytes (rare bytes of the random tail of
//!   each rendering: with AVX-512, three offsets shared by a query's two tails, so one set of
//!   loads serves both; with SSE2 and AVX2, two offsets per tail, or two shared by the three
//!   tails of a 32-hex query), and verifies each candidate by decoding the whole token; the vector
//!   loops also count newlines for line numbers ([`Numbering`]). For up to thousands of IDs
//!   (a timeline's related IDs) it samples one
//!   8-byte window every 16 bytes against a Bloom filter of the renderings' tails
//!   (`SampledSearcher`); beyond that it walks every token and looks it up in a hash set.
//!   Beyond a few queries of which some may be trace or span IDs (whose 16-hex and decimal
//!   spellings no token walk sees), it walks the alphanumeric runs of 12 to 32 bytes and
//!   looks their ends up among the needles' tails (`TailSearcher`).
//! - [`for_each_token`] finds every ID-shaped token, for `-f` with many IDs and the
//!   inventory views. Vector compares turn each 64-byte block into bit masks, and bit
//!   arithmetic on them leaves only the alphanumeric runs of an ID's lengths to decode.
//!
//! A token is whole when the bytes before and after it are not ASCII letters or digits, and
//! the start and end of the buffer count as boundaries (callers hand over whole lines).
//!
//! The vector loops use the widest instruction set the CPU has: AVX-512 (F, DQ, BW and
//! POPCNT), AVX2 (with SSE4.1), or SSE2. The environment variable `IDGREP_SIMD` (`scalar`,
//! `sse2`, `avx2` or `avx512`), read once per process, caps that level, so every path can be
//! run and timed on one machine; a level the CPU lacks falls to the widest one below it, and
//! other values are ignored. The same level applies to `record::keys`. The unit tests run
//! every level the CPU has, whatever `IDGREP_SIMD` says, and fail when a level named in
//! `IDGREP_REQUIRE_SIMD` (comma-separated, e.g. `avx2,sse2,scalar`) cannot run.
//!
//! The parts: `pairs` (the packed-pair searcher), `sampled` (the sampled searcher), `tails`
//! (the searcher for many queries with traces among them), `tokens` (the token walk and the
//! walk of long runs), `numbering` (line numbers from the vector loops), `newlines` (a
//! buffer's newlines as a bitmap, for the lines of dense hits), `simd` (the dispatch
//! level) and `x86` (the byte operations of the SSE2 and AVX2 vector widths); each
//! searcher keeps its vector kernels in child modules of its own.

mod newlines;
mod numbering;
mod pairs;
mod sampled;
pub(crate) mod simd;
mod tails;
mod tokens;
#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod token_tests;

use std::collections::HashMap;

use crate::id::{self, Id, Kind, Parsed, Shape, trace};

pub use newlines::Newlines;
pub use numbering::Numbering;
pub use simd::Level;
pub use tokens::{for_each_token, for_each_token_scalar};

use numbering::count_newlines;
use pairs::{DECIMAL_MIN_LEN, Entry, PairSearcher, Tail};
use sampled::SampledSearcher;
use simd::Simd;
use tails::TailSearcher;
use tokens::{for_each_token_and_xray_root, for_each_token_at};

/// One occurrence of an ID in a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    pub start: usize,
    pub end: usize,
    pub shape: Shape,
    pub id: Id,
    /// Index of the query ID this is a form of (for [`Matcher`]); 0 for [`for_each_token`].
    pub query: usize,
}

/// Above this many query IDs the pair prefilter gives too many candidates to pay off, and the
/// token walk with a hash lookup takes over.
const MAX_PAIR_QUERIES: usize = 4;

/// Above this many query IDs the sampled filter no longer fits in a core's L2 cache with few
/// false candidates, and the token walk is faster.
const MAX_SAMPLED_QUERIES: usize = 16_384;

/// Finds every form of a set of known IDs.
#[derive(Clone, Debug)]
pub struct Matcher {
    strategy: Strategy,
    /// The dispatch level [`Matcher::at_level`] fixed; else [`Simd::current`].
    simd: Option<Simd>,
}

#[derive(Clone, Debug)]
enum Strategy {
    Pairs(PairSearcher),
    /// Trace and span queries beyond one pair searcher's capacity.
    Tails(TailSearcher),
    Sampled(SampledSearcher),
    Tokens(HashMap<u128, usize, foldhash::fast::RandomState>),
    /// No query: every ID token is a hit (the inventory views).
    Every,
}

impl Matcher {
    /// `ids` are the query IDs; a hit reports the index of the first equal one. With none,
    /// nothing is found.
    pub fn new(ids: &[Id]) -> Matcher {
        let mut first_index: HashMap<u128, usize, foldhash::fast::RandomState> = HashMap::default();
        for (i, id) in ids.iter().enumerate() {
            first_index.entry(id.0).or_insert(i);
        }
        let strategy = if first_index.is_empty() {
            // No query finds nothing; the pair loops expect at least one needle pair.
            Strategy::Tokens(first_index)
        } else if first_index.len() <= MAX_PAIR_QUERIES {
            let mut distinct: Vec<(u128, usize)> = first_index.into_iter().collect();
            distinct.sort_by_key(|&(_, i)| i);
            let entries: Vec<Entry> = distinct
                .into_iter()
                .map(|(value, query)| Entry {
                    value,
                    query,
                    tails: [Tail::Ulid, Tail::Uuid],
                    wide64: false,
                    trace: false,
                })
                .collect();
            Strategy::Pairs(PairSearcher::new(&entries))
        } else if first_index.len() <= MAX_SAMPLED_QUERIES {
            Strategy::Sampled(SampledSearcher::new(first_index))
        } else {
            Strategy::Tokens(first_index)
        };
        Matcher {
            strategy,
            simd: None,
        }
    }

    /// Finds the query IDs as the user wrote them: a ULID or UUID in every form, as
    /// [`Matcher::new`]; a value that may be a trace ID also in its trace spellings (X-Ray,
    /// the low 64 bits as 16 hex or a decimal in a trace field); a span ID as 16 hex and as a
    /// decimal in a trace or span field.
    pub fn for_queries(queries: &[Parsed]) -> Matcher {
        if !queries
            .iter()
            .any(|q| q.kind == Kind::Span || q.may_be_trace())
        {
            let ids: Vec<Id> = queries.iter().map(|q| q.id).collect();
            return Matcher::new(&ids);
        }
        let mut entries: Vec<Entry> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (query, q) in queries.iter().enumerate() {
            if !seen.insert((q.id, q.kind.is_64_bit(), q.may_be_trace())) {
                continue;
            }
            let value = q.id.0;
            let decimal_fits = trace::decimal_bytes(q.id.low64()).len() >= DECIMAL_MIN_LEN;
            let decimal = if decimal_fits {
                Tail::Decimal
            } else {
                Tail::Repeat
            };
            let trace = q.kind == Kind::Trace || q.may_be_trace();
            let mut push = |tails, wide64| {
                entries.push(Entry {
                    value,
                    query,
                    tails,
                    wide64,
                    trace,
                })
            };
            if q.kind.is_64_bit() {
                push([Tail::Span, decimal], true);
            } else if q.kind == Kind::Trace || q.is_trace64() {
                push([Tail::Uuid, decimal], false);
            } else {
                push([Tail::Ulid, Tail::Uuid], false);
                if q.may_be_trace() && decimal_fits {
                    push([Tail::Decimal, Tail::Repeat], false);
                }
            }
        }
        let strategy = if entries.len() <= MAX_PAIR_QUERIES {
            Strategy::Pairs(PairSearcher::new(&entries))
        } else {
            Strategy::Tails(TailSearcher::new(&entries))
        };
        Matcher {
            strategy,
            simd: None,
        }
    }

    /// A matcher that reports every ID token, whatever its value, with query index 0.
    pub fn every_id() -> Matcher {
        Matcher {
            strategy: Strategy::Every,
            simd: None,
        }
    }

    /// This matcher with its vector loops at `level` whatever `IDGREP_SIMD` says, or `None`
    /// when the CPU lacks that level's features: how the fuzz targets and the corpus replay
    /// hold every level to the same answers in one process.
    pub fn at_level(self, level: Level) -> Option<Matcher> {
        let simd = Simd::supported(level)?;
        Some(Matcher {
            simd: Some(simd),
            ..self
        })
    }

    #[inline]
    fn simd(&self) -> Simd {
        self.simd.unwrap_or_else(Simd::current)
    }

    /// [`Matcher::find`], also counting the newlines before each hit and in all of `hay`.
    pub fn find_numbered(&self, hay: &[u8], hits: &mut Vec<Hit>, numbering: &mut Numbering) {
        self.find_numbered_with(self.simd(), hay, hits, numbering);
    }

    /// Fills `hits` with every hit in `hay`, in order of position.
    pub fn find(&self, hay: &[u8], hits: &mut Vec<Hit>) {
        self.search(self.simd(), hay, hits, None);
    }

    /// [`Matcher::find`] for a matcher of every ID, also filling `roots` with where the X-Ray
    /// IDs of `X-Amzn-Trace-Id` values start (right after `Root=`), in order; false, with
    /// `roots` left alone, for other matchers.
    pub fn find_with_xray_roots(
        &self,
        hay: &[u8],
        hits: &mut Vec<Hit>,
        roots: &mut Vec<usize>,
    ) -> bool {
        if !matches!(self.strategy, Strategy::Every) {
            self.find(hay, hits);
            return false;
        }
        hits.clear();
        for_each_token_and_xray_root(self.simd(), hay, &mut every_id(hay, hits), roots);
        true
    }

    /// [`Matcher::find_numbered`] at the dispatch level `simd`.
    fn find_numbered_with(
        &self,
        simd: Simd,
        hay: &[u8],
        hits: &mut Vec<Hit>,
        numbering: &mut Numbering,
    ) {
        numbering.checkpoints.clear();
        let counted = self.search(simd, hay, hits, Some(&mut *numbering));
        let (pos, before) = numbering.number(hay, hits);
        numbering.total = counted.unwrap_or_else(|| before + count_newlines(&hay[pos..]));
    }

    /// Both of the above: with `numbering`, a vector loop that counts newlines as it goes
    /// returns their total and leaves checkpoints; `None` when nothing was counted.
    fn search(
        &self,
        simd: Simd,
        hay: &[u8],
        hits: &mut Vec<Hit>,
        numbering: Option<&mut Numbering>,
    ) -> Option<u64> {
        hits.clear();
        match &self.strategy {
            Strategy::Pairs(p) => {
                let counted = p.find(simd, hay, hits, numbering);
                // Each needle's hits come in order, the two tails' interleaved. A value asked
                // for twice (as a UUID and as a trace ID) is found twice: the first query
                // keeps it.
                hits.sort_unstable_by_key(|h| (h.start, h.end, h.query));
                hits.dedup_by_key(|h| (h.start, h.end));
                counted
            }
            Strategy::Tails(tails) => {
                tails.find(simd, hay, hits);
                // Of the queries that find the same token, the first.
                hits.sort_unstable_by_key(|h| (h.start, h.end, h.query));
                hits.dedup_by_key(|h| (h.start, h.end));
                None
            }
            Strategy::Sampled(sampled) => sampled.find(simd, hay, hits, numbering),
            Strategy::Tokens(map) => {
                for_each_token_at(simd, hay, &mut |mut hit: Hit| {
                    if let Some(&q) = map.get(&hit.id.0) {
                        hit.query = q;
                        hits.push(hit);
                    }
                });
                None
            }
            Strategy::Every => {
                for_each_token_at(simd, hay, &mut every_id(hay, hits));
                None
            }
        }
    }
}

/// What [`Strategy::Every`] keeps of the token walk's hits in `hay`: every one but the
/// 32-digit numbers.
fn every_id<'a>(hay: &'a [u8], hits: &'a mut Vec<Hit>) -> impl FnMut(Hit) + 'a {
    move |hit| {
        if !id::is_number(hit.shape, &hay[hit.start..hit.end]) {
            hits.push(hit);
        }
    }
}

/// A value [`for_each_trace_token`] finds: 128 bits (an X-Ray ID), or 64 (16 hex digits, or
/// a decimal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceToken {
    Wide(Id),
    Narrow(u64),
}

/// Calls `f` with the value of every token of `hay` that a trace or span query may find
/// beyond [`for_each_token`]'s: each X-Ray ID, and each whole run of 16 hex digits or of 12
/// to 20 decimal digits, wherever it stands (a query finds some of these only in a trace or
/// span field; this reports more, never fewer). What the index files besides the tokens.
pub fn for_each_trace_token(hay: &[u8], mut f: impl FnMut(TraceToken)) {
    tokens::for_each_long_run(Simd::current(), hay, &mut |start, end| {
        let run = &hay[start..end];
        if run.len() == trace::SPAN_HEX_LEN
            && let Some(value) = trace::decode_hex64(run)
        {
            f(TraceToken::Narrow(value));
        }
        if run.len() <= trace::DECIMAL_MAX_LEN
            && let Some(value) = trace::decode_decimal(run)
        {
            f(TraceToken::Narrow(value));
        }
        // An X-Ray ID's last part (24 hex digits), after `1-`, 8 hex digits and `-`.
        let before = trace::XRAY_LEN - 24;
        if run.len() == 24
            && start >= before
            && let Some(id) = id::decode_shape(Shape::Xray, &hay[start - before..end])
        {
            f(TraceToken::Wide(id));
        }
    });
}

/// Whether [`for_each_trace_token`] reports every decimal spelling a trace or span query of
/// low 64 bits `value` can find: not when its decimal is shorter than the runs it walks (and
/// long enough to be looked for).
pub fn trace_tokens_cover(value: u64) -> bool {
    let digits = trace::decimal_bytes(value).len();
    !(DECIMAL_MIN_LEN..tokens::RUN_MIN).contains(&digits)
}

/// True when `hay[start..end]` has a boundary on both sides.
#[inline]
fn is_whole(hay: &[u8], start: usize, end: usize) -> bool {
    (start == 0 || !crate::id::is_token_byte(hay[start - 1]))
        && (end == hay.len() || !crate::id::is_token_byte(hay[end]))
}
