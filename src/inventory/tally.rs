//! The counts while the inputs are scanned: [`Tallies`], split by ID into shards, each a hash
//! table behind a lock, and one [`Tally`] per thread. A tally first combines occurrences that
//! repeat within a few lines in a small cache of its own, then collects them per shard and
//! applies a full batch under the shard's lock, so threads rarely wait, no ID is counted in
//! two places, and nothing is merged at the end.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::ops::Range;
use std::sync::Mutex;

use super::entry::{EntryRef, NONE};
use super::names::{FieldNames, LocalNames};
use super::table::{Pending, Table, prefetch};
use super::{Inventory, Space};
use crate::id::{Form, Id, Kind};

/// Occurrences are counted in batches of this many per shard, so what they touch can be
/// prefetched ahead of use (with a million IDs the tables are far larger than the
/// caches, and one miss per occurrence, taken one at a time, was half the run), and a shard's
/// lock is taken once per batch.
const BATCH: usize = 1024;

/// Shards of the counts: enough that two threads rarely want the same one at once.
const SHARDS: usize = 8;

/// How far ahead of its use an occurrence's index slot is prefetched; its entry is prefetched
/// half as far ahead, once the slot is in.
const PREFETCH_AHEAD: usize = 32;

/// A field name, interned by [`Tally::field`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldId(pub(super) u32);

/// One occurrence of an ID on a line.
#[derive(Clone, Copy, Debug)]
pub struct Occurrence {
    pub id: Id,
    pub form: Form,
    pub field: Option<FieldId>,
    pub space: Space,
}

impl Occurrence {
    /// A 128-bit trace ID written in a trace spelling, whose low 64 bits a 64-bit trace ID on
    /// the same line may repeat.
    fn is_wide_trace(&self) -> bool {
        self.space == Space::Wide && self.form.kind() == Kind::Trace
    }
}

/// What an earlier run counted of one ID over its own inputs (read back by `idgrep merge`),
/// to be added as a whole: file numbers are already this run's.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    pub lines: u32,
    pub occurrences: u32,
    /// File numbers, each holding at least one occurrence.
    pub files: Vec<u32>,
    pub fields: Vec<(FieldId, u32)>,
    /// Occurrences per written form; they add up to `occurrences`.
    pub forms: Vec<(Form, u32)>,
    pub first_ms: Option<i64>,
    pub last_ms: Option<i64>,
}

impl Counts {
    /// Whether the counts can be those of a scan: at least one occurrence, the forms adding
    /// up to the occurrences, the fields to no more, no more lines or files than occurrences.
    pub fn check(&self) -> Result<(), Inconsistent> {
        let total = u64::from(self.occurrences);
        let sum = |counts: &[u32]| counts.iter().map(|&n| u64::from(n)).sum::<u64>();
        let forms: Vec<u32> = self.forms.iter().map(|&(_, n)| n).collect();
        let fields: Vec<u32> = self.fields.iter().map(|&(_, n)| n).collect();
        if total == 0 || self.lines == 0 || u64::from(self.lines) > total {
            return Err(Inconsistent(
                "an ID with no occurrence, or more lines than occurrences",
            ));
        }
        if sum(&forms) != total || forms.contains(&0) {
            return Err(Inconsistent("the forms do not add up to the occurrences"));
        }
        if sum(&fields) > total || fields.contains(&0) {
            return Err(Inconsistent(
                "the fields add up to more than the occurrences",
            ));
        }
        if self.files.is_empty() || self.files.len() as u64 > total {
            return Err(Inconsistent("no file, or more files than occurrences"));
        }
        if !self.files.windows(2).all(|pair| pair[0] < pair[1]) {
            return Err(Inconsistent("the files are not in ascending order"));
        }
        Ok(())
    }
}

