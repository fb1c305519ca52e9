//! The per-value records of the audit (per ID, per upper-case ULID, per undashed value), kept
//! by one scan thread in many small hash maps, its shards, chosen by the value's hash.
//!
//! With millions of distinct IDs one map per kind of record is far larger than the caches,
//! and each occurrence looked up in it at random cost cache and TLB misses, one after the
//! other: two thirds of an audit of 3 million distinct IDs. Here a sighting waits in its
//! shard's batch, and a full batch is applied at once, so its lookups stay in one small map
//! (a few pages, whose misses overlap). The threads' maps were merged into one at the end,
//! on one thread; shards are merged shard by shard, on as many threads as scanned.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::{BuildHasher, Hash};

use foldhash::fast::FixedState;

/// Shards per map: with 3 million IDs, each holds about 12,000, some hundreds of KiB.
const SHARDS: usize = 256;

/// Sightings waiting per shard before they are applied.
const BATCH: usize = 256;

/// A record kept per key, built from its sightings. `add` and `merge` must give the same
/// record in any order, but for which of two equal locations is kept (the first applied):
/// the batches keep each key's sightings in the order they were seen.
pub(super) trait Record: Sized + Send {
    /// The value, and anything else that tells records apart (an undashed value's field).
    type Key: Copy + Eq + Hash + Send;
    /// What one occurrence tells about the key.
    type Sighting: Copy + Send;

    /// The ID value of a key, which picks its shard: the records of one value, in maps of
    /// different kinds, are in shards of the same number. Walking one map shard by shard
    /// and looking each value up in another then reads one small map of each at a time.
    fn value(key: &Self::Key) -> u128;
    fn new(key: &Self::Key, sighting: &Self::Sighting) -> Self;
    fn add(&mut self, key: &Self::Key, sighting: &Self::Sighting);
    /// Adds another thread's record of the same key.
    fn merge(&mut self, other: Self);
}

type Map<R> = HashMap<<R as Record>::Key, R, FixedState>;
type Batch<R> = Vec<(<R as Record>::Key, <R as Record>::Sighting)>;

/// One thread's records of one kind, by key.
pub(super) struct Shards<R: Record> {
    maps: Vec<Map<R>>,
    /// Sightings not yet applied, per shard, in the order they were seen.
    batches: Vec<Batch<R>>,
}

impl<R: Record> Default for Shards<R> {
    fn default() -> Self {
        Shards {
            maps: (0..SHARDS).map(|_| Map::default()).collect(),
            batches: (0..SHARDS).map(|_| Vec::new()).collect(),
        }
    }
}

/// The shard of a value. A map places a key by the low bits of its hash and tags it with the
/// top seven, and an ID's key hashes like its value, so the shard comes from bits in between.
fn shard_of(value: u128) -> usize {
    (FixedState::default().hash_one(value) >> 32) as usize % SHARDS
}

fn apply<R: Record>(map: &mut Map<R>, batch: &mut Batch<R>) {
    for (key, sighting) in batch.drain(..) {
        match map.entry(key) {
            Entry::Occupied(mut e) => e.get_mut().add(&key, &sighting),
            Entry::Vacant(e) => {
                e.insert(R::new(&key, &sighting));
            }
        }
    }
}

impl<R: Record> Shards<R> {
    /// Records a sighting of `key`; it is applied with its shard's batch.
    pub(super) fn add(&mut self, key: R::Key, sighting: R::Sighting) {
        let shard = shard_of(R::value(&key));
        let batch = &mut self.batches[shard];
        if batch.capacity() == 0 {
            batch.reserve_exact(BATCH);
        }
        batch.push((key, sighting));
        if batch.len() >= BATCH {
            apply(&mut self.maps[shard], batch);
        }
    }

    /// The records of every thread in one, on up to `threads` threads: each applies the
    /// waiting sightings of its shards, then merges them into the largest map of each.
    pub(super) fn merge_all(all: Vec<Shards<R>>, threads: usize) -> Shards<R> {
        // Per shard, every thread's map and batch.
        let mut per_shard: Vec<Vec<(Map<R>, Batch<R>)>> =
            (0..SHARDS).map(|_| Vec::with_capacity(all.len())).collect();
        for shards in all {
            for (i, part) in shards.maps.into_iter().zip(shards.batches).enumerate() {
                per_shard[i].push(part);
            }
        }
        let merge_shard = |parts: Vec<(Map<R>, Batch<R>)>| {
            let mut maps: Vec<Map<R>> = parts
                .into_iter()
                .map(|(mut map, mut batch)| {
                    apply(&mut map, &mut batch);
                    map
                })
                .collect();
            let largest = (0..maps.len())
                .max_by_key(|&i| maps[i].len())
                .expect("at least one scan thread");
            let mut merged = maps.swap_remove(largest);
            for map in maps {
                for (key, record) in map {
                    match merged.entry(key) {
                        Entry::Occupied(mut e) => e.get_mut().merge(record),
                        Entry::Vacant(e) => {
                            e.insert(record);
                        }
                    }
                }
            }
            merged
        };
        let per_thread = SHARDS.div_ceil(threads.max(1));
        let mut groups: Vec<Vec<_>> = Vec::new();
        let mut shards = per_shard.into_iter().peekable();
        while shards.peek().is_some() {
            groups.push(shards.by_ref().take(per_thread).collect());
        }
        let maps: Vec<Map<R>> = std::thread::scope(|scope| {
            let handles: Vec<_> = groups
                .into_iter()
                .map(|group| scope.spawn(|| group.into_iter().map(merge_shard).collect::<Vec<_>>()))
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("a merge thread panicked"))
                .collect()
        });
        Shards {
            maps,
            batches: (0..SHARDS).map(|_| Vec::new()).collect(),
        }
    }

    fn assert_merged(&self) {
        debug_assert!(
            self.batches.iter().all(Vec::is_empty),
            "records read before Shards::merge_all applied every sighting"
        );
    }

    /// Distinct keys. Like every read, only after [`Shards::merge_all`].
    pub(super) fn len(&self) -> usize {
        self.assert_merged();
        self.maps.iter().map(HashMap::len).sum()
    }

    pub(super) fn get(&self, key: &R::Key) -> Option<&R> {
        self.assert_merged();
        self.maps[shard_of(R::value(key))].get(key)
    }

    pub(super) fn get_mut(&mut self, key: &R::Key) -> Option<&mut R> {
        self.assert_merged();
        self.maps[shard_of(R::value(key))].get_mut(key)
    }

    /// Shard by shard (module doc).
    pub(super) fn iter(&self) -> impl Iterator<Item = (&R::Key, &R)> {
        self.assert_merged();
        self.maps.iter().flatten()
    }

    /// Shard by shard (module doc).
    pub(super) fn into_records(self) -> impl Iterator<Item = (R::Key, R)> {
        self.assert_merged();
        self.maps.into_iter().flatten()
    }
}
