//! The record reader's unit tests: fields and times per format, pairs, and lines built to
//! break it (huge, random, non-UTF-8).

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::{TimeZone, offset};

use super::json::find_quote_or_backslash;
use super::logfmt::{blank_at_or_after, key_end};
use super::*;
use crate::scan;
use crate::testing::Rng;

const ULID: &str = "01m8kbygm5ng2pshny302zvwbs";
const ULID2: &str = "01kb5v3q8m0c7rj2e9wqz4xnyd";
const ULID3: &str = "01kb5v3q8n1d8sk3f0xr05ypze";
const UUID: &str = "01a226bf-4285-ac05-6cc6-be1805fdf179";
const UUID2: &str = "9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f";

/// The vector scans stop where a byte-by-byte scan does (or find nothing where it finds
/// nothing), for a stop byte at every position across the 16-byte steps, from every
/// start, and at the end of the line.
#[test]
fn vector_scans_agree_with_bytes() {
    let naive = |line: &[u8], i: usize, stop: &dyn Fn(u8) -> bool| {
        (i..line.len())
            .find(|&k| stop(line[k]))
            .unwrap_or(line.len())
    };
    let key_stop = |b: u8| b <= b' ' || b == b'=' || b == b'"';
    for len in [0, 5, 16, 17, 40] {
        for &special in b" \t=\"\\\x01\xc3!" {
            for at in 0..len {
                let mut line = vec![b'k'; len];
                line[at] = special;
                for i in 0..=len {
                    assert_eq!(
                        key_end(&line, i),
                        naive(&line, i, &key_stop),
                        "{line:?} {i}"
                    );
                    assert_eq!(
                        blank_at_or_after(&line, i),
                        naive(&line, i, &is_blank),
                        "{line:?} {i}"
                    );
                    let quote = naive(&line, i, &|b| b == b'"' || b == b'\\');
                    assert_eq!(
                        find_quote_or_backslash(&line, i),
                        (quote < len).then_some(quote),
                        "{line:?} {i}"
                    );
                }
            }
        }
    }
}

fn ms(rfc3339: &str) -> i64 {
    rfc3339.parse::<Timestamp>().unwrap().as_millisecond()
}

/// A context in UTC whose reference time is the end of 2026.
fn utc() -> TimeContext {
    TimeContext::new(TimeZone::UTC, "2026-12-31T12:00:00Z".parse().unwrap())
}

struct Got {
    format: LineFormat,
    fields: Vec<Option<String>>,
    time: Option<i64>,
}

fn analyse_with(line: &[u8], ctx: &TimeContext) -> Got {
    let mut spans = Vec::new();
    scan::for_each_token(line, |hit| spans.push((hit.start, hit.end)));
    let mut out = Analysis::default();
    analyse(line, &spans, true, ctx, &mut out);
    Got {
        format: out.format(),
        fields: (0..spans.len())
            .map(|i| {
                out.field(i)
                    .map(|f| String::from_utf8_lossy(f).into_owned())
            })
            .collect(),
        time: out.time_ms(),
    }
}

fn got(line: &str) -> Got {
    analyse_with(line.as_bytes(), &utc())
}

fn fields(line: &str) -> Vec<Option<String>> {
    got(line).fields
}

fn time(line: &str) -> Option<i64> {
    got(line).time
}

fn some(names: &[&str]) -> Vec<Option<String>> {
    names
        .iter()
        .map(|n| (!n.is_empty()).then(|| n.to_string()))
        .collect()
}

// ----- JSON

#[test]
fn json_key_paths() {
    let line = format!(
        r#"{{"ts":"2026-11-29T10:00:00.123Z","order_id":"{ULID}","ctx":{{"batch_id":"{ULID2}","n":3}},"sources":["{ULID3}","{UUID}"],"items":[{{"sku":"SKU-1","ref":"{UUID2}"}}],"msg":"charged order {ULID} ok"}}"#
    );
    let g = got(&line);
    assert_eq!(g.format, LineFormat::Json);
    assert_eq!(
        g.fields,
        some(&[
            "order_id",
            "ctx.batch_id",
            "sources[]",
            "sources[]",
            "items[].ref",
            "msg"
        ])
    );
    assert_eq!(g.time, Some(ms("2026-11-29T10:00:00.123Z")));
}

#[test]
fn json_nested_arrays_and_blanks() {
    let line =
        format!("  {{ \"a\" : {{ \"b\" : [ [ \"{ULID}\" ] , {{\"c\":[\"{UUID}\"]}} ] }} }} ");
    let g = got(&line);
    assert_eq!(g.format, LineFormat::Json);
    assert_eq!(g.fields, some(&["a.b[][]", "a.b[].c[]"]));
}

