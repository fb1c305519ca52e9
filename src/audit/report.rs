//! The report: the rules computed from the merged counts, with their examples, and one
//! verdict per field; serialized as is by `audit --json`.

use serde::{Serialize, Serializer};
use std::collections::{BTreeMap, HashMap};

use crate::id::{Form, Id, Kind};
use crate::text::Name;
use crate::time::Clock;

use super::counts::{AuditCounts, ExampleSlot, FieldStats, IdRecord, NO_FIELD, UpperEntry};
use super::evidence::{At, EXAMPLES, Example, Loc};
use super::rules::{
    IdFormat, NilKind, Rule, SkewKind, Thresholds, TraceCase, TraceFault, TraceWidth,
    UNKNOWN_ZONE_MS, UuidVersion,
};

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
    /// Trace and span IDs read for the trace rules (valid or not): values of trace and span
    /// fields, and `traceparent` headers.
    pub trace_values: u64,
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
    /// id-time-skew: lines whose time has no offset and was read as UTC because no zone was
    /// given (`--tz`): their IDs may be up to `unknown_zone_ms` more after them before they
    /// count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zone_guessed_lines: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_zone_ms: Option<i64>,
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
    /// A name that is not UTF-8 as `{"bytes": base64}`.
    pub path: Name,
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
    at: At,
}

