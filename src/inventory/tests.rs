//! The inventory's counts checked against a naive count, and its sorting and field matching.

use super::tally::{FEW_OCCURRENCES, FieldId};
use super::*;

use std::collections::{BTreeMap, BTreeSet};

/// What a summary says, in plain collections, for comparing tallies.
#[derive(Debug, PartialEq, Eq, Default)]
struct Plain {
    lines: u32,
    files: BTreeSet<u32>,
    fields: BTreeMap<Vec<u8>, u32>,
    forms: BTreeMap<&'static str, u32>,
    first: Option<i64>,
    last: Option<i64>,
}

fn plain(inventory: &Inventory) -> BTreeMap<u128, Plain> {
    inventory
        .summaries()
        .map(|s| {
            let p = Plain {
                lines: s.lines(),
                files: s.files().iter().copied().collect(),
                fields: s.fields().iter().map(|(f, n)| (f.to_vec(), *n)).collect(),
                forms: s.forms().iter().map(|(f, n)| (f.name(), *n)).collect(),
                first: s.first_ms(),
                last: s.last_ms(),
            };
            (s.id.0, p)
        })
        .collect()
}

type TestLine = (u32, Option<i64>, Vec<(u128, Form, Option<&'static [u8]>)>);

/// Random lines over a few values, files, fields and forms.
fn random_lines(seed: u64, n: usize, values: u64) -> Vec<TestLine> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    // More names and forms than an entry holds itself, and file numbers on both sides of
    // the ones kept as bits.
    let fields: [Option<&'static [u8]>; 9] = [
        None,
        Some(b"order_id"),
        Some(b"ctx.order"),
        Some(b"id"),
        Some(b"a"),
        Some(b"b"),
        Some(b"c"),
        Some(b"d"),
        Some(b"e"),
    ];
    (0..n)
        .map(|_| {
            let file = (next() % 4) as u32 * 150;
            let time = (next() % 3 != 0).then(|| (next() % 1000) as i64);
            // Now and then a line of many occurrences, with repeats, past the count that
            // `add_line` compares one by one.
            let (count, distinct) = if next() % 40 == 0 {
                (FEW_OCCURRENCES as u64 + 1 + next() % 40, 1 + next() % 12)
            } else {
                (1 + next() % 4, values)
            };
            let first = next() % values;
            let hits = (0..count)
                .map(|_| {
                    // Spread over the whole key space, as IDs are.
                    let value = (((first + next() % distinct) % values) as u128)
                        .wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835);
                    let form = Form::ALL[(next() % Form::ALL.len() as u64) as usize];
                    (value, form, fields[(next() % fields.len() as u64) as usize])
                })
                .collect();
            (file, time, hits)
        })
        .collect()
}

/// Counts `lines` through one tally of `tallies`.
fn count(tallies: &Tallies, lines: &[TestLine]) {
    let mut tally = tallies.tally();
    for (file, time, hits) in lines {
        let occ: Vec<Occurrence> = hits
            .iter()
            .map(|&(v, form, field)| Occurrence {
                id: Id(v),
                form,
                field: field.map(|name| tally.field(name)),
                space: Space::Wide,
            })
            .collect();
        tally.add_line(*file, *time, &occ);
    }
    tally.done();
}

/// The same counts, computed the obvious way.
fn naive(lines: &[TestLine], all_undashed: bool) -> BTreeMap<u128, Plain> {
    let mut out: BTreeMap<u128, Plain> = BTreeMap::new();
    let mut seen_other: BTreeSet<u128> = BTreeSet::new();
    for (_, _, hits) in lines {
        for &(v, form, _) in hits {
            if form != Form::UuidUndashed || all_undashed {
                seen_other.insert(v);
            }
        }
    }
    for (file, time, hits) in lines {
        let mut on_line = BTreeSet::new();
        for &(v, form, field) in hits {
            if !seen_other.contains(&v) {
                continue;
            }
            let p = out.entry(v).or_default();
            if on_line.insert(v) {
                p.lines += 1;
                if let Some(t) = *time {
                    p.first = Some(p.first.map_or(t, |f| f.min(t)));
                    p.last = Some(p.last.map_or(t, |l| l.max(t)));
                }
            }
            p.files.insert(*file);
            if let Some(f) = field {
                *p.fields.entry(f.to_vec()).or_default() += 1;
            }
            *p.forms.entry(form.name()).or_default() += 1;
        }
    }
    out
}

