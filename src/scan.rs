//! The hot path: finds ID tokens in a byte buffer of complete lines. No lines, no output.
//!
//! Two searchers:
//! - [`Matcher`] finds the known IDs of a query in every written form. For a few IDs it runs a
//!   SIMD "packed pair" prefilter over case-folded bytes (rare bytes of the random tail of
//!   each rendering: with AVX-512, three offsets shared by a query's two tails, so one set of
//!   loads serves both), and verifies each candidate by decoding the whole token; the vector
//!   loops also count newlines for line numbers ([`Numbering`]). For up to thousands of IDs
//!   (a timeline's related IDs) it samples one
//!   8-byte window every 16 bytes against a Bloom filter of the renderings' tails
//!   (`SampledSearcher`); beyond that it walks every token and looks it up in a hash set.
//! - [`for_each_token`] finds every ID-shaped token, for `-f` with many IDs and the
//!   inventory views. Vector compares turn each 64-byte block into bit masks, and bit
//!   arithmetic on them leaves only the alphanumeric runs of an ID's lengths to decode.
//!
//! A token is whole when the bytes before and after it are not ASCII letters or digits, and
//! the start and end of the buffer count as boundaries (callers hand over whole lines).

use std::collections::HashMap;

use crate::id::{self, Id, Shape, ULID_LEN, UUID_UNDASHED_LEN};

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

/// Line numbers for [`Matcher::find_numbered`]: the newlines before each hit and in the whole
/// buffer. The vector loops count newlines in the bytes they load anyway, so line numbers
/// need no second pass over the buffer (that pass ran at the L2 bandwidth, 15-20 ms per GiB).
#[derive(Debug, Default)]
pub struct Numbering {
    /// `before[i]`: the newlines before `hits[i].start`.
    pub before: Vec<u64>,
    /// The newlines in the whole buffer.
    pub total: u64,
    /// (position, newlines before it), ascending: how far a vector loop had counted when it
    /// met candidates. Hits are numbered from the nearest one before them.
    checkpoints: Vec<(usize, u64)>,
}

impl Numbering {
    /// Records that `cum` newlines precede `counted_to`, as a checkpoint a little before
    /// `block`: a hit found in the block starts at most 28 bytes before it (a dashed UUID
    /// around a window or tail at the block's first byte).
    fn checkpoint(&mut self, hay: &[u8], block: usize, counted_to: usize, cum: u64) {
        let at = block.saturating_sub(32);
        let before = cum - count_newlines(&hay[at..counted_to]);
        self.checkpoints.push((at, before));
    }

    /// Fills `before` for `hits` (in order of position) from the checkpoints, counting only
    /// the bytes between a checkpoint or the previous hit and each hit; returns the newlines
    /// counted up to where the last hit starts, and that position.
    fn number(&mut self, hay: &[u8], hits: &[Hit]) -> (usize, u64) {
        self.before.clear();
        let (mut pos, mut before) = (0, 0);
        let mut next = 0;
        for hit in hits {
            while let Some(&(at, count)) = self.checkpoints.get(next) {
                if at > hit.start {
                    break;
                }
                if at > pos {
                    (pos, before) = (at, count);
                }
                next += 1;
            }
            before += count_newlines(&hay[pos..hit.start]);
            pos = hit.start;
            self.before.push(before);
        }
        (pos, before)
    }
}

/// The newlines in `bytes`.
fn count_newlines(bytes: &[u8]) -> u64 {
    bytecount::count(bytes, b'\n') as u64
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
}

#[derive(Clone, Debug)]
enum Strategy {
    Pairs(PairSearcher),
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
            Strategy::Pairs(PairSearcher::new(&distinct))
        } else if first_index.len() <= MAX_SAMPLED_QUERIES {
            Strategy::Sampled(SampledSearcher::new(first_index))
        } else {
            Strategy::Tokens(first_index)
        };
        Matcher { strategy }
    }

    /// A matcher that reports every ID token, whatever its value, with query index 0.
    pub fn every_id() -> Matcher {
        Matcher {
            strategy: Strategy::Every,
        }
    }

    /// [`Matcher::find`], also counting the newlines before each hit and in all of `hay`.
    pub fn find_numbered(&self, hay: &[u8], hits: &mut Vec<Hit>, numbering: &mut Numbering) {
        numbering.checkpoints.clear();
        let counted = self.search(hay, hits, Some(&mut *numbering));
        let (pos, before) = numbering.number(hay, hits);
        numbering.total = counted.unwrap_or_else(|| before + count_newlines(&hay[pos..]));
    }

    /// Fills `hits` with every hit in `hay`, in order of position.
    pub fn find(&self, hay: &[u8], hits: &mut Vec<Hit>) {
        self.search(hay, hits, None);
    }

    /// Both of the above: with `numbering`, a vector loop that counts newlines as it goes
    /// returns their total and leaves checkpoints; `None` when nothing was counted.
    fn search(
        &self,
        hay: &[u8],
        hits: &mut Vec<Hit>,
        numbering: Option<&mut Numbering>,
    ) -> Option<u64> {
        hits.clear();
        match &self.strategy {
            Strategy::Pairs(p) => {
                let counted = p.find(hay, hits, numbering);
                // Each needle's hits come in order, the two tails' interleaved.
                hits.sort_unstable_by_key(|h| h.start);
                counted
            }
            Strategy::Sampled(sampled) => sampled.find(hay, hits, numbering),
            Strategy::Tokens(map) => {
                for_each_token(hay, |mut hit| {
                    if let Some(&q) = map.get(&hit.id.0) {
                        hit.query = q;
                        hits.push(hit);
                    }
                });
                None
            }
            Strategy::Every => {
                for_each_token(hay, |hit| hits.push(hit));
                None
            }
        }
    }
}

/// Finds many known IDs by sampling: one 8-byte window at every multiple of 16 in the buffer,
/// case-folded (`| 0x20` lowercases letters and leaves digits and `-` alone), is looked up in a
/// blocked Bloom filter (two bits in one 64-bit word, so one memory access per window) that
/// holds every 8-byte window of the tail of each ID's three renderings at offsets 0 to 15.
/// The tails are the last 23 characters of each rendering (of the ULID, the undashed and the
/// dashed UUID): they leave out the first characters, the hour or day that many IDs share,
/// and a window that reaches into the millisecond digits still ends in random ones. Every
/// occurrence has exactly one sampled position in the first 16 offsets of its tail, and a
/// window there is whole inside the token, so nothing is missed; a window that passes the
/// filter and the exact window set is verified by the token walk over the token around it.
/// Sampling every 16 bytes rather than every 8 halves the lookups, which are the cost.
#[derive(Clone, Debug)]
struct SampledSearcher {
    words: Vec<u64>,
    /// 64 minus log2 of the number of words: the shift that turns a hash into a word index.
    shift: u32,
    windows: std::collections::HashSet<u64, foldhash::fast::FixedState>,
    ids: HashMap<u128, usize, foldhash::fast::RandomState>,
}

/// Whether the AVX-512 loops can run (F, DQ and BW).
#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512dq")
        && std::is_x86_feature_detected!("avx512bw")
}

/// The sampling stride and window: every tail is `TAIL = STRIDE + WINDOW - 1` bytes.
const STRIDE: usize = 16;
const WINDOW: usize = 8;
const TAIL: usize = STRIDE + WINDOW - 1;
/// Windows looked up per step of the loop: independent loads the CPU overlaps, one branch.
const UNROLL: usize = 4;
/// Lowercases the ASCII letters of eight bytes at once.
const FOLD: u64 = 0x2020_2020_2020_2020;
/// Filter bits per stored window: about 1 in 250 windows passes the filter by chance. Half
/// the filter of 64 bits (1 in 1000) keeps more of it in the caches, which outweighs the
/// extra exact checks: `timeline --related` (1000 IDs) took 5-8% less time, same output.
const BITS_PER_WINDOW: usize = 32;

/// The multiplier of the filter's hash: the golden ratio in 64 bits.
const FILTER_MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

/// The filter word and the two bits of a folded window, from one product: the word from its
/// top bits (which depend on every byte of the window), the bits from two 6-bit fields below.
#[inline(always)]
fn filter_probe(window: u64, shift: u32) -> (usize, u64) {
    let h = window.wrapping_mul(FILTER_MULTIPLIER);
    let bits = 1 << ((h >> 20) & 63) | 1 << ((h >> 26) & 63);
    ((h >> shift) as usize, bits)
}

impl SampledSearcher {
    fn new(ids: HashMap<u128, usize, foldhash::fast::RandomState>) -> SampledSearcher {
        let mut tails: Vec<Vec<u8>> = Vec::with_capacity(ids.len() * 3);
        for &value in ids.keys() {
            let id = Id(value);
            tails.push(id.ulid_bytes()[ULID_LEN - TAIL..].to_vec());
            tails.push(id.hex_bytes()[UUID_UNDASHED_LEN - TAIL..].to_vec());
            tails.push(id.uuid_bytes()[id::UUID_DASHED_LEN - TAIL..].to_vec());
        }
        let words = (tails.len() * STRIDE * BITS_PER_WINDOW / 64)
            .clamp(64, 1 << 19)
            .next_power_of_two();
        let mut searcher = SampledSearcher {
            words: vec![0; words],
            shift: 64 - words.trailing_zeros(),
            windows: Default::default(),
            ids,
        };
        for tail in &tails {
            for offset in 0..STRIDE {
                let bytes = tail[offset..offset + WINDOW].try_into().unwrap();
                let window = u64::from_le_bytes(bytes) | FOLD;
                let (word, bits) = filter_probe(window, searcher.shift);
                searcher.words[word] |= bits;
                searcher.windows.insert(window);
            }
        }
        searcher
    }

