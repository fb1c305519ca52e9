//! `idgrep ids`: every input scanned for every ID token on N threads, each line's fields and
//! time read by [`crate::record`], counted into the shared, sharded counts of
//! [`crate::group`], then filtered, sorted and printed by [`crate::output::inventory`].

use std::cmp::Reverse;

use crate::config::{IdsConfig, KindFilter, SortKey};
use crate::exit::{Exit, report};
use crate::group::{Inventory, Occurrence, Summary, Tallies, Tally};
use crate::id::{Form, Kind, Variant};
use crate::output::inventory;
use crate::par::{self, Notice};
use crate::progress::Progress;
use crate::record::{self, Analysis, TimeContext};
use crate::scan::Matcher;
use crate::search::{self, Scratch, SearchOptions};
use crate::source::{self, Input};
use crate::text;
use crate::writer;

/// One scan thread's state.
struct Worker<'n> {
    tally: Tally<'n>,
    scratch: Scratch,
    analysis: Analysis,
    occurrences: Vec<Occurrence>,
}

pub fn run(config: IdsConfig) -> Exit {
    let inputs = match super::inputs(&config.input) {
        Ok(inputs) => inputs,
        Err(exit) => return exit,
    };
    let total = inputs.iter().map(source::size).sum::<Option<u64>>();
    let progress = Progress::start(config.progress, total);
    let tallies = Tallies::new(config.all_hex);
    let matcher = Matcher::every_id();
    let options = SearchOptions {
        line_numbers: false,
        text: config.input.text,
        ..SearchOptions::default()
    };
    let (workers, notices) = par::scan_all(
        &inputs,
        config.input.threads,
        || Worker {
            tally: tallies.tally(),
            scratch: Scratch::default(),
            analysis: Analysis::default(),
            occurrences: Vec::new(),
        },
        |worker, index, input| {
            scan_one(
                worker,
                index as u32,
                input,
                &matcher,
                options,
                &config,
                &progress,
            )
        },
    );
    progress.finish();
    let errored = par::report_notices(&inputs, &notices);

    for worker in workers {
        worker.tally.done();
    }
    let mut inventory = tallies.finish(config.input.threads);
    let dropped = inventory.dropped_undashed;
    if dropped > 0 {
        let hint = if dropped == 1 {
            "a trace ID or digest; --all-hex counts it"
        } else {
            "trace IDs, digests; --all-hex counts them"
        };
        report(&format!("{} ({hint})", text::uncounted_hex(dropped)));
    }
    select(&mut inventory, &config);
    // Like a search: 0 when something is shown, after the filters.
    let found = !inventory.is_empty();

    let paths: Vec<String> = inputs.iter().map(Input::display_name).collect();
    let clock = config.input.clock();
    let written = writer::write_stdout(|out| match config.format {
        // Like a search that finds nothing: no output at all, not a bare header.
        inventory::Format::Table if inventory.is_empty() => Ok(()),
        inventory::Format::Table => inventory::write_table(
            out,
            &inventory,
            paths.len(),
            &clock,
            config.input.color,
            config.input.threads,
        ),
        inventory::Format::Json => {
            inventory::write_json(out, &inventory, &paths, config.input.threads)
        }
        inventory::Format::Csv => {
            inventory::write_csv(out, &inventory, &paths, config.input.threads)
        }
    });
    // Freeing a million entries one by one takes longer than the whole heap's release at
    // exit.
    std::mem::forget(inventory);
    Exit::after_report(written, errored, found)
}

fn scan_one(
    worker: &mut Worker,
    file: u32,
    input: &Input,
    matcher: &Matcher,
    options: SearchOptions,
    config: &IdsConfig,
    progress: &Progress,
) -> Option<Notice> {
    let mut reader = match source::open(input, progress.counter()) {
        Ok(reader) => reader,
        Err(e) => return Some(Notice::failed(&e)),
    };
    let context = TimeContext::for_file(config.input.zone.as_ref(), source::modified(input));
    let Worker {
        tally,
        scratch,
        analysis,
        occurrences,
    } = worker;
    let outcome = search::search(matcher, options, &mut reader, scratch, &mut |m| {
        tally.prefetch(m.hits.iter().map(|hit| hit.id));
        record::analyse_hits(m.line, m.hits, &context, analysis);
        occurrences.clear();
        for (i, hit) in m.hits.iter().enumerate() {
            let field = analysis.field(i).map(|name| tally.field(name));
            occurrences.push(Occurrence {
                id: hit.id,
                form: Form::of(hit.shape, m.line, hit.start, hit.end),
                field,
            });
        }
        tally.add_line(file, analysis.time_ms(), occurrences);
        true
    });
    Notice::after_scan(outcome, "not counted")
}

/// Applies --kind, --field, --min-lines, --sort and --top.
fn select(inventory: &mut Inventory, config: &IdsConfig) {
    let fields: Vec<&[u8]> = config.fields.iter().map(|f| f.as_bytes()).collect();
    // Every entry counts at least one line.
    if config.min_lines > 1 || config.kind.is_some() || !fields.is_empty() {
        inventory.retain(|s| {
            s.lines() >= config.min_lines
                && config.kind.is_none_or(|k| kind_matches(&s, k))
                && (fields.is_empty() || fields.iter().any(|f| s.has_field(f)))
        });
    }
    let top = config.top;
    let threads = config.input.threads;
    match config.sort {
        SortKey::Lines => inventory.sort_by(|s| Reverse(s.lines()), top, threads),
        SortKey::Id => inventory.sort_by(|_| (), top, threads),
        SortKey::Created => {
            inventory.sort_by(|s| s.id.unix_ms(s.kind()).unwrap_or(i64::MAX), top, threads)
        }
        SortKey::First => inventory.sort_by(|s| s.first_ms().unwrap_or(i64::MAX), top, threads),
        SortKey::Files => inventory.sort_by(|s| Reverse(s.file_count()), top, threads),
    }
}

fn kind_matches(s: &Summary, filter: KindFilter) -> bool {
    let kind = s.kind();
    match filter {
        KindFilter::Ulid => kind == Kind::Ulid,
        KindFilter::Uuid => kind == Kind::Uuid,
        KindFilter::UuidVersion(v) => kind == Kind::Uuid && s.id.uuid_version() == Some(v),
        KindFilter::Nil => kind == Kind::Uuid && s.id.uuid_variant() == Variant::Nil,
        KindFilter::Max => kind == Kind::Uuid && s.id.uuid_variant() == Variant::Max,
    }
}
