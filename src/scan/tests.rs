//! Unit tests of the matcher and its searchers; the pair and sampled searchers at every
//! dispatch level the CPU has.

use super::pairs::{pick_pair, pick_shared};
use super::simd::{Level, Simd, coverage};
use super::*;
use crate::id;
use crate::testing::Rng;

fn hits(ids: &[&str], hay: &str) -> Vec<(usize, usize)> {
    let ids: Vec<Id> = ids.iter().map(|s| id::parse(s).unwrap().id).collect();
    let m = Matcher::new(&ids);
    let mut out = Vec::new();
    m.find(hay.as_bytes(), &mut out);
    out.iter().map(|h| (h.start, h.end)).collect()
}

const ULID: &str = "01kb2x1x0m4v6f9a1t8e3q7c5d";

#[test]
fn finds_every_form_of_one_id() {
    let uuid = id::parse(ULID).unwrap().id.uuid();
    let hex = id::parse(ULID).unwrap().id.hex().to_uppercase();
    let hay = format!(
        "a {ULID} b {} c {uuid} d {} e {{{uuid}}} f user_{ULID}\n",
        ULID.to_uppercase(),
        hex
    );
    let found = hits(&[ULID], &hay);
    let texts: Vec<&str> = found.iter().map(|&(s, e)| &hay[s..e]).collect();
    assert_eq!(
        texts,
        vec![
            ULID.to_string(),
            ULID.to_uppercase(),
            uuid.clone(),
            hex,
            uuid,
            ULID.to_string()
        ]
    );
}

#[test]
fn glued_to_letters_or_digits_is_not_a_match() {
    for hay in [
        format!("x{ULID}"),
        format!("{ULID}z"),
        format!("1{ULID}"),
        format!("{ULID}0"),
    ] {
        assert!(hits(&[ULID], &hay).is_empty(), "{hay}");
    }
    for hay in [
        format!("req-{ULID}"),
        format!("_{ULID}/"),
        format!("\"{ULID}\""),
        format!("order={ULID},"),
    ] {
        assert_eq!(hits(&[ULID], &hay).len(), 1, "{hay}");
    }
}

#[test]
fn token_walk_finds_shapes() {
    let hay = b"x 01KB2X1X0M4V6F9A1T8E3Q7C5D req-3ea4052c-895d-4b64-9e2d-04d64c4d94ab 54fadb412c4e40cdbaed9335e4c35a9e 81KB2X1X0M4V6F9A1T8E3Q7C5D";
    let mut shapes = Vec::new();
    for_each_token(hay, |h| shapes.push((h.shape, h.start)));
    assert_eq!(
        shapes,
        vec![
            (Shape::Ulid, 2),
            (Shape::UuidDashed, 33),
            (Shape::UuidUndashed, 70)
        ]
    );
}

#[test]
fn shared_probes_sit_where_both_tails_are_rare() {
    // Digits are the commonest bytes in logs: the prefilter should compare the letters,
    // and at offsets where both tails have one.
    let ulid_tail = b"0q00z0000x000000";
    let uuid_tail = b"0b00f0000d00";
    assert_eq!(pick_shared::<3>(&[ulid_tail, uuid_tail]), [1, 4, 9]);
}

#[test]
fn no_query_finds_nothing() {
    let mut out = Vec::new();
    Matcher::new(&[]).find(format!("x {ULID} y").as_bytes(), &mut out);
    assert!(out.is_empty());
}

