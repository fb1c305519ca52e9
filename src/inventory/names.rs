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
