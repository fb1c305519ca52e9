//! The searcher for a few known IDs (up to [`super::MAX_PAIR_QUERIES`]): a "packed pair"
//! prefilter on two rare bytes of each rendering's random tail, then a whole-token check of
//! each candidate. The vector loops live in `x86` (SSE2, AVX2) and `avx512`; this holds the
//! needles, the dispatch and the scalar loop.

#[cfg(target_arch = "x86_64")]
use super::simd::Level;
use super::simd::Simd;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod x86;

use super::{Hit, Numbering, is_whole};
use crate::id::trace::{self, FieldRole};
use crate::id::trace_value;
use crate::id::{self, Id, Shape, ULID_LEN, UUID_UNDASHED_LEN};

/// Which rendering a needle is the tail of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tail {
    /// The last 16 characters of the ULID rendering: exactly the 80 random bits.
    Ulid,
    /// The last 12 hex digits of the 128-bit hex rendering: the same in the dashed and
    /// undashed UUID forms, the X-Ray form, and the low 64 bits as 16 hex.
    Uuid,
    /// The last 12 hex digits of a 64-bit value (a span ID) as 16 hex.
    Span,
    /// The last (at most 12) digits of the low 64 bits as a decimal, in a trace field; or,
    /// for a 64-bit value, in a trace or span field.
    Decimal,
    /// A second copy of the needle before it: a query with one tail fills its pair with it,
    /// and its candidates are not checked twice.
    Repeat,
}

/// What the pair searcher looks for of one query: two tails of one value.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    pub value: u128,
    pub query: usize,
    pub tails: [Tail; 2],
    /// A 64-bit value (span ID): its decimal may stand in a span field too, and its `Span`
    /// tail, when `trace` is set too (a Datadog decimal, a span or a 64-bit trace), also
    /// stands for the 128-bit traces it is the low half of.
    pub wide64: bool,
    /// A value that may be a trace ID: its `Uuid` tail also stands for the X-Ray form and,
    /// in a trace field, the low 64 bits as 16 hex; for a value that fits in 64 bits (a
    /// 64-bit trace ID) also for the 128-bit traces it is the low half of. A ULID or UUID
    /// query leaves these out, as the index (which holds neither) must be able to prune for
    /// it.
    pub trace: bool,
}

pub(super) const ULID_TAIL_LEN: usize = 16;
pub(super) const UUID_TAIL_LEN: usize = 12;
pub(super) const DECIMAL_TAIL_LEN: usize = 12;

/// Shortest decimal a decimal needle is made for: the AVX-512 prefilter compares three bytes.
/// A low 64 bits below 100 is no random ID.
pub(super) const DECIMAL_MIN_LEN: usize = SHARED_PROBES;

#[derive(Clone, Debug)]
pub(super) struct Needle {
    /// Lowercase (folded) bytes of the tail.
    pub(super) bytes: Vec<u8>,
    pub(super) tail: Tail,
    id: Id,
    query: usize,
    wide64: bool,
    trace: bool,
    /// Offsets within `bytes` of the two bytes the SSE2 and AVX2 prefilter compares.
    pub(super) i1: usize,
    pub(super) i2: usize,
}

/// How many bytes of each tail the AVX-512 prefilter compares. Two are too few: with hex
/// tails the rarest bytes still come from `a-f`, common in logs, and every false candidate
/// costs a verification.
pub(super) const SHARED_PROBES: usize = 3;

/// With this many needles scanned (as one 32-hex query has, which may be a UUID or a trace
/// ID: its ULID, hex and decimal tails), the SSE2 and AVX2 loops compare all of them at one pair of
/// offsets: one pair of loads for three needles costs less than the better-placed pairs of
/// each (a 32-hex search, callgrind on 65 MB of the bench corpus with AVX2: 82.0M to 61.0M
/// instructions, more false candidates included). Other counts keep a pair per needle: for
/// them sharing is not measured, and the more tails, the fewer offsets are rare in all.
const SHARED_PAIR_NEEDLES: usize = 3;

