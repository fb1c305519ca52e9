//! Printers: what the user sees. Text lines with colour and escaping, JSON lines, counts, file
//! names, and the decode report.
//!
//! Log text never reaches the terminal raw: control characters (C0, DEL, C1), bidirectional
//! overrides and invalid UTF-8 bytes are written as visible escapes (`\x1b`, `\u{202e}`,
//! `\xff`), so a hostile log line cannot move the cursor, retitle the window or hide text.

pub mod audit;
pub mod inventory;
pub mod timeline;

use std::borrow::Cow;
use std::io::Write;

use serde::Serialize;

use crate::cli::OutputMode;
use crate::id::{Kind, Parsed};
use crate::record::Analysis;
use crate::search::{LineMatch, Outcome};
use crate::time::Clock;

const PATH_COLOR: &[u8] = b"\x1b[35m";
const LINE_NO_COLOR: &[u8] = b"\x1b[32m";
const MATCH_COLOR: &[u8] = b"\x1b[1;31m";
const HEADER_COLOR: &[u8] = b"\x1b[1m";
const RESET: &[u8] = b"\x1b[0m";

/// Printed between groups of lines that are not adjacent when context lines are shown, also
/// between inputs, as grep and ripgrep do.
pub const CONTEXT_BREAK: &[u8] = b"--\n";

/// Formats search results into a byte buffer.
pub struct Printer {
    pub mode: OutputMode,
    pub color: bool,
    pub with_filename: bool,
    pub line_numbers: bool,
    /// Canonical rendering of each query ID, in the form it was given.
    pub canonical: Vec<String>,
}

#[derive(Serialize)]
struct JsonLine<'a> {
    path: &'a str,
    line: u64,
    /// The line's own time, RFC 3339 UTC; null when it has none.
    ts: Option<String>,
    text: Cow<'a, str>,
    matches: Vec<JsonMatch<'a>>,
    /// Present (true) only on lines shown around a match by -A/-B/-C.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    context: bool,
}

#[derive(Serialize)]
struct JsonMatch<'a> {
    id: &'a str,
    raw: Cow<'a, str>,
    start: usize,
    end: usize,
    /// The field that holds the ID (see the README's field rules); null when none.
    field: Option<Cow<'a, str>>,
}

#[derive(Serialize)]
struct JsonBinary<'a> {
    path: &'a str,
    binary_file_matches: u64,
}

impl Printer {
    pub fn new(
        mode: OutputMode,
        color: bool,
        with_filename: bool,
        line_numbers: bool,
        queries: &[Parsed],
    ) -> Printer {
        Printer {
            mode,
            color,
            with_filename,
            line_numbers,
            canonical: queries.iter().map(|q| q.id.canonical(q.kind)).collect(),
        }
    }

    /// One matching line, in the `Lines` or `Json` modes.
    /// `record`: the line read as a record (JSON mode only), for fields and the line time.
    pub fn line(&self, out: &mut Vec<u8>, path: &str, m: &LineMatch, record: Option<&Analysis>) {
        match self.mode {
            OutputMode::Lines => self.text_line(out, path, m),
            OutputMode::Json => self.json_line(out, path, m, record),
            _ => {}
        }
    }

    fn text_line(&self, out: &mut Vec<u8>, path: &str, m: &LineMatch) {
        if m.after_gap {
            out.extend_from_slice(CONTEXT_BREAK);
        }
        // As grep and ripgrep: `:` after the name and number of a match, `-` of a context line.
        let separator = if m.context { b'-' } else { b':' };
        if self.with_filename {
            paint(out, self.color, PATH_COLOR, |out| {
                escape_into(out, path.as_bytes())
            });
            out.push(separator);
        }
        if self.line_numbers {
            paint(out, self.color, LINE_NO_COLOR, |out| {
                let _ = write!(out, "{}", m.line_no);
            });
            out.push(separator);
        }
        let mut at = 0;
        for hit in m.hits {
            escape_into(out, &m.line[at..hit.start]);
            paint(out, self.color, MATCH_COLOR, |out| {
                out.extend_from_slice(&m.line[hit.start..hit.end])
            });
            at = hit.end;
        }
        escape_into(out, &m.line[at..]);
        out.push(b'\n');
    }

