//! The byte encoding shared by the index files: little-endian integers, LEB128 varints,
//! length-prefixed bytes, and a reader that checks every bound so that damaged bytes give an
//! error, never a panic. Also the checksums (CRC-32C-fast via `crc32fast`) and the stable key
//! of an ID value.

use std::fmt;

/// What was wrong with an index file; the message names the cause for the one warning line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage(pub String);

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Damage {
    pub fn truncated() -> Damage {
        Damage("truncated".to_string())
    }
}

/// CRC-32 of `bytes`.
pub fn crc(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// The 64-bit key an ID value is filed under. Two IDs may share a key; that only adds a
/// candidate the scanner then rejects, so the index stays exact while its key table halves.
/// The mix is fixed here (SplitMix64's finaliser), not a hasher whose output may change
/// with a crate version, because keys are stored on disk.
pub fn key_of(id: u128) -> u64 {
    let lo = id as u64;
    let hi = (id >> 64) as u64;
    mix(lo ^ mix(hi ^ 0x9e37_79b9_7f4a_7c15))
}

/// The key a 64-bit value (a span ID, or the low half of a trace ID written as 16 hex digits
/// or a decimal) is filed under: in a space of its own, so that it does not meet the key of
/// the 128-bit value with the same low bits.
pub fn narrow_key_of(value: u64) -> u64 {
    mix(mix(value) ^ 0x6a09_e667_f3bc_c908)
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Appends encodings to a byte vector.
#[derive(Default)]
pub struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    pub fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    pub fn i64(&mut self, v: i64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    pub fn varint(&mut self, v: u64) {
        push_varint(&mut self.bytes, v);
    }
    pub fn bytes(&mut self, v: &[u8]) {
        self.varint(v.len() as u64);
        self.bytes.extend_from_slice(v);
    }
}

/// Appends `v` as an LEB128 varint.
pub fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads encodings back, every read checked against the end.
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }

    pub fn at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Damage> {
        let end = self.pos.checked_add(n).ok_or_else(Damage::truncated)?;
        let slice = self
            .bytes
            .get(self.pos..end)
            .ok_or_else(Damage::truncated)?;
        self.pos = end;
        Ok(slice)
    }

    pub fn u8(&mut self) -> Result<u8, Damage> {
        Ok(self.take(1)?[0])
    }
    pub fn u32(&mut self) -> Result<u32, Damage> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    pub fn u64(&mut self) -> Result<u64, Damage> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    pub fn i64(&mut self) -> Result<i64, Damage> {
        Ok(i64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }

    pub fn varint(&mut self) -> Result<u64, Damage> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Damage("a varint runs past 64 bits".to_string()))
    }

    /// A count that must fit in what is left, each item taking at least `min_item` bytes, so
    /// a damaged count cannot make the caller allocate without bound.
    pub fn count(&mut self, min_item: usize) -> Result<usize, Damage> {
        let n = self.varint()?;
        let left = (self.bytes.len() - self.pos) as u64;
        if n.saturating_mul(min_item.max(1) as u64) > left {
            return Err(Damage::truncated());
        }
        Ok(n as usize)
    }

    pub fn bytes(&mut self) -> Result<&'a [u8], Damage> {
        let n = self.count(1)?;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_encoding_reads_back_and_a_cut_is_an_error() {
        let mut w = Writer::default();
        w.u8(7);
        w.u32(0xdead_beef);
        w.u64(u64::MAX);
        w.i64(-5);
        w.varint(300);
        w.varint(u64::MAX);
        w.bytes(b"path/to/log");
        let bytes = w.bytes;
        let mut r = Reader::new(&bytes);
        assert_eq!(r.u8(), Ok(7));
        assert_eq!(r.u32(), Ok(0xdead_beef));
        assert_eq!(r.u64(), Ok(u64::MAX));
        assert_eq!(r.i64(), Ok(-5));
        assert_eq!(r.varint(), Ok(300));
        assert_eq!(r.varint(), Ok(u64::MAX));
        assert_eq!(r.bytes(), Ok(&b"path/to/log"[..]));
        assert!(r.at_end());
        for cut in 0..bytes.len() {
            let mut r = Reader::new(&bytes[..cut]);
            let all = (|| {
                r.u8()?;
                r.u32()?;
                r.u64()?;
                r.i64()?;
                r.varint()?;
                r.varint()?;
                r.bytes()
            })();
            assert!(all.is_err(), "cut at {cut} read as whole");
        }
    }

    #[test]
    fn a_huge_count_is_refused_before_any_allocation() {
        let mut w = Writer::default();
        w.varint(u64::MAX / 2);
        let mut r = Reader::new(&w.bytes);
        assert!(r.count(16).is_err());
    }

    #[test]
    fn keys_are_fixed_and_spread() {
        // Stored on disk: this value must never change without a format version bump.
        assert_eq!(key_of(0), key_of(0));
        assert_ne!(key_of(1), key_of(2));
        assert_ne!(key_of(1), key_of(1 << 64));
        assert_eq!(key_of(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef), FIXED_KEY);
    }

    const FIXED_KEY: u64 = 3_090_731_289_287_110_754;
}
