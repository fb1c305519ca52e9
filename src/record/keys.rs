//! Finds where keys ending in `d` or `D` end in a buffer: the `=` of `user_id=` or `userID=`,
//! the `:` of `"user_id":` or of `\"user_id\":` (JSON inside an escaped message), and for
//! `ids` also the `:` of `span_id:` and `"span_id" :`. The audit reads the values of id-like
//! keys on every line, not only on lines with IDs, and `ids` the 16-hex and decimal values of
//! trace and span keys on lines without ID tokens and on plain lines with them (the record
//! walk reads the keys of JSON and logfmt); this is their first, cheap look at every byte,
//! and [`ends_in_id`] and [`trace_value_follows`] their second, at each key end.
//!
//! A general multi-pattern searcher stops at every quote and `=` of a JSON or logfmt line to
//! verify; here one vector pass turns each 64-byte block into bit masks (`=`, `:`, and `d` in
//! either case), and only the separators with a `d` one to three bytes before them (every key
//! end has one, a timestamp's colons do not) are checked byte by byte. The pass for `ids`
//! looks for `id` instead, every trace key's last letters: two compares a vector rather than
//! three, and fewer places to check. On x86_64 both use AVX-512 or AVX2 where the CPU has
//! it, else SSE2, which every x86_64 CPU has, as `IDGREP_SIMD` allows (see [`crate::scan`]);
//! other targets, and `IDGREP_SIMD=scalar`, walk one byte at a time.

#[cfg(target_arch = "x86_64")]
use crate::scan::simd::Level;
use crate::scan::simd::Simd;
use std::ops::Range;

/// Calls `f` with the position of every `=` after `d` or `D`, and every `:` after `d"`,
/// `D"`, `d\"` or `D\"`, in order.
pub fn for_each_key_end(hay: &[u8], mut f: impl FnMut(usize)) {
    for_each_found_at(Simd::current(), hay, &mut f);
}

/// Calls `f`, in order, with the separator of every key ending in `bytes[range]` (its `id`
/// too) that may name a trace or span value not written as a 32-hex token: a key end as
/// [`for_each_key_end`] finds them, or one of plain text, a `:` right after `d` or `D`
/// (`span_id: ...`, which `ids` reads for trace values where the audit leaves such text to
/// prose), after `d ` (`span_id : ...`) or after `d" ` (`"span_id" : ...`, as some JSON
/// writers space it). What `f` reads around a separator it reads in all of `bytes`.
pub fn for_each_trace_key_end(bytes: &[u8], range: Range<usize>, mut f: impl FnMut(usize)) {
    trace_key_ends_at(Simd::current(), bytes, range, &mut |sep| {
        f(sep);
        true
    });
}

/// Whether `line` has a key end of [`for_each_trace_key_end`].
pub fn has_trace_key(line: &[u8]) -> bool {
    !trace_key_ends_at(Simd::current(), line, 0..line.len(), &mut |_| false)
}

/// The key ends at the dispatch level `simd`.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
fn for_each_found_at(simd: Simd, hay: &[u8], f: &mut impl FnMut(usize)) {
    #[cfg(target_arch = "x86_64")]
    match simd.level() {
        // SAFETY: a `Simd` at a level exists only when the CPU has that level's features.
        Level::Avx512 => unsafe { x86::found_avx512(hay, f) },
        // SAFETY: as above.
        Level::Avx2 => unsafe { x86::found_avx2(hay, f) },
        Level::Sse2 => x86::found_sse2(hay, f),
        Level::Scalar => found_scalar(hay, f),
    }
    #[cfg(not(target_arch = "x86_64"))]
    found_scalar(hay, f);
}