    fn json_line(&self, out: &mut Vec<u8>, path: &str, m: &LineMatch, record: Option<&Analysis>) {
        let record = JsonLine {
            path,
            line: m.line_no,
            ts: record
                .and_then(Analysis::time_ms)
                .map(|ms| Clock::utc().format(ms)),
            text: String::from_utf8_lossy(m.line),
            matches: m
                .hits
                .iter()
                .enumerate()
                .map(|(i, h)| JsonMatch {
                    id: &self.canonical[h.query],
                    raw: String::from_utf8_lossy(&m.line[h.start..h.end]),
                    start: h.start,
                    end: h.end,
                    field: record.and_then(|r| r.field(i)).map(String::from_utf8_lossy),
                })
                .collect(),
            context: m.context,
        };
        serde_json::to_writer(&mut *out, &record).expect("writing JSON to memory cannot fail");
        out.push(b'\n');
    }

    /// What follows the lines of one input: the count, the name, or the binary notice.
    pub fn input_end(&self, out: &mut Vec<u8>, path: &str, outcome: &Outcome) {
        let (matched_lines, withheld) = (outcome.matched_lines, outcome.withheld_lines);
        if matched_lines == 0 {
            return;
        }
        match self.mode {
            OutputMode::Count => {
                if self.with_filename {
                    paint(out, self.color, PATH_COLOR, |out| {
                        escape_into(out, path.as_bytes())
                    });
                    out.push(b':');
                }
                let _ = writeln!(out, "{matched_lines}");
            }
            OutputMode::FilesWithMatches => {
                paint(out, self.color, PATH_COLOR, |out| {
                    escape_into(out, path.as_bytes())
                });
                out.push(b'\n');
            }
            OutputMode::Lines if withheld > 0 => {
                paint(out, self.color, PATH_COLOR, |out| {
                    escape_into(out, path.as_bytes())
                });
                let _ = writeln!(
                    out,
                    ": binary file matches ({})",
                    withheld_lines(outcome, "line")
                );
            }
            OutputMode::Json if withheld > 0 => {
                let record = JsonBinary {
                    path,
                    binary_file_matches: withheld,
                };
                serde_json::to_writer(&mut *out, &record)
                    .expect("writing JSON to memory cannot fail");
                out.push(b'\n');
            }
            _ => {}
        }
    }

    /// The terminal header: one line per query ID with its canonical form, kind and time.
    pub fn header(&self, out: &mut Vec<u8>, queries: &[Parsed], clock: &crate::time::Clock) {
        for q in queries {
            let created =
                q.id.unix_ms(q.kind)
                    .map_or("no embedded time".to_string(), |ms| {
                        format!("created {}", clock.format(ms))
                    });
            let other = match q.kind {
                Kind::Ulid => format!("uuid {}", q.id.uuid()),
                Kind::Uuid => format!("ulid {}", q.id.ulid()),
            };
            paint(out, self.color, HEADER_COLOR, |out| {
                let _ = write!(
                    out,
                    "# {}  {}  {}  ({})",
                    q.id.canonical(q.kind),
                    q.id.describe(q.kind),
                    created,
                    other
                );
            });
            out.push(b'\n');
        }
    }
}

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

/// The JSON object `idgrep decode --json` prints per ID.
#[derive(Serialize, Debug)]
pub struct Decoded {
    pub input: String,
    pub id: String,
    pub kind: &'static str,
    pub version: Option<u8>,
    pub variant: Option<&'static str>,
    pub unix_ms: Option<i64>,
    pub time: Option<String>,
    pub ulid: String,
    pub uuid: String,
    pub hex: String,
}

