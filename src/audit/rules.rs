//! The audit's rules: their names and phrases, the parts each one counts (nil kinds,
//! formats, UUID versions, skew kinds, trace faults and widths), and their thresholds.

use crate::id::Id;
use crate::record::LineTime;

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
    TraceInvalid,
    TraceNoncanonical,
    TraceMixedWidth,
}

impl Rule {
    pub const ALL: [Rule; 12] = [
        Rule::UlidUppercase,
        Rule::UlidMixedCase,
        Rule::UuidNoncanonical,
        Rule::NilId,
        Rule::FormatMix,
        Rule::VersionMix,
        Rule::IntegerIds,
        Rule::BackfillClump,
        Rule::IdTimeSkew,
        Rule::TraceInvalid,
        Rule::TraceNoncanonical,
        Rule::TraceMixedWidth,
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
            Rule::TraceInvalid => "trace-invalid",
            Rule::TraceNoncanonical => "trace-noncanonical",
            Rule::TraceMixedWidth => "trace-mixed-width",
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
            Rule::TraceInvalid => "invalid trace IDs",
            Rule::TraceNoncanonical => "upper-case trace IDs",
            Rule::TraceMixedWidth => "64-bit trace IDs",
        }
    }
}

/// What nil-id counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NilKind {
    NilUuid,
    NilUlid,
    Max,
    Empty,
    Zero,
}

impl NilKind {
    pub(super) const ALL: [NilKind; 5] = [
        NilKind::NilUuid,
        NilKind::NilUlid,
        NilKind::Max,
        NilKind::Empty,
        NilKind::Zero,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            NilKind::NilUuid => "nil_uuid",
            NilKind::NilUlid => "nil_ulid",
            NilKind::Max => "max",
            NilKind::Empty => "empty",
            NilKind::Zero => "zero",
        }
    }
}

/// The formats format-mix tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IdFormat {
    Ulid,
    Uuid,
    Integer,
}

impl IdFormat {
    pub(super) const ALL: [IdFormat; 3] = [IdFormat::Ulid, IdFormat::Uuid, IdFormat::Integer];

    pub(super) fn name(self) -> &'static str {
        match self {
            IdFormat::Ulid => "ulid",
            IdFormat::Uuid => "uuid",
            IdFormat::Integer => "integer",
        }
    }
}

/// What id-time-skew counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SkewKind {
    AfterLine,
    Future,
}

impl SkewKind {
    pub(super) const ALL: [SkewKind; 2] = [SkewKind::AfterLine, SkewKind::Future];

    pub(super) fn name(self) -> &'static str {
        match self {
            SkewKind::AfterLine => "after_line",
            SkewKind::Future => "future",
        }
    }
}

/// What trace-invalid counts: an all-zero trace ID, an all-zero span ID (not a parent's,
/// where zero means a root span), a `traceparent` of version `ff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TraceFault {
    ZeroTrace,
    ZeroSpan,
    VersionFf,
}

impl TraceFault {
    pub(super) const ALL: [TraceFault; 3] = [
        TraceFault::ZeroTrace,
        TraceFault::ZeroSpan,
        TraceFault::VersionFf,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            TraceFault::ZeroTrace => "zero_trace",
            TraceFault::ZeroSpan => "zero_span",
            TraceFault::VersionFf => "version_ff",
        }
    }
}

/// Where trace-noncanonical found upper-case hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TraceCase {
    Traceparent,
    TraceId,
    SpanId,
}

impl TraceCase {
    pub(super) const ALL: [TraceCase; 3] = [
        TraceCase::Traceparent,
        TraceCase::TraceId,
        TraceCase::SpanId,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            TraceCase::Traceparent => "traceparent",
            TraceCase::TraceId => "trace_id",
            TraceCase::SpanId => "span_id",
        }
    }
}

/// The widths trace-mixed-width tells apart, with how a 64-bit trace ID is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TraceWidth {
    Bits128,
    Hex64,
    Decimal64,
}

impl TraceWidth {
    pub(super) const ALL: [TraceWidth; 3] = [
        TraceWidth::Bits128,
        TraceWidth::Hex64,
        TraceWidth::Decimal64,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            TraceWidth::Bits128 => "128_bit",
            TraceWidth::Hex64 => "64_bit_hex",
            TraceWidth::Decimal64 => "64_bit_decimal",
        }
    }

    /// How a field's description names it.
    pub(super) fn words(self) -> &'static str {
        match self {
            TraceWidth::Bits128 => "128-bit",
            TraceWidth::Hex64 => "64-bit",
            TraceWidth::Decimal64 => "64-bit decimal",
        }
    }
}

/// The UUID version version-mix tells apart: `NonRfc` for a value that is no RFC 9562 UUID
/// of a defined version (mostly a ULID stored as a UUID, whose version and variant bits are
/// random).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum UuidVersion {
    NonRfc,
    V1,
    V2,
    V3,
    V4,
    V5,
    V6,
    V7,
    V8,
}

impl UuidVersion {
    /// `V1` to `V8` at the index of their number.
    pub(super) const ALL: [UuidVersion; 9] = [
        UuidVersion::NonRfc,
        UuidVersion::V1,
        UuidVersion::V2,
        UuidVersion::V3,
        UuidVersion::V4,
        UuidVersion::V5,
        UuidVersion::V6,
        UuidVersion::V7,
        UuidVersion::V8,
    ];

    pub(super) fn of(id: Id) -> UuidVersion {
        match id.uuid_version() {
            Some(v) => UuidVersion::ALL[usize::from(v)],
            None => UuidVersion::NonRfc,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            UuidVersion::NonRfc => "non-rfc",
            UuidVersion::V1 => "v1",
            UuidVersion::V2 => "v2",
            UuidVersion::V3 => "v3",
            UuidVersion::V4 => "v4",
            UuidVersion::V5 => "v5",
            UuidVersion::V6 => "v6",
            UuidVersion::V7 => "v7",
            UuidVersion::V8 => "v8",
        }
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

/// An ID dated too late: how, with the ID's time and the line's, in Unix milliseconds.
#[derive(Clone, Copy, Debug)]
pub(super) struct Skewed {
    pub(super) kind: SkewKind,
    pub(super) id_ms: i64,
    pub(super) line_ms: Option<i64>,
}

/// The most a zone's offset differs from UTC (UTC+14:00, Kiribati; the far west is -12:00): a
/// line time written without an offset and read as UTC is off by up to this much.
pub(super) const UNKNOWN_ZONE_MS: i64 = 14 * 3_600_000;

/// Whether an ID with embedded time `id_ms` on a line of time `line` is dated too late: in
/// the future (which wins), or after its line by more than the skew. A line time whose zone
/// was only assumed gets [`UNKNOWN_ZONE_MS`] more: a log written in local time west of UTC
/// would otherwise put every ID hours after its line.
pub(super) fn skew(id_ms: Option<i64>, line: Option<LineTime>, limits: &Limits) -> Option<Skewed> {
    let id_ms = id_ms?;
    let line_ms = line.map(LineTime::millis);
    let zone_guessed = line.is_some_and(|t| t.zone_guessed);
    let allowed = limits.skew_ms + if zone_guessed { UNKNOWN_ZONE_MS } else { 0 };
    let kind = if id_ms > limits.future_after_ms {
        SkewKind::Future
    } else if line_ms.is_some_and(|l| id_ms.saturating_sub(l) > allowed) {
        SkewKind::AfterLine
    } else {
        return None;
    };
    Some(Skewed {
        kind,
        id_ms,
        line_ms,
    })
}
