//! `idgrep ID [PATH...]`: the search command. Each input is searched by
//! [`crate::search`] for the query IDs and its lines printed by [`crate::output::search::Printer`];
//! [`crate::writer`] prints the inputs' output in walk order.

use std::fs::File;
#[cfg(not(unix))]
use std::io::{Seek, SeekFrom};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::config::SearchConfig;
use crate::exit::{Exit, report};
use crate::index::{self, Candidates, Held, Plan, Range, RangeBytes};
use crate::output::search::{OutputMode, Printer};
use crate::record::{Analysis, TimeContext};
use crate::scan::Matcher;
use crate::search::{self, Context, Scratch, SearchOptions};
use crate::source::{self, Input};
use crate::text::Name;
use crate::writer::{self, Done, Writer};

/// In sequential mode, output is flushed to stdout once a buffer holds this much, so a file
/// with millions of matching lines does not pile up in memory.
const FLUSH_AT: usize = 64 * 1024;

pub fn run(config: SearchConfig) -> Exit {
    // A trace or span value whose decimal is shorter than the index files has no keys.
    let keys = index::keys_of(&config.queries).filter(|_| config.index.enabled);
    let Some(keys) = keys else {
        return match super::inputs(&config.input) {
            Ok(inputs) => search(&config, &inputs, None),
            Err(exit) => exit,
        };
    };
    // The walk and the index's lookup need nothing of each other, and on a large tree each
    // is a good part of a lookup's time: the walk runs on a thread of its own meanwhile.
    std::thread::scope(|scope| {
        let walk = scope.spawn(|| super::walk(&config.input));
        let index = super::index::open_for(&config.input, &config.index);
        let candidates = index
            .as_ref()
            .and_then(|index| super::index::candidates(index, keys, config.input.threads));
        let walked = walk
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        match super::reported(walked) {
            Ok(inputs) => search(&config, &inputs, candidates.as_ref()),
            Err(exit) => exit,
        }
    })
}

/// Searches `inputs`, pruned by the index's `candidates` when there are some.
fn search(config: &SearchConfig, inputs: &[Input], candidates: Option<&Candidates>) -> Exit {
    let (printer, matcher) = printer_and_matcher(config);
    let options = SearchOptions {
        line_numbers: config.line_numbers,
        text: config.input.text,
        context: config.context,
        ..SearchOptions::default()
    };
    let mut writer = Writer::new(
        config.mode == OutputMode::Lines && config.context != Context::default(),
        config.line_buffered,
    );
    if config.terminal && config.mode == OutputMode::Lines {
        let mut header = Vec::new();
        printer.header(&mut header, &config.queries, &config.input.clock());
        let _ = writer.write(&header);
    }
    let job = SearchJob {
        matcher: &matcher,
        zone: config.input.zone.clone(),
        printer: &printer,
        options,
        stop: AtomicBool::new(false),
        line_buffered: config.line_buffered,
        candidates,
    };
    let threads = config.input.threads.min(inputs.len()).max(1);
    let result = writer::run_in_order(&job, inputs, threads, &mut writer);
    let (matched, errored) = match result.and_then(|r| writer.flush().map(|_| r)) {
        Ok(r) => r,
        Err(e) => {
            report(&format!("error writing output: {}", source::io_reason(&e)));
            return Exit::Error;
        }
    };
    match (matched, errored, config.mode) {
        (true, _, OutputMode::Quiet) => Exit::Found,
        (_, true, _) => Exit::Error,
        (true, false, _) => Exit::Found,
        (false, false, _) => Exit::NotFound,
    }
}

/// The printer and matcher of a search: file names shown when asked, or when several paths
/// or a directory are searched, as ripgrep does.
pub(super) fn printer_and_matcher(config: &SearchConfig) -> (Printer, Matcher) {
    let paths = &config.input.paths;
    let with_filename = config
        .with_filename
        .unwrap_or_else(|| paths.len() > 1 || paths.iter().any(|p| p.is_dir()));
    let printer = Printer::new(
        config.mode,
        config.input.color,
        with_filename,
        config.line_numbers,
        &config.queries,
    );
    (printer, Matcher::for_queries(&config.queries))
}

/// What of an input is read.
enum Parts {
    Whole(Box<dyn std::io::Read + Send>),
    Ranges(File, Vec<Range>),
}

/// What the index says of an input.
enum Pruned {
    Skip,
    Ranges(File, Vec<Range>),
}

impl SearchJob<'_> {
    /// `None`: read the input whole, as without an index.
    fn pruned(&self, input: &Input) -> Option<Pruned> {
        let (Some(candidates), Input::File(path)) = (self.candidates, input) else {
            return None;
        };
        match candidates.plan_path(path)? {
            (Plan::Skip, _) => Some(Pruned::Skip),
            // Context lines may reach past a range; the whole file places them as a scan does.
            (Plan::Ranges(ranges), Some((file, _)))
                if self.options.context == Context::default() =>
            {
                Some(Pruned::Ranges(file, ranges))
            }
            _ => None,
        }
    }
}

