//! The `audit` report: text for a terminal (one block per rule, then one verdict per field),
//! or one JSON object. Paths, field names and tokens come from the logs, so the text escapes
//! them like log text.

use std::io::Write;

use crate::audit::{Evidence, FieldFinding, Report, Rule, RuleReport};
use crate::text::{HEADER_COLOR, LINE_NO_COLOR, MATCH_COLOR, PATH_COLOR, escape_into, paint};
use crate::time::Clock;

/// How many fields a rule's block names before `(+N more)`.
const SHOWN_FIELDS: usize = 5;

/// Width of the rule-name column.
const RULE_WIDTH: usize = 19;

/// Widest field name the verdict table pads to; longer ones push their row.
const FIELD_WIDTH: usize = 32;

pub fn write_json(out: &mut dyn Write, report: &Report) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, report)?;
    out.write_all(b"\n")
}

pub fn write_text(
    out: &mut dyn Write,
    report: &Report,
    clock: &Clock,
    color: bool,
) -> std::io::Result<()> {
    let text = Text { clock, color };
    let mut buf = Vec::with_capacity(8 * 1024);
    let t = &report.totals;
    let s = crate::text::plural;
    let _ = writeln!(
        buf,
        "idgrep audit: {} input{}, {} line{} with IDs, {} ID occurrence{} of {} distinct ID{}, {} field{}",
        t.inputs,
        s(t.inputs as u64),
        t.lines_with_ids,
        s(t.lines_with_ids),
        t.occurrences,
        s(t.occurrences),
        t.distinct_ids,
        s(t.distinct_ids),
        t.fields,
        s(t.fields as u64)
    );
    if t.integer_values > 0 {
        let _ = writeln!(
            buf,
            "  and {} integer values under ID keys",
            t.integer_values
        );
    }
    if t.trace_values > 0 {
        let _ = writeln!(
            buf,
            "  and {} trace and span ID{} in trace fields and headers",
            t.trace_values,
            s(t.trace_values)
        );
    }
    if t.undashed_ignored > 0 {
        let _ = writeln!(
            buf,
            "  ({})",
            crate::text::uncounted_hex(t.undashed_ignored)
        );
    }
    buf.push(b'\n');
    for rule in &report.rules {
        text.rule(&mut buf, rule);
    }
    if !report.fields.is_empty() {
        buf.push(b'\n');
        text.verdicts(&mut buf, report);
    }
    out.write_all(&buf)
}

struct Text<'a> {
    clock: &'a Clock,
    color: bool,
}

