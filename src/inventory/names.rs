//! Field names, each stored once and numbered the same for every thread: [`FieldNames`]
//! holds them behind a lock, and each thread reaches it through [`LocalNames`], which keeps
//! the names it has seen so that the lock is rarely taken. The inventory and `audit` share
//! them.

use std::collections::HashMap;
use std::sync::Mutex;

/// Field names, shared by all scan threads, each stored once; a field is its index here.
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
    /// The index of `name`, the same in every thread.
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

    /// The index of `name`, the same in every thread. Inline, the lookup among the recent
    /// names and out of line the rest: a dozen million tokens ask, nearly all found there,
    /// and the whole function's register saves were a third of its instructions.
    #[inline]
    pub fn index(&mut self, name: &[u8]) -> u32 {
        let short = !name.is_empty() && name.len() <= RECENT_NAME_LEN;
        // Length and the two ends tell a log's few names apart well enough for a hint.
        let at = short.then(|| {
            (name.len() + name[0] as usize * 7 + name[name.len() - 1] as usize * 31) % RECENT_NAMES
        });
        if let Some(at) = at {
            let recent = &self.recent[at];
            if recent.len as usize == name.len() && same_short(name, &recent.bytes) {
                return recent.index;
            }
        }
        self.index_not_recent(name, at)
    }

    /// [`LocalNames::index`] of a name not among the recent ones, which then is, at `at`
    /// when it is short enough.
    #[inline(never)]
    fn index_not_recent(&mut self, name: &[u8], at: Option<usize>) -> u32 {
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

/// Whether `name` (1 to [`RECENT_NAME_LEN`] bytes) is the start of `stored`, compared a word
/// at a time in overlapping windows: a slice comparison called `memcmp`, whose call cost
/// more than comparing a field name takes.
#[inline(always)]
fn same_short(name: &[u8], stored: &[u8; RECENT_NAME_LEN]) -> bool {
    let n = name.len();
    debug_assert!((1..=RECENT_NAME_LEN).contains(&n));
    if n >= 8 {
        let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8"));
        // Windows at 0, 8 (or less) and n - 8 cover up to 24 bytes.
        let mid = 8.min(n - 8);
        word(name, 0) == word(stored, 0)
            && word(name, mid) == word(stored, mid)
            && word(name, n - 8) == word(stored, n - 8)
    } else if n >= 4 {
        let word = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().expect("4"));
        word(name, 0) == word(stored, 0) && word(name, n - 4) == word(stored, n - 4)
    } else {
        name.iter().zip(stored).all(|(a, b)| a == b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name differing from the stored one in any single byte, at any length, is told apart,
    /// and an equal one is found: the windows cover every byte.
    #[test]
    fn short_names_compare_every_byte() {
        let mut stored = [0u8; RECENT_NAME_LEN];
        for (i, b) in stored.iter_mut().enumerate() {
            *b = b'a' + i as u8;
        }
        for n in 1..=RECENT_NAME_LEN {
            let name = stored[..n].to_vec();
            assert!(same_short(&name, &stored), "{n}");
            for at in 0..n {
                let mut other = name.clone();
                other[at] = b'_';
                assert!(!same_short(&other, &stored), "{n} {at}");
            }
        }
    }

    /// Names that share their length and ends, and so a recent slot, keep their own indexes.
    #[test]
    fn names_sharing_a_slot_keep_their_indexes() {
        let shared = FieldNames::default();
        let mut names = LocalNames::new(&shared);
        let (a, b) = (b"order_x_id".as_slice(), b"order_y_id".as_slice());
        let (ia, ib) = (names.index(a), names.index(b));
        assert_ne!(ia, ib);
        for _ in 0..3 {
            assert_eq!(names.index(a), ia);
            assert_eq!(names.index(b), ib);
        }
    }
}
