//! The `ids` view: the inventory as an aligned table, JSON lines or CSV.
//!
//! Field names and paths come from the logs, so the table escapes them like log text, and the
//! CSV neutralises cells a spreadsheet would run as a formula.

use std::borrow::Cow;
use std::io::Write;
use std::ops::Range;

use serde::Serialize;
use serde::ser::SerializeStruct;

use super::chunks;
use crate::id::Kind;
use crate::inventory::{Inventory, Summary};
use crate::text::{HEADER_COLOR, Name, csv_cell_bytes, escape_into, paint, visible};
use crate::time::Clock;

/// How the inventory is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdsFormat {
    Table,
    Json,
    Csv,
}

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
    let time_width = clock.format(0).len();
    let Widths {
        id: id_width,
        max_lines,
        kind: kind_width,
        created: created_width,
    } = widths(inventory, clock, threads);
    let lines_width = max_lines.to_string().len().max("LINES".len());
    let files_width = paths_len.to_string().len().max("FILES".len());
    let mut line = Vec::with_capacity(256);
    paint(&mut line, color, HEADER_COLOR, |line| {
        let _ = write!(
            line,
            "{:id_width$}  {:kind_width$}  {:created_width$}  {:>lines_width$}  {:>files_width$}  {:time_width$}  {:time_width$}  FIELDS",
            "ID", "KIND", "CREATED", "LINES", "FILES", "FIRST", "LAST"
        );
    });
    line.push(b'\n');
    out.write_all(&line)?;
    // Each field name escaped once, with its `×`: a million rows name a few dozen fields.
    let field_labels: Vec<Vec<u8>> = inventory
        .field_names()
        .iter()
        .map(|name| {
            let mut label = Vec::new();
            escape_into(&mut label, name);
            label.extend_from_slice("\u{d7}".as_bytes());
            label
        })
        .collect();
    let cell = |ms: Option<i64>, width: usize, line: &mut Vec<u8>| {
        let start = line.len();
        match ms {
            Some(ms) => clock.write(ms, line),
            None => line.push(b'-'),
        }
        pad(line, start + width);
    };
    write_rows(out, inventory, threads, |summary, line, fields| {
        let row = Row::new(summary);
        let start = line.len();
        row.summary.id.write_canonical(row.kind, line);
        pad(line, start + id_width + 2);
        line.extend_from_slice(row.summary.id.describe(row.kind).as_bytes());
        pad(line, start + id_width + 2 + kind_width + 2);
        cell(row.created_ms, created_width, line);
        line.extend_from_slice(b"  ");
        push_decimal(line, row.summary.lines() as u64, lines_width);
        line.extend_from_slice(b"  ");
        push_decimal(line, row.summary.file_count() as u64, files_width);
        line.extend_from_slice(b"  ");
        cell(row.summary.first_ms(), time_width, line);
        line.extend_from_slice(b"  ");
        cell(row.summary.last_ms(), time_width, line);
        line.extend_from_slice(b"  ");
        row.summary.field_numbers_into(fields);
        if fields.is_empty() {
            line.push(b'-');
        }
        for (i, &(field, count)) in fields.iter().take(TABLE_FIELDS).enumerate() {
            if i > 0 {
                line.push(b' ');
            }
            line.extend_from_slice(&field_labels[field as usize]);
            push_decimal(line, count as u64, 0);
        }
        if fields.len() > TABLE_FIELDS {
            write!(line, " (+{} more)", fields.len() - TABLE_FIELDS)?;
        }
        line.push(b'\n');
        Ok(())
    })
}

/// The widths of the table's variable columns, and the largest line count.
#[derive(Clone, Copy)]
struct Widths {
    id: usize,
    max_lines: u32,
    kind: usize,
    created: usize,
}

impl Widths {
    fn max(self, other: Widths) -> Widths {
        Widths {
            id: self.id.max(other.id),
            max_lines: self.max_lines.max(other.max_lines),
            kind: self.kind.max(other.kind),
            created: self.created.max(other.created),
        }
    }
}

