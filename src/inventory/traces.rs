//! Trace and span IDs for the inventory, beyond the ULID and UUID tokens of the token walk:
//! what a 32-hex token is (a trace ID in a trace field or header, or a value written only
//! undashed), the span IDs of the `traceparent` and `b3` headers around it, and the values
//! the token walk does not see: X-Ray trace IDs with their `Parent` span (after `Root=`, an
//! `X-Amzn-Trace-Id` value, or as a trace field's value), and the 16-hex and decimal values of
//! trace and span fields (`span_id`, `X-B3-TraceId`, `dd.trace_id`, ...).
//!
//! A line with ID tokens is walked anyway to name its tokens' fields, and that walk also
//! collects the values of its trace and span keys ([`record::analyse_hits_with_trace_values`]).
//! The lines between those are looked at a chunk at a time by the cheap key filter `audit`
//! uses ([`crate::record::keys`]: keys ending in `id`), and read only where it flags a trace or
//! span key. X-Ray header values are found where `Root=1-` is written (the token walk notes
//! each as it goes); those on lines with tokens wait for the line callback, so that each line
//! counts once per ID.

use std::ops::Range;

use memchr::{memchr, memrchr};

use super::tally::FieldId;
use super::{Occurrence, Space, Tally};
use crate::id::trace::{self, FieldRole};
use crate::id::trace_value::{self, KeyRole, ValueForm};
use crate::id::{Form, Id};
use crate::record::keys;
use crate::record::{self, Analysis, TimeContext};
use crate::search::{self, Chunk};

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
    /// Lines of the current chunk without ID tokens that may hold trace values, in order:
    /// where each starts and ends (its `\n`, or the chunk's end), and whether a trace or span
    /// key flagged it (else an X-Ray header value did).
    flagged: Vec<(usize, usize, bool)>,
    /// Key ends of one stretch of lines without tokens that flag their lines, in order.
    key_ends: Vec<usize>,
    /// Where the X-Ray IDs of `X-Amzn-Trace-Id` values (after `Root=`) start in the current
    /// chunk, in order.
    xrays: Vec<usize>,
    /// Lines of the current chunk with ID tokens and X-Ray header values, for the line
    /// callback: where each starts, and its X-Ray values in `values`.
    waiting: Vec<(usize, Range<usize>)>,
    /// The first of `waiting` not yet taken by the line callback.
    next: usize,
    values: Vec<Occurrence>,
}

/// The X-Ray values of a line with ID tokens, as [`TraceLines::take`] hands them to the line
/// callback.
pub(super) struct Waiting(Range<usize>);

impl TraceLines {
    /// Reads the trace values of the lines of `chunk` without ID tokens, and counts them in
    /// file number `file`; reads the X-Ray header values of the others, which wait for
    /// [`TraceLines::take`], to be counted with the line's tokens and trace keys (read in the
    /// walk that names the tokens' fields).
    pub(super) fn read_chunk(
        &mut self,
        chunk: &Chunk,
        file: u32,
        context: &TimeContext,
        analysis: &mut Analysis,
        tally: &mut Tally,
    ) {
        self.waiting.clear();
        self.values.clear();
        self.next = 0;
        self.flagged.clear();
        self.xrays.clear();
        // An X-Ray ID outside a trace field stands in an `X-Amzn-Trace-Id` value. The token
        // walk finds them as it goes where the search asked it to.
        match chunk.xray_roots {
            Some(roots) => self.xrays.extend_from_slice(roots),
            None => self.xrays.extend(trace::xray_roots(chunk.bytes)),
        }
        self.flag_lines_between(chunk);
        self.read_flagged(chunk.bytes, file, context, analysis, tally);
        self.read_waiting_xrays(chunk, tally);
    }

    /// Flags the lines between the lines with tokens that hold a trace key or an X-Ray
    /// header value: the key pass looks at their bytes only. What flags a line comes in
    /// order, so each line is flagged once.
    fn flag_lines_between(&mut self, chunk: &Chunk) {
        let bytes = chunk.bytes;
        let stretches = std::iter::once(0)
            .chain(chunk.lines.iter().map(|&(_, end)| end + 1))
            .zip(
                chunk
                    .lines
                    .iter()
                    .map(|&(start, _)| start)
                    .chain([bytes.len()]),
            );
        let mut xray = 0;
        for (from, to) in stretches.filter(|(from, to)| from < to) {
            self.key_ends.clear();
            keys::for_each_trace_key_end(bytes, from..to, |sep| self.key_ends.push(sep));
            let xrays = within(&self.xrays, &mut xray, from, to);
            let (mut k, mut x) = (0, 0);
            loop {
                let (at, by_keys) = match (self.key_ends.get(k), xrays.get(x)) {
                    (Some(&key), Some(&start)) if key < start => (key, true),
                    (_, Some(&start)) => (start, false),
                    (Some(&key), None) => (key, true),
                    (None, None) => break,
                };
                if by_keys {
                    k += 1;
                } else {
                    x += 1;
                }
                flag(&mut self.flagged, bytes, from, at, by_keys);
            }
        }
    }

