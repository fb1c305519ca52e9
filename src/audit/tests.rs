//! Unit tests of the audit's building blocks: id-like keys and their values, the key filter,
//! example order and locations.

use crate::search::Chunk;

use super::evidence::{At, Example, Loc, Top3};
use super::key_values::{is_id_key, key_lines, scalar_kind};
use super::rules::NilKind;

#[test]
fn id_like_keys() {
    for key in [
        "id",
        "ID",
        "order.id",
        "user_id",
        "userId",
        "userID",
        "USER_ID",
        "ctx.order_id",
        "items[].id",
        "ids.id[]",
    ] {
        assert!(is_id_key(key.as_bytes()), "{key}");
    }
    for key in [
        "paid",
        "valid",
        "pid",
        "uuid",
        "idx",
        "id_card",
        "ident",
        "Id.x",
        // Integers that number no entity: threads, shards, partitions, workers, events.
        "thread_id",
        "threadId",
        "ctx.ThreadID",
        "shard_id",
        "kafka_partition_id",
        "kafkaPartitionId",
        "worker_id",
        "EventID",
        "process_id",
    ] {
        assert!(!is_id_key(key.as_bytes()), "{key}");
    }
}

#[test]
fn scalar_values() {
    assert_eq!(scalar_kind(b""), Some(Some(NilKind::Empty)));
    assert_eq!(scalar_kind(b"0"), Some(Some(NilKind::Zero)));
    assert_eq!(scalar_kind(b"000"), Some(Some(NilKind::Zero)));
    assert_eq!(scalar_kind(b"1001"), Some(None));
    assert_eq!(scalar_kind(b"-1"), Some(None));
    assert_eq!(scalar_kind(b"12345678901234567890"), Some(None));
    for other in [
        "123456789012345678901",
        "1.5",
        "-",
        "01m8kbygm5",
        "abc",
        " 1",
    ] {
        assert_eq!(scalar_kind(other.as_bytes()), None, "{other}");
    }
}

/// The lines the key filter flags in `text`, with their numbers.
fn flagged(text: &str) -> Vec<(u64, String)> {
    let mut found = Vec::new();
    key_lines(
        &Chunk {
            bytes: text.as_bytes(),
            first_line_no: 10,
            lines: &[],
            xray_roots: None,
        },
        |line, no| found.push((no, String::from_utf8_lossy(line).into_owned())),
    );
    found
}

#[test]
fn key_filter_flags_integer_and_empty_values_only() {
    let text = "a order_id=01m8kbygm5ng2pshny302zvwbs\r\n\
                b job_id=1180 x\r\n\
                {\"user_id\": 0, \"order_id\":\"01a226bf-4285-ac05-6cc6-be1805fdf179\"}\n\
                {\"order_id\":\"01a226bf-4285-ac05-6cc6-be1805fdf179\",\"parent_id\":\"\"}\n\
                c ref_ID='42' and user_id=12345678-aaaa-bbbb-cccc-1234567890ab\n\
                d parent_id= next\n\
                e \"userId\":null version=1.2 paid=5 span_id=1.5\n\
                f msg=\"{\\\"user_id\\\":7}\"\n\
                g user_id=-1";
    let lines: Vec<u64> = flagged(text).iter().map(|(n, _)| *n).collect();
    // `paid=5` passes the filter (the key test is the record reader's).
    assert_eq!(lines, vec![11, 12, 13, 14, 15, 16, 17, 18]);
    assert_eq!(flagged(text)[0].1, "b job_id=1180 x");
    assert!(flagged("x id=").len() == 1 && flagged("{\"id\":").is_empty());
}

