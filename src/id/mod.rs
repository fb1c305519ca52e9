//! The one door for IDs: everything that parses, normalises, renders or dates a ULID or a UUID
//! lives here, and nothing else in the crate does it.
//!
//! A ULID and a UUID are both one 128-bit value. The same bits may be written as a ULID
//! (26 Crockford base32 characters, either case) or as a UUID (8-4-4-4-12 hex, 32 hex without
//! dashes, `{braced}`, `urn:uuid:`), and all of them are the same [`Id`]. The canonical
//! renderings are lowercase: `01kb2x1x0m4v6f9a1t8e3q7c5d` and
//! `019375b6-0c3a-7b2e-9f41-6d2a8c0e5b13`.
//!
//! Trace and span IDs (W3C Trace Context, X-Ray, B3, Datadog) are values of the same kind: a
//! trace ID is 128 bits like a UUID, a span ID 64; `trace` holds their spellings.
//!
//! We decode Crockford base32 and hex ourselves rather than through the `ulid` and `uuid`
//! crates: the `ulid` decoder accepts a first character above `7` and silently drops the
//! overflow bits, and the scanner needs to decode straight from a byte slice of known shape
//! without allocating. Both crates serve as oracles in the tests.

use std::fmt;

/// Crockford's base32 alphabet in the canonical (lowercase) spelling.
const CROCKFORD_LOWER: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// Marks a byte that is not a digit of the alphabet in the decode tables below.
const INVALID: u8 = 0xff;

/// Crockford base32 digit values, both cases; I, L, O and U are not in the alphabet and are
/// not aliased (the ULID spec and the reference implementations reject them).
static CROCKFORD_DECODE: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < 32 {
        let c = CROCKFORD_LOWER[i];
        table[c as usize] = i as u8;
        table[c.to_ascii_uppercase() as usize] = i as u8;
        i += 1;
    }
    table
};

static HEX_DECODE: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};

/// Whether every byte of `bytes` is a hex digit, in either case. Every byte is tested, with
/// no branch, so that the compiler tests many at once: looked up in [`HEX_DECODE`] one at a
/// time, the 32 digits of each trace ID cost about a hundred instructions.
#[inline]
fn all_hex(bytes: &[u8]) -> bool {
    bytes.iter().fold(true, |all, &b| {
        all & ((b.wrapping_sub(b'0') < 10) | ((b | 0x20).wrapping_sub(b'a') < 6))
    })
}

/// Offsets of the dashes in the 36-character hex-and-dash form.
const DASHES: [usize; 4] = [8, 13, 18, 23];

/// Length of a ULID in characters.
pub const ULID_LEN: usize = 26;
/// Length of a UUID in hex-and-dash form.
pub const UUID_DASHED_LEN: usize = 36;
/// Length of a UUID written as 32 hex digits without dashes.
pub const UUID_UNDASHED_LEN: usize = 32;

/// The time between 1582-10-15 (the Gregorian epoch of UUIDv1/v6) and 1970-01-01, in units
/// of 100 ns.
const GREGORIAN_TO_UNIX_100NS: i64 = 0x01B2_1DD2_1381_4000;

/// One entity ID: 128 bits, however it was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(pub u128);

/// What an ID is, by the way it is written: a ULID, a UUID, a trace ID (128 bits, written
/// by a tracer: X-Ray, a `traceparent` or `b3` header; a 64-bit B3 or Datadog trace ID is the
/// value of its 64 bits, as OpenTelemetry pads it) or a span ID (64 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Ulid,
    Uuid,
    Trace,
    Span,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Ulid => "ulid",
            Kind::Uuid => "uuid",
            Kind::Trace => "trace",
            Kind::Span => "span",
        }
    }

    /// A span ID's 64 bits, against the 128 of the others.
    pub fn is_64_bit(self) -> bool {
        self == Kind::Span
    }
}

/// How the user wrote a query ID: what it may be follows from it (32 bare hex may be a UUID
/// or a trace ID).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Written {
    /// A ULID or a TypeID.
    Ulid,
    /// The hex-and-dash form, braced or `urn:uuid:`.
    Uuid,
    /// 32 hex digits: a UUID layout, or a W3C / OpenTelemetry trace ID.
    Hex32,
    /// `1-<8 hex>-<24 hex>`, or an `X-Amzn-Trace-Id` value.
    Xray,
    /// `00-<trace>-<span>-<flags>`.
    Traceparent,
    /// The single `b3` header with a 128-bit trace ID.
    B3,
    /// The single `b3` header with a 64-bit trace ID.
    B3Trace64,
    /// 16 hex digits.
    SpanHex,
    /// A decimal of 12 to 20 digits, as Datadog shows its IDs: a span ID or a 64-bit trace ID.
    Decimal,
}

/// The layout of an ID token as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    Ulid,
    /// 8-4-4-4-12 hex.
    UuidDashed,
    /// 32 hex digits.
    UuidUndashed,
    /// An X-Ray trace ID, `1-<8 hex>-<24 hex>`.
    Xray,
    /// 16 hex digits: a span ID, or a trace ID's low 64 bits in a trace field.
    Hex16,
    /// An unsigned decimal in a trace or span field (Datadog's `dd.trace_id`, `dd.span_id`).
    Decimal,
}