/// Why [`Tally::add_counts`] refused an ID's counts.
#[derive(Debug, PartialEq, Eq)]
pub struct Inconsistent(pub &'static str);

/// The counts of a whole run, shared by the scan threads.
pub struct Tallies {
    names: FieldNames,
    shards: Vec<Mutex<Table>>,
    count_undashed: bool,
}

/// One scan thread's handle on the counts: its batches and its cache of field names.
pub struct Tally<'t> {
    tallies: &'t Tallies,
    names: LocalNames<'t>,
    /// Recent occurrences, combined while they repeat: see [`Tally::add_line`].
    recent: Vec<Pending>,
    /// One batch per shard.
    batches: Vec<Vec<Pending>>,
    /// The IDs seen so far on a line with many occurrences.
    on_line: HashSet<(u128, Space), foldhash::fast::FixedState>,
    /// The low 64 bits of the 128-bit trace IDs on a line with many occurrences.
    wide_traces_on_line: HashSet<u64, foldhash::fast::FixedState>,
}

/// Up to this many occurrences on a line, [`Tally::add_line`] finds an ID's first one by
/// comparing it with those before it.
pub(super) const FEW_OCCURRENCES: usize = 16;

/// Slots of [`Tally::recent`]: 256 KiB, which stays in a core's L2 cache. A direct-mapped
/// cache this size takes 40% of the bench corpus's occurrences, 32 times larger 49%.
const RECENT: usize = 4096;

impl Tallies {
    /// `count_undashed`: count every 32-hex token as an ID, not only values seen in another
    /// form.
    pub fn new(count_undashed: bool) -> Tallies {
        Tallies {
            names: FieldNames::default(),
            shards: (0..SHARDS * Space::ALL.len())
                .map(|_| Mutex::default())
                .collect(),
            count_undashed,
        }
    }

    /// A handle for one scan thread; [`Tally::done`] hands its last batches over.
    pub fn tally(&self) -> Tally<'_> {
        Tally {
            tallies: self,
            names: LocalNames::new(&self.names),
            // Made on the first line: the join's tallies add whole counts only.
            recent: Vec::new(),
            // Each made on its first occurrence: most runs fill one key space's shards only.
            batches: vec![Vec::new(); SHARDS * Space::ALL.len()],
            on_line: HashSet::default(),
            wide_traces_on_line: HashSet::default(),
        }
    }

    /// The final counts, once every tally is done: 64-bit trace IDs are joined to the
    /// 128-bit trace whose low half they are, and values written only undashed are dropped,
    /// unless every undashed token counts. The tables are listed on up to two threads: with
    /// a million IDs, one thread took about 50 ms.
    pub fn finish(self, threads: usize) -> Inventory {
        let joined = self.join_64_bit_traces(threads);
        let tables: Vec<Table> = self
            .shards
            .into_iter()
            .map(|shard| shard.into_inner().expect(POISONED))
            .collect();
        let count_undashed = self.count_undashed;
        // Each table's entries in memory order, and how many were dropped.
        let list = |first: usize, tables: &[Table]| {
            let mut order = Vec::new();
            let mut dropped = 0;
            for (t, table) in tables.iter().enumerate() {
                let t = (first + t) as u32;
                let space = space_of_table(t);
                // Only the 64-bit traces' entries are joined, and so looked up.
                for at in table.entries() {
                    if space == Space::Wide && !count_undashed && table.get(at).only_undashed() {
                        dropped += 1;
                    } else if space != Space::Trace64 || joined.binary_search(&(t, at)).is_err() {
                        order.push((t, at));
                    }
                }
            }
            (order, dropped)
        };
        let ((mut order, dropped_first), (rest, dropped_rest)) = if threads < 2 {
            (list(0, &tables), (Vec::new(), 0))
        } else {
            // Halves of the IDs, not of the tables: most runs fill the tables of one key
            // space only.
            let total: usize = tables.iter().map(Table::len).sum();
            let mut listed = 0;
            let half = tables
                .iter()
                .position(|table| {
                    listed += table.len();
                    2 * listed >= total
                })
                .map_or(0, |last| last + 1);
            std::thread::scope(|scope| {
                let first = scope.spawn(|| list(0, &tables[..half]));
                let rest = list(half, &tables[half..]);
                (first.join().expect(POISONED), rest)
            })
        };
        order.extend(rest);
        let dropped_undashed = dropped_first + dropped_rest;
        Inventory {
            tables,
            order,
            field_names: self.names.snapshot(),
            dropped_undashed,
        }
    }
}

const POISONED: &str = "a worker panicked while counting";

