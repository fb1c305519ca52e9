//! The generator's only source of randomness: SplitMix64, written out here so that a seed
//! yields the same corpus byte for byte on every machine and toolchain. Everything is integer
//! arithmetic on purpose: no floats, whose library functions may round differently elsewhere.

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // Mixing the seed keeps seeds 0, 1, 2 ... from starting on neighbouring states.
        let mut rng = Rng(seed ^ 0x6a09_e667_f3bc_c908);
        rng.next_u64();
        rng
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn u128(&mut self) -> u128 {
        ((self.next_u64() as u128) << 64) | self.next_u64() as u128
    }

    /// Uniform in `0..n` by multiply-shift; the bias (n / 2^64) is far below anything a corpus
    /// could show, and skipping rejection keeps the draw count fixed per call.
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `per_mille / 1000`.
    pub fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// Skewed toward small values: the product of two uniforms, so a few entities (users,
    /// SKUs) are popular and most are rare, as in real traffic.
    pub fn skewed(&mut self, n: u64) -> u64 {
        let a = self.below(n) as u128;
        let b = self.below(n) as u128;
        (a * b / n as u128) as u64
    }

    /// Roughly log-uniform in `lo..=hi` (both > 0): picks a power-of-two band first, so
    /// operation lengths span tens to thousands without floating-point logarithms.
    pub fn log_range(&mut self, lo: u64, hi: u64) -> u64 {
        let lo_bits = 64 - lo.leading_zeros() as u64;
        let hi_bits = 64 - hi.leading_zeros() as u64;
        let bits = self.range(lo_bits, hi_bits);
        let band_lo = (1u64 << (bits - 1)).max(lo);
        let band_hi = ((1u64 << bits) - 1).min(hi);
        self.range(band_lo, band_hi.max(band_lo))
    }
}