impl Shape {
    pub fn kind(self) -> Kind {
        match self {
            Shape::Ulid => Kind::Ulid,
            Shape::UuidDashed | Shape::UuidUndashed => Kind::Uuid,
            Shape::Xray => Kind::Trace,
            Shape::Hex16 | Shape::Decimal => Kind::Span,
        }
    }

    /// The token's length; for a decimal, the most digits it may have.
    pub fn width(self) -> usize {
        match self {
            Shape::Ulid => ULID_LEN,
            Shape::UuidDashed => UUID_DASHED_LEN,
            Shape::UuidUndashed => UUID_UNDASHED_LEN,
            Shape::Xray => trace::XRAY_LEN,
            Shape::Hex16 => trace::SPAN_HEX_LEN,
            Shape::Decimal => trace::DECIMAL_MAX_LEN,
        }
    }
}

/// How one occurrence of an ID was written: its rendering, letter case and wrapping. The
/// names are stable (they are keys of `ids --json` and the subject of `audit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Form {
    UlidLower,
    UlidUpper,
    UlidMixed,
    UuidLower,
    UuidUpper,
    UuidMixed,
    /// 32 hex digits, any case.
    UuidUndashed,
    /// `{...}` around the hex-and-dash form, any case.
    UuidBraced,
    /// `urn:uuid:` before the hex-and-dash form, any case.
    UuidUrn,
    /// An X-Ray trace ID, `1-<8 hex>-<24 hex>`.
    Xray,
    /// 16 hex digits in a trace or span field.
    Hex16,
    /// A decimal in a trace or span field, as Datadog writes them.
    DdDecimal,
    /// 32 hex digits, any case, in a trace field (`trace_id`, `traceId`, `X-B3-TraceId`, ...):
    /// the W3C / OpenTelemetry spelling of a trace ID.
    TraceHex,
    /// Inside a W3C `traceparent` value (its trace ID, or its parent span ID).
    Traceparent,
    /// Inside a single `b3` header value (its trace ID, span ID or parent span ID).
    B3,
}

impl Form {
    pub const ALL: [Form; 15] = [
        Form::UlidLower,
        Form::UlidUpper,
        Form::UlidMixed,
        Form::UuidLower,
        Form::UuidUpper,
        Form::UuidMixed,
        Form::UuidUndashed,
        Form::UuidBraced,
        Form::UuidUrn,
        Form::Xray,
        Form::Hex16,
        Form::DdDecimal,
        Form::TraceHex,
        Form::Traceparent,
        Form::B3,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Form::UlidLower => "ulid_lower",
            Form::UlidUpper => "ulid_upper",
            Form::UlidMixed => "ulid_mixed",
            Form::UuidLower => "uuid_lower",
            Form::UuidUpper => "uuid_upper",
            Form::UuidMixed => "uuid_mixed",
            Form::UuidUndashed => "uuid_undashed",
            Form::UuidBraced => "uuid_braced",
            Form::UuidUrn => "uuid_urn",
            Form::Xray => "xray",
            Form::Hex16 => "hex16",
            Form::DdDecimal => "dd_decimal",
            Form::TraceHex => "trace_hex",
            Form::Traceparent => "traceparent",
            Form::B3 => "b3",
        }
    }

    pub fn kind(self) -> Kind {
        match self {
            Form::UlidLower | Form::UlidUpper | Form::UlidMixed => Kind::Ulid,
            // A header holds a trace ID and span IDs, and a 16-hex or decimal value is a span
            // ID or a 64-bit trace ID: what a value is, its field or place says, not its form.
            Form::Xray | Form::TraceHex | Form::Traceparent | Form::B3 => Kind::Trace,
            Form::Hex16 | Form::DdDecimal => Kind::Span,
            _ => Kind::Uuid,
        }
    }

    /// The canonical forms: lowercase ULID, lowercase hex-and-dash UUID.
    pub fn is_canonical(self) -> bool {
        matches!(self, Form::UlidLower | Form::UuidLower)
    }

    /// Where the token `[start, end)` of this form is written with its wrapping: the braces
    /// of `{...}`, the `urn:uuid:` before it.
    pub fn written_span(self, start: usize, end: usize) -> (usize, usize) {
        match self {
            Form::UuidBraced => (start - 1, end + 1),
            Form::UuidUrn => (start - URN_PREFIX.len(), end),
            _ => (start, end),
        }
    }

    /// Classifies the token `line[start..end]`, of the given shape, with the bytes around it
    /// (a brace pair or a `urn:uuid:` prefix). Wrapping wins over case: `{ABC...}` is braced.
    pub fn of(shape: Shape, line: &[u8], start: usize, end: usize) -> Form {
        let token = &line[start..end];
        match shape {
            Shape::Ulid => match letter_cases(token) {
                (true, false) => Form::UlidUpper,
                (true, true) => Form::UlidMixed,
                _ => Form::UlidLower,
            },
            Shape::UuidUndashed => Form::UuidUndashed,
            Shape::Xray => Form::Xray,
            Shape::Hex16 => Form::Hex16,
            Shape::Decimal => Form::DdDecimal,
            Shape::UuidDashed => {
                const URN: &[u8] = b"urn:uuid:";
                if start > 0 && line[start - 1] == b'{' && line.get(end) == Some(&b'}') {
                    Form::UuidBraced
                } else if start >= URN.len()
                    && line[start - 1] == b':'
                    && line[start - URN.len()..start].eq_ignore_ascii_case(URN)
                {
                    Form::UuidUrn
                } else {
                    match letter_cases(token) {
                        (true, false) => Form::UuidUpper,
                        (true, true) => Form::UuidMixed,
                        _ => Form::UuidLower,
                    }
                }
            }
        }
    }
}

