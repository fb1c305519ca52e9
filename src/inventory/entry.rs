//! The entries of the counts, one per ID, laid out for the cache.
//!
//! With a million IDs the tables are far larger than the caches, so what an occurrence costs
//! is the memory it touches. An ID seen in one file, under one field name, in one written
//! form (most IDs of a large inventory) is a 64-byte [`Cold`] entry; the first occurrence that
//! adds a second of any of these promotes it to a 128-byte [`Hot`] entry, with room for six
//! field names, three forms and the files numbered below 256 as bits, so that one or two cache
//! lines serve almost every occurrence, and a [`Side`] record holds what does not fit. Keeping
//! every set in a side record as soon as an ID has a second file, field or form would cost a
//! second and third dependent miss for most occurrences, which belong to such IDs. Memory
//! grows with distinct IDs, not with bytes.

use crate::id::{Form, Kind};

/// Marks "no value" in the u32 slots of an entry.
pub(super) const NONE: u32 = u32::MAX;

/// Marks "no form" in the form tags of an entry.
const NO_FORM: u8 = u8::MAX;

/// An ID seen so far in one file, under at most one field name, in one written form: most
/// IDs of a large inventory. One cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(super) struct Cold {
    pub(super) key: u128,
    pub(super) first_ms: i64,
    pub(super) last_ms: i64,
    pub(super) lines: u32,
    pub(super) occurrences: u32,
    pub(super) file: u32,
    /// `NONE` until an occurrence has a field.
    pub(super) field: u32,
    pub(super) field_count: u32,
    pub(super) form: u8,
}

/// Files numbered below this are kept as bits of a [`Hot`] entry: a run over a directory of
/// logs has fewer files than that, and then no file is ever looked up in a side record.
const LOW_FILES: u32 = 256;

/// How many fields and forms a [`Hot`] entry holds itself.
pub(super) const HOT_FIELDS: usize = 6;
const HOT_FORMS: usize = 3;

/// An ID with more than one file, field name or written form, in two cache lines that serve
/// almost all of its occurrences; what does not fit goes to a [`Side`] record. The count of
/// the first form is implied (every occurrence not counted under another form). Field names
/// are kept as `u16` here; a name numbered past that goes to the side record.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(128))]
pub(super) struct Hot {
    pub(super) key: u128,
    pub(super) first_ms: i64,
    pub(super) last_ms: i64,
    pub(super) lines: u32,
    pub(super) occurrences: u32,
    /// 1 + the index of the side record in [`Table::sides`](super::table::Table::sides), 0 for
    /// none.
    pub(super) side: u32,
    /// The last file looked up in the side record, so that the occurrences of one file cost
    /// one lookup there, not one each.
    pub(super) last_side_file: u32,
    /// Bit `f` for file `f` below [`LOW_FILES`].
    pub(super) low_files: [u64; LOW_FILES as usize / 64],
    /// `Form as u8`, `NO_FORM` after the last.
    pub(super) form_tags: [u8; HOT_FORMS],
    /// Occurrences of `form_tags[1..]`.
    pub(super) form_counts: [u32; HOT_FORMS - 1],
    /// `NARROW_NONE` after the last.
    pub(super) field_names: [u16; HOT_FIELDS],
    pub(super) field_counts: [u32; HOT_FIELDS],
}

/// Marks "no field" in [`Hot::field_names`].
pub(super) const NARROW_NONE: u16 = u16::MAX;

/// What a [`Hot`] entry has no room for.
#[derive(Debug, Default)]
pub(super) struct Side {
    /// Files numbered from [`LOW_FILES`] on, sorted.
    pub(super) files: Vec<u32>,
    /// Fields beyond the inline ones.
    pub(super) fields: Vec<(u32, u32)>,
    /// Occurrences per form beyond the inline ones.
    pub(super) forms: [u32; Form::ALL.len()],
}