impl Decoded {
    pub fn new(input: &str, parsed: Parsed) -> Decoded {
        let Parsed { id, kind } = parsed;
        let unix_ms = id.unix_ms(kind);
        Decoded {
            input: input.to_string(),
            id: id.canonical(kind),
            kind: kind.name(),
            version: id.version(kind),
            variant: id.variant(kind).map(|v| v.name()),
            unix_ms,
            time: unix_ms.map(|ms| crate::time::Clock::utc().format(ms)),
            ulid: id.ulid(),
            uuid: id.uuid(),
            hex: id.hex(),
        }
    }

    /// The human-readable block for one ID.
    pub fn write_text(&self, out: &mut Vec<u8>, color: bool) {
        let dash = || "-".to_string();
        paint(out, color, HEADER_COLOR, |out| {
            escape_into(out, self.input.as_bytes())
        });
        out.push(b'\n');
        let time = match (&self.time, self.unix_ms) {
            (Some(t), Some(ms)) => format!("{t} (unix_ms {ms})"),
            _ => "none (this kind carries no time)".to_string(),
        };
        let rows = [
            ("id", self.id.clone()),
            ("kind", self.kind.to_string()),
            ("version", self.version.map_or_else(dash, |v| v.to_string())),
            ("variant", self.variant.map_or_else(dash, str::to_string)),
            ("time", time),
            ("ulid", self.ulid.clone()),
            ("uuid", self.uuid.clone()),
            ("hex", self.hex.clone()),
        ];
        for (name, value) in rows {
            let _ = writeln!(out, "  {name:<8} {value}");
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
    fn a_binary_summary_counts_the_lines_it_did_not_show() {
        let queries = [crate::id::parse("01M8KBYGM5NG2PSHNY302ZVWBS").unwrap()];
        let summary = |mode, matched_lines, withheld_lines| {
            let printer = Printer::new(mode, false, true, true, &queries);
            let outcome = Outcome {
                matched_lines,
                withheld_lines,
                ..Outcome::default()
            };
            let mut out = Vec::new();
            printer.input_end(&mut out, "p", &outcome);
            String::from_utf8(out).unwrap()
        };
        for (mode, matched, withheld, expected) in [
            (
                OutputMode::Lines,
                2,
                2,
                "p: binary file matches (2 lines)\n",
            ),
            (OutputMode::Lines, 1, 1, "p: binary file matches (1 line)\n"),
            // Lines before the NUL were shown as they arrived (a pipe).
            (
                OutputMode::Lines,
                3,
                2,
                "p: binary file matches (2 more lines)\n",
            ),
            (
                OutputMode::Json,
                3,
                2,
                "{\"path\":\"p\",\"binary_file_matches\":2}\n",
            ),
            // Nothing withheld (a text file, or a NUL after the last match): no summary.
            (OutputMode::Lines, 3, 0, ""),
            (OutputMode::Count, 3, 3, "p:3\n"),
        ] {
            assert_eq!(summary(mode, matched, withheld), expected, "{mode:?}");
        }
    }

    #[test]
    fn the_header_shows_the_embedded_time_on_the_display_clock() {
        let queries = [crate::id::parse("01M8KBYGM5NG2PSHNY302ZVWBS").unwrap()];
        let printer = Printer::new(OutputMode::Lines, false, true, true, &queries);
        let header = |clock: &crate::time::Clock| {
            let mut out = Vec::new();
            printer.header(&mut out, &queries, clock);
            String::from_utf8(out).unwrap()
        };
        let utc = header(&crate::time::Clock::utc());
        assert!(utc.contains("created 2026-11-29T09:59:58.341Z"), "{utc}");
        let tokyo = jiff::tz::TimeZone::get("Asia/Tokyo").unwrap();
        let local = header(&crate::time::Clock::in_zone(tokyo));
        assert!(
            local.contains("created 2026-11-29T18:59:58.341+09:00"),
            "{local}"
        );
    }

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
