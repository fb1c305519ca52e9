//! The ID inventory behind `idgrep ids`: every ID -> its lines, files, fields, written forms
//! and first/last line time. Counts saturate at 2^32 - 1 rather than wrap.
//!
//! [`build`] scans the inputs on N threads, each line's fields and time read by
//! [`crate::record`], into the sharded counts of [`tally`], whose entries [`entry`] lays out
//! and [`table`] indexes; they end as an [`Inventory`], which the `ids` driver filters and
//! sorts and [`crate::output::inventory`] prints. The field names of [`names`] are shared with
//! `audit`. `idgrep merge` adds the counts of earlier runs whole ([`Tally::add_counts`]), into
//! the same tables.
//!
//! 32-hex tokens are everywhere in logs without being UUIDs (digests), so an undashed token
//! counts only in a trace field or header, or when the same value is also written as a ULID
//! or a dashed UUID somewhere in the inputs, unless the caller asks for all of them: values
//! written only undashed are counted like the others and dropped at the end. Trace and span
//! IDs ([`traces`]) are counted in key spaces of their own ([`Space`]).

mod entry;
mod names;
mod table;
mod tally;
#[cfg(test)]
mod tests;
mod traces;

pub use names::{FieldNames, LocalNames};
pub use tally::{Counts, Occurrence, Tallies, Tally};

use entry::EntryRef;
use table::{Table, prefetch};

use std::cell::RefCell;

use traces::TraceLines;

use crate::id::{Form, Id, Kind, Shape};
use crate::par::{self, Notice, Ordered, ScanSettings};
use crate::progress::Progress;
use crate::record::{self, Analysis, TimeContext};
use crate::scan::Matcher;
use crate::search::{self, Chunk, Scratch, SearchOptions};
use crate::source::{self, Input};

/// Counts every ID of `inputs` on `settings.threads` threads; `count_undashed`: every 32-hex
/// token counts, not only values seen in another form. Returns the inventory in no particular
/// order, and what each input has to tell the user, in input order.
pub fn build(
    inputs: &[Input],
    settings: &ScanSettings,
    count_undashed: bool,
) -> (Inventory, Vec<(usize, Notice)>) {
    let ordered = Ordered::largest_first(inputs);
    let progress = Progress::start(settings.progress, ordered.total());
    let tallies = Tallies::new(count_undashed);
    let matcher = Matcher::every_id();
    let options = SearchOptions {
        line_numbers: false,
        text: settings.text,
        xray_roots: true,
        ..SearchOptions::default()
    };
    let (threads, notices) = par::scan_all(
        &ordered,
        settings.threads,
        || InventoryThread {
            tally: tallies.tally(),
            scratch: Scratch::default(),
            analysis: Analysis::default(),
            occurrences: Vec::new(),
            trace_lines: TraceLines::default(),
        },
        |thread, index, input| {
            count_input(
                thread,
                index as u32,
                input,
                &matcher,
                options,
                settings,
                &progress,
            )
        },
        |_| {},
    );
    progress.finish();
    for thread in threads {
        thread.tally.done();
    }
    (tallies.finish(settings.threads), notices)
}

/// One scan thread's state while the inventory is counted.
struct InventoryThread<'t> {
    tally: Tally<'t>,
    scratch: Scratch,
    analysis: Analysis,
    occurrences: Vec<Occurrence>,
    trace_lines: TraceLines,
}

/// Counts every ID on every line of `input`, input number `file`.
fn count_input(
    thread: &mut InventoryThread,
    file: u32,
    input: &Input,
    matcher: &Matcher,
    options: SearchOptions,
    settings: &ScanSettings,
    progress: &Progress,
) -> Option<Notice> {
    let mut reader = match source::open(input, progress.counter()) {
        Ok(reader) => reader,
        Err(e) => return Some(Notice::failed(&e)),
    };
    let context = TimeContext::for_file(settings.zone.as_ref(), source::modified(input));
    let InventoryThread {
        tally,
        scratch,
        analysis,
        occurrences,
        trace_lines,
    } = thread;
    // Both callbacks count, one at a time.
    let counting = RefCell::new((tally, analysis, trace_lines));
    let outcome = search::search_with_chunks(
        matcher,
        options,
        &mut reader,
        scratch,
        Some(&mut |chunk: &Chunk| {
            let (tally, analysis, trace_lines) = &mut *counting.borrow_mut();
            trace_lines.read_chunk(chunk, file, &context, analysis, tally);
        }),
        &mut |m| {
            let (tally, analysis, trace_lines) = &mut *counting.borrow_mut();
            tally.prefetch(m.hits.iter().map(|hit| hit.id));
            let waiting = trace_lines.take(m.before.len());
            record::analyse_hits_with_trace_values(m.line, m.hits, &context, analysis);
            occurrences.clear();
            for (i, hit) in m.hits.iter().enumerate() {
                let name = analysis.field(i);
                let field = name.map(|name| tally.field(name));
                let mut spans = [0u64; 2];
                let mut span_count = 0;
                let form = if hit.shape == Shape::UuidUndashed {
                    let role = field
                        .zip(name)
                        .map(|(f, name)| trace_lines.roles.of(f, name));
                    traces::hex32_form(m.line, hit.start, hit.end, hit.id, role, |span| {
                        spans[span_count] = span;
                        span_count += 1;
                    })
                } else {
                    Form::of(hit.shape, m.line, hit.start, hit.end)
                };
                occurrences.push(Occurrence {
                    id: hit.id,
                    form,
                    field,
                    space: Space::Wide,
                });
                occurrences.extend(spans[..span_count].iter().map(|&span| Occurrence {
                    id: Id(u128::from(span)),
                    form,
                    field,
                    space: Space::Span,
                }));
            }
            if let Some(waiting) = waiting {
                occurrences.extend_from_slice(trace_lines.xray(&waiting));
            }
            // Checked here: the call, for the few lines with such values, cost 20
            // instructions on every line.
            if analysis.has_keyed_values() {
                traces::read_keyed(&mut trace_lines.roles, analysis, tally, occurrences);
            }
            tally.add_line(file, analysis.time_ms(), occurrences);
            true
        },
    );
    Notice::after_scan(outcome, "not counted")
}

