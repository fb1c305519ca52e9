//! Every ID -> its lines, files, fields, written forms and first/last line time: the `ids`
//! view's counts (and the field names `audit` shares). Counts saturate at 2^32 - 1 rather
//! than wrap.
//!
//! The counts ([`Tallies`]) are split by ID into shards, each a hash table behind a lock. A
//! worker thread's [`Tally`] first combines occurrences that repeat within a few lines in a
//! small cache of its own, then collects them per shard and applies a full batch under the
//! shard's lock, so threads rarely wait, no ID is counted in two places, and nothing is merged
//! at the end.
//!
//! With a million IDs the tables are far larger than the caches, so what an occurrence costs
//! is the memory it touches. An ID seen in one file, under one field name, in one written
//! form (most IDs of a large inventory) is a 64-byte cold entry; the first occurrence that
//! adds a second of any of these promotes it to a 128-byte hot entry, with room for six field
//! names, three forms and the files numbered below 256 as bits, so that one or two cache
//! lines serve almost every occurrence, and a side record holds what does not fit. (The
//! previous layout kept every set in a side record as soon as an ID had a second file, field
//! or form, which is what most occurrences belong to: a second and third dependent miss for
//! each.) Memory grows with distinct IDs, not with bytes.
//!
//! 32-hex tokens are everywhere in logs without being UUIDs (trace IDs, digests), so an
//! undashed token counts only when the same value is also written as a ULID or a dashed UUID
//! somewhere in the inputs, unless the caller asks for all of them: values written only
//! undashed are counted like the others and dropped at the end.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::Mutex;

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
/// is taken once per new name rather than once per occurrence, and in front of them the short
/// names seen lately, looked up without hashing: a log's lines repeat a few field names, and
/// the map's lookup was a twentieth of an `ids` run.
pub struct LocalNames<'n> {
    shared: &'n FieldNames,
    seen: HashMap<Box<[u8]>, u32, foldhash::fast::FixedState>,
    recent: [RecentName; RECENT_NAMES],
}

/// How many short names [`LocalNames`] keeps in front of its map, and how long they may be.
const RECENT_NAMES: usize = 64;
const RECENT_NAME_LEN: usize = 23;

/// A name of at most [`RECENT_NAME_LEN`] bytes and its index; `len` 0 for none (the empty
/// name is not cached).
#[derive(Clone, Copy)]
struct RecentName {
    len: u8,
    bytes: [u8; RECENT_NAME_LEN],
    index: u32,
}

impl<'n> LocalNames<'n> {
    pub fn new(shared: &'n FieldNames) -> LocalNames<'n> {
        LocalNames {
            shared,
            seen: HashMap::default(),
            recent: [RecentName {
                len: 0,
                bytes: [0; RECENT_NAME_LEN],
                index: 0,
            }; RECENT_NAMES],
        }
    }

    /// The index of `name`, the same in every thread.
    pub fn index(&mut self, name: &[u8]) -> u32 {
        let short = !name.is_empty() && name.len() <= RECENT_NAME_LEN;
        // Length and the two ends tell a log's few names apart well enough for a hint.
        let at = short.then(|| {
            (name.len() + name[0] as usize * 7 + name[name.len() - 1] as usize * 31) % RECENT_NAMES
        });
        if let Some(at) = at {
            let recent = &self.recent[at];
            if recent.len as usize == name.len() && recent.bytes[..name.len()] == *name {
                return recent.index;
            }
        }
        let index = match self.seen.get(name) {
            Some(&i) => i,
            None => {
                let i = self.shared.intern(name);
                self.seen.insert(name.into(), i);
                i
            }
        };
        if let Some(at) = at {
            let recent = &mut self.recent[at];
            recent.len = name.len() as u8;
            recent.bytes[..name.len()].copy_from_slice(name);
            recent.index = index;
        }
        index
    }

    pub fn shared(&self) -> &'n FieldNames {
        self.shared
    }
}

/// Marks "no form" in the form tags of an entry.
const NO_FORM: u8 = u8::MAX;

/// An ID seen so far in one file, under at most one field name, in one written form: most
/// IDs of a large inventory. One cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Cold {
    key: u128,
    first_ms: i64,
    last_ms: i64,
    lines: u32,
    occurrences: u32,
    file: u32,
    /// `NONE` until an occurrence has a field.
    field: u32,
    field_count: u32,
    form: u8,
}

/// Files numbered below this are kept as bits of a [`Hot`] entry: a run over a directory of
/// logs has fewer files than that, and then no file is ever looked up in a side record.
const LOW_FILES: u32 = 256;

