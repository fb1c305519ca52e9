//! The rows of the text view: one per line of the timeline, every column but the last padded
//! to its widest cell. A timeline of two hops prints tens of thousands of rows, so each
//! column's cells are written one after another into one buffer ([`Column`]), not a string
//! per cell.

use std::io::{self, Write};

use super::{
    SOURCE_COLORS, Sources, Style, cut, deltas, pad, tail, text_width, time_of_day, write_duration,
    write_line_text,
};
use crate::text::{HEADER_COLOR, escape_into, paint};
use crate::time::{Clock, Precision};
use crate::timeline::Timeline;

/// The cells of one column, one after another.
#[derive(Default)]
struct Column {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    /// The widest cell, in terminal columns.
    width: usize,
}

impl Column {
    /// Adds the cell that `write` appends, `width` columns wide.
    fn push(&mut self, write: impl FnOnce(&mut Vec<u8>), width: impl FnOnce(&[u8]) -> usize) {
        let start = self.bytes.len();
        write(&mut self.bytes);
        self.width = self.width.max(width(&self.bytes[start..]));
        self.ends.push(self.bytes.len());
    }

    fn cell(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }
}

fn byte_len(cell: &[u8]) -> usize {
    cell.len()
}

/// Writes the header and a row for each line of `timeline`.
pub(super) fn write_rows(
    out: &mut dyn Write,
    timeline: &Timeline,
    clock: &Clock,
    style: &Style,
    sources: &Sources,
    precision: Precision,
) -> io::Result<()> {
    let rows = timeline.lines.len();
    let mut times = Column::default();
    let (mut firsts, mut prevs) = (Column::default(), Column::default());
    let (mut source_cells, mut field_cells) = (Column::default(), Column::default());
    let deltas = deltas(timeline);
    // Each file's name escaped once, with its width.
    let mut names: Vec<Option<(Vec<u8>, usize)>> = vec![None; timeline.paths.len()];
    // Each ID's tail, for the lines it brought in.
    let mut tails: Vec<Option<String>> = vec![None; timeline.ids.len()];
    for (line, delta) in timeline.lines.iter().zip(&deltas) {
        times.push(
            |b| match line.time_us {
                Some(t) => clock.write_micros(t, precision, b),
                None => b.push(b'-'),
            },
            byte_len,
        );
        for (column, delta) in [
            (&mut firsts, delta.map(|(first, _)| first)),
            (&mut prevs, delta.map(|(_, prev)| prev)),
        ] {
            column.push(
                |b| match delta {
                    Some(d) => {
                        b.push(b'+');
                        write_duration(b, d, precision);
                    }
                    None => b.push(b'-'),
                },
                byte_len,
            );
        }
        let (name, name_width) = names[line.file].get_or_insert_with(|| {
            let mut name = Vec::new();
            escape_into(&mut name, sources.names[line.file].as_bytes());
            let width = text_width(&name);
            (name, width)
        });
        let name_width = *name_width;
        let mut digits = itoa::Buffer::new();
        let line_no = digits.format(line.line_no).as_bytes();
        source_cells.push(
            |b| {
                b.extend_from_slice(name);
                b.push(b':');
                b.extend_from_slice(line_no);
            },
            |_| name_width + 1 + line_no.len(),
        );
        field_cells.push(
            |b| escape_into(b, line.field.as_deref().unwrap_or("-").as_bytes()),
            text_width,
        );
        if line.via != 0 && tails[line.via].is_none() {
            tails[line.via] = Some(tail(&timeline.ids[line.via]));
        }
    }
    // Within one day (in the shown zone) the rows give the time of day; the summary has the
    // date. Every placed time renders as `YYYY-MM-DDTHH:MM:SS.mmm` and a zone suffix.
    let mut first_date = None;
    let one_day = (0..rows).all(|i| {
        let t = times.cell(i);
        time_of_day(t, precision).is_none() || *first_date.get_or_insert(&t[..10]) == &t[..10]
    });
    let shown_time = |i: usize| {
        let t = times.cell(i);
        match time_of_day(t, precision) {
            Some(day) if one_day => day,
            _ => t,
        }
    };
    let widest_time = (0..rows).map(|i| shown_time(i).len()).max().unwrap_or(0);
    let width = |widest: usize, header: &str| widest.max(header.chars().count());
    let w_time = width(widest_time, "TIME") + 1;
    let w_first = width(firsts.width, "+FIRST");
    let w_prev = width(prevs.width, "+PREV");
    let w_source = width(source_cells.width, "SOURCE");
    let w_field = width(field_cells.width, "FIELD").min(24);
    let show_via = timeline.lines.iter().any(|l| l.via != 0);
    let w_via = if show_via { 9 } else { 0 };
    let prefix_width = w_time
        + w_first
        + w_prev
        + w_source
        + w_field
        + 2 * 5
        + if show_via { w_via + 2 } else { 0 };

    let mut header = format!(
        "{:w_time$}  {:w_first$}  {:w_prev$}  {:w_source$}  {:w_field$}  ",
        "TIME", "+FIRST", "+PREV", "SOURCE", "FIELD"
    );
    if show_via {
        header.push_str(&format!("{:w_via$}  ", "VIA"));
    }
    header.push_str("LINE");
    let mut buf = Vec::with_capacity(64 * 1024);
    paint(&mut buf, style.color, HEADER_COLOR, |b| {
        b.extend_from_slice(header.as_bytes())
    });
    buf.push(b'\n');
    let budget = style.width.map(|w| w.saturating_sub(prefix_width).max(20));
    let mut piece = Vec::new();
    for (i, line) in timeline.lines.iter().enumerate() {
        let time = shown_time(i);
        buf.extend_from_slice(time);
        let mut mark = [0; 4];
        buf.extend_from_slice(line.placement.mark().encode_utf8(&mut mark).as_bytes());
        pad(&mut buf, time.len() + 1, w_time);
        for (column, w) in [(&firsts, w_first), (&prevs, w_prev)] {
            let cell = column.cell(i);
            buf.extend_from_slice(b"  ");
            pad(&mut buf, cell.len(), w);
            buf.extend_from_slice(cell);
        }
        buf.extend_from_slice(b"  ");
        let color = SOURCE_COLORS[sources.lanes[line.file] % SOURCE_COLORS.len()];
        let source = source_cells.cell(i);
        paint(&mut buf, style.color, color, |b| {
            b.extend_from_slice(source)
        });
        pad(&mut buf, text_width(source), w_source);
        buf.extend_from_slice(b"  ");
        let field = field_cells.cell(i);
        let width = text_width(field);
        let shown = if width <= w_field {
            buf.extend_from_slice(field);
            width
        } else {
            piece.clear();
            piece.extend_from_slice(field);
            let shown = cut(&mut piece, w_field);
            buf.extend_from_slice(&piece);
            shown
        };
        pad(&mut buf, shown, w_field);
        buf.extend_from_slice(b"  ");
        if show_via {
            let via = tails[line.via].as_deref().unwrap_or("");
            buf.extend_from_slice(via.as_bytes());
            pad(&mut buf, via.chars().count(), w_via);
            buf.extend_from_slice(b"  ");
        }
        write_line_text(&mut buf, line, budget, style.color, &mut piece);
        buf.push(b'\n');
        if buf.len() >= 64 * 1024 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)
}
