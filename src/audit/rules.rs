//! The audit's rules: their names and phrases, the parts each one counts (nil kinds,
//! formats, UUID versions, skew kinds), and their thresholds.

use crate::id::{Id, Variant};

use super::evidence::Skewed;

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

/// What nil-id counts, by index.
pub(super) const NIL_KINDS: [&str; 5] = ["nil_uuid", "nil_ulid", "max", "empty", "zero"];
pub(super) const NIL_UUID: usize = 0;
pub(super) const NIL_ULID: usize = 1;
pub(super) const NIL_MAX: usize = 2;
pub(super) const NIL_EMPTY: usize = 3;
pub(super) const NIL_ZERO: usize = 4;

/// The formats format-mix tells apart, by index.
pub(super) const FORMATS: [&str; 3] = ["ulid", "uuid", "integer"];
pub(super) const FORMAT_ULID: usize = 0;
pub(super) const FORMAT_UUID: usize = 1;
pub(super) const FORMAT_INTEGER: usize = 2;

/// What id-time-skew counts, by index.
pub(super) const SKEWS: [&str; 2] = ["after_line", "future"];
const SKEW_AFTER_LINE: usize = 0;
const SKEW_FUTURE: usize = 1;

/// UUID version labels: index 0 for a value that is no RFC 9562 UUID of a defined version
/// (mostly a ULID stored as a UUID, whose version and variant bits are random), 1 to 8 for
/// the versions.
pub(super) const VERSIONS: [&str; 9] = ["non-rfc", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"];

pub(super) fn version_label(id: Id) -> usize {
    match (id.uuid_variant(), id.uuid_version()) {
        (Variant::Rfc9562, Some(v @ 1..=8)) => v as usize,
        _ => 0,
    }
}

/// Settings of the rules that have them.
pub(super) struct Thresholds {
    pub(super) clump: u64,
    pub(super) skew_ms: i64,
}

/// The thresholds of id-time-skew.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    pub(super) skew_ms: i64,
    /// Now plus the skew: an ID dated later is dated in the future.
    pub(super) future_after_ms: i64,
}

/// Whether an ID with embedded time `id_ms` on a line of time `line_ms` is dated too late:
/// in the future (which wins), or after its line by more than the skew.
pub(super) fn skew(id_ms: Option<i64>, line_ms: Option<i64>, limits: &Limits) -> Option<Skewed> {
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