#[test]
fn many_ids_use_the_sampled_filter() {
    let ids: Vec<String> = (0..10u128).map(|i| Id(i << 100 | 12345).ulid()).collect();
    let refs: Vec<&str> = ids.iter().map(|s| s.as_str()).collect();
    let hay = format!("{} {} {}", ids[3], ULID, ids[9].to_uppercase());
    let m = Matcher::new(
        &ids.iter()
            .map(|s| id::parse(s).unwrap().id)
            .collect::<Vec<_>>(),
    );
    assert!(matches!(m.strategy, Strategy::Sampled(_)));
    let mut out = Vec::new();
    m.find(hay.as_bytes(), &mut out);
    assert_eq!(out.iter().map(|h| h.query).collect::<Vec<_>>(), vec![3, 9]);
    assert_eq!(hits(&refs[..2], &hay).len(), 0);
}
#[test]
fn the_sampled_filter_finds_what_the_token_walk_finds() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut next = move || rng.next();
    // IDs of one millisecond share their time prefix: only the tails tell them apart.
    let prefix = 0x0194_a1b2_c3d4u128 << 80;
    let ids: Vec<Id> = (0..300)
        .map(|i| {
            let random = ((next() as u128) << 64 | next() as u128) & ((1 << 80) - 1);
            Id(if i % 2 == 0 {
                prefix | random
            } else {
                random << 48 | i
            })
        })
        .collect();
    let others: Vec<Id> = (0..50).map(|_| Id(prefix | next() as u128)).collect();
    let mut hay = Vec::new();
    while hay.len() < 200_000 {
        let pool = if next() % 3 == 0 { &others } else { &ids };
        let id = pool[(next() % pool.len() as u64) as usize];
        let text = match next() % 7 {
            0 => id.ulid(),
            1 => id.ulid().to_uppercase(),
            2 => id.uuid(),
            3 => format!("{{{}}}", id.uuid().to_uppercase()),
            4 => id.hex(),
            5 => format!("x{}", id.ulid()),
            _ => "text 0123456789abcdef-0123 ".to_string(),
        };
        hay.extend_from_slice(text.as_bytes());
        hay.push(b" \n-_=:"[(next() % 6) as usize]);
    }
    let sampled = Matcher::new(&ids);
    let walk = Matcher {
        strategy: Strategy::Tokens(ids.iter().enumerate().map(|(i, id)| (id.0, i)).collect()),
        simd: None,
    };
    let Strategy::Sampled(searcher) = &sampled.strategy else {
        unreachable!()
    };
    let levels = coverage::levels("scan sampled searcher", &Level::ALL);
    let end = hay.len();
    for len in (end - 40..=end).chain([1000, 129, 128, 127, 23, 7, 0]) {
        let (mut got, mut want) = (Vec::new(), Vec::new());
        sampled.find(&hay[..len], &mut got);
        walk.find(&hay[..len], &mut want);
        assert_eq!(got, want, "length {len}");
        assert!(len < 1000 || !want.is_empty());
        // The scalar loop too, where the CPU has a vector one.
        let mut scalar = Vec::new();
        let scalar_level = Simd::widest_up_to(Level::Scalar);
        searcher.find_scalar(scalar_level, &hay[..len], 0, &mut 0, &mut scalar);
        assert_eq!(scalar, want, "length {len}, scalar");
        for &simd in &levels {
            let what = format!("{}, length {len}", simd.level().name());
            agrees_numbered(&sampled, simd, &hay[..len], &want, &what);
        }
    }
}

/// `m` at the level `simd` finds `want` in `hay`, with and without line numbers, and numbers
/// the lines right.
fn agrees_numbered(m: &Matcher, simd: Simd, hay: &[u8], want: &[Hit], what: &str) {
    let mut got = Vec::new();
    m.search(simd, hay, &mut got, None);
    assert_eq!(got, want, "{what}");
    let mut numbering = Numbering::default();
    m.find_numbered_with(simd, hay, &mut got, &mut numbering);
    assert_eq!(got, want, "{what}, numbered");
    let mut newlines = 0;
    let mut counted_to = 0;
    let before: Vec<u64> = want
        .iter()
        .map(|h| {
            newlines += count_newlines(&hay[counted_to..h.start]);
            counted_to = h.start;
            newlines
        })
        .collect();
    assert_eq!(numbering.before, before, "{what}, newlines before each hit");
    assert_eq!(
        numbering.total,
        count_newlines(hay),
        "{what}, newlines in all"
    );
}