#[derive(Clone, Debug)]
pub(super) struct PairSearcher {
    /// Two per query: the tail of its ULID rendering, then the tail of its UUID rendering.
    pub(super) needles: Vec<Needle>,
    /// The needles the SSE2, AVX2 and scalar loops look for, by index: all but the `Repeat`
    /// ones, which only fill the AVX-512 loop's pairs and whose candidates are their twins'.
    pub(super) scanned: Vec<usize>,
    /// With [`SHARED_PAIR_NEEDLES`] needles scanned, the one pair of offsets (`i1`, `i2`)
    /// every scanned needle is compared at.
    pub(super) shared_pair: Option<(usize, usize)>,
    /// Per query, the offsets at which the AVX-512 prefilter compares both of its tails.
    pub(super) shared: Vec<[usize; SHARED_PROBES]>,
    /// How far past a candidate start the vector loads reach: the largest `i2` or shared
    /// offset.
    pub(super) reach: usize,
}

/// Approximate frequency rank of a (lowercase) byte in log text: higher is more common.
/// Digits are everywhere in logs (timestamps, counters), vowels and `e t a o n s r` in
/// messages; the rare letters make the best prefilter bytes.
pub(super) fn frequency_rank(b: u8) -> u8 {
    FREQUENCY_RANKS[usize::from(b)]
}

/// [`frequency_rank`] of every byte, worked out once: the needles of a timeline's hop for
/// thousands of IDs ask for it tens of thousands of times.
static FREQUENCY_RANKS: [u8; 256] = {
    let mut ranks = [0; 256];
    let mut b = 0;
    while b < 256 {
        ranks[b] = rank_of(b as u8);
        b += 1;
    }
    ranks
};

/// The rank [`frequency_rank`] gives `b`.
const fn rank_of(b: u8) -> u8 {
    match b {
        // Dates and times are full of 0, 1 and 2.
        b'0'..=b'2' => 250,
        b'3'..=b'9' => 245,
        b'e' => 240,
        b't' | b'a' | b'o' | b'i' | b'n' | b's' | b'r' => 220,
        b'h' | b'l' | b'd' | b'c' | b'u' | b'm' => 180,
        b'f' | b'p' | b'g' | b'w' | b'y' | b'b' => 140,
        b'v' | b'k' => 100,
        b'x' | b'j' => 60,
        b'q' | b'z' => 40,
        _ => 200,
    }
}

/// Picks the two rarest positions of a needle for the pair prefilter, preferring different
/// bytes, in order; of equally rare positions the first. Two passes over the bytes, not a
/// sort of them: a timeline's hop makes needles for thousands of IDs, and the sort took about
/// two thirds of building its searcher (2 of 3.3 ms for 2,714 IDs).
pub(super) fn pick_pair(bytes: &[u8]) -> (usize, usize) {
    let rarity = |i: usize| (frequency_rank(bytes[i]), i);
    let first = (1..bytes.len()).fold(0, |best, i| if rarity(i) < rarity(best) { i } else { best });
    // The rarest position of another byte, and, for a tail of one repeated byte, the next
    // rarest position.
    let (mut other, mut next): (Option<usize>, Option<usize>) = (None, None);
    for i in (0..bytes.len()).filter(|&i| i != first) {
        if next.is_none_or(|j| rarity(i) < rarity(j)) {
            next = Some(i);
        }
        if bytes[i] != bytes[first] && other.is_none_or(|j| rarity(i) < rarity(j)) {
            other = Some(i);
        }
    }
    let second = other.or(next).unwrap_or(first);
    (first.min(second), first.max(second))
}

