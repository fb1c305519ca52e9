//! The `timeline` views: text for people at a terminal, and the exports for a postmortem
//! (NDJSON, CSV, Markdown, one self-contained HTML page, Chrome trace-event JSON).
//!
//! Log text reaches each format escaped for it: control characters become visible escapes on
//! the terminal and in Markdown and HTML ([`escape_into`]), HTML escapes `& < > " '`, Markdown
//! puts lines in code spans and escapes the rest, CSV makes control characters visible too and
//! neutralises cells a spreadsheet would run as formulas ([`csv_cell`]). NDJSON and the trace
//! carry the text as read (invalid UTF-8 replaced; JSON escapes control characters). Times in the
//! machine formats are always UTC; the text, Markdown and HTML views use the clock of
//! `--tz`/`--local`.

mod html;
pub mod live;
mod rows;
mod trace;

use std::borrow::Cow;
use std::io::{self, Write};

use serde::Serialize;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::text::{HEADER_COLOR, MATCH_COLOR, Name, csv_cell, escape_into, paint};
use crate::time::{Clock, Precision};
use crate::timeline::{Line, Placement, Status, Timeline, TimelineId};

/// How a timeline is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TimelineFormat {
    /// A summary, then one aligned row per line
    Text,
    /// One JSON object per line
    Ndjson,
    /// RFC 4180 CSV with a header row
    Csv,
    /// A summary and a table for a postmortem
    Md,
    /// One self-contained page: swimlane chart and table
    Html,
    /// Chrome trace-event JSON (Perfetto, chrome://tracing)
    Trace,
}

/// How the text view is drawn.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    pub color: bool,
    /// Cut each row to this many columns (a terminal's width).
    pub width: Option<usize>,
}

/// Whether `head`, the first bytes of a file, begin an export this printer writes, in any
/// format: an earlier `-o` file that a walk meets again is then known from a log.
pub fn is_export(head: &[u8]) -> bool {
    let first_line = head.split(|&b| b == b'\n').next().unwrap_or(head);
    let contains = |needle: &[u8]| first_line.windows(needle.len()).any(|w| w == needle);
    head.is_empty()
        || head.starts_with(b"id        ")
        || head.starts_with(b"ts,ts_inferred,rule,path,line,field,via,text")
        || head.starts_with(b"## Timeline of `")
        || head.starts_with(b"{\"traceEvents\":")
        || (head.starts_with(b"<!DOCTYPE html>")
            && head.windows(18).any(|w| w == b"<title>Timeline of"))
        || (head.starts_with(b"{\"ts\":")
            && contains(b"\"ts_inferred\":")
            && contains(b"\"rule\":"))
}

/// Writes `timeline` in `format`; the text view's rows are formatted on `threads` threads.
pub fn write(
    out: &mut dyn Write,
    format: TimelineFormat,
    timeline: &Timeline,
    clock: &Clock,
    style: &Style,
    threads: usize,
) -> io::Result<()> {
    match format {
        TimelineFormat::Text => write_text(out, timeline, clock, style, threads),
        TimelineFormat::Ndjson => write_ndjson(out, timeline),
        TimelineFormat::Csv => write_csv(out, timeline),
        TimelineFormat::Md => write_md(out, timeline, clock),
        TimelineFormat::Html => html::write(out, timeline, clock),
        TimelineFormat::Trace => trace::write(out, timeline),
    }
}

/// Source colours on a terminal; red stays for the ID itself.
const SOURCE_COLORS: [&[u8]; 6] = [
    b"\x1b[36m",
    b"\x1b[33m",
    b"\x1b[32m",
    b"\x1b[35m",
    b"\x1b[34m",
    b"\x1b[96m",
];

/// The time of day (`HH:MM:SS.fff`) of a time rendered as `YYYY-MM-DDTHH:MM:SS.fff...` at
/// `precision`; `None` for any other text (`-`, `unix_ms N (after 9999)`).
fn time_of_day(time: &[u8], precision: Precision) -> Option<&[u8]> {
    let fraction_end = 20 + precision.digits();
    (time.len() >= fraction_end && time[10] == b'T').then(|| &time[11..fraction_end])
}

