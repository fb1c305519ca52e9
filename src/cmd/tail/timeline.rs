//! `idgrep timeline --tail ID PATHS`: the text timeline of what the files hold, then one row
//! per line written after it that mentions the ID (or a related ID the timeline followed), as
//! the lines arrive.
//!
//! The follower reads the files to their end first, silently, and only then is the timeline
//! built, so that no line written meanwhile is lost; a line the timeline already shows (by its
//! file and line number) is not shown again as a row.

use std::collections::HashMap;
use std::path::Path;

use super::follow_options;
use crate::config::{Destination, FollowConfig, TimelineConfig};
use crate::exit::{Exit, report};
use crate::follow::{self, Batch, Sink};
use crate::output::timeline::{self as render, Style, live};
use crate::record::{Analysis, TimeContext};
use crate::scan::Matcher;
use crate::search::{self, Scratch, SearchOptions};
use crate::source;
use crate::time::{Clock, Precision};
use crate::timeline::{self as model, Line, Placement, Status};

/// Runs `idgrep timeline --tail`: 0 when the timeline or a row had a line, else 1.
pub fn run(config: TimelineConfig, follow_config: FollowConfig) -> Exit {
    let width = match config.destination {
        Destination::Stdout { width } => width,
        Destination::File(_) => None,
    };
    let mut sink = TimelineSink {
        config: &config,
        style: Style {
            color: config.input.color,
            width,
        },
        clock: config.input.clock(),
        live: None,
        scratch: Scratch::default(),
        analysis: Analysis::default(),
        out: Vec::new(),
        found: false,
        failed: false,
    };
    if let Err(reason) = follow::run(follow_options(&config.input, follow_config), &mut sink) {
        sink.flush();
        report(&reason);
        return Exit::Error;
    }
    if sink.found {
        Exit::Found
    } else {
        Exit::NotFound
    }
}

/// What the rows need from the timeline printed before them.
struct Live {
    matcher: Matcher,
    /// For each query of the matcher, the name of the related ID (`None`: the root).
    via: Vec<Option<String>>,
    /// The last line number per file that the timeline shows.
    shown_up_to: HashMap<String, u64>,
    first_us: Option<i64>,
    prev_us: Option<i64>,
    /// How finely the timeline showed its times; the rows follow it.
    precision: Precision,
    date: Option<String>,
}

struct TimelineSink<'a> {
    config: &'a TimelineConfig,
    style: Style,
    clock: Clock,
    /// `None` until the files present at the start were read.
    live: Option<Live>,
    scratch: Scratch,
    analysis: Analysis,
    out: Vec<u8>,
    found: bool,
    failed: bool,
}

