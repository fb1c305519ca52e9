//! What every printer and error message shares to show text safely: log text escaped so it
//! cannot drive the terminal, colours, CSV cells that a spreadsheet will not run, and the
//! phrases for counts.
//!
//! Log text never reaches the terminal raw: control characters (C0, DEL, C1), bidirectional
//! overrides and invalid UTF-8 bytes are written as visible escapes (`\x1b`, `\u{202e}`,
//! `\xff`), so a hostile log line cannot move the cursor, retitle the window or hide text.

use std::borrow::Cow;
use std::io::Write;

use crate::search::Outcome;

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
    if bytes
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) || b == b'\t')
    {
        out.extend_from_slice(bytes);
        return;
    }
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if is_unsafe_char(c) {
                if (c as u32) < 0x80 {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                } else {
                    let _ = write!(out, "\\u{{{:x}}}", c as u32);
                }
            } else {
                let mut utf8 = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
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

/// A CSV cell a spreadsheet shows as text: one starting with `=`, `+`, `-` or `@` (or a tab
/// or carriage return, which some spreadsheets skip before those) gets a leading `'`, the
/// OWASP advice against formula injection.
pub fn csv_cell(cell: &str) -> Cow<'_, str> {
    if runs_as_formula(cell.as_bytes()) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// [`csv_cell`] for a cell built as bytes.
pub fn csv_cell_bytes(cell: &[u8]) -> Cow<'_, [u8]> {
    if runs_as_formula(cell) {
        Cow::Owned([b"'", cell].concat())
    } else {
        Cow::Borrowed(cell)
    }
}

fn runs_as_formula(cell: &[u8]) -> bool {
    matches!(
        cell.first(),
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_that_could_run_as_formulas_are_quoted() {
        for bad in ["=1+1", "+1", "-2", "@SUM(A1)", "\t=1", "\r=1"] {
            assert_eq!(csv_cell(bad), format!("'{bad}"));
        }
        assert_eq!(csv_cell("order_id"), "order_id");
        assert_eq!(csv_cell(""), "");
        for bad in ["=1+1", "-2", "\r=1"] {
            assert_eq!(
                *csv_cell_bytes(bad.as_bytes()),
                *format!("'{bad}").as_bytes()
            );
        }
        assert_eq!(*csv_cell_bytes(b"order_id"), *b"order_id");
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