#[test]
fn key_filter_flags_trace_and_span_fields_unless_they_hold_a_32_hex_token() {
    let text = "a trace_id=4bf92f3577b34da6a3ce929d0e0e4736\n\
                b {\"traceId\":\"4BF92F3577B34DA6A3CE929D0E0E4736\"}\n\
                c X-B3-SpanId=00f067aa0ba902b7\n\
                d {\"span.id\": \"00f067aa0ba902b7\"}\n\
                e x-datadog-parent-id=abc\n\
                f request_id=01a226bf-4285-ac05-6cc6-be1805fdf179 user_id=abc client_id=x\n\
                g {\"dd\":{\"trace_id\":\"11803532876627986230\"}}\n\
                h traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\n\
                i X-B3-TraceId=a3ce929d0e0e4736ff";
    let lines: Vec<u64> = flagged(text).iter().map(|(n, _)| *n).collect();
    // 32-hex values and `traceparent` are ID tokens, read with the line's tokens.
    assert_eq!(lines, vec![12, 13, 14, 16, 18]);
}

#[test]
fn top3_keeps_the_earliest_whatever_the_order() {
    let at = |line: u64, col: u32| At {
        loc: Loc::new(1, line),
        col,
    };
    let order = [at(5, 0), at(2, 9), at(9, 1), at(2, 3), at(1, 0), at(7, 7)];
    let mut forward = Top3::default();
    let mut backward = Top3::default();
    for &a in &order {
        forward.offer(a, || Example::new(a, b"x"));
    }
    for &a in order.iter().rev() {
        backward.offer(a, || Example::new(a, b"x"));
    }
    let kept = |t: &Top3| t.iter().map(|e| e.at).collect::<Vec<_>>();
    assert_eq!(kept(&forward), vec![at(1, 0), at(2, 3), at(2, 9)]);
    assert_eq!(kept(&forward), kept(&backward));
    let mut merged = Top3::default();
    merged.offer(at(1, 5), || Example::new(at(1, 5), b"y"));
    merged.merge(&forward);
    assert_eq!(kept(&merged), vec![at(1, 0), at(1, 5), at(2, 3)]);
}

#[test]
fn locations_order_by_file_then_line_and_saturate() {
    assert!(Loc::new(0, u64::MAX) < Loc::new(1, 1));
    assert_eq!(Loc::new(3, 77).file(), 3);
    assert_eq!(Loc::new(3, 77).line(), 77);
    assert!(Loc::new(u32::MAX, u64::MAX) <= Loc::NONE);
}

/// id-time-skew against a line time whose zone is known or only assumed: an assumed zone
/// gets 14 hours more allowance, whichever side of UTC the log was written on, and a skew
/// beyond that still counts.
#[test]
fn skew_allows_for_an_assumed_zone_and_no_more() {
    use super::rules::{Limits, SkewKind, skew};
    use crate::record::LineTime;
    const HOUR: i64 = 3_600_000;
    let limits = Limits {
        skew_ms: 5 * 60_000,
        future_after_ms: i64::MAX,
    };
    let line_ms = 1_795_946_400_000;
    let line = |zone_guessed| {
        Some(LineTime {
            micros: line_ms * 1000,
            zone_guessed,
        })
    };
    let kind = |id_after_line: i64, line| {
        skew(Some(line_ms + id_after_line), line, &limits).map(|s| s.kind)
    };
    // Known zone: more than five minutes after the line counts.
    assert_eq!(kind(HOUR, line(false)), Some(SkewKind::AfterLine));
    assert_eq!(kind(4 * 60_000, line(false)), None);
    // Assumed zone, west of UTC (New York, read 5 h early) and east of UTC (Tokyo, read 9 h
    // late): within 14 h plus the skew, nothing is claimed.
    assert_eq!(kind(5 * HOUR, line(true)), None);
    assert_eq!(kind(-8 * HOUR, line(true)), None);
    assert_eq!(kind(14 * HOUR + 4 * 60_000, line(true)), None);
    // Beyond the widest offset and the skew, it still counts.
    assert_eq!(kind(15 * HOUR, line(true)), Some(SkewKind::AfterLine));
}