/// How many related IDs the text view lists; the exports list them all.
const TEXT_RELATED: usize = 20;

/// `14m11.669s`, `2h03m04.005s`, `0.120s`, `3d04h05m` (`0.000250s` at
/// [`Precision::Micros`]): short, exact to the shown precision under a day.
pub fn duration(micros: i64, precision: Precision) -> String {
    let mut out = Vec::with_capacity(16);
    write_duration(&mut out, micros, precision);
    String::from_utf8(out).expect("durations are ASCII")
}

/// Appends [`duration`]'s text.
fn write_duration(out: &mut Vec<u8>, micros: i64, precision: Precision) {
    let us = micros.max(0);
    let (d, h, m) = (
        us / 86_400_000_000,
        us / 3_600_000_000 % 24,
        us / 60_000_000 % 60,
    );
    let s = us / 1_000_000 % 60;
    let mut digits = itoa::Buffer::new();
    let mut number = |out: &mut Vec<u8>, n: i64, width: usize| {
        let text = digits.format(n).as_bytes();
        out.resize(out.len() + width.saturating_sub(text.len()), b'0');
        out.extend_from_slice(text);
    };
    if d > 0 {
        number(out, d, 1);
        out.push(b'd');
        number(out, h, 2);
        out.push(b'h');
        number(out, m, 2);
        out.push(b'm');
        return;
    }
    if h > 0 {
        number(out, h, 1);
        out.push(b'h');
    }
    if h > 0 || m > 0 {
        number(out, m, if h > 0 { 2 } else { 1 });
        out.push(b'm');
    }
    number(out, s, if h > 0 || m > 0 { 2 } else { 1 });
    out.push(b'.');
    match precision {
        Precision::Millis => number(out, us / 1000 % 1000, 3),
        Precision::Micros => number(out, us % 1_000_000, 6),
    }
    out.push(b's');
}

/// The deltas of each line: since the first line and since the previous one, for placed lines.
fn deltas(timeline: &Timeline) -> Vec<Option<(i64, i64)>> {
    let first = timeline.span_us().map(|(f, _)| f);
    let mut prev = first;
    timeline
        .lines
        .iter()
        .map(|l| {
            let t = l.time_us?;
            let d = (t - first?, t - prev?);
            prev = Some(t);
            Some(d)
        })
        .collect()
}

/// Length of the directory prefix every path shares (up to and with its last `/`), so the
/// views can show `api/api.jsonl` for `testdata/logs/api/api.jsonl`.
fn common_dir(paths: &[&str]) -> usize {
    let Some(first) = paths.first() else {
        return 0;
    };
    let mut len = first.len();
    for p in &paths[1..] {
        len = first
            .bytes()
            .zip(p.bytes())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count();
    }
    // A single file keeps its name; the cut is at a `/` that every path has there.
    let shortest = paths.iter().map(|p| p.len()).min().unwrap_or(0);
    let len = len.min(shortest.saturating_sub(1));
    // Bytes, not characters: the shared prefix may end inside a multi-byte character.
    first.as_bytes()[..len]
        .iter()
        .rposition(|&b| b == b'/')
        .map_or(0, |i| i + 1)
}

/// The paths of the files on the timeline, shortened by their common directory.
struct Sources<'a> {
    prefix: &'a str,
    /// Short name per path index (empty for files with no line).
    names: Vec<&'a str>,
    /// Lane (0..) per path index, in walk order of the files that have lines.
    lanes: Vec<usize>,
    files: Vec<usize>,
}

