//! Finds where keys ending in `d` or `D` end in a buffer: the `=` of `user_id=` or `userID=`,
//! the `:` of `"user_id":` or of `\"user_id\":` (JSON inside an escaped message), and for
//! `ids` also the `:` of `span_id:` and `"span_id" :` and every start of an X-Ray trace ID
//! (`1-<8 hex>-`), saying whether `Root=` is written before it. The audit reads the values of
//! id-like keys on every line, not only on lines with IDs, and `ids` the 16-hex and decimal
//! values of trace and span keys; this is their first, cheap look at every byte, and
//! [`ends_in_id`] and [`trace_value_follows`] their second, at each key end.
//!
//! A general multi-pattern searcher stops at every quote and `=` of a JSON or logfmt line to
//! verify; here one vector pass turns each 64-byte block into bit masks (`=`, `:`, `"`, `\`,
//! `d` in either case, and for `ids` `1`, `-` and the blank) and bit arithmetic leaves only the
//! separators with the right bytes before them, and the dashes 9 bytes after another that
//! follows a `1`. On x86_64 it uses AVX-512 or AVX2 where the
//! CPU has it, else SSE2, which every x86_64 CPU has, as `IDGREP_SIMD` allows (see
//! [`crate::scan`]); other targets, and `IDGREP_SIMD=scalar`, walk one byte at a time.

#[cfg(target_arch = "x86_64")]
use crate::scan::simd::Level;
use crate::scan::simd::Simd;

/// What [`for_each_key_end_or_xray`] finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// The separator after a key ending in `d` or `D` (see [`for_each_key_end`]).
    KeyEnd(usize),
    /// Where `1-<8 hex>-` starts, as an X-Ray trace ID does, and whether `Root=` comes
    /// right before it (an `X-Amzn-Trace-Id` value).
    Xray { start: usize, after_root: bool },
}

/// Calls `f` with the position of every `=` after `d` or `D`, and every `:` after `d"`,
/// `D"`, `d\"` or `D\"`, in order.
pub fn for_each_key_end(hay: &[u8], mut f: impl FnMut(usize)) {
    for_each_found_at::<false>(Simd::current(), hay, &mut |found| {
        if let Found::KeyEnd(at) = found {
            f(at);
        }
    });
}

/// [`for_each_key_end`], also every `:` right after `d` or `D` (a plain-text `span_id: ...`,
/// which `ids` reads for trace values where the audit leaves such text to prose), after `d `
/// (`span_id : ...`) or after `d" ` (`"span_id" : ...`, as some JSON writers space it), and
/// in the same pass every X-Ray start, in order: `ids` reads the trace values behind both,
/// and a search of its own for X-Ray IDs cost a second look at the bytes (a search for `1-`
/// on each line stops at most dates).
pub fn for_each_key_end_or_xray(hay: &[u8], mut f: impl FnMut(Found)) {
    for_each_found_at::<true>(Simd::current(), hay, &mut f);
}

