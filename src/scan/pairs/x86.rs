//! The packed-pair loop for SSE2 and AVX2, generic over the vector width: folding with
//! `| 0x20` lowercases ASCII letters and leaves digits and `-` as they are; the few other
//! bytes it maps onto a needle byte (control bytes onto digits) only add candidates, which
//! verification rejects.
//!
//! Every `unsafe fn` here needs the CPU features its doc names, on top of its own contract;
//! the dispatcher in the parent module holds a [`crate::scan::simd::Simd`] for them.

use std::arch::x86_64::*;

use super::PairSearcher;
use crate::scan::Hit;
use crate::scan::x86::Vector;

/// Dispatches on the count of needles scanned, so the loop below is compiled for a fixed
/// count and keeps every splat in a register (one or two needles per query ID).
///
/// # Safety
/// The CPU must have `V`'s features.
#[inline(always)]
unsafe fn find_any<V: Skip>(s: &PairSearcher, hay: &[u8], hits: &mut Vec<Hit>) {
    // SAFETY (all arms): the caller's promise is the one the callee needs.
    unsafe {
        match (s.scanned.len(), s.shared_pair.is_some()) {
            (1, false) => find_fixed::<V, 1, false>(s, hay, hits),
            (2, false) => find_fixed::<V, 2, false>(s, hay, hits),
            (3, true) => find_fixed::<V, 3, true>(s, hay, hits),
            (4, false) => find_fixed::<V, 4, false>(s, hay, hits),
            (5, false) => find_fixed::<V, 5, false>(s, hay, hits),
            (6, false) => find_fixed::<V, 6, false>(s, hay, hits),
            (7, false) => find_fixed::<V, 7, false>(s, hay, hits),
            (8, false) => find_fixed::<V, 8, false>(s, hay, hits),
            (n, shared) => unreachable!(
                "{n} needles (shared offsets: {shared}): one or two per query, at most four \
                 queries, shared for three exactly"
            ),
        }
    }
}

/// The packed-pair loop for `N` needles, compared at one pair of offsets when `SHARED`, then
/// the scalar loop over the bytes left.
///
/// # Safety
/// The CPU must have `V`'s features, `s` must scan `N` needles, and have a shared pair when
/// `SHARED`.
#[inline(always)]
unsafe fn find_fixed<V: Skip, const N: usize, const SHARED: bool>(
    s: &PairSearcher,
    hay: &[u8],
    hits: &mut Vec<Hit>,
) {
    let scanned: &[usize; N] = s.scanned[..].try_into().expect("N needles");
    let needle = |k: usize| &s.needles[scanned[k]];
    // SAFETY: the vector feature is enabled by the caller.
    let pairs = unsafe {
        Pairs::<V, N, SHARED> {
            fold: V::splat(0x20),
            b1: std::array::from_fn(|k| V::splat(needle(k).bytes[needle(k).i1])),
            b2: std::array::from_fn(|k| V::splat(needle(k).bytes[needle(k).i2])),
            i1: std::array::from_fn(|k| needle(k).i1),
            i2: std::array::from_fn(|k| needle(k).i2),
        }
    };
    let base = hay.as_ptr();
    // The last round start whose two vectors' loads all end within hay.
    let Some(last) = hay.len().checked_sub(s.reach + 2 * V::LANES) else {
        s.find_scalar(hay, 0, hits);
        return;
    };
    let mut p = 0;
    loop {
        // SAFETY: rounds start at or before `last`, so their loads end within hay.
        p = unsafe { V::skip(&pairs, base, p, last) };
        if p > last {
            break;
        }
        // SAFETY: as above.
        unsafe { verify_round(s, scanned, &pairs, hay, p, 0, hits) };
        p += 2 * V::LANES;
    }
    // The starts after the last whole round: one more round, at the last start whose loads
    // end within hay, without the starts already seen; then byte at a time, the starts of
    // needles shorter than another's `reach` that lie beyond it. An index lookup searches
    // thousands of short ranges, each with such a tail: a round costs a few instructions
    // where the bytes one at a time cost hundreds.
    if p < last + 2 * V::LANES {
        // SAFETY: as above.
        unsafe { verify_round(s, scanned, &pairs, hay, last, p, hits) };
    }
    s.find_scalar(hay, p.max(last + 2 * V::LANES), hits);
}

/// Verifies the candidates of the round at `p` whose starts are `from` or later; `scanned`:
/// the searcher's scanned needles.
///
/// # Safety
/// The CPU must have `V`'s features, and `p + reach + 2 * LANES` must be at most
/// `hay.len()`.
#[inline(always)]
unsafe fn verify_round<V: Vector, const N: usize, const SHARED: bool>(
    s: &PairSearcher,
    scanned: &[usize; N],
    pairs: &Pairs<V, N, SHARED>,
    hay: &[u8],
    p: usize,
    from: usize,
    hits: &mut Vec<Hit>,
) {
    for start in [p, p + V::LANES] {
        let seen = from.saturating_sub(start);
        if seen >= V::LANES {
            continue;
        }
        for (k, &n) in scanned.iter().enumerate() {
            // SAFETY: as the caller promises.
            let mut mask =
                unsafe { pairs.block(hay.as_ptr(), start, k).movemask() } >> seen << seen;
            while mask != 0 {
                let bit = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                s.verify(n, hay, start + bit, hits);
            }
        }
    }
}

