//! The `ids` view: the inventory as an aligned table, JSON lines or CSV.
//!
//! Field names and paths come from the logs, so the table escapes them like log text, and the
//! CSV neutralises cells a spreadsheet would run as a formula.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use serde::Serialize;

use super::{HEADER_COLOR, csv_cell, escape_into, paint};
use crate::group::{Inventory, Summary};
use crate::id::Kind;
use crate::time::Clock;

/// How many fields the table shows per ID.
const TABLE_FIELDS: usize = 3;

/// What each ID's row shows; shared by the three formats.
struct Row<'a> {
    summary: Summary<'a>,
    kind: Kind,
    created_ms: Option<i64>,
}

impl<'a> Row<'a> {
    fn new(summary: Summary<'a>) -> Row<'a> {
        let kind = summary.kind();
        Row {
            summary,
            kind,
            created_ms: summary.id.unix_ms(kind),
        }
    }
}

/// The aligned table. Variable-width text (the fields) comes last, so the other columns line
/// up without measuring every row first.
pub fn write_table(
    out: &mut dyn Write,
    inventory: &Inventory,
    paths_len: usize,
    clock: &Clock,
    color: bool,
    threads: usize,
) -> std::io::Result<()> {
    // One pass, reading ahead: in sorted order the entries lie at random in memory, and two
    // plain passes over a million of them held the first row back by a few hundredths of a
    // second.
    let (mut any_uuid, mut max_lines) = (false, 0);
    for i in 0..inventory.len() {
        inventory.prefetch(i + 16, false);
        let summary = inventory.get(i);
        any_uuid = any_uuid || summary.kind() == Kind::Uuid;
        max_lines = max_lines.max(summary.lines());
    }
    let id_width = if any_uuid {
        crate::id::UUID_DASHED_LEN
    } else {
        crate::id::ULID_LEN
    };
    let time_width = clock.format(0).len();
    let lines_width = max_lines.to_string().len().max("LINES".len());
    let files_width = paths_len.to_string().len().max("FILES".len());
    let mut line = Vec::with_capacity(256);
    paint(&mut line, color, HEADER_COLOR, |line| {
        let _ = write!(
            line,
            "{:id_width$}  {:9}  {:time_width$}  {:>lines_width$}  {:>files_width$}  {:time_width$}  {:time_width$}  FIELDS",
            "ID", "KIND", "CREATED", "LINES", "FILES", "FIRST", "LAST"
        );
    });
    line.push(b'\n');
    out.write_all(&line)?;
    let cell = |ms: Option<i64>, line: &mut Vec<u8>| {
        let start = line.len();
        match ms {
            Some(ms) => clock.write(ms, line),
            None => line.push(b'-'),
        }
        pad(line, start + time_width);
    };
    write_rows(out, inventory, threads, |summary, line| {
        let row = Row::new(summary);
        let start = line.len();
        row.summary.id.write_canonical(row.kind, line);
        pad(line, start + id_width + 2);
        line.extend_from_slice(row.summary.id.describe(row.kind).as_bytes());
        pad(line, start + id_width + 2 + 9 + 2);
        cell(row.created_ms, line);
        line.extend_from_slice(b"  ");
        push_decimal(line, row.summary.lines() as u64, lines_width);
        line.extend_from_slice(b"  ");
        push_decimal(line, row.summary.file_count() as u64, files_width);
        line.extend_from_slice(b"  ");
        cell(row.summary.first_ms(), line);
        line.extend_from_slice(b"  ");
        cell(row.summary.last_ms(), line);
        line.extend_from_slice(b"  ");
        let fields = row.summary.fields();
        if fields.is_empty() {
            line.push(b'-');
        }
        for (i, (name, count)) in fields.iter().take(TABLE_FIELDS).enumerate() {
            if i > 0 {
                line.push(b' ');
            }
            escape_into(line, name);
            line.extend_from_slice("\u{d7}".as_bytes());
            push_decimal(line, *count as u64, 0);
        }
        if fields.len() > TABLE_FIELDS {
            write!(line, " (+{} more)", fields.len() - TABLE_FIELDS)?;
        }
        line.push(b'\n');
        Ok(())
    })
}

/// Rows formatted per chunk of this many IDs, a chunk per thread.
const CHUNK_ROWS: usize = 16 * 1024;

/// Formats every ID's row with `row` on `threads` threads, a chunk at a time each, while this
/// thread writes the chunks in order: with a million IDs, formatting was a third of a
/// two-thread run, and writing to a file a tenth.
fn write_rows(
    out: &mut dyn Write,
    inventory: &Inventory,
    threads: usize,
    row: impl Fn(Summary, &mut Vec<u8>) -> std::io::Result<()> + Sync,
) -> std::io::Result<()> {
    let chunks = inventory.len().div_ceil(CHUNK_ROWS);
    let format_chunk = |chunk: usize| -> std::io::Result<Vec<u8>> {
        let mut buf = Vec::with_capacity(CHUNK_ROWS * 160);
        let end = ((chunk + 1) * CHUNK_ROWS).min(inventory.len());
        for i in chunk * CHUNK_ROWS..end {
            inventory.prefetch(i + 16, false);
            inventory.prefetch(i + 8, true);
            row(inventory.get(i), &mut buf)?;
        }
        Ok(buf)
    };
    if threads < 2 || chunks < 2 {
        for chunk in 0..chunks {
            out.write_all(&format_chunk(chunk)?)?;
        }
        return Ok(());
    }
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        // A few chunks in flight at most: memory stays bounded whatever the output's pace.
        let (done, formatted) = mpsc::sync_channel(threads);
        for _ in 0..threads {
            let done = done.clone();
            let (next, format_chunk) = (&next, &format_chunk);
            scope.spawn(move || {
                loop {
                    let chunk = next.fetch_add(1, Ordering::Relaxed);
                    // A send fails once the writer has stopped on an error.
                    if chunk >= chunks || done.send((chunk, format_chunk(chunk))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done);
        let mut waiting = BTreeMap::new();
        let mut want = 0;
        for (chunk, buf) in formatted {
            waiting.insert(chunk, buf);
            while let Some(buf) = waiting.remove(&want) {
                out.write_all(&buf?)?;
                want += 1;
            }
        }
        Ok(())
    })
}

/// Appends `value` in decimal, right-aligned in `width` bytes (`write!` was a tenth of the
/// time per row).
fn push_decimal(line: &mut Vec<u8>, value: u64, width: usize) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut v = value;
    loop {
        start -= 1;
        digits[start] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let len = digits.len() - start;
    line.resize(line.len() + width.saturating_sub(len), b' ');
    line.extend_from_slice(&digits[start..]);
}

/// Pads `line` with blanks to `width` bytes.
fn pad(line: &mut Vec<u8>, width: usize) {
    if line.len() < width {
        line.resize(width, b' ');
    }
}

/// One `--json` object; the schema is documented in the README.
#[derive(Serialize)]
pub struct JsonId<'a> {
    pub id: String,
    pub kind: &'static str,
    pub version: Option<u8>,
    pub created: Option<String>,
    pub lines: u32,
    pub occurrences: u32,
    pub files: Vec<&'a str>,
    pub fields: BTreeMap<String, u32>,
    pub forms: BTreeMap<&'static str, u32>,
    pub first_seen: Option<String>,
    pub last_seen: Option<String>,
}

fn json_row<'a>(row: &Row, paths: &'a [String], clock: &Clock) -> JsonId<'a> {
    let s = &row.summary;
    JsonId {
        id: s.id.canonical(row.kind),
        kind: row.kind.name(),
        version: s.id.version(row.kind),
        created: row.created_ms.map(|ms| clock.format(ms)),
        lines: s.lines(),
        occurrences: s.occurrences(),
        files: s
            .files()
            .into_iter()
            .map(|f| paths[f as usize].as_str())
            .collect(),
        fields: s
            .fields()
            .into_iter()
            .map(|(name, n)| (String::from_utf8_lossy(name).into_owned(), n))
            .collect(),
        forms: s.forms().into_iter().map(|(f, n)| (f.name(), n)).collect(),
        first_seen: s.first_ms().map(|ms| clock.format(ms)),
        last_seen: s.last_ms().map(|ms| clock.format(ms)),
    }
}

