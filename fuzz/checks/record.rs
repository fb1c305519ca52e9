//! The record reader over one fuzzer line (JSON, logfmt or plain, in a zone the input picks):
//! no panic; one field per ID occurrence and none past them, each name at most 256 bytes; a
//! line time, when one is found and falls in the years 1 to 9999, read back from its RFC 3339
//! rendering as the same microsecond, in JSON, logfmt and plain text; every key and value
//! [`for_each_pair`] reports a key of at most 256 bytes and a value no longer than the line;
//! the values of trace and span keys collected in the analysis walk are `for_each_pair`'s,
//! but for those 32 bytes long (the line's tokens).

use idgrep::id::trace::may_key_trace_value;
use idgrep::record::{
    self, Analysis, LineFormat, PairBuffers, TimeContext, Value, for_each_pair,
    for_each_pair_with_bare_keys, keys,
};
use idgrep::scan;
use jiff::Timestamp;
use jiff::tz::{Offset, TimeZone};

use super::{Bytes, plant};

pub fn check(data: &[u8]) {
    let mut input = Bytes::new(data);
    let zone = match input.u8() % 4 {
        0 => TimeZone::UTC,
        1 => TimeZone::fixed(Offset::constant(-7)),
        2 => TimeZone::fixed(Offset::constant(5)),
        _ => TimeZone::fixed(Offset::constant(-14)),
    };
    // The reference dates the year-less formats (syslog): any time from 1900 to 2100.
    let reference_s = -2_208_988_800 + i64::from(input.u16()) * 97_000;
    let reference = Timestamp::from_second(reference_s).expect("in range");
    let ctx = TimeContext::new(zone, reference);
    let id = idgrep::id::Id(input.u128());
    let raw = plant(input.rest(), &[id]);
    // One line, as the search hands it over: no line ending.
    let line = raw.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let line = line.strip_suffix(b"\r").unwrap_or(line);

    let mut spans = Vec::new();
    scan::for_each_token_scalar(line, |h| spans.push((h.start, h.end)));
    let mut analysis = Analysis::default();
    record::analyse(line, &spans, true, &ctx, &mut analysis);
    for i in 0..spans.len() {
        if let Some(name) = analysis.field(i) {
            assert!(name.len() <= 256, "field {i} is {} bytes", name.len());
        }
    }
    assert_eq!(analysis.field(spans.len()), None);

    // The same line without times: fields are the same whether a time is wanted or not.
    let mut timeless = Analysis::default();
    record::analyse(line, &spans, false, &ctx, &mut timeless);
    assert_eq!(timeless.format(), analysis.format());
    for i in 0..spans.len() {
        assert_eq!(timeless.field(i), analysis.field(i), "field {i}");
    }
    assert_eq!(timeless.time(), None);

    if let Some(time) = analysis.time() {
        round_trips(time.micros, &ctx);
    }

    let mut buffers = PairBuffers::default();
    for_each_pair(line, &mut buffers, |key, value| {
        assert!(key.len() <= 256, "a key of {} bytes", key.len());
        if let Value::Str(v) | Value::Int(v) | Value::Number(v) = value {
            assert!(v.len() <= line.len(), "a value longer than its line");
        }
    });

    // The values collected in the walk that names the fields are those of the pair walk that
    // also reads bare `key: value` text, for the same keys (in plain text, where a trace key
    // is found), and collecting them changes no field, format or time.
    let mut wanted = Vec::new();
    if analysis.format() != LineFormat::Plain || keys::has_trace_key(line) {
        for_each_pair_with_bare_keys(line, &mut buffers, |key, value| {
            if let Value::Str(v) | Value::Int(v) | Value::Number(v) = value
                && may_key_trace_value(key)
                && v.len() != 32
            {
                wanted.push((key.to_vec(), v.to_vec()));
            }
        });
    }
    let mut hits = Vec::new();
    scan::for_each_token_scalar(line, |h| hits.push(h));
    let mut keyed = Analysis::default();
    record::analyse_hits_with_trace_values(line, &hits, &ctx, &mut keyed);
    let collected: Vec<(Vec<u8>, Vec<u8>)> = keyed
        .keyed_values()
        .map(|(k, v)| (k.to_vec(), v.to_vec()))
        .collect();
    assert_eq!(collected, wanted, "the values collected in the walk");
    assert_eq!(keyed.format(), analysis.format());
    assert_eq!(keyed.time(), analysis.time());
    for i in 0..spans.len() {
        assert_eq!(keyed.field(i), analysis.field(i), "field {i}");
    }
}

/// A time found on a line, written back in RFC 3339 at microsecond precision, is read as the
/// same time from plain text, a JSON `ts` and a logfmt `time`.
fn round_trips(micros: i64, ctx: &TimeContext) {
    let Ok(ts) = Timestamp::from_microsecond(micros) else {
        return;
    };
    let year = TimeZone::UTC.to_datetime(ts).year();
    if !(1..=9999).contains(&year) {
        return;
    }
    let written = ts.strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string();
    let lines = [
        format!("{written} INFO done"),
        format!("{{\"ts\":\"{written}\",\"msg\":\"done\"}}"),
        format!("time={written} level=info msg=done"),
    ];
    let mut analysis = Analysis::default();
    for line in &lines {
        record::analyse(line.as_bytes(), &[], true, ctx, &mut analysis);
        assert_eq!(
            analysis.time().map(|t| t.micros),
            Some(micros),
            "{line:?} read back"
        );
    }
}