/// The splatted needle bytes and their offsets, for one fixed needle count. With `SHARED`,
/// every needle's offsets are the first one's, which the compiler then sees, so that it
/// loads and folds the two vectors once for all needles.
#[derive(Clone, Copy)]
struct Pairs<V, const N: usize, const SHARED: bool> {
    fold: V,
    b1: [V; N],
    b2: [V; N],
    i1: [usize; N],
    i2: [usize; N],
}

impl<V: Vector, const N: usize, const SHARED: bool> Pairs<V, N, SHARED> {
    /// Lane k is set when needle n may start at p + k.
    ///
    /// # Safety
    /// The CPU must have `V`'s features, and `base + p .. base + p + reach + LANES` must be
    /// readable (`reach` of the searcher, at least `i2[n]`).
    #[inline(always)]
    unsafe fn block(&self, base: *const u8, p: usize, n: usize) -> V {
        let at = if SHARED { 0 } else { n };
        // SAFETY: as the caller promises; i1 < i2 <= reach.
        unsafe {
            let x = V::load(base.add(p + self.i1[at]));
            let y = V::load(base.add(p + self.i2[at]));
            x.pair(self.b1[n], y, self.b2[n], self.fold)
        }
    }
}

/// The first round start from `p` on (in steps of two vectors, up to `last`) where some
/// needle may start, or a value past `last`.
///
/// # Safety
/// The CPU must have `V`'s features, and `base + p .. base + last + reach + 2 * LANES` must
/// be readable (`reach` of the searcher the pairs belong to).
#[inline(always)]
unsafe fn skip<V: Vector, const N: usize, const SHARED: bool>(
    pairs: &Pairs<V, N, SHARED>,
    base: *const u8,
    mut p: usize,
    last: usize,
) -> usize {
    let pairs = *pairs;
    // Two vectors per round, one branch: candidates are rare, so the common path is
    // loads, compares and a single test.
    while p <= last {
        // SAFETY: p <= last, as the caller promises.
        let any = unsafe {
            let mut acc = pairs
                .block(base, p, 0)
                .or(pairs.block(base, p + V::LANES, 0));
            for n in 1..N {
                acc = acc
                    .or(pairs.block(base, p, n))
                    .or(pairs.block(base, p + V::LANES, n));
            }
            acc.movemask()
        };
        if any != 0 {
            return p;
        }
        p += 2 * V::LANES;
    }
    p
}

/// A vector width's [`skip`], compiled as a function of its own that calls nothing, so the
/// splats stay in registers through the loop instead of being reloaded around the
/// verification calls.
trait Skip: Vector {
    /// # Safety
    /// As [`skip`].
    unsafe fn skip<const N: usize, const SHARED: bool>(
        pairs: &Pairs<Self, N, SHARED>,
        base: *const u8,
        p: usize,
        last: usize,
    ) -> usize;
}

/// A width's [`Skip`], its loop compiled with that width's CPU feature.
macro_rules! skip_with_feature {
    ($vector:ty, $feature:literal) => {
        impl Skip for $vector {
            /// # Safety
            /// As [`skip`]; the CPU must have the feature this width is compiled with.
            #[target_feature(enable = $feature)]
            #[inline(never)]
            unsafe fn skip<const N: usize, const SHARED: bool>(
                pairs: &Pairs<Self, N, SHARED>,
                base: *const u8,
                p: usize,
                last: usize,
            ) -> usize {
                // SAFETY: as the caller promises.
                unsafe { skip(pairs, base, p, last) }
            }
        }
    };
}

skip_with_feature!(__m256i, "avx2");
skip_with_feature!(__m128i, "sse2");

/// The packed-pair loop with 32-byte vectors.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn find_pairs_avx2(s: &PairSearcher, hay: &[u8], hits: &mut Vec<Hit>) {
    // SAFETY: the caller's features are the ones the loop needs.
    unsafe { find_any::<__m256i>(s, hay, hits) }
}

/// The packed-pair loop with 16-byte vectors.
///
/// # Safety
/// The CPU must have SSE2 (every x86_64 CPU does).
#[target_feature(enable = "sse2")]
pub(super) unsafe fn find_pairs_sse2(s: &PairSearcher, hay: &[u8], hits: &mut Vec<Hit>) {
    // SAFETY: the caller's features are the ones the loop needs.
    unsafe { find_any::<__m128i>(s, hay, hits) }
}
