//! Finds where keys ending in `d` or `D` end in a buffer: the `=` of `user_id=` or `userID=`,
//! the `:` of `"user_id":` or of `\"user_id\":` (JSON inside an escaped message). The audit
//! reads the values of id-like keys on every line, not only on lines with IDs, and `ids` the
//! 16-hex and decimal values of trace and span keys; this is their first, cheap look at every
//! byte, and [`ends_in_id`] and [`trace_value_follows`] their second, at each key end.
//!
//! A general multi-pattern searcher stops at every quote and `=` of a JSON or logfmt line to
//! verify; here one vector pass turns each 64-byte block into bit masks (`=`, `:`, `"`, `\`,
//! `d` in either case) and bit arithmetic leaves only the separators with the right bytes
//! before them. On x86_64 it uses AVX2 where the CPU has it, else SSE2, which every x86_64 CPU
//! has, as `IDGREP_SIMD` allows (see [`crate::scan`]); other targets, and
//! `IDGREP_SIMD=scalar`, walk one byte at a time.

#[cfg(target_arch = "x86_64")]
use crate::scan::simd::Level;
use crate::scan::simd::Simd;

/// Calls `f` with the position of every `=` after `d` or `D`, and every `:` after `d"`,
/// `D"`, `d\"` or `D\"`, in order.
pub fn for_each_key_end(hay: &[u8], mut f: impl FnMut(usize)) {
    for_each_key_end_at(Simd::current(), hay, &mut f);
}

