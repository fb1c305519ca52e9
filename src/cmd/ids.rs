//! `idgrep ids`: builds the ID inventory of the inputs ([`crate::inventory`]), reports what
//! was left out, keeps and orders the IDs the flags ask for, prints them with
//! [`crate::output::inventory`] and decides the exit status. `--partial` writes the counts
//! for `idgrep merge` instead ([`crate::merge::partial`]).

use crate::config::{IdsConfig, IdsView, KindFilter, SortKey};
use crate::exit::{Exit, report};
use crate::id::{Kind, Variant};
use crate::inventory::{self, Inventory, Summary};
use crate::merge;
use crate::output::inventory as printer;
use crate::par;

use crate::text::{self, Name};
use crate::writer;

pub fn run(config: IdsConfig) -> Exit {
    let inputs = match super::distinct_inputs(&config.input) {
        Ok(inputs) => inputs,
        Err(exit) => return exit,
    };
    let settings = config.input.scan_settings(config.progress);
    // A partial keeps the values written only undashed: another run may see them dashed.
    let count_undashed = config.view.all_hex || config.partial;
    let (inventory, notices) = inventory::build(&inputs, &settings, count_undashed);
    let errored = par::report_notices(&inputs, &notices);
    let paths: Vec<Name> = inputs.iter().map(Name::of).collect();
    if config.partial {
        let found = !inventory.is_empty();
        let written = writer::write_stdout(|out| merge::partial::write(out, &inventory, &paths));
        std::mem::forget(inventory);
        return Exit::after_report(written, errored, found);
    }
    show(inventory, &paths, &config.view, errored)
}

/// Reports the values left out, keeps and orders the IDs `view` asks for and prints them;
/// the exit status. `paths`: every input, in walk order.
pub(super) fn show(
    mut inventory: Inventory,
    paths: &[Name],
    view: &IdsView,
    errored: bool,
) -> Exit {
    let dropped = inventory.dropped_undashed;
    if dropped > 0 {
        let hint = if dropped == 1 {
            "a digest, or a trace ID outside a trace field; --all-hex counts it"
        } else {
            "digests, trace IDs outside trace fields; --all-hex counts them"
        };
        report(&format!("{} ({hint})", text::uncounted_hex(dropped)));
    }
    select(&mut inventory, view);
    // Like a search: 0 when something is shown, after the filters.
    let found = !inventory.is_empty();

    let clock = view
        .zone
        .clone()
        .map_or_else(crate::time::Clock::utc, crate::time::Clock::in_zone);
    let written = writer::write_stdout(|out| match view.format {
        // Like a search that finds nothing: no output at all, not a bare header.
        printer::IdsFormat::Table if inventory.is_empty() => Ok(()),
        printer::IdsFormat::Table => printer::write_table(
            out,
            &inventory,
            paths.len(),
            &clock,
            view.color,
            view.threads,
        ),
        printer::IdsFormat::Json => printer::write_json(out, &inventory, paths, view.threads),
        printer::IdsFormat::Csv => printer::write_csv(out, &inventory, paths, view.threads),
    });
    // Freeing a million entries one by one takes longer than the whole heap's release at
    // exit. A fuzzer runs many commands in one process (fuzz/), and needs them freed.
    if cfg!(fuzzing) {
        drop(inventory);
    } else {
        std::mem::forget(inventory);
    }
    Exit::after_report(written, errored, found)
}

/// Applies --kind, --field, --min-lines, --sort and --top.
fn select(inventory: &mut Inventory, view: &IdsView) {
    let fields: Vec<&[u8]> = view.fields.iter().map(|f| f.as_bytes()).collect();
    // Every entry counts at least one line.
    if view.min_lines > 1 || view.kind.is_some() || !fields.is_empty() {
        inventory.retain(|s| {
            s.lines() >= view.min_lines
                && view.kind.is_none_or(|k| kind_matches(&s, k))
                && (fields.is_empty() || fields.iter().any(|f| s.has_field(f)))
        });
    }
    let top = view.top;
    let threads = view.threads;
    // Keys ascending: counts from the largest down, times from the earliest, none last.
    let descending = |n: u64| u64::MAX - n;
    let earliest = |ms: Option<i64>| (ms.unwrap_or(i64::MAX) as u64) ^ 1 << 63;
    match view.sort {
        SortKey::Lines => inventory.sort_by(|s| descending(s.lines().into()), top, threads),
        SortKey::Id => inventory.sort_by(|_| 0, top, threads),
        SortKey::Created => inventory.sort_by(|s| earliest(s.id.unix_ms(s.kind())), top, threads),
        SortKey::First => inventory.sort_by(|s| earliest(s.first_ms()), top, threads),
        SortKey::Files => inventory.sort_by(|s| descending(s.file_count() as u64), top, threads),
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
        KindFilter::Trace => kind == Kind::Trace,
        KindFilter::Span => kind == Kind::Span,
    }
}