/// The trace key ends of [`for_each_trace_key_end`] at the dispatch level `simd`, while `f`
/// returns true; false when `f` stopped the walk.
///
/// Every such key ends in `id` (either letter in either case), and its separator stands one
/// to three bytes after the `d`. Where `id` is, one pair of compares a vector tells, where
/// the key ends of [`for_each_key_end`] take three; the few pairs are checked byte by byte.
/// Lines with IDs in plain text, and the lines without, are read so for `ids`.
fn trace_key_ends_at(
    simd: Simd,
    bytes: &[u8],
    range: Range<usize>,
    f: &mut impl FnMut(usize) -> bool,
) -> bool {
    let (mut at, to) = (range.start, range.end);
    while let Some(i) = first_id_pair_at(simd, bytes, at, to) {
        if let Some(sep) = trace_key_end_at(bytes, i, to)
            && !f(sep)
        {
            return false;
        }
        at = i + 1;
    }
    true
}

/// The first `i` or `I` followed by `d` or `D` in `bytes[from..to]`, at the dispatch level
/// `simd`. The vector functions call nothing, so a call saves no registers: most lines hold
/// no pair, and the call was a third of their cost.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
fn first_id_pair_at(simd: Simd, bytes: &[u8], from: usize, to: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    return match simd.level() {
        // SAFETY: a `Simd` at a level exists only when the CPU has that level's features.
        Level::Avx512 => unsafe { x86::first_id_pair_avx512(bytes, from, to) },
        // SAFETY: as above.
        Level::Avx2 => unsafe { x86::first_id_pair_avx2(bytes, from, to) },
        Level::Sse2 => x86::first_id_pair_sse2(bytes, from, to),
        Level::Scalar => first_id_pair_scalar(bytes, from, to),
    };
    #[cfg(not(target_arch = "x86_64"))]
    first_id_pair_scalar(bytes, from, to)
}

/// The separator of the trace key whose `id` starts at `i`, if one ends there before `to`:
/// a key end whose `d` is the pair's (so the key ends in `id`, as [`ends_in_id`] asks of
/// other key ends), with a trace word before and no 32-hex token after
/// ([`trace_value_follows`]). Out of line: few pairs are keys.
#[inline(never)]
fn trace_key_end_at(bytes: &[u8], i: usize, to: usize) -> Option<usize> {
    (i + 2..(i + 5).min(to)).find(|&sep| {
        is_key_end::<true>(bytes, sep)
            && key_last(bytes, sep) == i + 1
            && trace_value_follows(bytes, sep)
    })
}

/// [`first_id_pair_at`] one byte at a time.
fn first_id_pair_scalar(bytes: &[u8], from: usize, to: usize) -> Option<usize> {
    (from..to.saturating_sub(1)).find(|&i| bytes[i] | 0x20 == b'i' && bytes[i + 1] | 0x20 == b'd')
}

fn is_d(b: u8) -> bool {
    b | 0x20 == b'd'
}

/// True when `hay[i]` ends a key as [`for_each_key_end`] says, or with `BARE` also as
/// [`for_each_trace_key_end`] says of plain text (`span_id: ...`).
fn is_key_end<const BARE: bool>(hay: &[u8], i: usize) -> bool {
    let at = |back: usize| i.checked_sub(back).map(|j| hay[j]);
    match hay[i] {
        b'=' => at(1).is_some_and(is_d),
        b':' => {
            (BARE
                && (at(1).is_some_and(is_d)
                    || (at(1) == Some(b' ')
                        && (at(2).is_some_and(is_d)
                            || (at(2) == Some(b'"') && at(3).is_some_and(is_d))))))
                || at(1) == Some(b'"')
                    && (at(2).is_some_and(is_d)
                        || (at(2) == Some(b'\\') && at(3).is_some_and(is_d)))
        }
        _ => false,
    }
}

/// The same as the vector passes, one byte at a time: the reference they are tested against.
fn found_scalar(hay: &[u8], f: &mut impl FnMut(usize)) {
    for i in 0..hay.len() {
        if is_key_end::<false>(hay, i) {
            f(i);
        }
    }
}

