//! The rows of the text view: one per line of the timeline, every column but the last padded
//! to its widest cell. A timeline of two hops prints tens of thousands of rows, so a first
//! pass measures the cells and a second writes the rows, each split among the threads.

use std::io::{self, Write};
use std::ops::Range;

use super::{
    SOURCE_COLORS, Sources, Style, cut, deltas, pad, tail, text_width, time_of_day, write_duration,
    write_line_text,
};
use crate::output::chunks;
use crate::text::{HEADER_COLOR, escape_into, paint};
use crate::time::{Clock, Precision};
use crate::timeline::{Line, Timeline};

/// The widest cell of each column over some rows, and whether their times share a date.
#[derive(Clone, Copy, Default)]
struct Widths {
    /// Times in full (`YYYY-MM-DDTHH:MM:SS.mmm` and a zone suffix).
    full_time: usize,
    /// Times as the time of day where they have one, in full otherwise.
    time_of_day: usize,
    first: usize,
    prev: usize,
    source: usize,
    field: usize,
    /// The date of the first row with a time of day, and whether every such row has it.
    date: Option<[u8; 10]>,
    one_date: bool,
}

impl Widths {
    fn max(self, other: Widths) -> Widths {
        let dates_agree = match (self.date, other.date) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        Widths {
            full_time: self.full_time.max(other.full_time),
            time_of_day: self.time_of_day.max(other.time_of_day),
            first: self.first.max(other.first),
            prev: self.prev.max(other.prev),
            source: self.source.max(other.source),
            field: self.field.max(other.field),
            date: self.date.or(other.date),
            one_date: self.one_date && other.one_date && dates_agree,
        }
    }
}

/// Rows formatted per chunk, a chunk per thread.
const CHUNK_ROWS: usize = 4096;

/// What the rows of one timeline share: where their cells come from.
struct Layout<'a> {
    timeline: &'a Timeline,
    clock: &'a Clock,
    precision: Precision,
    deltas: Vec<Option<(i64, i64)>>,
    /// Each file's name escaped once, with its width; `None` for files with no line.
    names: Vec<Option<(Vec<u8>, usize)>>,
    /// The tail of each ID that brought lines in.
    tails: Vec<Option<String>>,
}

impl Layout<'_> {
    fn time(&self, i: usize, cell: &mut Vec<u8>) {
        match self.timeline.lines[i].time_us {
            Some(t) => self.clock.write_micros(t, self.precision, cell),
            None => cell.push(b'-'),
        }
    }

    fn delta(&self, delta: Option<i64>, cell: &mut Vec<u8>) {
        match delta {
            Some(d) => {
                cell.push(b'+');
                write_duration(cell, d, self.precision);
            }
            None => cell.push(b'-'),
        }
    }

    fn name(&self, file: usize) -> (&[u8], usize) {
        self.names[file]
            .as_ref()
            .map_or((&b""[..], 0), |(name, width)| (name.as_slice(), *width))
    }

    fn field(line: &Line, cell: &mut Vec<u8>) {
        escape_into(cell, line.field.as_deref().unwrap_or("-").as_bytes());
    }

    /// The widths of the cells of `rows`.
    fn widths(&self, rows: Range<usize>) -> Widths {
        let mut w = Widths {
            one_date: true,
            ..Widths::default()
        };
        let mut cell = Vec::with_capacity(64);
        for i in rows {
            let line = &self.timeline.lines[i];
            cell.clear();
            self.time(i, &mut cell);
            w.full_time = w.full_time.max(cell.len());
            match time_of_day(&cell, self.precision) {
                Some(day) => {
                    w.time_of_day = w.time_of_day.max(day.len());
                    let date: [u8; 10] = cell[..10].try_into().expect("a dated time");
                    w.one_date &= *w.date.get_or_insert(date) == date;
                }
                None => w.time_of_day = w.time_of_day.max(cell.len()),
            }
            let delta = self.deltas[i];
            for (width, delta) in [
                (&mut w.first, delta.map(|(first, _)| first)),
                (&mut w.prev, delta.map(|(_, prev)| prev)),
            ] {
                cell.clear();
                self.delta(delta, &mut cell);
                *width = (*width).max(cell.len());
            }
            let digits = itoa::Buffer::new().format(line.line_no).len();
            w.source = w.source.max(self.name(line.file).1 + 1 + digits);
            cell.clear();
            Self::field(line, &mut cell);
            w.field = w.field.max(text_width(&cell));
        }
        w
    }
}

