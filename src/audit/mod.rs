//! `idgrep audit`: how far a team's logs are from one uniform ID format, with the lines that
//! prove it.
//!
//! The scan is the one of `ids`: [`Matcher::every_id`] over every input on N threads, each
//! line with IDs read by [`record::analyse`] for the field of each ID and the line's time, and
//! [`Form::of`] for how each ID is written. Keys whose value is not an ID (`job_id=1180`,
//! `"user_id":""`, `parent_id=0`) sit on lines without any ID token, so every chunk of lines
//! also goes through a cheap filter (`key_lines`: an id-like key followed by an integer or
//! an empty value); only the lines it flags are read by [`record::for_each_pair`].
//!
//! Each thread counts into its own `Tally`, merged at the end; the rules are computed from
//! compact aggregates, so memory grows with distinct IDs and fields, never with bytes:
//! - per field: occurrences by written form, UUID versions, integers, nil values, time skew,
//!   and the first examples of each;
//! - per ID value: its first line, field and form, the cases it is written in (ULID case
//!   mix), and whether it is ever written as a ULID (which decides its embedded time, for the
//!   backfill clumps);
//! - per ULID written in upper case: the lines where no lowercase form stands next to it.
//!
//! Examples are the first occurrences in walk order (input index, line, byte offset), at most
//! three per rule and per field, so the report is the same whatever the number of threads.
//!
//! 32-hex tokens are mostly trace IDs and digests: as in `ids`, an undashed token counts only
//! when the same value is also written as a ULID or a dashed UUID somewhere (the nil and max
//! values always count). Undashed occurrences are kept apart, per value and field, and join
//! the counts at the end.

pub mod keys;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};

use foldhash::fast::FixedState;
use memchr::{memchr, memrchr};
use serde::{Serialize, Serializer};

use crate::group::{FieldNames, LocalNames};
use crate::id::{Form, Id, Kind, Variant};
use crate::par::{self, Notice, ScanSettings};
use crate::progress::Progress;
use crate::record::{self, Analysis, PairBuffers, Value};
use crate::scan::Matcher;
use crate::search::{self, Chunk, LineMatch, Scratch, SearchOptions};
use crate::source::{self, Input};
use crate::time::Clock;

/// The checks, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    UlidUppercase,
    UlidMixedCase,
    UuidNoncanonical,
    NilId,
    FormatMix,
    VersionMix,
    IntegerIds,
    BackfillClump,
    IdTimeSkew,
}

impl Rule {
    pub const ALL: [Rule; 9] = [
        Rule::UlidUppercase,
        Rule::UlidMixedCase,
        Rule::UuidNoncanonical,
        Rule::NilId,
        Rule::FormatMix,
        Rule::VersionMix,
        Rule::IntegerIds,
        Rule::BackfillClump,
        Rule::IdTimeSkew,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rule::UlidUppercase => "ulid-uppercase",
            Rule::UlidMixedCase => "ulid-mixed-case",
            Rule::UuidNoncanonical => "uuid-noncanonical",
            Rule::NilId => "nil-id",
            Rule::FormatMix => "format-mix",
            Rule::VersionMix => "version-mix",
            Rule::IntegerIds => "integer-ids",
            Rule::BackfillClump => "backfill-clump",
            Rule::IdTimeSkew => "id-time-skew",
        }
    }

    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.name() == name)
    }

    /// How a field's verdict names a finding of this rule.
    pub fn phrase(self) -> &'static str {
        match self {
            Rule::UlidUppercase => "upper-case ULIDs",
            Rule::UlidMixedCase => "ULIDs in both cases",
            Rule::UuidNoncanonical => "non-canonical UUIDs",
            Rule::NilId => "nil IDs",
            Rule::FormatMix => "mixed formats",
            Rule::VersionMix => "mixed versions",
            Rule::IntegerIds => "integer IDs",
            Rule::BackfillClump => "backfill clump",
            Rule::IdTimeSkew => "time skew",
        }
    }
}

// ---------------------------------------------------------------------------------------
// Places and examples

/// Bits of [`Loc`] for the line number; the input index has the rest.
const LINE_BITS: u32 = 40;

/// A line in walk order: the input's index in the top 24 bits, the line number in the low 40.
/// Both saturate, which could only blur the choice of examples past 16 million inputs or a
/// trillion lines in one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Loc(u64);

impl Loc {
    /// Later than every line.
    const NONE: Loc = Loc(u64::MAX);

    fn new(file: u32, line: u64) -> Loc {
        let file = u64::from(file).min((1 << (64 - LINE_BITS)) - 1);
        Loc(file << LINE_BITS | line.min((1 << LINE_BITS) - 1))
    }

    fn file(self) -> usize {
        (self.0 >> LINE_BITS) as usize
    }

    fn line(self) -> u64 {
        self.0 & ((1 << LINE_BITS) - 1)
    }
}

/// The column of a value read by [`record::for_each_pair`]: after every token of its line,
/// in the order of the pairs.
const PAIR_COL: u32 = 1 << 31;

/// Where an occurrence is: its line, then its byte offset in the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct At {
    loc: Loc,
    col: u32,
}

/// Longest example text kept: `urn:uuid:` and a dashed UUID are 45 bytes.
const TOKEN_MAX: usize = 46;

/// An example's text, inline so that examples cost no allocation: an ID token as written
/// (with its braces or `urn:uuid:`), or a value (`1180`, `""`).
#[derive(Clone, Copy, Debug)]
struct Token {
    len: u8,
    bytes: [u8; TOKEN_MAX],
}