/// Whether an ID token (letters, digits and dashes) holds an uppercase letter, and whether
/// it holds a lowercase one. In ASCII, bit 0x40 marks a letter among these bytes, and bit
/// 0x20 a lowercase one. A byte loop took about a hundred instructions per occurrence, as
/// many as the rest of its counting; eight bytes at a time, seventy.
fn letter_cases(token: &[u8]) -> (bool, bool) {
    let n = token.len();
    debug_assert!((24..=40).contains(&n), "an ID token");
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let window = |at: usize| -> &[u8; 16] { token[at..at + 16].try_into().expect("16 bytes") };
        // Windows at 0, 16 (or less) and n - 16 cover up to 48 bytes (IDs are 26, 32 or 36);
        // a byte read twice changes nothing.
        let windows = [window(0), window(16.min(n - 16)), window(n - 16)];
        // SAFETY: SSE2 is part of x86_64, and each load reads one 16-byte array.
        let (upper, lower) = unsafe {
            let (letter_bit, lower_bit) = (_mm_set1_epi8(0x40), _mm_set1_epi8(0x20));
            let (mut upper, mut lower) = (_mm_setzero_si128(), _mm_setzero_si128());
            for w in windows {
                let v = _mm_loadu_si128(w.as_ptr().cast());
                let letter = _mm_cmpeq_epi8(_mm_and_si128(v, letter_bit), letter_bit);
                let small = _mm_cmpeq_epi8(_mm_and_si128(v, lower_bit), lower_bit);
                upper = _mm_or_si128(upper, _mm_andnot_si128(small, letter));
                lower = _mm_or_si128(lower, _mm_and_si128(small, letter));
            }
            (_mm_movemask_epi8(upper), _mm_movemask_epi8(lower))
        };
        (upper != 0, lower != 0)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let word = |at: usize| u64::from_le_bytes(token[at..at + 8].try_into().expect("8 bytes"));
        // These five windows cover 24 to 40 bytes; a byte read twice changes nothing.
        let (mut upper, mut lower) = (0, 0);
        for word in [word(0), word(8), word(16), word(24.min(n - 8)), word(n - 8)] {
            // Shifted one bit up, each byte's 0x20 bit lands on its 0x40 bit.
            let letters = word & 0x4040_4040_4040_4040;
            upper |= letters & !(word << 1);
            lower |= letters & (word << 1);
        }
        (upper != 0, lower != 0)
    }
}

/// UUID variant field (RFC 9562 section 4.1), with the two special values the RFC names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    Ncs,
    Rfc9562,
    Microsoft,
    Future,
    Nil,
    Max,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Ncs => "ncs",
            Variant::Rfc9562 => "rfc9562",
            Variant::Microsoft => "microsoft",
            Variant::Future => "future",
            Variant::Nil => "nil",
            Variant::Max => "max",
        }
    }
}

/// Why a string is not an ID. Positions are 1-based character positions in the input as the
/// user typed it, so the message can point at the culprit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    Empty,
    Length(usize),
    BadChar {
        pos: usize,
        ch: char,
        kind: Kind,
    },
    MisplacedDash {
        pos: usize,
    },
    Overflow {
        first: char,
    },
    UnclosedBrace,
    /// A TypeID whose prefix holds `ch` at `pos`: prefixes are lowercase letters and `_`.
    TypeIdPrefix {
        pos: usize,
        ch: char,
    },
    /// An all-zero trace or span ID, which W3C Trace Context and B3 call invalid.
    ZeroTrace {
        what: &'static str,
    },
    /// A trace header value of the wrong layout; `what` says the right one.
    TraceForm {
        what: &'static str,
    },
    /// A non-hex character in a trace or span ID.
    BadTraceChar {
        pos: usize,
        ch: char,
        kind: &'static str,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Empty => write!(f, "empty ID"),
            ParseError::Length(n) => write!(
                f,
                "length {n}: a ULID has 26 characters, a UUID 36 or 32, a span ID 16, an X-Ray \
                 trace ID 35, a Datadog decimal 12 to 20 digits"
            ),
            ParseError::BadChar {
                pos,
                ch,
                kind: Kind::Ulid,
            } => write!(
                f,
                "bad character {ch:?} at position {pos}: a ULID uses Crockford base32 \
                 (0-9 and A-Z without I, L, O, U)"
            ),
            ParseError::BadChar { pos, ch, .. } => write!(
                f,
                "bad character {ch:?} at position {pos}: a UUID uses hex digits 0-9, a-f"
            ),
            ParseError::MisplacedDash { pos } => write!(
                f,
                "bad character at position {pos}: a dashed UUID has dashes after 8, 12, 16 \
                 and 20 hex digits"
            ),
            ParseError::Overflow { first } => write!(
                f,
                "overflow: a ULID starting with {first:?} exceeds 128 bits (the first \
                 character must be 0-7)"
            ),
            ParseError::UnclosedBrace => write!(f, "a braced UUID needs both {{ and }}"),
            ParseError::TypeIdPrefix { pos, ch } => write!(
                f,
                "bad character {ch:?} at position {pos} of a TypeID prefix: a prefix is \
                 lowercase letters a-z and _ (order_01m8...)"
            ),
            ParseError::ZeroTrace { what } => write!(
                f,
                "all-zero {what} ID: W3C Trace Context and B3 call it invalid (no trace or \
                 span is all zero)"
            ),
            ParseError::TraceForm { what } => write!(f, "{what}"),
            ParseError::BadTraceChar { pos, ch, kind } => write!(
                f,
                "bad character {ch:?} at position {pos}: a {kind} ID uses hex digits 0-9, a-f"
            ),
        }
    }
}