/// Every pair-searcher path this CPU has must agree with the byte-at-a-time path, and
/// number lines right.
#[test]
fn every_vector_path_agrees_with_the_scalar_one() {
    let levels = coverage::levels("scan pair searcher", &Level::ALL);
    let mut rng = Rng(0x1234_5678_9abc_def0);
    let mut next = move || rng.next();
    for queries in 1..=MAX_PAIR_QUERIES {
        // Every kind of tail: a UUID query, a trace query, a span query, a repeated needle.
        let tails = [
            [Tail::Ulid, Tail::Uuid],
            [Tail::Uuid, Tail::Decimal],
            [Tail::Span, Tail::Decimal],
            [Tail::Decimal, Tail::Repeat],
        ];
        let entries: Vec<Entry> = (0..queries)
            .map(|q| {
                let wide64 = q % tails.len() == 2;
                let value = if wide64 && queries == 3 {
                    // A short decimal: a needle shorter than the others' reach.
                    1 + u128::from(next() % 100_000)
                } else if wide64 {
                    next() as u128
                } else {
                    ((next() as u128) << 64) | next() as u128
                };
                Entry {
                    value,
                    query: q,
                    tails: tails[q % tails.len()],
                    wide64,
                    trace: q % 2 == 0,
                }
            })
            .collect();
        agree_at_every_level(&entries, &levels, &mut next);
    }
}

/// The pair searcher for `entries` finds at every level in `levels` what its scalar loop
/// finds, in a haystack of their values in every spelling; returns the scalar loop's hits.
fn agree_at_every_level(
    entries: &[Entry],
    levels: &[Simd],
    next: &mut impl FnMut() -> u64,
) -> Vec<Hit> {
    let what = format!(
        "{} entries, tails {:?}",
        entries.len(),
        entries.iter().map(|e| e.tails).collect::<Vec<_>>()
    );
    let searcher = PairSearcher::new(entries);
    let mut hay = Vec::new();
    while hay.len() < 20_000 {
        let id = Id(entries[(next() % entries.len() as u64) as usize].value);
        let text = match next() % 8 {
            0 => id.ulid(),
            1 => id.uuid().to_uppercase(),
            2 => id.hex(),
            3 => id.xray(),
            4 => format!("trace_id={}", id.hex16()),
            5 => format!("dd.span_id={}", id.low64()),
            6 => format!("\"trace_id\":\"{}\"", id.low64()),
            _ => "padding text, 0123456789 abcdef".to_string(),
        };
        hay.extend_from_slice(text.as_bytes());
        hay.push(b" \n-_x"[(next() % 5) as usize]);
    }
    let mut expected = Vec::new();
    searcher.find_scalar(&hay, 0, &mut expected);
    expected.sort_unstable_by_key(|h| h.start);
    assert!(!expected.is_empty());
    let matcher = Matcher {
        strategy: Strategy::Pairs(searcher.clone()),
        simd: None,
    };
    for &simd in levels {
        let name = simd.level().name();
        let mut found_last = 0;
        // Each spelling of each value as the haystack's last token, then a byte or a few
        // after it: a needle at each of the last starts, where each path has its tail.
        for entry in entries {
            let id = Id(entry.value);
            let spellings = [
                id.ulid(),
                id.uuid(),
                id.hex(),
                id.xray(),
                format!("trace_id={}", id.hex16()),
                format!("dd.span_id={}", id.low64()),
            ];
            for (spelling, after) in spellings.iter().flat_map(|t| [(t, 0), (t, 1), (t, 3)]) {
                let mut short = hay[..700].to_vec();
                short.push(b' ');
                short.extend_from_slice(spelling.as_bytes());
                short.extend(std::iter::repeat_n(b' ', after));
                let mut got = Vec::new();
                searcher.find(simd, &short, &mut got, None);
                got.sort_unstable_by_key(|h| h.start);
                let mut want = Vec::new();
                searcher.find_scalar(&short, 0, &mut want);
                want.sort_unstable_by_key(|h| h.start);
                found_last += usize::from(want.iter().any(|h| h.end + after == short.len()));
                assert_eq!(
                    got, want,
                    "{name}, {what}, ending in {spelling} and {after}"
                );
            }
        }
        // Each value is found in at least its own spellings, whatever its kind.
        assert!(
            found_last >= 3 * 2 * entries.len(),
            "{what}: {found_last} last tokens found"
        );
        for len in [hay.len(), hay.len() - 1, hay.len() - 63, 100, 37, 0] {
            let mut got = Vec::new();
            searcher.find(simd, &hay[..len], &mut got, None);
            got.sort_unstable_by_key(|h| h.start);
            let mut want = Vec::new();
            searcher.find_scalar(&hay[..len], 0, &mut want);
            want.sort_unstable_by_key(|h| h.start);
            assert_eq!(got, want, "{name}, {what}, length {len}");
            let what = format!("{name}, {what}, length {len}");
            agrees_numbered(&matcher, simd, &hay[..len], &want, &what);
        }
    }
    expected
}

