//! The token walk for SSE2 and AVX2, and the parts of it every width shares: the block
//! classes, the candidate run starts, the decoding of candidates and the walk itself.

use super::{RUN_MAX, RUN_MIN};
use crate::id::trace::is_xray_root_at;
use crate::id::{self, Id, Shape, ULID_LEN, UUID_DASHED_LEN, UUID_UNDASHED_LEN};
use crate::scan::Hit;
use crate::scan::x86::Vector;
use std::arch::x86_64::*;

/// Bit k describes byte k of a 64-byte block: an ASCII letter or digit (`alnum`), a hex
/// digit (`hex`, a subset of `alnum`), a `-` (`dash`).
#[derive(Clone, Copy, Default)]
pub(super) struct Classes {
    pub(super) alnum: u64,
    pub(super) hex: u64,
    pub(super) dash: u64,
}

/// What the token walk needs from an instruction set.
///
/// Every method needs the CPU to have the vector type's features: SSE2 for `__m128i`, AVX2
/// and SSE4.1 for `__m256i`, AVX-512 F and BW and SSE4.1 for `__m512i`.
pub(super) trait Kernel {
    /// The classes of the 64 bytes at `p`.
    ///
    /// # Safety
    /// The CPU must have the type's features, and `p..p + 64` must be readable.
    unsafe fn classify(p: *const u8) -> Classes;
    /// [`id::decode_ulid`] for a token known to be all letters and digits (other bytes give
    /// a wrong value, never undefined behaviour).
    ///
    /// # Safety
    /// The CPU must have the type's features.
    unsafe fn decode_ulid(token: &[u8; ULID_LEN]) -> Option<Id>;
    /// [`id::decode_hex`] for a token known to be all hex digits.
    ///
    /// # Safety
    /// The CPU must have the type's features.
    unsafe fn decode_hex(token: &[u8; UUID_UNDASHED_LEN]) -> Id;
    /// [`id::decode_dashed`] for a token known to have hex digits and dashes in place.
    ///
    /// # Safety
    /// The CPU must have the type's features.
    unsafe fn decode_dashed(token: &[u8; UUID_DASHED_LEN]) -> Id;
}

impl Kernel for __m128i {
    /// # Safety
    /// The CPU must have SSE2, and `p..p + 64` must be readable.
    #[inline(always)]
    unsafe fn classify(p: *const u8) -> Classes {
        // SAFETY: the caller's guarantees are the ones classify_lanes needs.
        unsafe { classify_lanes::<Self>(p) }
    }
    // SSE2 has no byte shuffles: the table decoders, which need no feature at all.
    /// # Safety
    /// None: the table decoder is safe code.
    #[inline(always)]
    unsafe fn decode_ulid(token: &[u8; ULID_LEN]) -> Option<Id> {
        id::decode_ulid(token)
    }
    /// # Safety
    /// None: the table decoder is safe code.
    #[inline(always)]
    unsafe fn decode_hex(token: &[u8; UUID_UNDASHED_LEN]) -> Id {
        id::decode_hex(token).expect("the masks checked the digits")
    }
    /// # Safety
    /// None: the table decoder is safe code.
    #[inline(always)]
    unsafe fn decode_dashed(token: &[u8; UUID_DASHED_LEN]) -> Id {
        id::decode_dashed(token).expect("the masks checked the digits and dashes")
    }
}

impl Kernel for __m256i {
    /// # Safety
    /// The CPU must have AVX2, and `p..p + 64` must be readable.
    #[inline(always)]
    unsafe fn classify(p: *const u8) -> Classes {
        // SAFETY: the caller's guarantees are the ones classify_lanes needs.
        unsafe { classify_lanes::<Self>(p) }
    }
    /// # Safety
    /// The CPU must have SSE4.1 (every AVX2 CPU has it).
    #[inline(always)]
    unsafe fn decode_ulid(token: &[u8; ULID_LEN]) -> Option<Id> {
        // SAFETY: as the caller promises.
        unsafe { id::sse41::decode_ulid(token) }
    }
    /// # Safety
    /// The CPU must have SSE4.1 (every AVX2 CPU has it).
    #[inline(always)]
    unsafe fn decode_hex(token: &[u8; UUID_UNDASHED_LEN]) -> Id {
        // SAFETY: as the caller promises.
        unsafe { id::sse41::decode_hex(token) }
    }
    /// # Safety
    /// The CPU must have SSE4.1 (every AVX2 CPU has it).
    #[inline(always)]
    unsafe fn decode_dashed(token: &[u8; UUID_DASHED_LEN]) -> Id {
        // SAFETY: as the caller promises.
        unsafe { id::sse41::decode_dashed(token) }
    }
}