/// Picks the offsets at which a prefilter compares every one of `tails` (a query's two for
/// AVX-512, the three scanned needles for SSE2 and AVX2): the same offsets for all, so that
/// one set of loads serves every needle (the loads, not the compares, bound the AVX-512
/// loop). Of every choice within the shortest tail, the one whose chance matches, summed over
/// the tails, are least likely.
pub(super) fn pick_shared<const K: usize>(tails: &[&[u8]]) -> [usize; K] {
    // Hundreds of choices are scored per call, and a timeline's hop makes a searcher for each
    // of thousands of IDs: each byte's weight is looked up once, and a choice's products
    // are kept by prefix, so a choice that moves only its last offset costs one product per
    // tail.
    let weights: Vec<Vec<f64>> = tails
        .iter()
        .map(|tail| {
            tail.iter()
                .map(|&b| f64::from(frequency_rank(b)) / 256.0)
                .collect()
        })
        .collect();
    // `products[t][k]`: the weights of tail `t` at the offsets `at[..=k]`, multiplied in order.
    let mut products = vec![[1.0f64; K]; tails.len()];
    let score_from = |k: usize, at: &[usize; K], products: &mut [[f64; K]]| -> f64 {
        for (product, weight) in products.iter_mut().zip(&weights) {
            for j in k..K {
                let before = if j == 0 { 1.0 } else { product[j - 1] };
                product[j] = before * weight[at[j]];
            }
        }
        products.iter().map(|product| product[K - 1]).sum()
    };
    let len = tails.iter().map(|t| t.len()).min().unwrap_or(0);
    let mut best = std::array::from_fn(|k| k);
    let mut best_chance = score_from(0, &best, &mut products);
    let mut at = best;
    // Every increasing choice of offsets, in lexicographic order.
    loop {
        let Some(k) = (0..K).rev().find(|&k| at[k] < len - K + k) else {
            return best;
        };
        at[k] += 1;
        for j in k + 1..K {
            at[j] = at[j - 1] + 1;
        }
        let c = score_from(k, &at, &mut products);
        if c < best_chance {
            (best, best_chance) = (at, c);
        }
    }
}

/// Two needles per entry, in entry order: its tails' folded bytes, each with the pair of
/// offsets its own prefilter would compare.
pub(super) fn needles_of(entries: &[Entry]) -> Vec<Needle> {
    let mut needles = Vec::with_capacity(2 * entries.len());
    for entry in entries {
        let id = Id(entry.value);
        let ulid = id.ulid_bytes();
        let hex = id.hex_bytes();
        let decimal = trace::decimal_bytes(id.low64());
        let tail_bytes = |tail: Tail| -> Vec<u8> {
            match tail {
                Tail::Ulid => ulid[ULID_LEN - ULID_TAIL_LEN..].to_vec(),
                Tail::Uuid | Tail::Span => hex[UUID_UNDASHED_LEN - UUID_TAIL_LEN..].to_vec(),
                Tail::Decimal => decimal[decimal.len().saturating_sub(DECIMAL_TAIL_LEN)..].to_vec(),
                Tail::Repeat => Vec::new(),
            }
        };
        let first = tail_bytes(entry.tails[0]);
        let second = match entry.tails[1] {
            Tail::Repeat => first.clone(),
            tail => tail_bytes(tail),
        };
        for (tail, bytes) in [(entry.tails[0], first), (entry.tails[1], second)] {
            let (i1, i2) = pick_pair(&bytes);
            needles.push(Needle {
                bytes,
                tail,
                id,
                query: entry.query,
                wide64: entry.wide64,
                trace: entry.trace,
                i1,
                i2,
            });
        }
    }
    needles
}

impl PairSearcher {
    pub(super) fn new(entries: &[Entry]) -> PairSearcher {
        let mut needles = needles_of(entries);
        let shared: Vec<[usize; SHARED_PROBES]> = needles
            .chunks_exact(2)
            .map(|pair| pick_shared(&[&pair[0].bytes, &pair[1].bytes]))
            .collect();
        let scanned: Vec<usize> = (0..needles.len())
            .filter(|&n| needles[n].tail != Tail::Repeat)
            .collect();
        let shared_pair = (scanned.len() == SHARED_PAIR_NEEDLES).then(|| {
            let tails: Vec<&[u8]> = scanned.iter().map(|&n| &needles[n].bytes[..]).collect();
            let [i1, i2] = pick_shared::<2>(&tails);
            for &n in &scanned {
                (needles[n].i1, needles[n].i2) = (i1, i2);
            }
            (i1, i2)
        });
        let reach = needles
            .iter()
            .map(|n| n.i2)
            .chain(shared.iter().flatten().copied())
            .max()
            .unwrap_or(0);
        PairSearcher {
            needles,
            scanned,
            shared_pair,
            shared,
            reach,
        }
    }

