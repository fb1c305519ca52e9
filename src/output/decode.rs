//! The decode printer: what one ID holds, as a text block or a JSON object.

use std::io::Write;

use serde::Serialize;

use crate::id::Parsed;
use crate::text::{HEADER_COLOR, escape_into, paint};

/// The JSON object `idgrep decode --json` prints per ID.
#[derive(Serialize, Debug)]
pub struct Decoded {
    pub input: String,
    pub id: String,
    pub kind: &'static str,
    /// A TypeID's prefix (`order` of `order_01m8...`); null for any other form.
    pub prefix: Option<String>,
    pub version: Option<u8>,
    pub variant: Option<&'static str>,
    pub unix_ms: Option<i64>,
    pub time: Option<String>,
    pub ulid: String,
    pub uuid: String,
    pub hex: String,
}

impl Decoded {
    pub fn new(input: &str, parsed: Parsed) -> Decoded {
        let Parsed { id, kind } = parsed;
        let unix_ms = id.unix_ms(kind);
        Decoded {
            input: input.to_string(),
            id: id.canonical(kind),
            kind: kind.name(),
            prefix: crate::id::typeid_prefix(input).map(str::to_string),
            version: id.version(kind),
            variant: id.variant(kind).map(|v| v.name()),
            unix_ms,
            time: unix_ms.and_then(|ms| crate::time::Clock::utc().rfc3339(ms)),
            ulid: id.ulid(),
            uuid: id.uuid(),
            hex: id.hex(),
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
        let rows = [
            ("id", self.id.clone()),
            ("kind", self.kind.to_string()),
            ("version", self.version.map_or_else(dash, |v| v.to_string())),
            ("variant", self.variant.map_or_else(dash, str::to_string)),
            ("time", time),
            ("ulid", self.ulid.clone()),
            ("uuid", self.uuid.clone()),
            ("hex", self.hex.clone()),
        ];
        let rows = rows.into_iter();
        for (name, value) in rows.clone().take(2).chain(prefix).chain(rows.skip(2)) {
            let _ = writeln!(out, "  {name:<8} {value}");
        }
    }
}