    /// Reads and counts the flagged lines, which have no ID tokens.
    fn read_flagged(
        &mut self,
        bytes: &[u8],
        file: u32,
        context: &TimeContext,
        analysis: &mut Analysis,
        tally: &mut Tally,
    ) {
        let mut xray = 0;
        for i in 0..self.flagged.len() {
            let (start, end, by_keys) = self.flagged[i];
            let line = search::trim_cr(&bytes[start..end]);
            let first = self.values.len();
            let starts = within(&self.xrays, &mut xray, start, end);
            read_xray(line, start, starts, tally, &mut self.values);
            if by_keys {
                record::analyse_hits_with_trace_values(line, &[], context, analysis);
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

    /// Reads the X-Ray header values of the lines with tokens, which wait for the line
    /// callback.
    fn read_waiting_xrays(&mut self, chunk: &Chunk, tally: &mut Tally) {
        let mut xray = 0;
        for &(start, end) in chunk.lines {
            // Past the last X-Ray value (or with none in the chunk, as in most logs), no line
            // has one: the lines are not looked through.
            if xray == self.xrays.len() {
                break;
            }
            let starts = within(&self.xrays, &mut xray, start, end);
            if starts.is_empty() {
                continue;
            }
            let line = search::trim_cr(&chunk.bytes[start..end]);
            let first = self.values.len();
            read_xray(line, start, starts, tally, &mut self.values);
            self.waiting.push((start, first..self.values.len()));
        }
    }

    /// The X-Ray values of the line with tokens that starts at `start` of the current chunk,
    /// if it has any. Lines are taken in order.
    pub(super) fn take(&mut self, start: usize) -> Option<Waiting> {
        while let Some((at, xray)) = self.waiting.get(self.next) {
            if *at > start {
                break;
            }
            self.next += 1;
            // The line callback is given every line with ID tokens, so none is passed over.
            debug_assert_eq!(*at, start, "a line with tokens was not reported");
            if *at == start {
                return Some(Waiting(xray.clone()));
            }
        }
        None
    }

    /// The X-Ray values of the waiting line `waiting`.
    pub(super) fn xray(&self, waiting: &Waiting) -> &[Occurrence] {
        &self.values[waiting.0.clone()]
    }
}

/// What comes before the trace ID of an X-Ray header value, in any case.
const ROOT: &[u8] = b"root=";

/// The positions of `sorted` in `start..end`, looked for from `cursor` on, which moves past
/// those before `start`: ranges asked for in order cost one pass over `sorted`.
fn within<'a>(sorted: &'a [usize], cursor: &mut usize, start: usize, end: usize) -> &'a [usize] {
    *cursor += sorted[*cursor..].partition_point(|&at| at < start);
    let len = sorted[*cursor..].partition_point(|&at| at < end);
    &sorted[*cursor..*cursor + len]
}

/// Adds the line around `at` (inside the stretch of lines that starts at `from`) to
/// `flagged`, or marks the last line there when `at` is in it: what flags lines comes in
/// order, so each line's bounds are found by looking at each byte at most once.
fn flag(
    flagged: &mut Vec<(usize, usize, bool)>,
    bytes: &[u8],
    from: usize,
    at: usize,
    by_keys: bool,
) {
    if let Some((_, end, keys)) = flagged.last_mut()
        && at < *end
    {
        *keys |= by_keys;
        return;
    }
    let from = flagged
        .last()
        .map_or(from, |&(_, end, _)| (end + 1).max(from));
    let start = memrchr(b'\n', &bytes[from..at]).map_or(from, |p| from + p + 1);
    let end = memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |p| at + p);
    flagged.push((start, end, by_keys));
}

/// Appends the X-Ray trace IDs of `line`, which starts at `line_start` of its chunk, that
/// start at `starts` (places in the chunk where one may start, in order), with their
/// `Parent` spans, to `values`.
fn read_xray(
    line: &[u8],
    line_start: usize,
    starts: &[usize],
    tally: &mut Tally,
    values: &mut Vec<Occurrence>,
) {
    for start in starts.iter().map(|&at| at - line_start) {
        let Some(xray) = trace::xray_at(line, start) else {
            continue;
        };
        // `X-Amzn-Trace-Id: Root=1-...`: the key before `Root=`.
        let key_at = match start.checked_sub(ROOT.len()) {
            Some(root) if line[root..start].eq_ignore_ascii_case(ROOT) => root,
            _ => start,
        };
        let field = trace::key_before(line, key_at).map(|key| tally.field(key));
        push_xray(&xray, field, values);
    }
}

