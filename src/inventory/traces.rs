//! Trace and span IDs for the inventory, beyond the ULID and UUID tokens of the token walk:
//! what a 32-hex token is (a trace ID in a trace field or header, or a value written only
//! undashed), the span IDs of the `traceparent` and `b3` headers around it, and the values
//! the token walk does not see: X-Ray trace IDs with their `Parent` span, and the 16-hex and
//! decimal values of trace and span fields (`span_id`, `X-B3-TraceId`, `dd.trace_id`, ...).
//!
//! Those last are found a chunk at a time, by the cheap key filter `audit` uses
//! ([`crate::record::keys`]: keys ending in `id`, so also an X-Ray ID under `xray_trace_id`),
//! which also finds where X-Ray IDs may start in the same pass, and read on the lines they
//! flag only: a line with a trace or span key, or an X-Ray ID after `Root=` (an
//! `X-Amzn-Trace-Id` value in any text).
//! A flagged line without ID tokens is read and counted at once; one with tokens waits for
//! the line callback, which reads its keys in the walk that names its tokens' fields, so
//! that the line is walked once and counts once per ID.

use std::ops::Range;

use memchr::{memchr, memrchr};

use super::tally::FieldId;
use super::{Occurrence, Space, Tally};
use crate::id::trace::{self, FieldRole, ROLE_KEY_ENDS};
use crate::id::trace_value::{self, KeyRole, ValueForm};
use crate::id::{Form, Id};
use crate::record::keys::{self, Found};
use crate::record::{self, Analysis, TimeContext};
use crate::search::Chunk;

/// The form of the 32-hex token `line[start..end]` of value `id`: a trace ID inside a
/// `traceparent` or `b3` header, or in a trace field, or else a plain 32-hex token
/// ([`Form::UuidUndashed`]). `field` is the role of the field the record reader named, if it
/// named one. The span IDs of a header go to `span`.
pub(super) fn hex32_form(
    line: &[u8],
    start: usize,
    end: usize,
    id: Id,
    field: Option<Option<FieldRole>>,
    mut span: impl FnMut(u64),
) -> Form {
    // All zeros is the nil UUID, and no trace ID (W3C Trace Context).
    if id.0 == 0 {
        return Form::UuidUndashed;
    }
    if let Some(header) = trace_value::traceparent_around(line, start, end) {
        // Version ff is invalid: no trace ID is read from it.
        if header.version == 0xff {
            return Form::UuidUndashed;
        }
        if header.span != 0 {
            span(header.span);
        }
        return Form::Traceparent;
    }
    // The record reader names the field of a JSON, logfmt or `key=value` value; the key
    // written right before the token is read only where it named none.
    let role = match field {
        Some(role) => role,
        None => trace::key_before(line, start).and_then(trace::field_role),
    };
    match role {
        Some(FieldRole::B3) => {
            for (_, value) in trace::b3_spans(line, end).into_iter().flatten() {
                span(value);
            }
            Form::B3
        }
        Some(FieldRole::Trace) => Form::TraceHex,
        // Google Cloud's `logging.googleapis.com/trace`: `projects/<project>/traces/<32 hex>`.
        _ if line[..start].ends_with(b"/traces/") => Form::TraceHex,
        _ => Form::UuidUndashed,
    }
}

/// The trace role of each field name a thread has met, worked out once per name: a log's
/// records repeat a few names, and folding a name per value cost as much as the rest of
/// reading it.
#[derive(Default)]
pub(super) struct FieldRoles(Vec<Option<Roles>>);

/// A field name's role ([`trace::field_role`]), and what its name says of its values
/// ([`trace_value::key_role`]).
#[derive(Clone, Copy)]
struct Roles {
    field: Option<FieldRole>,
    key: Option<KeyRole>,
}

