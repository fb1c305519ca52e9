//! Every ID -> its lines, files, fields, written forms and first/last line time: the `ids`
//! view's counts (and the field names `audit` shares). Counts saturate at 2^32 - 1 rather
//! than wrap.
//!
//! The counts ([`Tallies`]) are split by ID into shards, each a hash table behind a lock. A
//! worker thread's [`Tally`] collects occurrences per shard and applies a full batch under the
//! shard's lock, so threads rarely wait, no ID is counted in two places, and nothing is merged
//! at the end. Memory grows with distinct IDs, not with bytes: an entry is 64 bytes with its
//! key while an ID has one file, one field name and one written form, which is what most IDs
//! have; a second value of any of these moves the sets to a side record.
//!
//! 32-hex tokens are everywhere in logs without being UUIDs (trace IDs, digests), so an
//! undashed token counts only when the same value is also written as a ULID or a dashed UUID
//! somewhere in the inputs, unless the caller asks for all of them. They are tallied apart and
//! joined at the end.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Mutex;

use crate::id::{Form, Id, Kind};

/// Occurrences are counted in batches of this many per shard, so the table slots they land in
/// can be prefetched ahead of use (with a million IDs the tables are far larger than the
/// caches, and one miss per occurrence, taken one at a time, was half the run), and a shard's
/// lock is taken once per batch.
const BATCH: usize = 1024;

/// Shards of the counts: enough that two threads rarely want the same one at once.
const SHARDS: usize = 8;

/// How far ahead of its use a slot is prefetched. The tables are far larger than what the
/// TLB maps, so a prefetch often waits for a page walk first; 32 ahead measured 8% faster
/// than 16 on the benchmark corpus, 64 slower (five alternating runs each).
const PREFETCH_AHEAD: usize = 32;

/// Marks "no value" in the u32 slots of an entry.
const NONE: u32 = u32::MAX;

/// Field names, shared by all workers, each stored once; a field is its index here.
#[derive(Default)]
pub struct FieldNames {
    inner: Mutex<NamesInner>,
}

#[derive(Default)]
struct NamesInner {
    index: HashMap<Box<[u8]>, u32>,
    names: Vec<Box<[u8]>>,
}

impl FieldNames {
    /// The index of `name`, the same in every worker.
    pub fn intern(&self, name: &[u8]) -> u32 {
        let mut inner = self
            .inner
            .lock()
            .expect("a worker panicked holding the field names");
        if let Some(&i) = inner.index.get(name) {
            return i;
        }
        let i = inner.names.len() as u32;
        inner.names.push(name.into());
        inner.index.insert(name.into(), i);
        i
    }

    /// Every name, by index.
    pub fn snapshot(&self) -> Vec<Box<[u8]>> {
        let inner = self
            .inner
            .lock()
            .expect("a worker panicked holding the field names");
        inner.names.clone()
    }
}

/// One thread's door to [`FieldNames`]: the names it has interned already, so the shared lock
/// is taken once per new name rather than once per occurrence.
pub struct LocalNames<'n> {
    shared: &'n FieldNames,
    seen: HashMap<Box<[u8]>, u32, foldhash::fast::FixedState>,
}

impl<'n> LocalNames<'n> {
    pub fn new(shared: &'n FieldNames) -> LocalNames<'n> {
        LocalNames {
            shared,
            seen: HashMap::default(),
        }
    }

    /// The index of `name`, the same in every thread.
    pub fn index(&mut self, name: &[u8]) -> u32 {
        if let Some(&i) = self.seen.get(name) {
            return i;
        }
        let i = self.shared.intern(name);
        self.seen.insert(name.into(), i);
        i
    }

    pub fn shared(&self) -> &'n FieldNames {
        self.shared
    }
}

#[derive(Debug)]
struct Entry {
    first_ms: i64,
    last_ms: i64,
    lines: u32,
    /// Occurrences, every form together.
    occurrences: u32,
    /// The only file, field and form so far, while `extra` is `None`.
    file: u32,
    field: u32,
    /// Occurrences under `field`.
    field_count: u32,
    form: Form,
    extra: Option<Box<Extra>>,
}

