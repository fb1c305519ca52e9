//! Decoders for the scanner's SIMD paths, for tokens whose shape (letters and digits, or hex
//! digits and dashes in place) the scanner has already checked from its bit masks: byte
//! shuffles and multiply-adds instead of a table lookup per character. They give exactly
//! what [`super::decode_ulid`], [`super::decode_hex`] and [`super::decode_dashed`] give on
//! such tokens (tested).

use super::{Id, ULID_LEN, UUID_DASHED_LEN, UUID_UNDASHED_LEN};
use std::arch::x86_64::*;

/// Marks a byte that is not a Crockford digit in the shuffle tables below.
const NOT_DIGIT: i8 = i8::MIN;

/// [`super::decode_ulid`] for a token of ASCII letters and digits, with byte shuffles and
/// multiply-adds: a few dozen instructions instead of a table lookup, shift and merge per
/// character. Other bytes than letters and digits give a wrong value, never undefined
/// behaviour.
///
/// # Safety
/// The CPU must have SSE4.1.
#[inline(always)]
pub(crate) unsafe fn decode_ulid(token: &[u8; ULID_LEN]) -> Option<Id> {
    // The first character holds the top 3 bits: only 0-7 fit in 128.
    if token[0].wrapping_sub(b'0') > 7 {
        return None;
    }
    // SAFETY: both loads lie within the token; the caller has SSE4.1.
    unsafe {
        // Characters 0-15 and 10-25.
        let head = crockford_digits(_mm_loadu_si128(token.as_ptr() as *const __m128i));
        let tail = crockford_digits(_mm_loadu_si128(token[10..].as_ptr() as *const __m128i));
        if _mm_movemask_epi8(_mm_or_si128(head, tail)) != 0 {
            return None;
        }
        // Six leading zero digits make characters 0-9 a 16-digit number too.
        let high = pack_digits(_mm_slli_si128(head, 6));
        let low = pack_digits(tail);
        Some(Id(high << 80 | low))
    }
}

/// The Crockford base32 value of each letter or digit, or [`NOT_DIGIT`] for I, L, O, U.
///
/// # Safety
/// The CPU must have SSE4.1.
#[inline(always)]
unsafe fn crockford_digits(chars: __m128i) -> __m128i {
    const X: i8 = NOT_DIGIT;
    // SAFETY: the caller has SSE4.1.
    unsafe {
        let low = _mm_and_si128(chars, _mm_set1_epi8(0x0f));
        // Letters by low nibble: @A-O (either case), then P-Z.
        let a_to_o = _mm_setr_epi8(X, 10, 11, 12, 13, 14, 15, 16, 17, X, 18, 19, X, 20, 21, X);
        let p_to_z = _mm_setr_epi8(22, 23, 24, 25, 26, X, 27, 28, 29, 30, 31, X, X, X, X, X);
        // Bit 4 (P-Z) moved to bit 7, the bit the blend looks at.
        let letter = _mm_blendv_epi8(
            _mm_shuffle_epi8(a_to_o, low),
            _mm_shuffle_epi8(p_to_z, low),
            _mm_slli_epi16(chars, 3),
        );
        let digit = _mm_cmplt_epi8(chars, _mm_set1_epi8(b'A' as i8));
        _mm_blendv_epi8(letter, low, digit)
    }
}

/// Sixteen base32 digits, the first most significant, as an 80-bit number: pairs of
/// digits into 10 bits, pairs of those into 20, pairs of those into 40.
///
/// # Safety
/// The CPU must have SSE4.1.
#[inline(always)]
unsafe fn pack_digits(digits: __m128i) -> u128 {
    // SAFETY: the caller has SSE4.1.
    unsafe {
        let tens = _mm_maddubs_epi16(digits, _mm_set1_epi16(1 << 8 | 32));
        let twenties = _mm_madd_epi16(tens, _mm_set1_epi32(1 << 16 | 1 << 10));
        let forties = _mm_add_epi64(
            _mm_mul_epu32(twenties, _mm_set1_epi64x(1 << 20)),
            _mm_srli_epi64(twenties, 32),
        );
        let high = _mm_cvtsi128_si64(forties) as u64;
        let low = _mm_extract_epi64(forties, 1) as u64;
        (high as u128) << 40 | low as u128
    }
}

/// [`super::decode_hex`] for 32 hex digits.
///
/// # Safety
/// The CPU must have SSE4.1.
#[inline(always)]
pub(crate) unsafe fn decode_hex(token: &[u8; UUID_UNDASHED_LEN]) -> Id {
    // SAFETY: both loads lie within the token; the caller has SSE4.1.
    unsafe {
        let p = token.as_ptr() as *const __m128i;
        Id(hex_value(_mm_loadu_si128(p), _mm_loadu_si128(p.add(1))))
    }
}

/// [`super::decode_dashed`] for the 8-4-4-4-12 form, its digits and dashes in place: shuffles
/// gather the digits into two vectors of 16.
///
/// # Safety
/// The CPU must have SSE4.1.
#[inline(always)]
pub(crate) unsafe fn decode_dashed(token: &[u8; UUID_DASHED_LEN]) -> Id {
    // A shuffle index with bit 7 set writes 0.
    const X: i8 = -1;
    // SAFETY: every load lies within the token; the caller has SSE4.1.
    unsafe {
        let at = |i: usize| _mm_loadu_si128(token[i..].as_ptr() as *const __m128i);
        // Digits 0-15 are at bytes 0-7, 9-12, 14-17; digits 16-31 at 19-22, 24-35.
        let first = _mm_or_si128(
            _mm_shuffle_epi8(
                at(0),
                _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, X, X),
            ),
            _mm_shuffle_epi8(
                at(2),
                _mm_setr_epi8(X, X, X, X, X, X, X, X, X, X, X, X, X, X, 14, 15),
            ),
        );
        let second = _mm_or_si128(
            _mm_shuffle_epi8(
                at(19),
                _mm_setr_epi8(0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, X),
            ),
            _mm_shuffle_epi8(
                at(20),
                _mm_setr_epi8(X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, 15),
            ),
        );
        Id(hex_value(first, second))
    }
}

/// The value of 32 hex digits, the first most significant.
///
/// # Safety
/// The CPU must have SSE4.1.
#[inline(always)]
unsafe fn hex_value(first: __m128i, second: __m128i) -> u128 {
    // SAFETY: the caller has SSE4.1.
    unsafe {
        // Pairs of digits into bytes, the first of each pair the high nibble.
        let pairs = _mm_set1_epi16(1 << 8 | 16);
        let bytes = _mm_packus_epi16(
            _mm_maddubs_epi16(hex_digits(first), pairs),
            _mm_maddubs_epi16(hex_digits(second), pairs),
        );
        // The most significant byte is the first in memory: swap each half.
        let high = (_mm_cvtsi128_si64(bytes) as u64).swap_bytes();
        let low = (_mm_extract_epi64(bytes, 1) as u64).swap_bytes();
        (high as u128) << 64 | low as u128
    }
}

/// The value of each hex digit: its low nibble, plus 9 for a letter.
#[inline(always)]
fn hex_digits(chars: __m128i) -> __m128i {
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe {
        let letter = _mm_cmpgt_epi8(chars, _mm_set1_epi8(b'9' as i8));
        _mm_add_epi8(
            _mm_and_si128(chars, _mm_set1_epi8(0x0f)),
            _mm_and_si128(letter, _mm_set1_epi8(9)),
        )
    }
}