/// Which IDs a value is among: 128-bit values (ULIDs, UUIDs, trace IDs), 64-bit span IDs,
/// and 64-bit trace IDs (B3's and Datadog's), which join the 128-bit trace they are the low
/// half of where the logs write it too. The same bits in two spaces are two IDs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Space {
    Wide,
    Span,
    Trace64,
}

impl Space {
    pub const ALL: [Space; 3] = [Space::Wide, Space::Span, Space::Trace64];
}

/// The counts of a whole run, in the order the views show them.
pub struct Inventory {
    /// One table per shard.
    tables: Vec<Table>,
    /// (table, entry) of each ID shown, in order.
    order: Vec<(u32, u32)>,
    field_names: Vec<Box<[u8]>>,
    /// Distinct undashed values seen in no other form (and so not counted).
    pub dropped_undashed: u64,
}

/// One ID of the inventory, as the views show it.
#[derive(Clone, Copy)]
pub struct Summary<'a> {
    /// A span ID or a 64-bit trace ID in the low 64 bits.
    pub id: Id,
    space: Space,
    entry: EntryRef<'a>,
    inventory: &'a Inventory,
}

impl<'a> Summary<'a> {
    /// What the ID is: a span ID or a 64-bit trace ID by its key space; a 128-bit value
    /// written in a trace spelling at least once is a trace ID, else it is what it is mostly
    /// written as, a ULID or a UUID (ties go to ULID).
    pub fn kind(&self) -> Kind {
        match self.space {
            Space::Span => return Kind::Span,
            Space::Trace64 => return Kind::Trace,
            Space::Wide => {}
        }
        self.entry.wide_kind()
    }

    /// Which IDs the value is among.
    pub fn space(&self) -> Space {
        self.space
    }

    pub fn lines(&self) -> u32 {
        self.entry.counts().0
    }

    pub fn occurrences(&self) -> u32 {
        self.entry.counts().1
    }

    /// How many files the ID is in.
    pub fn file_count(&self) -> usize {
        match self.entry {
            EntryRef::Cold(_) => 1,
            EntryRef::Hot(h, side) => {
                let low: u32 = h.low_files.iter().map(|w| w.count_ones()).sum();
                low as usize + side.map_or(0, |s| s.files.len())
            }
        }
    }

    /// File numbers, ascending.
    pub fn files(&self) -> Vec<u32> {
        self.entry.files()
    }

    /// Field names with their occurrence counts, most frequent first, then by name.
    pub fn fields(&self) -> Vec<(&'a [u8], u32)> {
        let mut numbers = Vec::new();
        self.field_numbers_into(&mut numbers);
        let names = &self.inventory.field_names;
        numbers
            .into_iter()
            .map(|(f, n)| (&*names[f as usize], n))
            .collect()
    }

    /// [`Summary::fields`] by their numbers ([`Inventory::field_names`]) into `fields`,
    /// emptied first: a caller showing a million rows keeps one list rather than allocating
    /// one per row, and writes each of the few names its own way once.
    pub fn field_numbers_into(&self, fields: &mut Vec<(u32, u32)>) {
        let names = &self.inventory.field_names;
        fields.clear();
        self.entry.for_each_field(|f, n| fields.push((f, n)));
        fields.sort_unstable_by(|a, b| {
            b.1.cmp(&a.1)
                .then_with(|| names[a.0 as usize].cmp(&names[b.0 as usize]))
        });
    }

    /// Written forms with their occurrence counts, in [`Form::ALL`] order.
    pub fn forms(&self) -> Vec<(Form, u32)> {
        self.entry.forms()
    }

    /// The earliest and latest time of the lines that carry a time.
    pub fn first_ms(&self) -> Option<i64> {
        self.entry.times().0
    }

    pub fn last_ms(&self) -> Option<i64> {
        self.entry.times().1
    }