impl Token {
    fn new(text: &[u8]) -> Token {
        let len = text.len().min(TOKEN_MAX);
        let mut bytes = [0; TOKEN_MAX];
        bytes[..len].copy_from_slice(&text[..len]);
        Token {
            len: len as u8,
            bytes,
        }
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

#[derive(Clone, Copy, Debug)]
struct Example {
    at: At,
    token: Token,
    /// For id-time-skew.
    skew: Option<Skewed>,
}

/// An ID dated too late: how ([`SKEWS`] index), with the ID's time and the line's, in Unix
/// milliseconds.
#[derive(Clone, Copy, Debug)]
struct Skewed {
    kind: usize,
    id_ms: i64,
    line_ms: Option<i64>,
}

impl Example {
    fn new(at: At, token: &[u8]) -> Example {
        Example {
            at,
            token: Token::new(token),
            skew: None,
        }
    }
}

/// Keeps `slot` the earliest example; `make` runs only when the new one is earlier.
fn offer(slot: &mut Option<Example>, at: At, make: impl FnOnce() -> Example) {
    if slot.is_none_or(|e| at < e.at) {
        *slot = Some(make());
    }
}

/// How many examples a rule shows, overall and per field.
const EXAMPLES: usize = 3;

/// The earliest three examples, in order. A thread reads its inputs in walk order, so once
/// three are kept, later candidates fail the first comparison.
#[derive(Clone, Copy, Debug, Default)]
struct Top3 {
    items: [Option<Example>; EXAMPLES],
}

impl Top3 {
    fn offer(&mut self, at: At, make: impl FnOnce() -> Example) {
        if self.items[EXAMPLES - 1].is_some_and(|last| last.at <= at) {
            return;
        }
        let mut new = make();
        for slot in &mut self.items {
            match slot {
                Some(kept) if kept.at <= new.at => {}
                Some(kept) => std::mem::swap(kept, &mut new),
                None => {
                    *slot = Some(new);
                    return;
                }
            }
        }
    }

    fn merge(&mut self, other: &Top3) {
        for e in other.items.iter().flatten() {
            self.offer(e.at, || *e);
        }
    }

    fn iter(&self) -> impl Iterator<Item = &Example> {
        self.items.iter().flatten()
    }
}

// ---------------------------------------------------------------------------------------
// Per-field counts

/// Indices of the per-field example lists of the rules counted per occurrence.
const EX_UPPER: usize = 0;
const EX_NONCANONICAL: usize = 1;
const EX_NIL: usize = 2;
const EX_INTEGER: usize = 3;
const EX_SKEW: usize = 4;

/// What nil-id counts, by index.
const NIL_KINDS: [&str; 5] = ["nil_uuid", "nil_ulid", "max", "empty", "zero"];
const NIL_UUID: usize = 0;
const NIL_ULID: usize = 1;
const NIL_MAX: usize = 2;
const NIL_EMPTY: usize = 3;
const NIL_ZERO: usize = 4;

/// The formats format-mix tells apart, by index.
const FORMATS: [&str; 3] = ["ulid", "uuid", "integer"];
const FORMAT_ULID: usize = 0;
const FORMAT_UUID: usize = 1;
const FORMAT_INTEGER: usize = 2;

/// What id-time-skew counts, by index.
const SKEWS: [&str; 2] = ["after_line", "future"];
const SKEW_AFTER_LINE: usize = 0;
const SKEW_FUTURE: usize = 1;

/// UUID version labels: index 0 for a value that is no RFC 9562 UUID of a defined version
/// (mostly a ULID stored as a UUID, whose version and variant bits are random), 1 to 8 for
/// the versions.
const VERSIONS: [&str; 9] = ["non-rfc", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"];

fn version_label(id: Id) -> usize {
    match (id.uuid_variant(), id.uuid_version()) {
        (Variant::Rfc9562, Some(v @ 1..=8)) => v as usize,
        _ => 0,
    }
}

/// What one field carries. Nil and max values count under nil-id only, not as a format,
/// version or case.
#[derive(Clone, Debug, Default)]
struct FieldStats {
    forms: [u64; Form::ALL.len()],
    /// UUID-form occurrences by [`VERSIONS`] label.
    versions: [u64; VERSIONS.len()],
    integers: u64,
    nil: [u64; NIL_KINDS.len()],
    skew: [u64; SKEWS.len()],
    /// The first occurrence of each format and version, the evidence of a mix.
    format_first: [Option<Example>; FORMATS.len()],
    version_first: [Option<Example>; VERSIONS.len()],
    /// The first occurrences for the rules counted per occurrence (`EX_*`).
    examples: [Top3; 5],
}

impl FieldStats {
    fn format_counts(&self) -> [u64; FORMATS.len()] {
        let (mut ulid, mut uuid) = (0, 0);
        for (form, n) in Form::ALL.iter().zip(self.forms) {
            match form.kind() {
                Kind::Ulid => ulid += n,
                Kind::Uuid => uuid += n,
            }
        }
        [ulid, uuid, self.integers]
    }

    fn merge(&mut self, other: &FieldStats) {
        let add = |a: &mut [u64], b: &[u64]| a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
        add(&mut self.forms, &other.forms);
        add(&mut self.versions, &other.versions);
        add(&mut self.nil, &other.nil);
        add(&mut self.skew, &other.skew);
        self.integers += other.integers;
        for (mine, theirs) in self
            .format_first
            .iter_mut()
            .chain(self.version_first.iter_mut())
            .zip(other.format_first.iter().chain(&other.version_first))
        {
            if let Some(e) = theirs {
                offer(mine, e.at, || *e);
            }
        }
        for (mine, theirs) in self.examples.iter_mut().zip(&other.examples) {
            mine.merge(theirs);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Per-ID state

/// [`IdEntry::flags`]: the forms a value was written in.
const SEEN_ULID_LOWER: u8 = 1;
const SEEN_ULID_UPPER: u8 = 2;
const SEEN_UUID: u8 = 4;

/// Field index for "no field".
const NO_FIELD: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct IdEntry {
    /// The first line the value is on, with the field and form of its first occurrence there.
    first: Loc,
    field: u32,
    form: Form,
    flags: u8,
    /// The first line with the value as a lowercase ULID, and the field there.
    lower: Loc,
    lower_field: u32,
}

impl IdEntry {
    fn merge(&mut self, other: &IdEntry) {
        if other.first < self.first {
            self.first = other.first;
            self.field = other.field;
            self.form = other.form;
        }
        self.flags |= other.flags;
        if other.lower < self.lower {
            self.lower = other.lower;
            self.lower_field = other.lower_field;
        }
    }

    /// The kind the embedded time is read as: a value ever written as a ULID is a ULID (a
    /// ULID stored as a UUID has random version bits, and its time is the ULID's).
    fn time_kind(&self) -> Kind {
        if self.flags & (SEEN_ULID_LOWER | SEEN_ULID_UPPER) != 0 {
            Kind::Ulid
        } else {
            Kind::Uuid
        }
    }
}

/// A ULID value written in upper or mixed case.
#[derive(Clone, Debug)]
struct UpperEntry {
    /// The first such occurrence: where, under which field, and which letters were upper case.
    first: At,
    field: u32,
    mask: u32,
    /// Lines with this value in upper case and not in lowercase: what a case-sensitive grep
    /// for the lowercase form misses; per field.
    lines: u32,
    fields: Vec<(u32, u32)>,
}

/// The occurrences of one undashed value under one field, waiting for the end of the scan to
/// know whether the value counts (module doc).
#[derive(Clone, Debug)]
struct Undashed {
    occurrences: u64,
    first: At,
    mask: u32,
    skew: Option<Box<([u64; SKEWS.len()], Option<Example>)>>,
}

fn add_count(counts: &mut Vec<(u32, u32)>, field: u32, n: u32) {
    match counts.iter_mut().find(|(f, _)| *f == field) {
        Some((_, c)) => *c += n,
        None => counts.push((field, n)),
    }
}

/// The thresholds of id-time-skew.
#[derive(Clone, Copy, Debug)]
struct Limits {
    skew_ms: i64,
    /// Now plus the skew: an ID dated later is dated in the future.
    future_after_ms: i64,
}

/// Whether an ID with embedded time `id_ms` on a line of time `line_ms` is dated too late:
/// in the future (which wins), or after its line by more than the skew.
fn skew(id_ms: Option<i64>, line_ms: Option<i64>, limits: &Limits) -> Option<Skewed> {
    let id_ms = id_ms?;
    let kind = if id_ms > limits.future_after_ms {
        SKEW_FUTURE
    } else if line_ms.is_some_and(|l| id_ms.saturating_sub(l) > limits.skew_ms) {
        SKEW_AFTER_LINE
    } else {
        return None;
    };
    Some(Skewed {
        kind,
        id_ms,
        line_ms,
    })
}

/// One ID token on a line.
struct Occurrence<'a> {
    id: Id,
    form: Form,
    field: u32,
    at: At,
    /// As written, with braces or `urn:uuid:`.
    token: &'a [u8],
}

/// True for keys that name an ID: `id`, `*_id`, `*Id`, `*ID`, judged on the last segment of
/// a key path (`ctx.user_id`, `items[].id`).
fn is_id_key(key: &[u8]) -> bool {
    let key = key.strip_suffix(b"[]").unwrap_or(key);
    let key = match memrchr(b'.', key) {
        Some(dot) => &key[dot + 1..],
        None => key,
    };
    key.eq_ignore_ascii_case(b"id")
        || key.ends_with(b"_id")
        || (key.len() > 2 && (key.ends_with(b"Id") || key.ends_with(b"ID")))
}

/// Most digits an integer ID has (u64 has 20): longer digit runs are not taken as integers,
/// and 26 or 32 digits are ID tokens already.
const MAX_DIGITS: usize = 20;

/// For a value under an id-like key: `Some(Some(nil kind))` for an empty value or zero,
/// `Some(None)` for another integer, `None` for anything else.
fn scalar_kind(raw: &[u8]) -> Option<Option<usize>> {
    if raw.is_empty() {
        return Some(Some(NIL_EMPTY));
    }
    let digits = raw.strip_prefix(b"-").unwrap_or(raw);
    if digits.is_empty() || digits.len() > MAX_DIGITS || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(digits.iter().all(|&b| b == b'0').then_some(NIL_ZERO))
}

// ---------------------------------------------------------------------------------------
// The key prefilter

/// Calls `on_line` with each line of `chunk` (no line ending) that may hold an id-like key
/// with an integer or empty value, and with its number, so that only those lines are read as
/// records: a key ending in `id` in any case ([`keys::for_each_key_end`]), then `=` or `":`
/// and a value that starts like an integer, `""` or nothing. ID values fail the test at their
/// first letter or dash; [`record::for_each_pair`] has the last word on each line.
fn key_lines(chunk: &Chunk, mut on_line: impl FnMut(&[u8], u64)) {
    let bytes = chunk.bytes;
    let (mut line_no, mut counted) = (chunk.first_line_no, 0);
    // A line is handed over once, whatever the number of keys on it.
    let mut next_line = 0;
    keys::for_each_key_end(bytes, |sep| {
        if sep < next_line || !id_before(bytes, sep) || !scalar_follows(bytes, sep) {
            return;
        }
        let start = memrchr(b'\n', &bytes[..sep]).map_or(0, |p| p + 1);
        let end = memchr(b'\n', &bytes[sep..]).map_or(bytes.len(), |p| sep + p);
        line_no += bytecount::count(&bytes[counted..start], b'\n') as u64;
        counted = start;
        let line = &bytes[start..end];
        on_line(line.strip_suffix(b"\r").unwrap_or(line), line_no);
        next_line = end + 1;
    });
}

/// True when the key that ends at the separator `sep` (its last letter a `d`, by
/// [`keys::for_each_key_end`]) ends in `id`.
fn id_before(bytes: &[u8], sep: usize) -> bool {
    let d = match bytes[sep] {
        b'=' => sep - 1,
        _ if bytes[sep - 2] == b'\\' => sep - 3,
        _ => sep - 2,
    };
    d > 0 && bytes[d - 1] | 0x20 == b'i'
}

/// True when the bytes after the separator `sep` of an id-like key may be an integer or an
/// empty value.
fn scalar_follows(bytes: &[u8], sep: usize) -> bool {
    let bare = bytes[sep] == b'=';
    if !bare && bytes[sep - 2] == b'\\' {
        // Escaped quotes inside a message: rare enough to leave to the record reader.
        return true;
    }
    let mut v = sep + 1;
    if !bare {
        while matches!(bytes.get(v), Some(b' ' | b'\t')) {
            v += 1;
        }
    }
    match bytes.get(v) {
        // `key=` with nothing after it.
        None | Some(b'\n' | b'\r' | b' ' | b'\t' | b',' | b';' | b')' | b']' | b'}') => bare,
        Some(&quote @ (b'"' | b'\'')) => bytes.get(integer_end(bytes, v + 1)) == Some(&quote),
        Some(_) => {
            let end = integer_end(bytes, v);
            end > v
                && !bytes
                    .get(end)
                    .is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'))
        }
    }
}

/// The end of an optional `-` and up to [`MAX_DIGITS`] + 1 digits from `i`; `i` when there
/// are no digits.
fn integer_end(bytes: &[u8], i: usize) -> usize {
    let digits = i + usize::from(bytes.get(i) == Some(&b'-'));
    let n = bytes[digits.min(bytes.len())..]
        .iter()
        .take(MAX_DIGITS + 1)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if n == 0 { i } else { digits + n }
}

// ---------------------------------------------------------------------------------------
// The tally

/// One thread's counts.
struct Tally<'n> {
    names: LocalNames<'n>,
    /// By field index.
    fields: Vec<Option<Box<FieldStats>>>,
    /// Occurrences with no field.
    unnamed: Box<FieldStats>,
    ids: HashMap<u128, IdEntry, FixedState>,
    upper: HashMap<u128, UpperEntry, FixedState>,
    undashed: HashMap<(u128, u32), Undashed, FixedState>,
    lines: u64,
    occurrences: u64,
}

/// Up to this many hits on a line, [`Tally::add_line`] compares each with the others.
const FEW_HITS: usize = 16;

impl<'n> Tally<'n> {
    fn new(names: &'n FieldNames) -> Tally<'n> {
        Tally {
            names: LocalNames::new(names),
            fields: Vec::new(),
            unnamed: Box::default(),
            ids: HashMap::default(),
            upper: HashMap::default(),
            undashed: HashMap::default(),
            lines: 0,
            occurrences: 0,
        }
    }

    fn field(&mut self, name: &[u8]) -> u32 {
        self.names.index(name)
    }

    fn stats(&mut self, field: u32) -> &mut FieldStats {
        if field == NO_FIELD {
            return &mut self.unnamed;
        }
        let i = field as usize;
        if i >= self.fields.len() {
            self.fields.resize_with(i + 1, || None);
        }
        self.fields[i].get_or_insert_with(Box::default)
    }

    /// Counts the ID tokens of one line. Past [`FEW_HITS`] hits, a line's values are looked
    /// up in a map rather than among the other hits.
    fn add_line(
        &mut self,
        file: u32,
        m: &LineMatch,
        analysis: &Analysis,
        forms: &mut Vec<Form>,
        limits: &Limits,
    ) {
        let loc = Loc::new(file, m.line_no);
        let line_ms = analysis.time_ms();
        self.lines += 1;
        forms.clear();
        forms.extend(
            m.hits
                .iter()
                .map(|h| Form::of(h.shape, m.line, h.start, h.end)),
        );
        let upper = |f: Form| matches!(f, Form::UlidUpper | Form::UlidMixed);
        // For a line of many hits, each value's first upper-case hit and whether it is also
        // written lowercase, from one pass: comparing every hit with all the others took
        // quadratic time on a line of 100,000 upper-case ULIDs.
        let many = (m.hits.len() > FEW_HITS).then(|| {
            let mut values: HashMap<u128, (Option<usize>, bool)> = HashMap::new();
            for (j, hit) in m.hits.iter().enumerate() {
                let value = values.entry(hit.id.0).or_insert((None, false));
                if upper(forms[j]) && value.0.is_none() {
                    value.0 = Some(j);
                }
                value.1 |= forms[j] == Form::UlidLower;
            }
            values
        });
        for (i, hit) in m.hits.iter().enumerate() {
            let field = analysis.field(i).map_or(NO_FIELD, |name| self.field(name));
            let form = forms[i];
            // The first upper-case occurrence of a value on a line with no lowercase one
            // counts the line as missed by a grep for the lowercase form.
            let missed_line = upper(form)
                && match &many {
                    Some(values) => values[&hit.id.0] == (Some(i), false),
                    None => {
                        let same = |j: &usize| m.hits[*j].id == hit.id;
                        !(0..i).filter(same).any(|j| upper(forms[j]))
                            && !(0..m.hits.len())
                                .filter(same)
                                .any(|j| forms[j] == Form::UlidLower)
                    }
                };
            let occurrence = Occurrence {
                id: hit.id,
                form,
                field,
                at: At {
                    loc,
                    col: hit.start as u32,
                },
                token: {
                    let (start, end) = form.written_span(hit.start, hit.end);
                    &m.line[start..end]
                },
            };
            self.occurrence(&occurrence, line_ms, missed_line, limits);
        }
    }

    fn occurrence(
        &mut self,
        o: &Occurrence,
        line_ms: Option<i64>,
        missed_line: bool,
        limits: &Limits,
    ) {
        if o.form == Form::UuidUndashed && !o.id.is_nil_or_max() {
            self.defer_undashed(o, line_ms, limits);
            return;
        }
        self.occurrences += 1;
        self.note_id(o);
        let stats = self.stats(o.field);
        let example = || Example::new(o.at, o.token);
        if o.id.is_nil_or_max() {
            let kind = match (o.id.0, o.form.kind()) {
                (0, Kind::Ulid) => NIL_ULID,
                (0, Kind::Uuid) => NIL_UUID,
                _ => NIL_MAX,
            };
            stats.nil[kind] += 1;
            stats.examples[EX_NIL].offer(o.at, example);
            return;
        }
        stats.forms[o.form as usize] += 1;
        match o.form.kind() {
            Kind::Ulid => {
                offer(&mut stats.format_first[FORMAT_ULID], o.at, example);
                if o.form != Form::UlidLower {
                    stats.examples[EX_UPPER].offer(o.at, example);
                }
            }
            Kind::Uuid => {
                offer(&mut stats.format_first[FORMAT_UUID], o.at, example);
                let label = version_label(o.id);
                stats.versions[label] += 1;
                offer(&mut stats.version_first[label], o.at, example);
                if !o.form.is_canonical() {
                    stats.examples[EX_NONCANONICAL].offer(o.at, example);
                }
            }
        }
        if let Some(skewed) = skew(o.id.unix_ms(o.form.kind()), line_ms, limits) {
            stats.skew[skewed.kind] += 1;
            stats.examples[EX_SKEW].offer(o.at, || Example {
                skew: Some(skewed),
                ..example()
            });
        }
        if matches!(o.form, Form::UlidUpper | Form::UlidMixed) {
            self.note_upper(o, missed_line);
        }
    }

    fn note_id(&mut self, o: &Occurrence) {
        let flag = match o.form {
            Form::UlidLower => SEEN_ULID_LOWER,
            Form::UlidUpper | Form::UlidMixed => SEEN_ULID_UPPER,
            _ => SEEN_UUID,
        };
        let entry = self.ids.entry(o.id.0).or_insert(IdEntry {
            first: o.at.loc,
            field: o.field,
            form: o.form,
            flags: 0,
            lower: Loc::NONE,
            lower_field: NO_FIELD,
        });
        entry.merge(&IdEntry {
            first: o.at.loc,
            field: o.field,
            form: o.form,
            flags: flag,
            lower: if o.form == Form::UlidLower {
                o.at.loc
            } else {
                Loc::NONE
            },
            lower_field: o.field,
        });
    }

    fn note_upper(&mut self, o: &Occurrence, missed_line: bool) {
        let entry = self.upper.entry(o.id.0).or_insert_with(|| UpperEntry {
            first: o.at,
            field: o.field,
            mask: crate::id::case_mask(o.token),
            lines: 0,
            fields: Vec::new(),
        });
        if o.at < entry.first {
            entry.first = o.at;
            entry.field = o.field;
            entry.mask = crate::id::case_mask(o.token);
        }
        if missed_line {
            entry.lines += 1;
            add_count(&mut entry.fields, o.field, 1);
        }
    }

    fn defer_undashed(&mut self, o: &Occurrence, line_ms: Option<i64>, limits: &Limits) {
        let entry = self
            .undashed
            .entry((o.id.0, o.field))
            .or_insert_with(|| Undashed {
                occurrences: 0,
                first: o.at,
                mask: crate::id::case_mask(o.token),
                skew: None,
            });
        entry.occurrences += 1;
        if o.at < entry.first {
            entry.first = o.at;
            entry.mask = crate::id::case_mask(o.token);
        }
        if let Some(skewed) = skew(o.id.unix_ms(Kind::Uuid), line_ms, limits) {
            let (counts, first) = &mut **entry.skew.get_or_insert_with(Box::default);
            counts[skewed.kind] += 1;
            offer(first, o.at, || Example {
                skew: Some(skewed),
                ..Example::new(o.at, o.token)
            });
        }
    }

    /// Counts the id-like keys of one line whose values are integers or empty.
    fn add_pairs(&mut self, line: &[u8], loc: Loc, buffers: &mut PairBuffers) {
        let mut index = 0;
        record::for_each_pair(line, buffers, |key, value| {
            index += 1;
            let raw = match value {
                Value::Int(raw) | Value::Str(raw) if is_id_key(key) => raw,
                _ => return,
            };
            let Some(nil) = scalar_kind(raw) else { return };
            let field = self.field(key);
            let stats = self.stats(field);
            let at = At {
                loc,
                col: PAIR_COL | index,
            };
            let example = || Example::new(at, if raw.is_empty() { b"\"\"" } else { raw });
            match nil {
                Some(kind) => {
                    stats.nil[kind] += 1;
                    stats.examples[EX_NIL].offer(at, example);
                }
                None => {
                    stats.integers += 1;
                    offer(&mut stats.format_first[FORMAT_INTEGER], at, example);
                    stats.examples[EX_INTEGER].offer(at, example);
                }
            }
        });
    }

    fn merge(&mut self, other: Tally) {
        self.lines += other.lines;
        self.occurrences += other.occurrences;
        for (i, stats) in other.fields.into_iter().enumerate() {
            if let Some(stats) = stats {
                self.stats(i as u32).merge(&stats);
            }
        }
        self.unnamed.merge(&other.unnamed);
        for (value, theirs) in other.ids {
            self.ids
                .entry(value)
                .and_modify(|ours| ours.merge(&theirs))
                .or_insert(theirs);
        }
        for (value, theirs) in other.upper {
            match self.upper.get_mut(&value) {
                None => {
                    self.upper.insert(value, theirs);
                }
                Some(ours) => {
                    if theirs.first < ours.first {
                        ours.first = theirs.first;
                        ours.field = theirs.field;
                        ours.mask = theirs.mask;
                    }
                    ours.lines += theirs.lines;
                    for (field, n) in theirs.fields {
                        add_count(&mut ours.fields, field, n);
                    }
                }
            }
        }
        for (key, theirs) in other.undashed {
            match self.undashed.get_mut(&key) {
                None => {
                    self.undashed.insert(key, theirs);
                }
                Some(ours) => {
                    ours.occurrences += theirs.occurrences;
                    if theirs.first < ours.first {
                        ours.first = theirs.first;
                        ours.mask = theirs.mask;
                    }
                    if let Some(theirs) = theirs.skew {
                        let (counts, first) = &mut **ours.skew.get_or_insert_with(Box::default);
                        counts.iter_mut().zip(theirs.0).for_each(|(a, b)| *a += b);
                        if let Some(e) = theirs.1 {
                            offer(first, e.at, || e);
                        }
                    }
                }
            }
        }
    }

    /// Adds the undashed values that count to the field counts; returns the occurrences of
    /// those that do not.
    fn join_undashed(&mut self) -> u64 {
        let mut ignored = 0;
        for ((value, field), d) in std::mem::take(&mut self.undashed) {
            let Some(entry) = self.ids.get_mut(&value) else {
                ignored += d.occurrences;
                continue;
            };
            if d.first.loc < entry.first {
                entry.first = d.first.loc;
                entry.field = field;
                entry.form = Form::UuidUndashed;
            }
            self.occurrences += d.occurrences;
            let id = Id(value);
            let example = || Example::new(d.first, &id.hex_bytes_cased(d.mask));
            let stats = self.stats(field);
            stats.forms[Form::UuidUndashed as usize] += d.occurrences;
            offer(&mut stats.format_first[FORMAT_UUID], d.first, example);
            let label = version_label(id);
            stats.versions[label] += d.occurrences;
            offer(&mut stats.version_first[label], d.first, example);
            stats.examples[EX_NONCANONICAL].offer(d.first, example);
            if let Some(skew) = d.skew {
                let (counts, first) = *skew;
                stats.skew.iter_mut().zip(counts).for_each(|(a, b)| *a += b);
                if let Some(e) = first {
                    stats.examples[EX_SKEW].offer(e.at, || e);
                }
            }
        }
        ignored
    }
}

// ---------------------------------------------------------------------------------------
// The report

/// The whole audit, as printed and as `--json` gives it.
#[derive(Debug, Serialize)]
pub struct Report {
    pub totals: Totals,
    /// One entry per rule, in [`Rule::ALL`] order (a JSON object keyed by rule name).
    #[serde(serialize_with = "rules_by_name")]
    pub rules: Vec<RuleReport>,
    /// One verdict per field, most used first.
    pub fields: Vec<FieldVerdict>,
}

impl Report {
    pub fn rule(&self, rule: Rule) -> &RuleReport {
        self.rules
            .iter()
            .find(|r| r.rule == rule)
            .expect("every rule is reported")
    }
}

fn rules_by_name<S: Serializer>(rules: &[RuleReport], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(rules.iter().map(|r| (r.rule.name(), r)))
}

#[derive(Debug, Serialize)]
pub struct Totals {
    pub inputs: usize,
    pub lines_with_ids: u64,
    /// ID tokens counted (undashed ones only when they count).
    pub occurrences: u64,
    pub distinct_ids: u64,
    /// Named fields holding IDs, integers or nil values under id-like keys.
    pub fields: usize,
    /// Integer values under id-like keys.
    pub integer_values: u64,
    /// 32-hex tokens not counted as IDs (no other form of their value anywhere).
    pub undashed_ignored: u64,
}

#[derive(Debug, Serialize)]
pub struct RuleReport {
    #[serde(skip)]
    pub rule: Rule,
    /// Findings, in `unit`s; 0 when the logs pass.
    pub count: u64,
    pub unit: &'static str,
    /// The parts of `count`, by kind.
    pub breakdown: BTreeMap<&'static str, u64>,
    /// ulid-uppercase: distinct ULIDs in upper case; backfill-clump: distinct IDs in clumps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ids: Option<u64>,
    /// ulid-mixed-case: lines a case-sensitive grep for the lowercase form misses, per ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missed_lines: Option<u64>,
    /// backfill-clump: the threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_ids: Option<u64>,
    /// id-time-skew: the threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skew_ms: Option<i64>,
    /// The fields concerned, most findings first.
    pub fields: Vec<FieldFinding>,
    /// The first examples in walk order (format-mix, version-mix, backfill-clump: the
    /// evidence of the first fields or clumps listed).
    pub examples: Vec<Evidence>,
}

#[derive(Debug, Serialize)]
pub struct FieldFinding {
    /// None for IDs that no field holds.
    pub field: Option<String>,
    pub count: u64,
    pub breakdown: BTreeMap<&'static str, u64>,
    pub examples: Vec<Evidence>,
}

/// One line that shows a finding.
#[derive(Clone, Debug, Serialize)]
pub struct Evidence {
    pub path: String,
    pub line: u64,
    pub field: Option<String>,
    /// As written (an integer or `""` for values of id-like keys); the canonical ID for a
    /// backfill clump.
    pub token: String,
    /// id-time-skew: `after_line` or `future`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skew: Option<&'static str>,
    /// id-time-skew and backfill-clump: the time the ID carries.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "utc_time")]
    pub id_time: Option<i64>,
    /// id-time-skew: the line's own time.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "utc_time")]
    pub line_time: Option<i64>,
    /// backfill-clump: distinct IDs in the millisecond.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ids: Option<u64>,
    /// ulid-mixed-case: the first line with the same ULID in lowercase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lowercase: Option<Box<Evidence>>,
    /// Walk order, for choosing the first examples.
    #[serde(skip)]
    at: (u64, u32),
}

fn utc_time<S: Serializer>(ms: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
    match ms {
        Some(ms) => s.serialize_str(&Clock::utc().format(*ms)),
        None => s.serialize_none(),
    }
}

#[derive(Debug, Serialize)]
pub struct FieldVerdict {
    pub field: String,
    /// ID tokens under the field (nil and max values aside).
    pub occurrences: u64,
    pub integers: u64,
    /// Nil, max, empty and zero values.
    pub nil: u64,
    /// Written forms of the ID tokens.
    pub forms: BTreeMap<&'static str, u64>,
    /// UUID versions of the UUID-form tokens (`non-rfc` for values of no RFC 9562 version).
    pub versions: BTreeMap<&'static str, u64>,
    /// What it carries, as the text report says it: `ulid lowercase`, `uuid v7, v4 lowercase`.
    pub format: String,
    /// The rules with findings in this field.
    pub issues: Vec<&'static str>,
    pub consistent: bool,
}

/// Field and input names for the report.
struct Names<'a> {
    fields: &'a [Box<[u8]>],
    paths: &'a [String],
}

impl Names<'_> {
    fn field(&self, field: u32) -> Option<String> {
        (field != NO_FIELD)
            .then(|| String::from_utf8_lossy(&self.fields[field as usize]).into_owned())
    }

    fn evidence(&self, at: At, field: u32, token: &[u8]) -> Evidence {
        Evidence {
            path: self.paths[at.loc.file()].clone(),
            line: at.loc.line(),
            field: self.field(field),
            token: String::from_utf8_lossy(token).into_owned(),
            skew: None,
            id_time: None,
            line_time: None,
            ids: None,
            lowercase: None,
            at: (at.loc.0, at.col),
        }
    }

    fn example(&self, e: &Example, field: u32) -> Evidence {
        let mut evidence = self.evidence(e.at, field, e.token.as_bytes());
        if let Some(skewed) = e.skew {
            evidence.skew = Some(SKEWS[skewed.kind]);
            evidence.id_time = Some(skewed.id_ms);
            evidence.line_time = skewed.line_ms;
        }
        evidence
    }
}

/// One field's counts, with its index ([`NO_FIELD`] for none).
type FieldRef<'a> = (u32, &'a FieldStats);

/// The fields of a finding, most findings first, then by name; no field last.
fn sort_findings(findings: &mut [FieldFinding]) {
    findings.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.field.is_none().cmp(&b.field.is_none()))
            .then_with(|| a.field.cmp(&b.field))
    });
}

