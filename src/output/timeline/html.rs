//! The HTML export: one self-contained page (no external script, style, font or request) with
//! the summary, a swimlane chart in SVG (a lane per source, a mark per line, a span per ID
//! from its first to its last line), a detail panel that shows the line under the pointer,
//! and the full table.
//!
//! Everything from the logs is escaped (`& < > " '`) after control characters are made
//! visible, so a log line holding `<script>` is text. The page's own script runs last and
//! marks `<body>` with `data-ready="1"`; `window.onerror` counts errors into `data-errors`,
//! which is how the browser test knows the script ran cleanly.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::{
    Sources, canonical, deltas, duration, placement_counts, placement_words, related, status_text,
    summary, tail,
};
use crate::text::escape_into;
use crate::time::{Clock, Precision};
use crate::timeline::{Placement, Status, Timeline};

/// Tableau 10: distinct at a glance, readable on white.
const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// Chart geometry, in SVG user units.
const WIDTH: f64 = 1200.0;
const LABEL_WIDTH: f64 = 250.0;
const RIGHT_PAD: f64 = 30.0;
const AXIS_HEIGHT: f64 = 36.0;
const LANE_HEIGHT: f64 = 32.0;
const SPAN_HEIGHT: f64 = 20.0;
/// The chart draws at most this many ID spans (the root first); the table lists them all.
const MAX_SPANS: usize = 40;