impl<'a> Sources<'a> {
    fn new(timeline: &'a Timeline) -> Sources<'a> {
        let files = timeline.files();
        let used: Vec<&str> = files
            .iter()
            .map(|&f| timeline.paths[f].shown.as_str())
            .collect();
        let cut = common_dir(&used);
        let mut names = vec![""; timeline.paths.len()];
        let mut lanes = vec![usize::MAX; timeline.paths.len()];
        for (lane, &f) in files.iter().enumerate() {
            names[f] = &timeline.paths[f].shown[cut..];
            lanes[f] = lane;
        }
        let prefix = used.first().map_or("", |p| &p[..cut]);
        Sources {
            prefix,
            names,
            lanes,
            files,
        }
    }
}

/// The last 8 characters of an ID's canonical form: enough to tell the IDs of one timeline
/// apart in a narrow column.
fn tail(entry: &TimelineId) -> String {
    let full = entry.id.canonical(entry.kind);
    format!("\u{2026}{}", &full[full.len() - 8..])
}

fn canonical(entry: &TimelineId) -> String {
    entry.id.canonical(entry.kind)
}

/// What became of a related ID, in words.
fn status_text(entry: &TimelineId, timeline: &Timeline) -> String {
    match entry.status {
        Status::Root => "the timeline's ID".to_string(),
        Status::Followed(n) => format!("followed ({n} line{})", crate::text::plural(n)),
        Status::FanOut(n) => format!(
            "not followed: {n} lines > --max-fanout {}",
            timeline.max_fanout
        ),
        Status::Listed if timeline.hops == 0 => "listed (--related follows it)".to_string(),
        Status::Listed => format!("listed (beyond --hops {})", timeline.hops),
    }
}

/// The indices of the related IDs in the order the summaries show them: nearest hop first,
/// then most lines.
fn related(timeline: &Timeline) -> Vec<usize> {
    related_first(timeline, usize::MAX).0
}

/// The first `n` of [`related`], and how many related IDs there are: the text view lists a
/// few of tens of thousands, and sorting them all took a seventh of writing two hops' rows.
fn related_first(timeline: &Timeline, n: usize) -> (Vec<usize>, usize) {
    // The keys are read once, in order, and sorted apart from the entries: two hops list tens
    // of thousands of IDs, and a sort reading each entry's key at each comparison took as long
    // as writing every row. The index ends each key, so no two are equal.
    let mut keys: Vec<(u32, std::cmp::Reverse<u64>, i64, usize)> = timeline.ids[1..]
        .iter()
        .enumerate()
        .map(|(i, e)| {
            (
                e.hop,
                std::cmp::Reverse(e.lines),
                e.first_us.unwrap_or(i64::MAX),
                i + 1,
            )
        })
        .collect();
    let all = keys.len();
    if n < all {
        keys.select_nth_unstable(n);
        keys.truncate(n);
    }
    keys.sort_unstable();
    (keys.into_iter().map(|(.., k)| k).collect(), all)
}

/// A count of placed-by-rule lines, for the summaries.
fn placement_counts(timeline: &Timeline) -> [usize; 4] {
    let mut counts = [0; 4];
    for l in &timeline.lines {
        counts[l.placement as usize] += 1;
    }
    counts
}

/// The summary as (label, value) rows, shared by the text, Markdown and HTML views.
fn summary(
    timeline: &Timeline,
    clock: &Clock,
    sources: &Sources,
    precision: Precision,
) -> Vec<(&'static str, String)> {
    let root = &timeline.ids[0];
    let mut rows = vec![("id", format!("{} ({})", canonical(root), root.description))];
    rows.push((
        "created",
        root.id.unix_ms(root.kind).map_or_else(
            || "no embedded time".to_string(),
            |ms| format!("{} (embedded in the ID)", clock.format(ms)),
        ),
    ));
    match timeline.span_us() {
        Some((first, last)) => {
            rows.push(("first", clock.format_micros(first, precision)));
            rows.push(("last", clock.format_micros(last, precision)));
            rows.push(("duration", duration(last - first, precision)));
        }
        None if timeline.lines.is_empty() && timeline.outside_window > 0 => {
            rows.push(("first", "no line within --since/--until".to_string()));
        }
        None if timeline.lines.is_empty() && timeline.untimed_outside_window == 0 => {
            rows.push(("first", "no line".to_string()));
        }
        None => rows.push(("first", "no line has a time".to_string())),
    }
    let counts = placement_counts(timeline);
    let mut placed = Vec::new();
    for (placement, n) in [
        (Placement::Inferred, counts[Placement::Inferred as usize]),
        (Placement::IdTime, counts[Placement::IdTime as usize]),
        (Placement::Unplaced, counts[Placement::Unplaced as usize]),
    ] {
        if n > 0 {
            let words = match placement {
                Placement::IdTime => "by the ID's time",
                Placement::Unplaced => "without a time",
                _ => "inferred",
            };
            placed.push(format!("{n} {} {words}", placement.mark()));
        }
    }
    let mut lines = timeline.lines.len().to_string();
    if timeline.outside_window > 0 {
        placed.push(format!(
            "{} more outside --since/--until",
            timeline.outside_window
        ));
    }
    if timeline.untimed_outside_window > 0 {
        placed.push(format!(
            "{} more without a time, which --since/--until leaves out",
            timeline.untimed_outside_window
        ));
    }
    if !placed.is_empty() {
        lines.push_str(&format!(" ({})", placed.join(", ")));
    }
    rows.push(("lines", lines));
    let mut files = sources.files.len().to_string();
    if !sources.prefix.is_empty() {
        files.push_str(&format!(" under {}", sources.prefix));
    }
    rows.push(("files", files));
    let related = timeline.ids.len() - 1;
    let followed = timeline.ids[1..]
        .iter()
        .filter(|e| matches!(e.status, Status::Followed(_)))
        .count();
    let fan_out = timeline.ids[1..]
        .iter()
        .filter(|e| matches!(e.status, Status::FanOut(_)))
        .count();
    let mut text = format!("{related} ID{}", crate::text::plural(related as u64));
    if timeline.hops == 0 {
        text.push_str(" (listed; --related follows them)");
    } else {
        text.push_str(&format!(
            " ({followed} followed in {} hop{}",
            timeline.hops,
            crate::text::plural(u64::from(timeline.hops))
        ));
        if fan_out > 0 {
            text.push_str(&format!(
                ", {fan_out} not followed: more than {} line{}",
                timeline.max_fanout,
                crate::text::plural(timeline.max_fanout)
            ));
        }
        text.push(')');
    }
    rows.push(("related", text));
    rows
}

fn placement_words(placement: Placement) -> &'static str {
    match placement {
        Placement::Line => "the line's own time",
        Placement::Inferred => "inferred from an earlier line of the file",
        Placement::IdTime => "placed by the ID's embedded time (the file has no timestamps)",
        Placement::Unplaced => "without a time (listed last)",
    }
}