/// A time as RFC 3339 UTC, or null for one RFC 3339 cannot write (after 9999): the evidence's
/// token still gives the ID it came from.
fn utc_time<S: Serializer>(ms: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
    match ms.and_then(|ms| Clock::utc().rfc3339(ms)) {
        Some(time) => s.serialize_str(&time),
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
    /// Valid trace IDs by width (`128_bit`, `64_bit_hex`, `64_bit_decimal`) and span IDs
    /// (`span`) in a trace or span field; absent when none.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub traces: BTreeMap<&'static str, u64>,
    /// What it carries, as the text report says it: `ulid lowercase`, `uuid v7, v4 lowercase`.
    pub format: String,
    /// The rules with findings in this field.
    pub issues: Vec<&'static str>,
    pub consistent: bool,
}

/// Field and input names for the report.
struct Names<'a> {
    fields: &'a [Box<[u8]>],
    paths: &'a [Name],
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
            at,
        }
    }

    fn example(&self, e: &Example, field: u32) -> Evidence {
        let mut evidence = self.evidence(e.at, field, e.token.as_bytes());
        if let Some(skewed) = e.skew {
            evidence.skew = Some(skewed.kind.name());
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
    pub(super) fn new(rule: Rule, unit: &'static str) -> RuleReport {
        RuleReport {
            rule,
            count: 0,
            unit,
            breakdown: BTreeMap::new(),
            ids: None,
            missed_lines: None,
            min_ids: None,
            skew_ms: None,
            zone_guessed_lines: None,
            unknown_zone_ms: None,
            fields: Vec::new(),
            examples: Vec::new(),
        }
    }

    /// A rule counted per occurrence in each field: `counts` gives a field's parts (empty
    /// when it has none), `slot` its example list.
    fn per_occurrence(
        rule: Rule,
        fields: &[FieldRef],
        names: &Names,
        part_names: &[&'static str],
        counts: impl Fn(&FieldStats) -> Vec<u64>,
        slot: ExampleSlot,
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
            let examples: Vec<Evidence> = stats.examples[slot as usize]
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

impl RuleReport {
    /// trace-mixed-width: 64-bit trace IDs anywhere when 128-bit ones are written somewhere.
    /// The fields are those holding 64-bit ones; the examples, the first 128-bit trace ID and
    /// the first 64-bit one of each spelling.
    fn mixed_width(fields: &[FieldRef], names: &Names) -> RuleReport {
        let mut report = RuleReport::new(Rule::TraceMixedWidth, "occurrences");
        let labels = TraceWidth::ALL.map(TraceWidth::name);
        let narrow = |widths: &[u64]| {
            widths[TraceWidth::Hex64 as usize] + widths[TraceWidth::Decimal64 as usize]
        };
        let mut total = [0; TraceWidth::ALL.len()];
        for (_, stats) in fields {
            total
                .iter_mut()
                .zip(stats.trace_widths)
                .for_each(|(a, b)| *a += b);
        }
        if total[TraceWidth::Bits128 as usize] == 0 || narrow(&total) == 0 {
            return report;
        }
        report.count = narrow(&total);
        report.breakdown = breakdown(&labels, &total);
        let mut firsts: [Option<Evidence>; TraceWidth::ALL.len()] = Default::default();
        for &(field, stats) in fields {
            for (i, first) in stats.trace_width_first.iter().enumerate() {
                if let Some(e) = first
                    && firsts[i].as_ref().is_none_or(|kept| e.at < kept.at)
                {
                    firsts[i] = Some(names.example(e, field));
                }
            }
            let count = narrow(&stats.trace_widths);
            if count == 0 {
                continue;
            }
            report.fields.push(FieldFinding {
                field: names.field(field),
                count,
                breakdown: breakdown(&labels, &stats.trace_widths),
                examples: [TraceWidth::Hex64, TraceWidth::Decimal64]
                    .iter()
                    .filter_map(|&w| stats.trace_width_first[w as usize].as_ref())
                    .map(|e| names.example(e, field))
                    .collect(),
            });
        }
        sort_findings(&mut report.fields);
        report.examples = firsts.into_iter().flatten().collect();
        report
    }
}

impl AuditCounts<'_> {
    pub(super) fn report(
        mut self,
        paths: &[Name],
        inputs_read: usize,
        thresholds: &Thresholds,
    ) -> Report {
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
            ExampleSlot::Upper,
        );
        upper.ids = Some(self.upper.len() as u64);
        let mut skew = RuleReport::per_occurrence(
            Rule::IdTimeSkew,
            &fields,
            &names,
            &SkewKind::ALL.map(SkewKind::name),
            |s| s.skew.to_vec(),
            ExampleSlot::Skew,
        );
        skew.skew_ms = Some(thresholds.skew_ms);
        skew.zone_guessed_lines = Some(self.zone_guessed_lines);
        skew.unknown_zone_ms = Some(UNKNOWN_ZONE_MS);
        let mut integers = RuleReport::per_occurrence(
            Rule::IntegerIds,
            &fields,
            &names,
            &[IdFormat::Integer.name()],
            |s| vec![s.integers],
            ExampleSlot::Integer,
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
                ExampleSlot::Noncanonical,
            ),
            RuleReport::per_occurrence(
                Rule::NilId,
                &fields,
                &names,
                &NilKind::ALL.map(NilKind::name),
                |s| s.nil.to_vec(),
                ExampleSlot::Nil,
            ),
            RuleReport::mix(
                Rule::FormatMix,
                &fields,
                &names,
                &IdFormat::ALL.map(IdFormat::name),
                |s| s.format_counts().to_vec(),
                |s| &s.format_first,
            ),
            RuleReport::mix(
                Rule::VersionMix,
                &fields,
                &names,
                &UuidVersion::ALL.map(UuidVersion::name),
                |s| s.versions.to_vec(),
                |s| &s.version_first,
            ),
            integers,
            self.clumps(&names, thresholds.clump),
            skew,
            RuleReport::per_occurrence(
                Rule::TraceInvalid,
                &fields,
                &names,
                &TraceFault::ALL.map(TraceFault::name),
                |s| s.trace_faults.to_vec(),
                ExampleSlot::TraceInvalid,
            ),
            RuleReport::per_occurrence(
                Rule::TraceNoncanonical,
                &fields,
                &names,
                &TraceCase::ALL.map(TraceCase::name),
                |s| s.trace_upper.to_vec(),
                ExampleSlot::TraceUpper,
            ),
            RuleReport::mixed_width(&fields, &names),
        ];
        let verdicts = verdicts(&fields, &names, &rules);
        Report {
            totals: Totals {
                inputs: inputs_read,
                lines_with_ids: self.lines,
                occurrences: self.occurrences,
                distinct_ids: self.ids.len() as u64,
                fields: verdicts.len(),
                integer_values: fields.iter().map(|(_, s)| s.integers).sum(),
                undashed_ignored,
                trace_values: self.trace_values,
            },
            rules,
            fields: verdicts,
        }
    }

    /// The record of a value counted (every upper-case ULID and every clump's ID is one).
    fn id(&self, value: u128) -> &IdRecord {
        self.ids
            .get(&value)
            .expect("every value counted has a record")
    }

    fn mixed_case(&self, names: &Names) -> RuleReport {
        let mut report = RuleReport::new(Rule::UlidMixedCase, "ULIDs");
        let mut mixed: Vec<(u128, &UpperEntry)> = self
            .upper
            .iter()
            .filter(|(value, _)| self.id(**value).seen.lowercase_ulid)
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
            let record = self.id(value);
            let mut e = names.evidence(entry.first, entry.field, &id.ulid_bytes_cased(entry.mask));
            let lower_at = At {
                loc: record.lower,
                col: 0,
            };
            e.lowercase = Some(Box::new(names.evidence(
                lower_at,
                record.lower_field,
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
            ms: i64,
            ids: u64,
            /// The first line of any ID in it, and that ID.
            first: (Loc, u128),
        }
        let mut report = RuleReport::new(Rule::BackfillClump, "milliseconds");
        report.min_ids = Some(min_ids);
        let created = |value: u128, entry: &IdRecord| {
            (!Id(value).is_nil_or_max())
                .then(|| Id(value).unix_ms(entry.time_kind()))
                .flatten()
        };
        // Every ID's millisecond, sorted: the clumps are its long runs. Counted in a map by
        // millisecond instead, millions of IDs cost as much time and memory as their own map.
        let mut times: Vec<i64> = self
            .ids
            .iter()
            .filter_map(|(&value, entry)| created(value, entry))
            .collect();
        times.sort_unstable();
        let mut clumps: Vec<Clump> = times
            .chunk_by(|a, b| a == b)
            .filter(|run| run.len() as u64 >= min_ids)
            .map(|run| Clump {
                ms: run[0],
                ids: run.len() as u64,
                first: (Loc::NONE, u128::MAX),
            })
            .collect();
        drop(times);
        let mut per_field: BTreeMap<u32, u64> = BTreeMap::new();
        if !clumps.is_empty() {
            let clump_at: HashMap<i64, usize> =
                clumps.iter().enumerate().map(|(i, c)| (c.ms, i)).collect();
            for (&value, entry) in self.ids.iter() {
                if let Some(&i) = created(value, entry).and_then(|ms| clump_at.get(&ms)) {
                    let clump = &mut clumps[i];
                    clump.first = clump.first.min((entry.first, value));
                    *per_field.entry(entry.field).or_default() += 1;
                }
            }
        }
        clumps.sort_by_key(|c| (std::cmp::Reverse(c.ids), c.ms));
        report.count = clumps.len() as u64;
        report.ids = Some(clumps.iter().map(|c| c.ids).sum());
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
            .map(|clump| {
                let (loc, value) = clump.first;
                let entry = self.id(value);
                let token = Id(value).canonical(entry.time_kind());
                let mut e = names.evidence(At { loc, col: 0 }, entry.field, token.as_bytes());
                e.id_time = Some(clump.ms);
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
        Form::Xray => "x-ray",
        Form::Hex16 => "16-hex",
        Form::DdDecimal => "decimal",
        Form::TraceHex => "trace hex",
        Form::Traceparent => "traceparent",
        Form::B3 => "b3",
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
        let mut versions: Vec<usize> = (0..UuidVersion::ALL.len())
            .filter(|&i| stats.versions[i] > 0)
            .collect();
        versions.sort_by_key(|&i| std::cmp::Reverse(stats.versions[i]));
        let mut shown: Vec<String> = versions
            .iter()
            .take(SHOWN_VERSIONS)
            .map(|&i| UuidVersion::ALL[i].name().to_string())
            .collect();
        if versions.len() > SHOWN_VERSIONS {
            shown.push(format!("+{} more", versions.len() - SHOWN_VERSIONS));
        }
        parts.push(format!("uuid {} {}", shown.join(", "), words(Kind::Uuid)));
    }
    if integers > 0 {
        parts.push("integer".to_string());
    }
    let widths: Vec<&str> = TraceWidth::ALL
        .iter()
        .filter(|w| stats.trace_widths[**w as usize] > 0)
        .map(|w| w.words())
        .collect();
    if !widths.is_empty() {
        parts.push(format!("trace {}", widths.join("/")));
    }
    if stats.spans > 0 {
        parts.push("span".to_string());
    }
    if parts.is_empty() && stats.trace_faults.iter().any(|&n| n > 0) {
        parts.push("invalid trace IDs only".to_string());
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
            let mut traces = breakdown(&TraceWidth::ALL.map(TraceWidth::name), &stats.trace_widths);
            if stats.spans > 0 {
                traces.insert("span", stats.spans);
            }
            let trace_faults: u64 = stats.trace_faults.iter().sum();
            if occurrences + stats.integers + nil + trace_faults == 0 && traces.is_empty() {
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
                versions: breakdown(&UuidVersion::ALL.map(UuidVersion::name), &stats.versions),
                traces,
                format: describe(stats),
                consistent: issues.is_empty(),
                issues,
                field: name,
            })
        })
        .collect();
    verdicts.sort_by(|a, b| {
        let total =
            |v: &FieldVerdict| v.occurrences + v.integers + v.nil + v.traces.values().sum::<u64>();
        total(b).cmp(&total(a)).then_with(|| a.field.cmp(&b.field))
    });
    verdicts
}