/// Classifies 64 bytes as 64 / LANES vectors.
///
/// # Safety
/// The CPU must have `V`'s features, and `p..p + 64` must be readable.
#[inline(always)]
unsafe fn classify_lanes<V: Vector>(p: *const u8) -> Classes {
    let mut c = Classes::default();
    // SAFETY: the caller keeps p..p+64 readable and has enabled V's features.
    unsafe {
        let dash = V::splat(b'-');
        for k in (0..64).step_by(V::LANES) {
            let v = V::load(p.add(k));
            let (alnum, hex) = v.alnum_hex();
            c.alnum |= (alnum.movemask() as u64) << k;
            c.hex |= (hex.movemask() as u64) << k;
            c.dash |= (v.eq(dash).movemask() as u64) << k;
        }
    }
    c
}

/// The classes of a block and the one after it, as 128-bit masks: judging a run that
/// starts in the first block takes at most 37 bytes, so the second holds the rest of it.
struct Window {
    alnum: u128,
    hex: u128,
    dash: u128,
}

impl Window {
    #[inline(always)]
    fn new(cur: Classes, next: Classes) -> Window {
        let join = |a: u64, b: u64| a as u128 | (b as u128) << 64;
        Window {
            alnum: join(cur.alnum, next.alnum),
            hex: join(cur.hex, next.hex),
            dash: join(cur.dash, next.dash),
        }
    }

    /// Bits `at..at + 64` of a mask.
    #[inline(always)]
    fn at(mask: u128, at: u32) -> u64 {
        (mask >> at) as u64
    }
}

/// Starts of the alphanumeric runs of one block that may be IDs, one mask per shape.
#[derive(Clone, Copy)]
struct Starts {
    /// Every run start.
    begins: u64,
    /// Runs of exactly 26.
    ulid: u64,
    /// Runs of exactly 32.
    hex: u64,
    /// Runs of exactly 8 followed by `-`: maybe the first group of a dashed UUID.
    dashed: u64,
}

/// The candidate run starts in the first block of `w`, given bit 63 of the block before
/// it (`carry`: is the run at bit 0 a continuation?).
#[inline(always)]
fn starts(w: &Window, carry: u64) -> Starts {
    let m = w.alnum;
    // Bit k of `runN`: bytes k..k+N are all alphanumeric. Doubling keeps it to four steps.
    let run2 = m & m >> 1;
    let run4 = run2 & run2 >> 2;
    let run8 = run4 & run4 >> 4;
    let run16 = run8 & run8 >> 8;
    let first = m as u64;
    let begins = first & !(first << 1 | carry);
    // Bit k: byte k + len ends the run.
    let ends_at = |len: usize| !Window::at(m, len as u32);
    Starts {
        begins,
        ulid: begins & (run16 & run8 >> 16 & run2 >> 24) as u64 & ends_at(ULID_LEN),
        hex: begins & (run16 & run16 >> 16) as u64 & ends_at(UUID_UNDASHED_LEN),
        // A dash is not alphanumeric, so it ends the run too.
        dashed: begins & run8 as u64 & Window::at(w.dash, 8),
    }
}

/// Where the dashes of the dashed form are, from its first byte on.
const DASHED_DASHES: u64 = 1 << 8 | 1 << 13 | 1 << 18 | 1 << 23;
/// Where its hex digits are.
const DASHED_DIGITS: u64 = ((1 << UUID_DASHED_LEN) - 1) & !DASHED_DASHES;