fn write_text(
    out: &mut dyn Write,
    timeline: &Timeline,
    clock: &Clock,
    style: &Style,
    threads: usize,
) -> io::Result<()> {
    let sources = Sources::new(timeline);
    let precision = timeline.precision();
    let mut buf = Vec::with_capacity(64 * 1024);
    for (label, value) in summary(timeline, clock, &sources, precision) {
        paint(&mut buf, style.color, HEADER_COLOR, |b| {
            let _ = write!(b, "{label:<9}");
        });
        buf.push(b' ');
        escape_into(&mut buf, value.as_bytes());
        buf.push(b'\n');
    }
    let (related, all_related) = related_first(timeline, TEXT_RELATED);
    for entry in related.iter().map(|&k| &timeline.ids[k]) {
        let mut row = Vec::with_capacity(160);
        let _ = write!(
            row,
            "          {:<36}  {:<8}  ",
            canonical(entry),
            entry.description
        );
        // The field comes from the logs: escaped, then cut and padded.
        let mut field = Vec::new();
        escape_into(&mut field, entry.field.as_deref().unwrap_or("-").as_bytes());
        let shown = cut(&mut field, 16);
        row.extend_from_slice(&field);
        pad(&mut row, shown, 16);
        let status = status_text(entry, timeline);
        let _ = write!(
            row,
            "  {:>5} line{}  {status}",
            entry.lines,
            if entry.lines == 1 { " " } else { "s" }
        );
        // First and last time, where the terminal has room for them.
        if let (Some(f), Some(l)) = (entry.first_us, entry.last_us) {
            let range = format!(
                "{} .. {}",
                clock.format_micros(f, precision),
                clock.format_micros(l, precision)
            );
            let at = text_width(&row);
            let column = at.max(at - status.len() + 40);
            if style.width.is_none_or(|w| column + 2 + range.len() <= w) {
                pad(&mut row, at, column);
                let _ = write!(row, "  {range}");
            }
        }
        if let Some(width) = style.width {
            cut(&mut row, width);
        }
        buf.extend_from_slice(&row);
        buf.push(b'\n');
    }
    if all_related > TEXT_RELATED {
        let _ = writeln!(
            buf,
            "          (+{} more; every related ID is in the md and html exports)",
            all_related - TEXT_RELATED
        );
    }
    let counts = placement_counts(timeline);
    if counts[Placement::Line as usize] < timeline.lines.len() {
        let mut legend = Vec::new();
        for placement in [Placement::Inferred, Placement::IdTime, Placement::Unplaced] {
            if counts[placement as usize] > 0 {
                legend.push(format!(
                    "{} {}",
                    placement.mark(),
                    placement_words(placement)
                ));
            }
        }
        let _ = writeln!(buf, "time      {}", legend.join("; "));
    }
    out.write_all(&buf)?;
    buf.clear();
    if timeline.lines.is_empty() {
        // The summary says "lines 0"; a table of no rows would only be a header.
        return Ok(());
    }
    out.write_all(b"\n")?;

    rows::write_rows(out, timeline, clock, style, &sources, precision, threads)
}