/// The [`Widths`] every row of `inventory` needs, in one pass reading ahead, its rows split
/// among `threads` threads: in sorted order the entries lie at random in memory, and with a
/// million IDs the pass held the first row back by a few hundredths of a second on one
/// thread (two plain passes, twice that).
fn widths(inventory: &Inventory, clock: &Clock, threads: usize) -> Widths {
    // KIND is 9 wide (`uuid v7`, `uuid nil`), wider only when a row needs it (`uuid non-rfc`).
    // CREATED is a time's width, wider only for an ID dated outside RFC 3339's years
    // (`unix_ms 278742126155650 (after 9999)`).
    let narrowest = Widths {
        id: crate::id::ULID_LEN,
        max_lines: 0,
        kind: 9,
        created: clock.format(0).len(),
    };
    let of = |rows: Range<usize>| {
        let mut w = narrowest;
        for i in rows {
            // Reading ahead: in sorted order the entries lie at random in memory.
            inventory.prefetch(i + 16, false);
            let summary = inventory.get(i);
            let kind = summary.kind();
            w.id = w.id.max(match kind {
                Kind::Uuid => crate::id::UUID_DASHED_LEN,
                Kind::Trace => crate::id::UUID_UNDASHED_LEN,
                Kind::Ulid | Kind::Span => crate::id::ULID_LEN,
            });
            w.max_lines = w.max_lines.max(summary.lines());
            w.kind = w.kind.max(summary.id.describe(kind).len());
            if let Some(ms) = summary.id.unix_ms(kind)
                && !clock.writes_rfc3339(ms)
            {
                w.created = w.created.max(clock.format(ms).len());
            }
        }
        w
    };
    chunks::map_parts(inventory.len(), threads, 2 * CHUNK_ROWS, of)
        .into_iter()
        .fold(narrowest, Widths::max)
}

/// Rows formatted per chunk of this many IDs, a chunk per thread.
const CHUNK_ROWS: usize = 16 * 1024;

/// Formats every ID's row with `row` on `threads` threads, a chunk at a time each, while this
/// thread writes the chunks in order. `row` is also given a list for the row's fields (their
/// numbers and counts), kept across the rows of a chunk.
fn write_rows(
    out: &mut dyn Write,
    inventory: &Inventory,
    threads: usize,
    row: impl Fn(Summary<'_>, &mut Vec<u8>, &mut Vec<(u32, u32)>) -> std::io::Result<()> + Sync,
) -> std::io::Result<()> {
    chunks::write_chunks(out, inventory.len(), CHUNK_ROWS, threads, |rows, buf| {
        let mut fields = Vec::new();
        for summary in summaries_ahead(inventory, rows) {
            row(summary, buf, &mut fields)?;
        }
        Ok(())
    })
}

/// The summaries of the IDs numbered in `rows`, each entry and side record asked for a few
/// rows ahead of its use.
fn summaries_ahead(inventory: &Inventory, rows: Range<usize>) -> impl Iterator<Item = Summary<'_>> {
    rows.map(move |i| {
        inventory.prefetch(i + 16, false);
        inventory.prefetch(i + 8, true);
        inventory.get(i)
    })
}

/// Appends `value` in decimal, right-aligned in `width` bytes (`write!` was a tenth of the
/// time per row). Always inline: the compiler kept it out of line, and its call and register
/// saves were a third of its instructions.
#[inline(always)]
pub fn push_decimal(line: &mut Vec<u8>, value: u64, width: usize) {
    // Blanks of a fixed length go on the line, the digits are written over their end, and the
    // line is cut to length: a copy of a length known only at run time is a call to
    // `memcpy`, and digits made in a buffer of their own and then copied whole stalled the
    // copy's load until the digits' one-byte stores had landed (half of the time here).
    const BUFFER: usize = 32;
    let digits = value.checked_ilog10().map_or(1, |d| d as usize + 1);
    let len = width.max(digits);
    if len > BUFFER {
        pad(line, line.len() + len - digits);
        return push_decimal(line, value, 0);
    }
    let at = line.len();
    line.extend_from_slice(&[b' '; BUFFER]);
    let mut v = value;
    for digit in line[at + len - digits..at + len].iter_mut().rev() {
        *digit = b'0' + (v % 10) as u8;
        v /= 10;
    }
    line.truncate(at + len);
}