/// The key space of the table numbered `table`.
pub(super) fn space_of_table(table: u32) -> Space {
    Space::ALL[table as usize / SHARDS]
}

impl Tallies {
    /// Adds each 64-bit trace ID to the 128-bit trace ID whose low 64 bits it is, where
    /// exactly one such trace was counted (B3 and Datadog write the low half of the trace
    /// that W3C, X-Ray and OpenTelemetry write whole); returns the (table, entry) of those
    /// joined, sorted, for the listing to leave out. The 128-bit traces are found by their
    /// low halves in a map, the 64-bit ones looked up in their tables' order, which is the
    /// order wanted, so that neither list nor the matches need sorting (a third of the
    /// join's time); the joined counts are added on up to `threads` threads (two at most):
    /// on one, 128,000 joins take about 40 ms.
    fn join_64_bit_traces(&self, threads: usize) -> Vec<(u32, u32)> {
        // The tables of `space` numbered `shards` among its own, each locked in turn.
        let tables_of = |space: Space, shards: Range<usize>| {
            let first = space as usize * SHARDS;
            shards.map(move |shard| {
                let t = first + shard;
                (t as u32, self.shards[t].lock().expect(POISONED))
            })
        };
        let mut narrow: Vec<(u64, u32, u32)> = Vec::new();
        for (t, table) in tables_of(Space::Trace64, 0..SHARDS) {
            narrow.extend(
                table
                    .entries()
                    .map(|at| (table.get(at).key() as u64, t, at)),
            );
        }
        if narrow.is_empty() {
            return Vec::new();
        }
        // The 128-bit traces, read from every entry of the 128-bit tables: on two threads, a
        // half of the tables each (on the trace logs one thread took 20 ms).
        let traces_of = |shards: Range<usize>| {
            let mut wide: Vec<u128> = Vec::new();
            for (_, table) in tables_of(Space::Wide, shards) {
                wide.extend(
                    table
                        .entries()
                        .map(|at| table.get(at))
                        .filter(|e| e.is_trace())
                        .map(|e| e.key()),
                );
            }
            wide
        };
        let wide = if threads < 2 {
            vec![traces_of(0..SHARDS)]
        } else {
            std::thread::scope(|scope| {
                let first = scope.spawn(|| traces_of(0..SHARDS / 2));
                let rest = traces_of(SHARDS / 2..SHARDS);
                vec![first.join().expect(POISONED), rest]
            })
        };
        // Each low half, with its trace, or `None` where two traces share it.
        let mut by_low: HashMap<u64, Option<u128>, foldhash::fast::FixedState> =
            HashMap::with_capacity_and_hasher(wide.iter().map(Vec::len).sum(), Default::default());
        for &trace in wide.iter().flatten() {
            by_low
                .entry(trace as u64)
                .and_modify(|other| *other = None)
                .or_insert(Some(trace));
        }
        // In the order the entries lie in their tables, which the listing wants them in too.
        let matches: Vec<(u128, u32, u32)> = narrow
            .iter()
            .filter_map(|&(low, t, at)| Some((by_low.get(&low).copied()??, t, at)))
            .collect();
        let add = |part: &[(u128, u32, u32)]| {
            let mut tally = self.tally();
            for &(key, t, at) in part {
                let counts = {
                    let table = self.shards[t as usize].lock().expect(POISONED);
                    whole_counts(table.get(at))
                };
                tally.add_counts_unchecked(Space::Wide, Id(key), &counts);
            }
            tally.done();
        };
        // Counts add up in any order, as the scan threads' do.
        if threads < 2 {
            add(&matches);
        } else {
            let (first, rest) = matches.split_at(matches.len() / 2);
            std::thread::scope(|scope| {
                scope.spawn(|| add(first));
                add(rest);
            });
        }
        matches.into_iter().map(|(_, t, at)| (t, at)).collect()
    }
}