    /// Finds each needle's hits in `hay`, needle by needle; with `numbering`, the AVX-512
    /// loop also counts newlines and their total is returned (`None` when nothing was
    /// counted).
    // Only the AVX-512 loop counts newlines; the other levels leave `numbering` alone.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(super) fn find(
        &self,
        simd: Simd,
        hay: &[u8],
        hits: &mut Vec<Hit>,
        numbering: Option<&mut Numbering>,
    ) -> Option<u64> {
        // SAFETY (the vector arms): a `Simd` at a level exists only when the CPU has that
        // level's features.
        #[cfg(target_arch = "x86_64")]
        match simd.level() {
            Level::Avx512 => return unsafe { avx512::find_pairs(self, hay, hits, numbering) },
            Level::Avx2 => unsafe { x86::find_pairs_avx2(self, hay, hits) },
            Level::Sse2 => unsafe { x86::find_pairs_sse2(self, hay, hits) },
            Level::Scalar => self.find_scalar(hay, 0, hits),
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.find_scalar(hay, 0, hits);
        None
    }

    /// Checks every candidate start from `from` on, one byte at a time. Used for the tail of
    /// the buffer that a vector load would overrun, and on targets without a vector path.
    pub(super) fn find_scalar(&self, hay: &[u8], from: usize, hits: &mut Vec<Hit>) {
        for &n in &self.scanned {
            let needle = &self.needles[n];
            let (b1, b2) = (needle.bytes[needle.i1], needle.bytes[needle.i2]);
            let last = match hay.len().checked_sub(needle.bytes.len()) {
                Some(last) => last,
                None => continue,
            };
            for p in from..=last {
                if hay[p + needle.i1] | 0x20 == b1 && hay[p + needle.i2] | 0x20 == b2 {
                    self.verify(n, hay, p, hits);
                }
            }
        }
    }

    /// A candidate: needle `n` may start at `p` ([`Needle::verify`]).
    #[inline(never)]
    pub(super) fn verify(&self, n: usize, hay: &[u8], p: usize, hits: &mut Vec<Hit>) {
        self.needles[n].verify(hay, p, hits);
    }
}

impl Needle {
    /// A candidate: this needle may start at `p`. Decodes the whole token around it.
    pub(super) fn verify(&self, hay: &[u8], p: usize, hits: &mut Vec<Hit>) {
        // Most candidates share only the two prefilter bytes with the needle; a folded
        // compare of the whole tail turns them away before any decoding.
        let Some(window) = hay.get(p..p + self.bytes.len()) else {
            return;
        };
        if window.iter().zip(&self.bytes).any(|(&h, &b)| h | 0x20 != b) {
            return;
        }
        match self.tail {
            Tail::Ulid => {
                if let Some(start) = p.checked_sub(ULID_LEN - ULID_TAIL_LEN) {
                    self.try_token(hay, start, Shape::Ulid, hits);
                }
            }
            Tail::Uuid => {
                let shapes: &[Shape] = if self.is_trace64() {
                    &[Shape::UuidUndashed, Shape::Xray]
                } else if self.trace {
                    &[Shape::UuidDashed, Shape::UuidUndashed, Shape::Xray]
                } else {
                    &[Shape::UuidDashed, Shape::UuidUndashed]
                };
                for &shape in shapes {
                    let before = shape.width() - UUID_TAIL_LEN;
                    if let Some(start) = p.checked_sub(before) {
                        self.try_token(hay, start, shape, hits);
                    }
                }
                // The low 64 bits, only where a field names a trace.
                if self.trace
                    && let Some(start) = p.checked_sub(trace::SPAN_HEX_LEN - UUID_TAIL_LEN)
                {
                    let end = start + trace::SPAN_HEX_LEN;
                    if is_whole(hay, start, end)
                        && trace::decode_hex64(&hay[start..end]) == Some(self.id.low64())
                        && trace::field_before(hay, start).is_some_and(FieldRole::holds_trace)
                    {
                        push(self, start, end, Shape::Hex16, hits);
                    }
                }
            }
            Tail::Span => {
                if let Some(start) = p.checked_sub(trace::SPAN_HEX_LEN - UUID_TAIL_LEN) {
                    let end = start + trace::SPAN_HEX_LEN;
                    if is_whole(hay, start, end)
                        && trace::decode_hex64(&hay[start..end]) == Some(self.id.low64())
                    {
                        push(self, start, end, Shape::Hex16, hits);
                    }
                }
                // A 64-bit value that may be a trace ID (a Datadog decimal): the 128-bit
                // traces it is the low half of, and its 32 hex as OpenTelemetry pads it.
                if self.trace {
                    for shape in [Shape::UuidUndashed, Shape::Xray] {
                        if let Some(start) = p.checked_sub(shape.width() - UUID_TAIL_LEN) {
                            self.try_token(hay, start, shape, hits);
                        }
                    }
                }
            }
            Tail::Decimal => self.try_decimal(hay, p, hits),
            Tail::Repeat => {}
        }
    }