/// One JSON object per line, per ID. Times are always UTC: machine output does not move
/// with the reader's zone.
pub fn write_json(
    out: &mut dyn Write,
    inventory: &Inventory,
    paths: &[String],
    threads: usize,
) -> std::io::Result<()> {
    let clock = Clock::utc();
    write_rows(out, inventory, threads, |summary, line| {
        serde_json::to_writer(&mut *line, &json_row(&Row::new(summary), paths, &clock))?;
        line.push(b'\n');
        Ok(())
    })
}

/// The CSV columns, in order.
pub const CSV_HEADER: [&str; 12] = [
    "id",
    "kind",
    "version",
    "created",
    "lines",
    "occurrences",
    "files",
    "paths",
    "fields",
    "forms",
    "first_seen",
    "last_seen",
];

/// RFC 4180 CSV with a header row; lists are `;`-separated, counts as `name=count`.
pub fn write_csv(
    out: &mut dyn Write,
    inventory: &Inventory,
    paths: &[String],
) -> std::io::Result<()> {
    let clock = Clock::utc();
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record(CSV_HEADER)?;
    for summary in inventory.summaries() {
        let row = json_row(&Row::new(summary), paths, &clock);
        let join = |pairs: Vec<String>| pairs.join(";");
        let record = [
            row.id,
            row.kind.to_string(),
            row.version.map_or(String::new(), |v| v.to_string()),
            row.created.unwrap_or_default(),
            row.lines.to_string(),
            row.occurrences.to_string(),
            row.files.len().to_string(),
            row.files.join(";"),
            join(row.fields.iter().map(|(k, v)| format!("{k}={v}")).collect()),
            join(row.forms.iter().map(|(k, v)| format!("{k}={v}")).collect()),
            row.first_seen.unwrap_or_default(),
            row.last_seen.unwrap_or_default(),
        ];
        writer.write_record(record.iter().map(|c| csv_cell(c).into_owned()))?;
    }
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::{Occurrence, Tallies};
    use crate::id::{Form, Id};

    /// The ID and LINES columns are as wide as the widest row needs, also when that row is
    /// not the first: here a ULID seen once sorts first, and a UUID seen on 123,456 lines
    /// after it.
    #[test]
    fn columns_fit_every_row_not_only_the_first() {
        let tallies = Tallies::new(false);
        let mut tally = tallies.tally();
        let occurrence = |id: u128, form| Occurrence {
            id: Id(id),
            form,
            field: None,
        };
        tally.add_line(0, None, &[occurrence(1, Form::UlidLower)]);
        for _ in 0..123_456 {
            tally.add_line(0, None, &[occurrence(2 << 100, Form::UuidLower)]);
        }
        tally.done();
        let mut inventory = tallies.finish(1);
        inventory.sort_by(|_| (), None, 1);
        let mut out = Vec::new();
        write_table(&mut out, &inventory, 1, &Clock::utc(), false, 1).unwrap();
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<&str> = text.lines().collect();
        assert!(rows[1].starts_with(&Id(1).ulid()), "{text}");
        // The kind starts after a UUID's width, in both rows.
        let kind_at = crate::id::UUID_DASHED_LEN + 2;
        assert_eq!(&rows[0][kind_at..kind_at + 4], "KIND", "{text}");
        assert_eq!(&rows[1][kind_at..kind_at + 4], "ulid", "{text}");
        assert_eq!(&rows[2][kind_at..kind_at + 4], "uuid", "{text}");
        // Both counts end where the header's LINES ends.
        let lines_end = rows[0].find("LINES").unwrap() + "LINES".len();
        assert!(rows[1][..lines_end].ends_with("      1"), "{text}");
        assert!(rows[2][..lines_end].ends_with(" 123456"), "{text}");
    }
}
