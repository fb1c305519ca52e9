//! The Elasticsearch/OpenSearch search request for `idgrep query --for elasticsearch`.
//!
//! A `text` field is searched as its analyzer indexed it, as terms, not as the line: the
//! standard analyzer lowercases, splits a dashed UUID at its dashes into five terms, and keeps
//! some neighbours in one term with the ID (`user_01m8...`, `s.log` after a ULID ending in a
//! letter). So each ID is two clauses:
//! - a `regexp` on single terms for the ULID and the undashed hex (and the dashed form, which a
//!   `keyword` field holds whole), allowing any non-alphanumeric character and anything beyond
//!   it on either side within the term;
//! - a `span_near` of the five dashed groups in order and adjacent, the first and last as
//!   `regexp`s for the same reason (and, for a trace ID, one of the X-Ray form's three).
//!
//! A span ID is one term: its 16 hex digits. A 64-bit trace ID is one term (its 16 hex digits,
//! or any 32 ending in them) or the three terms of an X-Ray ID ending in them.
//!
//! Lucene regexps are anchored to the whole term, so the token boundary is written as an
//! optional prefix ending in a non-alphanumeric character and an optional suffix starting with
//! one.

use serde_json::{Value, json};

use crate::id::{Id, Kind, Parsed};

/// Any prefix of a term that ends where an ID may start.
const BEFORE: &str = "(.*[^0-9A-Za-z])?";
/// Any suffix of a term that starts where an ID may end.
const AFTER: &str = "([^0-9A-Za-z].*)?";

/// The request body, pretty-printed, ending in a newline.
pub(super) fn request(ids: &[Parsed], field: &str) -> String {
    // One pair of clauses per value, whatever the order or repeats of the IDs given.
    let mut ids = ids.to_vec();
    ids.sort_by_key(|p| (p.id, p.kind == Kind::Span, p.may_be_trace()));
    ids.dedup_by_key(|p| (p.id, p.kind == Kind::Span, p.may_be_trace()));
    let mut should: Vec<Value> = Vec::new();
    for parsed in &ids {
        let id = parsed.id;
        // A 64-bit trace (also a Datadog decimal, which may be a span's) in its trace
        // spellings only, as the search finds it: its 16 hex, or any 32 hex ending in them
        // (its padded value and the 128-bit traces it is the low half of), as one term; and
        // the X-Ray IDs that end in them.
        if parsed.is_trace64() {
            let low = id.hex16();
            should.push(regexp(
                field,
                format!("{BEFORE}([0-9a-f]{{16}})?{low}{AFTER}"),
            ));
            should.push(pattern_groups(
                &["1", "[0-9a-f]{8}", &format!("[0-9a-f]{{8}}{low}")],
                field,
            ));
            continue;
        }
        if parsed.kind == Kind::Span {
            should.push(regexp(field, format!("{BEFORE}{}{AFTER}", id.hex16())));
            continue;
        }
        should.push(whole_term(id, field));
        should.push(groups(&id.uuid(), field));
        if parsed.may_be_trace() {
            should.push(groups(&id.xray(), field));
        }
    }

    let body = json!({
        "query": {
            "bool": {
                "should": should,
                "minimum_should_match": 1
            }
        }
    });
    let mut text = serde_json::to_string_pretty(&body).expect("a JSON value serialises");
    text.push('\n');
    text
}

/// A `regexp` query on `field`, matching any case.
fn regexp(field: &str, value: String) -> Value {
    json!({ "regexp": { field: { "value": value, "case_insensitive": true } } })
}

/// The forms that one term holds: the ULID and the undashed hex under any analyzer, and the
/// dashed form in a `keyword` field.
fn whole_term(id: Id, field: &str) -> Value {
    regexp(
        field,
        format!("{BEFORE}({}|{}|{}){AFTER}", id.ulid(), id.hex(), id.uuid()),
    )
}

/// Dashed groups given as Lucene regexps (an X-Ray ID of unknown time and high bits), as the
/// standard analyzer indexes them: terms in a row.
fn pattern_groups(groups: &[&str], field: &str) -> Value {
    span_near(
        groups,
        field,
        |group| json!({ "span_multi": { "match": regexp(field, group.to_string()) } }),
    )
}

/// A dashed form (a UUID's five groups, an X-Ray ID's three) as the standard analyzer
/// indexes it: its groups as terms in a row.
fn groups(dashed: &str, field: &str) -> Value {
    let groups: Vec<&str> = dashed.split('-').collect();
    span_near(
        &groups,
        field,
        |group| json!({ "span_term": { field: group } }),
    )
}

/// `groups` as adjacent terms in order: the first and last as `regexp`s that allow the term
/// to run on before and after (see [`BEFORE`], [`AFTER`]), the others as `middle` makes them.
fn span_near(groups: &[&str], field: &str, middle: impl Fn(&str) -> Value) -> Value {
    let last = groups.len() - 1;
    let clauses: Vec<Value> = groups
        .iter()
        .enumerate()
        .map(|(i, group)| match i {
            0 => json!({ "span_multi": { "match": regexp(field, format!("{BEFORE}{group}")) } }),
            i if i == last => {
                json!({ "span_multi": { "match": regexp(field, format!("{group}{AFTER}")) } })
            }
            _ => middle(group),
        })
        .collect();
    json!({ "span_near": { "clauses": clauses, "slop": 0, "in_order": true } })
}
