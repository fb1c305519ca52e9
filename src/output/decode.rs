//! The decode printer: what one ID holds, as a text block or a JSON object.

use std::io::Write;

use serde::Serialize;

use crate::id::{Parsed, Written};
use crate::text::{HEADER_COLOR, escape_into, paint};

/// The JSON object `idgrep decode --json` prints per ID.
#[derive(Serialize, Debug)]
pub struct Decoded {
    pub input: String,
    pub id: String,
    pub kind: &'static str,
    /// What the value may be, in words: `uuid v4 layout or trace` for 32 bare hex (the text
    /// block's kind row; JSON says it with `kind` and `trace`).
    #[serde(skip)]
    pub description: String,
    /// A TypeID's prefix (`order` of `order_01m8...`); null for any other form.
    pub prefix: Option<String>,
    pub version: Option<u8>,
    pub variant: Option<&'static str>,
    pub unix_ms: Option<i64>,
    pub time: Option<String>,
    /// The 128-bit renderings; absent for a 64-bit span ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ulid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    /// The trace spellings, when the value may be a trace ID; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceSpellings>,
    /// The spellings of a span ID (also of a Datadog decimal, which may be a span's or a
    /// 64-bit trace's); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<SpanSpellings>,
}

/// How tracers write a 128-bit trace ID.
#[derive(Serialize, Debug)]
pub struct TraceSpellings {
    /// W3C Trace Context / OpenTelemetry: 32 lowercase hex.
    pub w3c: String,
    /// AWS X-Ray: `1-<8 hex>-<24 hex>`. Absent for a 64-bit trace, unless given as an X-Ray
    /// ID: an X-Ray ID starts with the trace's time in seconds, which 64 bits do not hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xray: Option<String>,
    /// The low 64 bits as 16 hex: a 64-bit B3 `X-B3-TraceId`.
    pub b3_64: String,
    /// The low 64 bits as a decimal: Datadog's `dd.trace_id`.
    pub dd_decimal: String,
}

/// How a 64-bit value is written.
#[derive(Serialize, Debug)]
pub struct SpanSpellings {
    pub hex: String,
    /// Datadog's `dd.span_id`.
    pub dd_decimal: String,
}

impl Decoded {
    pub fn new(input: &str, parsed: Parsed) -> Decoded {
        let Parsed { id, kind, .. } = parsed;
        let unix_ms = parsed.unix_ms();
        // A 64-bit trace is shown as OpenTelemetry pads it: its ULID and UUID renderings
        // would say nothing.
        let wide = !kind.is_64_bit() && !parsed.is_trace64();
        Decoded {
            input: input.to_string(),
            id: id.canonical(kind),
            kind: kind.name(),
            description: parsed.describe().to_string(),
            prefix: crate::id::typeid_prefix(input).map(str::to_string),
            version: id.version(kind),
            variant: id.variant(kind).map(|v| v.name()),
            unix_ms,
            time: unix_ms.and_then(|ms| crate::time::Clock::utc().rfc3339(ms)),
            ulid: wide.then(|| id.ulid()),
            uuid: wide.then(|| id.uuid()),
            hex: wide.then(|| id.hex()),
            trace: parsed.may_be_trace().then(|| TraceSpellings {
                w3c: id.hex(),
                xray: (!parsed.is_trace64() || parsed.written == Written::Xray).then(|| id.xray()),
                b3_64: format!("{:016x}", id.low64()),
                dd_decimal: id.low64().to_string(),
            }),
            span: kind.is_64_bit().then(|| SpanSpellings {
                hex: id.hex16(),
                dd_decimal: id.low64().to_string(),
            }),
        }
    }

    /// The human-readable block for one ID.
    pub fn write_text(&self, out: &mut Vec<u8>, color: bool) {
        let dash = || "-".to_string();
        paint(out, color, HEADER_COLOR, |out| {
            escape_into(out, self.input.as_bytes())
        });
        out.push(b'\n');
        let time = match (&self.time, self.unix_ms) {
            (Some(t), Some(ms)) => format!("{t} (unix_ms {ms})"),
            (None, Some(ms)) => crate::time::Clock::utc().format(ms),
            _ => "none (this kind carries no time)".to_string(),
        };
        let prefix = self.prefix.as_ref().map(|p| ("prefix", p.clone()));
        let kind = match self.description.as_str() {
            // `ulid`, `uuid v7`: the kind and version rows say it already. `uuid non-rfc` and
            // `uuid nil` keep their word: the version row is a dash for them.
            d if d == self.kind || (self.version.is_some() && !d.contains(" or ")) => {
                self.kind.to_string()
            }
            d => d.to_string(),
        };
        let rows = [
            ("id", Some(self.id.clone())),
            ("kind", Some(kind)),
            (
                "version",
                Some(self.version.map_or_else(dash, |v| v.to_string())),
            ),
            (
                "variant",
                Some(self.variant.map_or_else(dash, str::to_string)),
            ),
            ("time", Some(time)),
            ("ulid", self.ulid.clone()),
            ("uuid", self.uuid.clone()),
            ("hex", self.hex.clone()),
            ("xray", self.trace.as_ref().and_then(|t| t.xray.clone())),
            (
                "b3 64",
                self.trace
                    .as_ref()
                    .map(|t| format!("{} (low 64 bits)", t.b3_64)),
            ),
            (
                "dd",
                self.trace
                    .as_ref()
                    .map(|t| format!("{} (dd.trace_id)", t.dd_decimal)),
            ),
            ("hex", self.span.as_ref().map(|s| s.hex.clone())),
            (
                "dd",
                self.span
                    .as_ref()
                    .map(|s| format!("{} (dd.span_id)", s.dd_decimal)),
            ),
        ];
        let rows = rows
            .into_iter()
            .filter_map(|(name, value)| Some((name, value?)));
        for (name, value) in rows.clone().take(2).chain(prefix).chain(rows.skip(2)) {
            let _ = writeln!(out, "  {name:<8} {value}");
        }
    }
}