fn pad(buf: &mut Vec<u8>, shown: usize, width: usize) {
    for _ in shown..width {
        buf.push(b' ');
    }
}

/// Columns a cell of escaped (valid UTF-8) text takes on a terminal: two for CJK characters
/// and most emoji, none for combining marks (Unicode's East Asian Width).
fn text_width(cell: &[u8]) -> usize {
    if cell.is_ascii() {
        return cell.len();
    }
    String::from_utf8_lossy(cell).width()
}

/// Cuts escaped text to `width` terminal columns, the last one an ellipsis when cut; returns
/// the columns kept.
fn cut(cell: &mut Vec<u8>, width: usize) -> usize {
    // Most cells are short ASCII: no copy to count or cut them.
    if cell.is_ascii() && cell.len() <= width {
        return cell.len();
    }
    let text = String::from_utf8_lossy(cell).into_owned();
    let columns = text.width();
    if columns <= width {
        return columns;
    }
    // Keep whole characters within one column less than `width`, for the ellipsis.
    let (mut end, mut kept) = (0, 0);
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if kept + w > width.saturating_sub(1) {
            break;
        }
        kept += w;
        end = i + c.len_utf8();
    }
    cell.clear();
    cell.extend_from_slice(&text.as_bytes()[..end]);
    cell.extend_from_slice("\u{2026}".as_bytes());
    kept + 1
}