impl Tally<'_> {
    /// The ID of a field name, for [`Occurrence::field`].
    pub fn field(&mut self, name: &[u8]) -> FieldId {
        FieldId(self.names.index(name))
    }

    /// Asks for the cache slots of a line's first IDs. Called before the line is read as a
    /// record, which takes long enough for a slot the tables have pushed out of the caches
    /// to come back before [`Tally::add_line`] needs it (asked for in `add_line` itself, the
    /// slots arrived too late to help).
    pub fn prefetch(&self, ids: impl Iterator<Item = Id>) {
        for id in ids.take(FEW_OCCURRENCES) {
            if let Some(slot) = self.recent.get(recent_slot(hash(id.0))) {
                prefetch(slot);
            }
        }
    }

    /// Counts one line of file number `file`, with its own time if it has one.
    ///
    /// The counts are too large for the caches, so what costs is the memory an occurrence
    /// touches there. But an ID tends to come back within a few lines of a file (a request's
    /// lines), so occurrences wait in [`Tally::recent`], a small cache by ID, where the next
    /// one with the same file, field and form joins them; only what is pushed out, or left
    /// at the end, goes to the tables, many occurrences at once.
    pub fn add_line(&mut self, file: u32, time_ms: Option<i64>, occurrences: &[Occurrence]) {
        // A line counts once per ID: for a few occurrences the earlier ones are compared, for
        // many (a line listing thousands of IDs) a set remembers them, as the comparisons
        // would take quadratic time.
        //
        // A 64-bit trace ID joins its 128-bit trace at the end (see [`Tallies::finish`]), so
        // on a line that also holds that trace it adds no line.
        if self.recent.is_empty() {
            self.recent = vec![Pending::EMPTY; RECENT];
        }
        let many = occurrences.len() > FEW_OCCURRENCES;
        if many {
            self.on_line.clear();
            self.wide_traces_on_line.clear();
            self.wide_traces_on_line.extend(
                occurrences
                    .iter()
                    .filter(|o| o.is_wide_trace())
                    .map(|o| o.id.0 as u64),
            );
        }
        for (i, occ) in occurrences.iter().enumerate() {
            let hash = hash(occ.id.0);
            let mut new_line = if many {
                self.on_line.insert((occ.id.0, occ.space))
            } else {
                !occurrences[..i]
                    .iter()
                    .any(|o| o.id == occ.id && o.space == occ.space)
            };
            if new_line && occ.space == Space::Trace64 {
                let low = occ.id.0 as u64;
                new_line = if many {
                    !self.wide_traces_on_line.contains(&low)
                } else {
                    !occurrences
                        .iter()
                        .any(|o| o.is_wide_trace() && o.id.0 as u64 == low)
                };
            }
            let time_ms = time_ms.filter(|_| new_line);
            let pending = Pending {
                key: occ.id.0,
                hash,
                first_ms: time_ms.unwrap_or(i64::MAX),
                last_ms: time_ms.unwrap_or(i64::MIN),
                file,
                field: occ.field.map_or(NONE, |f| f.0),
                space: occ.space,
                lines: new_line as u32,
                occurrences: 1,
                form: occ.form,
            };
            let slot = &mut self.recent[recent_slot(hash)];
            if slot.occurrences > 0 && slot.counts_with(&pending) {
                pending.note_lines(&mut slot.lines, &mut slot.first_ms, &mut slot.last_ms);
                slot.occurrences = slot.occurrences.saturating_add(pending.occurrences);
                continue;
            }
            let evicted = std::mem::replace(slot, pending);
            if evicted.occurrences > 0 {
                self.push(evicted);
            }
        }
    }

    /// Adds what an earlier run counted of `id` over inputs of its own. The tables count
    /// occurrences by (file, field, form); the counts give each of the three only by itself,
    /// so they are paired off in order, each piece as large as the three allow: every file,
    /// field and form then ends with its own total (a file one occurrence, the last file the
    /// rest), and the ID's lines and times come with the first piece.
    pub fn add_counts(
        &mut self,
        space: Space,
        id: Id,
        counts: &Counts,
    ) -> Result<(), Inconsistent> {
        counts.check()?;
        self.add_counts_unchecked(space, id, counts);
        Ok(())
    }

    /// [`Tally::add_counts`] without the check: a 64-bit trace ID joined to its 128-bit trace
    /// may add no line (each of its lines held the trace too).
    fn add_counts_unchecked(&mut self, space: Space, id: Id, counts: &Counts) {
        let total = counts.occurrences;
        let fields_total: u32 = counts.fields.iter().map(|&(_, n)| n).sum();
        let mut fields = counts
            .fields
            .iter()
            .map(|&(f, n)| (f.0, n))
            .chain(std::iter::once((NONE, total - fields_total)))
            .filter(|&(_, n)| n > 0);
        let last_file = counts.files.len() - 1;
        let mut files = counts.files.iter().enumerate().map(|(i, &file)| {
            let n = if i == last_file {
                total - last_file as u32
            } else {
                1
            };
            (file, n)
        });
        let mut forms = counts.forms.iter().copied();
        let (mut field, mut file, mut form) = (fields.next(), files.next(), forms.next());
        let hash = hash(id.0);
        let mut first = true;
        while let (Some((f, fields_left)), Some((file_no, files_left)), Some((w, forms_left))) =
            (field, file, form)
        {
            let n = fields_left.min(files_left).min(forms_left);
            let (lines, first_ms, last_ms) = if first {
                let first_ms = counts.first_ms.unwrap_or(i64::MAX);
                (counts.lines, first_ms, counts.last_ms.unwrap_or(i64::MIN))
            } else {
                (0, i64::MAX, i64::MIN)
            };
            first = false;
            self.push(Pending {
                key: id.0,
                hash,
                first_ms,
                last_ms,
                file: file_no,
                field: f,
                space,
                lines,
                occurrences: n,
                form: w,
            });
            field = Some((f, fields_left - n))
                .filter(|p| p.1 > 0)
                .or_else(|| fields.next());
            file = Some((file_no, files_left - n))
                .filter(|p| p.1 > 0)
                .or_else(|| files.next());
            form = Some((w, forms_left - n))
                .filter(|p| p.1 > 0)
                .or_else(|| forms.next());
        }
    }

    /// Puts `pending` in its shard's batch, counting the batch when it is full.
    fn push(&mut self, pending: Pending) {
        let shard = pending.space as usize * SHARDS + pending.hash as usize % SHARDS;
        let batch = &mut self.batches[shard];
        if batch.capacity() == 0 {
            batch.reserve_exact(BATCH);
        }
        batch.push(pending);
        if batch.len() >= BATCH {
            self.flush(shard);
        }
    }

    /// Hands the last batches over; the counts are complete when every tally is done.
    pub fn done(mut self) {
        for pending in std::mem::take(&mut self.recent) {
            if pending.occurrences > 0 {
                self.push(pending);
            }
        }
        for shard in 0..self.batches.len() {
            self.flush(shard);
        }
    }

    /// Counts a shard's batch under its lock, prefetching each occurrence's index slot, then
    /// its entry, a few occurrences ahead.
    fn flush(&mut self, shard: usize) {
        let batch = &mut self.batches[shard];
        let mut table = self.tallies.shards[shard].lock().expect(POISONED);
        table.reserve(batch.len());
        for (i, p) in batch.iter().enumerate() {
            if let Some(ahead) = batch.get(i + PREFETCH_AHEAD) {
                table.prefetch_slot(ahead.hash);
            }
            if let Some(ahead) = batch.get(i + PREFETCH_AHEAD / 2) {
                table.prefetch_entry(ahead.hash);
            }
            table.count(p);
        }
        batch.clear();
    }
}

/// What an entry counted, as [`Tally::add_counts`] takes it.
fn whole_counts(entry: EntryRef) -> Counts {
    let (lines, occurrences, _, _) = entry.counts();
    let (first_ms, last_ms) = entry.times();
    let mut fields: Vec<(FieldId, u32)> = Vec::new();
    entry.for_each_field(|f, n| fields.push((FieldId(f), n)));
    fields.sort_unstable_by_key(|&(f, _)| f.0);
    Counts {
        lines,
        occurrences,
        files: entry.files(),
        fields,
        forms: entry.forms(),
        first_ms,
        last_ms,
    }
}

fn hash(key: u128) -> u64 {
    foldhash::fast::FixedState::default().hash_one(key)
}

/// The slot of [`Tally::recent`] for an ID with this hash. The low bits pick the shard and a
/// table's slot comes from the high bits, so this one comes from bits in between.
fn recent_slot(hash: u64) -> usize {
    (hash >> 16) as usize % RECENT
}