    /// True when one of the ID's fields is `name`, or ends with the path segment `name`
    /// (`batch_id` matches `ctx.batch_id`; `sources` matches `sources[]`).
    pub fn has_field(&self, name: &[u8]) -> bool {
        self.fields().iter().any(|(f, _)| field_matches(f, name))
    }
}

/// See [`Summary::has_field`].
pub fn field_matches(field: &[u8], name: &[u8]) -> bool {
    let field = field.strip_suffix(b"[]").unwrap_or(field);
    let name = name.strip_suffix(b"[]").unwrap_or(name);
    field == name
        || (field.len() > name.len()
            && field.ends_with(name)
            && field[field.len() - name.len() - 1] == b'.')
}

impl Inventory {
    /// Every field name, by its number.
    pub fn field_names(&self) -> &[Box<[u8]>] {
        &self.field_names
    }

    /// Distinct IDs counted (after [`Inventory::retain`], those kept).
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    pub fn summaries(&self) -> impl Iterator<Item = Summary<'_>> {
        self.order.iter().map(|&at| self.summary(at))
    }

    /// The `i`th ID in order; panics past [`Inventory::len`].
    pub fn get(&self, i: usize) -> Summary<'_> {
        self.summary(self.order[i])
    }

    /// Asks the CPU to start loading what [`Inventory::get`] will read for the `i`th ID, if
    /// there is one: its entry, and its side record once the entry is in cache (a caller
    /// walking the order calls this for `i + n` with two distances, the larger first). In
    /// sorted order the IDs lie at random in tables far larger than the caches.
    pub fn prefetch(&self, i: usize, side_record: bool) {
        let Some(&(table, at)) = self.order.get(i) else {
            return;
        };
        let table = &self.tables[table as usize];
        if side_record {
            if let EntryRef::Hot(_, Some(side)) = table.get(at) {
                prefetch(side);
            }
        } else {
            table.prefetch_entry_at(at);
        }
    }

    fn summary(&self, (table, at): (u32, u32)) -> Summary<'_> {
        let entry = self.tables[table as usize].get(at);
        Summary {
            id: Id(entry.key()),
            space: tally::space_of_table(table),
            entry,
            inventory: self,
        }
    }

    /// Keeps the entries `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(Summary) -> bool) {
        let mut order = std::mem::take(&mut self.order);
        order.retain(|&at| keep(self.summary(at)));
        self.order = order;
    }

    /// Sorts the entries by `key`, ascending (ties by ID, ascending, then by key space), and
    /// keeps the first `top`.
    pub fn sort_by(
        &mut self,
        key: impl Fn(Summary) -> u64 + Sync,
        top: Option<usize>,
        threads: usize,
    ) {
        // Ties by ID, then by (table, entry): a value is in at most one entry per key space,
        // and the tables of a space are numbered together, so the same bits as a UUID, a
        // span and a 64-bit trace come in that order. The key and the ID's high half are one
        // `u128`, which the sort compares without a branch; the few runs that tie in it are
        // put in order after.
        type Keyed = (u128, u64, (u32, u32));
        // One part's keys, sorted, with only its first `top` kept.
        let sorted = |part: &[(u32, u32)]| {
            let mut keyed: Vec<Keyed> = part
                .iter()
                .map(|&at| {
                    let s = self.summary(at);
                    (u128::from(key(s)) << 64 | s.id.0 >> 64, s.id.0 as u64, at)
                })
                .collect();
            if let Some(top) = top.filter(|&t| t < keyed.len()) {
                if top > 0 {
                    keyed.select_nth_unstable(top - 1);
                }
                keyed.truncate(top);
            }
            keyed.sort_unstable_by_key(|&(high, _, _)| high);
            for tied in keyed.chunk_by_mut(|a, b| a.0 == b.0) {
                if tied.len() > 1 {
                    tied.sort_unstable();
                }
            }
            keyed
        };
        if threads < 2 || self.order.len() < PARALLEL_SORT_MIN {
            let keyed = sorted(&self.order);
            self.order = keyed.into_iter().map(|(_, _, at)| at).collect();
            return;
        }
        // Two halves keyed and sorted at once, then merged: with a million IDs this was a
        // tenth of a two-thread run, all of it on one thread. The first `top` of the whole
        // are among the first `top` of the halves.
        let (a, b) = self.order.split_at(self.order.len() / 2);
        let (a, b) = std::thread::scope(|scope| {
            let a = scope.spawn(|| sorted(a));
            let b = sorted(b);
            (a.join().expect("the sort thread panicked"), b)
        });
        let len = top.map_or(a.len() + b.len(), |t| t.min(a.len() + b.len()));
        let mut merged = Vec::with_capacity(len);
        let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
        while merged.len() < len {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x <= y => a.next(),
                (Some(_), Some(_)) => b.next(),
                _ => a.next().or_else(|| b.next()),
            };
            merged.extend(next.map(|(_, _, at)| *at));
        }
        self.order = merged;
    }
}

/// Below this many IDs, one thread sorts them.
const PARALLEL_SORT_MIN: usize = 65_536;
