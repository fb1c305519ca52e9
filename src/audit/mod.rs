//! `idgrep audit`: how far a team's logs are from one uniform ID format, with the lines that
//! prove it.
//!
//! The scan is the one of `ids`: [`Matcher::every_id`] over every input on N threads, each
//! line with IDs read by [`record::analyse`] for the field of each ID and the line's time, and
//! [`Form::of`] for how each ID is written. Keys whose value is not an ID (`job_id=1180`,
//! `"user_id":""`, `parent_id=0`) sit on lines without any ID token, so every chunk of lines
//! also goes through a cheap filter (`key_lines`: an id-like key followed by an integer or
//! an empty value); only the lines it flags are read by [`record::for_each_pair`].
//!
//! Each thread counts into its own `AuditCounts`, merged at the end; the rules are computed from
//! compact aggregates, so memory grows with distinct IDs and fields, never with bytes:
//! - per field: occurrences by written form, UUID versions, integers, nil values, time skew,
//!   and the first examples of each;
//! - per ID value: its first line, field and form, the cases it is written in (ULID case
//!   mix), and whether it is ever written as a ULID (which decides its embedded time, for the
//!   backfill clumps);
//! - per ULID written in upper case: the lines where no lowercase form stands next to it.
//!
//! Examples are the first occurrences in walk order (input index, line, byte offset), at most
//! three per rule and per field, so the report is the same whatever the number of threads.
//!
//! 32-hex tokens are mostly trace IDs and digests: as in `ids`, an undashed token counts only
//! when the same value is also written as a ULID or a dashed UUID somewhere (the nil and max
//! values always count). Undashed occurrences are kept apart, per value and field, and join
//! the counts at the end.
//!
//! The parts: `rules` names the rules and what each one counts; `evidence` keeps locations and
//! examples in walk order; `counts` is one thread's counts, filled line by line; `key_values`
//! judges the values of id-like keys that are not IDs and flags the lines that may hold them,
//! on top of [`crate::record::keys`], which finds the keys; `shards` keeps the records per value in many
//! small maps by hash, merged shard by shard on all threads; `report` turns the merged counts
//! into the [`Report`]. This module runs the scan.

mod counts;
mod evidence;
mod key_values;
mod report;
mod rules;
mod shards;

pub use report::{Evidence, FieldFinding, Report, RuleReport};
pub use rules::Rule;

use std::cell::RefCell;

use crate::id::Form;
use crate::inventory::FieldNames;
use crate::par::{self, Notice, Ordered, ScanSettings};
use crate::progress::Progress;
use crate::record::{self, Analysis, PairBuffers};
use crate::scan::Matcher;
use crate::search::{self, Chunk, Scratch, SearchOptions};
use crate::source::{self, Input};
use crate::text::Name;

use counts::AuditCounts;
use evidence::Loc;
use key_values::key_lines;
use rules::{Limits, Thresholds};

/// One scan thread's state.
struct ScanThread<'n> {
    counts: AuditCounts<'n>,
    scratch: Scratch,
    analysis: Analysis,
    pairs: PairBuffers,
    forms: Vec<Form>,
    /// Inputs this thread could open: the report counts those read, not those named.
    opened: usize,
}

/// Audits every input on `settings.threads` threads: `skew_ms` is id-time-skew's allowance,
/// `clump` backfill-clump's threshold. Returns the report and what each input has to tell,
/// in input order.
pub fn audit(
    inputs: &[Input],
    settings: &ScanSettings,
    skew_ms: i64,
    clump: u64,
) -> (Report, Vec<(usize, Notice)>) {
    let ordered = Ordered::largest_first(inputs);
    let progress = Progress::start(settings.progress, ordered.total());
    let names = FieldNames::default();
    let matcher = Matcher::every_id();
    let now_ms = jiff::Timestamp::now().as_millisecond();
    let limits = Limits {
        skew_ms,
        future_after_ms: now_ms.saturating_add(skew_ms),
    };
    let (threads, notices) = par::scan_all(
        &ordered,
        settings.threads,
        || ScanThread {
            counts: AuditCounts::new(&names),
            scratch: Scratch::default(),
            analysis: Analysis::default(),
            pairs: PairBuffers::default(),
            forms: Vec::new(),
            opened: 0,
        },
        |thread, index, input| {
            let scan = Scan {
                file: index as u32,
                matcher: &matcher,
                limits: &limits,
                settings,
                progress: &progress,
            };
            scan.one(thread, input)
        },
        |_| {},
    );
    progress.finish();
    let opened = threads.iter().map(|t| t.opened).sum();
    let per_thread = threads.into_iter().map(|t| t.counts).collect();
    let counts = AuditCounts::merge_all(per_thread, settings.threads);
    let paths: Vec<Name> = inputs.iter().map(Name::of).collect();
    let report = counts.report(&paths, opened, &Thresholds { clump, skew_ms });
    (report, notices)
}

/// What scanning one input needs besides the thread's state.
struct Scan<'a> {
    file: u32,
    matcher: &'a Matcher,
    limits: &'a Limits,
    settings: &'a ScanSettings,
    progress: &'a Progress,
}

impl Scan<'_> {
    fn one(&self, thread: &mut ScanThread, input: &Input) -> Option<Notice> {
        let mut reader = match source::open(input, self.progress.counter()) {
            Ok(reader) => reader,
            Err(e) => return Some(Notice::failed(&e)),
        };
        thread.opened += 1;
        let context =
            record::TimeContext::for_file(self.settings.zone.as_ref(), source::modified(input));
        let ScanThread {
            counts,
            scratch,
            analysis,
            pairs,
            forms,
            opened: _,
        } = thread;
        // Both callbacks add to the counts, one at a time.
        let counts = RefCell::new(counts);
        let options = SearchOptions {
            line_numbers: true,
            text: self.settings.text,
            ..SearchOptions::default()
        };
        let outcome = search::search_with_chunks(
            self.matcher,
            options,
            &mut reader,
            scratch,
            Some(&mut |chunk: &Chunk| {
                let mut counts = counts.borrow_mut();
                key_lines(chunk, |line, line_no| {
                    counts.add_pairs(line, Loc::new(self.file, line_no), pairs);
                });
            }),
            &mut |m| {
                record::analyse_hits(m.line, m.hits, &context, analysis);
                counts
                    .borrow_mut()
                    .add_line(self.file, m, analysis, forms, self.limits);
                true
            },
        );
        Notice::after_scan(outcome, "not audited")
    }
}

#[cfg(test)]
mod tests;