    /// Finds the hits in `hay`; with `numbering`, the AVX-512 loop also counts newlines and
    /// their total is returned (`None` when nothing was counted).
    // Only the AVX-512 loop counts newlines; other targets leave `numbering` alone.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables, unused_mut))]
    fn find(
        &self,
        hay: &[u8],
        hits: &mut Vec<Hit>,
        mut numbering: Option<&mut Numbering>,
    ) -> Option<u64> {
        let mut last_end = 0;
        #[cfg(target_arch = "x86_64")]
        if has_avx512() {
            // SAFETY: the CPU supports AVX-512 F, DQ and BW, checked just above.
            let (from, cum) = unsafe {
                match numbering.as_deref_mut() {
                    Some(n) => self.find_avx512::<true>(hay, &mut last_end, hits, Some(n)),
                    None => self.find_avx512::<false>(hay, &mut last_end, hits, None),
                }
            };
            self.find_scalar(hay, from, &mut last_end, hits);
            let numbering = numbering?;
            numbering.checkpoint(hay, from, from, cum);
            return Some(cum + count_newlines(&hay[from..]));
        }
        self.find_scalar(hay, 0, &mut last_end, hits);
        None
    }

    /// Probes the windows at `from`, `from + 16` ... (`from` a multiple of 16).
    fn find_scalar(&self, hay: &[u8], from: usize, last_end: &mut usize, hits: &mut Vec<Hit>) {
        let (words, shift) = (&self.words[..], self.shift);
        let step = STRIDE * UNROLL;
        let mut groups = hay[from..].chunks_exact(step);
        for (g, group) in groups.by_ref().enumerate() {
            let mut passed = 0u32;
            for j in 0..UNROLL {
                let bytes = group[j * STRIDE..j * STRIDE + WINDOW].try_into().unwrap();
                let (word, bits) = filter_probe(u64::from_le_bytes(bytes) | FOLD, shift);
                passed |= u32::from(words[word] & bits == bits) << j;
            }
            while passed != 0 {
                let j = passed.trailing_zeros() as usize;
                passed &= passed - 1;
                self.check(hay, from + g * step + j * STRIDE, last_end, hits);
            }
        }
        // The last sampled positions, up to the last whole window.
        let mut at = hay.len() - groups.remainder().len();
        while at + WINDOW <= hay.len() {
            let window = u64::from_le_bytes(hay[at..at + WINDOW].try_into().unwrap()) | FOLD;
            let (word, bits) = filter_probe(window, shift);
            if words[word] & bits == bits {
                self.check(hay, at, last_end, hits);
            }
            at += STRIDE;
        }
    }

    /// The same probe for the eight windows of each 128-byte block at once: one multiply, one
    /// gather of the eight filter words and one compare into a mask, about four times fewer
    /// instructions per window than the scalar loop. Returns where the whole blocks end.
    ///
    /// With `COUNT`, also returns the newlines before where the blocks end, and leaves a
    /// checkpoint in `numbering` before each block with candidates.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,popcnt")]
    unsafe fn find_avx512<const COUNT: bool>(
        &self,
        hay: &[u8],
        last_end: &mut usize,
        hits: &mut Vec<Hit>,
        mut numbering: Option<&mut Numbering>,
    ) -> (usize, u64) {
        use std::arch::x86_64::*;
        let newline = _mm512_set1_epi8(b'\n' as i8);
        let mut cum = 0;
        const BLOCK: usize = 128;
        // The even 8-byte words of two vectors: the windows at every 16th byte.
        let even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
        let fold = _mm512_set1_epi64(FOLD as i64);
        let multiplier = _mm512_set1_epi64(FILTER_MULTIPLIER as i64);
        let shift = _mm512_set1_epi64(i64::from(self.shift));
        let one = _mm512_set1_epi64(1);
        let words = self.words.as_ptr().cast::<i64>();
        let blocks = hay.len() / BLOCK;
        for b in 0..blocks {
            // SAFETY: block `b` lies inside `hay`.
            let (low, high) = unsafe {
                (
                    _mm512_loadu_si512(hay.as_ptr().add(b * BLOCK).cast()),
                    _mm512_loadu_si512(hay.as_ptr().add(b * BLOCK + 64).cast()),
                )
            };
            let mut passed = {
                let raw = _mm512_permutex2var_epi64(low, even, high);
                let h = _mm512_mullo_epi64(_mm512_or_si512(raw, fold), multiplier);
                // SAFETY: every gathered index is below the number of filter words, since
                // `shift` leaves log2(words) bits of a 64-bit product.
                let found =
                    unsafe { _mm512_i64gather_epi64::<8>(_mm512_srlv_epi64(h, shift), words) };
                // A rotate takes its count modulo 64: no mask needed.
                let b1 = _mm512_rolv_epi64(one, _mm512_srli_epi64::<20>(h));
                let b2 = _mm512_rolv_epi64(one, _mm512_srli_epi64::<26>(h));
                let bits = _mm512_or_si512(b1, b2);
                _mm512_cmpeq_epi64_mask(_mm512_and_si512(found, bits), bits)
            };
            if COUNT
                && passed != 0
                && let Some(numbering) = numbering.as_deref_mut()
            {
                numbering.checkpoint(hay, b * BLOCK, b * BLOCK, cum);
            }
            while passed != 0 {
                let j = passed.trailing_zeros() as usize;
                passed &= passed - 1;
                self.check(hay, b * BLOCK + j * STRIDE, last_end, hits);
            }
            if COUNT {
                cum += u64::from(_mm512_cmpeq_epi8_mask(low, newline).count_ones())
                    + u64::from(_mm512_cmpeq_epi8_mask(high, newline).count_ones());
            }
        }
        (blocks * BLOCK, cum)
    }

    /// A window that passed the filter: is it really a tail window, and of a whole token?
    fn check(&self, hay: &[u8], at: usize, last_end: &mut usize, hits: &mut Vec<Hit>) {
        let window = u64::from_le_bytes(hay[at..at + WINDOW].try_into().unwrap()) | FOLD;
        if self.windows.contains(&window) {
            self.verify(hay, at, last_end, hits);
        }
    }

    /// Decodes the tokens around the window at `at` and keeps the known ones that overlap it.
    /// The slice walked is widened to bytes that cannot be part of a token (or the buffer's
    /// ends), so its token boundaries are those of the whole buffer.
    fn verify(&self, hay: &[u8], at: usize, last_end: &mut usize, hits: &mut Vec<Hit>) {
        let part_of_token = |b: u8| b.is_ascii_alphanumeric() || b == b'-';
        let mut start = at;
        while start > 0 && part_of_token(hay[start - 1]) {
            start -= 1;
        }
        let mut end = at + WINDOW;
        while end < hay.len() && part_of_token(hay[end]) {
            end += 1;
        }
        for_each_token(&hay[start..end], |mut hit| {
            hit.start += start;
            hit.end += start;
            if hit.end <= at || hit.start >= at + WINDOW || hit.start < *last_end {
                return;
            }
            if let Some(&q) = self.ids.get(&hit.id.0) {
                hit.query = q;
                *last_end = hit.end;
                hits.push(hit);
            }
        });
    }
}

/// Which rendering a needle is the tail of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tail {
    /// The last 16 characters of the ULID rendering: exactly the 80 random bits.
    Ulid,
    /// The last 12 hex digits of the UUID rendering, the same in dashed and undashed forms.
    Uuid,
}

const ULID_TAIL_LEN: usize = 16;
const UUID_TAIL_LEN: usize = 12;

#[derive(Clone, Debug)]
struct Needle {
    /// Lowercase (folded) bytes of the tail.
    bytes: Vec<u8>,
    tail: Tail,
    id: Id,
    query: usize,
    /// Offsets within `bytes` of the two bytes the SSE2 and AVX2 prefilter compares.
    i1: usize,
    i2: usize,
}

/// How many bytes of each tail the AVX-512 prefilter compares. Two are too few: with hex
/// tails the rarest bytes still come from `a-f`, common in logs, and every false candidate
/// costs a verification.
const SHARED_PROBES: usize = 3;

#[derive(Clone, Debug)]
struct PairSearcher {
    /// Two per query: the tail of its ULID rendering, then the tail of its UUID rendering.
    needles: Vec<Needle>,
    /// Per query, the offsets at which the AVX-512 prefilter compares both of its tails.
    shared: Vec<[usize; SHARED_PROBES]>,
    /// How far past a candidate start the vector loads reach: the largest `i2` or shared
    /// offset.
    reach: usize,
}