/// How many fields and forms a [`Hot`] entry holds itself.
const HOT_FIELDS: usize = 6;
const HOT_FORMS: usize = 3;

/// An ID with more than one file, field name or written form, in two cache lines that serve
/// almost all of its occurrences; what does not fit goes to a [`Side`] record. The count of
/// the first form is implied (every occurrence not counted under another form). Field names
/// are kept as `u16` here; a name numbered past that goes to the side record.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(128))]
struct Hot {
    key: u128,
    first_ms: i64,
    last_ms: i64,
    lines: u32,
    occurrences: u32,
    /// 1 + the index of the side record in [`Table::sides`], 0 for none.
    side: u32,
    /// The last file looked up in the side record, so that the occurrences of one file cost
    /// one lookup there, not one each.
    last_side_file: u32,
    /// Bit `f` for file `f` below [`LOW_FILES`].
    low_files: [u64; LOW_FILES as usize / 64],
    /// `Form as u8`, `NO_FORM` after the last.
    form_tags: [u8; HOT_FORMS],
    /// Occurrences of `form_tags[1..]`.
    form_counts: [u32; HOT_FORMS - 1],
    /// `NARROW_NONE` after the last.
    field_names: [u16; HOT_FIELDS],
    field_counts: [u32; HOT_FIELDS],
}

/// Marks "no field" in [`Hot::field_names`].
const NARROW_NONE: u16 = u16::MAX;

/// What a [`Hot`] entry has no room for.
#[derive(Debug, Default)]
struct Side {
    /// Files numbered from [`LOW_FILES`] on, sorted.
    files: Vec<u32>,
    /// Fields beyond the inline ones.
    fields: Vec<(u32, u32)>,
    /// Occurrences per form beyond the inline ones.
    forms: [u32; Form::ALL.len()],
}

impl Cold {
    const EMPTY: Cold = Cold {
        key: 0,
        first_ms: i64::MAX,
        last_ms: i64::MIN,
        lines: 0,
        occurrences: 0,
        file: NONE,
        field: NONE,
        field_count: 0,
        form: NO_FORM,
    };

    /// Whether the occurrence adds no second file, field or form.
    fn fits(&self, file: u32, field: u32, form: Form) -> bool {
        self.file == file
            && self.form == form as u8
            && (field == NONE || self.field == NONE || self.field == field)
    }

    fn count(&mut self, field: u32, n: u32) {
        self.occurrences = self.occurrences.saturating_add(n);
        if field != NONE {
            self.field = field;
            self.field_count = self.field_count.saturating_add(n);
        }
    }
}

impl Hot {
    const EMPTY: Hot = Hot {
        key: 0,
        first_ms: i64::MAX,
        last_ms: i64::MIN,
        lines: 0,
        occurrences: 0,
        side: 0,
        last_side_file: NONE,
        low_files: [0; LOW_FILES as usize / 64],
        form_tags: [NO_FORM; HOT_FORMS],
        form_counts: [0; HOT_FORMS - 1],
        field_names: [NARROW_NONE; HOT_FIELDS],
        field_counts: [0; HOT_FIELDS],
    };

    /// The hot entry for what `cold` counted (a wide field name goes to a side record).
    fn from_cold(cold: &Cold, sides: &mut Vec<Side>) -> Hot {
        let mut hot = Hot {
            key: cold.key,
            first_ms: cold.first_ms,
            last_ms: cold.last_ms,
            lines: cold.lines,
            occurrences: cold.occurrences,
            form_tags: [cold.form, NO_FORM, NO_FORM],
            ..Hot::EMPTY
        };
        hot.add_file(cold.file, sides);
        if cold.field != NONE {
            hot.add_field(cold.field, cold.field_count, sides);
        }
        hot
    }

    /// Counts `n` occurrences in `file` under `field` written as `form`.
    fn count(&mut self, file: u32, field: u32, form: Form, n: u32, sides: &mut Vec<Side>) {
        // Once the total stops at its maximum, so do the forms: the first form's count is
        // the total less the others, and would shrink.
        let before = self.occurrences;
        self.occurrences = self.occurrences.saturating_add(n);
        self.add_file(file, sides);
        if field != NONE {
            self.add_field(field, n, sides);
        }
        if self.occurrences > before {
            self.add_form(form, self.occurrences - before, sides);
        }
    }

    fn add_file(&mut self, file: u32, sides: &mut Vec<Side>) {
        if file < LOW_FILES {
            self.low_files[file as usize / 64] |= 1 << (file % 64);
            return;
        }
        if self.last_side_file == file {
            return;
        }
        self.last_side_file = file;
        let files = &mut self.side(sides).files;
        if let Err(at) = files.binary_search(&file) {
            files.insert(at, file);
        }
    }