impl Text<'_> {
    fn rule(&self, out: &mut Vec<u8>, r: &RuleReport) {
        let name = r.rule.name();
        let pad = RULE_WIDTH.saturating_sub(name.len());
        if r.count == 0 {
            out.extend_from_slice(name.as_bytes());
            out.extend(std::iter::repeat_n(b' ', pad));
            paint(out, self.color, LINE_NO_COLOR, |out| {
                out.extend_from_slice(b"none")
            });
            out.push(b'\n');
            self.zone_note(out, r);
            return;
        }
        paint(out, self.color, HEADER_COLOR, |out| {
            out.extend_from_slice(name.as_bytes())
        });
        out.extend(std::iter::repeat_n(b' ', pad));
        out.extend_from_slice(summary(r).as_bytes());
        if r.breakdown.len() > 1 || (kinds_matter(r.rule) && !r.breakdown.is_empty()) {
            let _ = write!(out, " ({})", parts(&r.breakdown));
        }
        out.push(b'\n');
        if !r.fields.is_empty() {
            out.extend_from_slice(b"  fields: ");
            for (i, f) in r.fields.iter().take(SHOWN_FIELDS).enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                self.finding(out, f, r.rule);
            }
            if r.fields.len() > SHOWN_FIELDS {
                let _ = write!(out, " (+{} more)", r.fields.len() - SHOWN_FIELDS);
            }
            out.push(b'\n');
        }
        for e in &r.examples {
            out.extend_from_slice(b"  ");
            self.evidence(out, e);
            out.push(b'\n');
        }
        self.zone_note(out, r);
    }

    /// id-time-skew on lines whose zone was assumed: said, whether or not the rule found
    /// anything, since it is checked less strictly there.
    fn zone_note(&self, out: &mut Vec<u8>, r: &RuleReport) {
        let (Some(n @ 1..), Some(allowance)) = (r.zone_guessed_lines, r.unknown_zone_ms) else {
            return;
        };
        let _ = writeln!(
            out,
            "  note: {n} line{} written without a UTC offset, read as UTC: their IDs may be up \
             to {} more after them; give --tz ZONE (or --local) to check them to --skew",
            crate::text::plural(n),
            duration(allowance)
        );
    }

    fn finding(&self, out: &mut Vec<u8>, f: &FieldFinding, rule: Rule) {
        match &f.field {
            Some(name) => escape_into(out, name.as_bytes()),
            None => out.extend_from_slice(b"(no field)"),
        }
        // A mix is told by its parts alone.
        let mix = matches!(rule, Rule::FormatMix | Rule::VersionMix);
        if !mix {
            let _ = write!(out, " {}", f.count);
        }
        if f.breakdown.len() > 1 || ((mix || kinds_matter(rule)) && !f.breakdown.is_empty()) {
            let _ = write!(out, " ({})", parts(&f.breakdown));
        }
    }

    /// `path:line  token  [field]`, then what the rule adds.
    fn evidence(&self, out: &mut Vec<u8>, e: &Evidence) {
        if let Some(n) = e.ids {
            // A backfill clump: the millisecond first.
            if let Some(ms) = e.id_time {
                self.clock.write(ms, out);
            }
            let _ = write!(out, "  {n} IDs, e.g. ");
        }
        self.place(out, e);
        out.extend_from_slice(b"  ");
        paint(out, self.color, MATCH_COLOR, |out| {
            escape_into(out, e.token.as_bytes())
        });
        if let Some(field) = &e.field {
            out.extend_from_slice(b"  [");
            escape_into(out, field.as_bytes());
            out.push(b']');
        }
        if let Some(lower) = &e.lowercase {
            out.extend_from_slice(b"  lowercase at ");
            self.place(out, lower);
            if let Some(field) = &lower.field {
                out.extend_from_slice(b" [");
                escape_into(out, field.as_bytes());
                out.push(b']');
            }
        }
        if let (Some(skew), Some(id_ms)) = (e.skew, e.id_time) {
            out.extend_from_slice(b"  ID time ");
            self.clock.write(id_ms, out);
            if skew == "future" {
                out.extend_from_slice(b" is in the future");
            } else if let Some(line_ms) = e.line_time {
                out.extend_from_slice(b", line time ");
                self.clock.write(line_ms, out);
                let _ = write!(out, " (+{})", duration(id_ms.saturating_sub(line_ms)));
            }
        }
    }

    fn place(&self, out: &mut Vec<u8>, e: &Evidence) {
        paint(out, self.color, PATH_COLOR, |out| {
            escape_into(out, e.path.shown.as_bytes())
        });
        out.push(b':');
        let _ = write!(out, "{}", e.line);
    }

    fn verdicts(&self, out: &mut Vec<u8>, report: &Report) {
        // Field names are shown escaped, so their columns are those of the escaped text.
        let shown: Vec<Vec<u8>> = report
            .fields
            .iter()
            .map(|f| {
                let mut name = Vec::new();
                escape_into(&mut name, f.field.as_bytes());
                name
            })
            .collect();
        let columns = |name: &[u8]| String::from_utf8_lossy(name).chars().count();
        let field_width = shown
            .iter()
            .map(|name| columns(name))
            .max()
            .unwrap_or(0)
            .clamp("FIELD".len(), FIELD_WIDTH);
        let format_width = report
            .fields
            .iter()
            .map(|f| f.format.len())
            .max()
            .unwrap_or(0)
            .max("FORMAT".len());
        paint(out, self.color, HEADER_COLOR, |out| {
            let _ = write!(
                out,
                "{:<field_width$}  {:<format_width$}  VERDICT",
                "FIELD", "FORMAT"
            );
        });
        out.push(b'\n');
        for (f, name) in report.fields.iter().zip(&shown) {
            out.extend_from_slice(name);
            out.extend(std::iter::repeat_n(
                b' ',
                field_width.saturating_sub(columns(name)) + 2,
            ));
            let _ = write!(out, "{:<format_width$}  ", f.format);
            if f.consistent {
                paint(out, self.color, LINE_NO_COLOR, |out| {
                    out.extend_from_slice(b"ok")
                });
            } else {
                let phrases: Vec<&str> = f
                    .issues
                    .iter()
                    .filter_map(|name| Rule::from_name(name))
                    .map(Rule::phrase)
                    .collect();
                paint(out, self.color, MATCH_COLOR, |out| {
                    out.extend_from_slice(phrases.join(", ").as_bytes())
                });
            }
            out.push(b'\n');
        }
    }
}