    /// A decimal whose last digits are at `p`: the whole run of digits must be the value, and
    /// the field before it must name a trace (or, for a 64-bit value, a trace or a span).
    fn try_decimal(&self, hay: &[u8], p: usize, hits: &mut Vec<Hit>) {
        let end = p + self.bytes.len();
        let floor = end.saturating_sub(trace::DECIMAL_MAX_LEN + 1);
        let mut start = p;
        while start > floor && hay[start - 1].is_ascii_digit() {
            start -= 1;
        }
        if !is_whole(hay, start, end)
            || trace::decode_decimal(&hay[start..end]) != Some(self.id.low64())
        {
            return;
        }
        let field = trace::field_before(hay, start);
        if field.is_some_and(|role| self.wide64 || role.holds_trace()) {
            push(self, start, end, Shape::Decimal, hits);
        }
    }

    #[inline]
    fn try_token(&self, hay: &[u8], start: usize, shape: Shape, hits: &mut Vec<Hit>) {
        let end = start + shape.width();
        if end > hay.len() || !is_whole(hay, start, end) {
            return;
        }
        let Some(found) = id::decode_shape(shape, &hay[start..end]) else {
            return;
        };
        let matches = if self.is_trace64() {
            self.is_low_half_of(found, hay, start, end, shape)
        } else {
            found == self.id
        };
        if matches {
            push(self, start, end, shape, hits);
        }
    }

    /// Whether this needle's value is a 64-bit trace ID (see [`Parsed::is_trace64`]): it is
    /// found in trace spellings only, not in the UUID and ULID renderings of its padded value.
    ///
    /// [`Parsed::is_trace64`]: crate::id::Parsed::is_trace64
    fn is_trace64(&self) -> bool {
        self.trace && self.id.0 >> 64 == 0
    }

    /// Whether `found`, the token `hay[start..end]` written as `shape`, is a 128-bit trace
    /// that this needle's 64-bit trace is the low half of (its padded value among them): an
    /// X-Ray ID, or 32 hex written as a trace.
    fn is_low_half_of(
        &self,
        found: Id,
        hay: &[u8],
        start: usize,
        end: usize,
        shape: Shape,
    ) -> bool {
        found.low64() == self.id.low64()
            && match shape {
                Shape::Xray => true,
                Shape::UuidUndashed => trace_value::hex32_is_trace(hay, start, end),
                _ => false,
            }
    }
}

fn push(needle: &Needle, start: usize, end: usize, shape: Shape, hits: &mut Vec<Hit>) {
    hits.push(Hit {
        start,
        end,
        shape,
        id: needle.id,
        query: needle.query,
    });
}