/// [`for_each_key_end`] at the dispatch level `simd` (AVX-512 runs the AVX2 loop).
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
fn for_each_key_end_at(simd: Simd, hay: &[u8], f: &mut impl FnMut(usize)) {
    #[cfg(target_arch = "x86_64")]
    let done = match simd.level() {
        // SAFETY: a `Simd` at a level exists only when the CPU has that level's features.
        Level::Avx2 | Level::Avx512 => unsafe { x86::key_ends_avx2(hay, f) },
        Level::Sse2 => x86::key_ends_sse2(hay, f),
        Level::Scalar => 0,
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    tail(hay, done, f);
}

/// The same positions as [`for_each_key_end`], one byte at a time: the reference the vector
/// path is tested against.
#[cfg(test)]
pub(crate) fn for_each_key_end_scalar(hay: &[u8], mut f: impl FnMut(usize)) {
    tail(hay, 0, &mut f);
}

fn is_d(b: u8) -> bool {
    b | 0x20 == b'd'
}

/// True when `hay[i]` ends a key as [`for_each_key_end`] says.
fn is_key_end(hay: &[u8], i: usize) -> bool {
    let at = |back: usize| i.checked_sub(back).map(|j| hay[j]);
    match hay[i] {
        b'=' => at(1).is_some_and(is_d),
        b':' => {
            at(1) == Some(b'"')
                && (at(2).is_some_and(is_d) || (at(2) == Some(b'\\') && at(3).is_some_and(is_d)))
        }
        _ => false,
    }
}

fn tail(hay: &[u8], from: usize, f: &mut impl FnMut(usize)) {
    for i in from..hay.len() {
        if is_key_end(hay, i) {
            f(i);
        }
    }
}

/// True when the key that ends at the separator `sep` (its last letter a `d`, by
/// [`for_each_key_end`]) ends in `id`.
pub fn ends_in_id(bytes: &[u8], sep: usize) -> bool {
    let d = match bytes[sep] {
        b'=' => sep - 1,
        _ if bytes[sep - 2] == b'\\' => sep - 3,
        _ => sep - 2,
    };
    d > 0 && bytes[d - 1] | 0x20 == b'i'
}

/// True when the key ending in `id` at the separator `sep` may name a trace or span ID
/// (`trace_id`, `spanId`, `dd.trace_id`, `x-datadog-parent-id`: the four letters before `id`
/// are `race`, `span` or `rent`) and its value is not 32 hex digits (those are ID tokens,
/// counted with the line's other tokens): the line's 16-hex and decimal trace values are
/// then read, by a reader that checks the key.
pub fn trace_value_follows(bytes: &[u8], sep: usize) -> bool {
    let d = match bytes[sep] {
        b'=' => sep - 1,
        _ if bytes[sep - 2] == b'\\' => sep - 3,
        _ => sep - 2,
    };
    // `d - 1` is the key's `i`; a separator may stand before it.
    let mut end = d - 1;
    if end > 0 && matches!(bytes[end - 1], b'_' | b'.' | b'-') {
        end -= 1;
    }
    let Some(word) = end.checked_sub(4).map(|start| &bytes[start..end]) else {
        return false;
    };
    let folded: [u8; 4] = std::array::from_fn(|i| word[i] | 0x20);
    if !matches!(&folded, b"race" | b"span" | b"rent") {
        return false;
    }
    let mut value = sep + 1;
    while value < bytes.len() && value <= sep + 4 && matches!(bytes[value], b'"' | b'\\' | b' ') {
        value += 1;
    }
    // The reader of the flagged line has the last word on the key (`parent_id` passes here
    // and names no span); reading the key here as well cost a third of this filter on logs
    // of spans.
    !crate::id::trace_value::is_hex32_token(&bytes[value..])
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// Bit k of each mask is set when byte k of a 64-byte block is that byte.
    #[derive(Clone, Copy, Default)]
    struct Masks {
        equals: u64,
        colon: u64,
        quote: u64,
        backslash: u64,
        /// `d` or `D`.
        d: u64,
    }

    /// The masks of the 64 bytes at `p`, 16 bytes at a time.
    ///
    /// # Safety
    /// `p..p + 64` must be readable. (SSE2, the only feature used, is part of the x86_64
    /// baseline.)
    #[inline(always)]
    unsafe fn masks_sse2(p: *const u8) -> Masks {
        let mut m = Masks::default();
        for k in 0..4 {
            // SAFETY: p + 16k + 16 <= p + 64, readable by the caller's promise; SSE2 is part
            // of the x86_64 baseline.
            unsafe {
                let v = _mm_loadu_si128(p.add(16 * k) as *const __m128i);
                let bits = |x: __m128i| (_mm_movemask_epi8(x) as u32 as u64) << (16 * k);
                let is = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
                m.equals |= bits(is(b'='));
                m.colon |= bits(is(b':'));
                m.quote |= bits(is(b'"'));
                m.backslash |= bits(is(b'\\'));
                let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
                m.d |= bits(_mm_cmpeq_epi8(folded, _mm_set1_epi8(b'd' as i8)));
            }
        }
        m
    }

    /// The masks of the 64 bytes at `p`, 32 bytes at a time.
    ///
    /// # Safety
    /// `p..p + 64` must be readable, and the CPU must have AVX2.
    #[inline(always)]
    unsafe fn masks_avx2(p: *const u8) -> Masks {
        let mut m = Masks::default();
        for k in 0..2 {
            // SAFETY: p + 32k + 32 <= p + 64, readable by the caller's promise, who also
            // promises AVX2.
            unsafe {
                let v = _mm256_loadu_si256(p.add(32 * k) as *const __m256i);
                let bits = |x: __m256i| (_mm256_movemask_epi8(x) as u32 as u64) << (32 * k);
                let is = |b: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b as i8));
                m.equals |= bits(is(b'='));
                m.colon |= bits(is(b':'));
                m.quote |= bits(is(b'"'));
                m.backslash |= bits(is(b'\\'));
                let folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
                m.d |= bits(_mm256_cmpeq_epi8(folded, _mm256_set1_epi8(b'd' as i8)));
            }
        }
        m
    }

    /// Reports the key ends in the whole 64-byte blocks of `hay`, 16 bytes a compare;
    /// returns where the blocks stop, for the scalar tail.
    pub(super) fn key_ends_sse2(hay: &[u8], f: &mut impl FnMut(usize)) -> usize {
        // SAFETY: `key_ends` reads only whole blocks of `hay`.
        key_ends(hay, f, |p| unsafe { masks_sse2(p) })
    }

    /// [`key_ends_sse2`], 32 bytes a compare.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn key_ends_avx2(hay: &[u8], f: &mut impl FnMut(usize)) -> usize {
        // SAFETY: `key_ends` reads only whole blocks of `hay`; the caller promises AVX2.
        key_ends(hay, f, |p| unsafe { masks_avx2(p) })
    }

    /// The loop of both: `masks` reads the 64 bytes at a pointer it is given, which are
    /// always readable.
    #[inline(always)]
    fn key_ends(
        hay: &[u8],
        f: &mut impl FnMut(usize),
        masks: impl Fn(*const u8) -> Masks,
    ) -> usize {
        let mut prev = Masks::default();
        let mut p = 0;
        while p + 64 <= hay.len() {
            // SAFETY: p + 64 <= hay.len().
            let m = masks(unsafe { hay.as_ptr().add(p) });
            // Bit k of `back(x, n)`: byte k - n is x, the previous block supplying the first n.
            let back = |cur: u64, prev: u64, n: u32| cur << n | prev >> (64 - n);
            let d1 = back(m.d, prev.d, 1);
            let d2 = back(m.d, prev.d, 2);
            let d3 = back(m.d, prev.d, 3);
            let quote1 = back(m.quote, prev.quote, 1);
            let backslash2 = back(m.backslash, prev.backslash, 2);
            let mut ends = (m.equals & d1) | (m.colon & quote1 & (d2 | (backslash2 & d3)));
            while ends != 0 {
                f(p + ends.trailing_zeros() as usize);
                ends &= ends - 1;
            }
            prev = m;
            p += 64;
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::simd::{Level, coverage};

    fn ends(hay: &[u8]) -> (Vec<usize>, Vec<usize>) {
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        for_each_key_end(hay, |i| fast.push(i));
        for_each_key_end_scalar(hay, |i| slow.push(i));
        (fast, slow)
    }

    #[test]
    fn key_ends_by_example() {
        let text = br#"user_id=1 userID=2 paid= x= "order_id": "Id":3 \"job_id\":4 d":5 "a":"d=""#;
        let (fast, slow) = ends(text);
        assert_eq!(fast, slow);
        // Each end with the text since the blank before it.
        let shown: Vec<String> = fast
            .iter()
            .map(|&i| {
                let from = text[..i]
                    .iter()
                    .rposition(|&b| b == b' ')
                    .map_or(0, |b| b + 1);
                String::from_utf8_lossy(&text[from..=i]).into_owned()
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                "user_id=",
                "userID=",
                "paid=",
                "\"order_id\":",
                "\"Id\":",
                "\\\"job_id\\\":",
                "d\":",
                "\"a\":\"d="
            ]
        );
    }

    #[test]
    fn vector_path_equals_the_scalar_one_across_block_edges() {
        let levels = coverage::levels("keys", &[Level::Avx2, Level::Sse2, Level::Scalar]);
        let pieces: [&[u8]; 9] = [b"d", b"D", b"=", b":", b"\"", b"\\", b"x", b"id", b"\n"];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for len in [0, 1, 63, 64, 65, 127, 128, 129, 1000, 4096] {
            for _ in 0..50 {
                let mut hay = Vec::with_capacity(len + 2);
                while hay.len() < len {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    hay.extend_from_slice(pieces[(state >> 33) as usize % pieces.len()]);
                }
                hay.truncate(len);
                let (fast, slow) = ends(&hay);
                assert_eq!(fast, slow, "{:?}", String::from_utf8_lossy(&hay));
                for &simd in &levels {
                    let mut at_level = Vec::new();
                    for_each_key_end_at(simd, &hay, &mut |i| at_level.push(i));
                    let name = simd.level().name();
                    assert_eq!(
                        at_level,
                        slow,
                        "{name}: {:?}",
                        String::from_utf8_lossy(&hay)
                    );
                }
            }
        }
    }
}
