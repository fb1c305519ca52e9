//! The packed-pair loop for SSE2 and AVX2, generic over the vector width: folding with
//! `| 0x20` lowercases ASCII letters and leaves digits and `-` as they are; the few other
//! bytes it maps onto a needle byte (control bytes onto digits) only add candidates, which
//! verification rejects.
//!
//! Every `unsafe fn` here needs the CPU features its doc names, on top of its own contract;
//! the dispatcher in the parent module holds a [`crate::scan::simd::Simd`] for them.

use std::arch::x86_64::*;

use super::{Needle, PairSearcher};
use crate::scan::Hit;
use crate::scan::x86::Vector;

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
