//! The trace export: Chrome trace-event JSON (the "JSON Object Format"), which Perfetto and
//! chrome://tracing open. Process 1 holds a track (thread) per source with an instant event per
//! line; process 2 holds a track per ID with one complete event from its first to its last
//! line; process 3 draws the spans of a trace as a trace viewer does: each span ID a slice from
//! its first to its last line, on the track of its service (or of its first line's source),
//! nested where the times nest. Timestamps are microseconds since the first line (`otherData.origin` gives that
//! instant in UTC), so the numbers stay small and exact. Lines without a time are left out
//! and counted in `otherData.unplaced_lines`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use super::{Sources, canonical, status_text};
use crate::id::Kind;
use crate::time::Clock;
use crate::timeline::{Timeline, TimelineId};

/// Instant events longer than this are cut in their name (the full line is in `args.text`).
const NAME_CHARS: usize = 80;

#[derive(Serialize)]
struct Trace<'a> {
    #[serde(rename = "traceEvents")]
    trace_events: Vec<Event<'a>>,
    #[serde(rename = "displayTimeUnit")]
    display_time_unit: &'static str,
    #[serde(rename = "otherData")]
    other_data: OtherData,
}

/// What the trace is of, for a reader of the file.
#[derive(Serialize)]
struct OtherData {
    id: String,
    /// The first line's time, UTC, which `ts` 0 stands for.
    origin: Option<String>,
    /// Lines without a time, which have no place on a time axis.
    unplaced_lines: usize,
    generator: &'static str,
}

#[derive(Serialize)]
struct Event<'a> {
    name: Cow<'a, str>,
    ph: &'static str,
    pid: u32,
    tid: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<i64>,
    /// Instant events: scoped to their thread (track).
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'static str>,
    args: BTreeMap<&'static str, serde_json::Value>,
}

fn meta<'a>(
    name: &'static str,
    pid: u32,
    tid: usize,
    key: &'static str,
    value: serde_json::Value,
) -> Event<'a> {
    Event {
        name: Cow::Borrowed(name),
        ph: "M",
        pid,
        tid,
        ts: None,
        dur: None,
        s: None,
        cat: None,
        args: BTreeMap::from([(key, value)]),
    }
}

pub fn write(out: &mut dyn Write, timeline: &Timeline) -> io::Result<()> {
    let sources = Sources::new(timeline);
    let utc = Clock::utc();
    let precision = timeline.precision();
    let origin = timeline.span_us().map_or(0, |(first, _)| first);
    let us = |t: i64| t - origin;
    let mut events = vec![
        meta("process_name", 1, 0, "name", "sources".into()),
        meta("process_sort_index", 1, 0, "sort_index", 1.into()),
        meta("process_name", 2, 0, "name", "IDs".into()),
        meta("process_sort_index", 2, 0, "sort_index", 2.into()),
    ];
    for (lane, &f) in sources.files.iter().enumerate() {
        events.push(meta(
            "thread_name",
            1,
            lane + 1,
            "name",
            timeline.paths[f].shown.clone().into(),
        ));
        events.push(meta(
            "thread_sort_index",
            1,
            lane + 1,
            "sort_index",
            lane.into(),
        ));
    }
    let mut unplaced = 0;
    for line in &timeline.lines {
        let Some(t) = line.time_us else {
            unplaced += 1;
            continue;
        };
        let text = String::from_utf8_lossy(&line.text);
        let name: Cow<str> = if text.chars().count() > NAME_CHARS {
            Cow::Owned(text.chars().take(NAME_CHARS).collect())
        } else {
            text.clone()
        };
        let args = BTreeMap::from([
            ("time", utc.rfc3339_micros(t, precision).into()),
            ("rule", line.placement.name().into()),
            ("path", timeline.paths[line.file].shown.clone().into()),
            ("line", line.line_no.into()),
            ("via", canonical(&timeline.ids[line.via]).into()),
            ("text", text.into_owned().into()),
            ("field", line.field.as_deref().into()),
        ]);
        events.push(Event {
            name,
            ph: "i",
            pid: 1,
            tid: sources.lanes[line.file] + 1,
            ts: Some(us(t)),
            dur: None,
            s: Some("t"),
            cat: Some("line"),
            args,
        });
    }
    for (k, e) in timeline.ids.iter().enumerate() {
        let (Some(first), Some(last)) = (e.first_us, e.last_us) else {
            continue;
        };
        let name = canonical(e);
        events.push(meta("thread_name", 2, k + 1, "name", name.clone().into()));
        events.push(meta("thread_sort_index", 2, k + 1, "sort_index", k.into()));
        let args = BTreeMap::from([
            ("kind", e.description.into()),
            ("lines", e.lines.into()),
            ("hop", e.hop.into()),
            ("status", status_text(e, timeline).into()),
            ("first", utc.rfc3339_micros(first, precision).into()),
            ("last", utc.rfc3339_micros(last, precision).into()),
            ("field", e.field.as_deref().into()),
        ]);
        events.push(Event {
            name: Cow::Owned(name),
            ph: "X",
            pid: 2,
            tid: k + 1,
            ts: Some(us(first)),
            // Perfetto drops zero-length slices from view; one microsecond keeps them visible.
            dur: Some(us(last) - us(first)).map(|d| d.max(1)),
            s: None,
            cat: Some("id"),
            args,
        });
    }
    span_slices(timeline, &mut events, &us, |t| {
        utc.rfc3339_micros(t, precision).into()
    });
    let root = &timeline.ids[0];
    let trace = Trace {
        trace_events: events,
        display_time_unit: "ms",
        other_data: OtherData {
            id: canonical(root),
            origin: utc.rfc3339_micros(origin, precision),
            unplaced_lines: unplaced,
            generator: "idgrep timeline",
        },
    };
    serde_json::to_writer(&mut *out, &trace)?;
    out.write_all(b"\n")
}

