//! Rows of `timeline --tail`: the lines written after the timeline was printed, one row each
//! as they arrive, in the text view's columns (time and placement mark, +FIRST, +PREV,
//! SOURCE, FIELD, VIA, LINE). Rows come in arrival order, so they are not aligned to the
//! table's widths: each cell is padded to a fixed minimum instead.

use std::io::Write;

use super::{
    HEADER_COLOR, Style, duration, escape_into, pad, paint, text_width, time_of_day,
    write_line_text,
};
use crate::time::{Clock, Precision};
use crate::timeline::Line;

/// The line that separates the timeline from the rows that follow it.
pub fn write_banner(buf: &mut Vec<u8>, style: &Style) {
    paint(buf, style.color, HEADER_COLOR, |b| {
        b.extend_from_slice(b"-- following: new lines as they are written (Ctrl-C ends) --")
    });
    buf.push(b'\n');
}

/// Where a live row stands against the timeline.
pub struct RowContext<'a> {
    /// The shown name of the line's file.
    pub source: &'a str,
    /// The timeline's first time, for +FIRST, in Unix microseconds.
    pub first_us: Option<i64>,
    /// The previous row's time, for +PREV.
    pub prev_us: Option<i64>,
    /// The table's precision, which the rows keep.
    pub precision: Precision,
    /// The date (`YYYY-MM-DD` on the clock) the table's times are on: a row on it shows the
    /// time of day, as the table does.
    pub date: Option<&'a str>,
    /// The short name of the ID that brought the line in, when it is not the timeline's own.
    pub via: Option<&'a str>,
}

/// One row for `line`.
pub fn write_row(buf: &mut Vec<u8>, line: &Line, at: &RowContext, clock: &Clock, style: &Style) {
    let time = line
        .time_us
        .map_or_else(|| "-".to_string(), |t| clock.format_micros(t, at.precision));
    // `HH:MM:SS.fff` and the placement mark.
    let time_width = 9 + at.precision.digits() + 1;
    let time = match at.date {
        Some(date) if time.starts_with(date) => time_of_day(time.as_bytes(), at.precision)
            .map_or_else(
                || time.clone(),
                |day| String::from_utf8_lossy(day).into_owned(),
            ),
        _ => time,
    };
    let _ = write!(buf, "{time}{}", line.placement.mark());
    pad(buf, time.len() + 1, time_width);
    let delta = |from: Option<i64>| match (from, line.time_us) {
        (Some(from), Some(t)) => format!("+{}", duration(t - from, at.precision)),
        _ => "-".to_string(),
    };
    let _ = write!(
        buf,
        "  {:>8}  {:>8}  ",
        delta(at.first_us),
        delta(at.prev_us)
    );
    let mut source = Vec::new();
    escape_into(&mut source, at.source.as_bytes());
    let _ = write!(source, ":{}", line.line_no);
    paint(buf, style.color, super::SOURCE_COLORS[0], |b| {
        b.extend_from_slice(&source)
    });
    buf.extend_from_slice(b"  ");
    let mut field = Vec::new();
    escape_into(&mut field, line.field.as_deref().unwrap_or("-").as_bytes());
    buf.extend_from_slice(&field);
    buf.extend_from_slice(b"  ");
    if let Some(via) = at.via {
        buf.extend_from_slice(via.as_bytes());
        buf.extend_from_slice(b"  ");
    }
    let used = time_width + 2 + 8 + 2 + 8 + 2 + text_width(&source) + 2 + text_width(&field) + 2;
    let budget = style.width.map(|w| w.saturating_sub(used).max(20));
    write_line_text(buf, line, budget, style.color, &mut Vec::new());
    buf.push(b'\n');
}

/// The short name a row gives the related ID that brought its line in.
pub fn via_name(entry: &crate::timeline::TimelineId) -> String {
    super::tail(entry)
}