/// Appends an X-Ray trace ID and its `Parent` span, if it has one, written in `field`.
fn push_xray(xray: &trace::XrayAt, field: Option<FieldId>, values: &mut Vec<Occurrence>) {
    values.push(Occurrence {
        id: xray.trace,
        form: Form::Xray,
        field,
        space: Space::Wide,
    });
    if let Some((_, span)) = xray.parent {
        values.push(Occurrence {
            id: Id(u128::from(span)),
            form: Form::Xray,
            field,
            space: Space::Span,
        });
    }
}

/// Appends the 16-hex, decimal and X-Ray values of the trace and span fields that `analysis`
/// collected ([`record::analyse_hits_with_trace_values`]) to `values`. An X-Ray value that
/// starts `Root=1-` is left to the search for X-Ray header values.
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
        if role.role == FieldRole::Trace && !raw.starts_with(trace::XRAY_ROOT) {
            let start = match raw.get(..ROOT.len()) {
                Some(root) if root.eq_ignore_ascii_case(ROOT) => ROOT.len(),
                _ => 0,
            };
            if let Some(xray) = trace::xray_at(raw, start) {
                push_xray(&xray, Some(field), values);
                continue;
            }
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
    use crate::scan::Matcher;
    use crate::search::{Scratch, SearchOptions};

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

    /// `chunk` read by a fresh [`TraceLines`] into `tally`, handed over by the search as
    /// `ids` has it handed over; the lines with tokens are returned too.
    fn read_chunk(chunk: &[u8], tally: &mut Tally) -> (TraceLines, Vec<(usize, usize)>, Analysis) {
        let mut lines = TraceLines::default();
        let mut analysis = Analysis::default();
        let mut hit_lines = Vec::new();
        let context = TimeContext::for_file(None, None);
        search::search_bytes(
            &Matcher::every_id(),
            SearchOptions::default(),
            chunk,
            &mut Scratch::default(),
            1,
            Some(&mut |chunk: &Chunk| {
                hit_lines.extend_from_slice(chunk.lines);
                lines.read_chunk(chunk, 0, &context, &mut analysis, tally);
            }),
            &mut |_| true,
        );
        (lines, hit_lines, analysis)
    }

    /// An X-Ray header value on a line with tokens waits for the line callback, with its
    /// `Parent` span; one in a trace field is read with the field's other values, whatever
    /// the case of its `Root=`; a bare one elsewhere is no ID.
    #[test]
    fn xray_values_on_lines_with_tokens() {
        let chunk = b"a 01m8kbygm5ng2pshny302zvwbs \"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8\"\n\
            b 01m8kbygm5ng2pshny302zvwbs 1-5759e988-bd862e3fe1be46a994272794\n";
        let tallies = super::super::Tallies::new(false);
        let mut tally = tallies.tally();
        let (mut lines, hit_lines, mut analysis) = read_chunk(chunk, &mut tally);
        let context = TimeContext::for_file(None, None);
        let waiting = lines.take(0).expect("the header's line waits");
        let got: Vec<(u128, Space)> = lines
            .xray(&waiting)
            .iter()
            .map(|o| (o.id.0, o.space))
            .collect();
        assert_eq!(
            got,
            [
                (0x5759e988bd862e3fe1be46a994272793, Space::Wide),
                (0x53995c3f42cd8ad8, Space::Span)
            ]
        );
        assert!(lines.take(hit_lines[1].0).is_none(), "a bare X-Ray ID");
        for line in [
            &b"xray_trace_id=1-5759e988-bd862e3fe1be46a994272793"[..],
            b"{\"trace_id\":\"root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8\"}",
        ] {
            record::analyse_hits_with_trace_values(line, &[], &context, &mut analysis);
            let mut values = Vec::new();
            read_keyed(&mut lines.roles, &analysis, &mut tally, &mut values);
            assert_eq!(
                (values[0].id, values[0].form),
                (Id(0x5759e988bd862e3fe1be46a994272793), Form::Xray),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        tally.done();
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
        let (mut lines, hit_lines, mut analysis) = read_chunk(chunk, &mut tally);
        let context = TimeContext::for_file(None, None);
        // Only the ULID's line has tokens: its keys are left to the walk that names its
        // tokens' fields, and it has no X-Ray value to wait with.
        let ulid_line = chunk
            .split(|&b| b == b'\n')
            .take(3)
            .map(|l| l.len() + 1)
            .sum::<usize>();
        assert_eq!(hit_lines.len(), 2, "the ULID's line and the 32-hex one");
        assert_eq!(hit_lines[0].0, ulid_line);
        assert!(lines.take(ulid_line).is_none());
        let line = b"ts=2 order=01m8kbygm5ng2pshny302zvwbs spanId=e457b5a2e4d86bd1";
        let mut line_hits = Vec::new();
        Matcher::every_id().find(line, &mut line_hits);
        record::analyse_hits_with_trace_values(line, &line_hits, &context, &mut analysis);
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