/// The spans' slices, in process 3. A track holds slices that nest or follow one another,
/// which the trace format requires of one thread's complete events; a span that would overlap
/// another partly goes to the service's next track (`payments (2)`). A child tries its
/// parent's track first, so it is drawn under it.
fn span_slices<'a>(
    timeline: &'a Timeline,
    events: &mut Vec<Event<'a>>,
    us: &dyn Fn(i64) -> i64,
    time: impl Fn(i64) -> serde_json::Value,
) {
    let first_file = first_files(timeline);
    let mut spans: Vec<(usize, i64, i64)> = timeline
        .ids
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == Kind::Span)
        .filter_map(|(k, e)| Some((k, us(e.first_us?), us(e.last_us?))))
        .collect();
    if spans.is_empty() {
        return;
    }
    events.push(meta("process_name", 3, 0, "name", "spans".into()));
    events.push(meta("process_sort_index", 3, 0, "sort_index", 3.into()));
    // Outer slices first: by start, the longer first.
    spans.sort_by_key(|&(k, first, last)| (first, std::cmp::Reverse(last), k));
    let service = |e: &TimelineId, k: usize| match &e.service {
        Some(name) => name.clone(),
        None => first_file[k].map_or_else(String::new, |f| timeline.paths[f].shown.clone()),
    };
    // Per service, its tracks: each a thread id and the ends of its open slices.
    let mut tracks: BTreeMap<String, Vec<(usize, Vec<i64>)>> = BTreeMap::new();
    let mut track_of = vec![None; timeline.ids.len()];
    let mut next_tid = 1;
    for (k, first, last) in spans {
        let e = &timeline.ids[k];
        let name = service(e, k);
        // Drawn one microsecond long at least, as in process 2.
        let end = last.max(first + 1);
        let lanes = tracks.entry(name.clone()).or_default();
        let preferred = e.parent.and_then(|p| track_of[p]);
        let order = preferred
            .into_iter()
            .chain(lanes.iter().map(|(tid, _)| *tid))
            .collect::<Vec<usize>>();
        let fits = |open: &mut Vec<i64>| {
            while open.last().is_some_and(|&e| e <= first) {
                open.pop();
            }
            open.last().is_none_or(|&e| e >= end)
        };
        let mut chosen = None;
        for tid in order {
            if let Some((_, open)) = lanes.iter_mut().find(|(t, _)| *t == tid)
                && fits(open)
            {
                open.push(end);
                chosen = Some(tid);
                break;
            }
        }
        let tid = chosen.unwrap_or_else(|| {
            let tid = next_tid;
            next_tid += 1;
            let shown = match lanes.len() {
                0 => name.clone(),
                n => format!("{name} ({})", n + 1),
            };
            events.push(meta("thread_name", 3, tid, "name", shown.into()));
            events.push(meta("thread_sort_index", 3, tid, "sort_index", tid.into()));
            lanes.push((tid, vec![end]));
            tid
        });
        track_of[k] = Some(tid);
        let mut args = BTreeMap::from([
            ("span", canonical(e).into()),
            ("service", name.into()),
            ("lines", e.lines.into()),
            ("first", time(e.first_us.unwrap_or_default())),
            ("last", time(e.last_us.unwrap_or_default())),
            ("field", e.field.as_deref().into()),
        ]);
        if let Some(p) = e.parent {
            args.insert("parent", canonical(&timeline.ids[p]).into());
        }
        events.push(Event {
            name: Cow::Owned(canonical(e)),
            ph: "X",
            pid: 3,
            tid,
            ts: Some(first),
            dur: Some(end - first),
            s: None,
            cat: Some("span"),
            args,
        });
    }
}

/// The source of each ID's first placed line.
fn first_files(timeline: &Timeline) -> Vec<Option<usize>> {
    let mut first = vec![None; timeline.ids.len()];
    for line in timeline.lines.iter().filter(|l| l.time_us.is_some()) {
        for &k in &line.ids {
            first[k].get_or_insert(line.file);
        }
    }
    first
}