impl FieldRoles {
    fn get(&mut self, field: FieldId, name: &[u8]) -> Roles {
        let at = field.0 as usize;
        if at >= self.0.len() {
            self.0.resize(at + 1, None);
        }
        *self.0[at].get_or_insert_with(|| Roles {
            field: trace::field_role(name),
            key: trace_value::key_role(name),
        })
    }

    /// The role of the field `field`, named `name`.
    pub(super) fn of(&mut self, field: FieldId, name: &[u8]) -> Option<FieldRole> {
        self.get(field, name).field
    }
}

/// One scan thread's reader of the trace values the token walk does not see.
#[derive(Default)]
pub(super) struct TraceLines {
    pub(super) roles: FieldRoles,
    /// Lines of the current chunk that may hold trace values, in order: where each starts and
    /// ends (its `\n`, or the chunk's end), and whether a trace or span key flagged it (else
    /// an X-Ray ID did).
    flagged: Vec<(usize, usize, bool)>,
    /// Where X-Ray IDs may start in the current chunk, in order.
    xrays: Vec<usize>,
    /// Flagged lines of the current chunk with ID tokens, left for the line callback: where
    /// each starts, whether its keys are to be read, and its X-Ray values in `values`.
    waiting: Vec<(usize, bool, Range<usize>)>,
    /// The first of `waiting` not yet taken by the line callback.
    next: usize,
    values: Vec<Occurrence>,
}

/// A flagged line with ID tokens, as [`TraceLines::take`] hands it to the line callback.
pub(super) struct Waiting {
    /// A trace or span key flagged it: the line is to be read by
    /// [`record::analyse_hits_with_values`] for [`read_keyed`].
    pub(super) by_keys: bool,
    xray: Range<usize>,
}

impl TraceLines {
    /// Finds the lines of `chunk` that may hold trace values. Those without ID tokens are
    /// read and counted now, in file number `file`; the others wait for
    /// [`TraceLines::take`], to be read in the same walk as their tokens.
    pub(super) fn read_chunk(
        &mut self,
        chunk: &Chunk,
        file: u32,
        context: &TimeContext,
        analysis: &mut Analysis,
        tally: &mut Tally,
    ) {
        let bytes = chunk.bytes;
        self.waiting.clear();
        self.values.clear();
        self.next = 0;
        self.flagged.clear();
        self.xrays.clear();
        // What the pass finds comes in order, so each line is flagged once, and its bounds
        // are found by looking at each byte at most once.
        let flagged = &mut self.flagged;
        let mut flag = |at: usize, by_keys: bool| {
            if let Some((_, end, keys)) = flagged.last_mut()
                && at < *end
            {
                *keys |= by_keys;
                return;
            }
            let from = flagged.last().map_or(0, |&(_, end, _)| end + 1);
            let start = memrchr(b'\n', &bytes[from..at]).map_or(from, |p| from + p + 1);
            let end = memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |p| at + p);
            flagged.push((start, end, by_keys));
        };
        // An X-Ray ID in a trace field is flagged by its key; elsewhere it stands in an
        // `X-Amzn-Trace-Id` value, `Root=1-...`.
        let xrays = &mut self.xrays;
        keys::for_each_key_end_or_xray(bytes, |found| match found {
            Found::KeyEnd(sep) => {
                if keys::ends_in_id(bytes, sep) && keys::trace_value_follows(bytes, sep) {
                    flag(sep, true);
                }
            }
            Found::Xray { start, after_root } => {
                xrays.push(start);
                if after_root {
                    flag(start, false);
                }
            }
        });
        let (mut hit, mut xray) = (0, 0);
        for i in 0..self.flagged.len() {
            let (start, end, by_keys) = self.flagged[i];
            while chunk.hits.get(hit).is_some_and(|h| h.start < start) {
                hit += 1;
            }
            let has_tokens = chunk.hits.get(hit).is_some_and(|h| h.start < end);
            let line = &bytes[start..end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let first = self.values.len();
            xray += self.xrays[xray..].partition_point(|&at| at < start);
            let in_line = self.xrays[xray..].partition_point(|&at| at < end);
            let xrays = self.xrays[xray..xray + in_line]
                .iter()
                .map(|&at| at - start);
            read_xray(line, xrays, tally, &mut self.values);
            xray += in_line;
            if has_tokens {
                self.waiting
                    .push((start, by_keys, first..self.values.len()));
                continue;
            }
            if by_keys {
                record::analyse_hits_with_values(line, &[], context, analysis, ROLE_KEY_ENDS);
                read_keyed(&mut self.roles, analysis, tally, &mut self.values);
            } else if self.values.len() > first {
                record::analyse_hits(line, &[], context, analysis);
            }
            if self.values.len() > first {
                tally.add_line(file, analysis.time_ms(), &self.values[first..]);
            }
            self.values.truncate(first);
        }
    }

