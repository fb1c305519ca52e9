//! The search printer: matching and context lines as text or JSON lines, counts, file names,
//! the query header and the binary-file summary.

use std::borrow::Cow;
use std::io::Write;

use serde::Serialize;

use crate::id::{Kind, Parsed};
use crate::record::Analysis;
use crate::search::{LineMatch, Outcome};
use crate::text::{
    HEADER_COLOR, JsonText, LINE_NO_COLOR, MATCH_COLOR, Name, PATH_COLOR, escape_in_pieces,
    escape_into, paint, withheld_lines,
};
use crate::time::{Clock, Precision};

/// How results are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputMode {
    Lines,
    Json,
    Count,
    FilesWithMatches,
    Quiet,
}

/// How much of a long line is escaped before it is handed on: lines up to this long are
/// written in one piece.
const SPILL_PIECE: usize = 1 << 20;

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
    /// A path that is not UTF-8 comes as `{"bytes": base64}`, as ripgrep writes it.
    path: &'a Name,
    line: u64,
    /// The line's own time, RFC 3339 UTC; null when it has none.
    ts: Option<String>,
    /// A line that is not UTF-8 likewise, so that the matches' byte offsets point into what
    /// the reader decodes.
    text: JsonText<'a>,
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
    path: &'a Name,
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
    /// `spill` takes `out` away while a line of more than [`SPILL_PIECE`] bytes is written, so
    /// that it is not held a second time whole; false when it says to stop.
    pub fn line(
        &self,
        out: &mut Vec<u8>,
        name: &Name,
        m: &LineMatch,
        record: Option<&Analysis>,
        spill: &mut dyn FnMut(&mut Vec<u8>) -> bool,
    ) -> bool {
        match self.mode {
            OutputMode::Lines => self.text_line(out, &name.shown, m, spill),
            OutputMode::Json => {
                self.json_line(out, name, m, record);
                true
            }
            _ => true,
        }
    }

    fn text_line(
        &self,
        out: &mut Vec<u8>,
        path: &str,
        m: &LineMatch,
        spill: &mut dyn FnMut(&mut Vec<u8>) -> bool,
    ) -> bool {
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
            if !escape_in_pieces(out, &m.line[at..hit.start], SPILL_PIECE, spill) {
                return false;
            }
            paint(out, self.color, MATCH_COLOR, |out| {
                out.extend_from_slice(&m.line[hit.start..hit.end])
            });
            at = hit.end;
        }
        let whole = escape_in_pieces(out, &m.line[at..], SPILL_PIECE, spill);
        out.push(b'\n');
        whole
    }

    fn json_line(&self, out: &mut Vec<u8>, name: &Name, m: &LineMatch, record: Option<&Analysis>) {
        let record = JsonLine {
            path: name,
            line: m.line_no,
            ts: record
                .and_then(Analysis::time)
                .map(|t| Clock::utc().format_micros(t.micros, Precision::of([t.micros]))),
            text: JsonText::of(m.line),
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
    pub fn input_end(&self, out: &mut Vec<u8>, name: &Name, outcome: &Outcome) {
        let path = &name.shown;
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
                    path: name,
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
            let created = q.unix_ms().map_or("no embedded time".to_string(), |ms| {
                format!("created {}", clock.format(ms))
            });
            let other = match q.kind {
                Kind::Span if q.is_trace64() => format!("hex {}", q.id.hex16()),
                _ if q.is_trace64() => format!("dd.trace_id {}", q.id.low64()),
                Kind::Ulid => format!("uuid {}", q.id.uuid()),
                Kind::Uuid => format!("ulid {}", q.id.ulid()),
                Kind::Trace => format!("xray {}", q.id.xray()),
                Kind::Span => format!("decimal {}", q.id.low64()),
            };
            paint(out, self.color, HEADER_COLOR, |out| {
                let _ = write!(
                    out,
                    "# {}  {}  {}  ({})",
                    q.id.canonical(q.kind),
                    q.describe(),
                    created,
                    other
                );
            });
            out.push(b'\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Input;

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
            printer.input_end(&mut out, &Name::of(&Input::File("p".into())), &outcome);
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
}
