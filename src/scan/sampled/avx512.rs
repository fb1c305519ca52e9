//! The sampled searcher's probe with 64-byte vectors: hashes of every 8-byte window at a
//! fixed stride, looked up in the filter in parallel.

use std::arch::x86_64::*;

use super::{FILTER_MULTIPLIER, FOLD, STRIDE, SampledSearcher};
use crate::scan::simd::Simd;
use crate::scan::{Hit, Numbering};

/// The sampled searcher's probe over the whole 128-byte blocks of `hay`: returns where they
/// end and, with `numbering`, the newlines before that (leaving a checkpoint there too).
///
/// `simd` is the level the verification's token walk runs at.
///
/// # Safety
/// The CPU must have AVX-512 F, DQ and BW and POPCNT.
#[target_feature(enable = "avx512f,avx512dq,avx512bw,popcnt")]
pub(super) unsafe fn sampled(
    s: &SampledSearcher,
    simd: Simd,
    hay: &[u8],
    last_end: &mut usize,
    hits: &mut Vec<Hit>,
    numbering: Option<&mut Numbering>,
) -> (usize, Option<u64>) {
    // SAFETY (both arms): the caller's features are the ones the callee needs.
    unsafe {
        match numbering {
            Some(numbering) => {
                let (from, cum) =
                    sampled_blocks::<true>(s, simd, hay, last_end, hits, Some(&mut *numbering));
                numbering.checkpoint(hay, from, from, cum);
                (from, Some(cum))
            }
            None => {
                let (from, _) = sampled_blocks::<false>(s, simd, hay, last_end, hits, None);
                (from, None)
            }
        }
    }
}

/// The same probe for the eight windows of each 128-byte block at once: one multiply, one
/// gather of the eight filter words and one compare into a mask, about four times fewer
/// instructions per window than the scalar loop. Returns where the whole blocks end.
///
/// With `COUNT`, also returns the newlines before where the blocks end, and leaves a
/// checkpoint in `numbering` before each block with candidates.
///
/// # Safety
/// The CPU must have AVX-512 F, DQ and BW and POPCNT.
#[target_feature(enable = "avx512f,avx512dq,avx512bw,popcnt")]
unsafe fn sampled_blocks<const COUNT: bool>(
    s: &SampledSearcher,
    simd: Simd,
    hay: &[u8],
    last_end: &mut usize,
    hits: &mut Vec<Hit>,
    mut numbering: Option<&mut Numbering>,
) -> (usize, u64) {
    let newline = _mm512_set1_epi8(b'\n' as i8);
    let mut cum = 0;
    const BLOCK: usize = 128;
    // The even 8-byte words of two vectors: the windows at every 16th byte.
    let even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    let fold = _mm512_set1_epi64(FOLD as i64);
    let multiplier = _mm512_set1_epi64(FILTER_MULTIPLIER as i64);
    let shift = _mm512_set1_epi64(i64::from(s.shift));
    let one = _mm512_set1_epi64(1);
    let words = s.words.as_ptr().cast::<i64>();
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
            let found = unsafe { _mm512_i64gather_epi64::<8>(_mm512_srlv_epi64(h, shift), words) };
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
            s.check(simd, hay, b * BLOCK + j * STRIDE, last_end, hits);
        }
        if COUNT {
            cum += u64::from(_mm512_cmpeq_epi8_mask(low, newline).count_ones())
                + u64::from(_mm512_cmpeq_epi8_mask(high, newline).count_ones());
        }
    }
    (blocks * BLOCK, cum)
}