/// The log line, escaped, the ID highlighted in colour, cut to `budget` terminal columns.
/// `piece` is room for one piece of it, escaped.
fn write_line_text(
    buf: &mut Vec<u8>,
    line: &Line,
    budget: Option<usize>,
    color: bool,
    piece: &mut Vec<u8>,
) {
    // Uncut and uncoloured, the pieces make up the escaped line: marks stand at the edges of
    // ASCII tokens, where escaping the whole and escaping piece by piece agree.
    if budget.is_none() && !color {
        escape_into(buf, &line.text);
        return;
    }
    let mut left = budget.unwrap_or(usize::MAX);
    let mut at = 0;
    let ends = line
        .marks
        .iter()
        .flat_map(|&(start, end)| [(start, false), (end, true)])
        .chain([(line.text.len(), false)]);
    for (end, is_id) in ends {
        let bytes = &line.text[at..end];
        at = end;
        if left == 0 {
            break;
        }
        piece.clear();
        escape_into(piece, bytes);
        if budget.is_some() {
            // A tab would take a terminal up to eight columns of the budget of one.
            for b in piece.iter_mut() {
                if *b == b'\t' {
                    *b = b' ';
                }
            }
        }
        let chars = text_width(piece);
        let last = chars >= left && budget.is_some();
        if last {
            cut(piece, left);
            left = 0;
        } else {
            left = left.saturating_sub(chars);
        }
        paint(buf, is_id && color, MATCH_COLOR, |buf| {
            buf.extend_from_slice(piece)
        });
    }
}

/// One NDJSON object, one per line; the schema is in docs/timeline.md.
#[derive(Serialize)]
struct NdjsonLine<'a> {
    ts: Option<String>,
    ts_inferred: bool,
    rule: &'static str,
    /// A name that is not UTF-8 as `{"bytes": base64}`.
    path: &'a Name,
    line: u64,
    field: Option<&'a str>,
    via: String,
    text: Cow<'a, str>,
}

fn json_line<'a>(
    timeline: &'a Timeline,
    line: &'a Line,
    utc: &Clock,
    precision: Precision,
) -> NdjsonLine<'a> {
    NdjsonLine {
        ts: line.time_us.and_then(|t| utc.rfc3339_micros(t, precision)),
        ts_inferred: matches!(line.placement, Placement::Inferred | Placement::IdTime),
        rule: line.placement.name(),
        path: &timeline.paths[line.file],
        line: line.line_no,
        field: line.field.as_deref(),
        via: canonical(&timeline.ids[line.via]),
        text: String::from_utf8_lossy(&line.text),
    }
}

fn write_ndjson(out: &mut dyn Write, timeline: &Timeline) -> io::Result<()> {
    let utc = Clock::utc();
    let precision = timeline.precision();
    let mut buf = Vec::with_capacity(1024);
    for line in &timeline.lines {
        buf.clear();
        serde_json::to_writer(&mut buf, &json_line(timeline, line, &utc, precision))?;
        buf.push(b'\n');
        out.write_all(&buf)?;
    }
    Ok(())
}

/// The CSV columns, in order: the NDJSON keys.
pub const CSV_HEADER: [&str; 8] = [
    "ts",
    "ts_inferred",
    "rule",
    "path",
    "line",
    "field",
    "via",
    "text",
];

fn write_csv(out: &mut dyn Write, timeline: &Timeline) -> io::Result<()> {
    let utc = Clock::utc();
    let precision = timeline.precision();
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record(CSV_HEADER)?;
    for line in &timeline.lines {
        let j = json_line(timeline, line, &utc, precision);
        let record = [
            j.ts.unwrap_or_default(),
            j.ts_inferred.to_string(),
            j.rule.to_string(),
            j.path.shown.clone(),
            j.line.to_string(),
            j.field.unwrap_or_default().to_string(),
            j.via,
            j.text.into_owned(),
        ];
        writer.write_record(record.iter().map(|c| csv_cell(c).into_owned()))?;
    }
    writer.flush()
}

