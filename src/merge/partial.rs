//! The partial inventory that `idgrep ids --partial` writes and `idgrep merge` reads back: the
//! counts of every ID of one run, unfiltered and unsorted, with what `ids --json` leaves out
//! and a merge needs to print what one run over all the inputs would print:
//! - values written only as 32 hex digits (another run may see them dashed, which makes them
//!   count);
//! - every input read, also those without an ID (the table's FILES column is as wide as the
//!   number of inputs needs);
//! - field names that are not UTF-8, as bytes;
//! - first and last times as Unix milliseconds (RFC 3339 has no year past 9999).
//!
//! The schema is in docs/ids.md; it is versioned by the header line.

use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::id::{self, Form, Id};
use crate::inventory::{Counts, Inventory, Space, Tally};
use crate::text::{JsonText, Name};

/// The header's format version; a reader refuses any other.
const VERSION: u32 = 2;

/// The first line.
#[derive(Serialize, Deserialize)]
struct Header {
    idgrep_partial: String,
    version: u32,
    /// Every input, in walk order, as `ids --json` names it; the records' files index it.
    inputs: Vec<Name>,
}

/// What the header's `idgrep_partial` says: the command whose counts follow.
const KIND: &str = "ids";

/// One ID's line.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Record<'a> {
    /// The 128-bit value as a dashed UUID, whatever its kind (a 64-bit one in the low bits).
    value: String,
    /// `"span"` for a span ID, `"trace64"` for a 64-bit trace ID; absent for the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    space: Option<String>,
    lines: u32,
    occurrences: u32,
    files: Vec<u32>,
    /// A name that is not UTF-8 as `{"bytes": base64}`.
    fields: Vec<(JsonText<'a>, u32)>,
    forms: std::collections::BTreeMap<String, u32>,
    first_ms: Option<i64>,
    last_ms: Option<i64>,
}

/// Writes `inventory` (built with every 32-hex token counted) over the inputs `paths`.
pub fn write(out: &mut dyn Write, inventory: &Inventory, paths: &[Name]) -> std::io::Result<()> {
    let header = Header {
        idgrep_partial: KIND.to_string(),
        version: VERSION,
        inputs: paths.to_vec(),
    };
    let mut line = serde_json::to_vec(&header)?;
    line.push(b'\n');
    out.write_all(&line)?;
    for summary in inventory.summaries() {
        let fields = summary
            .fields()
            .into_iter()
            .map(|(name, n)| (JsonText::of(name), n))
            .collect();
        let record = Record {
            value: summary.id.uuid(),
            space: space_name(summary.space()).map(str::to_string),
            lines: summary.lines(),
            occurrences: summary.occurrences(),
            files: summary.files(),
            fields,
            forms: summary
                .forms()
                .into_iter()
                .map(|(f, n)| (f.name().to_string(), n))
                .collect(),
            first_ms: summary.first_ms(),
            last_ms: summary.last_ms(),
        };
        line.clear();
        serde_json::to_writer(&mut line, &record)?;
        line.push(b'\n');
        out.write_all(&line)?;
    }
    Ok(())
}

/// The `space` of a record: none for 128-bit values.
fn space_name(space: Space) -> Option<&'static str> {
    match space {
        Space::Wide => None,
        Space::Span => Some("span"),
        Space::Trace64 => Some("trace64"),
    }
}

/// Whether `first_line` is the header of a partial inventory.
pub fn is_header(first_line: &serde_json::Value) -> bool {
    first_line.get("idgrep_partial").is_some()
}

/// One partial read back, checked whole before any of it is counted.
pub struct Partial {
    pub inputs: Vec<Name>,
    ids: Vec<ReadId>,
}

/// One ID of a partial: its counts, and its field names (interned once all is read).
struct ReadId {
    space: Space,
    id: Id,
    counts: Counts,
    fields: Vec<(Vec<u8>, u32)>,
}

/// Reads a partial inventory; the error names the line that is wrong.
pub fn read(text: &[u8]) -> Result<Partial, String> {
    let mut lines = text.split(|&b| b == b'\n').enumerate();
    let (_, first) = lines.next().ok_or("empty")?;
    let header: Header =
        serde_json::from_slice(first).map_err(|e| format!("line 1: not a partial header: {e}"))?;
    if header.idgrep_partial != KIND || header.version != VERSION {
        return Err(format!(
            "line 1: a partial of {:?} version {}; this idgrep reads {KIND:?} version \
             {VERSION} (made by `idgrep ids --partial` of the same version)",
            header.idgrep_partial, header.version
        ));
    }
    let inputs = header.inputs.len();
    let mut ids = Vec::new();
    for (n, line) in lines {
        if line.is_empty() {
            continue;
        }
        let at = |e: &dyn std::fmt::Display| format!("line {}: {e}", n + 1);
        let record: Record = serde_json::from_slice(line).map_err(|e| at(&e))?;
        let value = id::parse(&record.value).map_err(|e| at(&format!("value: {e}")))?;
        let space = match record.space.as_deref() {
            None => Space::Wide,
            Some(name) => Space::ALL
                .into_iter()
                .find(|&s| space_name(s) == Some(name))
                .ok_or_else(|| at(&format!("unknown space {name:?} (span, trace64)")))?,
        };
        if space != Space::Wide && value.id.0 >> 64 != 0 {
            return Err(at(&"a 64-bit ID with bits above the 64th"));
        }
        if let Some(&file) = record.files.iter().find(|&&f| f as usize >= inputs) {
            return Err(at(&format!("file {file} is not among the {inputs} inputs")));
        }
        let mut forms = Vec::with_capacity(record.forms.len());
        for (name, n) in record.forms {
            let form = Form::ALL
                .into_iter()
                .find(|f| f.name() == name)
                .ok_or_else(|| at(&format!("unknown form {name:?}")))?;
            forms.push((form, n));
        }
        forms.sort_unstable_by_key(|&(f, _)| f as u8);
        let mut fields = Vec::with_capacity(record.fields.len());
        for (name, n) in record.fields {
            let name = name
                .into_bytes()
                .map_err(|e| at(&format!("field name: {e}")))?;
            fields.push((name, n));
        }
        let counts = Counts {
            lines: record.lines,
            occurrences: record.occurrences,
            files: record.files,
            // Checked with placeholder names: the real ones are interned only once the
            // whole partial has been read.
            fields: Vec::new(),
            forms,
            first_ms: record.first_ms,
            last_ms: record.last_ms,
        };
        let fields_total: u64 = fields.iter().map(|(_, n)| u64::from(*n)).sum();
        if fields_total > u64::from(counts.occurrences) || fields.iter().any(|(_, n)| *n == 0) {
            return Err(at(&"the fields add up to more than the occurrences"));
        }
        counts.check().map_err(|e| at(&e.0))?;
        ids.push(ReadId {
            space,
            id: value.id,
            counts,
            fields,
        });
    }
    Ok(Partial {
        inputs: header.inputs,
        ids,
    })
}

impl Partial {
    /// Adds the counts to `tally`, their file numbers moved past the `first_file` inputs
    /// that earlier partials hold.
    pub fn add_to(self, tally: &mut Tally, first_file: u32) {
        for ReadId {
            space,
            id,
            mut counts,
            fields,
        } in self.ids
        {
            for file in &mut counts.files {
                *file += first_file;
            }
            counts.fields = fields
                .iter()
                .map(|(name, n)| (tally.field(name), *n))
                .collect();
            tally
                .add_counts(space, id, &counts)
                .expect("the counts were checked when read");
        }
    }
}
