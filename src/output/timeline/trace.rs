//! The trace export: Chrome trace-event JSON (the "JSON Object Format"), which Perfetto and
//! chrome://tracing open. Process 1 holds a track (thread) per source with an instant event per
//! line; process 2 holds a track per ID with one complete event from its first to its last
//! line. Timestamps are microseconds since the first line (`otherData.origin` gives that
//! instant in UTC), so the numbers stay small and exact. Lines without a time are left out
//! and counted in `otherData.unplaced_lines`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use super::{Sources, canonical, status_text};
use crate::time::Clock;
use crate::timeline::Timeline;

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
            ("field", line.field.clone().into()),
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
            ("field", e.field.clone().into()),
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
