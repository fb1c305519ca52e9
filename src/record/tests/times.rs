//! The record reader's line times: ISO, epochs, syslog, klog, access logs and the other
//! loggers' formats, zones, and years inferred across a new year.

use super::*;

#[test]
fn json_time_keys_and_epochs() {
    let at = ms("2026-11-29T10:00:00Z");
    for (value, want) in [
        ("1795946400", Some(at)),
        ("1795946400.123", Some(at + 123)),
        ("1795946400.5", Some(at + 500)),
        ("1795946400123", Some(at + 123)),
        ("1795946400123.9", Some(at + 123)),
        ("1795946400123456", Some(at + 123)),
        ("1795946400123456789", Some(at + 123)),
        ("\"1795946400123\"", Some(at + 123)),
        ("\"2026-11-29T11:00:00+01:00\"", Some(at)),
        ("\"2026-11-29T10:00:00\"", Some(at)),
        ("-1795946400", None),
        ("1.7e9", None),
        ("17959464001234567890", None),
        ("\"yesterday\"", None),
        ("\"2026-02-30T10:00:00Z\"", None),
        ("null", None),
    ] {
        let line = format!(r#"{{"ts":{value},"id":"{ULID}"}}"#);
        assert_eq!(time(&line), want, "{value}");
    }
    for key in ["ts", "time", "timestamp", "@timestamp", "t", "date"] {
        let line = format!(r#"{{"{key}":"2026-11-29T10:00:00Z","id":"{ULID}"}}"#);
        assert_eq!(time(&line), Some(at), "{key}");
    }
    // Only top-level keys, and the first one that is a time.
    let nested = format!(r#"{{"ctx":{{"ts":1795946400}},"id":"{ULID}"}}"#);
    assert_eq!(time(&nested), None);
    let first_valid = format!(r#"{{"t":"GET","time":1795946400,"ts":1,"id":"{ULID}"}}"#);
    assert_eq!(time(&first_valid), Some(at));
}

#[test]
fn logfmt_time_keys() {
    let at = ms("2026-11-29T10:00:00Z");
    assert_eq!(
        time(&format!("time=2026-11-29T10:00:00Z id={ULID}")),
        Some(at)
    );
    assert_eq!(time(&format!("t=1795946400 id={ULID}")), Some(at));
    assert_eq!(time(&format!("t=\"1795946400000\" id={ULID}")), Some(at));
    assert_eq!(time(&format!("level=info id={ULID}")), None);
}

#[test]
fn time_keys_lead_plain_lines_that_are_not_logfmt() {
    // logfmt pairs first, then `key: value` text: the line is plain, its time still the
    // time key's.
    let at = ms("2026-11-29T10:00:00Z");
    for (line, want) in [
        (
            "ts=2026-11-29T10:00:00Z msg=\"x\" span_id: 00f067aa0ba902b7",
            Some(at),
        ),
        (
            "level=info time=\"2026-11-29 10:00:00.5\" user:",
            Some(at + 500),
        ),
        ("ts=1795946400 user:", Some(at)),
        (
            "[app] lvl=info TIMESTAMP=2026-11-29T11:00:00+01:00 user:",
            Some(at),
        ),
        // Not a time key, not a time, or after the first four tokens.
        ("x=2026-11-29T10:00:00Z user:", None),
        ("ts=yesterday user:", None),
        ("a b c d ts=2026-11-29T10:00:00Z user:", None),
        // Tokens stay blank-separated: a quoted value that is no time does not make a time
        // after it one of the first four.
        ("a msg=\"b c d\" 2026-11-29T10:00:00Z user:", None),
    ] {
        let line = format!("{line} {ULID}");
        assert_eq!(time(&line), want, "{line}");
    }
}

#[test]
fn plain_iso_times() {
    for (line, want) in [
        ("2026-11-29 10:00:00,123 INFO x", "2026-11-29T10:00:00.123Z"),
        ("2026-11-29 10:00:00.123 INFO x", "2026-11-29T10:00:00.123Z"),
        (
            "2026-11-29T10:00:00.123456789Z x",
            "2026-11-29T10:00:00.123Z",
        ),
        ("2026-11-29T10:00:00.1Z x", "2026-11-29T10:00:00.100Z"),
        ("2026-11-29t10:00:00z x", "2026-11-29T10:00:00Z"),
        ("2026-11-29T10:00:00+01:00 x", "2026-11-29T09:00:00Z"),
        ("2026-11-29T10:00:00-0130 x", "2026-11-29T11:30:00Z"),
        ("2026-11-29T10:00:00+01 x", "2026-11-29T09:00:00Z"),
        (
            "2026-11-29 10:05:02.801 UTC [billing-0] x",
            "2026-11-29T10:05:02.801Z",
        ),
        ("2026-11-29 10:00:00 +0200 x", "2026-11-29T08:00:00Z"),
        ("2016-09-28 04:30:30, Info CBS x", "2016-09-28T04:30:30Z"),
        ("[2026-11-29 10:00:00,5] x", "2026-11-29T10:00:00.500Z"),
        (
            "nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO",
            "2017-05-16T00:00:00.008Z",
        ),
        ("2024-02-29 23:59:60 leap", "2024-02-29T23:59:59Z"),
    ] {
        let line = format!("{line} {ULID}");
        assert_eq!(time(&line), Some(ms(want)), "{line}");
    }
}

#[test]
fn plain_times_that_are_not() {
    for line in [
        "2026-02-30 10:00:00 Feb 30",
        "2026-02-29 10:00:00 not a leap year",
        "2026-11-29 24:00:00 hour 24",
        "2026-13-01 10:00:00 month 13",
        "2026-11-29 10:61:00 minute 61",
        "2026-11-29 10:00:00abc glued",
        "a b c d 2026-11-29 10:00:00 fifth token",
        "Feb 30 10:00:00 host x",
        "I0230 10:00:00.000001 x",
        "x [30/Feb/2026:10:00:00 +0000] y",
        "no time here",
    ] {
        let line = format!("{line} {ULID}");
        assert_eq!(time(&line), None, "{line}");
    }
}

#[test]
fn syslog_klog_and_access_log_times() {
    for (line, want) in [
        ("Nov 29 10:00:00 host app[1]: x", "2026-11-29T10:00:00Z"),
        (
            "Jul  1 09:00:55 calvisitor kernel[0]: x",
            "2026-07-01T09:00:55Z",
        ),
        ("Jul 1 09:00:55 host x", "2026-07-01T09:00:55Z"),
        ("<34>Nov 29 10:00:00 host x", "2026-11-29T10:00:00Z"),
        (
            "<165>1 2026-11-29T10:00:00.003Z host x",
            "2026-11-29T10:00:00.003Z",
        ),
        (
            "I1129 10:00:00.123456    3224 kubelet.go:1] x",
            "2026-11-29T10:00:00.123Z",
        ),
        ("E0507 11:59:41.375655 x", "2026-05-07T11:59:41.375Z"),
        (
            r#"10.0.0.1 - - [29/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200"#,
            "2026-11-29T10:00:00Z",
        ),
        (
            r#"10.0.0.1 - [x] [29/Nov/2026:10:00:00 -0700] "GET /""#,
            "2026-11-29T17:00:00Z",
        ),
    ] {
        let line = format!("{line} {ULID}");
        assert_eq!(time(&line), Some(ms(want)), "{line}");
    }
}

#[test]
fn year_less_times_across_new_year() {
    // The file was written early in January 2027: a December line is from 2026.
    let ctx = TimeContext::new(TimeZone::UTC, "2027-01-05T08:00:00Z".parse().unwrap());
    let at = |line: &str| analyse_with(format!("{line} {ULID}").as_bytes(), &ctx).time;
    assert_eq!(
        at("Dec 31 23:59:59 host x"),
        Some(ms("2026-12-31T23:59:59Z"))
    );
    assert_eq!(
        at("Jan  4 10:00:00 host x"),
        Some(ms("2027-01-04T10:00:00Z"))
    );
    assert_eq!(
        at("I1231 23:59:59.5 x"),
        Some(ms("2026-12-31T23:59:59.500Z"))
    );
    assert_eq!(
        at("I0105 07:00:00.000000 x"),
        Some(ms("2027-01-05T07:00:00Z"))
    );
    // The reference year is taken in the context's zone: the last hour of 2026 in UTC
    // is already 2027 two hours east.
    let east = TimeContext::new(
        TimeZone::fixed(offset(2)),
        "2026-12-31T23:00:00Z".parse().unwrap(),
    );
    let line = format!("Jan  1 00:30:00 host x {ULID}");
    assert_eq!(
        analyse_with(line.as_bytes(), &east).time,
        Some(ms("2027-01-01T00:30:00+02:00"))
    );
    // Feb 29 exists only in leap years.
    let leap = TimeContext::new(TimeZone::UTC, "2028-03-01T00:00:00Z".parse().unwrap());
    let line = format!("Feb 29 12:00:00 host x {ULID}");
    assert_eq!(
        analyse_with(line.as_bytes(), &leap).time,
        Some(ms("2028-02-29T12:00:00Z"))
    );
    assert_eq!(time(&line), None);
}

#[test]
fn times_without_offset_use_the_context_zone() {
    let expect = |tz: &TimeZone, civil: &str| {
        civil
            .parse::<DateTime>()
            .unwrap()
            .to_zoned_datetime(tz.clone())
            .unwrap()
            .timestamp()
            .as_millisecond()
    };
    let reference: Timestamp = "2026-12-31T00:00:00Z".parse().unwrap();
    let fixed = TimeZone::fixed(offset(-5));
    let dst = TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap();
    for tz in [fixed, dst] {
        let ctx = TimeContext::new(tz.clone(), reference);
        for (line, civil) in [
            ("2026-07-01 12:00:00.250 x", "2026-07-01T12:00:00.250"),
            ("2026-01-15T08:30:00 x", "2026-01-15T08:30:00"),
            // In a gap of the daylight saving zone: the later offset.
            ("2026-03-29 02:30:00 x", "2026-03-29T02:30:00"),
            ("Jul  1 12:00:00 host x", "2026-07-01T12:00:00"),
            ("I0701 12:00:00.000000 x", "2026-07-01T12:00:00"),
        ] {
            let g = analyse_with(format!("{line} {ULID}").as_bytes(), &ctx);
            assert_eq!(g.time, Some(expect(&tz, civil)), "{line} in {tz:?}");
        }
        // Explicit offsets ignore the zone.
        let g = analyse_with(format!("2026-07-01T12:00:00Z {ULID}").as_bytes(), &ctx);
        assert_eq!(g.time, Some(ms("2026-07-01T12:00:00Z")));
        let g = analyse_with(
            format!(r#"{{"ts":1795946400,"id":"{ULID}"}}"#).as_bytes(),
            &ctx,
        );
        assert_eq!(g.time, Some(ms("2026-11-29T10:00:00Z")));
    }
}

#[test]
fn time_only_when_wanted() {
    let line = format!("2026-11-29 10:00:00 order {ULID}");
    let mut spans = Vec::new();
    scan::for_each_token(line.as_bytes(), |hit| spans.push((hit.start, hit.end)));
    let mut out = Analysis::default();
    analyse(line.as_bytes(), &spans, false, &utc(), &mut out);
    assert_eq!(out.time_ms(), None);
    assert_eq!(out.field(0), Some(&b"order"[..]));
    assert_eq!(out.field(1), None);
}

#[test]
fn plain_times_of_other_loggers_and_servers() {
    for (line, want) in [
        // Go's log package, nginx's error log.
        ("2026/12/01 10:00:12 worker started", "2026-12-01T10:00:12Z"),
        (
            "2026/12/01 10:00:12.123456 main.go:12: x",
            "2026-12-01T10:00:12.123Z",
        ),
        (
            "2026/12/01 10:00:12 [error] 7#7: *1 connect() failed",
            "2026-12-01T10:00:12Z",
        ),
        // java.util.logging's first line.
        (
            "Dec 01, 2026 10:00:15 AM org.example.Main run",
            "2026-12-01T10:00:15Z",
        ),
        (
            "Dec 1, 2026 9:05:15 PM org.example.Main run",
            "2026-12-01T21:05:15Z",
        ),
        ("Dec 01, 2026 12:00:00 AM x", "2026-12-01T00:00:00Z"),
        ("Dec 01, 2026 12:30:00 PM x", "2026-12-01T12:30:00Z"),
        // The Apache error log and ctime.
        (
            "[Tue Dec 01 10:00:00.123456 2026] [core:error] [pid 1] x",
            "2026-12-01T10:00:00.123Z",
        ),
        ("Tue Dec  1 10:00:00 2026 x", "2026-12-01T10:00:00Z"),
        // ISO 8601 without seconds.
        ("2026-12-01T10:00Z x", "2026-12-01T10:00:00Z"),
        ("2026-12-01 10:00 x", "2026-12-01T10:00:00Z"),
        ("2026-12-01T10:00+01:00 x", "2026-12-01T09:00:00Z"),
        // log4j and logback, Python, Rails, PostgreSQL, MySQL.
        (
            "2026-12-01 10:00:00,123 INFO [main] x",
            "2026-12-01T10:00:00.123Z",
        ),
        (
            "I, [2026-12-01T10:00:00.123456 #1234]  INFO -- : x",
            "2026-12-01T10:00:00.123Z",
        ),
        (
            "2026-12-01 10:00:00.123 UTC [42] LOG:  x",
            "2026-12-01T10:00:00.123Z",
        ),
        (
            "2026-12-01T10:00:00.123456Z 8 [Note] x",
            "2026-12-01T10:00:00.123Z",
        ),
    ] {
        let line = format!("{line} {ULID}");
        assert_eq!(time(&line), Some(ms(want)), "{line}");
    }
    for line in [
        "Dec 01, 2026 13:00:15 PM x",
        "Dec 01, 2026 10:00:15 x",
        "Tue Dec 01 10:00:00 26 x",
        "2026/12-01 10:00:00 x",
        "2026-12-01 10:0 x",
        "2026-12-01 10:00:1 x",
    ] {
        let line = format!("{line} {ULID}");
        assert_eq!(time(&line), None, "{line}");
    }
}

#[test]
fn json_and_logfmt_time_keys_of_other_loggers() {
    let at = ms("2026-12-01T10:00:00Z");
    for (key, value) in [
        ("Timestamp", "\"2026-12-01T10:00:00Z\""),
        ("TIME", "\"2026-12-01T10:00:00Z\""),
        ("@t", "\"2026-12-01T10:00:00.0000000Z\""),
        ("eventTime", "\"2026-12-01T10:00:00Z\""),
        ("time_local", "\"01/Dec/2026:11:00:00 +0100\""),
        ("time_iso8601", "\"2026-12-01T10:00:00+00:00\""),
        ("timeMillis", "1796119200000"),
        ("__REALTIME_TIMESTAMP", "\"1796119200000000\""),
        ("asctime", "\"2026-12-01 10:00:00,000\""),
        ("ts", "\"2026-12-01T10:00Z\""),
        ("time", "\"2026/12/01 10:00:00\""),
    ] {
        let line = format!(r#"{{"{key}":{value},"id":"{ULID}"}}"#);
        assert_eq!(time(&line), Some(at), "{line}");
    }
    let mongo = format!(
        r#"{{"t":{{"$date":"2026-12-01T10:00:00.000+00:00"}},"s":"I","c":"NETWORK","id":"{ULID}"}}"#
    );
    assert_eq!(time(&mongo), Some(at));
    let other_nested = format!(r#"{{"t":{{"when":"2026-12-01T10:00:00Z"}},"id":"{ULID}"}}"#);
    assert_eq!(time(&other_nested), None);
    let logfmt = format!(r#"time_local="01/Dec/2026:10:00:00 +0000" id={ULID}"#);
    assert_eq!(time(&logfmt), Some(at));
    assert_eq!(time(&format!("Time=2026-12-01T10:00Z id={ULID}")), Some(at));
    assert_eq!(
        time(&format!(
            r#"{{"time_local":"01/Dec/2026:10:00:00 +0000 x","id":"{ULID}"}}"#
        )),
        None
    );
}

/// An OpenTelemetry log record's `timeUnixNano`, flat or nested as OTLP JSON exports it,
/// is its line's time; 0, OpenTelemetry's "unknown", is none, and the line's other time
/// keys still count.
#[test]
fn opentelemetry_records_have_their_time_unix_nano() {
    let at = ms("2026-12-01T10:00:00.123Z");
    let nanos = "1796119200123000000";
    let flat = format!(r#"{{"timeUnixNano":"{nanos}","traceId":"{ULID}"}}"#);
    assert_eq!(time(&flat), Some(at));
    let nested = format!(
        r#"{{"resourceLogs":[{{"resource":{{"attributes":[]}},"scopeLogs":[{{"logRecords":[{{"timeUnixNano":"{nanos}","observedTimeUnixNano":"1","traceId":"{ULID}"}}]}}]}}]}}"#
    );
    assert_eq!(time(&nested), Some(at));
    let number = format!(r#"{{"a":{{"b":{{"timeUnixNano":{nanos}}}}},"id":"{ULID}"}}"#);
    assert_eq!(time(&number), Some(at));
    let unknown = format!(r#"{{"x":[{{"timeUnixNano":"0","id":"{ULID}"}}]}}"#);
    assert_eq!(time(&unknown), None);
    let unknown_then_ts =
        format!(r#"{{"timeUnixNano":0,"ts":"2026-12-01T10:00:00.123Z","id":"{ULID}"}}"#);
    assert_eq!(time(&unknown_then_ts), Some(at));
    // Only that key is read at depth: another nested time-like key is not.
    let other = format!(r#"{{"x":[{{"time":"2026-12-01T10:00:00Z","id":"{ULID}"}}]}}"#);
    assert_eq!(time(&other), None);
}

/// A record without its own time (none, or OpenTelemetry's 0) is dated by
/// `observedTimeUnixNano`, when its collector received it; a time of its own always wins,
/// written before or after it.
#[test]
fn opentelemetry_records_without_a_time_have_their_observed_time() {
    let at = ms("2026-12-01T10:00:00.123Z");
    let observed = "1796119200123000000";
    let later = "1796119260000000000";
    let nested_zero = format!(
        r#"{{"resourceLogs":[{{"scopeLogs":[{{"logRecords":[{{"timeUnixNano":"0","observedTimeUnixNano":"{observed}","traceId":"{ULID}"}}]}}]}}]}}"#
    );
    assert_eq!(time(&nested_zero), Some(at));
    let flat_missing = format!(r#"{{"observedTimeUnixNano":"{observed}","traceId":"{ULID}"}}"#);
    assert_eq!(time(&flat_missing), Some(at));
    let number = format!(r#"{{"r":{{"observedTimeUnixNano":{observed},"id":"{ULID}"}}}}"#);
    assert_eq!(time(&number), Some(at));
    let own_first = format!(
        r#"{{"r":{{"timeUnixNano":"{observed}","observedTimeUnixNano":"{later}","id":"{ULID}"}}}}"#
    );
    assert_eq!(time(&own_first), Some(at));
    let own_after = format!(
        r#"{{"r":{{"observedTimeUnixNano":"{later}","timeUnixNano":"{observed}","id":"{ULID}"}}}}"#
    );
    assert_eq!(time(&own_after), Some(at));
    let ts_after = format!(
        r#"{{"observedTimeUnixNano":"{later}","ts":"2026-12-01T10:00:00.123Z","id":"{ULID}"}}"#
    );
    assert_eq!(time(&ts_after), Some(at));
    let zero_after = format!(
        r#"{{"r":{{"observedTimeUnixNano":"{observed}","timeUnixNano":0,"id":"{ULID}"}}}}"#
    );
    assert_eq!(time(&zero_after), Some(at));
    let both_zero =
        format!(r#"{{"r":{{"timeUnixNano":"0","observedTimeUnixNano":"0","id":"{ULID}"}}}}"#);
    assert_eq!(time(&both_zero), None);
}

#[test]
fn zone_abbreviations_are_read_and_impossible_offsets_give_no_time() {
    for (line, want) in [
        ("2026-11-29 10:00:00 PST x", Some("2026-11-29T18:00:00Z")),
        ("2026-11-29 10:00:00 CET x", Some("2026-11-29T09:00:00Z")),
        (
            "2026-11-29 10:00:00.5 AEDT x",
            Some("2026-11-28T23:00:00.500Z"),
        ),
        ("2026-11-29 10:00:00 EDT x", Some("2026-11-29T14:00:00Z")),
        // Ambiguous abbreviations and other words: the context's zone (UTC here).
        ("2026-11-29 10:00:00 CST x", Some("2026-11-29T10:00:00Z")),
        ("2026-11-29 10:00:00 INFO x", Some("2026-11-29T10:00:00Z")),
        (
            "2026-11-29 10:00:00 +5 retries x",
            Some("2026-11-29T10:00:00Z"),
        ),
        // An offset no place has is no time, not UTC.
        ("2026-11-29T10:00:00+25:00 x", None),
        ("2026-11-29T10:00:00-1260 x", None),
        ("2026-11-29 10:00:00 +2500 x", None),
    ] {
        let line = format!("{line} {ULID}");
        assert_eq!(time(&line), want.map(ms), "{line}");
    }
}

/// The line's time as read, to the microsecond, with whether its zone was only assumed.
fn line_time(line: &str, ctx: &TimeContext) -> Option<LineTime> {
    let mut out = Analysis::default();
    analyse(line.as_bytes(), &[], true, ctx, &mut out);
    out.time()
}

#[test]
fn times_keep_their_microseconds() {
    let at = ms("2026-11-29T10:00:00Z") * 1000;
    for (line, want) in [
        ("2026-11-29T10:00:00.123456Z x", at + 123_456),
        ("2026-11-29T10:00:00.123456789Z x", at + 123_456),
        ("2026-11-29 10:00:00,000042 x", at + 42),
        ("2026-11-29T10:00:00.5Z x", at + 500_000),
        ("I1129 10:00:00.000007 1 main.go:1] x", at + 7),
        (
            "[Sun Nov 29 10:00:00.250001 2026] [core:error] x",
            at + 250_001,
        ),
        (r#"{"ts":1795946400.000001,"m":"x"}"#, at + 1),
        (r#"{"ts":1795946400123,"m":"x"}"#, at + 123_000),
        (r#"{"ts":1795946400123456,"m":"x"}"#, at + 123_456),
        (r#"{"ts":1795946400123456789,"m":"x"}"#, at + 123_456),
        ("ts=1795946400.000250 m=x", at + 250),
    ] {
        let got = line_time(line, &utc()).map(|t| t.micros);
        assert_eq!(got, Some(want), "{line}");
    }
    // Before 1970 the milliseconds round down, as the microseconds do.
    let before = line_time("1969-12-31T23:59:59.999500Z x", &utc()).unwrap();
    assert_eq!((before.micros, before.millis()), (-500, -1));
}

#[test]
fn a_time_without_offset_says_its_zone_was_assumed() {
    // 2026-12-31T12:00:00Z: syslog's year-less lines are of 2026.
    let reference = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_798_718_400);
    let default = TimeContext::for_file(None, Some(reference));
    let paris = TimeZone::get("Europe/Paris").unwrap();
    let given = TimeContext::for_file(Some(&paris), None);
    for (line, guessed) in [
        ("2026-11-29 10:00:00 x", true),
        ("Nov 29 10:00:00 host app: x", true),
        ("2026-11-29T10:00:00Z x", false),
        ("2026-11-29 10:00:00 +0100 x", false),
        ("2026-11-29 10:00:00 PST x", false),
        ("[29/Nov/2026:10:00:00 +0000] x", false),
        (r#"{"ts":1795946400,"m":"x"}"#, false),
    ] {
        let time = line_time(line, &default).unwrap();
        assert_eq!(time.zone_guessed, guessed, "{line}");
        assert!(!line_time(line, &given).unwrap().zone_guessed, "{line}");
    }
}
