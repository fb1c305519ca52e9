//! The x86_64 vector kernels of the three searchers, for SSE2, AVX2 and AVX-512.
//!
//! The packed-pair loop (here for SSE2 and AVX2, generic over the vector width; `avx512` has
//! its own): folding with `| 0x20` lowercases ASCII letters and leaves digits and `-` as they
//! are; the few other bytes it maps onto a needle byte (control bytes onto digits) only add
//! candidates, which verification rejects.
//!
//! The token walk (`tokens`) for the same three: each 64-byte block becomes three bit masks
//! (letters and digits, hex digits, dashes), and bit arithmetic on them finds the runs worth
//! decoding and checks the UUID shapes. With AVX2 and AVX-512, the shuffle decoders of
//! `id::sse41` then decode the IDs.
//!
//! The sampled searcher's probe has an AVX-512 loop only (`avx512`).
//!
//! Every `unsafe fn` here needs the CPU features its doc names, on top of its own contract;
//! the dispatchers in the parent module hold a [`super::simd::Simd`] for them.

pub(super) mod avx512;
pub(super) mod tokens;

use super::Hit;
use super::pairs::{Needle, PairSearcher};
use std::arch::x86_64::*;

/// One vector width's byte operations, for the loops generic over SSE2 and AVX2.
///
/// Every method needs the CPU to have the width's features: SSE2 for `__m128i` (every x86_64
/// CPU), AVX2 for `__m256i`.
trait Vector: Copy {
    const LANES: usize;
    /// Every lane `b`.
    ///
    /// # Safety
    /// The CPU must have the width's features.
    unsafe fn splat(b: u8) -> Self;
    /// The `LANES` bytes at `p`, unaligned.
    ///
    /// # Safety
    /// The CPU must have the width's features, and `p..p + LANES` must be readable.
    unsafe fn load(p: *const u8) -> Self;
    /// Lane k is all ones when lane k of `self | 0x20` equals `needle`'s lane and the same
    /// holds for `other` against `needle2`.
    ///
    /// # Safety
    /// The CPU must have the width's features.
    unsafe fn pair(self, needle: Self, other: Self, needle2: Self, fold: Self) -> Self;
    /// # Safety
    /// The CPU must have the width's features.
    unsafe fn or(self, other: Self) -> Self;
    /// Bit k: the top bit of lane k.
    ///
    /// # Safety
    /// The CPU must have the width's features.
    unsafe fn movemask(self) -> u32;
    /// Lane k is all ones when lane k of `self` equals lane k of `other`.
    ///
    /// # Safety
    /// The CPU must have the width's features.
    unsafe fn eq(self, other: Self) -> Self;
    /// Lanes that are ASCII letters or digits, and lanes that are hex digits: all ones
    /// where true.
    ///
    /// # Safety
    /// The CPU must have the width's features.
    unsafe fn alnum_hex(self) -> (Self, Self);
}

impl Vector for __m128i {
    const LANES: usize = 16;
    /// # Safety
    /// The CPU must have SSE2.
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        unsafe { _mm_set1_epi8(b as i8) }
    }
    /// # Safety
    /// The CPU must have SSE2, and `p..p + 16` must be readable.
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller keeps p..p+16 inside the haystack.
        unsafe { _mm_loadu_si128(p as *const __m128i) }
    }
    /// # Safety
    /// The CPU must have SSE2.
    #[inline(always)]
    unsafe fn pair(self, needle: Self, other: Self, needle2: Self, fold: Self) -> Self {
        unsafe {
            let a = _mm_cmpeq_epi8(_mm_or_si128(self, fold), needle);
            let b = _mm_cmpeq_epi8(_mm_or_si128(other, fold), needle2);
            _mm_and_si128(a, b)
        }
    }
    /// # Safety
    /// The CPU must have SSE2.
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        unsafe { _mm_or_si128(self, other) }
    }
    /// # Safety
    /// The CPU must have SSE2.
    #[inline(always)]
    unsafe fn movemask(self) -> u32 {
        unsafe { _mm_movemask_epi8(self) as u32 }
    }
    /// # Safety
    /// The CPU must have SSE2.
    #[inline(always)]
    unsafe fn eq(self, other: Self) -> Self {
        unsafe { _mm_cmpeq_epi8(self, other) }
    }
    /// # Safety
    /// The CPU must have SSE2.
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
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        unsafe { _mm256_set1_epi8(b as i8) }
    }
    /// # Safety
    /// The CPU must have AVX2, and `p..p + 32` must be readable.
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller keeps p..p+32 inside the haystack.
        unsafe { _mm256_loadu_si256(p as *const __m256i) }
    }
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn pair(self, needle: Self, other: Self, needle2: Self, fold: Self) -> Self {
        unsafe {
            let a = _mm256_cmpeq_epi8(_mm256_or_si256(self, fold), needle);
            let b = _mm256_cmpeq_epi8(_mm256_or_si256(other, fold), needle2);
            _mm256_and_si256(a, b)
        }
    }
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        unsafe { _mm256_or_si256(self, other) }
    }
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn movemask(self) -> u32 {
        unsafe { _mm256_movemask_epi8(self) as u32 }
    }
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn eq(self, other: Self) -> Self {
        unsafe { _mm256_cmpeq_epi8(self, other) }
    }
    /// # Safety
    /// The CPU must have AVX2.
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
///
/// # Safety
/// The CPU must have `V`'s features.
#[inline(always)]
unsafe fn find_any<V: Vector>(s: &PairSearcher, hay: &[u8], hits: &mut Vec<Hit>) {
    // SAFETY (all arms): the caller's promise is the one the callee needs.
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

/// The packed-pair loop for `N` needles, then the scalar loop over the bytes left.
///
/// # Safety
/// The CPU must have `V`'s features, and `s` must have `N` needles.
#[inline(always)]
unsafe fn find_fixed<V: Vector, const N: usize>(s: &PairSearcher, hay: &[u8], hits: &mut Vec<Hit>) {
    // SAFETY: the vector feature is enabled by the caller.
    let fold = unsafe { V::splat(0x20) };
    let needles: &[Needle; N] = s.needles[..].try_into().expect("N needles");
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
    /// # Safety
    /// The CPU must have `V`'s features, and `base + p .. base + p + reach + LANES` must be
    /// readable (`reach` of the searcher, at least `i2[n]`).
    #[inline(always)]
    unsafe fn block(&self, p: usize, n: usize) -> V {
        // SAFETY: as the caller promises; i1 < i2 <= reach.
        unsafe {
            let x = V::load(self.base.add(p + self.i1[n]));
            let y = V::load(self.base.add(p + self.i2[n]));
            x.pair(self.b1[n], y, self.b2[n], self.fold)
        }
    }
}

/// The packed-pair loop with 32-byte vectors.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(in crate::scan) unsafe fn find_pairs_avx2(s: &PairSearcher, hay: &[u8], hits: &mut Vec<Hit>) {
    // SAFETY: the caller's features are the ones the loop needs.
    unsafe { find_any::<__m256i>(s, hay, hits) }
}

/// The packed-pair loop with 16-byte vectors.
///
/// # Safety
/// The CPU must have SSE2 (every x86_64 CPU does).
#[target_feature(enable = "sse2")]
pub(in crate::scan) unsafe fn find_pairs_sse2(s: &PairSearcher, hay: &[u8], hits: &mut Vec<Hit>) {
    // SAFETY: the caller's features are the ones the loop needs.
    unsafe { find_any::<__m128i>(s, hay, hits) }
}
