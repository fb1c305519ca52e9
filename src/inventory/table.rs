//! The hash table of one shard of the counts: ID -> [`Cold`] or [`Hot`] entry, built so that a
//! batch of occurrences can prefetch what each will touch.

use super::Space;
use super::entry::{Cold, EntryRef, Hot, NONE, Side};
use crate::id::Form;

/// Occurrences of one ID in one file under one field name in one written form, waiting to be
/// counted, with what their lines said about them.
#[derive(Clone, Copy)]
pub(super) struct Pending {
    pub(super) key: u128,
    pub(super) hash: u64,
    /// Of the lines counted, `i64::MAX` and `i64::MIN` for none.
    pub(super) first_ms: i64,
    pub(super) last_ms: i64,
    pub(super) file: u32,
    pub(super) field: u32,
    pub(super) space: Space,
    /// The lines these occurrences are first of their value on.
    pub(super) lines: u32,
    /// 0 marks an empty slot of `Tally::recent`.
    pub(super) occurrences: u32,
    pub(super) form: Form,
}

impl Pending {
    pub(super) const EMPTY: Pending = Pending {
        key: 0,
        hash: 0,
        first_ms: i64::MAX,
        last_ms: i64::MIN,
        file: NONE,
        field: NONE,
        space: Space::Wide,
        lines: 0,
        occurrences: 0,
        form: Form::UlidLower,
    };

    /// Whether `other` goes with these occurrences: the same ID, file, field and form.
    pub(super) fn counts_with(&self, other: &Pending) -> bool {
        self.key == other.key
            && self.space == other.space
            && self.file == other.file
            && self.field == other.field
            && self.form == other.form
    }

    /// Adds the lines these occurrences are first of their value on, and their times.
    pub(super) fn note_lines(&self, lines: &mut u32, first_ms: &mut i64, last_ms: &mut i64) {
        *lines = lines.saturating_add(self.lines);
        *first_ms = (*first_ms).min(self.first_ms);
        *last_ms = (*last_ms).max(self.last_ms);
    }
}

/// Entries are allocated in chunks of this many, so that they never move (the table's index
/// holds their numbers, and growing copies nothing but the index).
const CHUNK_BITS: u32 = 12;

/// Entries per chunk.
const CHUNK_LEN: usize = 1 << CHUNK_BITS;

/// A growable array of entries that never moves them. Chunks of a fixed length, rather than
/// slices, let an entry's place in its chunk go unchecked: an entry is read once per
/// occurrence counted and three times per row listed.
struct Arena<T> {
    chunks: Vec<Box<[T; CHUNK_LEN]>>,
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
            let chunk = vec![value; CHUNK_LEN].into_boxed_slice().try_into().ok();
            self.chunks.push(chunk.expect("a chunk of CHUNK_LEN"));
        }
        // Entry numbers share their u32 with `HOT_BIT` in the index.
        assert!(n < HOT_BIT, "fewer than 2^31 entries per shard");
        self.len = n + 1;
        *self.get_mut(n) = value;
        n
    }

    pub(super) fn get(&self, n: u32) -> &T {
        &self.chunks[(n >> CHUNK_BITS) as usize][n as usize % CHUNK_LEN]
    }

    fn get_mut(&mut self, n: u32) -> &mut T {
        &mut self.chunks[(n >> CHUNK_BITS) as usize][n as usize % CHUNK_LEN]
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
pub(super) struct Table {
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
    pub(super) fn prefetch_slot(&self, hash: u64) {
        if !self.index.is_empty() {
            prefetch(&self.index[Self::home(&self.index, (hash >> 32) as u32)]);
        }
    }

    /// The cache lines of the entry whose hash is `hash`, if its slot is found (which
    /// [`Table::prefetch_slot`] has made likely to be in cache by now).
    pub(super) fn prefetch_entry(&self, hash: u64) {
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
    pub(super) fn prefetch_entry_at(&self, entry: u32) {
        if entry & HOT_BIT == 0 {
            prefetch(self.colds.get(entry));
        } else {
            let hot: *const Hot = self.hots.get(entry & !HOT_BIT);
            prefetch(hot);
            prefetch(hot.cast::<u8>().wrapping_add(64));
        }
    }

    /// Grows the index, if need be, so that `more` new IDs fit.
    pub(super) fn reserve(&mut self, more: usize) {
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
    pub(super) fn count(&mut self, p: &Pending) {
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

    /// How many IDs the table holds.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Every entry's number, as [`Table::get`] takes it, in the order they lie in memory:
    /// walking them this way reads the arenas from end to end instead of at random.
    pub(super) fn entries(&self) -> impl Iterator<Item = u32> + '_ {
        let colds = (0..self.colds.len).filter(|&n| self.colds.get(n).occurrences > 0);
        colds.chain((0..self.hots.len).map(|n| n | HOT_BIT))
    }

    pub(super) fn get(&self, entry: u32) -> EntryRef<'_> {
        if entry & HOT_BIT == 0 {
            return EntryRef::Cold(self.colds.get(entry));
        }
        let hot = self.hots.get(entry & !HOT_BIT);
        let side = (hot.side != 0).then(|| &self.sides[hot.side as usize - 1]);
        EntryRef::Hot(hot, side)
    }
}

/// Asks the CPU to start loading the cache line at `target`.
pub(super) fn prefetch<T>(target: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint with no effect on memory, valid for any address; SSE is
    // baseline on x86_64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(target.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = target;
}
