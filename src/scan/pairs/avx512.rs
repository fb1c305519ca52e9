//! The packed-pair loop with 64 lanes and mask registers, with shared probes and newline
//! counting.

use std::arch::x86_64::*;

use super::{PairSearcher, SHARED_PROBES};
use crate::scan::{Hit, Numbering, count_newlines};

/// The same loop with 64 lanes and mask registers: the compares write bit masks
/// directly, which halves the instructions per byte against AVX2.
///
/// With `numbering`, newlines are counted too: their total, or `None` for a buffer too
/// short for the vector loop.
///
/// # Safety
/// The CPU must have AVX-512 F and BW and POPCNT (the loop below enables POPCNT too).
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn find_pairs(
    s: &PairSearcher,
    hay: &[u8],
    hits: &mut Vec<Hit>,
    numbering: Option<&mut Numbering>,
) -> Option<u64> {
    // SAFETY (both arms): the caller's features are the ones the callee needs.
    unsafe {
        match numbering {
            Some(n) => dispatch_512::<true>(s, hay, hits, Some(n)),
            None => dispatch_512::<false>(s, hay, hits, None),
        }
    }
}

/// Dispatches on the query count, so the loop is compiled for a fixed count.
///
/// # Safety
/// The CPU must have AVX-512 F and BW and POPCNT.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn dispatch_512<const COUNT: bool>(
    s: &PairSearcher,
    hay: &[u8],
    hits: &mut Vec<Hit>,
    numbering: Option<&mut Numbering>,
) -> Option<u64> {
    // SAFETY (all arms): the caller's features are the ones the callee needs.
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
///
/// # Safety
/// The CPU must have AVX-512 F and BW and POPCNT. `s` has `Q` queries.
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
/// # Safety
/// The CPU must have AVX-512 F and BW and POPCNT, and `base + at .. base + at + 64` must be
/// readable.
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
    /// # Safety
    /// The CPU must have AVX-512 F and BW, and `base + p .. base + p + reach + 64` must be
    /// readable (`reach` of the searcher this probe belongs to, at least every offset in
    /// `at`).
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
/// # Safety
/// The CPU must have AVX-512 F and BW and POPCNT, and `base + p .. base + limit + reach + 64`
/// must be readable (`reach` of the searcher the probes belong to).
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
