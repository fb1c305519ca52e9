//! The AVX-512 kernels: the packed-pair loop with shared probes and newline counting, the
//! token walk's block classifier, and the sampled searcher's probe.

use super::tokens::{Classes, Kernel, walk};
use crate::id::{self, Id, ULID_LEN, UUID_DASHED_LEN, UUID_UNDASHED_LEN};
use crate::scan::pairs::{PairSearcher, SHARED_PROBES};
use crate::scan::sampled::{FILTER_MULTIPLIER, FOLD, STRIDE, SampledSearcher};
use crate::scan::simd::Simd;
use crate::scan::{Hit, Numbering, count_newlines};
use std::arch::x86_64::*;

/// The same loop with 64 lanes and mask registers: the compares write bit masks
/// directly, which halves the instructions per byte against AVX2.
///
/// With `numbering`, newlines are counted too: their total, or `None` for a buffer too
/// short for the vector loop.
///
/// # Safety
/// The CPU must have AVX-512 F and BW and POPCNT (the loop below enables POPCNT too).
#[target_feature(enable = "avx512f,avx512bw")]
pub(in crate::scan) unsafe fn find_pairs(
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

impl Kernel for __m512i {
    /// Unsigned compares straight into mask registers: no range shifting, no movemask.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and BW, and `p..p + 64` must be readable.
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
    /// # Safety
    /// The CPU must have SSE4.1 (every AVX-512 CPU has it).
    #[inline(always)]
    unsafe fn decode_ulid(token: &[u8; ULID_LEN]) -> Option<Id> {
        // SAFETY: as the caller promises.
        unsafe { id::sse41::decode_ulid(token) }
    }
    /// # Safety
    /// The CPU must have SSE4.1 (every AVX-512 CPU has it).
    #[inline(always)]
    unsafe fn decode_hex(token: &[u8; UUID_UNDASHED_LEN]) -> Id {
        // SAFETY: as the caller promises.
        unsafe { id::sse41::decode_hex(token) }
    }
    /// # Safety
    /// The CPU must have SSE4.1 (every AVX-512 CPU has it).
    #[inline(always)]
    unsafe fn decode_dashed(token: &[u8; UUID_DASHED_LEN]) -> Id {
        // SAFETY: as the caller promises.
        unsafe { id::sse41::decode_dashed(token) }
    }
}

/// The token walk with 64-byte vectors.
///
/// # Safety
/// The CPU must have AVX-512 F and BW, and SSE4.1 for the decoders (every AVX-512 CPU has
/// it).
#[target_feature(enable = "avx512f,avx512bw")]
pub(in crate::scan) unsafe fn tokens<F: FnMut(Hit) + ?Sized>(hay: &[u8], f: &mut F) {
    // SAFETY: the caller's features are the ones the walk needs.
    unsafe { walk::<__m512i, F>(hay, f) }
}

/// The sampled searcher's probe over the whole 128-byte blocks of `hay`: returns where they
/// end and, with `numbering`, the newlines before that (leaving a checkpoint there too).
///
/// `simd` is the level the verification's token walk runs at.
///
/// # Safety
/// The CPU must have AVX-512 F, DQ and BW and POPCNT.
#[target_feature(enable = "avx512f,avx512dq,avx512bw,popcnt")]
pub(in crate::scan) unsafe fn sampled(
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
