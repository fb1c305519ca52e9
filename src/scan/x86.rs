//! The byte operations of one x86_64 vector width ([`Vector`]), for the SSE2 and AVX2 loops
//! that are generic over the width: the packed-pair loop (`pairs::x86`) and the token walk
//! (`tokens::x86`). Each searcher keeps its own kernels beside it; the AVX-512 ones use mask
//! registers and have loops of their own.

use std::arch::x86_64::*;

/// One vector width's byte operations, for the loops generic over SSE2 and AVX2.
///
/// Every method needs the CPU to have the width's features: SSE2 for `__m128i` (every x86_64
/// CPU), AVX2 for `__m256i`.
pub(super) trait Vector: Copy {
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