impl Entry {
    /// An entry that counts nothing yet.
    fn new(file: u32, form: Form) -> Entry {
        Entry {
            first_ms: i64::MAX,
            last_ms: i64::MIN,
            lines: 0,
            occurrences: 0,
            file,
            field: NONE,
            field_count: 0,
            form,
            extra: None,
        }
    }
}

/// How many field counts live inline in [`Extra`] before spilling to a vector: most IDs go
/// by two or three names, and three fill the first cache line.
const INLINE_FIELDS: usize = 3;

/// The sets of an ID seen in more than one file, field or form. One allocation, touched on
/// each occurrence of such an ID, so the common updates stay within it: a worker reads one
/// file at a time, so the file is usually `last_file`.
/// The counts updated on every occurrence come first and fill one cache line exactly.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
struct Extra {
    forms: [u32; Form::ALL.len()],
    last_file: u32,
    fields: [(u32, u32); INLINE_FIELDS],
    /// Sorted.
    files: Vec<u32>,
    more_fields: Vec<(u32, u32)>,
}

impl Extra {
    fn add_file(&mut self, file: u32) {
        if file == self.last_file {
            return;
        }
        self.last_file = file;
        if let Err(at) = self.files.binary_search(&file) {
            self.files.insert(at, file);
        }
    }

    fn add_field(&mut self, field: u32, n: u32) {
        for slot in &mut self.fields {
            if slot.0 == field {
                slot.1 = slot.1.saturating_add(n);
                return;
            }
            if slot.0 == NONE {
                *slot = (field, n);
                return;
            }
        }
        match self.more_fields.iter_mut().find(|(f, _)| *f == field) {
            Some((_, count)) => *count = count.saturating_add(n),
            None => self.more_fields.push((field, n)),
        }
    }

    fn fields(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.fields
            .iter()
            .copied()
            .take_while(|(f, _)| *f != NONE)
            .chain(self.more_fields.iter().copied())
    }
}

/// A field name, interned by [`Tally::field`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldId(u32);

/// One occurrence of an ID on a line.
#[derive(Clone, Copy, Debug)]
pub struct Occurrence {
    pub id: Id,
    pub form: Form,
    pub field: Option<FieldId>,
}

/// The counts of a whole run, shared by the worker threads.
pub struct Tallies {
    names: FieldNames,
    shards: Vec<Mutex<Shard>>,
    count_undashed: bool,
}

#[derive(Default)]
struct Shard {
    main: Table,
    /// Undashed-only values, see the module doc.
    undashed: Table,
}

/// One worker's handle on the counts: its batches and its cache of field names.
pub struct Tally<'t> {
    tallies: &'t Tallies,
    names: LocalNames<'t>,
    /// One batch per shard.
    batches: Vec<Vec<Pending>>,
}

/// One occurrence waiting in the batch, with what its line said about it.
struct Pending {
    key: u128,
    hash: u64,
    /// `i64::MIN` for none.
    time_ms: i64,
    file: u32,
    field: u32,
    form: Form,
    /// The first occurrence of this value on its line.
    new_line: bool,
    /// Counted in the main table (not among the undashed-only values).
    to_main: bool,
}

impl Tallies {
    /// `count_undashed`: count every 32-hex token as an ID, not only values seen in another
    /// form.
    pub fn new(count_undashed: bool) -> Tallies {
        Tallies {
            names: FieldNames::default(),
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            count_undashed,
        }
    }

    /// A handle for one worker thread; [`Tally::done`] hands its last batches over.
    pub fn tally(&self) -> Tally<'_> {
        Tally {
            tallies: self,
            names: LocalNames::new(&self.names),
            batches: (0..SHARDS).map(|_| Vec::with_capacity(BATCH)).collect(),
        }
    }

    /// The final counts, once every tally is done: undashed values join the values seen in
    /// other forms (or are dropped, unless every undashed token counts).
    pub fn finish(self) -> Inventory {
        let mut dropped_undashed = 0;
        let mut tables = Vec::with_capacity(SHARDS);
        for shard in self.shards {
            let Shard { mut main, undashed } = shard.into_inner().expect(POISONED);
            for (key, theirs) in undashed.into_entries() {
                match main.get_mut(key) {
                    Some(ours) => combine(ours, theirs),
                    None => dropped_undashed += 1,
                }
            }
            tables.push(main);
        }
        let order = tables
            .iter()
            .enumerate()
            .flat_map(|(t, table)| table.occupied().map(move |s| (t as u32, s as u32)))
            .collect();
        Inventory {
            tables,
            order,
            field_names: self.names.snapshot(),
            dropped_undashed,
        }
    }
}