impl std::error::Error for ParseError {}

/// A parsed argument: the value, what it is, and how the user wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub id: Id,
    pub kind: Kind,
    pub written: Written,
}

/// The forms accepted on the command line, for error messages.
pub const ACCEPTED_FORMS: &str = "a ULID or a TypeID (prefix_<ulid>), a UUID (8-4-4-4-12, 32 hex, \
     {braced} or urn:uuid:), a trace ID (32 hex, X-Ray 1-<8 hex>-<24 hex>, a traceparent, b3 or \
     Root=... value), a span ID (16 hex), in any case, or a Datadog span or trace ID (a decimal of \
     12 to 20 digits)";

impl Parsed {
    /// The creation time the ID carries: an X-Ray trace ID's seconds, else as [`Id::unix_ms`].
    pub fn unix_ms(self) -> Option<i64> {
        match self.written {
            Written::Xray => Some(self.id.xray_unix_ms()),
            _ => self.id.unix_ms(self.kind),
        }
    }

    /// A short description of what the ID may be: 32 bare hex is a UUID layout or a trace ID
    /// (`uuid v4 layout or trace`), never plainly a UUID; a value that fits in 64 bits is a
    /// 64-bit trace.
    pub fn describe(self) -> &'static str {
        match self.written {
            Written::Decimal => "span or trace (64-bit)",
            _ if self.is_trace64() => "trace (64-bit)",
            Written::Hex32 if self.may_be_trace() => match self.id.describe(Kind::Uuid) {
                "uuid v1" => "uuid v1 layout or trace",
                "uuid v2" => "uuid v2 layout or trace",
                "uuid v3" => "uuid v3 layout or trace",
                "uuid v4" => "uuid v4 layout or trace",
                "uuid v5" => "uuid v5 layout or trace",
                "uuid v6" => "uuid v6 layout or trace",
                "uuid v7" => "uuid v7 layout or trace",
                "uuid v8" => "uuid v8 layout or trace",
                "uuid max" => "uuid max layout or trace",
                _ => "uuid non-rfc layout or trace",
            },
            _ => self.id.describe(self.kind),
        }
    }

    /// Whether the value may be a trace ID, and so is looked for in the trace spellings too:
    /// 32 bare hex may be a UUID, and a Datadog decimal a span ID.
    pub fn may_be_trace(self) -> bool {
        // All zeros is the nil UUID, and no trace ID.
        (matches!(self.written, Written::Hex32 | Written::Decimal) || self.kind == Kind::Trace)
            && self.id.0 != 0
    }

    /// A 64-bit trace ID (B3's or Datadog's): a trace whose value fits in 64 bits, as a `b3`
    /// value with 16 hex digits writes it, or as OpenTelemetry pads it to 32. It is the low
    /// half of the 128-bit trace the fleet's other tracers write, so a search finds that
    /// trace's spellings too.
    pub fn is_trace64(self) -> bool {
        self.may_be_trace() && self.id.0 >> 64 == 0
    }
}