/// Where the key that ends at the separator `sep` (as the passes above find it) has its
/// last letter, the `d`.
fn key_last(bytes: &[u8], sep: usize) -> usize {
    match bytes[sep] {
        b'=' => sep - 1,
        _ if bytes[sep - 1] == b' ' && bytes[sep - 2] == b'"' => sep - 3,
        _ if bytes[sep - 1] == b' ' => sep - 2,
        _ if bytes[sep - 1] != b'"' => sep - 1,
        _ if bytes[sep - 2] == b'\\' => sep - 3,
        _ => sep - 2,
    }
}

/// True when the key that ends at the separator `sep` (its last letter a `d`, by
/// [`for_each_key_end`]) ends in `id`.
pub fn ends_in_id(bytes: &[u8], sep: usize) -> bool {
    let d = key_last(bytes, sep);
    d > 0 && bytes[d - 1] | 0x20 == b'i'
}

/// True when the key ending in `id` at the separator `sep` may name a trace or span ID
/// (`trace_id`, `spanId`, `dd.trace_id`, `x-datadog-parent-id`: the four letters before `id`
/// are `race`, `span` or `rent`) and its value is not 32 hex digits (those are ID tokens,
/// counted with the line's other tokens): the line's 16-hex and decimal trace values are
/// then read, by a reader that checks the key.
pub fn trace_value_follows(bytes: &[u8], sep: usize) -> bool {
    let d = key_last(bytes, sep);
    // `d - 1` is the key's `i`; a separator may stand before it.
    let mut end = d - 1;
    if end > 0 && matches!(bytes[end - 1], b'_' | b'.' | b'-') {
        end -= 1;
    } else if let Some(parent) = crate::id::trace::object_key(bytes, end) {
        // `"span":{"id":...}`: the key of the object decides.
        end = parent.as_ptr() as usize - bytes.as_ptr() as usize + parent.len();
    }
    if !crate::id::trace::ends_in_trace_word(&bytes[..end]) {
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

    /// Bit k of each mask is set when byte k of a 64-byte block is such a byte.
    #[derive(Clone, Copy, Default)]
    struct Masks {
        equals: u64,
        colon: u64,
        /// `d` or `D`.
        d: u64,
    }

    /// What the mask pass needs of one vector width.
    trait Lanes: Copy {
        /// Bytes per vector.
        const WIDTH: usize;

        /// The vector at `p`.
        ///
        /// # Safety
        /// `p..p + WIDTH` must be readable, and the CPU must have the width's features.
        unsafe fn load(p: *const u8) -> Self;

        /// Bit k set when byte k is `b`.
        ///
        /// # Safety
        /// The CPU must have the width's features.
        unsafe fn eq(self, b: u8) -> u64;

        /// Every byte with bit 0x20 set: ASCII letters in lower case.
        ///
        /// # Safety
        /// The CPU must have the width's features.
        unsafe fn folded(self) -> Self;
    }

    impl Lanes for __m128i {
        const WIDTH: usize = 16;
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            // SAFETY: as the caller promises; SSE2 is part of the x86_64 baseline.
            unsafe { _mm_loadu_si128(p as *const __m128i) }
        }
        #[inline(always)]
        unsafe fn eq(self, b: u8) -> u64 {
            // SAFETY: SSE2 is part of the x86_64 baseline.
            unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(self, _mm_set1_epi8(b as i8))) as u32 as u64 }
        }
        #[inline(always)]
        unsafe fn folded(self) -> Self {
            // SAFETY: SSE2 is part of the x86_64 baseline.
            unsafe { _mm_or_si128(self, _mm_set1_epi8(0x20)) }
        }
    }

    impl Lanes for __m256i {
        const WIDTH: usize = 32;
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            // SAFETY: as the caller promises, AVX2 included.
            unsafe { _mm256_loadu_si256(p as *const __m256i) }
        }
        #[inline(always)]
        unsafe fn eq(self, b: u8) -> u64 {
            // SAFETY: the caller promises AVX2.
            unsafe {
                _mm256_movemask_epi8(_mm256_cmpeq_epi8(self, _mm256_set1_epi8(b as i8))) as u32
                    as u64
            }
        }
        #[inline(always)]
        unsafe fn folded(self) -> Self {
            // SAFETY: the caller promises AVX2.
            unsafe { _mm256_or_si256(self, _mm256_set1_epi8(0x20)) }
        }
    }

    /// Compares straight into mask registers.
    impl Lanes for __m512i {
        const WIDTH: usize = 64;
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            // SAFETY: as the caller promises, AVX-512 F included.
            unsafe { _mm512_loadu_si512(p as *const _) }
        }
        #[inline(always)]
        unsafe fn eq(self, b: u8) -> u64 {
            // SAFETY: the caller promises AVX-512 BW.
            unsafe { _mm512_cmpeq_epi8_mask(self, _mm512_set1_epi8(b as i8)) }
        }
        #[inline(always)]
        unsafe fn folded(self) -> Self {
            // SAFETY: the caller promises AVX-512 F.
            unsafe { _mm512_or_si512(self, _mm512_set1_epi8(0x20)) }
        }
    }

    /// The masks of the 64 bytes at `p`, a vector of `V` at a time.
    ///
    /// # Safety
    /// `p..p + 64` must be readable, and the CPU must have the features of `V`.
    #[inline(always)]
    unsafe fn masks<V: Lanes>(p: *const u8) -> Masks {
        // SAFETY: p + shift + WIDTH <= p + 64, readable by the caller's promise, who also
        // promises the features.
        masks_of::<V>(|shift| unsafe { V::load(p.add(shift)) })
    }

    /// The masks of the 64 bytes whose vectors `load` gives, from their offsets.
    #[inline(always)]
    fn masks_of<V: Lanes>(load: impl Fn(usize) -> V) -> Masks {
        let mut m = Masks::default();
        for k in 0..64 / V::WIDTH {
            let shift = V::WIDTH * k;
            let v = load(shift);
            // SAFETY: whoever made `v` has the features of `V`.
            unsafe {
                m.equals |= v.eq(b'=') << shift;
                m.colon |= v.eq(b':') << shift;
                m.d |= v.folded().eq(b'd') << shift;
            }
        }
        m
    }

    /// The masks of a buffer shorter than 64 bytes, padded with NUL (none of the bytes looked
    /// for) in a copy: a byte-at-a-time walk cost more than the vector pass on short lines.
    ///
    /// # Safety
    /// The CPU must have the features of `V`.
    #[inline(always)]
    unsafe fn padded_masks<V: Lanes>(rest: &[u8]) -> Masks {
        let mut last = [0u8; 64];
        last[..rest.len()].copy_from_slice(rest);
        // SAFETY: `last` is 64 bytes; the caller promises the features.
        unsafe { masks::<V>(last.as_ptr()) }
    }

    /// Reports the key ends of `hay`, 16 bytes a compare, a `hay` under 64 bytes padded.
    pub(super) fn found_sse2(hay: &[u8], f: &mut impl FnMut(usize)) {
        // SAFETY: `found` hands `masks` only pointers to 64 readable bytes; SSE2 is part of
        // x86_64.
        found(
            hay,
            f,
            |p| unsafe { masks::<__m128i>(p) },
            |rest| unsafe { padded_masks::<__m128i>(rest) },
        )
    }

    /// [`found_sse2`], 32 bytes a compare.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn found_avx2(hay: &[u8], f: &mut impl FnMut(usize)) {
        // SAFETY: `found` hands `masks` only pointers to 64 readable bytes; the caller
        // promises AVX2.
        found(
            hay,
            f,
            |p| unsafe { masks::<__m256i>(p) },
            |rest| unsafe { padded_masks::<__m256i>(rest) },
        )
    }

    /// [`found_sse2`], 64 bytes a compare, a `hay` under 64 bytes read by a masked load rather
    /// than copied: a line's bytes copied and then read whole stall the load until the copy's
    /// small stores land.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn found_avx512(hay: &[u8], f: &mut impl FnMut(usize)) {
        // SAFETY: `found` hands `masks` only pointers to 64 readable bytes; the caller
        // promises AVX-512. The masked load reads only the bytes of `rest`: the lanes past
        // it are zero and never touched, so they cannot fault.
        found(
            hay,
            f,
            |p| unsafe { masks::<__m512i>(p) },
            |rest| unsafe {
                let lanes = (1u64 << rest.len()) - 1;
                let v = _mm512_maskz_loadu_epi8(lanes, rest.as_ptr().cast());
                masks_of::<__m512i>(|_| v)
            },
        )
    }

    /// Bit k set when byte k of the `V::WIDTH` bytes at `p` is `i` or `I` and byte k + 1 is
    /// `d` or `D`.
    ///
    /// # Safety
    /// `p..p + V::WIDTH + 1` must be readable, and the CPU must have the features of `V`.
    #[inline(always)]
    unsafe fn id_pairs_of<V: Lanes>(p: *const u8) -> u64 {
        // SAFETY: both loads lie in the readable bytes, as the caller promises the features.
        unsafe { V::load(p).folded().eq(b'i') & V::load(p.add(1)).folded().eq(b'd') }
    }

    /// [`super::first_id_pair_scalar`], 16 bytes a compare.
    pub(super) fn first_id_pair_sse2(bytes: &[u8], from: usize, to: usize) -> Option<usize> {
        // SAFETY: `first_id_pair` hands `pairs` only pointers with 17 readable bytes; SSE2
        // is part of x86_64.
        first_id_pair::<16>(bytes, from, to, |p| unsafe { id_pairs_of::<__m128i>(p) })
    }

    /// [`super::first_id_pair_scalar`], 32 bytes a compare.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn first_id_pair_avx2(bytes: &[u8], from: usize, to: usize) -> Option<usize> {
        // SAFETY: `first_id_pair` hands `pairs` only pointers with 33 readable bytes; the
        // caller promises AVX2.
        first_id_pair::<32>(bytes, from, to, |p| unsafe { id_pairs_of::<__m256i>(p) })
    }

    /// [`super::first_id_pair_scalar`], 64 bytes a compare.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn first_id_pair_avx512(
        bytes: &[u8],
        from: usize,
        to: usize,
    ) -> Option<usize> {
        // SAFETY: `first_id_pair` hands `pairs` only pointers with 65 readable bytes; the
        // caller promises AVX-512.
        first_id_pair::<64>(bytes, from, to, |p| unsafe { id_pairs_of::<__m512i>(p) })
    }

    /// The loop of the three: `pairs` reads the `WIDTH + 1` bytes at a pointer it is given,
    /// which always lie in `bytes[from..to]`. A range too short for one read goes byte by
    /// byte; the rest of a longer one after its blocks of 64 goes a read at a time, the last
    /// read overlapping the read before, its bits shifted down.
    #[inline(always)]
    fn first_id_pair<const WIDTH: usize>(
        bytes: &[u8],
        from: usize,
        to: usize,
        pairs: impl Fn(*const u8) -> u64,
    ) -> Option<usize> {
        let to = to.min(bytes.len());
        if to < from + WIDTH + 1 {
            return super::first_id_pair_scalar(bytes, from, to);
        }
        let mut p = from;
        // Whole blocks of 64 pairs first, one test a block: a line seldom holds a pair.
        while p + 64 < to {
            let mut found = 0;
            for k in 0..64 / WIDTH {
                // SAFETY: p + 64 + 1 <= to <= bytes.len().
                found |= pairs(unsafe { bytes.as_ptr().add(p + k * WIDTH) }) << (k * WIDTH);
            }
            if found != 0 {
                return Some(p + found.trailing_zeros() as usize);
            }
            p += 64;
        }
        while p + 1 < to {
            let found = if p + WIDTH < to {
                // SAFETY: p + WIDTH + 1 <= to <= bytes.len().
                pairs(unsafe { bytes.as_ptr().add(p) })
            } else {
                let last = to - WIDTH - 1;
                // SAFETY: last + WIDTH + 1 == to, and last >= from.
                pairs(unsafe { bytes.as_ptr().add(last) }) >> (p - last)
            };
            if found != 0 {
                return Some(p + found.trailing_zeros() as usize);
            }
            p += WIDTH;
        }
        None
    }

    /// The loop of all three: `masks` reads the 64 bytes at a pointer it is given, which are
    /// always readable, and `tail` the whole of a `hay` shorter than 64 bytes.
    #[inline(always)]
    fn found(
        hay: &[u8],
        f: &mut impl FnMut(usize),
        masks: impl Fn(*const u8) -> Masks,
        tail: impl Fn(&[u8]) -> Masks,
    ) {
        let mut prev = Masks::default();
        let mut p = 0;
        while p < hay.len() {
            let m = if p + 64 <= hay.len() {
                // SAFETY: p + 64 <= hay.len().
                masks(unsafe { hay.as_ptr().add(p) })
            } else if hay.len() >= 64 {
                // The last 64 bytes, read again where they overlap the block before, their
                // masks shifted down to start at `p`, rather than a copy of the last bytes:
                // no `memcpy` call per line, and no whole read stalled behind the copy's
                // small stores.
                // SAFETY: hay.len() - 64 + 64 <= hay.len().
                let last = masks(unsafe { hay.as_ptr().add(hay.len() - 64) });
                let seen = (64 - (hay.len() - p)) as u32;
                Masks {
                    equals: last.equals >> seen,
                    colon: last.colon >> seen,
                    d: last.d >> seen,
                }
            } else {
                tail(hay)
            };
            // Every key end has its `d` one to three bytes before the separator; the few
            // separators that do are checked one by one, which costs less than working out
            // the quotes, backslashes and blanks between for every byte.
            let back = |n: u32| m.d << n | prev.d >> (64 - n);
            let mut near_d = (m.equals | m.colon) & (back(1) | back(2) | back(3));
            while near_d != 0 {
                let at = p + near_d.trailing_zeros() as usize;
                if super::is_key_end::<false>(hay, at) {
                    f(at);
                }
                near_d &= near_d - 1;
            }
            prev = m;
            p += 64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::simd::{Level, coverage};

    fn ends(hay: &[u8]) -> (Vec<usize>, Vec<usize>) {
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        for_each_key_end(hay, |i| fast.push(i));
        found_scalar(hay, &mut |i| slow.push(i));
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

    /// A bare `key:` of text is a key end for `ids` (its trace values), not for the audit.
    #[test]
    fn a_bare_colon_after_d_ends_a_key_for_ids_only() {
        let text =
            br#"span_id: 00f067aa0ba902b7 dd.trace_id:7 name: x {"span_id" : "8"} parentId : 9"#;
        let mut audit = Vec::new();
        for_each_key_end(text, |i| audit.push(i));
        assert_eq!(audit, Vec::<usize>::new());
        let mut ids = Vec::new();
        for_each_trace_key_end(text, 0..text.len(), |i| ids.push(i));
        assert_eq!(ids, vec![7, 37, 59, 75]);
        assert!(has_trace_key(text));
        assert!(!has_trace_key(b"user_id: 7 name: x"));
        for sep in [7, 37, 59, 75] {
            assert!(
                ends_in_id(text, sep) && trace_value_follows(text, sep),
                "{sep}"
            );
        }
    }

    #[test]
    fn a_nested_id_is_a_trace_value_by_its_objects_key() {
        let text = br#"{"trace":{"id":"a3ce929d0e0e4736"},"span": { "id":"1"},"user":{"id":"2"},"id":"3"}"#;
        let mut follows = Vec::new();
        for_each_key_end(text, |sep| follows.push(trace_value_follows(text, sep)));
        assert_eq!(follows, [true, true, false, false]);
        // Inside an escaped message too.
        let escaped = br#"{"msg":"{\"span\":{\"id\":\"00f067aa0ba902b7\"}}"}"#;
        let mut follows = Vec::new();
        for_each_key_end(escaped, |sep| {
            follows.push(trace_value_follows(escaped, sep))
        });
        assert_eq!(follows, [true]);
    }

    /// Every level finds what the byte-at-a-time reference finds, across the edges of the
    /// 64-byte blocks, in the last one read where it overlaps the one before, and in a padded
    /// short one.
    #[test]
    fn vector_paths_equal_the_scalar_one_across_block_edges() {
        let levels = coverage::levels(
            "keys",
            &[Level::Avx512, Level::Avx2, Level::Sse2, Level::Scalar],
        );
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for len in [0, 1, 6, 7, 63, 64, 65, 70, 127, 128, 129, 1000, 4096] {
            for _ in 0..50 {
                let hay = generated(&mut state, len);
                let (fast, slow) = ends(&hay);
                assert_eq!(fast, slow, "{:?}", String::from_utf8_lossy(&hay));
                for &simd in &levels {
                    let mut at_level = Vec::new();
                    for_each_found_at(simd, &hay, &mut |i| at_level.push(i));
                    assert_eq!(
                        at_level,
                        slow,
                        "{}: {:?}",
                        simd.level().name(),
                        String::from_utf8_lossy(&hay)
                    );
                }
            }
        }
    }

    /// Every level finds the trace key ends a byte-at-a-time walk finds, in ranges that start
    /// and end anywhere (a key whose `id` begins before the range is not in it), in haystacks
    /// of every length around the widths of the reads, and stops when told to.
    #[test]
    fn trace_key_ends_equal_a_byte_walk_at_every_level() {
        let levels = coverage::levels(
            "trace keys",
            &[Level::Avx512, Level::Avx2, Level::Sse2, Level::Scalar],
        );
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut seen = 0;
        let lens = (0..=70).chain([127, 128, 129, 130, 1000, 4096]);
        for len in lens {
            for _ in 0..20 {
                let hay = generated(&mut state, len);
                state = step(state);
                let from = (state >> 33) as usize % (len / 4 + 1);
                let to = len - (state >> 40) as usize % (len / 4 + 1);
                let range = from..to.max(from);
                let want: Vec<usize> = range
                    .clone()
                    .filter(|&sep| {
                        is_key_end::<true>(&hay, sep)
                            && ends_in_id(&hay, sep)
                            && trace_value_follows(&hay, sep)
                            && key_last(&hay, sep) > range.start
                    })
                    .collect();
                seen += want.len();
                for &simd in &levels {
                    let name = simd.level().name();
                    let text = String::from_utf8_lossy(&hay);
                    let mut got = Vec::new();
                    trace_key_ends_at(simd, &hay, range.clone(), &mut |sep| {
                        got.push(sep);
                        true
                    });
                    assert_eq!(got, want, "{name} {range:?}: {text:?}");
                    let mut first = Vec::new();
                    let stopped = !trace_key_ends_at(simd, &hay, range.clone(), &mut |sep| {
                        first.push(sep);
                        false
                    });
                    assert_eq!(stopped, !want.is_empty(), "{name} {range:?}: {text:?}");
                    assert_eq!(first, want.first().copied().into_iter().collect::<Vec<_>>());
                }
            }
        }
        assert!(seen > 2000, "{seen}");
    }

    fn step(state: u64) -> u64 {
        state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407)
    }

    /// `len` bytes of key parts, separators and values, at random.
    fn generated(state: &mut u64, len: usize) -> Vec<u8> {
        let pieces: [&[u8]; 18] = [
            b"d",
            b"D",
            b"=",
            b":",
            b"\"",
            b"\\",
            b"x",
            b"id",
            b"I",
            b"\n",
            b" ",
            b"_",
            b"trace",
            b"Span",
            b"span_id: ",
            b"\"trace_id\" :",
            b"00f067aa0ba902b7",
            b"4bf92f3577b34da6a3ce929d0e0e4736",
        ];
        let mut hay = Vec::with_capacity(len + 40);
        while hay.len() < len {
            *state = step(*state);
            hay.extend_from_slice(pieces[(*state >> 33) as usize % pieces.len()]);
        }
        hay.truncate(len);
        hay
    }
}