/// Pads `line` with blanks to `width` bytes.
fn pad(line: &mut Vec<u8>, width: usize) {
    // A copy of known length is a few stores; one of a length known only at run time (as
    // `resize` makes) is a call to `memset` or `memcpy`, and with a few per cell that call
    // was a tenth of the time per row.
    const BLANKS: usize = 32;
    while line.len() < width {
        line.extend_from_slice(&[b' '; BLANKS]);
        line.truncate(width);
    }
}

/// One ID's row as the machine formats give it (the schema is documented in docs/ids.md),
/// its text borrowed from buffers the caller reuses: building strings, vectors and maps
/// afresh for each of a million IDs made `--json` a fifth slower.
struct MachineRow<'a> {
    id: &'a str,
    kind: &'static str,
    version: Option<u8>,
    created: Option<&'a str>,
    lines: u32,
    occurrences: u32,
    files: &'a [u32],
    paths: &'a [Name],
    /// By name; names that are not UTF-8 are shown lossily, and two that become the same
    /// text are one entry with their counts added.
    fields: &'a [(Cow<'a, str>, u32)],
    /// By name.
    forms: &'a [(&'static str, u32)],
    first_seen: Option<&'a str>,
    last_seen: Option<&'a str>,
}

/// What a [`MachineRow`] borrows from, kept across rows.
#[derive(Default)]
struct RowBuffers {
    /// The ID, then the created, first and last times, end to end.
    text: Vec<u8>,
    files: Vec<u32>,
}

impl RowBuffers {
    /// Fills the buffers for `row` and hands the machine row to `emit`.
    fn with_row<R>(
        &mut self,
        row: &Row,
        paths: &[Name],
        clock: &Clock,
        emit: impl FnOnce(&MachineRow) -> R,
    ) -> R {
        let s = &row.summary;
        let text = &mut self.text;
        text.clear();
        s.id.write_canonical(row.kind, text);
        let id_end = text.len();
        let times = [row.created_ms, s.first_ms(), s.last_ms()].map(|ms| {
            // An ID dated past 9999 has no RFC 3339 form: null (an empty CSV cell).
            ms.filter(|&ms| clock.writes_rfc3339(ms)).map(|ms| {
                let start = text.len();
                clock.write(ms, text);
                start..text.len()
            })
        });
        let text = std::str::from_utf8(text).expect("IDs and times render as ASCII");
        let [created, first_seen, last_seen] = times.map(|range| range.map(|r| &text[r]));
        self.files.clear();
        self.files.extend(s.files());
        let mut fields: Vec<(Cow<str>, u32)> = s
            .fields()
            .into_iter()
            .map(|(name, n)| (String::from_utf8_lossy(name), n))
            .collect();
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        fields.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 = kept.1.saturating_add(later.1);
            }
            same
        });
        let mut forms: Vec<(&str, u32)> =
            s.forms().into_iter().map(|(f, n)| (f.name(), n)).collect();
        forms.sort_unstable();
        emit(&MachineRow {
            id: &text[..id_end],
            kind: row.kind.name(),
            version: s.id.version(row.kind),
            created,
            lines: s.lines(),
            occurrences: s.occurrences(),
            files: &self.files,
            paths,
            fields: &fields,
            forms: &forms,
            first_seen,
            last_seen,
        })
    }
}

impl Serialize for MachineRow<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Files<'a>(&'a [u32], &'a [Name]);
        impl Serialize for Files<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.iter().map(|&f| &self.1[f as usize]))
            }
        }
        /// Names with counts, as a JSON object in the order given.
        struct Counts<'a, K>(&'a [(K, u32)]);
        impl<K: Serialize> Serialize for Counts<'_, K> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_map(self.0.iter().map(|(name, n)| (name, n)))
            }
        }
        let mut row = serializer.serialize_struct("MachineRow", 11)?;
        row.serialize_field("id", self.id)?;
        row.serialize_field("kind", self.kind)?;
        row.serialize_field("version", &self.version)?;
        row.serialize_field("created", &self.created)?;
        row.serialize_field("lines", &self.lines)?;
        row.serialize_field("occurrences", &self.occurrences)?;
        row.serialize_field("files", &Files(self.files, self.paths))?;
        row.serialize_field("fields", &Counts(self.fields))?;
        row.serialize_field("forms", &Counts(self.forms))?;
        row.serialize_field("first_seen", &self.first_seen)?;
        row.serialize_field("last_seen", &self.last_seen)?;
        row.end()
    }
}