    fn add_field(&mut self, field: u32, n: u32, sides: &mut Vec<Side>) {
        if let Ok(narrow) = u16::try_from(field)
            && narrow != NARROW_NONE
        {
            for (name, count) in self.field_names.iter_mut().zip(&mut self.field_counts) {
                if *name == narrow {
                    *count = count.saturating_add(n);
                    return;
                }
                if *name == NARROW_NONE {
                    *name = narrow;
                    *count = n;
                    return;
                }
            }
        }
        let fields = &mut self.side(sides).fields;
        match fields.iter_mut().find(|(f, _)| *f == field) {
            Some((_, count)) => *count = count.saturating_add(n),
            None => fields.push((field, n)),
        }
    }

    fn add_form(&mut self, form: Form, n: u32, sides: &mut Vec<Side>) {
        let tag = form as u8;
        if self.form_tags[0] == tag {
            // The first form's count is implied.
            return;
        }
        for (slot, count) in self.form_tags[1..].iter_mut().zip(&mut self.form_counts) {
            if *slot == tag || *slot == NO_FORM {
                *slot = tag;
                *count = count.saturating_add(n);
                return;
            }
        }
        let count = &mut self.side(sides).forms[form as usize];
        *count = count.saturating_add(n);
    }

    /// The side record, made if there is none yet.
    fn side<'s>(&mut self, sides: &'s mut Vec<Side>) -> &'s mut Side {
        if self.side == 0 {
            sides.push(Side::default());
            self.side = u32::try_from(sides.len()).expect("fewer than 2^32 side records");
        }
        &mut sides[self.side as usize - 1]
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
    shards: Vec<Mutex<Table>>,
    count_undashed: bool,
}

/// One worker's handle on the counts: its batches and its cache of field names.
pub struct Tally<'t> {
    tallies: &'t Tallies,
    names: LocalNames<'t>,
    /// Recent occurrences, combined while they repeat: see [`Tally::add_line`].
    recent: Vec<Pending>,
    /// One batch per shard.
    batches: Vec<Vec<Pending>>,
    /// The IDs seen so far on a line with many occurrences.
    on_line: HashSet<u128, foldhash::fast::FixedState>,
}

/// Up to this many occurrences on a line, [`Tally::add_line`] finds an ID's first one by
/// comparing it with those before it.
const FEW_OCCURRENCES: usize = 16;

/// Slots of [`Tally::recent`]: 256 KiB, which stays in a core's L2 cache. A direct-mapped
/// cache this size takes 40% of the bench corpus's occurrences, 32 times larger 49%.
const RECENT: usize = 4096;