#[test]
fn one_tally_and_merged_tallies_agree_with_a_naive_count() {
    for seed in 0..40 {
        for all_undashed in [false, true] {
            // Few values (many repeats) in most rounds; many (table growth) in some.
            let (n, values) = if seed % 8 == 0 {
                (6_000, 9_000)
            } else {
                (60, 12)
            };
            let lines = random_lines(seed, n, values);
            let want = naive(&lines, all_undashed);

            let distinct: BTreeSet<u128> =
                lines.iter().flat_map(|l| l.2.iter().map(|h| h.0)).collect();
            let dropped = (distinct.len() - want.len()) as u64;
            // Every entry once: a cell left by a promotion is not listed again.
            let check = |inventory: Inventory, how: &str| {
                assert_eq!(inventory.len(), want.len(), "seed {seed}: {how}");
                assert_eq!(inventory.dropped_undashed, dropped, "seed {seed}: {how}");
                assert_eq!(plain(&inventory), want, "seed {seed}: {how}");
            };

            let one = Tallies::new(all_undashed);
            count(&one, &lines);
            check(one.finish(1), "one tally");

            // Two threads at once, on uneven shares, through the shard locks.
            let two = Tallies::new(all_undashed);
            let (a, b) = lines.split_at(lines.len() / 3);
            std::thread::scope(|scope| {
                scope.spawn(|| count(&two, a));
                scope.spawn(|| count(&two, b));
            });
            check(two.finish(2), "two tallies");
        }
    }
}

#[test]
fn field_names_numbered_past_a_u16_are_counted_in_the_side_record() {
    let tallies = Tallies::new(false);
    let mut t = tallies.tally();
    let names: Vec<FieldId> = (0..70_000)
        .map(|i| t.field(format!("f{i}").as_bytes()))
        .collect();
    let occ = |field: usize| Occurrence {
        id: Id(42),
        form: Form::UlidLower,
        field: Some(names[field]),
        space: Space::Wide,
    };
    // The first, wide, name is the cold entry's, then moves with the promotion.
    for (file, field) in [(0, 69_999), (1, 65_535), (1, 65_534), (2, 69_999), (2, 7)] {
        t.add_line(file, None, &[occ(field)]);
    }
    t.done();
    let inv = tallies.finish(2);
    let fields: BTreeMap<Vec<u8>, u32> = inv
        .get(0)
        .fields()
        .into_iter()
        .map(|(name, n)| (name.to_vec(), n))
        .collect();
    let want: BTreeMap<Vec<u8>, u32> = [("f69999", 2), ("f65535", 1), ("f65534", 1), ("f7", 1)]
        .into_iter()
        .map(|(name, n)| (name.as_bytes().to_vec(), n))
        .collect();
    assert_eq!(fields, want);
}

#[test]
fn local_names_give_each_name_its_shared_index() {
    let shared = FieldNames::default();
    let mut a = LocalNames::new(&shared);
    let mut b = LocalNames::new(&shared);
    // Short names that collide in the recent array, long ones past it, and the empty one.
    let names: Vec<Vec<u8>> = (0..300)
        .map(|i: usize| {
            let len = [0, 1, 2, 5, 23, 24, 40][i % 7];
            (0..len)
                .map(|k| b'a' + ((i * 7 + k * 3) % 26) as u8)
                .collect()
        })
        .collect();
    let mut state = 7u64;
    for _ in 0..5_000 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        let name = &names[(state >> 33) as usize % names.len()];
        let (i, j) = (a.index(name), b.index(name));
        assert_eq!(i, j);
        assert_eq!(&*shared.snapshot()[i as usize], &name[..]);
    }
}

