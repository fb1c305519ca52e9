//! IDs as the corpus writes them: building ULID, UUIDv7 and UUIDv4 values, rendering one
//! 128-bit value in each written form, and the registry that counts distinct IDs and steers
//! their number toward `--distinct-ids`.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use super::rng::Rng;

const CROCKFORD_LOWER: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
const CROCKFORD_UPPER: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";
const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

const RAND80: u128 = (1u128 << 80) - 1;

/// A ULID: 48-bit unix milliseconds, then 80 random bits.
pub fn ulid(ms: u64, rng: &mut Rng) -> u128 {
    ((ms as u128) << 80) | (rng.u128() & RAND80)
}

/// A UUIDv7 (RFC 9562): 48-bit unix milliseconds, version 7, variant 10, random elsewhere.
pub fn uuid_v7(ms: u64, rng: &mut Rng) -> u128 {
    let r = rng.u128();
    ((ms as u128) << 80) | (0x7 << 76) | (r & (0xfff << 64)) | (0b10 << 62) | (r & ((1 << 62) - 1))
}

/// A UUIDv4: random but for version 4 and variant 10.
pub fn uuid_v4(rng: &mut Rng) -> u128 {
    let r = rng.u128();
    (r & !(0xf << 76) & !(0b11 << 62)) | (0x4 << 76) | (0b10 << 62)
}

/// How one ID is spelled in a line. The discriminants index the per-form line counters.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Form {
    UlidLower = 0,
    UlidUpper,
    /// A lowercase ULID behind a `prefix_`, as TypeID writes it.
    TypeId,
    UuidLower,
    UuidUpper,
    HexLower,
    HexUpper,
    Braced,
    Urn,
}

pub const FORM_COUNT: usize = 9;
pub const FORM_NAMES: [&str; FORM_COUNT] = [
    "ulid_lower",
    "ulid_upper",
    "typeid",
    "uuid_lower",
    "uuid_upper",
    "hex_lower",
    "hex_upper",
    "braced",
    "urn",
];

pub fn write_ulid(out: &mut Vec<u8>, v: u128, upper: bool) {
    let table = if upper {
        CROCKFORD_UPPER
    } else {
        CROCKFORD_LOWER
    };
    let mut buf = [0u8; 26];
    for (i, slot) in buf.iter_mut().enumerate() {
        *slot = table[((v >> (5 * (25 - i))) & 31) as usize];
    }
    out.extend_from_slice(&buf);
}

pub fn write_hex(out: &mut Vec<u8>, v: u128, upper: bool, dashed: bool) {
    let table = if upper { HEX_UPPER } else { HEX_LOWER };
    let mut buf = [0u8; 36];
    let mut n = 0;
    for i in 0..32 {
        if dashed && matches!(i, 8 | 12 | 16 | 20) {
            buf[n] = b'-';
            n += 1;
        }
        buf[n] = table[((v >> (4 * (31 - i))) & 15) as usize];
        n += 1;
    }
    out.extend_from_slice(&buf[..n]);
}

/// Writes `v` in `form`; a TypeID's prefix is the caller's to write.
pub fn write(out: &mut Vec<u8>, v: u128, form: Form) {
    match form {
        Form::UlidLower | Form::TypeId => write_ulid(out, v, false),
        Form::UlidUpper => write_ulid(out, v, true),
        Form::UuidLower => write_hex(out, v, false, true),
        Form::UuidUpper => write_hex(out, v, true, true),
        Form::HexLower => write_hex(out, v, false, false),
        Form::HexUpper => write_hex(out, v, true, false),
        Form::Braced => {
            out.push(b'{');
            write_hex(out, v, false, true);
            out.push(b'}');
        }
        Form::Urn => {
            out.extend_from_slice(b"urn:uuid:");
            write_hex(out, v, false, true);
        }
    }
}

pub fn to_string(v: u128, form: Form) -> String {
    let mut out = Vec::with_capacity(48);
    write(&mut out, v, form);
    String::from_utf8(out).expect("IDs render as ASCII")
}

/// Hashes an ID by folding its halves: the values are random already, and SipHash would cost
/// more than the rest of a line's formatting on a 10-million-ID corpus.
#[derive(Default)]
pub struct FoldHasher(u64);

impl Hasher for FoldHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u128(&mut self, v: u128) {
        let folded = (v as u64) ^ ((v >> 64) as u64).rotate_left(29);
        let wide = folded as u128 * 0x9e37_79b9_7f4a_7c15u128;
        self.0 = (wide as u64) ^ ((wide >> 64) as u64);
    }
}

/// How many IDs recently minted are kept for reuse when the corpus must hold fewer distinct
/// IDs than its operations would naturally mint.
const RING: usize = 1 << 16;

/// Every ID the corpus has written, plus the steering toward a requested distinct count.
pub struct Registry {
    seen: HashSet<u128, BuildHasherDefault<FoldHasher>>,
    ring: Vec<u128>,
    ring_next: usize,
    target: Option<u64>,
    /// Distinct IDs the corpus should hold by now: the target scaled by the bytes written.
    allowance: u64,
}

impl Registry {
    pub fn new(target: Option<u64>) -> Registry {
        let capacity = target.unwrap_or(1 << 20).min(1 << 26) as usize;
        Registry {
            seen: HashSet::with_capacity_and_hasher(capacity, Default::default()),
            ring: Vec::new(),
            ring_next: 0,
            target,
            allowance: 0,
        }
    }

    pub fn set_progress(&mut self, done: u64, total: u64) {
        if let Some(target) = self.target {
            self.allowance = (target as u128 * done as u128 / total.max(1) as u128) as u64;
        }
    }

    /// Records that `v` was written in some line.
    #[inline]
    pub fn note(&mut self, v: u128) {
        self.seen.insert(v);
    }

    pub fn distinct(&self) -> u64 {
        self.seen.len() as u64
    }

    /// An ID for a new entity: freshly minted by `mint`, or, when the corpus already holds
    /// its share of distinct IDs, one written before (a replayed or retried entity).
    pub fn mint(&mut self, rng: &mut Rng, mint: impl FnOnce(&mut Rng) -> u128) -> u128 {
        if self.target.is_some() && self.distinct() >= self.allowance && !self.ring.is_empty() {
            return self.ring[rng.below(self.ring.len() as u64) as usize];
        }
        let v = mint(rng);
        if self.ring.len() < RING {
            self.ring.push(v);
        } else {
            self.ring[self.ring_next] = v;
            self.ring_next = (self.ring_next + 1) % RING;
        }
        v
    }

    /// How many one-off IDs the next line should carry so the distinct count keeps pace
    /// with the target.
    pub fn deficit(&self) -> u64 {
        match self.target {
            Some(_) => self.allowance.saturating_sub(self.distinct()),
            None => 0,
        }
    }
}