/// The earliest `EXAMPLES` of all.
fn first_examples(mut all: Vec<Evidence>) -> Vec<Evidence> {
    all.sort_by_key(|e| e.at);
    all.truncate(EXAMPLES);
    all
}

fn breakdown(names: &[&'static str], counts: &[u64]) -> BTreeMap<&'static str, u64> {
    names
        .iter()
        .zip(counts)
        .filter(|(_, n)| **n > 0)
        .map(|(name, n)| (*name, *n))
        .collect()
}

impl RuleReport {
    fn new(rule: Rule, unit: &'static str) -> RuleReport {
        RuleReport {
            rule,
            count: 0,
            unit,
            breakdown: BTreeMap::new(),
            ids: None,
            missed_lines: None,
            min_ids: None,
            skew_ms: None,
            fields: Vec::new(),
            examples: Vec::new(),
        }
    }

    /// A rule counted per occurrence in each field: `counts` gives a field's parts (empty
    /// when it has none), `examples` its example list.
    fn per_occurrence(
        rule: Rule,
        fields: &[FieldRef],
        names: &Names,
        part_names: &[&'static str],
        counts: impl Fn(&FieldStats) -> Vec<u64>,
        examples: usize,
    ) -> RuleReport {
        let mut report = RuleReport::new(rule, "occurrences");
        let mut total = vec![0; part_names.len()];
        let mut all = Vec::new();
        for &(field, stats) in fields {
            let parts = counts(stats);
            let count: u64 = parts.iter().sum();
            if count == 0 {
                continue;
            }
            total.iter_mut().zip(&parts).for_each(|(a, b)| *a += b);
            let examples: Vec<Evidence> = stats.examples[examples]
                .iter()
                .map(|e| names.example(e, field))
                .collect();
            all.extend(examples.iter().cloned());
            report.fields.push(FieldFinding {
                field: names.field(field),
                count,
                breakdown: breakdown(part_names, &parts),
                examples,
            });
        }
        report.count = total.iter().sum();
        report.breakdown = breakdown(part_names, &total);
        sort_findings(&mut report.fields);
        report.examples = first_examples(all);
        report
    }

    /// A rule about a mix within a named field: `counts` gives a field's parts by label, and
    /// `firsts` the first example of each; a field with two or more parts is a finding, shown
    /// by the first examples of its most used parts.
    fn mix(
        rule: Rule,
        fields: &[FieldRef],
        names: &Names,
        labels: &[&'static str],
        counts: impl Fn(&FieldStats) -> Vec<u64>,
        firsts: impl Fn(&FieldStats) -> &[Option<Example>],
    ) -> RuleReport {
        let mut report = RuleReport::new(rule, "fields");
        for &(field, stats) in fields.iter().filter(|(f, _)| *f != NO_FIELD) {
            let parts = counts(stats);
            if parts.iter().filter(|&&n| n > 0).count() < 2 {
                continue;
            }
            let mut used: Vec<usize> = (0..parts.len()).filter(|&i| parts[i] > 0).collect();
            used.sort_by_key(|&i| std::cmp::Reverse(parts[i]));
            let examples = used
                .iter()
                .filter_map(|&i| firsts(stats)[i].as_ref())
                .take(EXAMPLES)
                .map(|e| names.example(e, field))
                .collect();
            report.fields.push(FieldFinding {
                field: names.field(field),
                count: parts.iter().sum(),
                breakdown: breakdown(labels, &parts),
                examples,
            });
        }
        report.count = report.fields.len() as u64;
        sort_findings(&mut report.fields);
        report.examples = report
            .fields
            .iter()
            .flat_map(|f| f.examples.iter().cloned())
            .take(EXAMPLES)
            .collect();
        report
    }
}

/// Settings of the rules that have them.
struct Thresholds {
    clump: u64,
    skew_ms: i64,
}

impl Tally<'_> {
    fn report(mut self, paths: &[String], thresholds: &Thresholds) -> Report {
        let undashed_ignored = self.join_undashed();
        let field_names = self.names.shared().snapshot();
        let names = Names {
            fields: &field_names,
            paths,
        };
        let mut fields: Vec<FieldRef> = self
            .fields
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_deref().map(|s| (i as u32, s)))
            .collect();
        fields.push((NO_FIELD, &self.unnamed));

        let noncanonical: Vec<Form> = Form::ALL
            .into_iter()
            .filter(|f| f.kind() == Kind::Uuid && !f.is_canonical())
            .collect();
        let noncanonical_names: Vec<&str> = noncanonical.iter().map(|f| f.name()).collect();
        let mut upper = RuleReport::per_occurrence(
            Rule::UlidUppercase,
            &fields,
            &names,
            &[Form::UlidUpper.name(), Form::UlidMixed.name()],
            |s| {
                vec![
                    s.forms[Form::UlidUpper as usize],
                    s.forms[Form::UlidMixed as usize],
                ]
            },
            EX_UPPER,
        );
        upper.ids = Some(self.upper.len() as u64);
        let mut skew = RuleReport::per_occurrence(
            Rule::IdTimeSkew,
            &fields,
            &names,
            &SKEWS,
            |s| s.skew.to_vec(),
            EX_SKEW,
        );
        skew.skew_ms = Some(thresholds.skew_ms);
        let mut integers = RuleReport::per_occurrence(
            Rule::IntegerIds,
            &fields,
            &names,
            &["integer"],
            |s| vec![s.integers],
            EX_INTEGER,
        );
        integers.unit = "values";
        let rules = vec![
            upper,
            self.mixed_case(&names),
            RuleReport::per_occurrence(
                Rule::UuidNoncanonical,
                &fields,
                &names,
                &noncanonical_names,
                |s| noncanonical.iter().map(|&f| s.forms[f as usize]).collect(),
                EX_NONCANONICAL,
            ),
            RuleReport::per_occurrence(
                Rule::NilId,
                &fields,
                &names,
                &NIL_KINDS,
                |s| s.nil.to_vec(),
                EX_NIL,
            ),
            RuleReport::mix(
                Rule::FormatMix,
                &fields,
                &names,
                &FORMATS,
                |s| s.format_counts().to_vec(),
                |s| &s.format_first,
            ),
            RuleReport::mix(
                Rule::VersionMix,
                &fields,
                &names,
                &VERSIONS,
                |s| s.versions.to_vec(),
                |s| &s.version_first,
            ),
            integers,
            self.clumps(&names, thresholds.clump),
            skew,
        ];
        let verdicts = verdicts(&fields, &names, &rules);
        Report {
            totals: Totals {
                inputs: paths.len(),
                lines_with_ids: self.lines,
                occurrences: self.occurrences,
                distinct_ids: self.ids.len() as u64,
                fields: verdicts.len(),
                integer_values: fields.iter().map(|(_, s)| s.integers).sum(),
                undashed_ignored,
            },
            rules,
            fields: verdicts,
        }
    }

    fn mixed_case(&self, names: &Names) -> RuleReport {
        let mut report = RuleReport::new(Rule::UlidMixedCase, "ULIDs");
        let mut mixed: Vec<(u128, &UpperEntry)> = self
            .upper
            .iter()
            .filter(|(value, _)| self.ids[value].flags & SEEN_ULID_LOWER != 0)
            .map(|(value, entry)| (*value, entry))
            .collect();
        mixed.sort_by_key(|(_, entry)| entry.first);
        let mut per_field: BTreeMap<u32, u64> = BTreeMap::new();
        for (_, entry) in &mixed {
            for &(field, n) in &entry.fields {
                *per_field.entry(field).or_default() += u64::from(n);
            }
        }
        let evidence = |value: u128, entry: &UpperEntry| {
            let id = Id(value);
            let ids_entry = &self.ids[&value];
            let mut e = names.evidence(entry.first, entry.field, &id.ulid_bytes_cased(entry.mask));
            let lower_at = At {
                loc: ids_entry.lower,
                col: 0,
            };
            e.lowercase = Some(Box::new(names.evidence(
                lower_at,
                ids_entry.lower_field,
                &id.ulid_bytes(),
            )));
            e
        };
        for (field, lines) in per_field {
            report.fields.push(FieldFinding {
                field: names.field(field),
                count: lines,
                breakdown: BTreeMap::new(),
                examples: mixed
                    .iter()
                    .filter(|(_, entry)| entry.field == field)
                    .take(EXAMPLES)
                    .map(|(value, entry)| evidence(*value, entry))
                    .collect(),
            });
        }
        sort_findings(&mut report.fields);
        report.count = mixed.len() as u64;
        report.missed_lines = Some(mixed.iter().map(|(_, e)| u64::from(e.lines)).sum());
        report.examples = mixed
            .iter()
            .take(EXAMPLES)
            .map(|(value, entry)| evidence(*value, entry))
            .collect();
        report
    }

    fn clumps(&self, names: &Names, min_ids: u64) -> RuleReport {
        struct Clump {
            ids: u64,
            /// The first line of any ID in it, and that ID.
            first: (Loc, u128),
        }
        let mut report = RuleReport::new(Rule::BackfillClump, "milliseconds");
        report.min_ids = Some(min_ids);
        let created = |value: u128, entry: &IdEntry| {
            (!Id(value).is_nil_or_max())
                .then(|| Id(value).unix_ms(entry.time_kind()))
                .flatten()
        };
        let mut per_ms: HashMap<i64, Clump, FixedState> = HashMap::default();
        for (&value, entry) in &self.ids {
            let Some(ms) = created(value, entry) else {
                continue;
            };
            let clump = per_ms.entry(ms).or_insert(Clump {
                ids: 0,
                first: (entry.first, value),
            });
            clump.ids += 1;
            clump.first = clump.first.min((entry.first, value));
        }
        let mut clumps: Vec<(i64, Clump)> = per_ms
            .into_iter()
            .filter(|(_, c)| c.ids >= min_ids)
            .collect();
        clumps.sort_by_key(|(ms, c)| (std::cmp::Reverse(c.ids), *ms));
        report.count = clumps.len() as u64;
        report.ids = Some(clumps.iter().map(|(_, c)| c.ids).sum());
        let clumped: HashSet<i64> = clumps.iter().map(|(ms, _)| *ms).collect();
        let mut per_field: BTreeMap<u32, u64> = BTreeMap::new();
        if !clumped.is_empty() {
            for (&value, entry) in &self.ids {
                if created(value, entry).is_some_and(|ms| clumped.contains(&ms)) {
                    *per_field.entry(entry.field).or_default() += 1;
                }
            }
        }
        report.fields = per_field
            .into_iter()
            .map(|(field, n)| FieldFinding {
                field: names.field(field),
                count: n,
                breakdown: BTreeMap::new(),
                examples: Vec::new(),
            })
            .collect();
        sort_findings(&mut report.fields);
        report.examples = clumps
            .iter()
            .take(EXAMPLES)
            .map(|(ms, clump)| {
                let (loc, value) = clump.first;
                let entry = &self.ids[&value];
                let token = Id(value).canonical(entry.time_kind());
                let mut e = names.evidence(At { loc, col: 0 }, entry.field, token.as_bytes());
                e.id_time = Some(*ms);
                e.ids = Some(clump.ids);
                e
            })
            .collect();
        report
    }
}

/// How a field's tokens are written, in words: `lowercase`, `upper-case`, `braced`.
fn form_words(form: Form) -> &'static str {
    match form {
        Form::UlidLower | Form::UuidLower => "lowercase",
        Form::UlidUpper | Form::UuidUpper => "upper-case",
        Form::UlidMixed | Form::UuidMixed => "mixed-case",
        Form::UuidUndashed => "undashed",
        Form::UuidBraced => "braced",
        Form::UuidUrn => "urn",
    }
}

/// How many UUID versions a field's description names.
const SHOWN_VERSIONS: usize = 3;

/// `ulid lowercase`, `uuid v7, v4 lowercase/braced`, `integer`, joined by `; `.
fn describe(stats: &FieldStats) -> String {
    let words = |kind: Kind| {
        Form::ALL
            .iter()
            .filter(|f| f.kind() == kind && stats.forms[**f as usize] > 0)
            .map(|f| form_words(*f))
            .collect::<Vec<_>>()
            .join("/")
    };
    let [ulid, uuid, integers] = stats.format_counts();
    let mut parts = Vec::new();
    if ulid > 0 {
        parts.push(format!("ulid {}", words(Kind::Ulid)));
    }
    if uuid > 0 {
        let mut versions: Vec<usize> = (0..VERSIONS.len())
            .filter(|&i| stats.versions[i] > 0)
            .collect();
        versions.sort_by_key(|&i| std::cmp::Reverse(stats.versions[i]));
        let mut shown: Vec<String> = versions
            .iter()
            .take(SHOWN_VERSIONS)
            .map(|&i| VERSIONS[i].to_string())
            .collect();
        if versions.len() > SHOWN_VERSIONS {
            shown.push(format!("+{} more", versions.len() - SHOWN_VERSIONS));
        }
        parts.push(format!("uuid {} {}", shown.join(", "), words(Kind::Uuid)));
    }
    if integers > 0 {
        parts.push("integer".to_string());
    }
    if parts.is_empty() {
        parts.push("nil values only".to_string());
    }
    parts.join("; ")
}

fn verdicts(fields: &[FieldRef], names: &Names, rules: &[RuleReport]) -> Vec<FieldVerdict> {
    let mut verdicts: Vec<FieldVerdict> = fields
        .iter()
        .filter(|(field, _)| *field != NO_FIELD)
        .filter_map(|&(field, stats)| {
            let name = names.field(field)?;
            let occurrences: u64 = stats.forms.iter().sum();
            let nil: u64 = stats.nil.iter().sum();
            if occurrences + stats.integers + nil == 0 {
                return None;
            }
            let issues: Vec<&'static str> = rules
                .iter()
                .filter(|r| {
                    r.fields
                        .iter()
                        .any(|f| f.field.as_deref() == Some(name.as_str()))
                })
                .map(|r| r.rule.name())
                .collect();
            Some(FieldVerdict {
                occurrences,
                integers: stats.integers,
                nil,
                forms: Form::ALL
                    .iter()
                    .filter(|f| stats.forms[**f as usize] > 0)
                    .map(|f| (f.name(), stats.forms[*f as usize]))
                    .collect(),
                versions: breakdown(&VERSIONS, &stats.versions),
                format: describe(stats),
                consistent: issues.is_empty(),
                issues,
                field: name,
            })
        })
        .collect();
    verdicts.sort_by(|a, b| {
        let total = |v: &FieldVerdict| v.occurrences + v.integers + v.nil;
        total(b).cmp(&total(a)).then_with(|| a.field.cmp(&b.field))
    });
    verdicts
}

// ---------------------------------------------------------------------------------------
// The command

/// One scan thread's state.
struct Worker<'n> {
    tally: Tally<'n>,
    scratch: Scratch,
    analysis: Analysis,
    pairs: PairBuffers,
    forms: Vec<Form>,
}

