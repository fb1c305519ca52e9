//! The searcher for many known IDs (up to thousands): samples the buffer against a Bloom
//! filter of the IDs' renderings, and verifies the windows that pass with the token walk.

use std::collections::HashMap;

#[cfg(target_arch = "x86_64")]
mod avx512;

#[cfg(target_arch = "x86_64")]
use super::simd::Level;
use super::simd::Simd;
use super::{Hit, Numbering, for_each_token_at};
use crate::id::{self, Id, ULID_LEN, UUID_UNDASHED_LEN};

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
pub(super) struct SampledSearcher {
    pub(super) words: Vec<u64>,
    /// 64 minus log2 of the number of words: the shift that turns a hash into a word index.
    pub(super) shift: u32,
    windows: std::collections::HashSet<u64, foldhash::fast::FixedState>,
    ids: HashMap<u128, usize, foldhash::fast::RandomState>,
}

/// The sampling stride and window: every tail is `TAIL = STRIDE + WINDOW - 1` bytes.
pub(super) const STRIDE: usize = 16;
const WINDOW: usize = 8;
const TAIL: usize = STRIDE + WINDOW - 1;
/// Windows looked up per step of the loop: independent loads the CPU overlaps, one branch.
const UNROLL: usize = 4;
/// Lowercases the ASCII letters of eight bytes at once.
pub(super) const FOLD: u64 = 0x2020_2020_2020_2020;
/// Filter bits per stored window: about 1 in 250 windows passes the filter by chance. Half
/// the filter of 64 bits (1 in 1000) keeps more of it in the caches, which outweighs the
/// extra exact checks: `timeline --related` (1000 IDs) took 5-8% less time, same output.
const BITS_PER_WINDOW: usize = 32;

/// The multiplier of the filter's hash: the golden ratio in 64 bits.
pub(super) const FILTER_MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

/// The filter word and the two bits of a folded window, from one product: the word from its
/// top bits (which depend on every byte of the window), the bits from two 6-bit fields below.
#[inline(always)]
fn filter_probe(window: u64, shift: u32) -> (usize, u64) {
    let h = window.wrapping_mul(FILTER_MULTIPLIER);
    let bits = 1 << ((h >> 20) & 63) | 1 << ((h >> 26) & 63);
    ((h >> shift) as usize, bits)
}

impl SampledSearcher {
    pub(super) fn new(ids: HashMap<u128, usize, foldhash::fast::RandomState>) -> SampledSearcher {
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
    // Only the AVX-512 loop counts newlines; the other levels leave `numbering` alone.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(super) fn find(
        &self,
        simd: Simd,
        hay: &[u8],
        hits: &mut Vec<Hit>,
        numbering: Option<&mut Numbering>,
    ) -> Option<u64> {
        let mut last_end = 0;
        // The narrower vectors gain nothing over the scalar probe.
        #[cfg(target_arch = "x86_64")]
        if simd.level() == Level::Avx512 {
            // SAFETY: a `Simd` at this level exists only when the CPU has AVX-512 F, DQ, BW
            // and POPCNT.
            let (from, cum) =
                unsafe { avx512::sampled(self, simd, hay, &mut last_end, hits, numbering) };
            self.find_scalar(simd, hay, from, &mut last_end, hits);
            return cum.map(|cum| cum + super::count_newlines(&hay[from..]));
        }
        self.find_scalar(simd, hay, 0, &mut last_end, hits);
        None
    }

    /// Probes the windows at `from`, `from + 16` ... (`from` a multiple of 16).
    pub(super) fn find_scalar(
        &self,
        simd: Simd,
        hay: &[u8],
        from: usize,
        last_end: &mut usize,
        hits: &mut Vec<Hit>,
    ) {
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
                self.check(simd, hay, from + g * step + j * STRIDE, last_end, hits);
            }
        }
        // The last sampled positions, up to the last whole window.
        let mut at = hay.len() - groups.remainder().len();
        while at + WINDOW <= hay.len() {
            let window = u64::from_le_bytes(hay[at..at + WINDOW].try_into().unwrap()) | FOLD;
            let (word, bits) = filter_probe(window, shift);
            if words[word] & bits == bits {
                self.check(simd, hay, at, last_end, hits);
            }
            at += STRIDE;
        }
    }

    /// A window that passed the filter: is it really a tail window, and of a whole token?
    pub(super) fn check(
        &self,
        simd: Simd,
        hay: &[u8],
        at: usize,
        last_end: &mut usize,
        hits: &mut Vec<Hit>,
    ) {
        let window = u64::from_le_bytes(hay[at..at + WINDOW].try_into().unwrap()) | FOLD;
        if self.windows.contains(&window) {
            self.verify(simd, hay, at, last_end, hits);
        }
    }

    /// Decodes the tokens around the window at `at` and keeps the known ones that overlap it.
    /// The slice walked is widened to bytes that cannot be part of a token (or the buffer's
    /// ends), so its token boundaries are those of the whole buffer.
    fn verify(&self, simd: Simd, hay: &[u8], at: usize, last_end: &mut usize, hits: &mut Vec<Hit>) {
        let part_of_token = |b: u8| b.is_ascii_alphanumeric() || b == b'-';
        let mut start = at;
        while start > 0 && part_of_token(hay[start - 1]) {
            start -= 1;
        }
        let mut end = at + WINDOW;
        while end < hay.len() && part_of_token(hay[end]) {
            end += 1;
        }
        for_each_token_at(simd, &hay[start..end], &mut |mut hit: Hit| {
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
