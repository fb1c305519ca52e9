//! What every printer and error message shares to show text safely: log text escaped so it
//! cannot drive the terminal, colours, CSV cells that a spreadsheet will not run, bytes that
//! are not UTF-8 in JSON, input names, and the phrases for counts.
//!
//! Log text never reaches the terminal raw: control characters (C0, DEL, C1), bidirectional
//! overrides and invalid UTF-8 bytes are written as visible escapes (`\x1b`, `\u{202e}`,
//! `\xff`), so a hostile log line cannot move the cursor, retitle the window or hide text.

use std::borrow::Cow;
use std::io::Write;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::search::Outcome;
use crate::source::{self, Input};

pub const PATH_COLOR: &[u8] = b"\x1b[35m";
pub const LINE_NO_COLOR: &[u8] = b"\x1b[32m";
pub const MATCH_COLOR: &[u8] = b"\x1b[1;31m";
pub const HEADER_COLOR: &[u8] = b"\x1b[1m";
pub const RESET: &[u8] = b"\x1b[0m";

/// The `s` that makes a noun plural for a count of `n`.
pub fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The lines a binary input's notice speaks of, called `noun`: `2 lines`, or `2 more lines`
/// when the lines before its NUL were shown (see `Outcome::withheld_lines`).
pub fn withheld_lines(outcome: &Outcome, noun: &str) -> String {
    let n = outcome.withheld_lines;
    let more = if n < outcome.matched_lines {
        " more"
    } else {
        ""
    };
    format!("{n}{more} {noun}{}", plural(n))
}

/// The 32-hex tokens left out as IDs, in the words `ids` and `audit` both use.
pub fn uncounted_hex(n: u64) -> String {
    if n == 1 {
        "1 32-hex token not counted: its value is written in no other form".to_string()
    } else {
        format!("{n} 32-hex tokens not counted: their values are written in no other form")
    }
}

/// True for characters that a terminal would act on rather than show.
fn is_unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(
            c,
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
        )
}

/// Appends `bytes` with every control character, bidi override and invalid UTF-8 byte written
/// as a visible escape.
pub fn escape_into(out: &mut Vec<u8>, bytes: &[u8]) {
    let mut rest = bytes;
    loop {
        let shown = plain_prefix_len(rest);
        out.extend_from_slice(&rest[..shown]);
        rest = &rest[shown..];
        let Some(&lead) = rest.first() else {
            return;
        };
        // One character, or one byte that starts none: a byte of an invalid sequence after its
        // lead is a continuation byte, which starts no character either, so byte by byte gives
        // the escapes of `utf8_chunks`.
        let width = match lead {
            0x00..=0x7f => 1,
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => 0,
        };
        let character = rest
            .get(..width)
            .and_then(|head| std::str::from_utf8(head).ok())
            .and_then(|head| head.chars().next());
        let Some(c) = character else {
            let _ = write!(out, "\\x{lead:02x}");
            rest = &rest[1..];
            continue;
        };
        if !is_unsafe_char(c) {
            out.extend_from_slice(&rest[..width]);
        } else if (c as u32) < 0x80 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        rest = &rest[width..];
    }
}

/// `bytes` as [`escape_into`] writes them, borrowed when that changes nothing.
pub fn visible(bytes: &[u8]) -> Cow<'_, [u8]> {
    if plain_prefix_len(bytes) == bytes.len() {
        return Cow::Borrowed(bytes);
    }
    let mut escaped = Vec::with_capacity(bytes.len() + 8);
    escape_into(&mut escaped, bytes);
    if escaped == bytes {
        Cow::Borrowed(bytes)
    } else {
        Cow::Owned(escaped)
    }
}

/// How many leading bytes of `bytes` are printable ASCII or tabs, shown as they are. Most
/// log lines are all such bytes and every printed line passes through here, so it tests 32
/// bytes at a time without an early exit, which the compiler turns into vector compares.
fn plain_prefix_len(bytes: &[u8]) -> usize {
    let plain = |b: u8| (0x20..0x7f).contains(&b) || b == b'\t';
    let len = bytes
        .chunks_exact(32)
        .take_while(|chunk| chunk.iter().fold(true, |all, &b| all & plain(b)))
        .count()
        * 32;
    len + bytes[len..]
        .iter()
        .position(|&b| !plain(b))
        .unwrap_or(bytes.len() - len)
}