/// Audits every input on `settings.threads` threads: `skew_ms` is id-time-skew's allowance,
/// `clump` backfill-clump's threshold. Returns the report and what each input has to tell,
/// in input order.
pub fn audit(
    inputs: &[Input],
    settings: &ScanSettings,
    skew_ms: i64,
    clump: u64,
) -> (Report, Vec<(usize, Notice)>) {
    let total = inputs.iter().map(source::size).sum::<Option<u64>>();
    let progress = Progress::start(settings.progress, total);
    let names = FieldNames::default();
    let matcher = Matcher::every_id();
    let now_ms = jiff::Timestamp::now().as_millisecond();
    let limits = Limits {
        skew_ms,
        future_after_ms: now_ms.saturating_add(skew_ms),
    };
    let (workers, notices) = par::scan_all(
        inputs,
        settings.threads,
        || Worker {
            tally: Tally::new(&names),
            scratch: Scratch::default(),
            analysis: Analysis::default(),
            pairs: PairBuffers::default(),
            forms: Vec::new(),
        },
        |worker, index, input| {
            let scan = Scan {
                file: index as u32,
                matcher: &matcher,
                limits: &limits,
                settings,
                progress: &progress,
            };
            scan.one(worker, input)
        },
    );
    progress.finish();
    let mut tallies = workers.into_iter().map(|w| w.tally);
    let mut tally = tallies.next().expect("at least one scan thread");
    for other in tallies {
        tally.merge(other);
    }
    let paths: Vec<String> = inputs.iter().map(Input::display_name).collect();
    let report = tally.report(&paths, &Thresholds { clump, skew_ms });
    (report, notices)
}

