//! One scan thread's counts: per field (`FieldStats`), per ID value, per upper-case ULID and
//! per undashed value, filled line by line and merged across threads at the end. The records
//! per value are kept in [`Shards`].
//!
//! Trace and span IDs are counted per field only, for the trace rules: 32-hex tokens in a
//! trace field and the `traceparent` headers around 32-hex tokens with the line's tokens
//! ([`AuditCounts::add_line`]), and the other values of trace and span fields (16 hex,
//! decimals, X-Ray) with the other values of id-like keys ([`AuditCounts::add_pairs`]).

use std::collections::HashMap;

use crate::id::trace::FieldRole;
use crate::id::trace_value::{self, FieldValue, Traceparent, ValueForm};
use crate::id::{Form, Id, Kind, Shape};
use crate::inventory::{FieldNames, LocalNames};
use crate::record::{self, Analysis, LineTime, PairBuffers, Value};
use crate::search::LineMatch;

use super::evidence::{At, Example, Loc, PAIR_COL, Top3, offer};
use super::key_values::{is_id_key, is_jsonrpc, scalar_kind};
use super::rules::{
    IdFormat, Limits, NilKind, SkewKind, Skewed, TraceCase, TraceFault, TraceWidth, UuidVersion,
    skew,
};
use super::shards::{Record, Shards};

/// The per-field example lists of the rules counted per occurrence.
#[derive(Clone, Copy, Debug)]
pub(super) enum ExampleSlot {
    Upper,
    Noncanonical,
    Nil,
    Integer,
    Skew,
    TraceInvalid,
    TraceUpper,
}

impl ExampleSlot {
    const ALL: [ExampleSlot; 7] = [
        ExampleSlot::Upper,
        ExampleSlot::Noncanonical,
        ExampleSlot::Nil,
        ExampleSlot::Integer,
        ExampleSlot::Skew,
        ExampleSlot::TraceInvalid,
        ExampleSlot::TraceUpper,
    ];
}

/// What one field carries. Nil and max values count under nil-id only, not as a format,
/// version or case.
#[derive(Clone, Debug, Default)]
pub(super) struct FieldStats {
    pub(super) forms: [u64; Form::ALL.len()],
    /// UUID-form occurrences by [`UuidVersion`].
    pub(super) versions: [u64; UuidVersion::ALL.len()],
    pub(super) integers: u64,
    pub(super) nil: [u64; NilKind::ALL.len()],
    pub(super) skew: [u64; SkewKind::ALL.len()],
    /// The first occurrence of each format and version, the evidence of a mix.
    pub(super) format_first: [Option<Example>; IdFormat::ALL.len()],
    pub(super) version_first: [Option<Example>; UuidVersion::ALL.len()],
    /// The first occurrences for the rules counted per occurrence, by [`ExampleSlot`].
    pub(super) examples: [Top3; ExampleSlot::ALL.len()],
    /// Trace and span IDs: faults, upper-case ones by where, valid trace IDs by width (with
    /// the first of each), valid span IDs.
    pub(super) trace_faults: [u64; TraceFault::ALL.len()],
    pub(super) trace_upper: [u64; TraceCase::ALL.len()],
    pub(super) trace_widths: [u64; TraceWidth::ALL.len()],
    pub(super) trace_width_first: [Option<Example>; TraceWidth::ALL.len()],
    pub(super) spans: u64,
}

