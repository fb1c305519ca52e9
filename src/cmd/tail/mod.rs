//! `idgrep --tail ID PATHS`: what a search prints, then every line that mentions the ID as it
//! is written, until SIGINT or SIGTERM. [`crate::follow`] reads the files through rotation;
//! the lines are searched by [`crate::search`] and printed by the search printer, so a line
//! followed prints as it would in a search. `timeline` holds `idgrep timeline --tail`.

mod timeline;

use std::io::{self, Write};
use std::path::Path;

use crate::config::{FollowConfig, SearchConfig};
use crate::exit::{Exit, report};
use crate::follow::{self, Batch, Sink};
use crate::output::search::{OutputMode, Printer};
use crate::record::{Analysis, TimeContext};
use crate::scan::Matcher;
use crate::search::{self, LineMatch, Outcome, Scratch, SearchOptions};
use crate::source::{self, Input, WalkOptions};
use crate::text::Name;

pub use timeline::run as timeline;

/// Runs `idgrep --tail`: 0 when a line matched by the end, else 1.
pub fn search(config: SearchConfig, follow_config: FollowConfig) -> Exit {
    let paths = &config.input.paths;
    if paths.is_empty() || paths.iter().all(|p| p.as_os_str() == "-") {
        // Standard input is searched as it arrives: that is following it.
        return super::search::run(config);
    }
    let (printer, matcher) = super::search::printer_and_matcher(&config);
    let mut sink = SearchSink {
        matcher: &matcher,
        printer: &printer,
        options: SearchOptions {
            line_numbers: config.line_numbers,
            text: true,
            ..SearchOptions::default()
        },
        whole_text: config.input.text,
        zone: config.input.zone.clone(),
        scratch: Scratch::default(),
        analysis: Analysis::default(),
        out: Vec::new(),
        matched: false,
        failed: false,
    };
    if config.terminal && config.mode == OutputMode::Lines {
        printer.header(&mut sink.out, &config.queries, &config.input.clock());
    }
    let options = follow_options(&config.input, follow_config);
    if let Err(reason) = follow::run(options, &mut sink) {
        sink.flush();
        report(&reason);
        return Exit::Error;
    }
    if sink.matched {
        Exit::Found
    } else {
        Exit::NotFound
    }
}

/// What to follow, from the input flags.
fn follow_options(input: &crate::config::InputConfig, config: FollowConfig) -> follow::Options {
    follow::Options {
        roots: input.paths.clone(),
        walk: WalkOptions {
            globs: input.globs.clone(),
            follow_links: input.follow_links,
            implicit_cwd: input.implicit_cwd,
        },
        text: input.text,
        poll: config.poll,
    }
}

/// Searches the followed lines and prints them as the search does.
struct SearchSink<'a> {
    matcher: &'a Matcher,
    printer: &'a Printer,
    /// For the followed lines (whose binary check the follower made).
    options: SearchOptions,
    /// `-a`, for the files read whole.
    whole_text: bool,
    zone: Option<jiff::tz::TimeZone>,
    scratch: Scratch,
    analysis: Analysis,
    out: Vec<u8>,
    /// A line matched (printed, or counted in a binary file).
    matched: bool,
    /// Standard output is gone.
    failed: bool,
}

impl SearchSink<'_> {
    fn print_line(&mut self, name: &Name, m: &LineMatch, context: Option<&TimeContext>) {
        let record = context.map(|context| {
            crate::record::analyse_hits(m.line, m.hits, context, &mut self.analysis);
            &self.analysis
        });
        // Held until the batch is written, however long.
        self.printer
            .line(&mut self.out, name, m, record, &mut |_| true);
    }
}

impl Sink for SearchSink<'_> {
    fn lines(&mut self, path: &Path, batch: &Batch) -> bool {
        let name = Name::of(&Input::File(path.to_path_buf()));
        // Followed lines are being written now: their times are read as of now.
        let context = (self.printer.mode == OutputMode::Json)
            .then(|| TimeContext::for_file(self.zone.as_ref(), None));
        let mut found = 0;
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut bytes = batch.bytes;
        let quiet = self.printer.mode == OutputMode::Quiet;
        search::search(
            self.matcher,
            self.options,
            &mut bytes,
            &mut scratch,
            &mut |m| {
                found += 1;
                if quiet {
                    return false;
                }
                if !batch.binary {
                    let numbered = LineMatch {
                        line_no: m.line_no + batch.first_line_no - 1,
                        ..*m
                    };
                    self.print_line(&name, &numbered, context.as_ref());
                }
                true
            },
        );
        self.scratch = scratch;
        if batch.binary && found > 0 {
            let outcome = Outcome {
                matched_lines: found,
                withheld_lines: found,
                ..Outcome::default()
            };
            self.printer.input_end(&mut self.out, &name, &outcome);
        }
        self.matched |= found > 0;
        found > 0 && !batch.binary
    }

    fn whole(&mut self, path: &Path) {
        let input = Input::File(path.to_path_buf());
        let name = Name::of(&input);
        let mut reader = match source::open(&input, None) {
            Ok(reader) => reader,
            Err(e) => return self.problem(path, &source::io_reason(&e)),
        };
        let context = (self.printer.mode == OutputMode::Json)
            .then(|| TimeContext::for_file(self.zone.as_ref(), source::modified(&input)));
        let options = SearchOptions {
            text: self.whole_text,
            ..self.options
        };
        let quiet = self.printer.mode == OutputMode::Quiet;
        let mut scratch = std::mem::take(&mut self.scratch);
        let outcome = search::search(self.matcher, options, &mut reader, &mut scratch, &mut |m| {
            if !quiet {
                self.print_line(&name, m, context.as_ref());
            }
            !quiet
        });
        self.scratch = scratch;
        self.printer.input_end(&mut self.out, &name, &outcome);
        self.matched |= outcome.matched_lines > 0;
        if let Some(e) = outcome.error {
            self.problem(path, &source::io_reason(&e));
        }
    }

    fn problem(&mut self, path: &Path, reason: &str) {
        // After the lines printed before it, as a search reports it in its place.
        self.flush();
        report(&format!("{}: {reason}", path.display()));
    }

    fn following(&mut self) {}

    fn flush(&mut self) -> bool {
        write_out(&mut self.out, &mut self.failed);
        let quiet_done = self.matched && self.printer.mode == OutputMode::Quiet;
        !(self.failed || quiet_done)
    }
}

/// Writes and flushes what `out` holds, then empties it. The first failed write is reported
/// (a closed pipe silently) and sets `failed`; nothing is written after it.
fn write_out(out: &mut Vec<u8>, failed: &mut bool) {
    if !out.is_empty() && !*failed {
        let mut stdout = io::stdout().lock();
        if let Err(e) = stdout.write_all(out).and_then(|()| stdout.flush()) {
            if e.kind() != io::ErrorKind::BrokenPipe {
                report(&format!("error writing output: {}", source::io_reason(&e)));
            }
            *failed = true;
        }
    }
    out.clear();
}