    /// The flagged line that starts at `start` of the current chunk, if it is one. Lines are
    /// taken in order.
    pub(super) fn take(&mut self, start: usize) -> Option<Waiting> {
        while let Some(&(at, by_keys, ref xray)) = self.waiting.get(self.next) {
            if at > start {
                break;
            }
            self.next += 1;
            // The line callback is given every line with ID tokens, so none is passed over.
            debug_assert_eq!(at, start, "a flagged line with tokens was not reported");
            if at == start {
                return Some(Waiting {
                    by_keys,
                    xray: xray.clone(),
                });
            }
        }
        None
    }

    /// The X-Ray values of the waiting line `waiting`.
    pub(super) fn xray(&self, waiting: &Waiting) -> &[Occurrence] {
        &self.values[waiting.xray.clone()]
    }
}

/// Appends the X-Ray trace IDs of `line` that start at `starts` (every place one may start,
/// in order), with their `Parent` spans, to `values`.
fn read_xray(
    line: &[u8],
    starts: impl Iterator<Item = usize>,
    tally: &mut Tally,
    values: &mut Vec<Occurrence>,
) {
    for start in starts {
        let Some(trace::XrayAt {
            trace: id, parent, ..
        }) = trace::xray_at(line, start)
        else {
            continue;
        };
        // `X-Amzn-Trace-Id: Root=1-...`: the key before `Root=`.
        let key_at = match start.checked_sub(5) {
            Some(root) if line[root..start].eq_ignore_ascii_case(b"root=") => root,
            _ => start,
        };
        let field = trace::key_before(line, key_at).map(|key| tally.field(key));
        values.push(Occurrence {
            id,
            form: Form::Xray,
            field,
            space: Space::Wide,
        });
        if let Some((_, span)) = parent {
            values.push(Occurrence {
                id: Id(u128::from(span)),
                form: Form::Xray,
                field,
                space: Space::Span,
            });
        }
    }
}