/// [`escape_into`] about `piece` bytes (4 or more) at a time, handing `out` to `spill` after
/// each piece but the last: a line of gigabytes is written out as it is escaped, never held
/// escaped whole. The pieces end between characters, so the bytes are those of one
/// [`escape_into`]. False as soon as `spill` returns false (the output is gone).
pub fn escape_in_pieces(
    out: &mut Vec<u8>,
    mut bytes: &[u8],
    piece: usize,
    spill: &mut dyn FnMut(&mut Vec<u8>) -> bool,
) -> bool {
    debug_assert!(piece >= 4);
    while bytes.len() > piece {
        // Back to the first byte of the character the cut falls in, if it is one: a UTF-8
        // character is at most four bytes, and only its first is not `0b10xx_xxxx`.
        let cut = (piece - 3..=piece)
            .rev()
            .find(|&i| bytes[i] & 0xc0 != 0x80)
            .unwrap_or(piece);
        escape_into(out, &bytes[..cut]);
        if !spill(out) {
            return false;
        }
        bytes = &bytes[cut..];
    }
    escape_into(out, bytes);
    true
}

/// Appends what `body` writes, wrapped in the ANSI `color` and a reset when `on`: the one way
/// every view colours its text.
pub fn paint(out: &mut Vec<u8>, on: bool, color: &[u8], body: impl FnOnce(&mut Vec<u8>)) {
    if on {
        out.extend_from_slice(color);
        body(out);
        out.extend_from_slice(RESET);
    } else {
        body(out);
    }
}

/// A CSV cell that neither drives a terminal nor runs in a spreadsheet: control characters,
/// bidi overrides and invalid UTF-8 written as visible escapes ([`escape_into`], as the text
/// views write them), then a leading `'` on a cell starting with `=`, `+`, `-` or `@` (or a
/// tab, which some spreadsheets skip before those), the OWASP advice against formula
/// injection.
pub fn csv_cell(cell: &str) -> Cow<'_, str> {
    match csv_cell_bytes(cell.as_bytes()) {
        Cow::Borrowed(_) => Cow::Borrowed(cell),
        // Escapes are ASCII, and the rest is `cell`'s own characters.
        Cow::Owned(bytes) => Cow::Owned(String::from_utf8_lossy(&bytes).into_owned()),
    }
}

/// [`csv_cell`] for a cell built as bytes.
pub fn csv_cell_bytes(cell: &[u8]) -> Cow<'_, [u8]> {
    let visible = visible(cell);
    if runs_as_formula(&visible) {
        Cow::Owned([b"'", &visible[..]].concat())
    } else {
        visible
    }
}

/// Bytes in JSON: a string when they are UTF-8, else `{"bytes": base64}` of them, as ripgrep
/// writes a path or a line that is not UTF-8. Every JSON output and `merge` use this one
/// form.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
pub enum JsonText<'a> {
    Text(Cow<'a, str>),
    Bytes { bytes: String },
}

impl<'a> JsonText<'a> {
    pub fn of(bytes: &'a [u8]) -> JsonText<'a> {
        match std::str::from_utf8(bytes) {
            Ok(text) => JsonText::Text(Cow::Borrowed(text)),
            Err(_) => JsonText::Bytes {
                bytes: BASE64.encode(bytes),
            },
        }
    }

    /// The bytes written, read back.
    pub fn into_bytes(self) -> Result<Vec<u8>, String> {
        match self {
            JsonText::Text(text) => Ok(text.into_owned().into_bytes()),
            JsonText::Bytes { bytes } => BASE64
                .decode(bytes)
                .map_err(|e| format!("\"bytes\" is not base64: {e}")),
        }
    }
}

/// An input's name as the printers give it: shown escaped in text, exactly in JSON (a
/// [`JsonText`] of its bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    /// As text views, CSV and messages show it ([`Input::display_name`]): a byte that is not
    /// UTF-8 written `\xNN`; the text views escape control characters as they print it.
    pub shown: String,
    /// As the file system has it ([`Input::name_bytes`]).
    pub bytes: Vec<u8>,
}