/// Approximate frequency rank of a (lowercase) byte in log text: higher is more common.
/// Digits are everywhere in logs (timestamps, counters), vowels and `e t a o n s r` in
/// messages; the rare letters make the best prefilter bytes.
fn frequency_rank(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => 250,
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
/// bytes, in order.
fn pick_pair(bytes: &[u8]) -> (usize, usize) {
    let mut order: Vec<usize> = (0..bytes.len()).collect();
    order.sort_by_key(|&i| (frequency_rank(bytes[i]), i));
    let first = order[0];
    // A tail of one repeated byte: the next rarest position.
    let second = order[1..]
        .iter()
        .copied()
        .find(|&i| bytes[i] != bytes[first])
        .unwrap_or(order[1]);
    (first.min(second), first.max(second))
}

/// Picks the offsets at which the AVX-512 prefilter compares both tails of one query: the
/// same offsets for both, so that one set of loads serves the two needles (the loads, not
/// the compares, bound that loop). Of every choice within the shorter tail, the one whose
/// chance matches, summed over the two tails, are least likely.
fn pick_shared(ulid_tail: &[u8], uuid_tail: &[u8]) -> [usize; SHARED_PROBES] {
    let weight = |b: u8| f64::from(frequency_rank(b)) / 256.0;
    let chance = |at: &[usize; SHARED_PROBES]| -> f64 {
        [ulid_tail, uuid_tail]
            .iter()
            .map(|tail| at.iter().map(|&i| weight(tail[i])).product::<f64>())
            .sum()
    };
    let len = ulid_tail.len().min(uuid_tail.len());
    let mut best = std::array::from_fn(|k| k);
    let mut best_chance = chance(&best);
    let mut at = best;
    // Every increasing choice of offsets, in lexicographic order.
    loop {
        let Some(k) = (0..SHARED_PROBES)
            .rev()
            .find(|&k| at[k] < len - SHARED_PROBES + k)
        else {
            return best;
        };
        at[k] += 1;
        for j in k + 1..SHARED_PROBES {
            at[j] = at[j - 1] + 1;
        }
        let c = chance(&at);
        if c < best_chance {
            (best, best_chance) = (at, c);
        }
    }
}

impl PairSearcher {
    fn new(ids: &[(u128, usize)]) -> PairSearcher {
        let mut needles = Vec::new();
        let mut shared = Vec::new();
        for &(value, query) in ids {
            let id = Id(value);
            let ulid = id.ulid_bytes();
            let hex = id.hex_bytes();
            let ulid_tail = &ulid[ULID_LEN - ULID_TAIL_LEN..];
            let uuid_tail = &hex[UUID_UNDASHED_LEN - UUID_TAIL_LEN..];
            for (tail, bytes) in [(Tail::Ulid, ulid_tail), (Tail::Uuid, uuid_tail)] {
                let (i1, i2) = pick_pair(bytes);
                needles.push(Needle {
                    bytes: bytes.to_vec(),
                    tail,
                    id,
                    query,
                    i1,
                    i2,
                });
            }
            shared.push(pick_shared(ulid_tail, uuid_tail));
        }
        let reach = needles
            .iter()
            .map(|n| n.i2)
            .chain(shared.iter().flatten().copied())
            .max()
            .unwrap_or(0);
        PairSearcher {
            needles,
            shared,
            reach,
        }
    }

    /// Finds each needle's hits in `hay`, needle by needle; with `numbering`, the AVX-512
    /// loop also counts newlines and their total is returned (`None` when nothing was
    /// counted).
    // Only the AVX-512 loop counts newlines; other targets leave `numbering` alone.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn find(
        &self,
        hay: &[u8],
        hits: &mut Vec<Hit>,
        numbering: Option<&mut Numbering>,
    ) -> Option<u64> {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512bw") {
                // SAFETY: the CPU supports AVX-512 F and BW, checked just above.
                return unsafe { x86::find_avx512(self, hay, hits, numbering) };
            }
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                unsafe { x86::find_avx2(self, hay, hits) };
            } else {
                // SAFETY: SSE2 is part of the x86_64 baseline.
                unsafe { x86::find_sse2(self, hay, hits) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.find_scalar(hay, 0, hits);
        None
    }

    /// Checks every candidate start from `from` on, one byte at a time. Used for the tail of
    /// the buffer that a vector load would overrun, and on targets without a vector path.
    fn find_scalar(&self, hay: &[u8], from: usize, hits: &mut Vec<Hit>) {
        for (n, needle) in self.needles.iter().enumerate() {
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

    /// A candidate: needle `n` may start at `p`. Decodes the whole token around it.
    #[inline(never)]
    fn verify(&self, n: usize, hay: &[u8], p: usize, hits: &mut Vec<Hit>) {
        let needle = &self.needles[n];
        // Most candidates share only the two prefilter bytes with the needle; a folded
        // compare of the whole tail turns them away before any decoding.
        let Some(window) = hay.get(p..p + needle.bytes.len()) else {
            return;
        };
        if window
            .iter()
            .zip(&needle.bytes)
            .any(|(&h, &b)| h | 0x20 != b)
        {
            return;
        }
        match needle.tail {
            Tail::Ulid => {
                if let Some(start) = p.checked_sub(ULID_LEN - ULID_TAIL_LEN) {
                    self.try_token(needle, hay, start, Shape::Ulid, hits);
                }
            }
            Tail::Uuid => {
                for shape in [Shape::UuidDashed, Shape::UuidUndashed] {
                    let before = shape.width() - UUID_TAIL_LEN;
                    if let Some(start) = p.checked_sub(before) {
                        self.try_token(needle, hay, start, shape, hits);
                    }
                }
            }
        }
    }

    #[inline]
    fn try_token(
        &self,
        needle: &Needle,
        hay: &[u8],
        start: usize,
        shape: Shape,
        hits: &mut Vec<Hit>,
    ) {
        let end = start + shape.width();
        if end > hay.len() || !is_whole(hay, start, end) {
            return;
        }
        if id::decode_shape(shape, &hay[start..end]) == Some(needle.id) {
            hits.push(Hit {
                start,
                end,
                shape,
                id: needle.id,
                query: needle.query,
            });
        }
    }
}

#[inline]
fn is_whole(hay: &[u8], start: usize, end: usize) -> bool {
    (start == 0 || !id::is_token_byte(hay[start - 1]))
        && (end == hay.len() || !id::is_token_byte(hay[end]))
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The packed-pair loop for SSE2, AVX2 and AVX-512. Folding with `| 0x20` lowercases ASCII
    //! letters and leaves digits and `-` as they are; the few other bytes it maps onto a needle
    //! byte (control bytes onto digits) only add candidates, which verification rejects.
    //!
    //! And the token walk for the same three: each 64-byte block becomes three bit masks
    //! (letters and digits, hex digits, dashes), and bit arithmetic on them finds the runs
    //! worth decoding and checks the UUID shapes. With AVX2 and AVX-512, the shuffle decoders
    //! of `id::sse41` then decode the IDs.

    use super::{Hit, Numbering, PairSearcher, SHARED_PROBES, Shape, count_newlines};
    use crate::id::{self, Id, ULID_LEN, UUID_DASHED_LEN, UUID_UNDASHED_LEN};
    use std::arch::x86_64::*;

    trait Vector: Copy {
        const LANES: usize;
        unsafe fn splat(b: u8) -> Self;
        unsafe fn load(p: *const u8) -> Self;
        /// Lane k is all ones when lane k of `self | 0x20` equals `needle`'s lane and the same
        /// holds for `other` against `needle2`.
        unsafe fn pair(self, needle: Self, other: Self, needle2: Self, fold: Self) -> Self;
        unsafe fn or(self, other: Self) -> Self;
        unsafe fn movemask(self) -> u32;
        /// Lane k is all ones when lane k of `self` equals lane k of `other`.
        unsafe fn eq(self, other: Self) -> Self;
        /// Lanes that are ASCII letters or digits, and lanes that are hex digits: all ones
        /// where true.
        unsafe fn alnum_hex(self) -> (Self, Self);
    }

    impl Vector for __m128i {
        const LANES: usize = 16;
        #[inline(always)]
        unsafe fn splat(b: u8) -> Self {
            unsafe { _mm_set1_epi8(b as i8) }
        }
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            // SAFETY: the caller keeps p..p+16 inside the haystack.
            unsafe { _mm_loadu_si128(p as *const __m128i) }
        }
        #[inline(always)]
        unsafe fn pair(self, needle: Self, other: Self, needle2: Self, fold: Self) -> Self {
            unsafe {
                let a = _mm_cmpeq_epi8(_mm_or_si128(self, fold), needle);
                let b = _mm_cmpeq_epi8(_mm_or_si128(other, fold), needle2);
                _mm_and_si128(a, b)
            }
        }
        #[inline(always)]
        unsafe fn or(self, other: Self) -> Self {
            unsafe { _mm_or_si128(self, other) }
        }
        #[inline(always)]
        unsafe fn movemask(self) -> u32 {
            unsafe { _mm_movemask_epi8(self) as u32 }
        }
        #[inline(always)]
        unsafe fn eq(self, other: Self) -> Self {
            unsafe { _mm_cmpeq_epi8(self, other) }
        }
        #[inline(always)]
        unsafe fn alnum_hex(self) -> (Self, Self) {
            // There is no unsigned byte compare before AVX-512: adding 0x80 - lo moves the
            // range lo..lo+len to the bottom of the signed range, where one signed compare
            // tests it. `| 0x20` folds uppercase onto lowercase and no other byte onto a
            // lowercase letter.
            unsafe {
                let digit = _mm_cmplt_epi8(
                    _mm_add_epi8(self, _mm_set1_epi8((0x80u8 - b'0') as i8)),
                    _mm_set1_epi8(i8::MIN + 10),
                );
                let letter = _mm_add_epi8(
                    _mm_or_si128(self, _mm_set1_epi8(0x20)),
                    _mm_set1_epi8((0x80u8 - b'a') as i8),
                );
                let alpha = _mm_cmplt_epi8(letter, _mm_set1_epi8(i8::MIN + 26));
                let hex_alpha = _mm_cmplt_epi8(letter, _mm_set1_epi8(i8::MIN + 6));
                (_mm_or_si128(digit, alpha), _mm_or_si128(digit, hex_alpha))
            }
        }
    }

    impl Vector for __m256i {
        const LANES: usize = 32;
        #[inline(always)]
        unsafe fn splat(b: u8) -> Self {
            unsafe { _mm256_set1_epi8(b as i8) }
        }
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            // SAFETY: the caller keeps p..p+32 inside the haystack.
            unsafe { _mm256_loadu_si256(p as *const __m256i) }
        }
        #[inline(always)]
        unsafe fn pair(self, needle: Self, other: Self, needle2: Self, fold: Self) -> Self {
            unsafe {
                let a = _mm256_cmpeq_epi8(_mm256_or_si256(self, fold), needle);
                let b = _mm256_cmpeq_epi8(_mm256_or_si256(other, fold), needle2);
                _mm256_and_si256(a, b)
            }
        }
        #[inline(always)]
        unsafe fn or(self, other: Self) -> Self {
            unsafe { _mm256_or_si256(self, other) }
        }
        #[inline(always)]
        unsafe fn movemask(self) -> u32 {
            unsafe { _mm256_movemask_epi8(self) as u32 }
        }
        #[inline(always)]
        unsafe fn eq(self, other: Self) -> Self {
            unsafe { _mm256_cmpeq_epi8(self, other) }
        }
        #[inline(always)]
        unsafe fn alnum_hex(self) -> (Self, Self) {
            // As for SSE2; AVX2 has only "greater than", hence the swapped operands.
            unsafe {
                let digit = _mm256_cmpgt_epi8(
                    _mm256_set1_epi8(i8::MIN + 10),
                    _mm256_add_epi8(self, _mm256_set1_epi8((0x80u8 - b'0') as i8)),
                );
                let letter = _mm256_add_epi8(
                    _mm256_or_si256(self, _mm256_set1_epi8(0x20)),
                    _mm256_set1_epi8((0x80u8 - b'a') as i8),
                );
                let alpha = _mm256_cmpgt_epi8(_mm256_set1_epi8(i8::MIN + 26), letter);
                let hex_alpha = _mm256_cmpgt_epi8(_mm256_set1_epi8(i8::MIN + 6), letter);
                (
                    _mm256_or_si256(digit, alpha),
                    _mm256_or_si256(digit, hex_alpha),
                )
            }
        }
    }

    /// Dispatches on the needle count, so the loop below is compiled for a fixed count and
    /// keeps every splat in a register (two needles per query ID).
    #[inline(always)]
    unsafe fn find_any<V: Vector>(s: &PairSearcher, hay: &[u8], hits: &mut Vec<Hit>) {
        // SAFETY (all arms): the caller enabled V's target feature.
        unsafe {
            match s.needles.len() {
                2 => find_fixed::<V, 2>(s, hay, hits),
                4 => find_fixed::<V, 4>(s, hay, hits),
                6 => find_fixed::<V, 6>(s, hay, hits),
                8 => find_fixed::<V, 8>(s, hay, hits),
                n => unreachable!("{n} needles: always two per query, at most four queries"),
            }
        }
    }

    #[inline(always)]
    unsafe fn find_fixed<V: Vector, const N: usize>(
        s: &PairSearcher,
        hay: &[u8],
        hits: &mut Vec<Hit>,
    ) {
        let fold = unsafe { V::splat(0x20) };
        let needles: &[super::Needle; N] = s.needles[..].try_into().expect("N needles");
        // SAFETY: the vector feature is enabled by the caller.
        let mut b1 = [fold; N];
        let mut b2 = [fold; N];
        for n in 0..N {
            // SAFETY: the vector feature is enabled by the caller.
            unsafe {
                b1[n] = V::splat(needles[n].bytes[needles[n].i1]);
                b2[n] = V::splat(needles[n].bytes[needles[n].i2]);
            }
        }
        let i1: [usize; N] = std::array::from_fn(|n| needles[n].i1);
        let i2: [usize; N] = std::array::from_fn(|n| needles[n].i2);
        let pairs = Pairs {
            base: hay.as_ptr(),
            fold,
            b1,
            b2,
            i1,
            i2,
        };
        let mut p = 0;
        // Two vectors per round, one branch: candidates are rare, so the common path is
        // loads, compares and a single test.
        while p + s.reach + 2 * V::LANES <= hay.len() {
            // SAFETY: the loop condition covers both vectors.
            let any = unsafe {
                let mut acc = pairs.block(p, 0).or(pairs.block(p + V::LANES, 0));
                for n in 1..N {
                    acc = acc.or(pairs.block(p, n)).or(pairs.block(p + V::LANES, n));
                }
                acc.movemask()
            };
            if any != 0 {
                for start in [p, p + V::LANES] {
                    for n in 0..N {
                        // SAFETY: as above.
                        let mut mask = unsafe { pairs.block(start, n).movemask() };
                        while mask != 0 {
                            let k = mask.trailing_zeros() as usize;
                            mask &= mask - 1;
                            s.verify(n, hay, start + k, hits);
                        }
                    }
                }
            }
            p += 2 * V::LANES;
        }
        s.find_scalar(hay, p, hits);
    }

    /// The splatted needle bytes and their offsets, for one fixed needle count.
    struct Pairs<V, const N: usize> {
        base: *const u8,
        fold: V,
        b1: [V; N],
        b2: [V; N],
        i1: [usize; N],
        i2: [usize; N],
    }

    impl<V: Vector, const N: usize> Pairs<V, N> {
        /// Lane k is set when needle n may start at p + k.
        ///
        /// SAFETY: p + reach + LANES must lie within the haystack (i1 < i2 <= reach).
        #[inline(always)]
        unsafe fn block(&self, p: usize, n: usize) -> V {
            unsafe {
                let x = V::load(self.base.add(p + self.i1[n]));
                let y = V::load(self.base.add(p + self.i2[n]));
                x.pair(self.b1[n], y, self.b2[n], self.fold)
            }
        }
    }

    /// The same loop with 64 lanes and mask registers: the compares write bit masks
    /// directly, which halves the instructions per byte against AVX2.
    ///
    /// With `numbering`, newlines are counted too: their total, or `None` for a buffer too
    /// short for the vector loop.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn find_avx512(
        s: &PairSearcher,
        hay: &[u8],
        hits: &mut Vec<Hit>,
        numbering: Option<&mut Numbering>,
    ) -> Option<u64> {
        // SAFETY (both arms): this function's target features are the ones the callee needs.
        unsafe {
            match numbering {
                Some(n) => dispatch_512::<true>(s, hay, hits, Some(n)),
                None => dispatch_512::<false>(s, hay, hits, None),
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn dispatch_512<const COUNT: bool>(
        s: &PairSearcher,
        hay: &[u8],
        hits: &mut Vec<Hit>,
        numbering: Option<&mut Numbering>,
    ) -> Option<u64> {
        // SAFETY (all arms): this function's target features are the ones the callee needs.
        unsafe {
            match s.shared.len() {
                1 => find_fixed_512::<1, COUNT>(s, hay, hits, numbering),
                2 => find_fixed_512::<2, COUNT>(s, hay, hits, numbering),
                3 => find_fixed_512::<3, COUNT>(s, hay, hits, numbering),
                4 => find_fixed_512::<4, COUNT>(s, hay, hits, numbering),
                n => unreachable!("{n} queries: at most four"),
            }
        }
    }

    /// With `COUNT`, newlines are counted in the 64 bytes at `p + o` of each block (`o` the
    /// first shared offset, which the loop loads anyway), so the blocks' windows tile the
    /// buffer from `o` on; `cum` holds the newlines before `p + o`.
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    unsafe fn find_fixed_512<const Q: usize, const COUNT: bool>(
        s: &PairSearcher,
        hay: &[u8],
        hits: &mut Vec<Hit>,
        mut numbering: Option<&mut Numbering>,
    ) -> Option<u64> {
        const LANES: usize = 64;
        let probes: [Probe512; Q] = std::array::from_fn(|q| {
            let at = s.shared[q];
            Probe512 {
                bytes: [0, 1]
                    .map(|t| at.map(|i| _mm512_set1_epi8(s.needles[2 * q + t].bytes[i] as i8))),
                at,
            }
        });
        // The last block start whose loads all end within hay.
        let Some(limit) = hay.len().checked_sub(s.reach + LANES) else {
            s.find_scalar(hay, 0, hits);
            return None;
        };
        let o = probes[0].at[0];
        let mut cum = if COUNT { count_newlines(&hay[..o]) } else { 0 };
        let mut p = 0;
        while p <= limit {
            // SAFETY: blocks start at or before `limit`, so they end within hay.
            let (next, skipped) = unsafe { skip_512::<Q, COUNT>(hay.as_ptr(), p, limit, &probes) };
            (p, cum) = (next, cum + skipped);
            if p > limit {
                break;
            }
            if let Some(numbering) = numbering.as_deref_mut() {
                numbering.checkpoint(hay, p, p + o, cum);
            }
            for (q, probe) in probes.iter().enumerate() {
                // SAFETY: p <= limit, as above.
                let masks = unsafe { probe.masks(hay.as_ptr(), p) };
                for (t, mut bits) in masks.into_iter().enumerate() {
                    while bits != 0 {
                        let k = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        s.verify(2 * q + t, hay, p + k, hits);
                    }
                }
            }
            if COUNT {
                // SAFETY: p <= limit, as above.
                cum += unsafe { newlines_at(hay.as_ptr(), p + o) };
            }
            p += LANES;
        }
        // Past the last block p + o is still within hay: p <= limit + 64 and o <= reach.
        if let Some(numbering) = numbering {
            numbering.checkpoint(hay, p, p + o, cum);
        }
        s.find_scalar(hay, p, hits);
        COUNT.then(|| cum + count_newlines(&hay[p + o..]))
    }

    /// The newlines in the 64 bytes at `at`.
    ///
    /// SAFETY: the 64 bytes must lie within the haystack at `base`.
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    #[inline]
    unsafe fn newlines_at(base: *const u8, at: usize) -> u64 {
        // SAFETY: as the caller promises.
        let x = unsafe { _mm512_loadu_si512(base.add(at) as *const _) };
        u64::from(_mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(b'\n' as i8)).count_ones())
    }

    /// One query's prefilter for 64 lanes: its shared offsets, and the bytes there of its
    /// two tails (ULID, then UUID), splatted.
    #[derive(Clone, Copy)]
    struct Probe512 {
        bytes: [[__m512i; SHARED_PROBES]; 2],
        at: [usize; SHARED_PROBES],
    }

    impl Probe512 {
        /// Per tail, bit k set: the tail may start at p + k.
        ///
        /// SAFETY: p + reach + 64 must lie within the haystack at `base`.
        #[target_feature(enable = "avx512f,avx512bw")]
        #[inline]
        unsafe fn masks(&self, base: *const u8, p: usize) -> [u64; 2] {
            let fold = _mm512_set1_epi8(0x20);
            let mut masks = [u64::MAX; 2];
            for (k, &at) in self.at.iter().enumerate() {
                // SAFETY: at <= reach, so the load ends within the haystack.
                let x = unsafe { _mm512_loadu_si512(base.add(p + at) as *const _) };
                let x = _mm512_or_si512(x, fold);
                for (mask, bytes) in masks.iter_mut().zip(&self.bytes) {
                    *mask = _mm512_mask_cmpeq_epi8_mask(*mask, x, bytes[k]);
                }
            }
            masks
        }
    }

    /// The first block start from `p` on (in steps of 64, up to `limit`) where some needle
    /// may start, or a value past `limit`; with `COUNT`, also the newlines in the windows of
    /// the blocks passed over (see [`find_fixed_512`]). A function of its own that calls
    /// nothing, so the needle bytes stay in registers through the loop instead of being
    /// reloaded around the verification calls.
    ///
    /// SAFETY: limit + reach + 64 must lie within the haystack at `base`.
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    #[inline(never)]
    unsafe fn skip_512<const Q: usize, const COUNT: bool>(
        base: *const u8,
        mut p: usize,
        limit: usize,
        probes: &[Probe512; Q],
    ) -> (usize, u64) {
        let probes = *probes;
        let o = probes[0].at[0];
        let mut newlines = 0;
        while p <= limit {
            let mut any = 0;
            for probe in &probes {
                // SAFETY: p <= limit.
                let [ulid, uuid] = unsafe { probe.masks(base, p) };
                any |= ulid | uuid;
            }
            if any != 0 {
                return (p, newlines);
            }
            if COUNT {
                // SAFETY: o <= reach, so the load ends within the haystack.
                newlines += unsafe { newlines_at(base, p + o) };
            }
            p += 64;
        }
        (p, newlines)
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn find_avx2(s: &PairSearcher, hay: &[u8], hits: &mut Vec<Hit>) {
        unsafe { find_any::<__m256i>(s, hay, hits) }
    }

    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn find_sse2(s: &PairSearcher, hay: &[u8], hits: &mut Vec<Hit>) {
        unsafe { find_any::<__m128i>(s, hay, hits) }
    }

    /// Bit k describes byte k of a 64-byte block: an ASCII letter or digit (`alnum`), a hex
    /// digit (`hex`, a subset of `alnum`), a `-` (`dash`).
    #[derive(Clone, Copy, Default)]
    struct Classes {
        alnum: u64,
        hex: u64,
        dash: u64,
    }

    /// What the token walk needs from an instruction set.
    ///
    /// SAFETY (every method): the CPU must have the vector type's features.
    trait Kernel {
        /// The classes of the 64 bytes at `p`, which must be readable.
        unsafe fn classify(p: *const u8) -> Classes;
        /// [`id::decode_ulid`] for a token known to be all letters and digits.
        unsafe fn decode_ulid(token: &[u8; ULID_LEN]) -> Option<Id>;
        /// [`id::decode_hex`] for a token known to be all hex digits.
        unsafe fn decode_hex(token: &[u8; UUID_UNDASHED_LEN]) -> Id;
        /// [`id::decode_dashed`] for a token known to have hex digits and dashes in place.
        unsafe fn decode_dashed(token: &[u8; UUID_DASHED_LEN]) -> Id;
    }

    impl Kernel for __m128i {
        #[inline(always)]
        unsafe fn classify(p: *const u8) -> Classes {
            // SAFETY: the caller's guarantees are the ones classify_lanes needs.
            unsafe { classify_lanes::<Self>(p) }
        }
        // SSE2 has no byte shuffles: the table decoders.
        #[inline(always)]
        unsafe fn decode_ulid(token: &[u8; ULID_LEN]) -> Option<Id> {
            id::decode_ulid(token)
        }
        #[inline(always)]
        unsafe fn decode_hex(token: &[u8; UUID_UNDASHED_LEN]) -> Id {
            id::decode_hex(token).expect("the masks checked the digits")
        }
        #[inline(always)]
        unsafe fn decode_dashed(token: &[u8; UUID_DASHED_LEN]) -> Id {
            id::decode_dashed(token).expect("the masks checked the digits and dashes")
        }
    }

    impl Kernel for __m256i {
        #[inline(always)]
        unsafe fn classify(p: *const u8) -> Classes {
            // SAFETY: the caller's guarantees are the ones classify_lanes needs.
            unsafe { classify_lanes::<Self>(p) }
        }
        // SAFETY (the decoders): AVX2 implies SSE4.1.
        #[inline(always)]
        unsafe fn decode_ulid(token: &[u8; ULID_LEN]) -> Option<Id> {
            unsafe { id::sse41::decode_ulid(token) }
        }
        #[inline(always)]
        unsafe fn decode_hex(token: &[u8; UUID_UNDASHED_LEN]) -> Id {
            unsafe { id::sse41::decode_hex(token) }
        }
        #[inline(always)]
        unsafe fn decode_dashed(token: &[u8; UUID_DASHED_LEN]) -> Id {
            unsafe { id::sse41::decode_dashed(token) }
        }
    }

    impl Kernel for __m512i {
        /// Unsigned compares straight into mask registers: no range shifting, no movemask.
        #[inline(always)]
        unsafe fn classify(p: *const u8) -> Classes {
            // SAFETY: the caller keeps p..p+64 readable and has enabled AVX-512 F and BW.
            unsafe {
                let v = _mm512_loadu_si512(p as *const _);
                let digit = _mm512_cmplt_epu8_mask(
                    _mm512_sub_epi8(v, _mm512_set1_epi8(b'0' as i8)),
                    _mm512_set1_epi8(10),
                );
                let letter = _mm512_sub_epi8(
                    _mm512_or_si512(v, _mm512_set1_epi8(0x20)),
                    _mm512_set1_epi8(b'a' as i8),
                );
                Classes {
                    alnum: digit | _mm512_cmplt_epu8_mask(letter, _mm512_set1_epi8(26)),
                    hex: digit | _mm512_cmplt_epu8_mask(letter, _mm512_set1_epi8(6)),
                    dash: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'-' as i8)),
                }
            }
        }
        // SAFETY (the decoders): AVX-512 F implies SSE4.1.
        #[inline(always)]
        unsafe fn decode_ulid(token: &[u8; ULID_LEN]) -> Option<Id> {
            unsafe { id::sse41::decode_ulid(token) }
        }
        #[inline(always)]
        unsafe fn decode_hex(token: &[u8; UUID_UNDASHED_LEN]) -> Id {
            unsafe { id::sse41::decode_hex(token) }
        }
        #[inline(always)]
        unsafe fn decode_dashed(token: &[u8; UUID_DASHED_LEN]) -> Id {
            unsafe { id::sse41::decode_dashed(token) }
        }
    }

    /// Classifies 64 bytes as 64 / LANES vectors.
    #[inline(always)]
    unsafe fn classify_lanes<V: Vector>(p: *const u8) -> Classes {
        let mut c = Classes::default();
        // SAFETY: the caller keeps p..p+64 readable and has enabled V's features.
        unsafe {
            let dash = V::splat(b'-');
            for k in (0..64).step_by(V::LANES) {
                let v = V::load(p.add(k));
                let (alnum, hex) = v.alnum_hex();
                c.alnum |= (alnum.movemask() as u64) << k;
                c.hex |= (hex.movemask() as u64) << k;
                c.dash |= (v.eq(dash).movemask() as u64) << k;
            }
        }
        c
    }

    /// The classes of a block and the one after it, as 128-bit masks: judging a run that
    /// starts in the first block takes at most 37 bytes, so the second holds the rest of it.
    struct Window {
        alnum: u128,
        hex: u128,
        dash: u128,
    }

    impl Window {
        #[inline(always)]
        fn new(cur: Classes, next: Classes) -> Window {
            let join = |a: u64, b: u64| a as u128 | (b as u128) << 64;
            Window {
                alnum: join(cur.alnum, next.alnum),
                hex: join(cur.hex, next.hex),
                dash: join(cur.dash, next.dash),
            }
        }

        /// Bits `at..at + 64` of a mask.
        #[inline(always)]
        fn at(mask: u128, at: u32) -> u64 {
            (mask >> at) as u64
        }
    }

    /// Starts of the alphanumeric runs of one block that may be IDs, one mask per shape.
    #[derive(Clone, Copy)]
    struct Starts {
        /// Runs of exactly 26.
        ulid: u64,
        /// Runs of exactly 32.
        hex: u64,
        /// Runs of exactly 8 followed by `-`: maybe the first group of a dashed UUID.
        dashed: u64,
    }

    /// The candidate run starts in the first block of `w`, given bit 63 of the block before
    /// it (`carry`: is the run at bit 0 a continuation?).
    #[inline(always)]
    fn starts(w: &Window, carry: u64) -> Starts {
        let m = w.alnum;
        // Bit k of `runN`: bytes k..k+N are all alphanumeric. Doubling keeps it to four steps.
        let run2 = m & m >> 1;
        let run4 = run2 & run2 >> 2;
        let run8 = run4 & run4 >> 4;
        let run16 = run8 & run8 >> 8;
        let first = m as u64;
        let begins = first & !(first << 1 | carry);
        // Bit k: byte k + len ends the run.
        let ends_at = |len: usize| !Window::at(m, len as u32);
        Starts {
            ulid: begins & (run16 & run8 >> 16 & run2 >> 24) as u64 & ends_at(ULID_LEN),
            hex: begins & (run16 & run16 >> 16) as u64 & ends_at(UUID_UNDASHED_LEN),
            // A dash is not alphanumeric, so it ends the run too.
            dashed: begins & run8 as u64 & Window::at(w.dash, 8),
        }
    }

    /// Where the dashes of the dashed form are, from its first byte on.
    const DASHED_DASHES: u64 = 1 << 8 | 1 << 13 | 1 << 18 | 1 << 23;
    /// Where its hex digits are.
    const DASHED_DIGITS: u64 = ((1 << UUID_DASHED_LEN) - 1) & !DASHED_DASHES;

    /// Decodes the candidates of the block at `offset` and reports the IDs, in order.
    #[inline(always)]
    unsafe fn visit<K: Kernel, F: FnMut(Hit) + ?Sized>(
        hay: &[u8],
        offset: usize,
        w: &Window,
        s: Starts,
        f: &mut F,
    ) {
        let mut all = s.ulid | s.hex | s.dashed;
        while all != 0 {
            let k = all.trailing_zeros();
            let bit = 1 << k;
            all ^= bit;
            let start = offset + k as usize;
            let found = if s.ulid & bit != 0 {
                // The alphabet (no I, L, O, U) and the first character are left to the decoder.
                let token = hay[start..][..ULID_LEN].try_into().unwrap();
                // SAFETY: the caller enabled K's features.
                unsafe { K::decode_ulid(token) }.map(|id| (Shape::Ulid, id))
            } else if s.hex & bit != 0 {
                (Window::at(w.hex, k) as u32 == u32::MAX).then(|| {
                    let token = hay[start..][..UUID_UNDASHED_LEN].try_into().unwrap();
                    // SAFETY: the caller enabled K's features.
                    (Shape::UuidUndashed, unsafe { K::decode_hex(token) })
                })
            } else {
                // Hex digits and dashes in place, and no letter or digit right after: the
                // byte before is a boundary already, as the run begins here.
                let span = (1 << UUID_DASHED_LEN) | DASHED_DIGITS;
                let shaped = Window::at(w.alnum, k) & span == DASHED_DIGITS
                    && Window::at(w.hex, k) & DASHED_DIGITS == DASHED_DIGITS
                    && Window::at(w.dash, k) & DASHED_DASHES == DASHED_DASHES;
                shaped.then(|| {
                    let token = hay[start..][..UUID_DASHED_LEN].try_into().unwrap();
                    // SAFETY: the caller enabled K's features.
                    (Shape::UuidDashed, unsafe { K::decode_dashed(token) })
                })
            };
            if let Some((shape, id)) = found {
                f(Hit {
                    start,
                    end: start + shape.width(),
                    shape,
                    id,
                    query: 0,
                });
            }
        }
    }

    /// The token walk over blocks of 64 bytes. Each block is handled one step late, once the
    /// block after it is classified, so runs reaching into it can be measured.
    #[inline(always)]
    unsafe fn walk<K: Kernel, F: FnMut(Hit) + ?Sized>(hay: &[u8], f: &mut F) {
        let n = hay.len();
        let full = n / 64;
        let blocks = n.div_ceil(64);
        if blocks == 0 {
            return;
        }
        // The last partial block, padded with NUL, which is none of the classes: a run ends
        // at the end of the buffer just as at a boundary byte.
        let mut tail = [0u8; 64];
        tail[..n - full * 64].copy_from_slice(&hay[full * 64..]);
        let block = |k: usize| {
            if k < full {
                hay[64 * k..].as_ptr()
            } else {
                tail.as_ptr()
            }
        };
        // SAFETY (all classify calls): the block pointers have 64 readable bytes; the caller
        // enabled K's features.
        let mut cur = unsafe { K::classify(block(0)) };
        let mut carry = 0;
        for k in 0..blocks {
            let next = if k + 1 < blocks {
                unsafe { K::classify(block(k + 1)) }
            } else {
                Classes::default()
            };
            let w = Window::new(cur, next);
            let s = starts(&w, carry);
            if s.ulid | s.hex | s.dashed != 0 {
                // SAFETY: the caller enabled K's features.
                unsafe { visit::<K, F>(hay, 64 * k, &w, s, f) };
            }
            carry = cur.alnum >> 63;
            cur = next;
        }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn tokens_avx512<F: FnMut(Hit) + ?Sized>(hay: &[u8], f: &mut F) {
        // SAFETY: this function's target features are the ones the walk needs.
        unsafe { walk::<__m512i, F>(hay, f) }
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn tokens_avx2<F: FnMut(Hit) + ?Sized>(hay: &[u8], f: &mut F) {
        // SAFETY: this function's target features are the ones the walk needs.
        unsafe { walk::<__m256i, F>(hay, f) }
    }

    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn tokens_sse2<F: FnMut(Hit) + ?Sized>(hay: &[u8], f: &mut F) {
        // SAFETY: this function's target features are the ones the walk needs.
        unsafe { walk::<__m128i, F>(hay, f) }
    }
}

/// True for ASCII letters and digits: the bytes of an ID's alphanumeric runs.
static ALNUM: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    t
};

static HEX: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).is_ascii_hexdigit();
        b += 1;
    }
    t
};