/// Appends the 16-hex and decimal values of the trace and span fields that `analysis`
/// collected ([`record::analyse_hits_with_values`] with [`ROLE_KEY_ENDS`]) to `values`.
pub(super) fn read_keyed(
    roles: &mut FieldRoles,
    analysis: &Analysis,
    tally: &mut Tally,
    values: &mut Vec<Occurrence>,
) {
    for (key, raw) in analysis.keyed_values() {
        let field = tally.field(key);
        let Some(role) = roles.get(field, key).key else {
            continue;
        };
        // A 32-hex trace ID is a token of the line, counted with the others.
        if role.role == FieldRole::Trace && raw.len() == crate::id::UUID_UNDASHED_LEN {
            continue;
        }
        let Some(value) = trace_value::value_under(role, raw) else {
            continue;
        };
        let (form, space) = match (value.form, value.role) {
            // The token walk and the X-Ray search have these.
            (ValueForm::Hex32 | ValueForm::Xray, _) => continue,
            (ValueForm::Hex16, FieldRole::Span) => (Form::Hex16, Space::Span),
            (ValueForm::Decimal, FieldRole::Span) => (Form::DdDecimal, Space::Span),
            (ValueForm::Hex16, _) => (Form::Hex16, Space::Trace64),
            (ValueForm::Decimal, _) => (Form::DdDecimal, Space::Trace64),
        };
        // Zero stands for "no parent" in several tracers, and is no ID.
        if value.value == 0 {
            continue;
        }
        values.push(Occurrence {
            id: Id(value.value),
            form,
            field: Some(field),
            space,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::{Hit, Matcher};

    fn form_and_spans(line: &str, field: Option<&str>) -> (Form, Vec<u64>) {
        let start = line.find("4bf92f35").expect("the trace in the line");
        let id = Id(0x4bf92f3577b34da6a3ce929d0e0e4736);
        let mut spans = Vec::new();
        let form = hex32_form(
            line.as_bytes(),
            start,
            start + 32,
            id,
            field.map(|name| trace::field_role(name.as_bytes())),
            |s| spans.push(s),
        );
        (form, spans)
    }

    #[test]
    fn a_32_hex_token_is_a_trace_in_a_header_or_trace_field_only() {
        let t = "4bf92f3577b34da6a3ce929d0e0e4736";
        assert_eq!(
            form_and_spans(&format!("tp=00-{t}-00f067aa0ba902b7-01"), Some("tp")),
            (Form::Traceparent, vec![0x00f067aa0ba902b7])
        );
        // Version ff is invalid, and a zero parent is no span.
        assert_eq!(
            form_and_spans(&format!("tp=ff-{t}-00f067aa0ba902b7-01"), None).0,
            Form::UuidUndashed
        );
        assert_eq!(
            form_and_spans(&format!("tp=00-{t}-0000000000000000-01"), None),
            (Form::Traceparent, vec![])
        );
        assert_eq!(
            form_and_spans(
                &format!("b3={t}-e457b5a2e4d86bd1-1-05e3ac9a4f6e3b90"),
                Some("b3")
            ),
            (Form::B3, vec![0xe457b5a2e4d86bd1, 0x05e3ac9a4f6e3b90])
        );
        assert_eq!(
            form_and_spans(&format!(r#"{{"b3":"{t}-e457b5a2e4d86bd1"}}"#), Some("b3")),
            (Form::B3, vec![0xe457b5a2e4d86bd1])
        );
        assert_eq!(
            form_and_spans(
                &format!(r#"{{"headers":{{"b3":"{t}-e457b5a2e4d86bd1"}}}}"#),
                Some("headers.b3")
            ),
            (Form::B3, vec![0xe457b5a2e4d86bd1])
        );
        // The key before the token, where the record reader named no field.
        assert_eq!(
            form_and_spans(&format!("got b3: {t}-e457b5a2e4d86bd1 ok"), None),
            (Form::B3, vec![0xe457b5a2e4d86bd1])
        );
        for field in [
            "trace_id",
            "traceId",
            "trace.id",
            "X-B3-TraceId",
            "otelTraceID",
        ] {
            assert_eq!(
                form_and_spans(&format!("{field}={t}"), Some(field)).0,
                Form::TraceHex,
                "{field}"
            );
        }
        assert_eq!(
            form_and_spans(&format!("trace=projects/p/traces/{t}"), Some("trace")).0,
            Form::TraceHex
        );
        for field in ["sha", "file.hash.md5", "span_id", "request_id"] {
            assert_eq!(
                form_and_spans(&format!("{field}={t}"), Some(field)).0,
                Form::UuidUndashed,
                "{field}"
            );
        }
        assert_eq!(
            form_and_spans(&format!("plain {t} text"), None).0,
            Form::UuidUndashed
        );
        // All zeros is the nil UUID, never a trace.
        let zero = format!("trace_id={}", "0".repeat(32));
        let form = hex32_form(
            zero.as_bytes(),
            9,
            41,
            Id(0),
            Some(Some(FieldRole::Trace)),
            |_| panic!("no span"),
        );
        assert_eq!(form, Form::UuidUndashed);
    }

    /// The values [`TraceLines`] reads from a chunk: (space, value, form, field), the lines
    /// without tokens counted at once and the others left for the line callback.
    #[test]
    fn a_chunk_gives_the_values_the_token_walk_does_not_see() {
        let chunk =
            b"ts=1 span_id=00f067aa0ba902b7 X-B3-TraceId=a3ce929d0e0e4736 key=1111111111111111\n\
            {\"dd\":{\"trace_id\":\"11803532876627986230\",\"span_id\":\"0\"},\"attempts\":42}\n\
            edge \"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1\"\n\
            ts=2 order=01m8kbygm5ng2pshny302zvwbs spanId=e457b5a2e4d86bd1\n\
            ts=3 sha=4bf92f3577b34da6a3ce929d0e0e4736 addr=0x00f067aa0ba902b7 count=12\n\
            ts=4 span_id=1e51234567890123 parentSpanId=12.5\n";
        let tallies = super::super::Tallies::new(false);
        let mut tally = tallies.tally();
        let mut lines = TraceLines::default();
        let mut analysis = Analysis::default();
        let context = TimeContext::for_file(None, None);
        let mut hits = Vec::new();
        Matcher::every_id().find(chunk, &mut hits);
        let chunk = Chunk {
            bytes: chunk,
            first_line_no: 1,
            hits: &hits,
        };
        lines.read_chunk(&chunk, 0, &context, &mut analysis, &mut tally);
        // Only the ULID's line has tokens: it waits, to be read with them.
        let ulid_line = chunk
            .bytes
            .split(|&b| b == b'\n')
            .take(3)
            .map(|l| l.len() + 1)
            .sum::<usize>();
        assert!(lines.take(ulid_line - 1).is_none());
        let waiting = lines.take(ulid_line).expect("the ULID's line waits");
        assert!(waiting.by_keys && lines.xray(&waiting).is_empty());
        assert!(lines.take(ulid_line).is_none(), "taken once");
        let line = b"ts=2 order=01m8kbygm5ng2pshny302zvwbs spanId=e457b5a2e4d86bd1";
        let line_hits: Vec<Hit> = hits
            .iter()
            .filter(|h| h.start > ulid_line && h.end <= ulid_line + line.len())
            .map(|h| Hit {
                start: h.start - ulid_line,
                end: h.end - ulid_line,
                ..*h
            })
            .collect();
        record::analyse_hits_with_values(line, &line_hits, &context, &mut analysis, ROLE_KEY_ENDS);
        let mut values = Vec::new();
        read_keyed(&mut lines.roles, &analysis, &mut tally, &mut values);
        assert_eq!(values.len(), 1);
        assert_eq!(
            (values[0].id, values[0].space, values[0].form),
            (Id(0xe457b5a2e4d86bd1), Space::Span, Form::Hex16)
        );
        tally.done();
        let inventory = tallies.finish(1);
        let mut got: Vec<(Space, u128, Vec<Form>)> = inventory
            .summaries()
            .map(|s| {
                (
                    s.space(),
                    s.id.0,
                    s.forms().into_iter().map(|f| f.0).collect(),
                )
            })
            .collect();
        got.sort();
        assert_eq!(
            got,
            vec![
                (
                    Space::Wide,
                    0x5759e988bd862e3fe1be46a994272793,
                    vec![Form::Xray]
                ),
                (Space::Span, 0x00f067aa0ba902b7, vec![Form::Hex16]),
                // Bare, it reads as a number, and is a span ID all the same.
                (Space::Span, 0x1e51234567890123, vec![Form::Hex16]),
                (Space::Span, 0x53995c3f42cd8ad8, vec![Form::Xray]),
                (
                    Space::Trace64,
                    0xa3ce929d0e0e4736,
                    vec![Form::Hex16, Form::DdDecimal]
                ),
            ]
        );
    }
}
