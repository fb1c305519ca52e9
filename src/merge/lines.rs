//! Merging line results: search `--json` and the timeline's NDJSON from runs over disjoint
//! inputs, given in the order a single run would read those inputs.
//!
//! A search prints each input's lines in walk order, so the merge is the results one after
//! the other, each line checked. A timeline sorts its lines by time, ties in input and line
//! order, lines without a time last; its times are shown to the microsecond when any line
//! has one, so a merge parses every time back and writes it again at the precision of the
//! whole.

use serde::{Deserialize, Serialize};

use crate::text::Name;
use crate::time::{Clock, Precision};

/// Whether a result's first line is a search `--json` line.
pub fn is_search(first_line: &serde_json::Value) -> bool {
    first_line.get("path").is_some()
        && (first_line.get("matches").is_some() || first_line.get("binary_file_matches").is_some())
}

/// Whether a result's first line is a timeline NDJSON line.
pub fn is_timeline(first_line: &serde_json::Value) -> bool {
    first_line.get("ts_inferred").is_some() && first_line.get("rule").is_some()
}

/// The search lines of one result, checked; and whether one is a match (not a context line).
pub fn read_search(text: &[u8]) -> Result<(Vec<&[u8]>, bool), String> {
    let mut lines = Vec::new();
    let mut matched = false;
    for (n, line) in text.split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let value: serde_json::Value =
            serde_json::from_slice(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        if !is_search(&value) {
            return Err(format!("line {}: not a search --json line", n + 1));
        }
        matched |= value.get("context").and_then(|c| c.as_bool()) != Some(true);
        lines.push(line);
    }
    Ok((lines, matched))
}

/// One timeline line as NDJSON writes it (docs/timeline.md); the keys in that order.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelineLine {
    ts: Option<String>,
    ts_inferred: bool,
    rule: String,
    path: Name,
    line: u64,
    field: Option<String>,
    via: String,
    text: String,
}

/// A timeline line with its time in Unix microseconds.
pub struct Timed {
    micros: Option<i64>,
    line: TimelineLine,
}

/// The lines of one timeline result, in its order.
pub fn read_timeline(text: &[u8]) -> Result<Vec<Timed>, String> {
    let mut lines = Vec::new();
    for (n, raw) in text.split(|&b| b == b'\n').enumerate() {
        if raw.is_empty() {
            continue;
        }
        let at = |e: &dyn std::fmt::Display| format!("line {}: {e}", n + 1);
        let line: TimelineLine = serde_json::from_slice(raw).map_err(|e| at(&e))?;
        let micros = match &line.ts {
            None => None,
            Some(ts) => {
                let time: jiff::Timestamp = ts.parse().map_err(|e| at(&format!("ts: {e}")))?;
                Some(time.as_microsecond())
            }
        };
        lines.push(Timed { micros, line });
    }
    Ok(lines)
}

/// The timelines of `results` (in input order) as one, written as NDJSON.
pub fn write_timeline(
    out: &mut dyn std::io::Write,
    results: Vec<Vec<Timed>>,
) -> std::io::Result<()> {
    let mut all: Vec<(usize, Timed)> = results
        .into_iter()
        .enumerate()
        .flat_map(|(i, lines)| lines.into_iter().map(move |line| (i, line)))
        .collect();
    // Stable: within a result, its own (file, line) order decides ties.
    all.sort_by_key(|(result, line)| (line.micros.is_none(), line.micros, *result));
    let precision = Precision::of(all.iter().filter_map(|(_, l)| l.micros));
    let utc = Clock::utc();
    let mut buf = Vec::with_capacity(1024);
    for (_, mut timed) in all {
        timed.line.ts = timed
            .micros
            .and_then(|micros| utc.rfc3339_micros(micros, precision));
        buf.clear();
        serde_json::to_writer(&mut buf, &timed.line)?;
        buf.push(b'\n');
        out.write_all(&buf)?;
    }
    Ok(())
}