/// A 32-hex query (a UUID or a trace ID) scans three needles at one shared pair of offsets;
/// that loop must agree with the scalar one at every level too.
/// The pair prefilter's two positions are the two rarest of a sort of every position by
/// rarity, the second of another byte where the tail has one, on tails of every kind and of
/// one repeated byte.
#[test]
fn the_pair_positions_are_the_rarest_of_a_sort_of_every_position() {
    let mut rng = Rng(0x9a1f);
    for round in 0..5_000 {
        let alphabet: &[u8] = match round % 3 {
            0 => b"0123456789abcdefghjkmnpqrstvwxyz",
            1 => b"0123456789",
            _ => b"0",
        };
        let bytes: Vec<u8> = (0..2 + rng.below(30))
            .map(|_| *rng.pick(alphabet))
            .collect();
        let mut order: Vec<usize> = (0..bytes.len()).collect();
        order.sort_by_key(|&i| (pairs::frequency_rank(bytes[i]), i));
        let first = order[0];
        let second = order[1..]
            .iter()
            .copied()
            .find(|&i| bytes[i] != bytes[first])
            .unwrap_or(order[1]);
        assert_eq!(
            pick_pair(&bytes),
            (first.min(second), first.max(second)),
            "{:?}",
            String::from_utf8_lossy(&bytes)
        );
    }
}

#[test]
fn a_32_hex_query_shares_one_pair_of_offsets_and_agrees_at_every_level() {
    let levels = coverage::levels("scan pair searcher, shared offsets", &Level::ALL);
    let mut rng = Rng(0x0bad_cafe_f00d_1234);
    let mut next = move || rng.next();
    for _ in 0..8 {
        let value = ((next() as u128) << 64) | next() as u128;
        let query = format!("{value:032x}");
        let parsed = id::parse(&query).unwrap();
        assert!(parsed.may_be_trace(), "{query}");
        let Strategy::Pairs(searcher) = Matcher::for_queries(&[parsed]).strategy else {
            panic!("{query}: not the pair searcher");
        };
        assert_eq!(searcher.scanned.len(), 3, "{query}");
        let (i1, i2) = searcher.shared_pair.expect("a shared pair");
        for &n in &searcher.scanned {
            assert_eq!((searcher.needles[n].i1, searcher.needles[n].i2), (i1, i2));
        }
        let entries = [
            Entry {
                value,
                query: 0,
                tails: [Tail::Ulid, Tail::Uuid],
                wide64: false,
                trace: true,
            },
            Entry {
                value,
                query: 0,
                tails: [Tail::Decimal, Tail::Repeat],
                wide64: false,
                trace: true,
            },
        ];
        let found = agree_at_every_level(&entries, &levels, &mut next);
        // Every needle finds its spellings: the ULID, the hex (UUID, X-Ray, 16 hex in a
        // trace field) and the decimal in a trace field.
        for shape in [
            Shape::Ulid,
            Shape::UuidUndashed,
            Shape::Xray,
            Shape::Hex16,
            Shape::Decimal,
        ] {
            assert!(
                found.iter().any(|h| h.shape == shape),
                "{query}: no {shape:?}"
            );
        }
    }
}