#[test]
fn kind_follows_the_form_written_most() {
    let tallies = Tallies::new(false);
    let mut t = tallies.tally();
    let occ = |form| Occurrence {
        id: Id(7),
        form,
        field: None,
        space: Space::Wide,
    };
    t.add_line(0, None, &[occ(Form::UuidLower), occ(Form::UlidUpper)]);
    t.add_line(0, None, &[occ(Form::UuidBraced)]);
    t.done();
    let inv = tallies.finish(1);
    assert_eq!(inv.summaries().next().unwrap().kind(), Kind::Uuid);
}

/// What [`Summary::kind`] says, worked out from the whole list of forms.
fn kind_from_forms(forms: &[(Form, u32)]) -> Kind {
    if forms.iter().any(|(f, _)| f.kind() == Kind::Trace) {
        return Kind::Trace;
    }
    let ulid: u64 = forms
        .iter()
        .filter(|(f, _)| f.kind() == Kind::Ulid)
        .map(|&(_, n)| u64::from(n))
        .sum();
    let all: u64 = forms.iter().map(|&(_, n)| u64::from(n)).sum();
    if 2 * ulid >= all {
        Kind::Ulid
    } else {
        Kind::Uuid
    }
}

#[test]
fn kind_is_a_trace_spelling_or_the_kind_written_most_whatever_the_entry() {
    let mut seen = Vec::new();
    for seed in 0..24 {
        let mut lines = random_lines(seed, 3000, 300);
        // Values in one to three forms, the first written twice: entries of one form, and
        // hot ones without a side record.
        for i in 0..Form::ALL.len() {
            for forms in 1..=3 {
                let value = u128::MAX - (4 * i + forms) as u128;
                for j in (0..forms).chain([0]) {
                    let form = Form::ALL[(i + j) % Form::ALL.len()];
                    lines.push((0, None, vec![(value, form, None)]));
                }
            }
        }
        // More forms than an entry holds inline, ULID spellings the most, then as many as
        // the UUID ones (a tie goes to ULID).
        use Form::*;
        let side: [&[Form]; 2] = [
            &[
                UuidLower, UlidLower, UlidLower, UlidUpper, UuidBraced, UlidMixed, UuidUpper,
            ],
            &[UuidUpper, UlidUpper, UuidLower, UlidLower],
        ];
        for (k, forms) in side.iter().enumerate() {
            for &form in *forms {
                lines.push((0, None, vec![(u128::MAX - 100 - k as u128, form, None)]));
            }
        }
        // Span spellings never hold a 128-bit value; half the runs have no trace spellings
        // either, so that the forms' majority decides.
        for (_, _, hits) in &mut lines {
            for (_, form, _) in hits.iter_mut() {
                if form.kind() == Kind::Span || (seed % 2 == 0 && form.kind() == Kind::Trace) {
                    *form = Form::UuidLower;
                }
            }
        }
        let tallies = Tallies::new(true);
        count(&tallies, &lines);
        let inventory = tallies.finish(1);
        for s in inventory.summaries() {
            let forms = s.forms();
            assert_eq!(
                s.kind(),
                kind_from_forms(&forms),
                "seed {seed}, forms {forms:?}"
            );
            seen.push((s.kind(), forms.len().min(4)));
        }
    }
    // Cold entries (one form), hot ones (up to three inline) and those with a side record,
    // of every kind.
    for kind in [Kind::Ulid, Kind::Uuid, Kind::Trace] {
        for forms in 1..=4 {
            assert!(seen.contains(&(kind, forms)), "{kind:?} with {forms} forms");
        }
    }
}