impl Sink for TimelineSink<'_> {
    fn lines(&mut self, path: &Path, batch: &Batch) -> bool {
        let Some(live) = &mut self.live else {
            // Read before the timeline is built, which reads it too.
            return false;
        };
        if batch.binary {
            return false;
        }
        let source = path.display().to_string();
        let up_to = live.shown_up_to.get(&source).copied().unwrap_or(0);
        let context = TimeContext::for_file(self.config.input.zone.as_ref(), None);
        let options = SearchOptions {
            line_numbers: true,
            text: true,
            ..SearchOptions::default()
        };
        let (since, until) = (self.config.query.since, self.config.query.until);
        let mut bytes = batch.bytes;
        let mut printed = false;
        let (analysis, out, clock, style) =
            (&mut self.analysis, &mut self.out, &self.clock, &self.style);
        search::search(
            &live.matcher,
            options,
            &mut bytes,
            &mut self.scratch,
            &mut |m| {
                let line_no = m.line_no + batch.first_line_no - 1;
                if line_no <= up_to {
                    return true;
                }
                crate::record::analyse_hits(m.line, m.hits, &context, analysis);
                // The timeline's own ID brings the line in when it is on it, as in the table.
                let query = m.hits.iter().map(|h| h.query).min().unwrap_or(0);
                let first_hit = m.hits.iter().position(|h| h.query == query).unwrap_or(0);
                let own = analysis.time().map(|t| t.micros);
                // A line without a time of its own is placed when it was read: now.
                let time_us = own.or_else(|| Some(jiff::Timestamp::now().as_microsecond()));
                // The window is to the millisecond, as the timeline's.
                if time_us
                    .map(|t| t.div_euclid(1000))
                    .is_some_and(|t| since.is_some_and(|s| t < s) || until.is_some_and(|u| t > u))
                {
                    // Outside --since/--until, as the timeline leaves such lines out.
                    return true;
                }
                let line = Line {
                    time_us,
                    placement: if own.is_some() {
                        Placement::Line
                    } else {
                        Placement::Inferred
                    },
                    file: 0,
                    line_no,
                    field: analysis
                        .field(first_hit)
                        .map(|f| String::from_utf8_lossy(f).into()),
                    via: query,
                    text: m.line.into(),
                    marks: m
                        .hits
                        .iter()
                        .filter(|h| h.query == query)
                        .map(|h| (h.start, h.end))
                        .collect(),
                    ids: Vec::new(),
                };
                let at = live::RowContext {
                    source: &source,
                    first_us: live.first_us.or(time_us),
                    prev_us: live.prev_us.or(time_us),
                    precision: live.precision,
                    date: live.date.as_deref(),
                    via: live.via[query].as_deref(),
                };
                live::write_row(out, &line, &at, clock, style);
                live.first_us = at.first_us;
                live.prev_us = time_us;
                printed = true;
                true
            },
        );
        self.found |= printed;
        printed
    }

    fn whole(&mut self, _path: &Path) {
        // Compressed files are the timeline's to read; they are not followed.
    }

    fn problem(&mut self, path: &Path, reason: &str) {
        self.flush();
        report(&format!("{}: {reason}", path.display()));
    }

    fn following(&mut self) {
        // A walk that cannot start was reported; the timeline is then empty.
        let inputs = crate::cmd::distinct_inputs(&self.config.input).unwrap_or_default();
        let settings = self.config.input.scan_settings(false);
        let index = crate::cmd::index::open_for(&self.config.input, &self.config.index);
        let (timeline, _errored) =
            model::build(&self.config.query, &settings, &inputs, None, index.as_ref());
        self.found = !timeline.lines.is_empty();
        let mut out = Vec::new();
        if let Err(e) = render::write(
            &mut out,
            render::TimelineFormat::Text,
            &timeline,
            &self.clock,
            &self.style,
            settings.threads,
        ) {
            report(&format!("error writing output: {}", source::io_reason(&e)));
        }
        self.out.extend_from_slice(&out);
        live::write_banner(&mut self.out, &self.style);
        // The rows match the IDs whose lines the timeline holds: its own and those followed.
        let followed: Vec<usize> = (0..timeline.ids.len())
            .filter(|&k| matches!(timeline.ids[k].status, Status::Root | Status::Followed(_)))
            .collect();
        let ids: Vec<_> = followed.iter().map(|&k| timeline.ids[k].id).collect();
        let mut shown_up_to: HashMap<String, u64> = HashMap::new();
        for line in &timeline.lines {
            let up_to = shown_up_to
                .entry(timeline.paths[line.file].shown.clone())
                .or_default();
            *up_to = (*up_to).max(line.line_no);
        }
        let span = timeline.span_us();
        let precision = timeline.precision();
        self.live = Some(Live {
            matcher: Matcher::new(&ids),
            via: followed
                .iter()
                .map(|&k| (k != 0).then(|| live::via_name(&timeline.ids[k])))
                .collect(),
            shown_up_to,
            first_us: span.map(|s| s.0),
            prev_us: timeline.lines.iter().rev().find_map(|l| l.time_us),
            precision,
            date: span.map(|s| self.clock.format_micros(s.0, precision)[..10].to_string()),
        });
    }

    fn flush(&mut self) -> bool {
        super::write_out(&mut self.out, &mut self.failed);
        !self.failed
    }
}