const POISONED: &str = "a worker panicked while counting";

impl Tally<'_> {
    /// The ID of a field name, for [`Occurrence::field`].
    pub fn field(&mut self, name: &[u8]) -> FieldId {
        FieldId(self.names.index(name))
    }

    /// Counts one line of file number `file`, with its own time if it has one.
    pub fn add_line(&mut self, file: u32, time_ms: Option<i64>, occurrences: &[Occurrence]) {
        for (i, occ) in occurrences.iter().enumerate() {
            let same = |o: &Occurrence| o.id == occ.id;
            let hash = hash(occ.id.0);
            // The low bits pick the shard; a table's slot comes from the high bits.
            let shard = hash as usize % SHARDS;
            self.batches[shard].push(Pending {
                key: occ.id.0,
                hash,
                time_ms: time_ms.unwrap_or(i64::MIN),
                file,
                field: occ.field.map_or(NONE, |f| f.0),
                form: occ.form,
                new_line: !occurrences[..i].iter().any(same),
                to_main: self.tallies.count_undashed
                    || occurrences
                        .iter()
                        .any(|o| same(o) && o.form != Form::UuidUndashed),
            });
            if self.batches[shard].len() >= BATCH {
                self.flush(shard);
            }
        }
    }

    /// Hands the last batches over; the counts are complete when every tally is done.
    pub fn done(mut self) {
        for shard in 0..SHARDS {
            self.flush(shard);
        }
    }

    /// Counts a shard's batch under its lock, prefetching each slot a few occurrences ahead.
    fn flush(&mut self, shard: usize) {
        let batch = &mut self.batches[shard];
        let mut guard = self.tallies.shards[shard].lock().expect(POISONED);
        let Shard { main, undashed } = &mut *guard;
        for (i, p) in batch.iter().enumerate() {
            if let Some(ahead) = batch.get(i + PREFETCH_AHEAD) {
                let table = if ahead.to_main { &*main } else { &*undashed };
                table.prefetch(ahead.hash);
            }
            // Half as far ahead, the slot is in cache: fetch the side record it points to.
            if let Some(ahead) = batch.get(i + PREFETCH_AHEAD / 2) {
                let table = if ahead.to_main { &*main } else { &*undashed };
                table.prefetch_extra(ahead.key, ahead.hash);
            }
            let table = if p.to_main {
                &mut *main
            } else {
                &mut *undashed
            };
            let entry = table.entry(p.key, p.hash, p.file, p.form);
            if p.new_line {
                entry.lines = entry.lines.saturating_add(1);
                if p.time_ms != i64::MIN {
                    entry.first_ms = entry.first_ms.min(p.time_ms);
                    entry.last_ms = entry.last_ms.max(p.time_ms);
                }
            }
            record(entry, p.file, p.field, p.form, 1);
        }
        batch.clear();
    }
}

fn hash(key: u128) -> u64 {
    foldhash::fast::FixedState::default().hash_one(key)
}