#[test]
fn a_64_bit_trace_joins_the_one_trace_it_is_the_low_half_of() {
    let occ = |id: u128, form, space| Occurrence {
        id: Id(id),
        form,
        field: None,
        space,
    };
    let (joined, ambiguous, alone) = (0xaaaa_0000_0000_0001u128, 0x77u128, 0x99u128);
    let tallies = Tallies::new(false);
    let mut t = tallies.tally();
    // The same bits in three spaces: a UUID, a span and a 64-bit trace are three IDs.
    t.add_line(0, Some(5), &[occ(7, Form::UuidLower, Space::Wide)]);
    t.add_line(0, None, &[occ(7, Form::Hex16, Space::Span)]);
    t.add_line(1, None, &[occ(7, Form::Hex16, Space::Trace64)]);
    // One trace, written whole and, on its own line and beside it, as its low half.
    let wide = (0x1234u128 << 64) | joined;
    t.add_line(0, Some(10), &[occ(wide, Form::TraceHex, Space::Wide)]);
    t.add_line(1, Some(20), &[occ(joined, Form::DdDecimal, Space::Trace64)]);
    t.add_line(
        2,
        Some(30),
        &[
            occ(wide, Form::Traceparent, Space::Wide),
            occ(joined, Form::Hex16, Space::Trace64),
        ],
    );
    // Two traces share a low half: which one a 64-bit ID belongs to is unknown.
    t.add_line(
        0,
        None,
        &[occ(1 << 64 | ambiguous, Form::Xray, Space::Wide)],
    );
    t.add_line(
        0,
        None,
        &[occ(2 << 64 | ambiguous, Form::Xray, Space::Wide)],
    );
    t.add_line(0, None, &[occ(ambiguous, Form::Hex16, Space::Trace64)]);
    // A low half no trace is written whole with.
    t.add_line(0, None, &[occ(alone, Form::Hex16, Space::Trace64)]);
    t.done();
    let inv = tallies.finish(2);
    // (kind, lines, occurrences, files, first, last)
    type Row = (Kind, u32, u32, usize, Option<i64>, Option<i64>);
    let rows: BTreeMap<(Space, u128), Row> = inv
        .summaries()
        .map(|s| {
            let row = (
                s.kind(),
                s.lines(),
                s.occurrences(),
                s.file_count(),
                s.first_ms(),
                s.last_ms(),
            );
            ((s.space(), s.id.0), row)
        })
        .collect();
    assert_eq!(rows.len(), 8, "{rows:?}");
    assert_eq!(rows[&(Space::Wide, 7)].0, Kind::Uuid);
    assert_eq!(rows[&(Space::Span, 7)].0, Kind::Span);
    assert_eq!(rows[&(Space::Trace64, 7)].0, Kind::Trace);
    // Three lines (the third holds both spellings), four occurrences, three files.
    assert_eq!(
        rows[&(Space::Wide, wide)],
        (Kind::Trace, 3, 4, 3, Some(10), Some(30))
    );
    assert!(!rows.contains_key(&(Space::Trace64, joined)));
    assert!(rows.contains_key(&(Space::Trace64, ambiguous)));
    assert_eq!(rows[&(Space::Trace64, alone)].0, Kind::Trace);
    let forms: Vec<Form> = inv
        .summaries()
        .find(|s| s.id.0 == wide)
        .unwrap()
        .forms()
        .into_iter()
        .map(|f| f.0)
        .collect();
    assert_eq!(
        forms,
        [
            Form::Hex16,
            Form::DdDecimal,
            Form::TraceHex,
            Form::Traceparent
        ]
    );
}

#[test]
fn field_names_match_whole_or_last_segment() {
    assert!(field_matches(b"ctx.batch_id", b"batch_id"));
    assert!(field_matches(b"batch_id", b"batch_id"));
    assert!(field_matches(b"sources[]", b"sources"));
    assert!(field_matches(b"ctx.batch_id", b"ctx.batch_id"));
    assert!(!field_matches(b"ctx.xbatch_id", b"batch_id"));
    assert!(!field_matches(b"batch_id", b"id"));
}

