//! `idgrep query`: the search of one or more IDs written as a query for another engine (a
//! regex for PCRE and RE2, LogQL, ClickHouse SQL, the Elasticsearch/OpenSearch query DSL), so
//! that a log platform finds the lines idgrep would print.
//!
//! Every engine gets the same definition of a match as the scanner's: any written form of the
//! value (the ULID, the dashed and undashed hex, any case; the braced, `urn:uuid:` and TypeID
//! spellings contain one of these; for a trace ID the X-Ray layout too, and the `traceparent`
//! and `b3` headers hold its 32 hex digits as a token; a span ID's 16 hex digits), as a whole
//! token, that is with no ASCII letter or digit just before or after it. The spellings idgrep
//! finds only after a field that names a trace (the low 64 bits of a trace as 16 hex or as a
//! Datadog decimal, a span's decimal) are not in these queries. A 64-bit trace ID's query holds
//! its 16 hex digits, and any 32 hex digits or X-Ray ID ending in them: the 128-bit traces it
//! is the low half of, wherever written (idgrep finds a 32-hex one only where it is written as
//! a trace). The renderings come from
//! [`crate::id`]; this module only spells them in each engine's syntax.

mod elasticsearch;

use clap::ValueEnum;

use crate::id::{Kind, Parsed};

/// The engines a query is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// A regular expression for PCRE, RE2 and the engines that follow either.
    Regex,
    /// A Grafana Loki LogQL line filter.
    Logql,
    /// A ClickHouse `SELECT`.
    Clickhouse,
    /// An Elasticsearch or OpenSearch search request body.
    #[value(alias = "opensearch")]
    Elasticsearch,
}

/// Where the lines live in the engine: the names the query refers to.
#[derive(Clone, Debug)]
pub struct Target {
    /// LogQL's stream selector, `{job=~".+"}` by default.
    pub selector: String,
    /// ClickHouse's table, `[db.]table`.
    pub table: String,
    /// The column or field that holds the log line.
    pub column: String,
}

/// The lowercase renderings of the IDs that a match may be written as (any case), sorted and
/// without repeats, so that one query reads the same whatever the order of the IDs given: a
/// 128-bit value as a ULID and a UUID (dashed and not), and also in the X-Ray layout when it
/// may be a trace ID; a span ID as its 16 hex digits; a 64-bit trace ID as its padded 32 hex
/// and its 16 hex digits.
pub fn renderings(ids: &[Parsed]) -> Vec<String> {
    let mut out = Vec::new();
    for parsed in ids {
        let id = parsed.id;
        if parsed.kind == Kind::Span {
            out.push(id.hex16());
            continue;
        }
        // A 64-bit trace is found in trace spellings only, as the search finds it: not in
        // the ULID and UUID renderings of its padded value, nor in an X-Ray form, which
        // starts with a time that 64 bits do not hold.
        if parsed.is_trace64() {
            out.extend([id.hex(), id.hex16()]);
            continue;
        }
        out.extend([id.ulid(), id.uuid(), id.hex()]);
        if parsed.may_be_trace() {
            out.push(id.xray());
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The regex alternatives a line may hold: each of `renderings` (the IDs' [`renderings`]),
/// and for a 64-bit trace ID the 128-bit traces it is the low half of, which a search finds
/// too: any 32 hex digits and any X-Ray ID that end in its 16. Every alternative holds a
/// rendering, so the renderings stay a prefilter for the regex.
pub fn alternatives(ids: &[Parsed], renderings: &[String]) -> Vec<String> {
    let mut out = renderings.to_vec();
    // A Datadog decimal may be a span's or a 64-bit trace's: its search finds both.
    for parsed in ids.iter().filter(|p| p.is_trace64()) {
        let low = parsed.id.hex16();
        out.push(format!("[0-9a-f]{{16}}{low}"));
        out.push(format!("1-[0-9a-f]{{8}}-[0-9a-f]{{8}}{low}"));
    }
    out.sort();
    out.dedup();
    out
}

/// A regex that matches a line holding any of `renderings` as a whole token, any case. It uses
/// only what PCRE, RE2 (Go, ClickHouse, Loki), Java, .NET and Python share: an inline `(?i)`,
/// non-capturing groups and ASCII classes, no lookaround (RE2 has none).
pub fn line_regex(renderings: &[String]) -> String {
    format!(
        "(?i)(?:^|[^0-9A-Za-z])(?:{})(?:[^0-9A-Za-z]|$)",
        renderings.join("|")
    )
}

/// The query for `engine`, as the engine takes it (ending in a newline).
pub fn render(engine: Engine, ids: &[Parsed], target: &Target) -> String {
    let renderings = renderings(ids);
    let regex = line_regex(&alternatives(ids, &renderings));
    match engine {
        Engine::Regex => format!("{regex}\n"),
        // A backquoted LogQL string is raw: nothing in the regex needs escaping, and it holds
        // no backquote.
        Engine::Logql => format!("{} |~ `{regex}`\n", target.selector),
        Engine::Clickhouse => clickhouse(&renderings, &regex, target),
        Engine::Elasticsearch => elasticsearch::request(ids, &target.column),
    }
}

/// ClickHouse reads at most 255 needles per `multiSearchAny*` call.
const CLICKHOUSE_NEEDLES: usize = 255;

/// `SELECT * FROM table WHERE ...`: a case-insensitive substring prefilter (fast, and served by
/// an `ngrambf_v1` skip index where the table has one), then the token-bounded regex that
/// decides. `match` is RE2 in UTF-8 mode, where a byte that is not UTF-8 matches no class: an
/// ID next to one (a Latin-1 `«`) would be missed, so the line is made valid UTF-8 first
/// (`toValidUTF8` puts U+FFFD for such bytes, and U+FFFD is not a letter or digit).
fn clickhouse(renderings: &[String], regex: &str, target: &Target) -> String {
    let column = clickhouse_identifier(&target.column);
    let table = target
        .table
        .split('.')
        .map(clickhouse_identifier)
        .collect::<Vec<_>>()
        .join(".");
    let prefilter = renderings
        .chunks(CLICKHOUSE_NEEDLES)
        .map(|chunk| {
            let needles: Vec<String> = chunk.iter().map(|r| clickhouse_string(r)).collect();
            format!(
                "multiSearchAnyCaseInsensitive({column}, [{}])",
                needles.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join(" OR ");
    let prefilter = if renderings.len() > CLICKHOUSE_NEEDLES {
        format!("({prefilter})")
    } else {
        prefilter
    };
    format!(
        "SELECT * FROM {table} WHERE {prefilter} AND match(toValidUTF8({column}), {})\n",
        clickhouse_string(regex)
    )
}

/// A ClickHouse identifier as written: bare when it is a plain name, else backquoted.
fn clickhouse_identifier(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("`{}`", name.replace('\\', "\\\\").replace('`', "\\`"))
    }
}

/// A ClickHouse string literal.
fn clickhouse_string(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

#[cfg(test)]
mod tests;