#[test]
fn json_escapes_in_strings_and_keys() {
    let line = format!(
        r#"{{"msg":"said \"stop\" to {ULID} \\","k\u0065y":"{UUID}","a\"b":"x\u0041 {ULID2}","\ud83d\ude00":"{ULID3}"}}"#
    );
    let g = got(&line);
    assert_eq!(g.format, LineFormat::Json);
    assert_eq!(g.fields, some(&["msg", "key", "a\"b", "😀"]));
}

#[test]
fn json_id_in_a_key_gets_the_objects_path() {
    let line = format!(r#"{{"{ULID}":1,"orders":{{"{ULID2}":{{"status":"paid"}}}}}}"#);
    assert_eq!(fields(&line), some(&["", "orders"]));
}

#[test]
fn json_bare_number_id_gets_its_key() {
    // 32 digits: an undashed UUID that is also a JSON number.
    let line = r#"{"n":12345678901234567890123456789012}"#;
    assert_eq!(fields(line), some(&["n"]));
}

#[test]
fn json_after_container_runtime_prefix() {
    let with_ts = format!(
        r#"2026-11-29T10:00:05.999999999Z stdout F {{"ts":"2026-11-29T10:00:01Z","user":"user_{ULID}"}}"#
    );
    let g = got(&with_ts);
    assert_eq!(g.format, LineFormat::Json);
    assert_eq!(g.fields, some(&["user"]));
    assert_eq!(g.time, Some(ms("2026-11-29T10:00:01Z")));

    let without_ts =
        format!(r#"2026-11-29T10:00:05.999999999Z stdout F {{"level":"info","order":"{ULID}"}}"#);
    let g = got(&without_ts);
    assert_eq!(g.format, LineFormat::Json);
    assert_eq!(g.time, Some(ms("2026-11-29T10:00:05.999Z")));

    // An ID in the prefix gets the plain rules.
    let in_prefix = format!(r#"req-{UUID} app: {{"order_id":"{ULID}"}}"#);
    let g = got(&in_prefix);
    assert_eq!(g.format, LineFormat::Json);
    assert_eq!(g.fields, some(&["req", "order_id"]));
}

#[test]
fn broken_json_falls_back_to_plain() {
    for line in [
        format!(r#"{{"order_id":"{ULID}","n":}}"#),
        format!(r#"{{"order_id":"{ULID}","n":1"#),
        format!(r#"{{"order_id":"{ULID}","n":tru}}"#),
        format!(r#"{{"order_id":"{ULID}" "n":1}}"#),
        format!(r#"{{"order_id":"{ULID}","bad":"\x"}}"#),
        format!(r#"{{"order_id":"{ULID}"}} trailing"#),
        format!(r#"{{"order_id":"{ULID}"}}}}"#),
    ] {
        let g = got(&line);
        assert_eq!(g.format, LineFormat::Plain, "{line}");
        assert_eq!(g.fields, some(&["order_id"]), "{line}");
    }
}

#[test]
fn json_in_text_after_equals_is_plain() {
    // The kubelet writes `event={...}` inside a text line: the object does not start a word.
    let line = format!(
        r#"I1129 10:00:00.000001    3224 kubelet.go:2430] "SyncLoop" pod="ns/web-0" event={{"ID":"{UUID}","Type":"ContainerDied"}}"#
    );
    let g = got(&line);
    assert_eq!(g.format, LineFormat::Plain);
    assert_eq!(g.fields, some(&["ID"]));
}

// ----- logfmt

#[test]
fn logfmt_keys_and_lists() {
    let line = format!(
        r#"level=info ts=2019-12-12T15:00:08.325Z caller=compact.go:441 msg="compact blocks" ulid={ULID} sources="[{ULID2} {ULID3} {ULID}]" duration=2.8s"#
    );
    let g = got(&line);
    assert_eq!(g.format, LineFormat::Logfmt);
    assert_eq!(g.fields, some(&["ulid", "sources", "sources", "sources"]));
    assert_eq!(g.time, Some(ms("2019-12-12T15:00:08.325Z")));
}

#[test]
fn logfmt_keys_with_dots_dashes_and_quoted_text() {
    let line = format!(
        r#"x-request-id={UUID} ctx.order.id="{ULID}" msg="said \"hi\" to user {ULID2}" path=/var/log/pods/ns_web-7fd6786f4b-242cb_{UUID2}/0.log"#
    );
    let g = got(&line);
    assert_eq!(g.format, LineFormat::Logfmt);
    assert_eq!(
        g.fields,
        some(&["x-request-id", "ctx.order.id", "msg", "path"])
    );
}

#[test]
fn not_logfmt_when_a_token_is_not_a_pair() {
    let line = format!("level=info charged order {ULID}");
    let g = got(&line);
    assert_eq!(g.format, LineFormat::Plain);
    assert_eq!(g.fields, some(&["order"]));
    // Unterminated quote.
    let g = got(&format!(r#"a=1 msg="order {ULID}"#));
    assert_eq!(g.format, LineFormat::Plain);
}

// ----- Plain text fields

#[test]
fn plain_key_rules() {
    for (line, want) in [
        (format!("INFO order_id={ULID} done"), "order_id"),
        (format!("INFO order_id = {ULID}"), "order_id"),
        (format!("INFO ORDER={ULID} CUSTOMER=x"), "ORDER"),
        (format!("failed: order: {ULID}"), "order"),
        (format!(r#"got {{"order":"{ULID}"}} back"#), "order"),
        (format!(r#"got "order": "{ULID}" back"#), "order"),
        (
            format!(r#"msg "Volume for pod \"x\" (UID: \"{UUID}\")""#),
            "UID",
        ),
        (format!(r#"detail: \"order_id\":\"{ULID}\""#), "order_id"),
        (format!("[instance: {UUID}] VM Started"), "instance"),
        (format!("lookup key({ULID}) failed"), "key"),
        (format!("cache pods[{UUID}] stale"), "pods"),
        (format!("id=urn:uuid:{UUID}"), "id"),
        (
            format!("network-vif-plugged:{UUID} for x"),
            "network-vif-plugged",
        ),
        (format!("x-request.id={UUID}"), "x-request.id"),
        (format!("run --order_id={ULID}"), "order_id"),
    ] {
        assert_eq!(fields(&line), some(&[want]), "{line}");
    }
}

/// A `traceparent` value in text names its trace and its span by its key, as in JSON and
/// logfmt records.
#[test]
fn plain_traceparent_gives_its_key_to_its_trace_and_span() {
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    for (line, want) in [
        (
            format!("GET /x traceparent: 00-{trace}-00f067aa0ba902b7-01 ok"),
            "traceparent",
        ),
        (
            format!("2025-12-01T10:00:01Z tp=00-{trace}-00f067aa0ba902b7-01"),
            "tp",
        ),
    ] {
        assert_eq!(fields(&line), some(&[want]), "{line}");
        let at = line.find(trace).unwrap();
        let spans = [(at, at + 32), (at + 33, at + 49)];
        let mut out = Analysis::default();
        analyse(line.as_bytes(), &spans, false, &utc(), &mut out);
        assert_eq!(out.field(1), Some(want.as_bytes()), "{line}");
    }
    // Not a traceparent (no span and flags after): the glued word, as before.
    assert_eq!(fields(&format!("got ab-{trace} back")), some(&["ab"]));
}

#[test]
fn plain_kubelet_pod_names() {
    let line = format!("Killing pod=web-7b6bd9b949-x82q_shop({UUID}) now");
    assert_eq!(fields(&line), some(&["pod"]));
    let line = format!("start failed in pod web-7b6bd9b949-x82q_shop({UUID}), skip");
    assert_eq!(fields(&line), some(&["pod"]));
    let line = format!("3f9a1b2c7d-x({UUID})");
    assert_eq!(fields(&line), some(&[""]));
}

#[test]
fn plain_glued_words() {
    for (line, want) in [
        (format!("[req-{UUID} - - -] ok"), "req"),
        (format!("loaded user_{ULID}"), "user"),
        (
            format!("com.apple.WebKit.Networking.{UUID}[33438]"),
            "Networking",
        ),
        (format!("order_item_{ULID}"), "item"),
    ] {
        assert_eq!(fields(&line), some(&[want]), "{line}");
    }
    // A glued hash is not a field; the path around it may be.
    let line = format!("open /var/log/pods/shop_web-7fd6786f4b-242cb_{UUID}/web/0.log");
    assert_eq!(fields(&line), some(&["pods"]));
    let line = format!("open web-7fd6786f4b-242cb_{UUID}");
    assert_eq!(fields(&line), some(&[""]));
}

#[test]
fn plain_path_segments() {
    for (line, want) in [
        (
            format!(r#""GET /v2/servers/{UUID}/action HTTP/1.1" 200"#),
            "servers",
        ),
        (format!("POST /v1/users/{ULID}/orders 201"), "users"),
        (format!("rm kubernetes.io/secret/{UUID}-certs"), "secret"),
        (format!("watch /var/log/pods/*{UUID}/x/*.log"), "pods"),
        (format!("file //{UUID}/x"), ""),
        (format!("file /7fd6786f4b/{UUID}/x"), ""),
    ] {
        assert_eq!(fields(&line), some(&[want]), "{line}");
    }
}

#[test]
fn plain_word_before() {
    for (line, want) in [
        (format!("charged order {ULID}"), "order"),
        (format!("processing for order {ULID} now"), "order"),
        (format!("Posted payment {{{UUID}}} for x"), "payment"),
        (format!("volume \"kubernetes\" pod \"{UUID}\""), "pod"),
        (format!("-- order. {ULID}"), "order"),
        (format!("status 200 {ULID}"), ""),
        (format!("took 0.144 {UUID}"), ""),
        (format!("hash 7fd6786f4b {UUID}"), ""),
        (format!("{ULID} at start"), ""),
        (format!("weird ({ULID})"), "weird"),
        (format!("x#{ULID}"), ""),
    ] {
        assert_eq!(fields(&line), some(&[want]), "{line}");
    }
}

#[test]
fn plain_lists_inherit_only_keys() {
    assert_eq!(
        fields(&format!("ids: {ULID}, {ULID2}, {ULID3}")),
        some(&["ids", "ids", "ids"])
    );
    assert_eq!(
        fields(&format!(r#"batch merged sources="[{ULID} {ULID2}]" x"#)),
        some(&["sources", "sources"])
    );
    // OpenStack: `req-A USER TENANT`; the user and tenant are not requests.
    let line = format!(
        "2017-05-16 00:00:00.008 25746 INFO nova [req-{UUID} 113d3a99c3da401fbd62cc2caa5b96d2 54fadb412c4e40cdbaed9335e4c35a9e - - -] ok"
    );
    assert_eq!(fields(&line), some(&["req", "", ""]));
    // A word between two IDs breaks the list.
    assert_eq!(
        fields(&format!("order {ULID} for user {ULID2}")),
        some(&["order", "user"])
    );
    assert_eq!(
        fields(&format!("settlement {{{UUID}}}, payment {{{UUID2}}}")),
        some(&["settlement", "payment"])
    );
}

// ----- Plain text times

// ----- Robustness

#[test]
fn analysis_is_reused_across_lines() {
    let mut out = Analysis::default();
    let ctx = utc();
    let first = format!(r#"{{"ts":1795946400,"a":"{ULID}","b":"{ULID2}"}}"#);
    let second = format!("order {ULID}");
    let at = |line: &str, id: &str| {
        let start = line.find(id).unwrap();
        (start, start + id.len())
    };
    let spans = [at(&first, ULID), at(&first, ULID2)];
    analyse(first.as_bytes(), &spans, true, &ctx, &mut out);
    assert_eq!(out.format(), LineFormat::Json);
    assert_eq!(out.field(1), Some(&b"b"[..]));
    assert!(out.time_ms().is_some());
    analyse(
        second.as_bytes(),
        &[at(&second, ULID)],
        true,
        &ctx,
        &mut out,
    );
    assert_eq!(out.format(), LineFormat::Plain);
    assert_eq!(out.field(0), Some(&b"order"[..]));
    assert_eq!(out.field(1), None);
    assert_eq!(out.time_ms(), None);
}

#[test]
fn non_utf8_and_line_endings() {
    let mut line = b"{\"msg\":\"\xff\xfe charged ".to_vec();
    line.extend_from_slice(ULID.as_bytes());
    line.extend_from_slice(b"\"}");
    let g = analyse_with(&line, &utc());
    assert_eq!(g.format, LineFormat::Json);
    assert_eq!(g.fields, some(&["msg"]));

    let mut line = b"\xc3\x28 order ".to_vec();
    line.extend_from_slice(ULID.as_bytes());
    assert_eq!(analyse_with(&line, &utc()).fields, some(&["order"]));

    // A CR that was not stripped counts as a blank after a JSON object.
    let line = format!("{{\"order\":\"{ULID}\"}}\r");
    assert_eq!(got(&line).format, LineFormat::Json);
    // A logfmt line with CRLF already stripped.
    let g = got(&format!("ts=2026-11-29T10:00:00Z order={ULID}"));
    assert_eq!(g.format, LineFormat::Logfmt);
    assert_eq!(g.time, Some(ms("2026-11-29T10:00:00Z")));
}

#[test]
fn huge_lines() {
    let filler = "x".repeat(1 << 20);
    let line = format!(r#"{{"pad":"{filler}","deep":{{"order":"{ULID}"}}}}"#);
    assert_eq!(fields(&line), some(&["deep.order"]));

    let line = format!("{filler} {ULID} {filler}={ULID2} /{filler}/{ULID3}");
    assert_eq!(fields(&line), some(&["", "", ""]));

    let depth = 100_000;
    let line = format!(
        r#"{{"a":{}"{ULID}"{}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let g = got(&line);
    assert_eq!(g.format, LineFormat::Json);
    // `a` and 100,000 `[]` is past the longest path that names a field.
    assert_eq!(g.fields, vec![None]);
    let unclosed = format!(r#"{{"a":{}"{ULID}"}}"#, "[".repeat(depth));
    assert_eq!(got(&unclosed).format, LineFormat::Plain);
}

#[test]
fn random_bytes_never_panic() {
    let pieces: [&[u8]; 24] = [
        b"{",
        b"}",
        b"[",
        b"]",
        b"\"",
        b":",
        b",",
        b"=",
        b" ",
        b"\\",
        b"\\u",
        b"/",
        b"-",
        b"_",
        b"(",
        b")",
        b"<",
        b">",
        b"2026-11-29T10:00:00",
        b"Nov 29 10:00:00 ",
        b"I1129 10:00:00.1 ",
        b"[29/Nov/2026:10:00:00 +0000]",
        ULID.as_bytes(),
        UUID.as_bytes(),
    ];
    let ctx = utc();
    let named = TimeContext::new(
        TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap(),
        "2026-01-01T00:00:00Z".parse().unwrap(),
    );
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Analysis::default();
    let mut buffers = PairBuffers::default();
    let mut line = Vec::new();
    let mut spans = Vec::new();
    for round in 0..30_000 {
        line.clear();
        for _ in 0..rng.below(40) {
            if rng.below(3) == 0 {
                line.push(rng.next() as u8);
            } else {
                line.extend_from_slice(pieces[rng.below(pieces.len())]);
            }
        }
        spans.clear();
        scan::for_each_token(&line, |hit| spans.push((hit.start, hit.end)));
        let ctx = if round % 2 == 0 { &ctx } else { &named };
        analyse(&line, &spans, true, ctx, &mut out);
        for i in 0..spans.len() {
            let _ = out.field(i);
        }
        for_each_pair(&line, &mut buffers, |_, _| {});
    }
}

/// A JSON key path or logfmt key names a field up to 256 bytes, and no longer: so a long
/// key over many IDs or deep nesting costs each ID at most that much.
#[test]
fn field_names_end_at_256_bytes() {
    let key = |n: usize| "k".repeat(n);
    for (n, named) in [(1, true), (256, true), (257, false), (5000, false)] {
        let want = named.then(|| key(n));
        let json = format!(r#"{{"{}":["{ULID}","{ULID2}"]}}"#, key(n));
        // The path of an array's members adds `[]`, past the bound for a 256-byte key.
        let field = want
            .as_ref()
            .map(|k| format!("{k}[]"))
            .filter(|p| p.len() <= 256);
        assert_eq!(fields(&json), vec![field.clone(), field], "json {n}");
        let logfmt = format!(r#"{}="{ULID} {ULID2}" ts=1"#, key(n));
        assert_eq!(
            fields(&logfmt),
            vec![want.clone(), want.clone()],
            "logfmt {n}"
        );
        let shown: Vec<String> = pairs(&logfmt).into_iter().map(|(k, _)| k).collect();
        let expected: Vec<String> = want.iter().cloned().chain(["ts".to_string()]).collect();
        assert_eq!(shown, expected, "pairs {n}");
    }
    // Exactly 256 bytes names a field, 257 does not, the `[]` of an array's members
    // included.
    for (n, named) in [(254, true), (255, false)] {
        let json = format!(r#"{{"{}":["{ULID}"]}}"#, key(n));
        let want = named.then(|| format!("{}[]", key(n)));
        assert_eq!(fields(&json), vec![want], "array key {n}");
    }
    // The bound is on the unescaped name: `\u00e9` is six bytes written, two read.
    for (n, named) in [(128, true), (129, false)] {
        let json = format!(r#"{{"{}":"{ULID}"}}"#, r"\u00e9".repeat(n));
        let want = named.then(|| "\u{e9}".repeat(n));
        assert_eq!(fields(&json), vec![want], "escaped key {n}");
    }
    // The path counts every level: 127 levels of `a` and a key `k` is 255 bytes, one more
    // level is past the bound.
    for (depth, named) in [(127, true), (128, false), (20_000, false)] {
        let line = format!(
            r#"{}{{"k":"{ULID}"}}{}"#,
            r#"{"a":"#.repeat(depth),
            "}".repeat(depth)
        );
        let want = named.then(|| "a.".repeat(depth) + "k");
        let deepest = pairs(&line)
            .into_iter()
            .map(|(k, _)| k)
            .max_by_key(String::len);
        assert_eq!(fields(&line), vec![want.clone()], "depth {depth}");
        if named {
            assert_eq!(deepest, want, "depth {depth}");
        } else {
            assert!(
                deepest.is_some_and(|k| k.len() <= MAX_FIELD),
                "depth {depth}"
            );
        }
    }
}

// ----- Pairs

fn pairs(line: &str) -> Vec<(String, String)> {
    let mut buffers = PairBuffers::default();
    let mut all = Vec::new();
    for_each_pair(line.as_bytes(), &mut buffers, |key, value| {
        let shown = match value {
            Value::Str(s) => format!("str {}", String::from_utf8_lossy(s)),
            Value::Int(s) => format!("int {}", String::from_utf8_lossy(s)),
            Value::Number(s) => format!("num {}", String::from_utf8_lossy(s)),
            Value::Null => "null".to_string(),
            Value::Bool(b) => format!("bool {b}"),
            Value::Other => "other".to_string(),
        };
        all.push((String::from_utf8_lossy(key).into_owned(), shown));
    });
    all
}

fn expect(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn json_pairs() {
    let line = format!(
        r#"{{"order_id":"{ULID}","user_id":0,"batch_id":"","parent_id":null,"job_id":1001,"ok":true,"amount":-1.5e2,"ctx":{{"trace_id":"a\"b\u0041"}},"ids":["{ULID2}",7]}}"#
    );
    assert_eq!(
        pairs(&line),
        expect(&[
            ("order_id", &format!("str {ULID}")),
            ("user_id", "int 0"),
            ("batch_id", "str "),
            ("parent_id", "null"),
            ("job_id", "int 1001"),
            ("ok", "bool true"),
            ("amount", "num -1.5e2"),
            ("ctx", "other"),
            ("ctx.trace_id", "str a\"bA"),
            ("ids", "other"),
            ("ids[]", &format!("str {ULID2}")),
            ("ids[]", "int 7"),
        ])
    );
    // After a prefix too.
    let line = r#"2026-11-29T10:00:00Z stdout F {"user_id":0}"#;
    assert_eq!(pairs(line), expect(&[("user_id", "int 0")]));
}

#[test]
fn logfmt_pairs() {
    let line = r#"ts=2026-11-29T10:00:00Z order_id=0 user_id="" parent_id=null batch_id=<nil> ok=false amount=1.5 msg="a \"b\" c" empty="#;
    assert_eq!(
        pairs(line),
        expect(&[
            ("ts", "str 2026-11-29T10:00:00Z"),
            ("order_id", "int 0"),
            ("user_id", "str "),
            ("parent_id", "null"),
            ("batch_id", "null"),
            ("ok", "bool false"),
            ("amount", "num 1.5"),
            ("msg", "str a \"b\" c"),
            ("empty", "str "),
        ])
    );
}

#[test]
fn plain_pairs() {
    let line = format!(
        r#"I1129 10:00:00.1 x.go:1] "Done" podUID="{UUID}" job_id=1001, (bin=0) event={{"ID":"","Code":null}} note: ignored a==b url=/x?order_id=7&user_id=8"#
    );
    assert_eq!(
        pairs(&line),
        expect(&[
            ("podUID", &format!("str {UUID}")),
            ("job_id", "int 1001"),
            ("bin", "int 0"),
            ("event", "other"),
            ("ID", "str "),
            ("Code", "null"),
            ("url", "str /x?order_id=7&user_id=8"),
        ])
    );
    let escaped = format!(r#"msg="detail: \"order_id\":\"{ULID}\", \"n\": 0" x"#);
    assert_eq!(
        pairs(&escaped),
        expect(&[(
            "msg",
            &format!(r#"str detail: "order_id":"{ULID}", "n": 0"#)
        )])
    );
}

/// A quoted `"key":` in plain text longer than a field name may be is left out, as JSON and
/// logfmt keys are (found by the `record` fuzzer: an 836-byte key).
#[test]
fn plain_pairs_leave_out_keys_longer_than_a_field() {
    for (len, kept) in [(MAX_FIELD, true), (MAX_FIELD + 1, false), (836, false)] {
        let key = "k".repeat(len);
        let line = format!(r#"text "{key}": 1 "id": "{ULID}""#);
        let mut want = Vec::new();
        if kept {
            want.push((key.as_str(), "int 1"));
        }
        let id = format!("str {ULID}");
        want.push(("id", id.as_str()));
        assert_eq!(pairs(&line), expect(&want), "a key of {len} bytes");
    }
}

// ----- Formats of other loggers and servers

mod times;

/// The values [`analyse_hits_with_trace_values`] collects in its walk are those
/// [`for_each_pair_with_bare_keys`] gives for the same keys, strings and numbers, but for
/// those 32 bytes long (tokens of the line) and, in JSON and logfmt, those written as one of
/// the line's ID tokens whole, on every kind of line (plain text only where
/// [`super::keys::has_trace_key`] finds a trace key): hand-picked ones, and lines put
/// together at random from JSON, logfmt and text pieces.
#[test]
fn values_collected_in_the_walk_are_the_pairs_of_their_keys() {
    use crate::id::trace::may_key_trace_value;
    let oracle = |line: &[u8], format: LineFormat, buffers: &mut PairBuffers| {
        let mut want = Vec::new();
        if format == LineFormat::Plain && !super::keys::has_trace_key(line) {
            return want;
        }
        // A value read straight from the line (not unescaped into a buffer) that is one of
        // its tokens: where it lies in the line tells.
        let mut tokens = Vec::new();
        scan::for_each_token(line, |hit| tokens.push((hit.start, hit.end)));
        let whole_token = |raw: &[u8]| {
            let (base, at) = (line.as_ptr() as usize, raw.as_ptr() as usize);
            (base..base + line.len()).contains(&at)
                && tokens.contains(&(at - base, at - base + raw.len()))
        };
        for_each_pair_with_bare_keys(line, buffers, |key, value| {
            if let Value::Str(raw) | Value::Int(raw) | Value::Number(raw) = value
                && may_key_trace_value(key)
                && raw.len() != 32
                && (format == LineFormat::Plain || !whole_token(raw))
            {
                want.push((key.to_vec(), raw.to_vec()));
            }
        });
        want
    };
    let collected = |line: &[u8], out: &mut Analysis| {
        let mut hits = Vec::new();
        scan::for_each_token(line, |hit| hits.push(hit));
        analyse_hits_with_trace_values(line, &hits, &utc(), out);
        let got: Vec<(Vec<u8>, Vec<u8>)> = out
            .keyed_values()
            .map(|(k, v)| (k.to_vec(), v.to_vec()))
            .collect();
        got
    };
    let mut out = Analysis::default();
    let mut buffers = PairBuffers::default();
    let fixed = [
        format!(r#"{{"trace_id":"abc","span_id":12,"n":1.5,"x":null,"b3":"q","ids":["{ULID}"]}}"#),
        r#"prefix span_id=1 {"dd":{"trace_id":"7","span_id":"8"},"arr":[{"id":"9"}]}"#.to_string(),
        r#"{"sp\u0061n_id":"1","span_\u0069d":"2","k":"a\"b","traceId":"x\\y"}"#.to_string(),
        r#"{"span_id":{"_":"00f067aa0ba902b7"},"a":{"b":[["5"]]},"-":"6"}"#.to_string(),
        format!(r#"ts=1 span_id=00f067aa0ba902b7 trace_id="a b" q="x\"y" b3={ULID} n=null"#),
        r#"span_id=1e51234567890123 parent_id=true other_idhex=0x1f"#.to_string(),
        r#"plain text span_id=00f067aa0ba902b7, "traceId": "4bf9" and X-B3-SpanId: 1"#.to_string(),
        r#"msg="{\"span_id\":\"00f067aa0ba902b7\"}" id=1"#.to_string(),
        r#"{"broken": "json" span_id=1"#.to_string(),
        r#"{"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"4bf92f3577b34da6a3ce929d0e0e473\u0036"}"#.to_string(),
        r#"trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id="4bf92f3577b34da6a3ce929d0e0e473\6""#.to_string(),
    ];
    for line in &fixed {
        let line = line.as_bytes();
        let got = collected(line, &mut out);
        assert_eq!(
            got,
            oracle(line, out.format(), &mut buffers),
            "{}",
            String::from_utf8_lossy(line)
        );
    }
    // Records built from keys and values, some with a piece of noise put in anywhere.
    let keys: [&[u8]; 10] = [
        b"span_id",
        b"trace.id",
        b"traceId",
        b"b3",
        b"msg",
        b"n",
        b"sp\\u0061n_id",
        b"x_idhex",
        b"id",
        b"_",
    ];
    let values: [&[u8]; 14] = [
        b"4bf92f3577b34da6a3ce929d0e0e4736",
        b"4bf92f3577b34da6a3ce929d0e0e473\\u0036",
        b"00f067aa0ba902b7",
        b"11803532876627986230",
        b"-12",
        b"1.5",
        b"null",
        b"true",
        b"a b",
        b"a\\\"b",
        b"\\u0064",
        b"x,y",
        b"",
        ULID.as_bytes(),
    ];
    let noise: [&[u8]; 10] = [b"{", b"}", b"[", b"]", b"\"", b":", b",", b"=", b" ", b"\\"];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut line = Vec::new();
    let mut agreed_with_values = 0;
    for round in 0..40_000 {
        line.clear();
        let members = rng.below(6);
        match round % 3 {
            // JSON, nested objects and arrays among the members, after a text prefix now and
            // then.
            0 => {
                if rng.below(4) == 0 {
                    line.extend_from_slice(b"I1129 span_id=7 ");
                }
                line.push(b'{');
                let mut open = Vec::new();
                for m in 0..members {
                    if m > 0 {
                        line.push(b',');
                    }
                    line.push(b'"');
                    line.extend_from_slice(keys[rng.below(keys.len())]);
                    line.extend_from_slice(b"\":");
                    match rng.below(5) {
                        0 => {
                            line.extend_from_slice(b"{");
                            open.push(b'}');
                            line.extend_from_slice(b"\"dd\":");
                        }
                        1 => {
                            line.extend_from_slice(b"[");
                            open.push(b']');
                        }
                        _ => {}
                    }
                    let value = values[rng.below(values.len())];
                    if rng.below(2) == 0
                        && value
                            .iter()
                            .all(|b| b.is_ascii_digit() || *b == b'-' || *b == b'.')
                        && !value.is_empty()
                        || value == b"null"
                        || value == b"true"
                    {
                        line.extend_from_slice(value);
                    } else {
                        line.push(b'"');
                        line.extend_from_slice(value);
                        line.push(b'"');
                    }
                    while let Some(close) = open.pop() {
                        line.push(close);
                    }
                }
                line.push(b'}');
            }
            // logfmt.
            1 => {
                for m in 0..members.max(1) {
                    if m > 0 {
                        line.push(b' ');
                    }
                    line.extend_from_slice(keys[rng.below(keys.len())]);
                    line.push(b'=');
                    let value = values[rng.below(values.len())];
                    if rng.below(2) == 0 {
                        line.push(b'"');
                        line.extend_from_slice(value);
                        line.push(b'"');
                    } else {
                        line.extend_from_slice(value);
                    }
                }
            }
            // Text with pairs in it.
            _ => {
                for _ in 0..members {
                    line.extend_from_slice(b" saw ");
                    let quoted = rng.below(2) == 0;
                    if quoted {
                        line.push(b'"');
                    }
                    line.extend_from_slice(keys[rng.below(keys.len())]);
                    line.extend_from_slice(if quoted { b"\": " } else { b"=" });
                    line.extend_from_slice(values[rng.below(values.len())]);
                }
            }
        }
        if rng.below(3) == 0 {
            let at = rng.below(line.len() + 1);
            let piece = noise[rng.below(noise.len())];
            line.splice(at..at, piece.iter().copied());
        }
        let got = collected(&line, &mut out);
        let want = oracle(&line, out.format(), &mut buffers);
        assert_eq!(got, want, "{}", String::from_utf8_lossy(&line));
        agreed_with_values += usize::from(!want.is_empty());
    }
    // The random lines hold values often enough for the comparison to mean something.
    assert!(agreed_with_values > 15_000, "{agreed_with_values}");
}

/// Time keys are known in any case, whether the fast path for the common spellings or the
/// folded comparison answers; keys that differ by a byte, a letter more or less, are not.
#[test]
fn time_keys_in_any_case_and_nothing_near_them() {
    let keys: [&[u8]; 15] = [
        b"ts",
        b"time",
        b"timestamp",
        b"@timestamp",
        b"t",
        b"date",
        b"@t",
        b"eventTime",
        b"datetime",
        b"asctime",
        b"time_local",
        b"time_iso8601",
        b"timeMillis",
        b"timeUnixNano",
        b"__REALTIME_TIMESTAMP",
    ];
    for key in keys {
        let variants = [
            key.to_vec(),
            key.to_ascii_uppercase(),
            key.to_ascii_lowercase(),
        ];
        for variant in variants {
            assert!(
                is_time_key(&variant),
                "{}",
                String::from_utf8_lossy(&variant)
            );
            let mut longer = variant.clone();
            longer.push(b's');
            let shorter = &variant[..variant.len() - 1];
            let mut changed = variant.clone();
            changed[0] ^= 0x01;
            for near in [&longer[..], shorter, &changed[..]] {
                let near_is_key = keys.iter().any(|k| k.eq_ignore_ascii_case(near));
                assert_eq!(
                    is_time_key(near),
                    near_is_key,
                    "{}",
                    String::from_utf8_lossy(near)
                );
            }
        }
    }
    assert!(!is_time_key(b""));
    assert!(!is_time_key(b"order_id"));
}