/// The key ends, and with `FOR_IDS` the X-Ray starts, at the dispatch level `simd`.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
fn for_each_found_at<const FOR_IDS: bool>(simd: Simd, hay: &[u8], f: &mut impl FnMut(Found)) {
    #[cfg(target_arch = "x86_64")]
    let done = match simd.level() {
        // SAFETY: a `Simd` at a level exists only when the CPU has that level's features.
        Level::Avx512 => unsafe { x86::found_avx512::<FOR_IDS>(hay, f) },
        // SAFETY: as above.
        Level::Avx2 => unsafe { x86::found_avx2::<FOR_IDS>(hay, f) },
        Level::Sse2 => x86::found_sse2::<FOR_IDS>(hay, f),
        Level::Scalar => 0,
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    tail::<FOR_IDS>(hay, done, f);
}

/// The same as [`for_each_key_end_or_xray`], one byte at a time: the reference the
/// vector paths are tested against.
#[cfg(test)]
pub(crate) fn for_each_found_scalar<const FOR_IDS: bool>(hay: &[u8], mut f: impl FnMut(Found)) {
    tail::<FOR_IDS>(hay, 0, &mut f);
}

fn is_d(b: u8) -> bool {
    b | 0x20 == b'd'
}

/// True when `hay[i]` ends a key as [`for_each_key_end`] says, or with `BARE` also as
/// [`for_each_key_end_or_xray`] says (`span_id: ...`).
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

/// The X-Ray start whose second `-` is `hay[i]`, if there is one. The bytes between are hex,
/// so no other find lies between its start and `i`, and reporting it at `i` keeps the order.
fn xray_ending_at(hay: &[u8], i: usize) -> Option<Found> {
    let start = i.checked_sub(10)?;
    crate::id::trace::is_xray_head(hay, start).then(|| Found::Xray {
        start,
        after_root: hay[..start].ends_with(b"Root="),
    })
}

fn tail<const FOR_IDS: bool>(hay: &[u8], from: usize, f: &mut impl FnMut(Found)) {
    for i in from..hay.len() {
        if is_key_end::<FOR_IDS>(hay, i) {
            f(Found::KeyEnd(i));
        } else if FOR_IDS && let Some(xray) = xray_ending_at(hay, i) {
            f(xray);
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

    use super::{Found, xray_ending_at};

    /// Bit k of each mask is set when byte k of a 64-byte block is that byte.
    #[derive(Clone, Copy, Default)]
    struct Masks {
        equals: u64,
        colon: u64,
        quote: u64,
        backslash: u64,
        /// `d` or `D`.
        d: u64,
        /// `1`, `-` and ` `, looked for only by `ids` (X-Ray starts, bare keys).
        one: u64,
        dash: u64,
        space: u64,
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
    unsafe fn masks<V: Lanes, const FOR_IDS: bool>(p: *const u8) -> Masks {
        let mut m = Masks::default();
        for k in 0..64 / V::WIDTH {
            let shift = V::WIDTH * k;
            // SAFETY: p + shift + WIDTH <= p + 64, readable by the caller's promise, who also
            // promises the features.
            unsafe {
                let v = V::load(p.add(shift));
                let is = |b: u8| v.eq(b) << shift;
                m.equals |= is(b'=');
                m.colon |= is(b':');
                m.quote |= is(b'"');
                m.backslash |= is(b'\\');
                m.d |= v.folded().eq(b'd') << shift;
                if FOR_IDS {
                    m.one |= is(b'1');
                    m.dash |= is(b'-');
                    m.space |= is(b' ');
                }
            }
        }
        m
    }

    /// Reports what the whole 64-byte blocks of `hay` hold, 16 bytes a compare; returns
    /// where the blocks stop, for the scalar tail.
    pub(super) fn found_sse2<const FOR_IDS: bool>(hay: &[u8], f: &mut impl FnMut(Found)) -> usize {
        // SAFETY: `found` reads only whole blocks of `hay`.
        found::<FOR_IDS>(hay, f, |p| unsafe { masks::<__m128i, FOR_IDS>(p) })
    }

    /// [`found_sse2`], 32 bytes a compare.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn found_avx2<const FOR_IDS: bool>(
        hay: &[u8],
        f: &mut impl FnMut(Found),
    ) -> usize {
        // SAFETY: `found` reads only whole blocks of `hay`; the caller promises AVX2.
        found::<FOR_IDS>(hay, f, |p| unsafe { masks::<__m256i, FOR_IDS>(p) })
    }

    /// [`found_sse2`], 64 bytes a compare.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn found_avx512<const FOR_IDS: bool>(
        hay: &[u8],
        f: &mut impl FnMut(Found),
    ) -> usize {
        // SAFETY: `found` reads only whole blocks of `hay`; the caller promises AVX-512.
        found::<FOR_IDS>(hay, f, |p| unsafe { masks::<__m512i, FOR_IDS>(p) })
    }

    /// The loop of all three: `masks` reads the 64 bytes at a pointer it is given, which are
    /// always readable.
    #[inline(always)]
    fn found<const FOR_IDS: bool>(
        hay: &[u8],
        f: &mut impl FnMut(Found),
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
            if FOR_IDS {
                let space1 = back(m.space, prev.space, 1);
                let quote2 = back(m.quote, prev.quote, 2);
                ends |= m.colon & (d1 | (space1 & (d2 | (quote2 & d3))));
            }
            // The second `-` of `1-xxxxxxxx-`, where the hex between is checked byte by byte.
            let xrays = if FOR_IDS {
                m.dash & back(m.dash, prev.dash, 9) & back(m.one, prev.one, 10)
            } else {
                0
            };
            let mut all = ends | xrays;
            while all != 0 {
                let bit = all & all.wrapping_neg();
                let at = p + bit.trailing_zeros() as usize;
                if ends & bit != 0 {
                    f(Found::KeyEnd(at));
                } else if let Some(xray) = xray_ending_at(hay, at) {
                    f(xray);
                }
                all &= all - 1;
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
        for_each_found_scalar::<false>(hay, |found| {
            if let Found::KeyEnd(i) = found {
                slow.push(i);
            }
        });
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
        for_each_key_end_or_xray(text, |f| ids.push(f));
        assert_eq!(
            ids,
            vec![
                Found::KeyEnd(7),
                Found::KeyEnd(37),
                Found::KeyEnd(59),
                Found::KeyEnd(75)
            ]
        );
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

    #[test]
    fn xray_starts_and_key_ends_come_in_order() {
        let text = b"Root=1-5759e988-b trace_id=Root=1-5759e988-b root=1-ABCDEF01- \
            Root=1-5759e98-b Root=1-5759e98g-b Root=2-5759e988-b 1-1-1-1-1-1-";
        let mut found = Vec::new();
        for_each_key_end_or_xray(text, |f| found.push(f));
        let xray = |start, after_root| Found::Xray { start, after_root };
        assert_eq!(
            found,
            vec![
                xray(5, true),
                Found::KeyEnd(26),
                xray(32, true),
                xray(50, false)
            ]
        );
    }

    /// Every level finds what the byte-at-a-time reference finds, across the edges of the
    /// 64-byte blocks; the X-Ray starts are also checked against a search for `1-`.
    #[test]
    fn vector_paths_equal_the_scalar_one_across_block_edges() {
        let levels = coverage::levels(
            "keys",
            &[Level::Avx512, Level::Avx2, Level::Sse2, Level::Scalar],
        );
        let pieces: [&[u8]; 16] = [
            b"d",
            b"D",
            b"=",
            b":",
            b"\"",
            b"\\",
            b"x",
            b"id",
            b"\n",
            b"Root=",
            b"1",
            b"-",
            b"1-5759e988-",
            b"1-5759",
            b"e988",
            b" ",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let (mut xrays_seen, mut roots_seen) = (0, 0);
        for len in [0, 1, 6, 7, 63, 64, 65, 70, 127, 128, 129, 1000, 4096] {
            for _ in 0..50 {
                let mut hay = Vec::with_capacity(len + 8);
                while hay.len() < len {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    hay.extend_from_slice(pieces[(state >> 33) as usize % pieces.len()]);
                }
                hay.truncate(len);
                let (fast, slow) = ends(&hay);
                assert_eq!(fast, slow, "{:?}", String::from_utf8_lossy(&hay));
                let mut all = Vec::new();
                for_each_found_scalar::<true>(&hay, |found| all.push(found));
                let xrays: Vec<(usize, bool)> = all
                    .iter()
                    .filter_map(|found| match found {
                        Found::Xray { start, after_root } => Some((*start, *after_root)),
                        Found::KeyEnd(_) => None,
                    })
                    .collect();
                let searched: Vec<(usize, bool)> = memchr::memmem::find_iter(&hay, b"1-")
                    .filter(|&at| {
                        hay.len() >= at + 11
                            && hay[at + 2..at + 10].iter().all(u8::is_ascii_hexdigit)
                            && hay[at + 10] == b'-'
                    })
                    .map(|at| (at, hay[..at].ends_with(b"Root=")))
                    .collect();
                assert_eq!(xrays, searched, "{:?}", String::from_utf8_lossy(&hay));
                xrays_seen += xrays.len();
                roots_seen += xrays.iter().filter(|x| x.1).count();
                for &simd in &levels {
                    let name = simd.level().name();
                    let mut at_level = Vec::new();
                    for_each_found_at::<true>(simd, &hay, &mut |found| at_level.push(found));
                    assert_eq!(at_level, all, "{name}: {:?}", String::from_utf8_lossy(&hay));
                    let mut keys_only = Vec::new();
                    for_each_found_at::<false>(simd, &hay, &mut |found| keys_only.push(found));
                    let want: Vec<Found> = slow.iter().map(|&i| Found::KeyEnd(i)).collect();
                    assert_eq!(
                        keys_only,
                        want,
                        "{name}: {:?}",
                        String::from_utf8_lossy(&hay)
                    );
                }
            }
        }
        assert!(
            xrays_seen > 1000 && roots_seen > 100,
            "{xrays_seen} {roots_seen}"
        );
    }
}