/// Searches the `ranges` of `file`, which the index found not binary, as one input: the
/// outcome is the one a search of the whole file would have had. Each range of a few
/// blocks is read at once into `held` (with the ranges close after it, which are then not
/// read again) and searched where it lies; a longer one is read as it is searched.
fn search_ranges(
    matcher: &Matcher,
    options: SearchOptions,
    (file, ranges): (&File, &[Range]),
    scratch: &mut Scratch,
    held: &mut Held,
    on_line: &mut dyn FnMut(&search::LineMatch) -> bool,
) -> search::Outcome {
    let options = SearchOptions {
        text: true,
        ..options
    };
    let mut total = search::Outcome::default();
    let mut stopped = false;
    for (i, range) in ranges.iter().enumerate() {
        let mut on_line = |m: &search::LineMatch| {
            let go_on = on_line(m);
            stopped |= !go_on;
            go_on
        };
        let outcome = match index::open_range(file, ranges, i, held) {
            Ok(Some((_, RangeBytes::Held(span)))) => search::search_bytes(
                matcher,
                options,
                &held[span],
                scratch,
                range.first_line,
                None,
                &mut on_line,
            ),
            Ok(Some((_, RangeBytes::Streamed(mut part)))) => search::search_part(
                matcher,
                options,
                &mut part,
                scratch,
                range.first_line,
                None,
                &mut on_line,
            ),
            // No line starts in the range.
            Ok(None) => continue,
            Err(e) => search::Outcome {
                error: Some(e),
                ..Default::default()
            },
        };
        total.matched_lines += outcome.matched_lines;
        if outcome.error.is_some() {
            total.error = outcome.error;
            break;
        }
        if stopped {
            break;
        }
    }
    total
}

/// What one search thread reuses from input to input.
#[derive(Default)]
struct ThreadScratch {
    search: Scratch,
    analysis: Analysis,
    /// The bytes of an indexed file's ranges ([`search_ranges`]).
    range: Held,
}

struct SearchJob<'a> {
    matcher: &'a Matcher,
    /// `--tz`/`--local`, for the line times of JSON output.
    zone: Option<jiff::tz::TimeZone>,
    printer: &'a Printer,
    options: SearchOptions,
    /// Set by -q at the first match, or when stdout is gone.
    stop: AtomicBool,
    /// Output is written after every line, not in blocks of [`FLUSH_AT`].
    line_buffered: bool,
    /// The index's postings for the query, when an index covers the inputs.
    candidates: Option<&'a Candidates<'a>>,
}

impl writer::Job for SearchJob<'_> {
    type Scratch = ThreadScratch;

    fn stop(&self) -> &AtomicBool {
        &self.stop
    }

    fn run_one(
        &self,
        input: &Input,
        scratch: &mut ThreadScratch,
        flush: &mut dyn FnMut(&mut Vec<u8>) -> bool,
    ) -> Done {
        let name = Name::of(input);
        let mut out = Vec::new();
        let parts = match self.pruned(input) {
            Some(Pruned::Skip) => {
                return Done {
                    out,
                    matched: false,
                    error: None,
                };
            }
            Some(Pruned::Ranges(file, ranges)) => Parts::Ranges(file, ranges),
            None => match source::open(input, None) {
                Ok(r) => Parts::Whole(r),
                Err(e) => {
                    return Done {
                        out,
                        matched: false,
                        error: Some(source::io_reason(&e)),
                    };
                }
            },
        };
        let mode = self.printer.mode;
        let stop_at_first = matches!(mode, OutputMode::Quiet | OutputMode::FilesWithMatches);
        // JSON lines carry each match's field and the line's time.
        let context = (mode == OutputMode::Json)
            .then(|| TimeContext::for_file(self.zone.as_ref(), source::modified(input)));
        let ThreadScratch {
            search: scratch,
            analysis,
            range: held,
        } = scratch;
        let mut on_line = |m: &search::LineMatch| {
            if stop_at_first {
                if mode == OutputMode::Quiet {
                    self.stop.store(true, Ordering::Relaxed);
                }
                return false;
            }
            let record = context.as_ref().map(|context| {
                crate::record::analyse_hits(m.line, m.hits, context, analysis);
                &*analysis
            });
            if !self.printer.line(&mut out, &name, m, record, &mut *flush) {
                return false;
            }
            if (self.line_buffered || out.len() >= FLUSH_AT) && !flush(&mut out) {
                return false;
            }
            !self.stop.load(Ordering::Relaxed)
        };
        let outcome = match parts {
            Parts::Whole(mut reader) => search::search(
                self.matcher,
                self.options,
                &mut reader,
                scratch,
                &mut on_line,
            ),
            Parts::Ranges(file, ranges) => search_ranges(
                self.matcher,
                self.options,
                (&file, &ranges),
                scratch,
                held,
                &mut on_line,
            ),
        };
        self.printer.input_end(&mut out, &name, &outcome);
        Done {
            out,
            matched: outcome.matched_lines > 0,
            error: outcome.error.map(|e| source::io_reason(&e)),
        }
    }
}