/// Parses an ID the user typed: a ULID, a TypeID (`user_01h455vb4pex5vsknk084sn02q`), or a
/// UUID in any of its forms. Surrounding whitespace is ignored.
pub fn parse(input: &str) -> Result<Parsed, ParseError> {
    let trimmed = input.trim();
    let lead = input.len() - input.trim_start().len();
    let (body, offset) = strip_wrappers(trimmed)?;
    let offset = lead + offset;
    if body.is_empty() {
        return Err(ParseError::Empty);
    }
    if let Some(trace) = trace::parse_trace(body, &|i| offset + i + 1) {
        return trace;
    }
    if let Some(decimal) = trace::parse_decimal(body) {
        return decimal;
    }
    let bytes = body.as_bytes();
    // A TypeID is `prefix_suffix` where the suffix is a ULID-style encoding of the 128 bits.
    if let Some(us) = body.rfind('_') {
        let prefix = &body[..us];
        let suffix = &bytes[us + 1..];
        let bad_prefix_char = prefix
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii_lowercase() || c == '_'));
        // A prefix in the wrong case before a ULID-long suffix is a TypeID written wrong, not
        // a UUID with bad digits.
        if let (Some((i, ch)), ULID_LEN) = (bad_prefix_char, suffix.len())
            && !prefix.is_empty()
        {
            return Err(ParseError::TypeIdPrefix {
                pos: offset + i + 1,
                ch,
            });
        }
        if !prefix.is_empty() && bad_prefix_char.is_none() {
            if suffix.len() != ULID_LEN {
                return Err(ParseError::Length(suffix.len()));
            }
            let at = |i: usize| offset + us + 1 + i + 1;
            return decode_ulid_checked(suffix, at).map(|id| Parsed {
                id,
                kind: Kind::Ulid,
                written: Written::Ulid,
            });
        }
    }
    let at = |i: usize| offset + i + 1;
    match bytes.len() {
        ULID_LEN => decode_ulid_checked(bytes, at).map(|id| Parsed {
            id,
            kind: Kind::Ulid,
            written: Written::Ulid,
        }),
        UUID_DASHED_LEN => decode_dashed_checked(bytes, at).map(|id| Parsed {
            id,
            kind: Kind::Uuid,
            written: Written::Uuid,
        }),
        UUID_UNDASHED_LEN if !bytes.contains(&b'-') => {
            // Braces or `urn:uuid:` around 32 hex make it a UUID, not a trace ID.
            let unquoted = trimmed.trim_matches(|c| c == '"' || c == '\'');
            let written = if body.len() == unquoted.len() {
                Written::Hex32
            } else {
                Written::Uuid
            };
            decode_hex_checked(bytes, at).map(|id| {
                // Bare hex with its high 64 bits zero is no UUID of any version: a 64-bit
                // trace ID as OpenTelemetry pads it (and as `ids` lists it).
                let padded_trace = written == Written::Hex32 && id.0 >> 64 == 0 && id.0 != 0;
                Parsed {
                    id,
                    kind: if padded_trace {
                        Kind::Trace
                    } else {
                        Kind::Uuid
                    },
                    written,
                }
            })
        }
        n => Err(ParseError::Length(n)),
    }
}

/// The prefix of the URN form of a UUID (RFC 9562 section 4), any case.
/// Whether a token the scanner found is a number rather than an ID: ULID-shaped, digits only,
/// and not the nil ULID (`00000000000000000000000000`, a placeholder the audit reports). A
/// 26-digit reference (`txn_ref=20261201100000123456789012`) decodes as a ULID of the year
/// 4202; `ids`, `audit` and the timeline's related IDs leave such tokens out, while a query
/// for one still finds it.
pub fn is_number(shape: Shape, token: &[u8]) -> bool {
    shape == Shape::Ulid && token.iter().all(u8::is_ascii_digit) && token.iter().any(|&b| b != b'0')
}

/// The prefix of a TypeID as written (`order` of `order_01m8...`), when `input` is one.
pub fn typeid_prefix(input: &str) -> Option<&str> {
    let (body, _) = strip_wrappers(input.trim()).ok()?;
    let (prefix, suffix) = body.rsplit_once('_')?;
    (!prefix.is_empty() && suffix.len() == ULID_LEN && parse(input).is_ok()).then_some(prefix)
}

pub const URN_PREFIX: &[u8] = b"urn:uuid:";

/// True when `urn:uuid:` (any case) ends at `line[at]`.
pub fn has_urn_prefix(line: &[u8], at: usize) -> bool {
    at >= URN_PREFIX.len() && line[at - URN_PREFIX.len()..at].eq_ignore_ascii_case(URN_PREFIX)
}

/// Bit `i` set when byte `i` of `token` is an upper-case letter: with the value, this gives
/// back a ULID or an undashed UUID as written (they have at most 32 characters).
pub fn case_mask(token: &[u8]) -> u32 {
    token
        .iter()
        .take(32)
        .enumerate()
        .filter(|(_, b)| b.is_ascii_uppercase())
        .fold(0, |mask, (i, _)| mask | 1 << i)
}

/// `lower` with the letters at the bits of `mask` in upper case.
fn with_case<const N: usize>(mut lower: [u8; N], mask: u32) -> [u8; N] {
    for (i, b) in lower.iter_mut().enumerate().take(32) {
        if mask & 1 << i != 0 {
            *b = b.to_ascii_uppercase();
        }
    }
    lower
}

/// Removes `urn:uuid:` and `{...}` around a UUID; returns the body and its byte offset.
fn strip_wrappers(s: &str) -> Result<(&str, usize), ParseError> {
    const URN: &[u8] = b"urn:uuid:";
    // A quoted ID, as jq and JSON print them: `"01m8..."`.
    if let Some(inner) = s
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .or_else(|| {
            s.strip_prefix('\'')
                .and_then(|rest| rest.strip_suffix('\''))
        })
    {
        return strip_wrappers(inner).map(|(body, offset)| (body, offset + 1));
    }
    // Compared as bytes: the input may hold any characters, and a cut inside one would panic.
    if s.as_bytes()
        .get(..URN.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(URN))
    {
        return Ok((&s[URN.len()..], URN.len()));
    }
    match (s.starts_with('{'), s.ends_with('}') && s.len() > 1) {
        (true, true) => Ok((&s[1..s.len() - 1], 1)),
        (false, false) => Ok((s, 0)),
        _ => Err(ParseError::UnclosedBrace),
    }
}