/// `& < > " '` as entities, after control characters are made visible.
fn esc(bytes: &[u8]) -> String {
    let mut visible = Vec::with_capacity(bytes.len());
    escape_into(&mut visible, bytes);
    let mut out = String::with_capacity(visible.len());
    for c in String::from_utf8_lossy(&visible).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn esc_str(s: &str) -> String {
    esc(s.as_bytes())
}

/// Maps times to x positions.
struct Scale {
    start: i64,
    end: i64,
}

impl Scale {
    fn x(&self, t: i64) -> f64 {
        let plot = WIDTH - LABEL_WIDTH - RIGHT_PAD;
        LABEL_WIDTH + plot * (t - self.start) as f64 / (self.end - self.start) as f64
    }
}

/// A tick step that gives at most about ten ticks.
fn tick_step(range_ms: i64) -> i64 {
    const STEPS: [i64; 22] = [
        1, 10, 100, 250, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000,
        300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000,
        86_400_000,
    ];
    STEPS
        .iter()
        .copied()
        .find(|s| range_ms / s <= 10)
        .unwrap_or_else(|| (range_ms / 10 / 86_400_000 + 1) * 86_400_000)
}

/// A tick label: the part of the time that changes over the range.
fn tick_label(clock: &Clock, t: i64, range_ms: i64, step: i64) -> String {
    let full = clock.format(t);
    if full.len() < 23 {
        return full;
    }
    if range_ms > 86_400_000 {
        full[5..16].replace('T', " ")
    } else if step < 1000 {
        full[11..23].to_string()
    } else {
        full[11..19].to_string()
    }
}

pub fn write(out: &mut dyn Write, timeline: &Timeline, clock: &Clock) -> io::Result<()> {
    let sources = Sources::new(timeline);
    let precision = timeline.precision();
    let root = &timeline.ids[0];
    let mut h = String::with_capacity(64 * 1024 + timeline.lines.len() * 400);
    let title = format!("Timeline of {}", canonical(root));
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n\
         <script>window.onerror = function () {{ var b = document.body; if (b) {{ \
         b.setAttribute('data-errors', String(Number(b.getAttribute('data-errors') || 0) + 1)); }} \
         return false; }};</script>\n</head>\n<body data-errors=\"0\">\n",
        esc_str(&title)
    );
    let _ = write!(
        h,
        "<header><h1>Timeline of <code>{}</code></h1>\n<dl class=\"summary\">",
        esc_str(&canonical(root))
    );
    for (label, value) in summary(timeline, clock, &sources, precision) {
        let _ = write!(h, "<dt>{label}</dt><dd>{}</dd>", esc_str(&value));
    }
    h.push_str("</dl></header>\n");

    chart(&mut h, timeline, clock, &sources, precision);

    h.push_str(
        "<div id=\"detail\" class=\"detail\"><span class=\"hint\">Hover over a mark to see its \
         line; click to pin it and jump to its row. Click an ID span to highlight its lines.\
         </span></div>\n",
    );

    let related = related(timeline);
    if !related.is_empty() {
        let _ = write!(
            h,
            "<h2>Related IDs <small>({})</small></h2>\n<table class=\"ids\"><thead><tr><th>ID</th>\
             <th>kind</th><th>field</th><th>lines</th><th>first</th><th>last</th><th>status</th>\
             <th>found on a line of</th></tr></thead><tbody>\n",
            related.len()
        );
        for k in related {
            let e = &timeline.ids[k];
            let time = |t: Option<i64>| {
                t.map_or_else(|| "-".to_string(), |t| clock.format_micros(t, precision))
            };
            let _ = writeln!(
                h,
                "<tr data-id=\"{k}\"><td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"num\">{}</td>\
                 <td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
                esc_str(&canonical(e)),
                esc_str(e.description),
                esc_str(e.field.as_deref().unwrap_or("-")),
                e.lines,
                time(e.first_us),
                time(e.last_us),
                esc_str(&status_text(e, timeline)),
                e.found_via
                    .map_or_else(String::new, |v| esc_str(&canonical(&timeline.ids[v]))),
            );
        }
        h.push_str("</tbody></table>\n");
    }

    let counts = placement_counts(timeline);
    let _ = write!(
        h,
        "<h2>Lines <small>({})</small></h2>\n<p class=\"legend\">",
        timeline.lines.len()
    );
    for placement in [Placement::Inferred, Placement::IdTime, Placement::Unplaced] {
        if counts[placement as usize] > 0 {
            let _ = write!(
                h,
                "<b>{}</b> {}. ",
                placement.mark(),
                placement_words(placement)
            );
        }
    }
    h.push_str(
        "</p>\n<table id=\"lines\" class=\"lines\"><thead><tr><th>#</th><th>time</th>\
         <th>+first</th><th>+prev</th><th>source</th><th>field</th><th>via</th><th>line</th>\
         </tr></thead><tbody>\n",
    );
    out.write_all(h.as_bytes())?;
    h.clear();
    let deltas = deltas(timeline);
    for (i, (line, delta)) in timeline.lines.iter().zip(deltas).enumerate() {
        let lane = sources.lanes[line.file];
        let color = PALETTE[lane % PALETTE.len()];
        let ids: Vec<String> = line.ids.iter().map(|k| k.to_string()).collect();
        let (first, prev) = delta.map_or_else(
            || ("-".to_string(), "-".to_string()),
            |(f, p)| {
                (
                    format!("+{}", duration(f, precision)),
                    format!("+{}", duration(p, precision)),
                )
            },
        );
        let time = line
            .time_us
            .map_or_else(|| "-".to_string(), |t| clock.format_micros(t, precision));
        let mark = match line.placement {
            Placement::Line => String::new(),
            placement => format!(
                " <b title=\"{}\">{}</b>",
                placement_words(placement),
                placement.mark()
            ),
        };
        let via = if line.via == 0 {
            String::new()
        } else {
            let e = &timeline.ids[line.via];
            format!(
                "<code title=\"{}\">{}</code>",
                esc_str(&canonical(e)),
                esc_str(&tail(e))
            )
        };
        let _ = write!(
            h,
            "<tr id=\"r{i}\" data-ids=\" {} \"><td class=\"num\">{}</td><td class=\"time\">{time}{mark}</td>\
             <td class=\"num\">{first}</td><td class=\"num\">{prev}</td>\
             <td class=\"src\"><span class=\"dot\" style=\"background:{color}\"></span>{}:{}</td>\
             <td>{}</td><td>{via}</td><td class=\"text\">",
            ids.join(" "),
            i + 1,
            esc_str(sources.names[line.file]),
            line.line_no,
            esc_str(line.field.as_deref().unwrap_or("-")),
        );
        let mut at = 0;
        for &(start, end) in &line.marks {
            h.push_str(&esc(&line.text[at..start]));
            let _ = write!(h, "<mark>{}</mark>", esc(&line.text[start..end]));
            at = end;
        }
        h.push_str(&esc(&line.text[at..]));
        h.push_str("</td></tr>\n");
        if h.len() >= 64 * 1024 {
            out.write_all(h.as_bytes())?;
            h.clear();
        }
    }
    h.push_str("</tbody></table>\n<footer>Made by <code>idgrep timeline</code>.</footer>\n");
    let _ = write!(h, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    out.write_all(h.as_bytes())
}

/// The SVG: time axis, one lane per source with a mark per placed line, then one span per ID.
/// Positions are in milliseconds; the titles show times as the tables do.
fn chart(
    h: &mut String,
    timeline: &Timeline,
    clock: &Clock,
    sources: &Sources,
    precision: Precision,
) {
    let millis = |us: i64| us.div_euclid(1000);
    let Some((first, last)) = timeline
        .span_us()
        .map(|(first, last)| (millis(first), millis(last)))
    else {
        h.push_str("<p class=\"empty\">No line has a time: nothing to chart.</p>\n");
        return;
    };
    // Room on both sides so the first and last marks are not on the edge.
    let pad = ((last - first) / 40).max(500);
    let scale = Scale {
        start: first - pad,
        end: last + pad,
    };
    let mut spans: Vec<usize> = vec![0];
    let mut others: Vec<usize> = (1..timeline.ids.len())
        .filter(|&k| timeline.ids[k].first_us.is_some())
        .collect();
    others.sort_by_key(|&k| {
        (
            timeline.ids[k].hop,
            std::cmp::Reverse(timeline.ids[k].lines),
        )
    });
    others.truncate(MAX_SPANS - 1);
    others.sort_by_key(|&k| timeline.ids[k].first_us);
    spans.extend(others);
    let lanes = sources.files.len() as f64;
    let spans_top = AXIS_HEIGHT + lanes * LANE_HEIGHT + 28.0;
    let height = spans_top + spans.len() as f64 * SPAN_HEIGHT + 10.0;
    let _ = writeln!(
        h,
        "<figure class=\"chart\"><svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" \
         viewBox=\"0 0 {WIDTH} {height}\" width=\"100%\" role=\"img\" \
         aria-label=\"Swimlane chart: one lane per source, one mark per line\">"
    );
    // Axis and grid.
    let range = scale.end - scale.start;
    let step = tick_step(range);
    let mut t = scale.start.div_euclid(step) * step + step;
    while t < scale.end {
        let x = scale.x(t);
        let _ = writeln!(
            h,
            "<line class=\"grid\" x1=\"{x:.1}\" y1=\"{AXIS_HEIGHT}\" x2=\"{x:.1}\" y2=\"{:.1}\"/>\
             <text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\">{}</text>",
            height - 6.0,
            AXIS_HEIGHT - 12.0,
            esc_str(&tick_label(clock, t, range, step))
        );
        t += step;
    }
    // Lanes.
    for (lane, &f) in sources.files.iter().enumerate() {
        let y = AXIS_HEIGHT + lane as f64 * LANE_HEIGHT;
        let color = PALETTE[lane % PALETTE.len()];
        let name = sources.names[f];
        let shown: String = if name.chars().count() > 34 {
            let skip = name.chars().count() - 33;
            format!("\u{2026}{}", name.chars().skip(skip).collect::<String>())
        } else {
            name.to_string()
        };
        let _ = writeln!(
            h,
            "<g class=\"lane\" data-lane=\"{lane}\"><rect class=\"lane-bg{}\" x=\"0\" y=\"{y:.1}\" \
             width=\"{WIDTH}\" height=\"{LANE_HEIGHT}\"/><rect x=\"4\" y=\"{:.1}\" width=\"6\" \
             height=\"{:.1}\" fill=\"{color}\"/><text class=\"lane-label\" x=\"16\" y=\"{:.1}\">\
             <title>{}</title>{}</text></g>",
            if lane % 2 == 1 { " odd" } else { "" },
            y + 6.0,
            LANE_HEIGHT - 12.0,
            y + LANE_HEIGHT / 2.0 + 4.0,
            esc_str(&timeline.paths[f].shown),
            esc_str(&shown),
        );
    }
    // Marks; lines at (nearly) the same x in a lane are spread up and down.
    const SPREAD: [f64; 5] = [0.0, -7.0, 7.0, -3.5, 3.5];
    let mut last_x = vec![(f64::NEG_INFINITY, 0usize); sources.files.len()];
    for (i, line) in timeline.lines.iter().enumerate() {
        let Some(t) = line.time_us else { continue };
        let lane = sources.lanes[line.file];
        let color = PALETTE[lane % PALETTE.len()];
        let x = scale.x(millis(t));
        let (px, n) = last_x[lane];
        let n = if x - px < 4.0 { n + 1 } else { 0 };
        last_x[lane] = (x, n);
        let y =
            AXIS_HEIGHT + lane as f64 * LANE_HEIGHT + LANE_HEIGHT / 2.0 + SPREAD[n % SPREAD.len()];
        let mut title = Vec::new();
        let _ = write!(
            title,
            "{}{} {}:{} ",
            clock.format_micros(t, precision),
            line.placement.mark(),
            sources.names[line.file],
            line.line_no
        );
        title.extend(line.text.iter().take(300));
        let title = esc(&title);
        match line.placement {
            Placement::IdTime => {
                let _ = writeln!(
                    h,
                    "<path class=\"mark\" data-row=\"{i}\" d=\"M{x:.1} {:.1} l5 5 l-5 5 l-5 -5 z\" \
                     fill=\"{color}\"><title>{title}</title></path>",
                    y - 5.0
                );
            }
            Placement::Inferred => {
                let _ = writeln!(
                    h,
                    "<circle class=\"mark inferred\" data-row=\"{i}\" cx=\"{x:.1}\" cy=\"{y:.1}\" \
                     r=\"4.5\" fill=\"#fff\" stroke=\"{color}\"><title>{title}</title></circle>"
                );
            }
            _ => {
                // Lines brought in by a related ID are smaller and paler: the ID's own story
                // stands out.
                let (class, r) = if line.via == 0 {
                    ("mark", 5.0)
                } else {
                    ("mark related", 3.5)
                };
                let _ = writeln!(
                    h,
                    "<circle class=\"{class}\" data-row=\"{i}\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r}\" \
                     fill=\"{color}\"><title>{title}</title></circle>"
                );
            }
        }
    }
    // ID spans.
    let _ = writeln!(
        h,
        "<text class=\"section\" x=\"4\" y=\"{:.1}\">IDs, first to last line</text>",
        spans_top - 8.0
    );
    for (row, &k) in spans.iter().enumerate() {
        let e = &timeline.ids[k];
        let (Some(f), Some(l)) = (e.first_us, e.last_us) else {
            continue;
        };
        let y = spans_top + row as f64 * SPAN_HEIGHT;
        let (x1, x2) = (scale.x(millis(f)), scale.x(millis(l)));
        let class = match e.status {
            Status::Root => "span root",
            Status::Followed(_) => "span followed",
            Status::FanOut(_) => "span fanout",
            Status::Listed => "span listed",
        };
        let label = match &e.field {
            Some(field) => format!("{} {}", tail(e), field),
            None => tail(e),
        };
        let _ = writeln!(
            h,
            "<g class=\"{class}\" data-id=\"{k}\"><title>{} ({}): {} line{}, {} .. {}; {}</title>\
             <text class=\"span-label\" x=\"16\" y=\"{:.1}\">{}</text>\
             <rect x=\"{x1:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"10\" rx=\"3\"/></g>",
            esc_str(&canonical(e)),
            esc_str(e.description),
            e.lines,
            crate::text::plural(e.lines),
            clock.format_micros(f, precision),
            clock.format_micros(l, precision),
            esc_str(&status_text(e, timeline)),
            y + 9.0,
            esc_str(&label),
            y + 1.0,
            (x2 - x1).max(3.0),
        );
    }
    h.push_str("</svg><figcaption>");
    let _ = write!(
        h,
        "<span class=\"key\"><svg width=\"12\" height=\"12\"><circle cx=\"6\" cy=\"6\" r=\"5\" fill=\"#555\"/></svg> \
         the line's own time</span><span class=\"key\"><svg width=\"12\" height=\"12\"><circle cx=\"6\" cy=\"6\" \
         r=\"3.5\" fill=\"#555\" opacity=\".55\"/></svg> brought in by a related ID</span><span class=\"key\"><svg width=\"12\" height=\"12\"><circle cx=\"6\" cy=\"6\" \
         r=\"4.5\" fill=\"#fff\" stroke=\"#555\"/></svg> inferred from an earlier line</span>\
         <span class=\"key\"><svg width=\"12\" height=\"12\"><path d=\"M6 1 l5 5 l-5 5 l-5 -5 z\" fill=\"#555\"/></svg> \
         the ID's embedded time (file without timestamps)</span>\
         <span class=\"key\"><svg width=\"26\" height=\"10\"><rect width=\"26\" height=\"10\" rx=\"3\" fill=\"#1d2330\"/></svg> \
         the timeline's ID</span><span class=\"key\"><svg width=\"26\" height=\"10\"><rect width=\"26\" height=\"10\" rx=\"3\" \
         fill=\"#4e79a7\"/></svg> followed</span><span class=\"key\"><svg width=\"26\" height=\"10\"><rect width=\"26\" \
         height=\"10\" rx=\"3\" fill=\"#98a2b3\"/></svg> listed</span><span class=\"key\"><svg width=\"28\" height=\"12\">\
         <rect x=\"1\" y=\"1\" width=\"26\" height=\"10\" rx=\"3\" fill=\"#fff\" stroke=\"#e15759\" stroke-dasharray=\"3 2\"/>\
         </svg> not followed (more than --max-fanout lines)</span>"
    );
    if spans.len() < timeline.ids.len() {
        let _ = write!(
            h,
            "<span class=\"key\">{} of {} IDs drawn; all are in the table below</span>",
            spans.len(),
            timeline.ids.len()
        );
    }
    h.push_str("</figcaption></figure>\n");
}

const STYLE: &str = r#"
:root { --fg: #1d2330; --muted: #667085; --line: #e4e7ec; --bg-alt: #f7f8fa; --accent: #1d4ed8; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; color: var(--fg); background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
code, .text, .time, .num, .tick, .lane-label, .span-label { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; }
h1 { font-size: 20px; margin: 0 0 12px; }
h2 { font-size: 16px; margin: 28px 0 8px; }
h2 small { color: var(--muted); font-weight: normal; }
dl.summary { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0 0 16px; }
dl.summary dt { color: var(--muted); }
dl.summary dd { margin: 0; }
figure.chart { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 8px; }
figcaption { color: var(--muted); font-size: 12px; padding: 6px 4px 0; }
.key { margin-right: 18px; white-space: nowrap; }
.key svg { vertical-align: -1px; }
svg text { font-size: 12px; fill: var(--fg); }
.tick { text-anchor: middle; fill: var(--muted); font-size: 11px; }
.grid { stroke: var(--line); stroke-width: 1; }
.lane-bg { fill: #fff; }
.lane-bg.odd { fill: var(--bg-alt); }
.section { fill: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .05em; }
.mark { cursor: pointer; stroke-width: 1.5; }
.mark.related { opacity: .55; }
.mark:hover, .mark.sel { stroke: #000; stroke-width: 2.5; }
.span rect { fill: #98a2b3; }
.span.root rect { fill: #1d2330; }
.span.followed rect { fill: #4e79a7; }
.span.fanout rect { fill: #fff; stroke: #e15759; stroke-dasharray: 3 2; }
.span { cursor: pointer; }
.span.sel rect { stroke: #000; stroke-width: 2; }
.detail { margin: 12px 0; padding: 10px 12px; border-left: 4px solid var(--accent); background: var(--bg-alt);
  min-height: 44px; white-space: pre-wrap; word-break: break-all; }
.detail .hint { color: var(--muted); }
.detail .meta { color: var(--muted); display: block; margin-bottom: 4px; white-space: normal; }
.detail code { font-size: 13px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { position: sticky; top: 0; background: #fff; border-bottom: 2px solid var(--line); }
td.num { text-align: right; white-space: nowrap; }
td.time, td.src { white-space: nowrap; }
td.text { white-space: pre-wrap; word-break: break-all; }
.dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; margin-right: 6px; }
mark { background: #fde68a; color: inherit; padding: 0 1px; }
tr.sel td { background: #dbeafe; }
tr.hl td { background: #fef9c3; }
.legend { color: var(--muted); }
footer { margin-top: 24px; color: var(--muted); font-size: 12px; }
"#;

const SCRIPT: &str = r#"
(function () {
  var detail = document.getElementById('detail');
  var pinned = null;
  function row(i) { return document.getElementById('r' + i); }
  function show(i) {
    var r = row(i);
    if (!r) { return; }
    var c = r.cells;
    detail.textContent = '';
    var meta = document.createElement('span');
    meta.className = 'meta';
    meta.textContent = c[1].textContent + '   ' + c[4].textContent + '   field ' + c[5].textContent +
      (c[6].textContent ? '   via ' + c[6].textContent : '');
    var text = document.createElement('code');
    text.textContent = c[7].textContent;
    detail.appendChild(meta);
    detail.appendChild(text);
  }
  function clear(cls) {
    var old = document.querySelectorAll('.' + cls);
    for (var k = 0; k < old.length; k++) { old[k].classList.remove(cls); }
  }
  var marks = document.querySelectorAll('#chart .mark');
  for (var k = 0; k < marks.length; k++) {
    marks[k].addEventListener('mouseenter', function () {
      if (pinned === null) { show(this.getAttribute('data-row')); }
    });
    marks[k].addEventListener('click', function () {
      var i = this.getAttribute('data-row');
      clear('sel');
      pinned = i;
      this.classList.add('sel');
      show(i);
      var r = row(i);
      if (r) { r.classList.add('sel'); r.scrollIntoView({ block: 'center' }); }
    });
  }
  var spans = document.querySelectorAll('#chart .span');
  for (var s = 0; s < spans.length; s++) {
    spans[s].addEventListener('click', function () {
      var id = this.getAttribute('data-id');
      var was = this.classList.contains('sel');
      clear('hl');
      clear('sel');
      pinned = null;
      if (was) { return; }
      this.classList.add('sel');
      var rows = document.querySelectorAll('#lines tbody tr');
      var first = null;
      for (var k = 0; k < rows.length; k++) {
        if (rows[k].getAttribute('data-ids').indexOf(' ' + id + ' ') >= 0) {
          rows[k].classList.add('hl');
          if (first === null) { first = rows[k]; }
        }
      }
      if (first) { first.scrollIntoView({ block: 'center' }); }
    });
  }
  document.body.setAttribute('data-marks', String(marks.length));
  document.body.setAttribute('data-ready', '1');
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_text_is_escaped_for_html() {
        assert_eq!(
            esc(b"<script>alert('x')</script> & \"q\" \x1b[31m"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot; \\x1b[31m"
        );
    }

    #[test]
    fn ticks_are_round_and_few() {
        assert_eq!(tick_step(60_000), 10_000);
        assert_eq!(tick_step(851_669 + 42_000), 120_000);
        assert_eq!(tick_step(3 * 86_400_000), 43_200_000);
        assert_eq!(tick_step(40 * 86_400_000), 5 * 86_400_000);
    }
}