/// Decodes the candidates of the block at `offset` and reports the IDs, in order.
///
/// # Safety
/// The CPU must have `K`'s features. (Token bounds are checked: a wrong `w` or `s` gives
/// wrong hits, or a panic, never undefined behaviour.)
#[inline(always)]
unsafe fn visit<K: Kernel, F: FnMut(Hit) + ?Sized>(
    hay: &[u8],
    offset: usize,
    w: &Window,
    s: Starts,
    f: &mut F,
) {
    let mut all = s.ulid | s.hex | s.dashed;
    while all != 0 {
        let k = all.trailing_zeros();
        let bit = 1 << k;
        all ^= bit;
        let start = offset + k as usize;
        let found = if s.ulid & bit != 0 {
            // The alphabet (no I, L, O, U) and the first character are left to the decoder.
            let token = hay[start..][..ULID_LEN].try_into().unwrap();
            // SAFETY: the caller enabled K's features.
            unsafe { K::decode_ulid(token) }.map(|id| (Shape::Ulid, id))
        } else if s.hex & bit != 0 {
            (Window::at(w.hex, k) as u32 == u32::MAX).then(|| {
                let token = hay[start..][..UUID_UNDASHED_LEN].try_into().unwrap();
                // SAFETY: the caller enabled K's features.
                (Shape::UuidUndashed, unsafe { K::decode_hex(token) })
            })
        } else {
            // Hex digits and dashes in place, and no letter or digit right after: the
            // byte before is a boundary already, as the run begins here.
            let span = (1 << UUID_DASHED_LEN) | DASHED_DIGITS;
            let shaped = Window::at(w.alnum, k) & span == DASHED_DIGITS
                && Window::at(w.hex, k) & DASHED_DIGITS == DASHED_DIGITS
                && Window::at(w.dash, k) & DASHED_DASHES == DASHED_DASHES;
            shaped.then(|| {
                let token = hay[start..][..UUID_DASHED_LEN].try_into().unwrap();
                // SAFETY: the caller enabled K's features.
                (Shape::UuidDashed, unsafe { K::decode_dashed(token) })
            })
        };
        if let Some((shape, id)) = found {
            f(Hit {
                start,
                end: start + shape.width(),
                shape,
                id,
                query: 0,
            });
        }
    }
}

/// The token walk over blocks of 64 bytes. Each block is handled one step late, once the
/// block after it is classified, so runs reaching into it can be measured. With `roots`, it
/// also notes where X-Ray IDs follow `Root=` ([`super::for_each_token_and_xray_root`]): their
/// `1` is a run of one byte with a dash after it, which the block's masks show, and which
/// logs seldom write otherwise.
///
/// # Safety
/// The CPU must have `K`'s features.
#[inline(always)]
pub(super) unsafe fn walk<K: Kernel, F: FnMut(Hit) + ?Sized>(
    hay: &[u8],
    f: &mut F,
    mut roots: Option<&mut Vec<usize>>,
) {
    let padded = Blocks::new(hay);
    let (blocks, block) = (padded.count, |k| padded.at(k));
    if blocks == 0 {
        return;
    }
    // SAFETY (all classify calls): the block pointers have 64 readable bytes; the caller
    // enabled K's features.
    let mut cur = unsafe { K::classify(block(0)) };
    let mut carry = 0;
    for k in 0..blocks {
        let next = if k + 1 < blocks {
            // SAFETY: as above.
            unsafe { K::classify(block(k + 1)) }
        } else {
            Classes::default()
        };
        let w = Window::new(cur, next);
        let s = starts(&w, carry);
        if s.ulid | s.hex | s.dashed != 0 {
            // SAFETY: the caller enabled K's features.
            unsafe { visit::<K, F>(hay, 64 * k, &w, s, f) };
        }
        if let Some(roots) = roots.as_deref_mut() {
            let mut ones = s.begins & Window::at(w.dash, 1);
            while ones != 0 {
                let at = 64 * k + ones.trailing_zeros() as usize;
                if is_xray_root_at(hay, at) {
                    roots.push(at);
                }
                ones &= ones - 1;
            }
        }
        carry = cur.alnum >> 63;
        cur = next;
    }
}

/// A buffer as 64-byte blocks, the last partial one copied and padded with NUL, which is
/// none of the classes: a run ends at the end of the buffer just as at a boundary byte.
struct Blocks<'a> {
    hay: &'a [u8],
    /// Whole blocks of `hay`.
    full: usize,
    /// Blocks in all, the padded one included.
    count: usize,
    tail: [u8; 64],
}