fn char_at(bytes: &[u8], i: usize) -> char {
    // Non-ASCII input: report the character, not a byte of its encoding.
    std::str::from_utf8(&bytes[i..])
        .ok()
        .and_then(|s| s.chars().next())
        .unwrap_or(bytes[i] as char)
}

fn decode_ulid_checked(bytes: &[u8], at: impl Fn(usize) -> usize) -> Result<Id, ParseError> {
    if let Some(i) = bytes
        .iter()
        .position(|&b| CROCKFORD_DECODE[b as usize] == INVALID)
    {
        return Err(ParseError::BadChar {
            pos: at(i),
            ch: char_at(bytes, i),
            kind: Kind::Ulid,
        });
    }
    decode_ulid(bytes).ok_or(ParseError::Overflow {
        first: bytes[0] as char,
    })
}

fn decode_hex_checked(bytes: &[u8], at: impl Fn(usize) -> usize) -> Result<Id, ParseError> {
    if let Some(i) = bytes
        .iter()
        .position(|&b| HEX_DECODE[b as usize] == INVALID)
    {
        return Err(ParseError::BadChar {
            pos: at(i),
            ch: char_at(bytes, i),
            kind: Kind::Uuid,
        });
    }
    Ok(decode_hex(bytes).expect("all bytes are hex"))
}

fn decode_dashed_checked(bytes: &[u8], at: impl Fn(usize) -> usize) -> Result<Id, ParseError> {
    for (i, &b) in bytes.iter().enumerate() {
        let want_dash = DASHES.contains(&i);
        if want_dash != (b == b'-') {
            return Err(ParseError::MisplacedDash { pos: at(i) });
        }
        if !want_dash && HEX_DECODE[b as usize] == INVALID {
            return Err(ParseError::BadChar {
                pos: at(i),
                ch: char_at(bytes, i),
                kind: Kind::Uuid,
            });
        }
    }
    Ok(decode_dashed(bytes).expect("checked above"))
}

/// Decodes 26 Crockford base32 characters (either case). `None` if a character is not in the
/// alphabet or the first one is above `7` (the value would not fit in 128 bits).
#[inline]
pub fn decode_ulid(bytes: &[u8]) -> Option<Id> {
    if bytes.len() != ULID_LEN {
        return None;
    }
    let first = CROCKFORD_DECODE[bytes[0] as usize];
    if first > 7 {
        return None;
    }
    // Three u64 lanes (8 + 60 + 60 bits) instead of one u128 shift chain: u128 shifts
    // cost several instructions each.
    let mut bad = 0u8;
    let mut lane = |chars: &[u8]| {
        chars.iter().fold(0u64, |acc, &b| {
            let d = CROCKFORD_DECODE[b as usize];
            bad |= d;
            (acc << 5) | (d & 0x1f) as u64
        })
    };
    let top = ((first as u64) << 5) | lane(&bytes[1..2]);
    let middle = lane(&bytes[2..14]);
    let low = lane(&bytes[14..26]);
    let value = (top as u128) << 120 | (middle as u128) << 60 | low as u128;
    // INVALID has bit 7 set; every valid digit is below 32.
    (bad & 0x80 == 0).then_some(Id(value))
}

/// Decodes 32 hex digits (either case), as two halves of 16 decoded a word at a time
/// ([`trace::decode_hex64`]): a table lookup per digit cost about 160 instructions an ID.
#[inline]
pub fn decode_hex(bytes: &[u8]) -> Option<Id> {
    if bytes.len() != UUID_UNDASHED_LEN {
        return None;
    }
    let (high, low) = bytes.split_at(trace::SPAN_HEX_LEN);
    let high = trace::decode_hex64(high)?;
    let low = trace::decode_hex64(low)?;
    Some(Id(u128::from(high) << 64 | u128::from(low)))
}

/// Positions of the 32 hex digits in the 36-character hex-and-dash form.
const DASHED_DIGITS: [usize; 32] = {
    let mut at = [0usize; 32];
    let mut i = 0;
    let mut d = 0;
    while i < UUID_DASHED_LEN {
        if i != 8 && i != 13 && i != 18 && i != 23 {
            at[d] = i;
            d += 1;
        }
        i += 1;
    }
    at
};

/// Decodes the 36-character hex-and-dash form (either case).
#[inline]
pub fn decode_dashed(bytes: &[u8]) -> Option<Id> {
    let bytes: &[u8; UUID_DASHED_LEN] = bytes.try_into().ok()?;
    if DASHES.iter().any(|&i| bytes[i] != b'-') {
        return None;
    }
    let mut value = 0u128;
    let mut bad = 0u8;
    for &i in &DASHED_DIGITS {
        let d = HEX_DECODE[bytes[i] as usize];
        bad |= d;
        value = (value << 4) | (d & 0xf) as u128;
    }
    (bad & 0x80 == 0).then_some(Id(value))
}

/// Decodes a token of a known shape.
#[inline]
pub fn decode_shape(shape: Shape, bytes: &[u8]) -> Option<Id> {
    match shape {
        Shape::Ulid => decode_ulid(bytes),
        Shape::UuidDashed => decode_dashed(bytes),
        Shape::UuidUndashed => decode_hex(bytes),
        Shape::Xray => trace::decode_xray(bytes),
        Shape::Hex16 => trace::decode_hex64(bytes).map(|v| Id(v.into())),
        Shape::Decimal => trace::decode_decimal(bytes).map(|v| Id(v.into())),
    }
}