#[test]
fn a_sort_on_two_threads_matches_one_on_one() {
    let build = |threads: usize| {
        let tallies = Tallies::new(false);
        let mut t = tallies.tally();
        let mut state = 3u64;
        for v in 0..(PARALLEL_SORT_MIN as u128 * 2) {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let occ = Occurrence {
                id: Id(v.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)),
                form: Form::UlidLower,
                field: None,
                space: Space::Wide,
            };
            // Few distinct line counts: many ties, broken by ID.
            for _ in 0..1 + (state >> 60) {
                t.add_line(0, None, &[occ]);
            }
        }
        t.done();
        tallies.finish(threads)
    };
    let ids = |inv: &Inventory| inv.summaries().map(|s| (s.lines(), s.id.0)).collect();
    let mut one = build(1);
    let before: Vec<(u32, u128)> = ids(&one);
    // Listed on two threads: the same entries in the same order.
    assert_eq!(ids(&build(2)), before);
    one.sort_by(|s| u64::MAX - u64::from(s.lines()), None, 1);
    let want: Vec<(u32, u128)> = ids(&one);
    let mut expected = before;
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    assert_eq!(want, expected);
    // From ID order, so that the halves hold other IDs than before.
    one.sort_by(|_| 0, None, 1);
    one.sort_by(|s| u64::MAX - u64::from(s.lines()), None, 2);
    assert_eq!(ids(&one), want);
    // The first `top` of the whole, whichever half they were in, with ties by ID.
    let len = want.len();
    for top in [0, 1, 1000, PARALLEL_SORT_MIN + 5, len - 1, len, len + 1] {
        let mut two = build(2);
        two.sort_by(|_| 0, None, 1);
        two.sort_by(|s| u64::MAX - u64::from(s.lines()), Some(top), 2);
        assert_eq!(ids(&two), want[..top.min(len)], "top {top}");
    }
}

#[test]
fn sort_and_top_keep_the_largest_in_order() {
    let tallies = Tallies::new(false);
    let mut t = tallies.tally();
    for v in 0..10u128 {
        for _ in 0..(v % 4) + 1 {
            t.add_line(
                0,
                None,
                &[Occurrence {
                    id: Id(v),
                    form: Form::UlidLower,
                    field: None,
                    space: Space::Wide,
                }],
            );
        }
    }
    t.done();
    let mut inv = tallies.finish(2);
    inv.sort_by(|s| u64::MAX - u64::from(s.lines()), Some(4), 1);
    let got: Vec<(u128, u32)> = inv.summaries().map(|s| (s.id.0, s.lines())).collect();
    assert_eq!(got, vec![(3, 4), (7, 4), (2, 3), (6, 3)]);
}

/// IDs whose high 64 bits are all the same, counted in scrambled order: the sort compares the
/// key and the high half in one step, and the ties it leaves go by the low half.
#[test]
fn ties_in_the_key_and_the_high_half_go_by_the_low_half() {
    let tallies = Tallies::new(false);
    let mut t = tallies.tally();
    for i in 0..500u64 {
        let low = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for _ in 0..1 + i % 3 {
            t.add_line(
                0,
                None,
                &[Occurrence {
                    id: Id(7 << 64 | u128::from(low)),
                    form: Form::UlidLower,
                    field: None,
                    space: Space::Wide,
                }],
            );
        }
    }
    t.done();
    let mut inv = tallies.finish(1);
    let mut expected: Vec<(u32, u128)> = inv.summaries().map(|s| (s.lines(), s.id.0)).collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    inv.sort_by(|s| u64::MAX - u64::from(s.lines()), None, 1);
    let got: Vec<(u32, u128)> = inv.summaries().map(|s| (s.lines(), s.id.0)).collect();
    assert_eq!(got, expected);
}