/// Text for a Markdown table cell: control characters made visible, then every ASCII
/// punctuation character that Markdown or HTML could read as syntax backslash-escaped.
fn md_text(bytes: &[u8]) -> String {
    let mut visible = Vec::new();
    escape_into(&mut visible, bytes);
    let mut out = String::new();
    for c in String::from_utf8_lossy(&visible).chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A log line as a Markdown code span inside a table: the fence is one backtick longer than
/// the longest run in the text, and `|` is escaped (GFM reads it as a cell end even there).
fn md_code(bytes: &[u8]) -> String {
    let mut visible = Vec::new();
    escape_into(&mut visible, bytes);
    let text = String::from_utf8_lossy(&visible).replace('|', "\\|");
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

fn write_md(out: &mut dyn Write, timeline: &Timeline, clock: &Clock) -> io::Result<()> {
    let precision = timeline.precision();
    let sources = Sources::new(timeline);
    let root = &timeline.ids[0];
    let mut s = String::new();
    s.push_str(&format!("## Timeline of `{}`\n\n", canonical(root)));
    s.push_str("| | |\n|---|---|\n");
    for (label, value) in summary(timeline, clock, &sources, precision) {
        s.push_str(&format!("| {label} | {} |\n", md_text(value.as_bytes())));
    }
    let related = related(timeline);
    if !related.is_empty() {
        s.push_str("\n### Related IDs\n\n| ID | kind | field | lines | first | last | status |\n|---|---|---|---:|---|---|---|\n");
        for e in related.into_iter().map(|k| &timeline.ids[k]) {
            let time = |t: Option<i64>| {
                t.map_or_else(|| "-".to_string(), |t| clock.format_micros(t, precision))
            };
            s.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} | {} |\n",
                canonical(e),
                e.description,
                md_text(e.field.as_deref().unwrap_or("-").as_bytes()),
                e.lines,
                time(e.first_us),
                time(e.last_us),
                md_text(status_text(e, timeline).as_bytes()),
            ));
        }
    }
    s.push_str("\n### Lines\n\n");
    let counts = placement_counts(timeline);
    for placement in [Placement::Inferred, Placement::IdTime, Placement::Unplaced] {
        if counts[placement as usize] > 0 {
            s.push_str(&format!(
                "{}: {}. ",
                md_text(placement.mark().to_string().as_bytes()),
                placement_words(placement)
            ));
        }
    }
    s.push_str("\n\n| time | +first | source | field | via | line |\n|---|---:|---|---|---|---|\n");
    out.write_all(s.as_bytes())?;
    let deltas = deltas(timeline);
    for (line, delta) in timeline.lines.iter().zip(deltas) {
        let time = line
            .time_us
            .map_or_else(|| "-".to_string(), |t| clock.format_micros(t, precision));
        let mark = match line.placement {
            Placement::Line => String::new(),
            placement => format!(" {}", md_text(placement.mark().to_string().as_bytes())),
        };
        let row = format!(
            "| {time}{mark} | {} | {}:{} | {} | {} | {} |\n",
            delta.map_or_else(
                || "-".to_string(),
                |d| format!("+{}", duration(d.0, precision))
            ),
            md_text(sources.names[line.file].as_bytes()),
            line.line_no,
            md_text(line.field.as_deref().unwrap_or("-").as_bytes()),
            if line.via == 0 {
                String::new()
            } else {
                format!("`{}`", canonical(&timeline.ids[line.via]))
            },
            md_code(&line.text),
        );
        out.write_all(row.as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text view's first related IDs are the first of the order the exports list them
    /// all in, whatever the hops, line counts and times tie on.
    #[test]
    fn the_first_related_ids_are_the_first_of_the_full_order() {
        let mut rng = crate::testing::Rng(0x2e1a);
        for round in 0..40 {
            let ids = (0..1 + rng.below(200))
                .map(|i| {
                    let first_us = (rng.below(4) != 0).then(|| rng.below(5) as i64);
                    TimelineId {
                        id: crate::id::Id(i as u128 + 1),
                        kind: crate::id::Kind::Ulid,
                        description: "ulid",
                        hop: rng.below(3) as u32,
                        found_via: None,
                        status: Status::Listed,
                        lines: rng.below(4) as u64,
                        first_us,
                        last_us: first_us,
                        field: None,
                        parent: None,
                        service: None,
                    }
                })
                .collect();
            let timeline = Timeline {
                ids,
                lines: Vec::new(),
                paths: Vec::new(),
                hops: 2,
                max_fanout: 100,
                outside_window: 0,
                untimed_outside_window: 0,
            };
            let all = related(&timeline);
            for n in [0, 1, 20, all.len(), all.len() + 5] {
                let (first, count) = related_first(&timeline, n);
                assert_eq!(count, all.len(), "round {round}");
                assert_eq!(first, all[..n.min(all.len())], "round {round}, first {n}");
            }
        }
    }

    #[test]
    fn common_dir_cuts_only_at_a_slash_whatever_the_characters() {
        assert_eq!(common_dir(&["logs/café"]), "logs/".len());
        assert_eq!(common_dir(&["журнал/a.log", "заказ/b.log"]), 0);
        assert_eq!(
            common_dir(&["logs/api/a.log", "logs/web/b.log"]),
            "logs/".len()
        );
    }

    #[test]
    fn durations_are_short_and_exact() {
        let ms = |ms: i64| duration(ms * 1000, Precision::Millis);
        assert_eq!(ms(0), "0.000s");
        assert_eq!(ms(120), "0.120s");
        assert_eq!(ms(851_669), "14m11.669s");
        assert_eq!(ms(7_384_005), "2h03m04.005s");
        assert_eq!(ms(3 * 86_400_000 + 4 * 3_600_000 + 5 * 60_000), "3d04h05m");
        assert_eq!(duration(250, Precision::Micros), "0.000250s");
        assert_eq!(duration(851_669_042, Precision::Micros), "14m11.669042s");
        // Shown to the millisecond, the microseconds are cut, not rounded.
        assert_eq!(duration(120_999, Precision::Millis), "0.120s");
    }

    #[test]
    fn the_common_directory_is_cut_at_a_slash() {
        assert_eq!(common_dir(&["logs/api/a.log", "logs/api2/b.log"]), 5);
        assert_eq!(common_dir(&["logs/api/a.log"]), 9);
        assert_eq!(common_dir(&["a.log", "b.log"]), 0);
        assert_eq!(common_dir(&["x/ab.log", "x/ab.log.1"]), 2);
        assert_eq!(common_dir(&[]), 0);
    }

    #[test]
    fn markdown_code_spans_survive_backticks_and_pipes() {
        assert_eq!(md_code(b"a|b"), "`a\\|b`");
        assert_eq!(md_code(b"x `y` z"), "``x `y` z``");
        assert_eq!(md_code(b"`q"), "`` `q ``");
        assert_eq!(md_text(b"<script>"), "\\<script\\>");
    }

    #[test]
    fn cutting_counts_characters_not_bytes() {
        let mut cell = "caf\u{e9} au lait".as_bytes().to_vec();
        assert_eq!(cut(&mut cell, 5), 5);
        assert_eq!(String::from_utf8(cell).unwrap(), "caf\u{e9}\u{2026}");
        let mut short = b"order_id".to_vec();
        assert_eq!((cut(&mut short, 8), text_width(&short)), (8, 8));
        assert_eq!(short, b"order_id");
        let mut long = b"order_id".to_vec();
        assert_eq!(cut(&mut long, 5), 5);
        assert_eq!(String::from_utf8(long).unwrap(), "orde\u{2026}");
    }

    #[test]
    fn cutting_counts_terminal_columns_for_wide_characters() {
        // Each CJK character and this emoji take two columns.
        let mut cjk = "注文が失敗しました".as_bytes().to_vec();
        assert_eq!(text_width(&cjk), 18);
        assert_eq!(cut(&mut cjk, 8), 7);
        assert_eq!(String::from_utf8(cjk).unwrap(), "注文が\u{2026}");
        let mut emoji = "ok \u{1f680} sent".as_bytes().to_vec();
        assert_eq!(text_width(&emoji), 10);
        assert_eq!(cut(&mut emoji, 6), 6);
        assert_eq!(String::from_utf8(emoji).unwrap(), "ok \u{1f680}\u{2026}");
    }
}