/// True for the bytes that may not touch an ID token: an ID is a whole token when the bytes
/// before and after it are not ASCII letters or digits.
#[inline]
pub fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// The eight hex digits of `value`, most significant first: each nibble spread to a byte of
/// a word, then turned into its digit in every byte at once.
fn hex8(value: u32) -> [u8; 8] {
    let x = u64::from(value);
    let x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    let x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    // Byte k holds nibble k, counted from the least significant.
    let nibbles = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    // 1 in the bytes of 10 and more, which go from `:` on to `a` on (39 further).
    let letters = ((nibbles + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    (nibbles + 0x3030_3030_3030_3030 + letters * 39).to_be_bytes()
}

/// The eight Crockford base-32 digits of the low 40 bits of `value`, most significant first:
/// each 5-bit group spread to a byte of a word, then turned into its digit in every byte at
/// once (the alphabet skips `i`, `l`, `o` and `u`).
fn crockford8(value: u64) -> [u8; 8] {
    const LOW20: u64 = 0x000f_ffff;
    const LOW10: u64 = 0x0000_03ff_0000_03ff;
    const LOW5: u64 = 0x001f_001f_001f_001f;
    let x = (value & LOW20) | (value >> 20 & LOW20) << 32;
    let x = (x & LOW10) | (x >> 10 & LOW10) << 16;
    // Byte k holds group k, counted from the least significant.
    let groups = (x & LOW5) | (x >> 5 & LOW5) << 8;
    // 1 in the bytes whose group is `at_least` or more: no byte carries into the next.
    let from = |at_least: u64| {
        ((groups + (0x80 - at_least) * 0x0101_0101_0101_0101) >> 7) & 0x0101_0101_0101_0101
    };
    let digits =
        groups + 0x3030_3030_3030_3030 + from(10) * 39 + from(18) + from(20) + from(22) + from(27);
    digits.to_be_bytes()
}

impl Id {
    /// The ULID rendering, lowercase: the first digit holds the top 3 bits, then three
    /// groups of eight digits render 40 bits each a word at a time (a table lookup per digit,
    /// after a 128-bit shift per digit, took about 180 instructions an ID).
    pub fn ulid_bytes(self) -> [u8; ULID_LEN] {
        const FORTY: u128 = (1 << 40) - 1;
        let mut out = [0u8; ULID_LEN];
        let top = (self.0 >> 120) as u8;
        out[0] = CROCKFORD_LOWER[usize::from(top >> 5)];
        out[1] = CROCKFORD_LOWER[usize::from(top & 0x1f)];
        for (group, shift) in [80, 40, 0].into_iter().enumerate() {
            let digits = crockford8(((self.0 >> shift) & FORTY) as u64);
            out[2 + 8 * group..10 + 8 * group].copy_from_slice(&digits);
        }
        out
    }

    /// The UUID rendering, lowercase hex-and-dash.
    pub fn uuid_bytes(self) -> [u8; UUID_DASHED_LEN] {
        let hex = self.hex_bytes();
        let mut out = [b'-'; UUID_DASHED_LEN];
        // The groups between the dashes, copied whole: looking up each position among the
        // dashes cost more than rendering the digits.
        // A plain array of the bounds, so that the loop unrolls into fixed-size copies (the
        // same bounds as chained iterators left a `memcpy` call per group).
        let groups = [
            (0, DASHES[0]),
            (DASHES[0] + 1, DASHES[1]),
            (DASHES[1] + 1, DASHES[2]),
            (DASHES[2] + 1, DASHES[3]),
            (DASHES[3] + 1, UUID_DASHED_LEN),
        ];
        let mut from = 0;
        for (start, end) in groups {
            out[start..end].copy_from_slice(&hex[from..from + end - start]);
            from += end - start;
        }
        out
    }

    /// 32 lowercase hex digits, the bytes of the ID in order, eight at a time.
    pub fn hex_bytes(self) -> [u8; UUID_UNDASHED_LEN] {
        let mut out = [0u8; UUID_UNDASHED_LEN];
        for (group, shift) in [96, 64, 32, 0].into_iter().enumerate() {
            out[8 * group..8 * group + 8].copy_from_slice(&hex8((self.0 >> shift) as u32));
        }
        out
    }

    /// The ULID rendering with the letters marked in `mask` (see [`case_mask`]) in upper case.
    pub fn ulid_bytes_cased(self, mask: u32) -> [u8; ULID_LEN] {
        with_case(self.ulid_bytes(), mask)
    }

    /// The 32-hex rendering with the letters marked in `mask` in upper case.
    pub fn hex_bytes_cased(self, mask: u32) -> [u8; UUID_UNDASHED_LEN] {
        with_case(self.hex_bytes(), mask)
    }

    pub fn ulid(self) -> String {
        ascii(&self.ulid_bytes())
    }

    pub fn uuid(self) -> String {
        ascii(&self.uuid_bytes())
    }

    pub fn hex(self) -> String {
        ascii(&self.hex_bytes())
    }

    /// The canonical rendering for IDs written as `kind`.
    pub fn canonical(self, kind: Kind) -> String {
        match kind {
            Kind::Ulid => self.ulid(),
            Kind::Uuid => self.uuid(),
            Kind::Trace => self.hex(),
            Kind::Span => self.hex16(),
        }
    }

    /// The nil (all zeros) or max (all ones) value: a placeholder, not an entity, whichever
    /// way it is written (the all-zero ULID is the nil UUID's bits).
    pub fn is_nil_or_max(self) -> bool {
        self.0 == 0 || self.0 == u128::MAX
    }

    /// The RFC 9562 version, 1 to 8. `None` for the nil and max UUIDs and for every value whose
    /// variant or version bits name no RFC 9562 version (mostly ULIDs stored as UUIDs): their
    /// version nibble is random, and reporting it would contradict `uuid non-rfc`.
    pub fn uuid_version(self) -> Option<u8> {
        if self.uuid_variant() != Variant::Rfc9562 {
            return None;
        }
        match ((self.0 >> 76) & 0xf) as u8 {
            v @ 1..=8 => Some(v),
            _ => None,
        }
    }

    pub fn uuid_variant(self) -> Variant {
        match self.0 {
            0 => Variant::Nil,
            u128::MAX => Variant::Max,
            v => {
                let top = (v >> 61) & 0b111;
                match top {
                    0b000..=0b011 => Variant::Ncs,
                    0b100 | 0b101 => Variant::Rfc9562,
                    0b110 => Variant::Microsoft,
                    _ => Variant::Future,
                }
            }
        }
    }

    /// The creation time the ID carries, in unix milliseconds, read as `kind`: a ULID's first
    /// 48 bits; for a UUID of the RFC variant, v7's first 48 bits, or v1's and v6's 60-bit count
    /// of 100 ns since 1582-10-15. Other UUIDs (v3, v4, v5, v8, nil, max, other variants) carry
    /// none: v8's layout is application-defined, so we do not guess.
    pub fn unix_ms(self, kind: Kind) -> Option<i64> {
        let v = self.0;
        match kind {
            Kind::Ulid => return Some((v >> 80) as i64),
            // A W3C trace ID is random; only its X-Ray spelling says the first 32 bits are
            // seconds (see `Parsed::unix_ms`).
            Kind::Trace | Kind::Span => return None,
            Kind::Uuid => {}
        }
        let ticks = match self.uuid_version()? {
            7 => return Some((v >> 80) as i64),
            1 => {
                let time_low = (v >> 96) & 0xffff_ffff;
                let time_mid = (v >> 80) & 0xffff;
                let time_hi = (v >> 64) & 0x0fff;
                (time_hi << 48) | (time_mid << 32) | time_low
            }
            6 => {
                let time_high = (v >> 96) & 0xffff_ffff;
                let time_mid = (v >> 80) & 0xffff;
                let time_low = (v >> 64) & 0x0fff;
                (time_high << 28) | (time_mid << 12) | time_low
            }
            _ => return None,
        };
        Some((ticks as i64 - GREGORIAN_TO_UNIX_100NS).div_euclid(10_000))
    }

    /// The version to report for an ID written as `kind`: ULIDs have none.
    pub fn version(self, kind: Kind) -> Option<u8> {
        match kind {
            Kind::Uuid => self.uuid_version(),
            Kind::Ulid | Kind::Trace | Kind::Span => None,
        }
    }

    /// The variant to report for an ID written as `kind`: ULIDs have none.
    pub fn variant(self, kind: Kind) -> Option<Variant> {
        match kind {
            Kind::Uuid => Some(self.uuid_variant()),
            Kind::Ulid | Kind::Trace | Kind::Span => None,
        }
    }

    /// A short human description: `ulid`, `uuid v7`, `uuid nil`, `uuid non-rfc`.
    pub fn describe(self, kind: Kind) -> &'static str {
        const VERSIONS: [&str; 9] = [
            "", "uuid v1", "uuid v2", "uuid v3", "uuid v4", "uuid v5", "uuid v6", "uuid v7",
            "uuid v8",
        ];
        match kind {
            Kind::Ulid => "ulid",
            Kind::Trace => "trace",
            Kind::Span => "span",
            Kind::Uuid => match (self.uuid_variant(), self.uuid_version()) {
                (Variant::Nil, _) => "uuid nil",
                (Variant::Max, _) => "uuid max",
                (_, Some(v)) => VERSIONS[usize::from(v)],
                // Not an RFC 9562 UUID of a defined version (mostly a ULID stored as a UUID,
                // whose version and variant bits are random): the audit's word for it too.
                _ => "uuid non-rfc",
            },
        }
    }

    /// Appends the canonical rendering for IDs written as `kind`, without allocating.
    pub fn write_canonical(self, kind: Kind, out: &mut Vec<u8>) {
        match kind {
            Kind::Ulid => out.extend_from_slice(&self.ulid_bytes()),
            Kind::Uuid => out.extend_from_slice(&self.uuid_bytes()),
            Kind::Trace => out.extend_from_slice(&self.hex_bytes()),
            Kind::Span => out.extend_from_slice(&self.hex_bytes()[UUID_UNDASHED_LEN / 2..]),
        }
    }
}

fn ascii(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| b as char).collect()
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod sse41;
pub mod trace;
pub mod trace_value;

#[cfg(test)]
mod tests;