impl FieldStats {
    /// Occurrences by [`IdFormat`].
    pub(super) fn format_counts(&self) -> [u64; IdFormat::ALL.len()] {
        let (mut ulid, mut uuid) = (0, 0);
        for (form, n) in Form::ALL.iter().zip(self.forms) {
            match form.kind() {
                Kind::Ulid => ulid += n,
                Kind::Uuid | Kind::Trace | Kind::Span => uuid += n,
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
        add(&mut self.trace_faults, &other.trace_faults);
        add(&mut self.trace_upper, &other.trace_upper);
        add(&mut self.trace_widths, &other.trace_widths);
        self.integers += other.integers;
        self.spans += other.spans;
        for (mine, theirs) in self
            .format_first
            .iter_mut()
            .chain(self.version_first.iter_mut())
            .chain(self.trace_width_first.iter_mut())
            .zip(
                other
                    .format_first
                    .iter()
                    .chain(&other.version_first)
                    .chain(&other.trace_width_first),
            )
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

/// How a value was written, as far as the report asks: as a ULID (which decides its time,
/// [`IdRecord::time_kind`]), and as a lowercase ULID (ulid-mixed-case).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Seen {
    ulid: bool,
    pub(super) lowercase_ulid: bool,
}

impl Seen {
    fn of(form: Form) -> Seen {
        Seen {
            ulid: form.kind() == Kind::Ulid,
            lowercase_ulid: form == Form::UlidLower,
        }
    }

    fn merge(&mut self, other: Seen) {
        self.ulid |= other.ulid;
        self.lowercase_ulid |= other.lowercase_ulid;
    }
}

/// Field index for "no field".
pub(super) const NO_FIELD: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
pub(super) struct IdRecord {
    /// The first line the value is on, with the field of its first occurrence there.
    pub(super) first: Loc,
    pub(super) field: u32,
    pub(super) seen: Seen,
    /// The first line with the value as a lowercase ULID, and the field there.
    pub(super) lower: Loc,
    pub(super) lower_field: u32,
}

impl IdRecord {
    fn merge(&mut self, other: &IdRecord) {
        if other.first < self.first {
            self.first = other.first;
            self.field = other.field;
        }
        self.seen.merge(other.seen);
        if other.lower < self.lower {
            self.lower = other.lower;
            self.lower_field = other.lower_field;
        }
    }

    /// The kind the embedded time is read as: a value ever written as a ULID is a ULID (a
    /// ULID stored as a UUID has random version bits, and its time is the ULID's).
    pub(super) fn time_kind(&self) -> Kind {
        if self.seen.ulid {
            Kind::Ulid
        } else {
            Kind::Uuid
        }
    }
}

/// One occurrence is an [`IdRecord`] of its own.
impl Record for IdRecord {
    type Key = u128;
    type Sighting = IdRecord;

    fn value(key: &u128) -> u128 {
        *key
    }

    fn new(_: &u128, sighting: &IdRecord) -> IdRecord {
        *sighting
    }

    fn add(&mut self, _: &u128, sighting: &IdRecord) {
        self.merge(sighting);
    }

    fn merge(&mut self, other: IdRecord) {
        IdRecord::merge(self, &other);
    }
}

/// A ULID value written in upper or mixed case.
#[derive(Clone, Debug)]
pub(super) struct UpperEntry {
    /// The first such occurrence: where, under which field, and which letters were upper case.
    pub(super) first: At,
    pub(super) field: u32,
    pub(super) mask: u32,
    /// Lines with this value in upper case and not in lowercase: what a case-sensitive grep
    /// for the lowercase form misses; per field.
    pub(super) lines: u32,
    pub(super) fields: Vec<(u32, u32)>,
}

/// One upper- or mixed-case occurrence of a ULID.
#[derive(Clone, Copy, Debug)]
pub(super) struct UpperSighting {
    at: At,
    field: u32,
    mask: u32,
    /// The first upper-case occurrence of the value on a line without a lowercase one.
    missed_line: bool,
}

impl Record for UpperEntry {
    type Key = u128;
    type Sighting = UpperSighting;

    fn value(key: &u128) -> u128 {
        *key
    }

    fn new(_: &u128, s: &UpperSighting) -> UpperEntry {
        UpperEntry {
            first: s.at,
            field: s.field,
            mask: s.mask,
            lines: u32::from(s.missed_line),
            fields: if s.missed_line {
                vec![(s.field, 1)]
            } else {
                Vec::new()
            },
        }
    }

    fn add(&mut self, _: &u128, s: &UpperSighting) {
        if s.at < self.first {
            self.first = s.at;
            self.field = s.field;
            self.mask = s.mask;
        }
        if s.missed_line {
            self.lines += 1;
            add_count(&mut self.fields, s.field, 1);
        }
    }

    fn merge(&mut self, other: UpperEntry) {
        if other.first < self.first {
            self.first = other.first;
            self.field = other.field;
            self.mask = other.mask;
        }
        self.lines += other.lines;
        for (field, n) in other.fields {
            add_count(&mut self.fields, field, n);
        }
    }
}

/// The occurrences of one undashed value under one field, waiting for the end of the scan to
/// know whether the value counts (module doc).
#[derive(Clone, Debug)]
struct Undashed {
    occurrences: u64,
    first: At,
    mask: u32,
    skew: Option<Box<([u64; SkewKind::ALL.len()], Option<Example>)>>,
}

/// One occurrence of an undashed value: where, which letters were upper case, and whether
/// its time is skewed.
#[derive(Clone, Copy, Debug)]
pub(super) struct UndashedSighting {
    at: At,
    mask: u32,
    skewed: Option<Skewed>,
}

impl Record for Undashed {
    /// The value, and the field it is under.
    type Key = (u128, u32);
    type Sighting = UndashedSighting;

    fn value(&(value, _): &(u128, u32)) -> u128 {
        value
    }

    fn new(&(value, _): &(u128, u32), s: &UndashedSighting) -> Undashed {
        let mut undashed = Undashed {
            occurrences: 0,
            first: s.at,
            mask: s.mask,
            skew: None,
        };
        undashed.add(&(value, 0), s);
        undashed
    }

    fn add(&mut self, &(value, _): &(u128, u32), s: &UndashedSighting) {
        self.occurrences += 1;
        if s.at < self.first {
            self.first = s.at;
            self.mask = s.mask;
        }
        if let Some(skewed) = s.skewed {
            let (counts, first) = &mut **self.skew.get_or_insert_with(Box::default);
            counts[skewed.kind as usize] += 1;
            // The token as written: its letters in the cases of the mask.
            offer(first, s.at, || Example {
                skew: Some(skewed),
                ..Example::new(s.at, &Id(value).hex_bytes_cased(s.mask))
            });
        }
    }

    fn merge(&mut self, other: Undashed) {
        self.occurrences += other.occurrences;
        if other.first < self.first {
            self.first = other.first;
            self.mask = other.mask;
        }
        if let Some(theirs) = other.skew {
            let (counts, first) = &mut **self.skew.get_or_insert_with(Box::default);
            counts.iter_mut().zip(theirs.0).for_each(|(a, b)| *a += b);
            if let Some(e) = theirs.1 {
                offer(first, e.at, || e);
            }
        }
    }
}

fn add_count(counts: &mut Vec<(u32, u32)>, field: u32, n: u32) {
    match counts.iter_mut().find(|(f, _)| *f == field) {
        Some((_, c)) => *c += n,
        None => counts.push((field, n)),
    }
}

/// One ID token on a line.
struct Sighting<'a> {
    id: Id,
    form: Form,
    field: u32,
    at: At,
    /// As written, with braces or `urn:uuid:`.
    token: &'a [u8],
}

/// One thread's counts.
pub(super) struct AuditCounts<'n> {
    pub(super) names: LocalNames<'n>,
    /// By field index.
    pub(super) fields: Vec<Option<Box<FieldStats>>>,
    /// Occurrences with no field.
    pub(super) unnamed: Box<FieldStats>,
    pub(super) ids: Shards<IdRecord>,
    pub(super) upper: Shards<UpperEntry>,
    undashed: Shards<Undashed>,
    pub(super) lines: u64,
    /// Lines whose time has no offset, read as UTC only because no zone was given.
    pub(super) zone_guessed_lines: u64,
    pub(super) occurrences: u64,
    /// Trace and span IDs read, valid or not.
    pub(super) trace_values: u64,
}

/// Up to this many hits on a line, [`AuditCounts::add_line`] compares each with the others.
const FEW_HITS: usize = 16;

impl<'n> AuditCounts<'n> {
    pub(super) fn new(names: &'n FieldNames) -> AuditCounts<'n> {
        AuditCounts {
            names: LocalNames::new(names),
            fields: Vec::new(),
            unnamed: Box::default(),
            ids: Shards::default(),
            upper: Shards::default(),
            undashed: Shards::default(),
            lines: 0,
            zone_guessed_lines: 0,
            occurrences: 0,
            trace_values: 0,
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
    pub(super) fn add_line(
        &mut self,
        file: u32,
        m: &LineMatch,
        analysis: &Analysis,
        forms: &mut Vec<Form>,
        limits: &Limits,
    ) {
        let loc = Loc::new(file, m.line_no);
        let line_time = analysis.time();
        self.lines += 1;
        self.zone_guessed_lines += u64::from(line_time.is_some_and(|t| t.zone_guessed));
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
            let sighting = Sighting {
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
            if hit.shape == Shape::UuidUndashed {
                let token = &m.line[hit.start..hit.end];
                if let Some(header) = trace_value::traceparent_around(m.line, hit.start, hit.end) {
                    self.add_traceparent(field, hit.id, &header, m.line, loc);
                } else if analysis.field(i).and_then(crate::id::trace::field_role)
                    == Some(FieldRole::Trace)
                    && let Some(value) = trace_value::trace_hex32(token)
                {
                    self.add_trace_value(field, &value, token, sighting.at);
                }
            }
            self.add_sighting(&sighting, line_time, missed_line, limits);
        }
    }

    /// Counts a `traceparent` header for the trace rules: its trace ID is 128 bits.
    fn add_traceparent(
        &mut self,
        field: u32,
        trace: Id,
        header: &Traceparent,
        line: &[u8],
        loc: Loc,
    ) {
        self.trace_values += 1;
        let at = At {
            loc,
            col: header.start as u32,
        };
        let stats = self.stats(field);
        let example = || Example::new(at, &line[header.start..header.end]);
        let fault = if header.version == 0xff {
            Some(TraceFault::VersionFf)
        } else if trace.0 == 0 {
            Some(TraceFault::ZeroTrace)
        } else if header.span == 0 {
            Some(TraceFault::ZeroSpan)
        } else {
            None
        };
        if header.upper {
            stats.trace_upper[TraceCase::Traceparent as usize] += 1;
            stats.examples[ExampleSlot::TraceUpper as usize].offer(at, example);
        }
        match fault {
            Some(fault) => {
                stats.trace_faults[fault as usize] += 1;
                stats.examples[ExampleSlot::TraceInvalid as usize].offer(at, example);
            }
            None => {
                stats.trace_widths[TraceWidth::Bits128 as usize] += 1;
                offer(
                    &mut stats.trace_width_first[TraceWidth::Bits128 as usize],
                    at,
                    example,
                );
            }
        }
    }

    /// Counts the value of a trace or span field for the trace rules.
    fn add_trace_value(&mut self, field: u32, value: &FieldValue, raw: &[u8], at: At) {
        self.trace_values += 1;
        let stats = self.stats(field);
        // An X-Amzn-Trace-Id shows its Root.
        let shown = match value.form {
            ValueForm::Xray => raw.split(|&b| b == b';').next().unwrap_or(raw),
            _ => raw,
        };
        let example = || Example::new(at, shown);
        let trace = value.role == FieldRole::Trace;
        if value.upper {
            let case = if trace {
                TraceCase::TraceId
            } else {
                TraceCase::SpanId
            };
            stats.trace_upper[case as usize] += 1;
            stats.examples[ExampleSlot::TraceUpper as usize].offer(at, example);
        }
        if value.value == 0 {
            if trace || !value.parent {
                let fault = if trace {
                    TraceFault::ZeroTrace
                } else {
                    TraceFault::ZeroSpan
                };
                stats.trace_faults[fault as usize] += 1;
                stats.examples[ExampleSlot::TraceInvalid as usize].offer(at, example);
            }
            return;
        }
        if !trace {
            stats.spans += 1;
            return;
        }
        let width = match value.form {
            ValueForm::Hex32 | ValueForm::Xray => TraceWidth::Bits128,
            ValueForm::Hex16 => TraceWidth::Hex64,
            ValueForm::Decimal => TraceWidth::Decimal64,
        };
        stats.trace_widths[width as usize] += 1;
        offer(&mut stats.trace_width_first[width as usize], at, example);
    }

    fn add_sighting(
        &mut self,
        s: &Sighting,
        line_time: Option<LineTime>,
        missed_line: bool,
        limits: &Limits,
    ) {
        if s.form == Form::UuidUndashed && !s.id.is_nil_or_max() {
            self.defer_undashed(s, line_time, limits);
            return;
        }
        self.occurrences += 1;
        self.note_id(s);
        let stats = self.stats(s.field);
        let example = || Example::new(s.at, s.token);
        if s.id.is_nil_or_max() {
            let kind = match (s.id.0, s.form.kind()) {
                (0, Kind::Ulid) => NilKind::NilUlid,
                (0, Kind::Uuid) => NilKind::NilUuid,
                _ => NilKind::Max,
            };
            stats.nil[kind as usize] += 1;
            stats.examples[ExampleSlot::Nil as usize].offer(s.at, example);
            return;
        }
        stats.forms[s.form as usize] += 1;
        match s.form.kind() {
            Kind::Ulid => {
                offer(
                    &mut stats.format_first[IdFormat::Ulid as usize],
                    s.at,
                    example,
                );
                if s.form != Form::UlidLower {
                    stats.examples[ExampleSlot::Upper as usize].offer(s.at, example);
                }
            }
            Kind::Uuid => {
                offer(
                    &mut stats.format_first[IdFormat::Uuid as usize],
                    s.at,
                    example,
                );
                let version = UuidVersion::of(s.id) as usize;
                stats.versions[version] += 1;
                offer(&mut stats.version_first[version], s.at, example);
                if !s.form.is_canonical() {
                    stats.examples[ExampleSlot::Noncanonical as usize].offer(s.at, example);
                }
            }
            // The inventory scan finds ULID and UUID tokens only.
            Kind::Trace | Kind::Span => {}
        }
        if let Some(skewed) = skew(s.id.unix_ms(s.form.kind()), line_time, limits) {
            stats.skew[skewed.kind as usize] += 1;
            stats.examples[ExampleSlot::Skew as usize].offer(s.at, || Example {
                skew: Some(skewed),
                ..example()
            });
        }
        if matches!(s.form, Form::UlidUpper | Form::UlidMixed) {
            self.note_upper(s, missed_line);
        }
    }

    fn note_id(&mut self, s: &Sighting) {
        let lowercase = s.form == Form::UlidLower;
        let sighting = IdRecord {
            first: s.at.loc,
            field: s.field,
            seen: Seen::of(s.form),
            lower: if lowercase { s.at.loc } else { Loc::NONE },
            lower_field: if lowercase { s.field } else { NO_FIELD },
        };
        self.ids.add(s.id.0, sighting);
    }

    fn note_upper(&mut self, s: &Sighting, missed_line: bool) {
        self.upper.add(
            s.id.0,
            UpperSighting {
                at: s.at,
                field: s.field,
                mask: crate::id::case_mask(s.token),
                missed_line,
            },
        );
    }

    fn defer_undashed(&mut self, s: &Sighting, line_time: Option<LineTime>, limits: &Limits) {
        self.undashed.add(
            (s.id.0, s.field),
            UndashedSighting {
                at: s.at,
                mask: crate::id::case_mask(s.token),
                skewed: skew(s.id.unix_ms(Kind::Uuid), line_time, limits),
            },
        );
    }

    /// Counts the id-like keys of one line whose values are integers or empty, and the values
    /// of its trace and span fields (those are judged by the trace rules only: a Datadog
    /// trace ID is a decimal, and no integer entity key).
    pub(super) fn add_pairs(&mut self, line: &[u8], loc: Loc, buffers: &mut PairBuffers) {
        let mut index = 0;
        let jsonrpc = is_jsonrpc(line);
        record::for_each_pair(line, buffers, |key, value| {
            index += 1;
            let raw = match value {
                Value::Int(raw) | Value::Str(raw) => raw,
                // A bare span ID can read as a number (`1e51234567890123`).
                Value::Number(raw) if crate::id::trace::field_role(key).is_some() => raw,
                _ => return,
            };
            let at = At {
                loc,
                col: PAIR_COL | index,
            };
            if crate::id::trace::field_role(key).is_some() {
                // A 32-hex value is an ID token: counted with the line's tokens.
                if let Some(value) = trace_value::field_value(key, raw)
                    && value.form != ValueForm::Hex32
                {
                    let field = self.field(key);
                    self.add_trace_value(field, &value, raw, at);
                }
                return;
            }
            if !is_id_key(key) || (jsonrpc && key == b"id") {
                return;
            }
            let Some(nil) = scalar_kind(raw) else { return };
            let field = self.field(key);
            let stats = self.stats(field);
            let example = || Example::new(at, if raw.is_empty() { b"\"\"" } else { raw });
            match nil {
                Some(kind) => {
                    stats.nil[kind as usize] += 1;
                    stats.examples[ExampleSlot::Nil as usize].offer(at, example);
                }
                None => {
                    stats.integers += 1;
                    offer(
                        &mut stats.format_first[IdFormat::Integer as usize],
                        at,
                        example,
                    );
                    stats.examples[ExampleSlot::Integer as usize].offer(at, example);
                }
            }
        });
    }

    /// The counts of every scan thread in one; the records per value are merged on up to
    /// `threads` threads.
    pub(super) fn merge_all(all: Vec<AuditCounts<'n>>, threads: usize) -> AuditCounts<'n> {
        let mut ids = Vec::with_capacity(all.len());
        let mut upper = Vec::with_capacity(all.len());
        let mut undashed = Vec::with_capacity(all.len());
        let mut all = all.into_iter();
        let mut merged = all.next().expect("at least one scan thread");
        for other in all {
            merged.lines += other.lines;
            merged.zone_guessed_lines += other.zone_guessed_lines;
            merged.occurrences += other.occurrences;
            merged.trace_values += other.trace_values;
            for (i, stats) in other.fields.into_iter().enumerate() {
                if let Some(stats) = stats {
                    merged.stats(i as u32).merge(&stats);
                }
            }
            merged.unnamed.merge(&other.unnamed);
            ids.push(other.ids);
            upper.push(other.upper);
            undashed.push(other.undashed);
        }
        merge_into(&mut merged.ids, ids, threads);
        merge_into(&mut merged.upper, upper, threads);
        merge_into(&mut merged.undashed, undashed, threads);
        merged
    }

    /// Adds the undashed values that count to the field counts; returns the occurrences of
    /// those that do not.
    pub(super) fn join_undashed(&mut self) -> u64 {
        let mut ignored = 0;
        for ((value, field), d) in std::mem::take(&mut self.undashed).into_records() {
            let Some(entry) = self.ids.get_mut(&value) else {
                ignored += d.occurrences;
                continue;
            };
            if d.first.loc < entry.first {
                entry.first = d.first.loc;
                entry.field = field;
            }
            self.occurrences += d.occurrences;
            let id = Id(value);
            let example = || Example::new(d.first, &id.hex_bytes_cased(d.mask));
            let stats = self.stats(field);
            stats.forms[Form::UuidUndashed as usize] += d.occurrences;
            offer(
                &mut stats.format_first[IdFormat::Uuid as usize],
                d.first,
                example,
            );
            let version = UuidVersion::of(id) as usize;
            stats.versions[version] += d.occurrences;
            offer(&mut stats.version_first[version], d.first, example);
            stats.examples[ExampleSlot::Noncanonical as usize].offer(d.first, example);
            if let Some(skew) = d.skew {
                let (counts, first) = *skew;
                stats.skew.iter_mut().zip(counts).for_each(|(a, b)| *a += b);
                if let Some(e) = first {
                    stats.examples[ExampleSlot::Skew as usize].offer(e.at, || e);
                }
            }
        }
        ignored
    }
}

/// Merges `theirs` into `ours`, on up to `threads` threads.
fn merge_into<R: Record>(ours: &mut Shards<R>, mut theirs: Vec<Shards<R>>, threads: usize) {
    theirs.push(std::mem::take(ours));
    *ours = Shards::merge_all(theirs, threads);
}