/// One JSON object per line, per ID. Times are always UTC: machine output does not move
/// with the reader's zone.
pub fn write_json(
    out: &mut dyn Write,
    inventory: &Inventory,
    paths: &[Name],
    threads: usize,
) -> std::io::Result<()> {
    let clock = Clock::utc();
    chunks::write_chunks(out, inventory.len(), CHUNK_ROWS, threads, |rows, buf| {
        let mut buffers = RowBuffers::default();
        for summary in summaries_ahead(inventory, rows) {
            let row = Row::new(summary);
            buffers.with_row(&row, paths, &clock, |row| {
                serde_json::to_writer(&mut *buf, row)
            })?;
            buf.push(b'\n');
        }
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

/// RFC 4180 CSV with a header row; lists are `;`-separated, counts as `name=count`. Rows are
/// formatted on `threads` threads, like the other views.
pub fn write_csv(
    out: &mut dyn Write,
    inventory: &Inventory,
    paths: &[Name],
    threads: usize,
) -> std::io::Result<()> {
    let clock = Clock::utc();
    let mut header = csv::Writer::from_writer(Vec::new());
    header.write_record(CSV_HEADER)?;
    out.write_all(&header.into_inner().map_err(|e| e.into_error())?)?;
    chunks::write_chunks(out, inventory.len(), CHUNK_ROWS, threads, |rows, buf| {
        let mut writer = csv::Writer::from_writer(buf);
        let mut buffers = RowBuffers::default();
        let mut cell = Vec::new();
        for summary in summaries_ahead(inventory, rows) {
            let row = Row::new(summary);
            buffers.with_row(&row, paths, &clock, |row| {
                write_csv_row(&mut writer, &mut cell, row)
            })?;
        }
        writer.flush()
    })
}

/// `name=count` pairs, `;`-separated: the CSV's cell for a count map.
fn push_counts<'a>(cell: &mut Vec<u8>, counts: impl Iterator<Item = (&'a str, u32)>) {
    for (n, (name, count)) in counts.enumerate() {
        if n > 0 {
            cell.push(b';');
        }
        push_list_item(cell, name.as_bytes());
        cell.push(b'=');
        push_decimal(cell, count.into(), 0);
    }
}

/// One item of a `;`-separated CSV cell: its control characters made visible (as
/// [`csv_cell_bytes`] would, but before the list's own escapes), then a `;`, `=` or `\`
/// inside it (a path or field name may hold any of them) escaped with a `\`, so the list
/// splits one way only.
fn push_list_item(cell: &mut Vec<u8>, item: &[u8]) {
    for &b in visible(item).iter() {
        if matches!(b, b';' | b'=' | b'\\') {
            cell.push(b'\\');
        }
        cell.push(b);
    }
}

/// One ID's CSV record, each cell through [`csv_cell_bytes`], built in `cell`.
fn write_csv_row(
    writer: &mut csv::Writer<&mut Vec<u8>>,
    cell: &mut Vec<u8>,
    row: &MachineRow,
) -> csv::Result<()> {
    let mut field = |fill: &mut dyn FnMut(&mut Vec<u8>)| {
        cell.clear();
        fill(cell);
        writer.write_field(csv_cell_bytes(cell))
    };
    field(&mut |c| c.extend_from_slice(row.id.as_bytes()))?;
    field(&mut |c| c.extend_from_slice(row.kind.as_bytes()))?;
    field(&mut |c| {
        if let Some(v) = row.version {
            push_decimal(c, v.into(), 0);
        }
    })?;
    field(&mut |c| c.extend_from_slice(row.created.unwrap_or("").as_bytes()))?;
    field(&mut |c| push_decimal(c, row.lines.into(), 0))?;
    field(&mut |c| push_decimal(c, row.occurrences.into(), 0))?;
    field(&mut |c| push_decimal(c, row.files.len() as u64, 0))?;
    field(&mut |c| {
        for (n, &f) in row.files.iter().enumerate() {
            if n > 0 {
                c.push(b';');
            }
            push_list_item(c, row.paths[f as usize].shown.as_bytes());
        }
    })?;
    field(&mut |c| push_counts(c, row.fields.iter().map(|(name, n)| (&**name, *n))))?;
    field(&mut |c| push_counts(c, row.forms.iter().copied()))?;
    field(&mut |c| c.extend_from_slice(row.first_seen.unwrap_or("").as_bytes()))?;
    field(&mut |c| c.extend_from_slice(row.last_seen.unwrap_or("").as_bytes()))?;
    writer.write_record(None::<&[u8]>)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::{Form, Id};
    use crate::inventory::{Occurrence, Space, Tallies};
    use crate::text::csv_cell;
    use std::collections::BTreeMap;

    /// An occurrence of `id` written as `form`, under no field.
    fn occurrence(id: u128, form: Form) -> Occurrence {
        Occurrence {
            id: Id(id),
            form,
            field: None,
            space: Space::Wide,
        }
    }

    /// The ID and LINES columns are as wide as the widest row needs, also when that row is
    /// not the first: here a ULID seen once sorts first, and a UUID seen on 123,456 lines
    /// after it.
    #[test]
    fn columns_fit_every_row_not_only_the_first() {
        let tallies = Tallies::new(false);
        let mut tally = tallies.tally();
        tally.add_line(0, None, &[occurrence(1, Form::UlidLower)]);
        for _ in 0..123_456 {
            tally.add_line(0, None, &[occurrence(2 << 100, Form::UuidLower)]);
        }
        tally.done();
        let mut inventory = tallies.finish(1);
        inventory.sort_by(|_| 0, None, 1);
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

    /// The columns are measured on several threads: a widest row in the last thread's part
    /// widens every row, as on one thread.
    #[test]
    fn columns_measured_on_threads_fit_the_last_row_too() {
        let tallies = Tallies::new(false);
        let mut tally = tallies.tally();
        for id in 1..=50_000u128 {
            tally.add_line(0, None, &[occurrence(id << 80, Form::UlidLower)]);
        }
        for _ in 0..1_234_567 / 1_000 {
            tally.add_line(0, None, &[occurrence(u128::MAX >> 1, Form::UuidLower)]);
        }
        tally.done();
        let mut inventory = tallies.finish(1);
        inventory.sort_by(|_| 0, None, 1);
        let table = |threads| {
            let mut out = Vec::new();
            write_table(&mut out, &inventory, 1, &Clock::utc(), false, threads).unwrap();
            String::from_utf8(out).unwrap()
        };
        let text = table(2);
        assert_eq!(text, table(1));
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows.len(), 50_002);
        let kind_at = crate::id::UUID_DASHED_LEN + 2;
        assert_eq!(&rows[1][kind_at..kind_at + 4], "ulid", "{}", rows[1]);
        assert_eq!(
            &rows[50_001][kind_at..kind_at + 4],
            "uuid",
            "{}",
            rows[50_001]
        );
        let lines_end = rows[0].find("LINES").unwrap() + "LINES".len();
        assert!(rows[1][..lines_end].ends_with("     1"), "{}", rows[1]);
    }

    /// The JSON and CSV rows say what each ID's summary says, across several chunks formatted
    /// on two threads, and field names that are not UTF-8 but read the same once shown are one
    /// field with their counts added (a map cannot hold the name twice).
    #[test]
    fn machine_rows_match_the_summaries_across_chunks_and_threads() {
        let tallies = Tallies::new(true);
        let mut tally = tallies.tally();
        let names: Vec<_> = [&b"order_id"[..], b"batch", b"k\xff", b"k\xfe", b"=sum"]
            .iter()
            .map(|name| tally.field(name))
            .collect();
        let ids = 3 * CHUNK_ROWS as u128 + 5;
        for id in 1..=ids {
            for line in 0..(id % 4 + 1) {
                let occurrence = Occurrence {
                    id: Id(id << 80 | id),
                    form: [Form::UlidLower, Form::UuidLower, Form::UuidBraced]
                        [(id + line) as usize % 3],
                    field: (id % 7 != 0).then_some(names[((id + line) % 5) as usize]),
                    space: Space::Wide,
                };
                let time = (line % 2 == 0).then_some(1_795_000_000_000 + id as i64);
                tally.add_line(((id + line) % 3) as u32, time, &[occurrence]);
            }
        }
        tally.done();
        let mut inventory = tallies.finish(1);
        inventory.sort_by(|_| 0, None, 1);
        let paths = ["a.log", "-b.log", "c.log"].map(|p| Name::from_bytes(p.into()));
        let clock = Clock::utc();

        let expected: Vec<serde_json::Value> = inventory
            .summaries()
            .map(|s| {
                let kind = s.kind();
                let mut fields = BTreeMap::new();
                for (name, n) in s.fields() {
                    *fields
                        .entry(String::from_utf8_lossy(name).into_owned())
                        .or_insert(0) += n;
                }
                let forms: BTreeMap<&str, u32> =
                    s.forms().into_iter().map(|(f, n)| (f.name(), n)).collect();
                let files: Vec<&str> = s
                    .files()
                    .iter()
                    .map(|&f| paths[f as usize].shown.as_str())
                    .collect();
                serde_json::json!({
                    "id": s.id.canonical(kind),
                    "kind": kind.name(),
                    "version": s.id.version(kind),
                    "created": s.id.unix_ms(kind).and_then(|ms| clock.rfc3339(ms)),
                    "lines": s.lines(),
                    "occurrences": s.occurrences(),
                    "files": files,
                    "fields": fields,
                    "forms": forms,
                    "first_seen": s.first_ms().map(|ms| clock.format(ms)),
                    "last_seen": s.last_ms().map(|ms| clock.format(ms)),
                })
            })
            .collect();
        assert_eq!(expected.len(), ids as usize);
        let merged = expected
            .iter()
            .filter(|e| e["fields"].get("k\u{fffd}").is_some())
            .count();
        assert!(merged > 1000, "the test should merge names: {merged}");

        let mut json = Vec::new();
        write_json(&mut json, &inventory, &paths, 2).unwrap();
        let rows: Vec<serde_json::Value> = String::from_utf8(json)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(rows, expected);

        let mut csv = Vec::new();
        write_csv(&mut csv, &inventory, &paths, 2).unwrap();
        let mut reader = csv::Reader::from_reader(&csv[..]);
        assert_eq!(
            reader.headers().unwrap(),
            &csv::StringRecord::from(CSV_HEADER.to_vec())
        );
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), expected.len());
        let text = |v: &serde_json::Value| match v {
            serde_json::Value::Null => String::new(),
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        // A list item's `;`, `=` and `\` are escaped with a `\`.
        let item = |s: &str| {
            s.chars()
                .flat_map(|c| [(matches!(c, ';' | '=' | '\\')).then_some('\\'), Some(c)])
                .flatten()
                .collect::<String>()
        };
        let pairs = |v: &serde_json::Value| {
            let map = v.as_object().unwrap();
            let pairs: Vec<String> = map
                .iter()
                .map(|(k, n)| format!("{}={n}", item(k)))
                .collect();
            pairs.join(";")
        };
        for (row, e) in rows.iter().zip(&expected) {
            let files: Vec<String> = e["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| item(&text(f)))
                .collect();
            let cells = [
                text(&e["id"]),
                text(&e["kind"]),
                text(&e["version"]),
                text(&e["created"]),
                text(&e["lines"]),
                text(&e["occurrences"]),
                files.len().to_string(),
                files.join(";"),
                pairs(&e["fields"]),
                pairs(&e["forms"]),
                text(&e["first_seen"]),
                text(&e["last_seen"]),
            ];
            let cells: Vec<String> = cells.iter().map(|c| csv_cell(c).into_owned()).collect();
            assert_eq!(row, &csv::StringRecord::from(cells));
        }
    }

    /// Numbers are right-aligned like `format!`'s, also when wider than the width or the
    /// width is wider than the buffer behind the fast path.
    #[test]
    fn decimals_align_like_format() {
        let mut state = 7u64;
        let mut values = vec![0, 1, 9, 10, 99, 100, u32::MAX as u64, u64::MAX];
        for _ in 0..2000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            values.push(state >> (state % 64));
        }
        for value in values {
            for width in [0, 1, 2, 5, 10, 19, 20, 23, 24, 25, 40] {
                let mut line = b"x".to_vec();
                push_decimal(&mut line, value, width);
                assert_eq!(
                    line,
                    format!("x{value:>width$}").into_bytes(),
                    "{value} {width}"
                );
            }
        }
    }
}