impl Name {
    pub fn of(input: &Input) -> Name {
        Name {
            shown: input.display_name(),
            bytes: input.name_bytes(),
        }
    }

    /// A name read back from JSON.
    pub fn from_bytes(bytes: Vec<u8>) -> Name {
        Name {
            shown: source::shown_name(&bytes),
            bytes,
        }
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        JsonText::of(&self.bytes).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Name, D::Error> {
        let bytes = JsonText::deserialize(deserializer)?
            .into_bytes()
            .map_err(serde::de::Error::custom)?;
        Ok(Name::from_bytes(bytes))
    }
}

fn runs_as_formula(cell: &[u8]) -> bool {
    matches!(cell.first(), Some(b'=' | b'+' | b'-' | b'@' | b'\t'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_that_could_run_as_formulas_are_quoted() {
        for bad in ["=1+1", "+1", "-2", "@SUM(A1)", "\t=1"] {
            assert_eq!(csv_cell(bad), format!("'{bad}"));
        }
        assert_eq!(csv_cell("order_id"), "order_id");
        assert_eq!(csv_cell(""), "");
        for bad in ["=1+1", "-2", "\t=1"] {
            assert_eq!(
                *csv_cell_bytes(bad.as_bytes()),
                *format!("'{bad}").as_bytes()
            );
        }
        assert_eq!(*csv_cell_bytes(b"order_id"), *b"order_id");
    }

    #[test]
    fn csv_cells_cannot_drive_a_terminal() {
        // A carriage return is made visible, so what follows it is no formula either.
        assert_eq!(csv_cell("\r=1"), "\\x0d=1");
        assert_eq!(
            csv_cell("a\x1b]0;pwned\x07b \u{202e}c é"),
            "a\\x1b]0;pwned\\x07b \\u{202e}c é"
        );
        assert_eq!(*csv_cell_bytes(b"\x1b[2J=1"), *b"\\x1b[2J=1");
        assert_eq!(*csv_cell_bytes(b"-\xff"), *b"'-\\xff");
        assert!(matches!(csv_cell("déjà vu"), Cow::Borrowed(_)));
    }

    /// The escape as its doc defines it, character by character over `utf8_chunks`.
    fn escaped_by_chunks(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for chunk in bytes.utf8_chunks() {
            for c in chunk.valid().chars() {
                if !is_unsafe_char(c) {
                    out.extend_from_slice(c.to_string().as_bytes());
                } else if (c as u32) < 0x80 {
                    out.extend_from_slice(format!("\\x{:02x}", c as u32).as_bytes());
                } else {
                    out.extend_from_slice(format!("\\u{{{:x}}}", c as u32).as_bytes());
                }
            }
            for b in chunk.invalid() {
                out.extend_from_slice(format!("\\x{b:02x}").as_bytes());
            }
        }
        out
    }

    #[test]
    fn escaping_matches_the_character_by_character_definition_on_random_bytes() {
        let mut rng = crate::testing::Rng(7);
        // Mostly printable ASCII, as log lines are, so that long plain runs cross the 32-byte
        // chunks at every offset; the rest any byte, or pieces of real multi-byte characters.
        let pieces: [&[u8]; 6] = [
            "\u{e9}".as_bytes(),
            "\u{202e}".as_bytes(),
            "\u{1f600}".as_bytes(),
            "\u{9b}".as_bytes(),
            b"\xe2\x82",
            b"\xed\xa0\x80",
        ];
        for _ in 0..3000 {
            let mut bytes = Vec::new();
            for _ in 0..rng.below(120) {
                match rng.below(20) {
                    0 => bytes.push(rng.below(256) as u8),
                    1 => bytes.extend_from_slice(rng.pick::<&[u8]>(&pieces)),
                    2 => bytes.push(b'\t'),
                    _ => bytes.push(0x20 + rng.below(0x5f) as u8),
                }
            }
            let mut out = Vec::new();
            escape_into(&mut out, &bytes);
            assert_eq!(out, escaped_by_chunks(&bytes), "{bytes:?}");
        }
    }

    #[test]
    fn escaping_in_pieces_writes_the_bytes_of_one_escape() {
        let mut rng = crate::testing::Rng(21);
        // Characters of every width, controls, bidi overrides, stray and cut sequences.
        let parts: [&[u8]; 10] = [
            b"a",
            b"\x1b",
            "\u{e9}".as_bytes(),
            "\u{202e}".as_bytes(),
            "\u{1f600}".as_bytes(),
            "\u{9b}".as_bytes(),
            b"\xff",
            b"\x80\x80\x80\x80",
            b"\xe2\x82",
            b"\xf0\x9f\x98",
        ];
        for _ in 0..500 {
            let mut bytes = Vec::new();
            for _ in 0..rng.below(40) {
                bytes.extend_from_slice(rng.pick::<&[u8]>(&parts));
            }
            let mut whole = Vec::new();
            escape_into(&mut whole, &bytes);
            for piece in 4..12 {
                let mut written = Vec::new();
                let mut out = Vec::new();
                let mut spills = 0;
                assert!(escape_in_pieces(&mut out, &bytes, piece, &mut |out| {
                    assert!(!out.is_empty());
                    written.append(out);
                    spills += 1;
                    true
                }));
                written.append(&mut out);
                assert_eq!(written, whole, "{bytes:?} in pieces of {piece}");
                assert_eq!(spills > 0, bytes.len() > piece);
            }
        }
        let mut out = Vec::new();
        assert!(!escape_in_pieces(&mut out, &[b'x'; 100], 10, &mut |_| {
            false
        }));
    }

    #[test]
    fn json_text_is_a_string_when_utf8_else_base64_and_reads_back() {
        for (bytes, json) in [
            (&b"a\nb\x1b.log"[..], r#""a\nb\u001b.log""#),
            (b"bad\xffname", r#"{"bytes":"YmFk/25hbWU="}"#),
            (b"", r#""""#),
        ] {
            let written = serde_json::to_string(&JsonText::of(bytes)).unwrap();
            assert_eq!(written, json);
            let read: JsonText = serde_json::from_str(&written).unwrap();
            assert_eq!(read.into_bytes().unwrap(), bytes);
            let name: Name = serde_json::from_str(&written).unwrap();
            assert_eq!(name.bytes, bytes);
            assert_eq!(serde_json::to_string(&name).unwrap(), json);
        }
        let name: Name = serde_json::from_str(r#"{"bytes":"YmFk/25hbWU="}"#).unwrap();
        assert_eq!(name.shown, "bad\\xffname");
        assert!(serde_json::from_str::<Name>(r#"{"bytes":"not base64!"}"#).is_err());
        assert!(serde_json::from_str::<Name>("7").is_err());
    }

    fn escaped(bytes: &[u8]) -> String {
        let mut out = Vec::new();
        escape_into(&mut out, bytes);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn control_sequences_are_made_visible() {
        assert_eq!(escaped(b"a\x1b[31mred\x1b[0m"), "a\\x1b[31mred\\x1b[0m");
        assert_eq!(escaped(b"bell\x07 del\x7f"), "bell\\x07 del\\x7f");
        assert_eq!(escaped("c1 \u{9b}2J".as_bytes()), "c1 \\u{9b}2J");
        assert_eq!(escaped("rtl \u{202e}x".as_bytes()), "rtl \\u{202e}x");
        assert_eq!(escaped(b"bad \xff\xfe"), "bad \\xff\\xfe");
        assert_eq!(
            escaped("tab\tand caf\u{e9}".as_bytes()),
            "tab\tand caf\u{e9}"
        );
    }
}
