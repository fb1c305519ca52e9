//! A buffer's newlines as a bitmap, one bit per byte, made by vector compares: where the
//! lines of dense hits start and end. The inventory views find IDs on most lines, and two
//! `memchr` calls per line (back to its start, on to its end) cost about as much as the
//! token walk that found them; a bitmap made in one pass over bytes still in the cache
//! answers each in a few instructions.

#[cfg(target_arch = "x86_64")]
use super::simd::Level;
use super::simd::Simd;

/// Bit `k % 64` of word `k / 64`: byte `k` of the buffer is a newline.
#[derive(Debug, Default)]
pub struct Newlines {
    words: Vec<u64>,
    len: usize,
}

impl Newlines {
    /// Maps the newlines of `bytes`, replacing the last map.
    pub fn map(&mut self, bytes: &[u8]) {
        self.map_at(Simd::current(), bytes);
    }

    /// [`Newlines::map`] at the dispatch level `simd`.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(super) fn map_at(&mut self, simd: Simd, bytes: &[u8]) {
        self.len = bytes.len();
        // Sized first, so that the loops store without a capacity check per word; every word
        // is written below, so the last map's words are not cleared first.
        self.words.resize(bytes.len().div_ceil(64), 0);
        let whole = bytes.len() / 64;
        let (words, last) = self.words.split_at_mut(whole);
        let (blocks, rest) = bytes.split_at(whole * 64);
        // SAFETY (the vector arms): a `Simd` at a level exists only when the CPU has that
        // level's features.
        #[cfg(target_arch = "x86_64")]
        match simd.level() {
            Level::Avx512 => unsafe { x86::map_avx512(blocks, words) },
            Level::Avx2 => unsafe { x86::map_avx2(blocks, words) },
            Level::Sse2 => unsafe { x86::map_sse2(blocks, words) },
            Level::Scalar => map_scalar(blocks, words),
        }
        #[cfg(not(target_arch = "x86_64"))]
        map_scalar(blocks, words);
        map_scalar(rest, last);
    }

    /// Where the line holding byte `at` starts: just after the last newline before `at`, or
    /// 0. `at` is at most the buffer's length.
    #[inline]
    pub fn line_start(&self, at: usize) -> usize {
        let mut word = at / 64;
        // Bits below `at` in its word.
        let mut bits = self
            .words
            .get(word)
            .map_or(0, |&w| w & ((1u64 << (at % 64)) - 1));
        loop {
            if bits != 0 {
                return word * 64 + 64 - bits.leading_zeros() as usize;
            }
            if word == 0 {
                return 0;
            }
            word -= 1;
            bits = self.words[word];
        }
    }

    /// The first newline at or after `from`, or the buffer's length.
    #[inline]
    pub fn line_end(&self, from: usize) -> usize {
        let mut word = from / 64;
        let Some(&first) = self.words.get(word) else {
            return self.len;
        };
        let mut bits = first & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                return word * 64 + bits.trailing_zeros() as usize;
            }
            word += 1;
            match self.words.get(word) {
                Some(&w) => bits = w,
                None => return self.len,
            }
        }
    }
}

/// The newline bits of `bytes`, 64 to a word of `words` (one per block, the last block may
/// be partial).
fn map_scalar(bytes: &[u8], words: &mut [u64]) {
    for (block, word) in bytes.chunks(64).zip(words) {
        *word = block
            .iter()
            .enumerate()
            .fold(0, |bits, (k, &b)| bits | u64::from(b == b'\n') << k);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The vector passes of [`super::Newlines::map`], over whole blocks of 64 bytes.

    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must have AVX-512 BW. One word of `words` per whole block of `bytes`.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn map_avx512(bytes: &[u8], words: &mut [u64]) {
        let newline = _mm512_set1_epi8(b'\n' as i8);
        for (block, word) in bytes.chunks_exact(64).zip(words) {
            // SAFETY: the block has 64 bytes.
            let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
            *word = _mm512_cmpeq_epi8_mask(v, newline);
        }
    }

    /// # Safety
    /// The CPU must have AVX2. One word of `words` per whole block of `bytes`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn map_avx2(bytes: &[u8], words: &mut [u64]) {
        let newline = _mm256_set1_epi8(b'\n' as i8);
        for (block, word) in bytes.chunks_exact(64).zip(words) {
            // SAFETY: the block has 64 bytes, two loads of 32.
            let (low, high) = unsafe {
                let p = block.as_ptr();
                (
                    _mm256_loadu_si256(p.cast()),
                    _mm256_loadu_si256(p.add(32).cast()),
                )
            };
            let low = _mm256_movemask_epi8(_mm256_cmpeq_epi8(low, newline)) as u32;
            let high = _mm256_movemask_epi8(_mm256_cmpeq_epi8(high, newline)) as u32;
            *word = u64::from(low) | u64::from(high) << 32;
        }
    }

    /// # Safety
    /// None beyond x86_64's SSE2. One word of `words` per whole block of `bytes`.
    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn map_sse2(bytes: &[u8], words: &mut [u64]) {
        let newline = _mm_set1_epi8(b'\n' as i8);
        for (block, word) in bytes.chunks_exact(64).zip(words) {
            let mut bits = 0;
            for k in 0..4 {
                // SAFETY: the block has 64 bytes, four loads of 16.
                let v = unsafe { _mm_loadu_si128(block.as_ptr().add(16 * k).cast()) };
                let lane = _mm_movemask_epi8(_mm_cmpeq_epi8(v, newline)) as u16;
                bits |= u64::from(lane) << (16 * k);
            }
            *word = bits;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::simd::{Level, coverage};
    use memchr::{memchr, memrchr};

    /// Every level's map gives, at every position, the line bounds `memrchr` and `memchr`
    /// give, on buffers of every length around the block size with newlines at random.
    #[test]
    fn line_bounds_agree_with_memchr() {
        let levels = coverage::levels("scan newline map", &Level::ALL);
        let mut state = 7u32;
        let mut newlines = Newlines::default();
        for len in (0..200).chain([511, 512, 513, 4095, 4096, 4097]) {
            for density in [2, 9, 70, 300] {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                        if (state >> 16).is_multiple_of(density) {
                            b'\n'
                        } else {
                            b'a'
                        }
                    })
                    .collect();
                for &simd in &levels {
                    newlines.map_at(simd, &bytes);
                    for at in 0..=len {
                        let start = memrchr(b'\n', &bytes[..at]).map_or(0, |p| p + 1);
                        let end = memchr(b'\n', &bytes[at..]).map_or(len, |p| at + p);
                        assert_eq!(newlines.line_start(at), start, "{simd:?} {len} {at}");
                        assert_eq!(newlines.line_end(at), end, "{simd:?} {len} {at}");
                    }
                }
            }
        }
    }
}