impl<'a> Blocks<'a> {
    fn new(hay: &'a [u8]) -> Blocks<'a> {
        let full = hay.len() / 64;
        let mut tail = [0u8; 64];
        tail[..hay.len() - full * 64].copy_from_slice(&hay[full * 64..]);
        Blocks {
            hay,
            full,
            count: hay.len().div_ceil(64),
            tail,
        }
    }

    /// Where block `k` (below `count`) starts: 64 readable bytes.
    fn at(&self, k: usize) -> *const u8 {
        if k < self.full {
            self.hay[64 * k..].as_ptr()
        } else {
            self.tail.as_ptr()
        }
    }
}

/// Calls `f(start, end)` for every maximal alphanumeric run of [`RUN_MIN`] to [`RUN_MAX`]
/// bytes in `hay`, in order; see [`super::for_each_long_run`].
///
/// # Safety
/// The CPU must have `K`'s features.
#[inline(always)]
pub(super) unsafe fn long_runs<K: Kernel, F: FnMut(usize, usize) + ?Sized>(hay: &[u8], f: &mut F) {
    let padded = Blocks::new(hay);
    let (blocks, block) = (padded.count, |k| padded.at(k));
    if blocks == 0 {
        return;
    }
    // SAFETY (all classify calls): the block pointers have 64 readable bytes; the caller
    // enabled K's features.
    let mut cur = unsafe { K::classify(block(0)) }.alnum;
    let mut prev = 0u64;
    // Where the last run that started in an earlier block started.
    let mut started = 0;
    for k in 0..blocks {
        let next = if k + 1 < blocks {
            // SAFETY: as above.
            unsafe { K::classify(block(k + 1)) }.alnum
        } else {
            0
        };
        // Bit i of `long`: bytes i - RUN_MIN + 1 ..= i (of the previous block and this
        // one) are all alphanumeric; the shifts below are for RUN_MIN = 12.
        const _: () = assert!(RUN_MIN == 12);
        let w = (cur as u128) << 64 | prev as u128;
        let two = w & w << 1;
        let four = two & two << 2;
        let eight = four & four << 4;
        let long = ((eight & four << 8) >> 64) as u64;
        let starts = cur & !(cur << 1 | prev >> 63);
        let ends = cur & !(cur >> 1 | next << 63);
        let mut found = ends & long;
        while found != 0 {
            let last = found.trailing_zeros();
            let end = 64 * k + last as usize + 1;
            let before = starts & (u64::MAX >> (63 - last));
            let start = if before != 0 {
                64 * k + 63 - before.leading_zeros() as usize
            } else {
                started
            };
            if end - start <= RUN_MAX {
                f(start, end);
            }
            found &= found - 1;
        }
        if starts != 0 {
            started = 64 * k + 63 - starts.leading_zeros() as usize;
        }
        prev = cur;
        cur = next;
    }
}

/// [`long_runs`] with 32-byte vectors.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn long_runs_avx2<F: FnMut(usize, usize) + ?Sized>(hay: &[u8], f: &mut F) {
    // SAFETY: the caller's features are the ones the walk needs.
    unsafe { long_runs::<__m256i, F>(hay, f) }
}

/// [`long_runs`] with 16-byte vectors.
///
/// # Safety
/// The CPU must have SSE2 (every x86_64 CPU does).
#[target_feature(enable = "sse2")]
pub(super) unsafe fn long_runs_sse2<F: FnMut(usize, usize) + ?Sized>(hay: &[u8], f: &mut F) {
    // SAFETY: the caller's features are the ones the walk needs.
    unsafe { long_runs::<__m128i, F>(hay, f) }
}

/// The token walk with 32-byte vectors.
///
/// # Safety
/// The CPU must have AVX2, and SSE4.1 for the decoders (every AVX2 CPU has it).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn tokens_avx2<F: FnMut(Hit) + ?Sized>(
    hay: &[u8],
    f: &mut F,
    roots: Option<&mut Vec<usize>>,
) {
    // SAFETY: the caller's features are the ones the walk needs.
    unsafe { walk::<__m256i, F>(hay, f, roots) }
}

/// The token walk with 16-byte vectors.
///
/// # Safety
/// The CPU must have SSE2 (every x86_64 CPU does).
#[target_feature(enable = "sse2")]
pub(super) unsafe fn tokens_sse2<F: FnMut(Hit) + ?Sized>(
    hay: &[u8],
    f: &mut F,
    roots: Option<&mut Vec<usize>>,
) {
    // SAFETY: the caller's features are the ones the walk needs.
    unsafe { walk::<__m128i, F>(hay, f, roots) }
}
