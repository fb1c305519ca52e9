//! The token walk: every whole ID token of a buffer, whatever its value. The dispatch to the
//! vector walks of `x86` (SSE2, AVX2) and `avx512`, and the byte-at-a-time walk they are
//! tested against.

use super::Hit;
#[cfg(target_arch = "x86_64")]
use super::simd::Level;
use super::simd::Simd;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod x86;

use crate::id::trace::xray_roots;
use crate::id::{self, Shape, ULID_LEN, UUID_UNDASHED_LEN};

/// True for ASCII letters and digits: the bytes of an ID's alphanumeric runs.
static ALNUM: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    t
};

static HEX: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).is_ascii_hexdigit();
        b += 1;
    }
    t
};

/// Group lengths of the hex-and-dash UUID form.
const UUID_GROUPS: [usize; 5] = [8, 4, 4, 4, 12];

/// Calls `f` for every whole ID token in `hay`, in order: 26-character ULIDs (first character
/// 0-7), 32-hex and 8-4-4-4-12 UUIDs.
///
/// On x86_64 a vector pass classifies 64 bytes at a time and marks the few alphanumeric runs
/// that can start an ID (exactly 26 or 32 long, or 8 long and followed by `-`); only those
/// get decoded. Other targets use [`for_each_token_scalar`]. The vector level is the one
/// `IDGREP_SIMD` and the CPU allow (see [`crate::scan`]).
pub fn for_each_token(hay: &[u8], mut f: impl FnMut(Hit)) {
    for_each_token_at(Simd::current(), hay, &mut f);
}

/// [`for_each_token`] at the dispatch level `simd`.
pub(super) fn for_each_token_at<F: FnMut(Hit) + ?Sized>(simd: Simd, hay: &[u8], f: &mut F) {
    walk_at(simd, hay, f, None);
}

/// [`for_each_token_at`], also filling `roots` with where the X-Ray IDs of `X-Amzn-Trace-Id`
/// values start ([`xray_roots`]), in order: the vector walks see them in the blocks they
/// classify anyway, where a search of its own for them read every byte once more.
pub(super) fn for_each_token_and_xray_root<F: FnMut(Hit) + ?Sized>(
    simd: Simd,
    hay: &[u8],
    f: &mut F,
    roots: &mut Vec<usize>,
) {
    roots.clear();
    walk_at(simd, hay, f, Some(roots));
}

#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
fn walk_at<F: FnMut(Hit) + ?Sized>(
    simd: Simd,
    hay: &[u8],
    f: &mut F,
    roots: Option<&mut Vec<usize>>,
) {
    // SAFETY (the vector arms): a `Simd` at a level exists only when the CPU has that level's
    // features.
    #[cfg(target_arch = "x86_64")]
    match simd.level() {
        Level::Avx512 => return unsafe { avx512::tokens(hay, f, roots) },
        Level::Avx2 => return unsafe { x86::tokens_avx2(hay, f, roots) },
        Level::Sse2 => return unsafe { x86::tokens_sse2(hay, f, roots) },
        Level::Scalar => {}
    }
    for_each_token_scalar(hay, f);
    if let Some(roots) = roots {
        roots.extend(xray_roots(hay));
    }
}

/// The shortest run [`for_each_long_run`] reports: a UUID's last group.
pub(super) const RUN_MIN: usize = 12;
/// The longest: 32 hex digits.
pub(super) const RUN_MAX: usize = UUID_UNDASHED_LEN;

/// Calls `f(start, end)` for every maximal run of ASCII letters and digits in `hay` that is
/// [`RUN_MIN`] to [`RUN_MAX`] bytes long, in order: where the tails of many trace, span and
/// UUID needles can end ([`super::tails`]). The vector passes skip the blocks with no run of
/// [`RUN_MIN`] ending in them.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
pub(super) fn for_each_long_run<F: FnMut(usize, usize) + ?Sized>(
    simd: Simd,
    hay: &[u8],
    f: &mut F,
) {
    // SAFETY (the vector arms): a `Simd` at a level exists only when the CPU has that level's
    // features.
    #[cfg(target_arch = "x86_64")]
    match simd.level() {
        Level::Avx512 => return unsafe { avx512::runs(hay, f) },
        Level::Avx2 => return unsafe { x86::long_runs_avx2(hay, f) },
        Level::Sse2 => return unsafe { x86::long_runs_sse2(hay, f) },
        Level::Scalar => {}
    }
    for_each_run_scalar(hay, RUN_MIN, f)
}

/// Calls `f(start, end)` for every maximal run of ASCII letters and digits in `hay` that is
/// `shortest` to [`RUN_MAX`] bytes long, in order, one byte at a time: [`for_each_long_run`]
/// with `shortest` [`RUN_MIN`].
pub(super) fn for_each_run_scalar<F: FnMut(usize, usize) + ?Sized>(
    hay: &[u8],
    shortest: usize,
    f: &mut F,
) {
    let mut i = 0;
    while i < hay.len() {
        while i < hay.len() && !ALNUM[hay[i] as usize] {
            i += 1;
        }
        let start = i;
        while i < hay.len() && ALNUM[hay[i] as usize] {
            i += 1;
        }
        if (shortest..=RUN_MAX).contains(&(i - start)) {
            f(start, i);
        }
    }
}

/// The same hits as [`for_each_token`], one byte at a time: the path for targets without a
/// vector one, and the reference the vector paths are tested and benchmarked against. Works
/// on maximal alphanumeric runs, so the boundary rule holds by construction.
pub fn for_each_token_scalar(hay: &[u8], mut f: impl FnMut(Hit)) {
    let n = hay.len();
    let mut i = 0;
    // The dashed-UUID chain seen so far: groups matched, where it started, where the last
    // group ended.
    let mut groups = 0usize;
    let mut chain_start = 0usize;
    let mut prev_end = usize::MAX;
    while i < n {
        while i < n && !ALNUM[hay[i] as usize] {
            i += 1;
        }
        if i == n {
            break;
        }
        let start = i;
        let mut all_hex = true;
        while i < n && ALNUM[hay[i] as usize] {
            all_hex &= HEX[hay[i] as usize];
            i += 1;
        }
        let len = i - start;
        let follows_dash = prev_end != usize::MAX && start == prev_end + 1 && hay[prev_end] == b'-';
        if all_hex && groups > 0 && follows_dash && len == UUID_GROUPS[groups] {
            groups += 1;
        } else if all_hex && len == UUID_GROUPS[0] {
            groups = 1;
            chain_start = start;
        } else {
            groups = 0;
        }
        prev_end = i;
        let found = if groups == UUID_GROUPS.len() {
            groups = 0;
            id::decode_dashed(&hay[chain_start..i]).map(|id| (chain_start, Shape::UuidDashed, id))
        } else if len == ULID_LEN {
            id::decode_ulid(&hay[start..i]).map(|id| (start, Shape::Ulid, id))
        } else if len == UUID_UNDASHED_LEN && all_hex {
            id::decode_hex(&hay[start..i]).map(|id| (start, Shape::UuidUndashed, id))
        } else {
            None
        };
        if let Some((start, shape, id)) = found {
            debug_assert_eq!(i - start, shape.width());
            f(Hit {
                start,
                end: i,
                shape,
                id,
                query: 0,
            });
        }
    }
}
