//! The input layer: fuzzer bytes behind each compression magic (gzip, bzip2, xz, zstd), a
//! UTF-16 or UTF-8 byte-order mark, or none, read in pieces of a size the input picks. Opening
//! and reading give an error or lines, never a panic or a hang (the fuzzer's timeout); a
//! search through the same reader reports exactly the lines with an ID of what a plain read
//! gave, or, when the read failed, a prefix of them.

use std::io::Read;

use idgrep::scan::Matcher;
use idgrep::search::{self, Scratch, SearchOptions};
use idgrep::source;

use super::{Bytes, lines, oracle_tokens};

const MAGICS: [&[u8]; 9] = [
    b"\x1f\x8b\x08",
    b"BZh9",
    b"BZh1",
    b"\xfd7zXZ\x00",
    b"\x28\xb5\x2f\xfd",
    b"\xff\xfe",
    b"\xfe\xff",
    b"\xef\xbb\xbf",
    b"",
];

/// Decompressed bytes read at most: a small input can expand without end (a bomb is not a
/// fault of the reader), and the oracle is slow.
const LIMIT: u64 = 1 << 20;

pub fn check(data: &[u8]) {
    let mut input = Bytes::new(data);
    let magic = MAGICS[usize::from(input.u8()) % MAGICS.len()];
    let size = 1 + usize::from(input.u16() % 8192);
    let mut bytes = magic.to_vec();
    bytes.extend_from_slice(input.rest());

    // What a plain read gives: all of it, or up to the failure.
    let mut plain = Vec::new();
    let plain_error = match open(&bytes, size) {
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
        Ok(reader) => reader.take(LIMIT).read_to_end(&mut plain).err(),
    };
    if let Some(e) = &plain_error {
        assert!(!e.to_string().is_empty());
    }

    let mut expected = Vec::new();
    let tokens = oracle_tokens(&plain);
    // Tokens come in order and hold no newline: each line's are the next ones before its end.
    let mut next = tokens.iter().peekable();
    for (no, start, line) in lines(&plain) {
        let end = start + line.len();
        let mut found = false;
        while let Some(t) = next.next_if(|t| t.start < end + 1) {
            found |= t.start >= start && t.end <= end && !super::is_number(t, &plain);
        }
        if found {
            expected.push((no, line.to_vec()));
        }
    }
    let reader = open(&bytes, size).expect("opened above");
    let mut got = Vec::new();
    let options = SearchOptions {
        line_numbers: true,
        text: true,
        ..SearchOptions::default()
    };
    let outcome = search::search(
        &Matcher::every_id(),
        options,
        &mut reader.take(LIMIT),
        &mut Scratch::default(),
        &mut |m| {
            got.push((m.line_no, m.line.to_vec()));
            true
        },
    );
    assert_eq!(outcome.error.is_some(), plain_error.is_some());
    if outcome.error.is_some() {
        // Lines before the damage; the partial line at the failure is not vouched for.
        assert!(got.len() <= expected.len(), "more lines than were read");
        assert_eq!(got, expected[..got.len()]);
    } else {
        assert!(got == expected, "{got:?} != {expected:?}");
    }
}

/// `bytes` opened as a file's contents are, handed out `size` bytes a read.
fn open(bytes: &[u8], size: usize) -> std::io::Result<Box<dyn Read + Send>> {
    source::decompress(Box::new(Owned {
        data: bytes.to_vec(),
        at: 0,
        size,
    }))
}

/// [`super::Pieces`] owning its bytes, as `decompress` takes an owned reader.
struct Owned {
    data: Vec<u8>,
    at: usize,
    size: usize,
}

impl Read for Owned {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = &self.data[self.at..];
        let n = self.size.min(buf.len()).min(rest.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}
