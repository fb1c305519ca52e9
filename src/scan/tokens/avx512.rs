//! The token walk's block classifier with 64-byte vectors and mask registers.

use std::arch::x86_64::*;

use super::x86::{Classes, Kernel, long_runs, walk};
use crate::id::{self, Id, ULID_LEN, UUID_DASHED_LEN, UUID_UNDASHED_LEN};
use crate::scan::Hit;

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
pub(super) unsafe fn tokens<F: FnMut(Hit) + ?Sized>(
    hay: &[u8],
    f: &mut F,
    roots: Option<&mut Vec<usize>>,
) {
    // SAFETY: the caller's features are the ones the walk needs.
    unsafe { walk::<__m512i, F>(hay, f, roots) }
}

/// The walk of long runs with 64-byte vectors.
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn runs<F: FnMut(usize, usize) + ?Sized>(hay: &[u8], f: &mut F) {
    // SAFETY: the caller's features are the ones the walk needs.
    unsafe { long_runs::<__m512i, F>(hay, f) }
}