/// Rules whose parts say more than the count: even one kind is worth naming.
fn kinds_matter(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::UuidNoncanonical
            | Rule::NilId
            | Rule::IdTimeSkew
            | Rule::TraceInvalid
            | Rule::TraceNoncanonical
            | Rule::TraceMixedWidth
    )
}

/// The rule's finding in one sentence.
fn summary(r: &RuleReport) -> String {
    let n = r.count;
    let s = crate::text::plural;
    match r.rule {
        Rule::UlidUppercase => format!(
            "{n} occurrence{} of {} ULID{} in upper case",
            s(n),
            r.ids.unwrap_or(0),
            s(r.ids.unwrap_or(0))
        ),
        Rule::UlidMixedCase => {
            let missed = r.missed_lines.unwrap_or(0);
            format!(
                "{n} ULID{} written in both cases; a case-sensitive grep for the lowercase form misses {missed} line{}",
                s(n),
                s(missed)
            )
        }
        Rule::UuidNoncanonical => format!("{n} occurrence{} in a non-canonical form", s(n)),
        Rule::NilId => format!("{n} nil, empty or zero ID{}", s(n)),
        Rule::FormatMix => format!("{n} field{} with more than one format", s(n)),
        Rule::VersionMix => format!("{n} field{} with more than one UUID version", s(n)),
        Rule::IntegerIds => format!("{n} integer value{} under ID keys", s(n)),
        Rule::BackfillClump => {
            let ids = r.ids.unwrap_or(0);
            format!(
                "{n} millisecond{} carrying {} or more distinct IDs each ({ids} IDs)",
                s(n),
                r.min_ids.unwrap_or(0)
            )
        }
        Rule::IdTimeSkew => format!(
            "{n} ID occurrence{} dated more than {} after their line, or in the future",
            s(n),
            duration(r.skew_ms.unwrap_or(0))
        ),
        Rule::TraceInvalid => format!(
            "{n} invalid trace or span ID{} (all zero, or traceparent version ff)",
            s(n)
        ),
        Rule::TraceNoncanonical => format!(
            "{n} trace or span ID{} in upper-case hex (W3C writes lowercase)",
            s(n)
        ),
        Rule::TraceMixedWidth => format!(
            "{n} 64-bit trace ID{} beside 128-bit ones: they hold only the low 64 bits",
            s(n)
        ),
    }
}

/// `name 3, other 1`.
fn parts(breakdown: &std::collections::BTreeMap<&'static str, u64>) -> String {
    breakdown
        .iter()
        .map(|(name, n)| format!("{name} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A duration in the largest units that keep it short: `5m`, `2h 5m`, `7m 3s`, `1.500s`,
/// `350ms`.
pub fn duration(ms: i64) -> String {
    let ms = ms.max(0);
    let (d, h, m, s, milli) = (
        ms / 86_400_000,
        ms / 3_600_000 % 24,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000,
    );
    if ms < 1000 {
        return format!("{ms}ms");
    }
    if ms < 60_000 {
        return if milli == 0 {
            format!("{s}s")
        } else {
            format!("{s}.{milli:03}s")
        };
    }
    let units = [(d, "d"), (h, "h"), (m, "m"), (s, "s")];
    let first = units.iter().position(|(n, _)| *n > 0).unwrap_or(3);
    units[first..]
        .iter()
        .take(2)
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| format!("{n}{unit}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_short() {
        assert_eq!(duration(350), "350ms");
        assert_eq!(duration(1500), "1.500s");
        assert_eq!(duration(30_000), "30s");
        assert_eq!(duration(300_000), "5m");
        assert_eq!(duration(423_000), "7m 3s");
        assert_eq!(duration(7_500_000), "2h 5m");
        assert_eq!(duration(7_200_000), "2h");
        assert_eq!(duration(90_061_000), "1d 1h");
    }
}