/// Group lengths of the hex-and-dash UUID form.
const UUID_GROUPS: [usize; 5] = [8, 4, 4, 4, 12];

/// Calls `f` for every whole ID token in `hay`, in order: 26-character ULIDs (first character
/// 0-7), 32-hex and 8-4-4-4-12 UUIDs.
///
/// On x86_64 a vector pass classifies 64 bytes at a time and marks the few alphanumeric runs
/// that can start an ID (exactly 26 or 32 long, or 8 long and followed by `-`); only those
/// get decoded. Other targets use [`for_each_token_scalar`].
pub fn for_each_token(hay: &[u8], mut f: impl FnMut(Hit)) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU supports AVX-512 F and BW, checked just above.
            return unsafe { x86::tokens_avx512(hay, &mut f) };
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return unsafe { x86::tokens_avx2(hay, &mut f) };
        }
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe { x86::tokens_sse2(hay, &mut f) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for_each_token_scalar(hay, &mut f)
}

/// The same hits as [`for_each_token`], one byte at a time: the path for targets without a
/// vector one, and the reference the vector paths are tested and benchmarked against. Works
/// on maximal alphanumeric runs, so the boundary rule holds by construction.
pub fn for_each_token_scalar(hay: &[u8], mut f: impl FnMut(Hit)) {
    let n = hay.len();
    let mut i = 0;
    // The dashed-UUID chain seen so far: groups matched, where it started, where the last
    // group ended.
    let mut groups = 0usize;
    let mut chain_start = 0usize;
    let mut prev_end = usize::MAX;
    while i < n {
        while i < n && !ALNUM[hay[i] as usize] {
            i += 1;
        }
        if i == n {
            break;
        }
        let start = i;
        let mut all_hex = true;
        while i < n && ALNUM[hay[i] as usize] {
            all_hex &= HEX[hay[i] as usize];
            i += 1;
        }
        let len = i - start;
        let follows_dash = prev_end != usize::MAX && start == prev_end + 1 && hay[prev_end] == b'-';
        if all_hex && groups > 0 && follows_dash && len == UUID_GROUPS[groups] {
            groups += 1;
        } else if all_hex && len == UUID_GROUPS[0] {
            groups = 1;
            chain_start = start;
        } else {
            groups = 0;
        }
        prev_end = i;
        let found = if groups == UUID_GROUPS.len() {
            groups = 0;
            id::decode_dashed(&hay[chain_start..i]).map(|id| (chain_start, Shape::UuidDashed, id))
        } else if len == ULID_LEN {
            id::decode_ulid(&hay[start..i]).map(|id| (start, Shape::Ulid, id))
        } else if len == UUID_UNDASHED_LEN && all_hex {
            id::decode_hex(&hay[start..i]).map(|id| (start, Shape::UuidUndashed, id))
        } else {
            None
        };
        if let Some((start, shape, id)) = found {
            debug_assert_eq!(i - start, shape.width());
            f(Hit {
                start,
                end: i,
                shape,
                id,
                query: 0,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(ids: &[&str], hay: &str) -> Vec<(usize, usize)> {
        let ids: Vec<Id> = ids.iter().map(|s| id::parse(s).unwrap().id).collect();
        let m = Matcher::new(&ids);
        let mut out = Vec::new();
        m.find(hay.as_bytes(), &mut out);
        out.iter().map(|h| (h.start, h.end)).collect()
    }

    const ULID: &str = "01kb2x1x0m4v6f9a1t8e3q7c5d";

    #[test]
    fn finds_every_form_of_one_id() {
        let uuid = id::parse(ULID).unwrap().id.uuid();
        let hex = id::parse(ULID).unwrap().id.hex().to_uppercase();
        let hay = format!(
            "a {ULID} b {} c {uuid} d {} e {{{uuid}}} f user_{ULID}\n",
            ULID.to_uppercase(),
            hex
        );
        let found = hits(&[ULID], &hay);
        let texts: Vec<&str> = found.iter().map(|&(s, e)| &hay[s..e]).collect();
        assert_eq!(
            texts,
            vec![
                ULID.to_string(),
                ULID.to_uppercase(),
                uuid.clone(),
                hex,
                uuid,
                ULID.to_string()
            ]
        );
    }

    #[test]
    fn glued_to_letters_or_digits_is_not_a_match() {
        for hay in [
            format!("x{ULID}"),
            format!("{ULID}z"),
            format!("1{ULID}"),
            format!("{ULID}0"),
        ] {
            assert!(hits(&[ULID], &hay).is_empty(), "{hay}");
        }
        for hay in [
            format!("req-{ULID}"),
            format!("_{ULID}/"),
            format!("\"{ULID}\""),
            format!("order={ULID},"),
        ] {
            assert_eq!(hits(&[ULID], &hay).len(), 1, "{hay}");
        }
    }

    #[test]
    fn token_walk_finds_shapes() {
        let hay = b"x 01KB2X1X0M4V6F9A1T8E3Q7C5D req-3ea4052c-895d-4b64-9e2d-04d64c4d94ab 54fadb412c4e40cdbaed9335e4c35a9e 81KB2X1X0M4V6F9A1T8E3Q7C5D";
        let mut shapes = Vec::new();
        for_each_token(hay, |h| shapes.push((h.shape, h.start)));
        assert_eq!(
            shapes,
            vec![
                (Shape::Ulid, 2),
                (Shape::UuidDashed, 33),
                (Shape::UuidUndashed, 70)
            ]
        );
    }

    #[test]
    fn shared_probes_sit_where_both_tails_are_rare() {
        // Digits are the commonest bytes in logs: the prefilter should compare the letters,
        // and at offsets where both tails have one.
        let ulid_tail = b"0q00z0000x000000";
        let uuid_tail = b"0b00f0000d00";
        assert_eq!(pick_shared(ulid_tail, uuid_tail), [1, 4, 9]);
    }

    #[test]
    fn no_query_finds_nothing() {
        let mut out = Vec::new();
        Matcher::new(&[]).find(format!("x {ULID} y").as_bytes(), &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn many_ids_use_the_sampled_filter() {
        let ids: Vec<String> = (0..10u128).map(|i| Id(i << 100 | 12345).ulid()).collect();
        let refs: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
        let hay = format!("{} {} {}", ids[3], ULID, ids[9].to_uppercase());
        let m = Matcher::new(
            &ids.iter()
                .map(|s| id::parse(s).unwrap().id)
                .collect::<Vec<_>>(),
        );
        assert!(matches!(m.strategy, Strategy::Sampled(_)));
        let mut out = Vec::new();
        m.find(hay.as_bytes(), &mut out);
        assert_eq!(out.iter().map(|h| h.query).collect::<Vec<_>>(), vec![3, 9]);
        assert_eq!(hits(&refs[..2], &hay).len(), 0);
    }
    #[test]
    fn the_sampled_filter_finds_what_the_token_walk_finds() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // IDs of one millisecond share their time prefix: only the tails tell them apart.
        let prefix = 0x0194_a1b2_c3d4u128 << 80;
        let ids: Vec<Id> = (0..300)
            .map(|i| {
                let random = ((next() as u128) << 64 | next() as u128) & ((1 << 80) - 1);
                Id(if i % 2 == 0 {
                    prefix | random
                } else {
                    random << 48 | i
                })
            })
            .collect();
        let others: Vec<Id> = (0..50).map(|_| Id(prefix | next() as u128)).collect();
        let mut hay = Vec::new();
        while hay.len() < 200_000 {
            let pool = if next() % 3 == 0 { &others } else { &ids };
            let id = pool[(next() % pool.len() as u64) as usize];
            let text = match next() % 7 {
                0 => id.ulid(),
                1 => id.ulid().to_uppercase(),
                2 => id.uuid(),
                3 => format!("{{{}}}", id.uuid().to_uppercase()),
                4 => id.hex(),
                5 => format!("x{}", id.ulid()),
                _ => "text 0123456789abcdef-0123 ".to_string(),
            };
            hay.extend_from_slice(text.as_bytes());
            hay.push(b" \n-_=:"[(next() % 6) as usize]);
        }
        let sampled = Matcher::new(&ids);
        let walk = Matcher {
            strategy: Strategy::Tokens(ids.iter().enumerate().map(|(i, id)| (id.0, i)).collect()),
        };
        let Strategy::Sampled(searcher) = &sampled.strategy else {
            unreachable!()
        };
        let end = hay.len();
        for len in (end - 40..=end).chain([1000, 129, 128, 127, 23, 7, 0]) {
            let (mut got, mut want) = (Vec::new(), Vec::new());
            sampled.find(&hay[..len], &mut got);
            walk.find(&hay[..len], &mut want);
            assert_eq!(got, want, "length {len}");
            assert!(len < 1000 || !want.is_empty());
            // The scalar loop too, where the CPU has a vector one.
            let mut scalar = Vec::new();
            searcher.find_scalar(&hay[..len], 0, &mut 0, &mut scalar);
            assert_eq!(scalar, want, "length {len}, scalar");
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod simd_tests {
    use super::*;

    type VectorPath = unsafe fn(&PairSearcher, &[u8], &mut Vec<Hit>);

    /// The AVX-512 path as the others are called: without newline counting.
    ///
    /// SAFETY: the CPU must support AVX-512 F and BW.
    unsafe fn find_avx512(s: &PairSearcher, hay: &[u8], hits: &mut Vec<Hit>) {
        // SAFETY: as the caller promises.
        unsafe { x86::find_avx512(s, hay, hits, None) };
    }

    /// Every vector path this CPU has must agree with the byte-at-a-time path.
    #[test]
    fn every_vector_path_agrees_with_the_scalar_one() {
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for queries in 1..=MAX_PAIR_QUERIES {
            let ids: Vec<(u128, usize)> = (0..queries)
                .map(|q| (((next() as u128) << 64) | next() as u128, q))
                .collect();
            let searcher = PairSearcher::new(&ids);
            let mut hay = Vec::new();
            while hay.len() < 20_000 {
                let id = Id(ids[(next() % queries as u64) as usize].0);
                let text = match next() % 4 {
                    0 => id.ulid(),
                    1 => id.uuid().to_uppercase(),
                    2 => id.hex(),
                    _ => "padding text, 0123456789 abcdef".to_string(),
                };
                hay.extend_from_slice(text.as_bytes());
                hay.push(b" \n-_x"[(next() % 5) as usize]);
            }
            let mut expected = Vec::new();
            searcher.find_scalar(&hay, 0, &mut expected);
            expected.sort_unstable_by_key(|h| h.start);
            assert!(!expected.is_empty());
            let mut paths: Vec<(&str, VectorPath)> = vec![("sse2", x86::find_sse2)];
            if std::is_x86_feature_detected!("avx2") {
                paths.push(("avx2", x86::find_avx2));
            }
            if std::is_x86_feature_detected!("avx512bw") {
                paths.push(("avx512", find_avx512));
            }
            for (name, find) in paths {
                // Every length, so each path's scalar tail is exercised too.
                for len in [hay.len(), hay.len() - 1, hay.len() - 63, 100, 37, 0] {
                    let mut got = Vec::new();
                    // SAFETY: only paths the CPU supports are in the list.
                    unsafe { find(&searcher, &hay[..len], &mut got) };
                    got.sort_unstable_by_key(|h| h.start);
                    let mut want = Vec::new();
                    searcher.find_scalar(&hay[..len], 0, &mut want);
                    want.sort_unstable_by_key(|h| h.start);
                    assert_eq!(got, want, "{name}, {queries} queries, length {len}");
                }
            }
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod token_simd_tests {
    use super::*;

    /// Checks every vector path this CPU has against the scalar walk on `hay`; returns the
    /// scalar hits.
    fn agree(hay: &[u8], what: &str) -> Vec<Hit> {
        let mut want = Vec::new();
        for_each_token_scalar(hay, |h| want.push(h));
        for name in ["sse2", "avx2", "avx512"] {
            let mut got = Vec::new();
            let mut push = |h| got.push(h);
            // SAFETY: each path runs only if the CPU has its features (SSE2 always).
            unsafe {
                match name {
                    "sse2" => x86::tokens_sse2(hay, &mut push),
                    "avx2" if std::is_x86_feature_detected!("avx2") => {
                        x86::tokens_avx2(hay, &mut push)
                    }
                    "avx512" if std::is_x86_feature_detected!("avx512bw") => {
                        x86::tokens_avx512(hay, &mut push)
                    }
                    _ => continue,
                }
            }
            assert_eq!(
                got,
                want,
                "{name}, {what}: {:?}",
                String::from_utf8_lossy(hay)
            );
        }
        want
    }

    /// splitmix64, so a failure reproduces from its seed.
    fn rng(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
    }

    const ALNUM: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const HEX_DIGITS: &[u8] = b"0123456789abcdefABCDEF";

    /// An ID rendering, a near miss of one, or filler that looks like neither.
    fn piece(next: &mut impl FnMut() -> u64) -> Vec<u8> {
        let id = Id((next() as u128) << 64 | next() as u128);
        let mut below = |n: usize| (next() % n as u64) as usize;
        let mut ulid = id.ulid_bytes().to_vec();
        if below(2) == 0 {
            ulid.make_ascii_uppercase();
        }
        let mut hex = id.hex_bytes().to_vec();
        let mut dashed = id.uuid_bytes().to_vec();
        if below(3) == 0 {
            hex.make_ascii_uppercase();
            dashed.make_ascii_uppercase();
        }
        let dash_at = [8, 13, 18, 23][below(4)];
        match below(16) {
            0 => ulid,
            1 => {
                // First character 8-9 or a letter: does not fit in 128 bits.
                ulid[0] = b"89AZaz"[below(6)];
                ulid
            }
            2 => {
                // 25 or 27 characters.
                if below(2) == 0 {
                    ulid.pop();
                } else {
                    ulid.push(ALNUM[below(ALNUM.len())]);
                }
                ulid
            }
            3 => {
                // A letter Crockford leaves out.
                ulid[1 + below(25)] = b"uUiIlLoO"[below(8)];
                ulid
            }
            4 => hex,
            5 => {
                match below(3) {
                    0 => hex.truncate(31),
                    1 => hex.push(HEX_DIGITS[below(HEX_DIGITS.len())]),
                    _ => hex[below(32)] = b"gGzZ"[below(4)],
                }
                hex
            }
            6 | 7 => dashed,
            8 => {
                // One group a digit short or long.
                let at = [0, 9, 14, 19, 24][below(5)] + below(4);
                if below(2) == 0 {
                    dashed.remove(at);
                } else {
                    dashed.insert(at, HEX_DIGITS[below(HEX_DIGITS.len())]);
                }
                dashed
            }
            9 => {
                // Double dash, a dash missing or replaced.
                match below(3) {
                    0 => dashed.insert(dash_at, b'-'),
                    1 => drop(dashed.remove(dash_at)),
                    _ => dashed[dash_at] = b"_. "[below(3)],
                }
                dashed
            }
            10 => {
                // A non-hex digit in a group, or an extra group on either side.
                match below(3) {
                    0 => dashed[[0, 9, 14, 19, 24][below(5)]] = b"gG"[below(2)],
                    1 => drop(dashed.splice(0..0, *b"abcd-")),
                    _ => dashed.extend_from_slice(b"-abcd"),
                }
                dashed
            }
            11 => {
                // An 8-hex group and a dash, then anything.
                let mut out: Vec<u8> = (0..8)
                    .map(|_| HEX_DIGITS[below(HEX_DIGITS.len())])
                    .collect();
                out.push(b'-');
                out
            }
            12 => (0..below(300)).map(|_| ALNUM[below(ALNUM.len())]).collect(),
            _ => {
                // Words, with the interesting lengths more likely than their share.
                let len = [1, 3, 7, 8, 9, 12, 16, 25, 26, 27, 31, 32, 33][below(13)];
                (0..len).map(|_| ALNUM[below(ALNUM.len())]).collect()
            }
        }
    }

    /// Haystacks of pieces and separators: spaces, dashes, CRLF, non-ASCII bytes, and
    /// nothing at all, which glues the pieces to their neighbours.
    fn haystack(next: &mut impl FnMut() -> u64, len: usize) -> Vec<u8> {
        const SEPARATORS: &[&[u8]] = &[
            b" ",
            b" ",
            b"-",
            b"--",
            b"\n",
            b"\r\n",
            b"\t",
            b"\"",
            b":",
            b"=",
            b"_",
            b".",
            b"/",
            b"{",
            b"}",
            b"\0",
            b"\x7f",
            b"\x80",
            b"\xff",
            b"\xc3\xa9",
            b"",
        ];
        let mut hay = Vec::new();
        while hay.len() < len {
            hay.extend(piece(next));
            hay.extend_from_slice(SEPARATORS[(next() % SEPARATORS.len() as u64) as usize]);
        }
        hay.truncate(len);
        hay
    }

    #[test]
    fn every_path_agrees_with_the_scalar_walk_on_near_misses() {
        let mut next = rng(0x5eed);
        let mut hits = 0;
        for round in 0..3000 {
            let len = (next() % 400) as usize;
            let hay = haystack(&mut next, len);
            hits += agree(&hay, &format!("round {round}")).len();
        }
        assert!(hits > 1000, "the generator planted too few IDs: {hits}");
    }

    #[test]
    fn every_path_agrees_at_every_block_offset() {
        let mut next = rng(0xb10c);
        let hay = haystack(&mut next, 6000);
        for from in 0..64 {
            for trim in [0, 1, 2, 31, 63] {
                agree(&hay[from..hay.len() - trim], &format!("{from}..-{trim}"));
            }
        }
    }

    #[test]
    fn tokens_at_every_offset_and_at_the_ends() {
        let id = Id(0x0123_4567_89ab_cdef_0fed_cba9_8765_4321);
        let ulid = id.ulid();
        let dashed = id.uuid().to_uppercase();
        let hex = id.hex();
        // Each with the number of IDs it holds.
        let tokens = [
            (ulid.clone(), 1),
            (dashed.clone(), 1),
            (hex.clone(), 1),
            (format!("{dashed}-"), 1),
            (format!("-{dashed}"), 1),
            (format!("{ulid}x"), 0),
            (format!("x{hex}"), 0),
            (ulid[1..].to_string(), 0),
            (hex[1..].to_string(), 0),
            (format!("{dashed}0"), 0),
            (format!("0{dashed}"), 0),
            (dashed[..35].to_string(), 0),
            (dashed.replacen('-', "--", 1), 0),
            (format!("{}-{}", &hex[..8], &hex[8..]), 0),
        ];
        for (token, expect) in tokens {
            for pad in 0..140 {
                for after in [0, 1, 7, 64] {
                    let mut hay = vec![b' '; pad];
                    hay.extend_from_slice(token.as_bytes());
                    hay.extend(std::iter::repeat_n(b'\n', after));
                    let found = agree(&hay, &format!("{token} at {pad}"));
                    assert_eq!(found.len(), expect, "{token} at {pad}");
                }
            }
        }
    }

    #[test]
    fn every_path_agrees_on_huge_runs() {
        let ulid = Id(u128::MAX >> 3).ulid();
        let mut hays: Vec<Vec<u8>> = vec![
            vec![b'a'; 10_000],
            vec![b'7'; 10_001],
            b"0123456789abcdef".repeat(1000),
            b"abcdef01-".repeat(1000),
            b"abcd-".repeat(1000),
            vec![b'-'; 1000],
        ];
        // An ID glued to the end of a long run, beginning on a block edge and either side
        // of it, then the same ID standing alone.
        for run in [64 * 79 - 1, 64 * 79, 64 * 79 + 1] {
            for token in [ulid.clone(), Id(u128::MAX >> 3).uuid()] {
                let mut glued = vec![b'f'; run];
                glued.extend_from_slice(token.as_bytes());
                glued.push(b' ');
                glued.extend_from_slice(token.as_bytes());
                hays.push(glued);
            }
        }
        for hay in hays {
            let found = agree(&hay, "huge run");
            assert!(found.len() <= 1);
        }
    }
}
