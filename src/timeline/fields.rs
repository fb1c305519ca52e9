//! Each listed ID's field: the name that holds it on most of its lines, of ties the first by
//! name. Two hops count hundreds of thousands of named tokens for tens of thousands of IDs,
//! nearly every ID under one name: a map per ID cost a cache miss at each token (a fifth of
//! ordering the timeline), so each ID keeps its first name and count in one small array, and
//! only a second name goes to a shared map.

use std::sync::Arc;

use super::scan::FastMap;

/// No name yet.
const NONE: u32 = u32::MAX;

/// Counts of the names that hold each ID, the IDs numbered `0..len`.
pub(super) struct FieldCounts {
    /// Per ID: the number of the first name counted for it, and its count.
    first: Vec<(u32, u64)>,
    /// The counts of the other names, by ID and name number.
    others: FastMap<(u32, u32), u64>,
    /// The names by number, and the number of each.
    names: Vec<Arc<str>>,
    numbers: FastMap<Arc<str>, u32>,
    /// The number of each copy of a name counted, by the copy's address: a line's names are
    /// shared copies, and hashing the address spares hashing the text at every token. The
    /// copies are held, so no address is reused by another name.
    by_copy: FastMap<usize, u32>,
    copies: Vec<Arc<str>>,
}

impl FieldCounts {
    pub(super) fn new(len: usize) -> FieldCounts {
        FieldCounts {
            first: vec![(NONE, 0); len],
            others: FastMap::default(),
            names: Vec::new(),
            numbers: FastMap::default(),
            by_copy: FastMap::default(),
            copies: Vec::new(),
        }
    }

    /// Counts a line on which `name` holds the ID numbered `id`.
    pub(super) fn add(&mut self, id: usize, name: &Arc<str>) {
        let copy = Arc::as_ptr(name).cast::<u8>() as usize;
        let number = match self.by_copy.get(&copy) {
            Some(&n) => n,
            None => {
                let n = self.number_of(name);
                self.by_copy.insert(copy, n);
                self.copies.push(Arc::clone(name));
                n
            }
        };
        self.add_lines(id, number, 1);
    }

    /// Adds the counts of `other`, over other lines.
    pub(super) fn merge(&mut self, other: FieldCounts) {
        let numbers: Vec<u32> = other.names.iter().map(|n| self.number_of(n)).collect();
        for (id, (number, count)) in other.first.into_iter().enumerate() {
            if number != NONE {
                self.add_lines(id, numbers[number as usize], count);
            }
        }
        for ((id, number), count) in other.others {
            self.add_lines(id as usize, numbers[number as usize], count);
        }
    }

    /// The number of `name`, given it on first sight.
    fn number_of(&mut self, name: &Arc<str>) -> u32 {
        match self.numbers.get(&**name) {
            Some(&n) => n,
            None => {
                let n = u32::try_from(self.names.len()).unwrap_or(NONE - 1);
                self.names.push(Arc::clone(name));
                self.numbers.insert(Arc::clone(name), n);
                n
            }
        }
    }

    /// Counts `lines` lines on which the name numbered `number` holds the ID numbered `id`.
    fn add_lines(&mut self, id: usize, number: u32, lines: u64) {
        let slot = &mut self.first[id];
        if slot.0 == number {
            slot.1 += lines;
        } else if slot.0 == NONE {
            *slot = (number, lines);
        } else {
            *self.others.entry((id as u32, number)).or_default() += lines;
        }
    }

    /// Each ID's most used name, `None` for an ID no name held.
    pub(super) fn most_used(self) -> Vec<Option<Arc<str>>> {
        let names = &self.names;
        // More lines first, then the smaller name.
        let better = |a: (u32, u64), b: (u32, u64)| {
            a.1.cmp(&b.1)
                .then_with(|| names[b.0 as usize].cmp(&names[a.0 as usize]))
                .is_gt()
        };
        let mut best = self.first;
        for ((id, number), count) in self.others {
            let slot = &mut best[id as usize];
            if better((number, count), *slot) {
                *slot = (number, count);
            }
        }
        best.into_iter()
            .map(|(number, _)| (number != NONE).then(|| Arc::clone(&names[number as usize])))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The most used name of each ID, against a count of every (ID, name) pair in a map, on
    /// generated counts with ties, counted in two parts and merged.
    #[test]
    fn the_most_used_name_is_the_one_a_full_count_gives_also_merged_from_parts() {
        let names: Vec<Arc<str>> = ["user_id", "id", "parent", "b", "a"]
            .iter()
            .map(|&n| Arc::from(n))
            .collect();
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for round in 0..200 {
            let ids = 1 + next(20) as usize;
            // Counted in two parts, merged: the same as counted in one.
            let (mut counts, mut other) = (FieldCounts::new(ids), FieldCounts::new(ids));
            let mut full: Vec<FastMap<Arc<str>, u64>> = vec![FastMap::default(); ids];
            for _ in 0..next(200) {
                let id = next(ids as u64) as usize;
                // A fresh copy of the text now and then: equal names count as one.
                let name = &names[next(names.len() as u64) as usize];
                let name = if next(2) == 0 {
                    Arc::from(&**name)
                } else {
                    Arc::clone(name)
                };
                if next(3) == 0 {
                    other.add(id, &name);
                } else {
                    counts.add(id, &name);
                }
                *full[id].entry(name).or_default() += 1;
            }
            counts.merge(other);
            let expected: Vec<Option<Arc<str>>> = full
                .into_iter()
                .map(|counts| {
                    counts
                        .into_iter()
                        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
                        .map(|(name, _)| name)
                })
                .collect();
            assert_eq!(counts.most_used(), expected, "round {round}");
        }
    }
}