/// What scanning one input needs besides the thread's state.
struct Scan<'a> {
    file: u32,
    matcher: &'a Matcher,
    limits: &'a Limits,
    settings: &'a ScanSettings,
    progress: &'a Progress,
}

impl Scan<'_> {
    fn one(&self, worker: &mut Worker, input: &Input) -> Option<Notice> {
        let mut reader = match source::open(input, self.progress.counter()) {
            Ok(reader) => reader,
            Err(e) => return Some(Notice::failed(&e)),
        };
        let context =
            record::TimeContext::for_file(self.settings.zone.as_ref(), source::modified(input));
        let Worker {
            tally,
            scratch,
            analysis,
            pairs,
            forms,
        } = worker;
        // Both callbacks count into the tally, one at a time.
        let tally = RefCell::new(tally);
        let options = SearchOptions {
            line_numbers: true,
            text: self.settings.text,
            ..SearchOptions::default()
        };
        let outcome = search::search_with_chunks(
            self.matcher,
            options,
            &mut reader,
            scratch,
            Some(&mut |chunk: &Chunk| {
                let mut tally = tally.borrow_mut();
                key_lines(chunk, |line, line_no| {
                    tally.add_pairs(line, Loc::new(self.file, line_no), pairs);
                });
            }),
            &mut |m| {
                record::analyse_hits(m.line, m.hits, &context, analysis);
                tally
                    .borrow_mut()
                    .add_line(self.file, m, analysis, forms, self.limits);
                true
            },
        );
        Notice::after_scan(outcome, "not audited")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_like_keys() {
        for key in [
            "id",
            "ID",
            "Id",
            "user_id",
            "userId",
            "userID",
            "USER_ID",
            "ctx.order_id",
            "items[].id",
            "ids.id[]",
        ] {
            assert!(is_id_key(key.as_bytes()), "{key}");
        }
        for key in [
            "paid", "valid", "pid", "uuid", "idx", "id_card", "ident", "Id.x",
        ] {
            assert!(!is_id_key(key.as_bytes()), "{key}");
        }
    }

    #[test]
    fn scalar_values() {
        assert_eq!(scalar_kind(b""), Some(Some(NIL_EMPTY)));
        assert_eq!(scalar_kind(b"0"), Some(Some(NIL_ZERO)));
        assert_eq!(scalar_kind(b"000"), Some(Some(NIL_ZERO)));
        assert_eq!(scalar_kind(b"1001"), Some(None));
        assert_eq!(scalar_kind(b"-1"), Some(None));
        assert_eq!(scalar_kind(b"12345678901234567890"), Some(None));
        for other in [
            "123456789012345678901",
            "1.5",
            "-",
            "01m8kbygm5",
            "abc",
            " 1",
        ] {
            assert_eq!(scalar_kind(other.as_bytes()), None, "{other}");
        }
    }

    /// The lines the key filter flags in `text`, with their numbers.
    fn flagged(text: &str) -> Vec<(u64, String)> {
        let mut found = Vec::new();
        key_lines(
            &Chunk {
                bytes: text.as_bytes(),
                first_line_no: 10,
            },
            |line, no| found.push((no, String::from_utf8_lossy(line).into_owned())),
        );
        found
    }

    #[test]
    fn key_filter_flags_integer_and_empty_values_only() {
        let text = "a order_id=01m8kbygm5ng2pshny302zvwbs\r\n\
                    b job_id=1180 x\r\n\
                    {\"user_id\": 0, \"order_id\":\"01a226bf-4285-ac05-6cc6-be1805fdf179\"}\n\
                    {\"order_id\":\"01a226bf-4285-ac05-6cc6-be1805fdf179\",\"parent_id\":\"\"}\n\
                    c ref_ID='42' and user_id=12345678-aaaa-bbbb-cccc-1234567890ab\n\
                    d parent_id= next\n\
                    e \"userId\":null version=1.2 paid=5 span_id=1.5\n\
                    f msg=\"{\\\"user_id\\\":7}\"\n\
                    g user_id=-1";
        let lines: Vec<u64> = flagged(text).iter().map(|(n, _)| *n).collect();
        // `paid=5` passes the filter (the key test is the record reader's).
        assert_eq!(lines, vec![11, 12, 13, 14, 15, 16, 17, 18]);
        assert_eq!(flagged(text)[0].1, "b job_id=1180 x");
        assert!(flagged("x id=").len() == 1 && flagged("{\"id\":").is_empty());
    }

    #[test]
    fn top3_keeps_the_earliest_whatever_the_order() {
        let at = |line: u64, col: u32| At {
            loc: Loc::new(1, line),
            col,
        };
        let order = [at(5, 0), at(2, 9), at(9, 1), at(2, 3), at(1, 0), at(7, 7)];
        let mut forward = Top3::default();
        let mut backward = Top3::default();
        for &a in &order {
            forward.offer(a, || Example::new(a, b"x"));
        }
        for &a in order.iter().rev() {
            backward.offer(a, || Example::new(a, b"x"));
        }
        let kept = |t: &Top3| t.iter().map(|e| e.at).collect::<Vec<_>>();
        assert_eq!(kept(&forward), vec![at(1, 0), at(2, 3), at(2, 9)]);
        assert_eq!(kept(&forward), kept(&backward));
        let mut merged = Top3::default();
        merged.offer(at(1, 5), || Example::new(at(1, 5), b"y"));
        merged.merge(&forward);
        assert_eq!(kept(&merged), vec![at(1, 0), at(1, 5), at(2, 3)]);
    }

    #[test]
    fn locations_order_by_file_then_line_and_saturate() {
        assert!(Loc::new(0, u64::MAX) < Loc::new(1, 1));
        assert_eq!(Loc::new(3, 77).file(), 3);
        assert_eq!(Loc::new(3, 77).line(), 77);
        assert!(Loc::new(u32::MAX, u64::MAX) <= Loc::NONE);
    }
}