/// Writes the header and a row for each line of `timeline`, the rows formatted on
/// `threads` threads.
pub(super) fn write_rows(
    out: &mut dyn Write,
    timeline: &Timeline,
    clock: &Clock,
    style: &Style,
    sources: &Sources,
    precision: Precision,
    threads: usize,
) -> io::Result<()> {
    let rows = timeline.lines.len();
    let mut names: Vec<Option<(Vec<u8>, usize)>> = vec![None; timeline.paths.len()];
    for &file in &sources.files {
        let mut name = Vec::new();
        escape_into(&mut name, sources.names[file].as_bytes());
        let width = text_width(&name);
        names[file] = Some((name, width));
    }
    let mut tails: Vec<Option<String>> = vec![None; timeline.ids.len()];
    for line in &timeline.lines {
        if line.via != 0 && tails[line.via].is_none() {
            tails[line.via] = Some(tail(&timeline.ids[line.via]));
        }
    }
    let layout = Layout {
        timeline,
        clock,
        precision,
        deltas: deltas(timeline),
        names,
        tails,
    };
    let widths = chunks::map_parts(rows, threads, 2 * CHUNK_ROWS, |rows| layout.widths(rows))
        .into_iter()
        .reduce(Widths::max)
        .unwrap_or_default();
    // Within one day (in the shown zone) the rows give the time of day; the summary has the
    // date. Every placed time renders as `YYYY-MM-DDTHH:MM:SS.mmm` and a zone suffix.
    let one_day = widths.one_date;
    let widest_time = if one_day {
        widths.time_of_day
    } else {
        widths.full_time
    };
    let width = |widest: usize, header: &str| widest.max(header.chars().count());
    let w_time = width(widest_time, "TIME") + 1;
    let w_first = width(widths.first, "+FIRST");
    let w_prev = width(widths.prev, "+PREV");
    let w_source = width(widths.source, "SOURCE");
    let w_field = width(widths.field, "FIELD").min(24);
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
    let mut buf = Vec::new();
    paint(&mut buf, style.color, HEADER_COLOR, |b| {
        b.extend_from_slice(header.as_bytes())
    });
    buf.push(b'\n');
    out.write_all(&buf)?;
    let budget = style.width.map(|w| w.saturating_sub(prefix_width).max(20));
    chunks::write_chunks(out, rows, CHUNK_ROWS, threads, |rows, buf| {
        let (mut piece, mut cell) = (Vec::new(), Vec::with_capacity(64));
        for i in rows {
            let line = &timeline.lines[i];
            cell.clear();
            layout.time(i, &mut cell);
            let time = match time_of_day(&cell, precision) {
                Some(day) if one_day => day,
                _ => &cell,
            };
            buf.extend_from_slice(time);
            let mut mark = [0; 4];
            buf.extend_from_slice(line.placement.mark().encode_utf8(&mut mark).as_bytes());
            pad(buf, time.len() + 1, w_time);
            let delta = layout.deltas[i];
            for (delta, w) in [
                (delta.map(|(first, _)| first), w_first),
                (delta.map(|(_, prev)| prev), w_prev),
            ] {
                cell.clear();
                layout.delta(delta, &mut cell);
                buf.extend_from_slice(b"  ");
                pad(buf, cell.len(), w);
                buf.extend_from_slice(&cell);
            }
            buf.extend_from_slice(b"  ");
            let color = SOURCE_COLORS[sources.lanes[line.file] % SOURCE_COLORS.len()];
            let (name, name_width) = layout.name(line.file);
            let mut digits = itoa::Buffer::new();
            let line_no = digits.format(line.line_no).as_bytes();
            paint(buf, style.color, color, |b| {
                b.extend_from_slice(name);
                b.push(b':');
                b.extend_from_slice(line_no);
            });
            pad(buf, name_width + 1 + line_no.len(), w_source);
            buf.extend_from_slice(b"  ");
            cell.clear();
            Layout::field(line, &mut cell);
            let width = text_width(&cell);
            let shown = if width <= w_field {
                buf.extend_from_slice(&cell);
                width
            } else {
                let shown = cut(&mut cell, w_field);
                buf.extend_from_slice(&cell);
                shown
            };
            pad(buf, shown, w_field);
            buf.extend_from_slice(b"  ");
            if show_via {
                let via = layout.tails[line.via].as_deref().unwrap_or("");
                buf.extend_from_slice(via.as_bytes());
                pad(buf, via.chars().count(), w_via);
                buf.extend_from_slice(b"  ");
            }
            write_line_text(buf, line, budget, style.color, &mut piece);
            buf.push(b'\n');
        }
        Ok(())
    })
}