/// Asks the CPU to start loading the cache line of `target`.
fn prefetch<T>(target: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint with no effect on memory; SSE is baseline on x86_64.
    unsafe {
        let ptr: *const T = target;
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = target;
}

/// One slot of [`Table`]: a key and its entry in one cache line.
#[repr(C, align(64))]
struct Slot {
    key: u128,
    /// Empty while `entry.occurrences` is 0 (an entry counts at least one occurrence).
    entry: Entry,
}

impl Slot {
    fn empty() -> Slot {
        Slot {
            key: 0,
            entry: Entry::new(0, Form::UlidLower),
        }
    }

    fn is_empty(&self) -> bool {
        self.entry.occurrences == 0
    }
}

/// An open-addressing hash table from ID to entry (linear probing, at most 5/8 full), ours
/// rather than std's so that the batch can prefetch the slot an occurrence will land in.
#[derive(Default)]
struct Table {
    slots: Vec<Slot>,
    len: usize,
}

impl Table {
    const MIN_SLOTS: usize = 1024;

    fn index(&self, hash: u64) -> usize {
        // High bits: the best mixed ones of a multiplicative hash.
        (hash >> (64 - self.slots.len().trailing_zeros())) as usize
    }

    fn prefetch(&self, hash: u64) {
        if !self.slots.is_empty() {
            prefetch(&self.slots[self.index(hash)]);
        }
    }

    fn prefetch_extra(&self, key: u128, hash: u64) {
        if self.slots.is_empty() {
            return;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.index(hash);
        while !self.slots[i].is_empty() {
            if self.slots[i].key == key {
                if let Some(extra) = &self.slots[i].entry.extra {
                    prefetch(&**extra);
                }
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// The entry for `key`, inserted empty (counting nothing yet) if absent.
    fn entry(&mut self, key: u128, hash: u64, file: u32, form: Form) -> &mut Entry {
        if (self.len + 1) * 8 > self.slots.len() * 5 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.index(hash);
        loop {
            let slot = &self.slots[i];
            if slot.is_empty() || slot.key == key {
                break;
            }
            i = (i + 1) & mask;
        }
        let slot = &mut self.slots[i];
        if slot.is_empty() {
            self.len += 1;
            slot.key = key;
            slot.entry = Entry::new(file, form);
        }
        &mut slot.entry
    }

    fn get_mut(&mut self, key: u128) -> Option<&mut Entry> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.index(hash(key));
        loop {
            let slot = &self.slots[i];
            if slot.is_empty() {
                return None;
            }
            if slot.key == key {
                return Some(&mut self.slots[i].entry);
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let new_len = (self.slots.len() * 2).max(Self::MIN_SLOTS);
        let mut slots = Vec::with_capacity(new_len);
        slots.resize_with(new_len, Slot::empty);
        let old = std::mem::replace(&mut self.slots, slots);
        let mask = new_len - 1;
        for slot in old.into_iter().filter(|s| !s.is_empty()) {
            let mut i = self.index(hash(slot.key));
            while !self.slots[i].is_empty() {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot;
        }
    }

    /// Indexes of the occupied slots.
    fn occupied(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.slots.len()).filter(|&i| !self.slots[i].is_empty())
    }

    fn into_entries(self) -> impl Iterator<Item = (u128, Entry)> {
        self.slots
            .into_iter()
            .filter(|s| !s.is_empty())
            .map(|s| (s.key, s.entry))
    }
}

/// Counts `n` occurrences in `file` under `field` written as `form`.
fn record(entry: &mut Entry, file: u32, field: u32, form: Form, n: u32) {
    entry.occurrences = entry.occurrences.saturating_add(n);
    if entry.extra.is_none() {
        let field_fits = field == NONE || entry.field == NONE || entry.field == field;
        if entry.file == file && field_fits && entry.form == form {
            if field != NONE {
                entry.field = field;
                entry.field_count = entry.field_count.saturating_add(n);
            }
            return;
        }
    }
    let extra = ensure_extra(entry, n);
    extra.add_file(file);
    if field != NONE {
        extra.add_field(field, n);
    }
    extra.forms[form as usize] = extra.forms[form as usize].saturating_add(n);
}

/// Adds `theirs` into `ours`.
fn combine(ours: &mut Entry, theirs: Entry) {
    ours.lines = ours.lines.saturating_add(theirs.lines);
    ours.first_ms = ours.first_ms.min(theirs.first_ms);
    ours.last_ms = ours.last_ms.max(theirs.last_ms);
    let Some(their) = theirs.extra else {
        let unnamed = theirs.occurrences.saturating_sub(theirs.field_count);
        if theirs.field_count > 0 {
            record(
                ours,
                theirs.file,
                theirs.field,
                theirs.form,
                theirs.field_count,
            );
        }
        if unnamed > 0 {
            record(ours, theirs.file, NONE, theirs.form, unnamed);
        }
        return;
    };
    for (form, &count) in Form::ALL.iter().zip(&their.forms) {
        if count > 0 {
            record(ours, their.files[0], NONE, *form, count);
        }
    }
    let extra = ensure_extra(ours, 0);
    for &file in &their.files {
        extra.add_file(file);
    }
    for (field, count) in their.fields() {
        extra.add_field(field, count);
    }
}

/// Moves an entry's single values to a side record, if not there yet. `pending`: occurrences
/// already added to the entry's count but not yet to a form.
fn ensure_extra(entry: &mut Entry, pending: u32) -> &mut Extra {
    let Entry {
        file,
        field,
        field_count,
        form,
        occurrences,
        extra,
        ..
    } = entry;
    extra.get_or_insert_with(|| {
        let mut extra = Box::new(Extra {
            fields: [(NONE, 0); INLINE_FIELDS],
            last_file: *file,
            files: vec![*file],
            ..Extra::default()
        });
        if *field != NONE {
            extra.fields[0] = (*field, *field_count);
        }
        extra.forms[*form as usize] = occurrences.saturating_sub(pending);
        extra
    })
}

/// The counts of a whole run, in the order the views show them.
pub struct Inventory {
    /// One table per shard.
    tables: Vec<Table>,
    /// (table, slot) of each ID shown, in order.
    order: Vec<(u32, u32)>,
    field_names: Vec<Box<[u8]>>,
    /// Distinct undashed values seen in no other form (and so not counted).
    pub dropped_undashed: u64,
}

/// One ID of the inventory, as the views show it.
#[derive(Clone, Copy)]
pub struct Summary<'a> {
    pub id: Id,
    entry: &'a Entry,
    inventory: &'a Inventory,
}

impl<'a> Summary<'a> {
    /// How the ID is mostly written: as a ULID or as a UUID (ties go to ULID).
    pub fn kind(&self) -> Kind {
        let Some(extra) = &self.entry.extra else {
            return self.entry.form.kind();
        };
        let (mut ulid, mut uuid) = (0u64, 0u64);
        for (form, &count) in Form::ALL.iter().zip(&extra.forms) {
            match form.kind() {
                Kind::Ulid => ulid += count as u64,
                Kind::Uuid => uuid += count as u64,
            }
        }
        if ulid >= uuid { Kind::Ulid } else { Kind::Uuid }
    }

    pub fn lines(&self) -> u32 {
        self.entry.lines
    }

    pub fn occurrences(&self) -> u32 {
        self.entry.occurrences
    }

    /// File numbers, ascending.
    pub fn files(&self) -> &'a [u32] {
        match &self.entry.extra {
            Some(extra) => &extra.files,
            None => std::slice::from_ref(&self.entry.file),
        }
    }

    /// Field names with their occurrence counts, most frequent first, then by name.
    pub fn fields(&self) -> Vec<(&'a [u8], u32)> {
        let names = &self.inventory.field_names;
        let mut fields: Vec<(&[u8], u32)> = match &self.entry.extra {
            Some(extra) => extra
                .fields()
                .map(|(f, n)| (&*names[f as usize], n))
                .collect(),
            None if self.entry.field != NONE => {
                vec![(&*names[self.entry.field as usize], self.entry.field_count)]
            }
            None => Vec::new(),
        };
        fields.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        fields
    }

    /// Written forms with their occurrence counts, in [`Form::ALL`] order.
    pub fn forms(&self) -> Vec<(Form, u32)> {
        match &self.entry.extra {
            Some(extra) => Form::ALL
                .iter()
                .zip(&extra.forms)
                .filter(|(_, n)| **n > 0)
                .map(|(f, n)| (*f, *n))
                .collect(),
            None => vec![(self.entry.form, self.entry.occurrences)],
        }
    }

    /// The earliest and latest time of the lines that carry a time.
    pub fn first_ms(&self) -> Option<i64> {
        (self.entry.first_ms != i64::MAX).then_some(self.entry.first_ms)
    }

    pub fn last_ms(&self) -> Option<i64> {
        (self.entry.last_ms != i64::MIN).then_some(self.entry.last_ms)
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
    /// there is one: its slot, and its side record once the slot is in cache (a caller
    /// walking the order calls this for `i + n` with two distances, the larger first). In
    /// sorted order the IDs lie at random in tables far larger than the caches.
    pub fn prefetch(&self, i: usize, side_record: bool) {
        let Some(&(table, slot)) = self.order.get(i) else {
            return;
        };
        let slot = &self.tables[table as usize].slots[slot as usize];
        if side_record {
            if let Some(extra) = &slot.entry.extra {
                prefetch(&**extra);
            }
        } else {
            prefetch(slot);
        }
    }

    fn summary(&self, (table, slot): (u32, u32)) -> Summary<'_> {
        let slot = &self.tables[table as usize].slots[slot as usize];
        Summary {
            id: Id(slot.key),
            entry: &slot.entry,
            inventory: self,
        }
    }

    /// Keeps the entries `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(Summary) -> bool) {
        let mut order = std::mem::take(&mut self.order);
        order.retain(|&at| keep(self.summary(at)));
        self.order = order;
    }

    /// Sorts the entries by `key` (ties by ID, ascending) and keeps the first `top`.
    pub fn sort_by<K: Ord>(&mut self, key: impl Fn(Summary) -> K, top: Option<usize>) {
        let mut keyed: Vec<(K, u128, (u32, u32))> = self
            .order
            .iter()
            .map(|&at| {
                let s = self.summary(at);
                (key(s), s.id.0, at)
            })
            .collect();
        let order = |a: &(K, u128, (u32, u32)), b: &(K, u128, (u32, u32))| {
            a.0.cmp(&b.0).then(a.1.cmp(&b.1))
        };
        if let Some(top) = top.filter(|&t| t < keyed.len()) {
            if top > 0 {
                keyed.select_nth_unstable_by(top - 1, order);
            }
            keyed.truncate(top);
        }
        keyed.sort_unstable_by(order);
        self.order = keyed.into_iter().map(|(_, _, at)| at).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// What a summary says, in plain collections, for comparing tallies.
    #[derive(Debug, PartialEq, Eq, Default)]
    struct Plain {
        lines: u32,
        files: BTreeSet<u32>,
        fields: BTreeMap<Vec<u8>, u32>,
        forms: BTreeMap<&'static str, u32>,
        first: Option<i64>,
        last: Option<i64>,
    }

    fn plain(inventory: &Inventory) -> BTreeMap<u128, Plain> {
        inventory
            .summaries()
            .map(|s| {
                let p = Plain {
                    lines: s.lines(),
                    files: s.files().iter().copied().collect(),
                    fields: s.fields().iter().map(|(f, n)| (f.to_vec(), *n)).collect(),
                    forms: s.forms().iter().map(|(f, n)| (f.name(), *n)).collect(),
                    first: s.first_ms(),
                    last: s.last_ms(),
                };
                (s.id.0, p)
            })
            .collect()
    }

    type Line = (u32, Option<i64>, Vec<(u128, Form, Option<&'static [u8]>)>);

    /// Random lines over a few values, files, fields and forms.
    fn random_lines(seed: u64, n: usize, values: u64) -> Vec<Line> {
        let mut state = seed;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let fields: [Option<&'static [u8]>; 4] =
            [None, Some(b"order_id"), Some(b"ctx.order"), Some(b"id")];
        (0..n)
            .map(|_| {
                let file = (next() % 4) as u32;
                let time = (next() % 3 != 0).then(|| (next() % 1000) as i64);
                let hits = (0..1 + next() % 4)
                    .map(|_| {
                        // Spread over the whole key space, as IDs are.
                        let value = ((next() % values) as u128)
                            .wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835);
                        let form = Form::ALL[(next() % Form::ALL.len() as u64) as usize];
                        (value, form, fields[(next() % 4) as usize])
                    })
                    .collect();
                (file, time, hits)
            })
            .collect()
    }

    /// Counts `lines` through one tally of `tallies`.
    fn count(tallies: &Tallies, lines: &[Line]) {
        let mut tally = tallies.tally();
        for (file, time, hits) in lines {
            let occ: Vec<Occurrence> = hits
                .iter()
                .map(|&(v, form, field)| Occurrence {
                    id: Id(v),
                    form,
                    field: field.map(|name| tally.field(name)),
                })
                .collect();
            tally.add_line(*file, *time, &occ);
        }
        tally.done();
    }

    /// The same counts, computed the obvious way.
    fn naive(lines: &[Line], all_undashed: bool) -> BTreeMap<u128, Plain> {
        let mut out: BTreeMap<u128, Plain> = BTreeMap::new();
        let mut seen_other: BTreeSet<u128> = BTreeSet::new();
        for (_, _, hits) in lines {
            for &(v, form, _) in hits {
                if form != Form::UuidUndashed || all_undashed {
                    seen_other.insert(v);
                }
            }
        }
        for (file, time, hits) in lines {
            let mut on_line = BTreeSet::new();
            for &(v, form, field) in hits {
                if !seen_other.contains(&v) {
                    continue;
                }
                let p = out.entry(v).or_default();
                if on_line.insert(v) {
                    p.lines += 1;
                    if let Some(t) = *time {
                        p.first = Some(p.first.map_or(t, |f| f.min(t)));
                        p.last = Some(p.last.map_or(t, |l| l.max(t)));
                    }
                }
                p.files.insert(*file);
                if let Some(f) = field {
                    *p.fields.entry(f.to_vec()).or_default() += 1;
                }
                *p.forms.entry(form.name()).or_default() += 1;
            }
        }
        out
    }

    #[test]
    fn one_tally_and_merged_tallies_agree_with_a_naive_count() {
        for seed in 0..40 {
            for all_undashed in [false, true] {
                // Few values (many repeats) in most rounds; many (table growth) in some.
                let (n, values) = if seed % 8 == 0 {
                    (6_000, 9_000)
                } else {
                    (60, 12)
                };
                let lines = random_lines(seed, n, values);
                let want = naive(&lines, all_undashed);

                let one = Tallies::new(all_undashed);
                count(&one, &lines);
                assert_eq!(plain(&one.finish()), want, "seed {seed}: one tally");

                // Two threads at once, on uneven shares, through the shard locks.
                let two = Tallies::new(all_undashed);
                let (a, b) = lines.split_at(lines.len() / 3);
                std::thread::scope(|scope| {
                    scope.spawn(|| count(&two, a));
                    scope.spawn(|| count(&two, b));
                });
                assert_eq!(plain(&two.finish()), want, "seed {seed}: two tallies");
            }
        }
    }

    #[test]
    fn kind_follows_the_form_written_most() {
        let tallies = Tallies::new(false);
        let mut t = tallies.tally();
        let occ = |form| Occurrence {
            id: Id(7),
            form,
            field: None,
        };
        t.add_line(0, None, &[occ(Form::UuidLower), occ(Form::UlidUpper)]);
        t.add_line(0, None, &[occ(Form::UuidBraced)]);
        t.done();
        let inv = tallies.finish();
        assert_eq!(inv.summaries().next().unwrap().kind(), Kind::Uuid);
    }

    #[test]
    fn field_names_match_whole_or_last_segment() {
        assert!(field_matches(b"ctx.batch_id", b"batch_id"));
        assert!(field_matches(b"batch_id", b"batch_id"));
        assert!(field_matches(b"sources[]", b"sources"));
        assert!(field_matches(b"ctx.batch_id", b"ctx.batch_id"));
        assert!(!field_matches(b"ctx.xbatch_id", b"batch_id"));
        assert!(!field_matches(b"batch_id", b"id"));
    }

    #[test]
    fn sort_and_top_keep_the_largest_in_order() {
        let tallies = Tallies::new(false);
        let mut t = tallies.tally();
        for v in 0..10u128 {
            for _ in 0..(v % 4) + 1 {
                t.add_line(
                    0,
                    None,
                    &[Occurrence {
                        id: Id(v),
                        form: Form::UlidLower,
                        field: None,
                    }],
                );
            }
        }
        t.done();
        let mut inv = tallies.finish();
        inv.sort_by(|s| std::cmp::Reverse(s.lines()), Some(4));
        let got: Vec<(u128, u32)> = inv.summaries().map(|s| (s.id.0, s.lines())).collect();
        assert_eq!(got, vec![(3, 4), (7, 4), (2, 3), (6, 3)]);
    }
}
