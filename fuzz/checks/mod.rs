//! The properties the fuzz targets check, one module per target, shared with the replay of the
//! committed corpora in the normal test suite (`tests/replay.rs`), so that CI on stable Rust
//! holds every committed input to the same checks the fuzzers do.
//!
//! Each `check` takes the fuzzer's bytes and panics when a property fails. Inputs are decoded
//! with [`Bytes`], which never runs out (past the end it reads zeros), so every byte string is
//! a valid input. The helpers here plant IDs in fuzzer bytes ([`plant`]) and find ID tokens
//! the slow and obvious way ([`oracle_tokens`]), with the `ulid` and `uuid` crates as the
//! decoders.

pub mod id_parse;
pub mod index;
pub mod input;
pub mod record;
pub mod scanner;
pub mod tree;

use std::ffi::OsString;

use idgrep::id::{self, Id, Shape};

/// Reads an input's bytes as numbers; past the end, zeros.
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data }
    }

    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u128(&mut self) -> u128 {
        let mut v = 0u128;
        for _ in 0..16 {
            v = (v << 8) | u128::from(self.u8());
        }
        v
    }

    pub fn rest(self) -> &'a [u8] {
        self.data
    }
}

/// The byte that starts a planting directive in fuzzer bytes: `PLANT`, a selector and a
/// case byte become one of the IDs in a written form (see [`plant`]).
pub const PLANT: u8 = 0xF5;

/// `raw` with every `PLANT sel case` replaced by an ID of `ids` (chosen by `sel`) in the form
/// `sel` picks (ULID, dashed UUID, 32 hex, braced, `urn:uuid:`, or a value one bit off), each
/// letter's case from a bit of `case`. With no IDs, the directive stays as it is.
pub fn plant(raw: &[u8], ids: &[Id]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() * 2);
    let mut i = 0;
    while i < raw.len() {
        if raw[i] != PLANT || ids.is_empty() {
            out.push(raw[i]);
            i += 1;
            continue;
        }
        let sel = raw.get(i + 1).copied().unwrap_or(0) as usize;
        let case = raw.get(i + 2).copied().unwrap_or(0);
        i += 3;
        let id = ids[sel % ids.len()];
        let form = (sel / ids.len().max(1)) % 8;
        let near = Id(id.0 ^ (1u128 << (case % 128)));
        let text = match form {
            0 => id.ulid(),
            1 => id.uuid(),
            2 => id.hex(),
            3 => format!("{{{}}}", id.uuid()),
            4 => format!("urn:uuid:{}", id.uuid()),
            5 => near.ulid(),
            6 => near.uuid(),
            _ => id.ulid(),
        };
        for (k, b) in text.bytes().enumerate() {
            let upper = (case >> (k % 8)) & 1 == 1;
            out.push(if upper { b.to_ascii_uppercase() } else { b });
        }
    }
    out
}

/// A whole ID token: where it is, its shape, its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub start: usize,
    pub end: usize,
    pub shape: Shape,
    pub id: Id,
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// Every whole ID token of `hay`, found by trying each shape at every position a token may
/// start (after a byte that is no ASCII letter or digit) and decoding it with the `ulid` and
/// `uuid` crates: a ULID is 26 Crockford characters starting 0-7 (the `ulid` crate does not
/// check the 128-bit overflow), a UUID 8-4-4-4-12 or 32 hex digits.
pub fn oracle_tokens(hay: &[u8]) -> Vec<Token> {
    let mut found = Vec::new();
    for start in 0..hay.len() {
        if start > 0 && alnum(hay[start - 1]) {
            continue;
        }
        for (shape, len) in [
            (Shape::Ulid, 26),
            (Shape::UuidDashed, 36),
            (Shape::UuidUndashed, 32),
        ] {
            let end = start + len;
            if end > hay.len() || (end < hay.len() && alnum(hay[end])) {
                continue;
            }
            let token = &hay[start..end];
            if let Some(value) = decode(shape, token) {
                found.push(Token {
                    start,
                    end,
                    shape,
                    id: Id(value),
                });
            }
        }
    }
    found
}

/// The value of `token` read as `shape` by the `ulid` and `uuid` crates.
pub fn decode(shape: Shape, token: &[u8]) -> Option<u128> {
    match shape {
        Shape::Ulid => {
            if !(b'0'..=b'7').contains(&token[0]) {
                return None;
            }
            let text = std::str::from_utf8(token).ok()?;
            ulid::Ulid::from_string(text).ok().map(|u| u.0)
        }
        Shape::UuidDashed => {
            let dashes_right = token
                .iter()
                .enumerate()
                .all(|(i, &b)| (b == b'-') == matches!(i, 8 | 13 | 18 | 23));
            let hex = token.iter().all(|&b| b == b'-' || b.is_ascii_hexdigit());
            (dashes_right && hex)
                .then(|| uuid::Uuid::try_parse_ascii(token).ok())
                .flatten()
                .map(|u| u.as_u128())
        }
        Shape::UuidUndashed => token
            .iter()
            .all(u8::is_ascii_hexdigit)
            .then(|| uuid::Uuid::try_parse_ascii(token).ok())
            .flatten()
            .map(|u| u.as_u128()),
        // The 64-bit spellings and the X-Ray layout come only from trace and span queries,
        // which the checks here do not make; a ULID or UUID matcher never reports them.
        Shape::Xray | Shape::Hex16 | Shape::Decimal => None,
    }
}

/// The lines of `hay` as a search reports them: numbered from 1, without `\n` or `\r\n`, with
/// where each starts; no empty last line after a final newline.
pub fn lines(hay: &[u8]) -> Vec<(u64, usize, &[u8])> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut no = 1;
    while start < hay.len() {
        let end = memchr_newline(&hay[start..]).map_or(hay.len(), |i| start + i);
        let line = &hay[start..end];
        out.push((no, start, line.strip_suffix(b"\r").unwrap_or(line)));
        no += 1;
        start = end + 1;
    }
    out
}

fn memchr_newline(hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&b| b == b'\n')
}

/// Whether `id::is_number` would leave the token out of the inventories.
pub fn is_number(t: &Token, hay: &[u8]) -> bool {
    id::is_number(t.shape, &hay[t.start..t.end])
}

/// What a command run gave: standard output, standard error, exit status.
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: i32,
}

/// Runs `idgrep` with these arguments (without the program name): in the fuzz targets in the
/// fuzzer's own process, in the test suite as the binary.
pub type Run<'r> = &'r mut dyn FnMut(&[OsString]) -> Output;

/// Hands out `data` in pieces of `size` bytes, so that lines and IDs straddle reads.
pub struct Pieces<'a> {
    pub data: &'a [u8],
    pub size: usize,
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.size.max(1).min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}