impl Cold {
    pub(super) const EMPTY: Cold = Cold {
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
    pub(super) fn fits(&self, file: u32, field: u32, form: Form) -> bool {
        self.file == file
            && self.form == form as u8
            && (field == NONE || self.field == NONE || self.field == field)
    }

    pub(super) fn count(&mut self, field: u32, n: u32) {
        self.occurrences = self.occurrences.saturating_add(n);
        if field != NONE {
            self.field = field;
            self.field_count = self.field_count.saturating_add(n);
        }
    }
}

impl Hot {
    pub(super) const EMPTY: Hot = Hot {
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
    pub(super) fn from_cold(cold: &Cold, sides: &mut Vec<Side>) -> Hot {
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
    pub(super) fn count(
        &mut self,
        file: u32,
        field: u32,
        form: Form,
        n: u32,
        sides: &mut Vec<Side>,
    ) {
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

/// An entry, as the views read it.
#[derive(Clone, Copy)]
pub(super) enum EntryRef<'a> {
    Cold(&'a Cold),
    Hot(&'a Hot, Option<&'a Side>),
}

impl EntryRef<'_> {
    pub(super) fn key(&self) -> u128 {
        match self {
            EntryRef::Cold(c) => c.key,
            EntryRef::Hot(h, _) => h.key,
        }
    }

    /// (lines, occurrences, first_ms, last_ms).
    pub(super) fn counts(&self) -> (u32, u32, i64, i64) {
        match self {
            EntryRef::Cold(c) => (c.lines, c.occurrences, c.first_ms, c.last_ms),
            EntryRef::Hot(h, _) => (h.lines, h.occurrences, h.first_ms, h.last_ms),
        }
    }

    /// Occurrences per form, in [`Form::ALL`] order.
    pub(super) fn form_counts(&self) -> [u32; Form::ALL.len()] {
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

    /// File numbers, ascending.
    pub(super) fn files(&self) -> Vec<u32> {
        match self {
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

    /// Calls `f` with each (field name number, occurrences), in no particular order: once per
    /// row shown, where a chain of iterators cost as much as the rest of the row's fields.
    pub(super) fn for_each_field(&self, mut f: impl FnMut(u32, u32)) {
        match self {
            EntryRef::Cold(c) => {
                if c.field != NONE {
                    f(c.field, c.field_count);
                }
            }
            EntryRef::Hot(h, side) => {
                for (&name, &n) in h.field_names.iter().zip(&h.field_counts) {
                    if name == NARROW_NONE {
                        break;
                    }
                    f(u32::from(name), n);
                }
                for &(name, n) in side.iter().flat_map(|s| &s.fields) {
                    f(name, n);
                }
            }
        }
    }

    /// Written forms with their occurrence counts, in [`Form::ALL`] order.
    pub(super) fn forms(&self) -> Vec<(Form, u32)> {
        Form::ALL
            .into_iter()
            .zip(self.form_counts())
            .filter(|&(_, n)| n > 0)
            .collect()
    }

    /// The earliest and latest time of the lines that carry a time.
    pub(super) fn times(&self) -> (Option<i64>, Option<i64>) {
        let (_, _, first, last) = self.counts();
        (
            (first != i64::MAX).then_some(first),
            (last != i64::MIN).then_some(last),
        )
    }

    /// Written in a trace spelling at least once (a trace field, a header, X-Ray).
    pub(super) fn is_trace(&self) -> bool {
        match self {
            EntryRef::Cold(c) => Form::ALL[c.form as usize].kind() == Kind::Trace,
            // A form tag stands for at least one occurrence; the side record counts the rest,
            // and holds none while a tag is free (most entries: not read at all, as reading
            // it is a cache miss).
            EntryRef::Hot(h, side) => {
                let trace = |form: &Form| form.kind() == Kind::Trace;
                h.form_tags
                    .iter()
                    .any(|&tag| tag != NO_FORM && trace(&Form::ALL[tag as usize]))
                    || !h.form_tags.contains(&NO_FORM)
                        && side.is_some_and(|s| {
                            s.forms
                                .iter()
                                .zip(&Form::ALL)
                                .any(|(&n, f)| n > 0 && trace(f))
                        })
            }
        }
    }

    /// What a 128-bit value is: a trace ID when written in a trace spelling at least once,
    /// else a ULID or a UUID by what most of its occurrences are written as (ties go to
    /// ULID).
    pub(super) fn wide_kind(&self) -> Kind {
        // Most entries are written in one form, which says it all; the output asks twice a
        // row.
        if let EntryRef::Hot(h, _) = self
            && h.form_tags[1] == NO_FORM
        {
            return match Form::ALL[h.form_tags[0] as usize].kind() {
                Kind::Trace => Kind::Trace,
                Kind::Ulid => Kind::Ulid,
                Kind::Uuid | Kind::Span => Kind::Uuid,
            };
        }
        if self.is_trace() {
            return Kind::Trace;
        }
        let (ulid, uuid) = match self {
            EntryRef::Cold(c) => return Form::ALL[c.form as usize].kind(),
            // A million rows each ask: the inline forms are summed where they are, without
            // the whole list of forms.
            EntryRef::Hot(h, None) => {
                let (mut ulid, mut others) = (0u64, 0u64);
                for (&tag, &count) in h.form_tags[1..].iter().zip(&h.form_counts) {
                    if tag != NO_FORM {
                        others += u64::from(count);
                        if Form::ALL[tag as usize].kind() == Kind::Ulid {
                            ulid += u64::from(count);
                        }
                    }
                }
                let first = u64::from(h.occurrences).saturating_sub(others);
                if Form::ALL[h.form_tags[0] as usize].kind() == Kind::Ulid {
                    ulid += first;
                }
                (ulid, first + others - ulid)
            }
            EntryRef::Hot(_, Some(_)) => {
                let (mut ulid, mut uuid) = (0u64, 0u64);
                for (form, count) in Form::ALL.iter().zip(self.form_counts()) {
                    match form.kind() {
                        Kind::Ulid => ulid += u64::from(count),
                        Kind::Uuid | Kind::Trace | Kind::Span => uuid += u64::from(count),
                    }
                }
                (ulid, uuid)
            }
        };
        if ulid >= uuid { Kind::Ulid } else { Kind::Uuid }
    }

    /// Written only as 32 hex digits (see the module doc).
    pub(super) fn only_undashed(&self) -> bool {
        let undashed = Form::UuidUndashed as u8;
        match self {
            EntryRef::Cold(c) => c.form == undashed,
            // Forms go to the side record only once the inline tags are taken.
            EntryRef::Hot(h, _) => h.form_tags == [undashed, NO_FORM, NO_FORM],
        }
    }
}