/// Occurrences of one ID in one file under one field name in one written form, waiting to be
/// counted, with what their lines said about them.
#[derive(Clone, Copy)]
struct Pending {
    key: u128,
    hash: u64,
    /// Of the lines counted, `i64::MAX` and `i64::MIN` for none.
    first_ms: i64,
    last_ms: i64,
    file: u32,
    field: u32,
    /// The lines these occurrences are first of their value on.
    lines: u32,
    /// 0 marks an empty slot of [`Tally::recent`].
    occurrences: u32,
    form: Form,
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
            recent: vec![Pending::EMPTY; RECENT],
            batches: (0..SHARDS).map(|_| Vec::with_capacity(BATCH)).collect(),
            on_line: HashSet::default(),
        }
    }

    /// The final counts, once every tally is done: values written only undashed are dropped,
    /// unless every undashed token counts. The tables are listed on up to two threads: with
    /// a million IDs, one thread took about 50 ms.
    pub fn finish(self, threads: usize) -> Inventory {
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
                for at in table.entries() {
                    if !count_undashed && table.get(at).only_undashed() {
                        dropped += 1;
                    } else {
                        order.push(((first + t) as u32, at));
                    }
                }
            }
            (order, dropped)
        };
        let ((mut order, dropped_first), (rest, dropped_rest)) = if threads < 2 {
            (list(0, &tables), (Vec::new(), 0))
        } else {
            let half = tables.len() / 2;
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
            prefetch(&self.recent[recent_slot(hash(id.0))]);
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
        let many = occurrences.len() > FEW_OCCURRENCES;
        if many {
            self.on_line.clear();
        }
        for (i, occ) in occurrences.iter().enumerate() {
            let hash = hash(occ.id.0);
            let new_line = if many {
                self.on_line.insert(occ.id.0)
            } else {
                !occurrences[..i].iter().any(|o| o.id == occ.id)
            };
            let time_ms = time_ms.filter(|_| new_line);
            let pending = Pending {
                key: occ.id.0,
                hash,
                first_ms: time_ms.unwrap_or(i64::MAX),
                last_ms: time_ms.unwrap_or(i64::MIN),
                file,
                field: occ.field.map_or(NONE, |f| f.0),
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

    /// Puts `pending` in its shard's batch, counting the batch when it is full.
    fn push(&mut self, pending: Pending) {
        let shard = pending.hash as usize % SHARDS;
        self.batches[shard].push(pending);
        if self.batches[shard].len() >= BATCH {
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
        for shard in 0..SHARDS {
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

fn hash(key: u128) -> u64 {
    foldhash::fast::FixedState::default().hash_one(key)
}

/// The slot of [`Tally::recent`] for an ID with this hash. The low bits pick the shard and a
/// table's slot comes from the high bits, so this one comes from bits in between.
fn recent_slot(hash: u64) -> usize {
    (hash >> 16) as usize % RECENT
}

/// Entries are allocated in chunks of this many, so that they never move (the table's index
/// holds their numbers, and growing copies nothing but the index).
const CHUNK_BITS: u32 = 12;

/// A growable array of entries that never moves them.
struct Arena<T> {
    chunks: Vec<Box<[T]>>,
    len: u32,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Copy> Arena<T> {
    /// Adds `value` and gives its number.
    fn push(&mut self, value: T) -> u32 {
        let n = self.len;
        if n as usize == self.chunks.len() << CHUNK_BITS {
            // A chunk's cells past `len` are never read; `value` fills them as well as any.
            self.chunks
                .push(vec![value; 1 << CHUNK_BITS].into_boxed_slice());
        }
        // Entry numbers share their u32 with `HOT_BIT` in the index.
        assert!(n < HOT_BIT, "fewer than 2^31 entries per shard");
        self.len = n + 1;
        *self.get_mut(n) = value;
        n
    }

    fn get(&self, n: u32) -> &T {
        &self.chunks[(n >> CHUNK_BITS) as usize][(n & ((1 << CHUNK_BITS) - 1)) as usize]
    }

    fn get_mut(&mut self, n: u32) -> &mut T {
        &mut self.chunks[(n >> CHUNK_BITS) as usize][(n & ((1 << CHUNK_BITS) - 1)) as usize]
    }
}

/// Marks an entry number in [`Table::index`] as one of [`Table::hots`].
const HOT_BIT: u32 = 1 << 31;

/// A hash table from ID to entry, ours rather than std's so that a batch can prefetch what an
/// occurrence will touch, in two steps. The index is an open-addressing table (linear
/// probing, at most 5/8 full) of 8-byte slots: the upper half of the ID's hash, and 1 + its
/// entry's number (with [`HOT_BIT`] for a hot entry); 0 is empty. At 8 bytes an ID, the
/// index mostly stays in the caches, so the miss that counts is the entry's, and that one
/// can be prefetched as soon as the index slot is in: keeping the entries beside the keys
/// in the table's own slots instead cost more in page faults and copying as the table grew
/// (the slots being 8-16 times larger) than the second step costs.
#[derive(Default)]
struct Table {
    index: Vec<u64>,
    /// IDs in the index.
    len: usize,
    colds: Arena<Cold>,
    /// Cold entries left by promotions, for new IDs.
    free_colds: Vec<u32>,
    hots: Arena<Hot>,
    sides: Vec<Side>,
}

impl Table {
    const MIN_SLOTS: usize = 1024;

    /// The slot an ID whose hash has this upper half starts probing at. The upper half is
    /// all the index keeps, so growing needs nothing else.
    fn home(index: &[u64], upper: u32) -> usize {
        (upper as u64 >> (32 - index.len().trailing_zeros())) as usize
    }

    /// The cache line of the slot `hash` starts probing at.
    fn prefetch_slot(&self, hash: u64) {
        if !self.index.is_empty() {
            prefetch(&self.index[Self::home(&self.index, (hash >> 32) as u32)]);
        }
    }

    /// The cache lines of the entry whose hash is `hash`, if its slot is found (which
    /// [`Table::prefetch_slot`] has made likely to be in cache by now).
    fn prefetch_entry(&self, hash: u64) {
        if self.index.is_empty() {
            return;
        }
        let upper = (hash >> 32) as u32;
        let mask = self.index.len() - 1;
        let mut i = Self::home(&self.index, upper);
        while self.index[i] != 0 {
            if (self.index[i] >> 32) as u32 == upper {
                self.prefetch_entry_at(self.index[i] as u32 - 1);
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// The cache lines of entry `entry`.
    fn prefetch_entry_at(&self, entry: u32) {
        if entry & HOT_BIT == 0 {
            prefetch(self.colds.get(entry));
        } else {
            let hot: *const Hot = self.hots.get(entry & !HOT_BIT);
            prefetch(hot);
            prefetch(hot.cast::<u8>().wrapping_add(64));
        }
    }

    /// Grows the index, if need be, so that `more` new IDs fit.
    fn reserve(&mut self, more: usize) {
        while (self.len + more) * 8 > self.index.len() * 5 {
            let new_len = (self.index.len() * 2).max(Self::MIN_SLOTS);
            // Zeroed by writing, not taken zeroed from the allocator: fresh pages from the
            // system are first read by the probes, which maps the shared zero page, and the
            // first insert then faults again to copy it, flushing the TLB of every thread
            // (3% of a two-thread run, most of it in the interrupts that flush takes). The
            // black box keeps the compiler from folding the fresh allocation and the zeroing
            // back into one allocate-zeroed call.
            let mut index = std::hint::black_box(Vec::with_capacity(new_len));
            index.resize(new_len, 0);
            let old = std::mem::replace(&mut self.index, index);
            let mask = new_len - 1;
            for slot in old.into_iter().filter(|&s| s != 0) {
                let mut i = Self::home(&self.index, (slot >> 32) as u32);
                while self.index[i] != 0 {
                    i = (i + 1) & mask;
                }
                self.index[i] = slot;
            }
        }
    }

    /// The key of entry `entry` (an index slot's lower half, less one).
    fn key_of(&self, entry: u32) -> u128 {
        if entry & HOT_BIT == 0 {
            self.colds.get(entry).key
        } else {
            self.hots.get(entry & !HOT_BIT).key
        }
    }

    /// Counts one occurrence; the caller has reserved room for a new ID.
    fn count(&mut self, p: &Pending) {
        let upper = (p.hash >> 32) as u32;
        let mask = self.index.len() - 1;
        let mut i = Self::home(&self.index, upper);
        let entry = loop {
            let slot = self.index[i];
            if slot == 0 {
                let cold = Cold {
                    key: p.key,
                    file: p.file,
                    form: p.form as u8,
                    ..Cold::EMPTY
                };
                let entry = match self.free_colds.pop() {
                    Some(free) => {
                        *self.colds.get_mut(free) = cold;
                        free
                    }
                    None => self.colds.push(cold),
                };
                self.index[i] = (upper as u64) << 32 | (entry as u64 + 1);
                self.len += 1;
                break entry;
            }
            let entry = slot as u32 - 1;
            if (slot >> 32) as u32 == upper && self.key_of(entry) == p.key {
                break entry;
            }
            i = (i + 1) & mask;
        };
        let hot = if entry & HOT_BIT == 0 {
            let cold = self.colds.get_mut(entry);
            if cold.fits(p.file, p.field, p.form) {
                p.note_lines(&mut cold.lines, &mut cold.first_ms, &mut cold.last_ms);
                cold.count(p.field, p.occurrences);
                return;
            }
            let hot = Hot::from_cold(cold, &mut self.sides);
            // Marks the cell free for `entries`; a live entry counts at least one occurrence.
            cold.occurrences = 0;
            self.free_colds.push(entry);
            let hot = self.hots.push(hot);
            self.index[i] = (upper as u64) << 32 | ((hot | HOT_BIT) as u64 + 1);
            hot
        } else {
            entry & !HOT_BIT
        };
        let Table { hots, sides, .. } = self;
        let hot = hots.get_mut(hot);
        p.note_lines(&mut hot.lines, &mut hot.first_ms, &mut hot.last_ms);
        hot.count(p.file, p.field, p.form, p.occurrences, sides);
    }

    /// Every entry's number, as [`Table::get`] takes it, in the order they lie in memory:
    /// walking them this way reads the arenas from end to end instead of at random.
    fn entries(&self) -> impl Iterator<Item = u32> + '_ {
        let colds = (0..self.colds.len).filter(|&n| self.colds.get(n).occurrences > 0);
        colds.chain((0..self.hots.len).map(|n| n | HOT_BIT))
    }

    fn get(&self, entry: u32) -> EntryRef<'_> {
        if entry & HOT_BIT == 0 {
            return EntryRef::Cold(self.colds.get(entry));
        }
        let hot = self.hots.get(entry & !HOT_BIT);
        let side = (hot.side != 0).then(|| &self.sides[hot.side as usize - 1]);
        EntryRef::Hot(hot, side)
    }
}

/// Asks the CPU to start loading the cache line at `target`.
fn prefetch<T>(target: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint with no effect on memory, valid for any address; SSE is
    // baseline on x86_64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(target.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = target;
}

/// An entry, as the views read it.
#[derive(Clone, Copy)]
enum EntryRef<'a> {
    Cold(&'a Cold),
    Hot(&'a Hot, Option<&'a Side>),
}

impl Pending {
    const EMPTY: Pending = Pending {
        key: 0,
        hash: 0,
        first_ms: i64::MAX,
        last_ms: i64::MIN,
        file: NONE,
        field: NONE,
        lines: 0,
        occurrences: 0,
        form: Form::UlidLower,
    };

    /// Whether `other` goes with these occurrences: the same ID, file, field and form.
    fn counts_with(&self, other: &Pending) -> bool {
        self.key == other.key
            && self.file == other.file
            && self.field == other.field
            && self.form == other.form
    }

    /// Adds the lines these occurrences are first of their value on, and their times.
    fn note_lines(&self, lines: &mut u32, first_ms: &mut i64, last_ms: &mut i64) {
        *lines = lines.saturating_add(self.lines);
        *first_ms = (*first_ms).min(self.first_ms);
        *last_ms = (*last_ms).max(self.last_ms);
    }
}

impl EntryRef<'_> {
    fn key(&self) -> u128 {
        match self {
            EntryRef::Cold(c) => c.key,
            EntryRef::Hot(h, _) => h.key,
        }
    }

    /// (lines, occurrences, first_ms, last_ms).
    fn counts(&self) -> (u32, u32, i64, i64) {
        match self {
            EntryRef::Cold(c) => (c.lines, c.occurrences, c.first_ms, c.last_ms),
            EntryRef::Hot(h, _) => (h.lines, h.occurrences, h.first_ms, h.last_ms),
        }
    }

    /// Occurrences per form, in [`Form::ALL`] order.
    fn form_counts(&self) -> [u32; Form::ALL.len()] {
        let mut counts = [0; Form::ALL.len()];
        match self {
            EntryRef::Cold(c) => counts[c.form as usize] = c.occurrences,
            EntryRef::Hot(h, side) => {
                if let Some(side) = side {
                    counts = side.forms;
                }
                for (&tag, &count) in h.form_tags[1..].iter().zip(&h.form_counts) {
                    if tag != NO_FORM {
                        counts[tag as usize] = count;
                    }
                }
                let others: u64 = counts.iter().map(|&c| c as u64).sum();
                counts[h.form_tags[0] as usize] =
                    (h.occurrences as u64).saturating_sub(others) as u32;
            }
        }
        counts
    }

    /// Written only as 32 hex digits (see the module doc).
    fn only_undashed(&self) -> bool {
        let undashed = Form::UuidUndashed as u8;
        match self {
            EntryRef::Cold(c) => c.form == undashed,
            // Forms go to the side record only once the inline tags are taken.
            EntryRef::Hot(h, _) => h.form_tags == [undashed, NO_FORM, NO_FORM],
        }
    }
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
    pub id: Id,
    entry: EntryRef<'a>,
    inventory: &'a Inventory,
}

impl<'a> Summary<'a> {
    /// How the ID is mostly written: as a ULID or as a UUID (ties go to ULID).
    pub fn kind(&self) -> Kind {
        if let EntryRef::Cold(c) = self.entry {
            return Form::ALL[c.form as usize].kind();
        }
        let (mut ulid, mut uuid) = (0u64, 0u64);
        for (form, count) in Form::ALL.iter().zip(self.entry.form_counts()) {
            match form.kind() {
                Kind::Ulid => ulid += count as u64,
                Kind::Uuid => uuid += count as u64,
            }
        }
        if ulid >= uuid { Kind::Ulid } else { Kind::Uuid }
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
        match self.entry {
            EntryRef::Cold(c) => vec![c.file],
            EntryRef::Hot(h, side) => {
                // The set bits only, lowest first, rather than a test of every possible file.
                let mut files = Vec::new();
                for (w, &word) in h.low_files.iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        files.push(w as u32 * 64 + bits.trailing_zeros());
                        bits &= bits - 1;
                    }
                }
                files.extend(side.iter().flat_map(|s| s.files.iter().copied()));
                files
            }
        }
    }

    /// Field names with their occurrence counts, most frequent first, then by name.
    pub fn fields(&self) -> Vec<(&'a [u8], u32)> {
        let names = &self.inventory.field_names;
        let name = |(f, n): (u32, u32)| (&*names[f as usize], n);
        let mut fields = Vec::with_capacity(HOT_FIELDS);
        match self.entry {
            EntryRef::Cold(c) if c.field != NONE => fields.push(name((c.field, c.field_count))),
            EntryRef::Cold(_) => {}
            EntryRef::Hot(h, side) => {
                fields.extend(
                    h.field_names
                        .iter()
                        .zip(h.field_counts)
                        .take_while(|(name, _)| **name != NARROW_NONE)
                        .map(|(&f, n)| name((f as u32, n))),
                );
                fields.extend(side.iter().flat_map(|s| &s.fields).map(|&f| name(f)));
            }
        }
        fields.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        fields
    }

    /// Written forms with their occurrence counts, in [`Form::ALL`] order.
    pub fn forms(&self) -> Vec<(Form, u32)> {
        Form::ALL
            .iter()
            .zip(self.entry.form_counts())
            .filter(|(_, n)| *n > 0)
            .map(|(f, n)| (*f, n))
            .collect()
    }

    /// The earliest and latest time of the lines that carry a time.
    pub fn first_ms(&self) -> Option<i64> {
        let first = self.entry.counts().2;
        (first != i64::MAX).then_some(first)
    }

    pub fn last_ms(&self) -> Option<i64> {
        let last = self.entry.counts().3;
        (last != i64::MIN).then_some(last)
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

    /// Sorts the entries by `key` (ties by ID, ascending) and keeps the first `top`.
    pub fn sort_by<K: Ord + Send>(
        &mut self,
        key: impl Fn(Summary) -> K + Sync,
        top: Option<usize>,
        threads: usize,
    ) {
        type Keyed<K> = (K, u128, (u32, u32));
        let order = |a: &Keyed<K>, b: &Keyed<K>| a.0.cmp(&b.0).then(a.1.cmp(&b.1));
        // One part's keys, sorted, with only its first `top` kept.
        let sorted = |part: &[(u32, u32)]| {
            let mut keyed: Vec<Keyed<K>> = part
                .iter()
                .map(|&at| {
                    let s = self.summary(at);
                    (key(s), s.id.0, at)
                })
                .collect();
            if let Some(top) = top.filter(|&t| t < keyed.len()) {
                if top > 0 {
                    keyed.select_nth_unstable_by(top - 1, order);
                }
                keyed.truncate(top);
            }
            keyed.sort_unstable_by(order);
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
                (Some(x), Some(y)) if order(x, y).is_le() => a.next(),
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
        // More names and forms than an entry holds itself, and file numbers on both sides of
        // the ones kept as bits.
        let fields: [Option<&'static [u8]>; 9] = [
            None,
            Some(b"order_id"),
            Some(b"ctx.order"),
            Some(b"id"),
            Some(b"a"),
            Some(b"b"),
            Some(b"c"),
            Some(b"d"),
            Some(b"e"),
        ];
        (0..n)
            .map(|_| {
                let file = (next() % 4) as u32 * 150;
                let time = (next() % 3 != 0).then(|| (next() % 1000) as i64);
                // Now and then a line of many occurrences, with repeats, past the count that
                // `add_line` compares one by one.
                let (count, distinct) = if next() % 40 == 0 {
                    (FEW_OCCURRENCES as u64 + 1 + next() % 40, 1 + next() % 12)
                } else {
                    (1 + next() % 4, values)
                };
                let first = next() % values;
                let hits = (0..count)
                    .map(|_| {
                        // Spread over the whole key space, as IDs are.
                        let value = (((first + next() % distinct) % values) as u128)
                            .wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835);
                        let form = Form::ALL[(next() % Form::ALL.len() as u64) as usize];
                        (value, form, fields[(next() % fields.len() as u64) as usize])
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

                let distinct: BTreeSet<u128> =
                    lines.iter().flat_map(|l| l.2.iter().map(|h| h.0)).collect();
                let dropped = (distinct.len() - want.len()) as u64;
                // Every entry once: a cell left by a promotion is not listed again.
                let check = |inventory: Inventory, how: &str| {
                    assert_eq!(inventory.len(), want.len(), "seed {seed}: {how}");
                    assert_eq!(inventory.dropped_undashed, dropped, "seed {seed}: {how}");
                    assert_eq!(plain(&inventory), want, "seed {seed}: {how}");
                };

                let one = Tallies::new(all_undashed);
                count(&one, &lines);
                check(one.finish(1), "one tally");

                // Two threads at once, on uneven shares, through the shard locks.
                let two = Tallies::new(all_undashed);
                let (a, b) = lines.split_at(lines.len() / 3);
                std::thread::scope(|scope| {
                    scope.spawn(|| count(&two, a));
                    scope.spawn(|| count(&two, b));
                });
                check(two.finish(2), "two tallies");
            }
        }
    }

    #[test]
    fn field_names_numbered_past_a_u16_are_counted_in_the_side_record() {
        let tallies = Tallies::new(false);
        let mut t = tallies.tally();
        let names: Vec<FieldId> = (0..70_000)
            .map(|i| t.field(format!("f{i}").as_bytes()))
            .collect();
        let occ = |field: usize| Occurrence {
            id: Id(42),
            form: Form::UlidLower,
            field: Some(names[field]),
        };
        // The first, wide, name is the cold entry's, then moves with the promotion.
        for (file, field) in [(0, 69_999), (1, 65_535), (1, 65_534), (2, 69_999), (2, 7)] {
            t.add_line(file, None, &[occ(field)]);
        }
        t.done();
        let inv = tallies.finish(2);
        let fields: BTreeMap<Vec<u8>, u32> = inv
            .get(0)
            .fields()
            .into_iter()
            .map(|(name, n)| (name.to_vec(), n))
            .collect();
        let want: BTreeMap<Vec<u8>, u32> = [("f69999", 2), ("f65535", 1), ("f65534", 1), ("f7", 1)]
            .into_iter()
            .map(|(name, n)| (name.as_bytes().to_vec(), n))
            .collect();
        assert_eq!(fields, want);
    }

    #[test]
    fn local_names_give_each_name_its_shared_index() {
        let shared = FieldNames::default();
        let mut a = LocalNames::new(&shared);
        let mut b = LocalNames::new(&shared);
        // Short names that collide in the recent array, long ones past it, and the empty one.
        let names: Vec<Vec<u8>> = (0..300)
            .map(|i: usize| {
                let len = [0, 1, 2, 5, 23, 24, 40][i % 7];
                (0..len)
                    .map(|k| b'a' + ((i * 7 + k * 3) % 26) as u8)
                    .collect()
            })
            .collect();
        let mut state = 7u64;
        for _ in 0..5_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let name = &names[(state >> 33) as usize % names.len()];
            let (i, j) = (a.index(name), b.index(name));
            assert_eq!(i, j);
            assert_eq!(&*shared.snapshot()[i as usize], &name[..]);
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
        let inv = tallies.finish(1);
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
    fn a_sort_on_two_threads_matches_one_on_one() {
        let build = |threads: usize| {
            let tallies = Tallies::new(false);
            let mut t = tallies.tally();
            let mut state = 3u64;
            for v in 0..(PARALLEL_SORT_MIN as u128 * 2) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                let occ = Occurrence {
                    id: Id(v.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)),
                    form: Form::UlidLower,
                    field: None,
                };
                // Few distinct line counts: many ties, broken by ID.
                for _ in 0..1 + (state >> 60) {
                    t.add_line(0, None, &[occ]);
                }
            }
            t.done();
            tallies.finish(threads)
        };
        let ids = |inv: &Inventory| inv.summaries().map(|s| (s.lines(), s.id.0)).collect();
        let mut one = build(1);
        let before: Vec<(u32, u128)> = ids(&one);
        // Listed on two threads: the same entries in the same order.
        assert_eq!(ids(&build(2)), before);
        one.sort_by(|s| std::cmp::Reverse(s.lines()), None, 1);
        let want: Vec<(u32, u128)> = ids(&one);
        let mut expected = before;
        expected.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        assert_eq!(want, expected);
        // From ID order, so that the halves hold other IDs than before.
        one.sort_by(|_| (), None, 1);
        one.sort_by(|s| std::cmp::Reverse(s.lines()), None, 2);
        assert_eq!(ids(&one), want);
        // The first `top` of the whole, whichever half they were in, with ties by ID.
        let len = want.len();
        for top in [0, 1, 1000, PARALLEL_SORT_MIN + 5, len - 1, len, len + 1] {
            let mut two = build(2);
            two.sort_by(|_| (), None, 1);
            two.sort_by(|s| std::cmp::Reverse(s.lines()), Some(top), 2);
            assert_eq!(ids(&two), want[..top.min(len)], "top {top}");
        }
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
        let mut inv = tallies.finish(2);
        inv.sort_by(|s| std::cmp::Reverse(s.lines()), Some(4), 1);
        let got: Vec<(u128, u32)> = inv.summaries().map(|s| (s.id.0, s.lines())).collect();
        assert_eq!(got, vec![(3, 4), (7, 4), (2, 3), (6, 3)]);
    }
}
