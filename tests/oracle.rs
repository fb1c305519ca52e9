//! The ID module and the scanner against independent oracles: the `uuid` and `ulid` crates on
//! generated values, and a naive regex scan on generated haystacks full of near misses.

use std::io::{self, Read};

use idgrep::id::{self, Id, Kind};
use idgrep::scan::{self, Matcher};
use idgrep::search::{self, Scratch, SearchOptions};
use regex::bytes::Regex;

use crate::support::Rng;

#[test]
fn uuid_crate_agrees_on_parse_render_and_time() {
    let mut rng = Rng(7);
    let ctx = uuid::ContextV1::new(0);
    for i in 0..2000u64 {
        let u = match i % 4 {
            0 => uuid::Uuid::new_v4(),
            1 => uuid::Uuid::new_v7(uuid::Timestamp::from_unix(
                uuid::NoContext,
                rng.next() % 20_000_000_000,
                (rng.next() % 1_000_000_000) as u32,
            )),
            2 => uuid::Uuid::new_v1(
                uuid::Timestamp::from_unix(
                    &ctx,
                    rng.next() % 4_000_000_000,
                    (rng.next() % 1_000_000_000) as u32,
                ),
                &[1, 2, 3, 4, 5, 6],
            ),
            _ => uuid::Uuid::new_v6(
                uuid::Timestamp::from_unix(
                    &ctx,
                    rng.next() % 4_000_000_000,
                    (rng.next() % 1_000_000_000) as u32,
                ),
                &[6, 5, 4, 3, 2, 1],
            ),
        };
        let forms = [
            u.hyphenated().to_string(),
            u.hyphenated().to_string().to_uppercase(),
            u.simple().to_string(),
            u.braced().to_string(),
            u.urn().to_string(),
        ];
        for form in &forms {
            let p = id::parse(form).unwrap();
            assert_eq!(p.id.0, u.as_u128(), "{form}");
            assert_eq!(p.kind, Kind::Uuid);
        }
        let p = id::parse(&forms[0]).unwrap();
        assert_eq!(p.id.uuid(), u.hyphenated().to_string());
        assert_eq!(p.id.uuid_version(), Some(u.get_version_num() as u8));
        let oracle_ms = u.get_timestamp().map(|t| {
            let (s, ns) = t.to_unix();
            s as i64 * 1000 + ns as i64 / 1_000_000
        });
        assert_eq!(p.id.unix_ms(Kind::Uuid), oracle_ms, "{}", forms[0]);
    }
}

#[test]
fn ulid_crate_agrees_on_both_renderings_and_time() {
    let mut rng = Rng(11);
    for _ in 0..5000 {
        let value = rng.u128();
        let oracle = ulid::Ulid(value);
        let text = oracle.to_string();
        let p = id::parse(&text).unwrap();
        assert_eq!(p.id.0, value);
        assert_eq!(p.id.ulid(), text.to_lowercase());
        assert_eq!(id::parse(&text.to_lowercase()).unwrap().id.0, value);
        assert_eq!(p.id.unix_ms(Kind::Ulid), Some(oracle.timestamp_ms() as i64));
        // The same bits as a UUID, through the uuid crate.
        assert_eq!(
            p.id.uuid(),
            uuid::Uuid::from_u128(value).hyphenated().to_string()
        );
    }
}

/// Writes `id` in one of the forms a log might hold.
fn write_form(rng: &mut Rng, id: Id, out: &mut Vec<u8>) {
    let mixed = |s: String, rng: &mut Rng| -> String {
        s.chars()
            .map(|c| {
                if rng.below(2) == 0 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect()
    };
    let text = match rng.below(8) {
        0 => id.ulid(),
        1 => id.ulid().to_uppercase(),
        2 => mixed(id.ulid(), rng),
        3 => id.uuid(),
        4 => id.uuid().to_uppercase(),
        5 => id.hex(),
        6 => format!("{{{}}}", mixed(id.uuid(), rng)),
        _ => id.hex().to_uppercase(),
    };
    out.extend_from_slice(text.as_bytes());
}

/// A haystack of lines full of the targets, near misses and noise.
fn haystack(rng: &mut Rng, targets: &[Id], len: usize) -> Vec<u8> {
    const SEPARATORS: &[&[u8]] = &[
        b" ",
        b"-",
        b"_",
        b"=",
        b"\"",
        b"\n",
        b"\r\n",
        b"{",
        b"}",
        b"/",
        b":",
        b",",
        b"\t",
        b"\x10",
        b"\x19",
        b"\r",
        b"\x7f",
        b"\xc3\xa9",
        b"\xff",
        b"@",
        b"[",
        b"`",
    ];
    const ALNUM: &[u8] = b"0123456789abcdefghjkmnpqrstvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut out = Vec::with_capacity(len + 64);
    while out.len() < len {
        let target = *rng.pick(targets);
        match rng.below(10) {
            0..=2 => write_form(rng, target, &mut out),
            3 => {
                // Glued to a letter or digit on one side: not a whole token.
                out.push(*rng.pick(ALNUM));
                write_form(rng, target, &mut out);
                if rng.below(2) == 0 {
                    out.push(*rng.pick(ALNUM));
                }
            }
            4 => {
                // One bit off: a different ID that shares most characters.
                let near = Id(target.0 ^ (1 << rng.below(128)));
                write_form(rng, near, &mut out);
            }
            5 => {
                let other = Id(rng.u128());
                write_form(rng, other, &mut out);
            }
            6 => {
                for _ in 0..rng.below(40) {
                    out.push(*rng.pick(ALNUM));
                }
            }
            _ => {}
        }
        let separator = SEPARATORS[rng.below(SEPARATORS.len())];
        out.extend_from_slice(separator);
    }
    out
}

/// Every whole token that one of the anchored `shapes` matches, found the slow and obvious
/// way: each shape tried at every position where a token may start.
fn whole_tokens(hay: &[u8], shapes: &[Regex]) -> Vec<(usize, usize)> {
    let alnum = |b: u8| b.is_ascii_alphanumeric();
    let mut found = Vec::new();
    for start in 0..hay.len() {
        if start > 0 && alnum(hay[start - 1]) {
            continue;
        }
        for re in shapes {
            if let Some(m) = re.find(&hay[start..]) {
                let end = start + m.end();
                if end == hay.len() || !alnum(hay[end]) {
                    found.push((start, end));
                }
            }
        }
    }
    found
}

/// Every whole-token occurrence of `target` in any of its three renderings, any case.
fn regex_oracle(hay: &[u8], target: Id) -> Vec<(usize, usize)> {
    let shapes = [
        Regex::new(&format!("(?i-u)^{}", target.ulid())).unwrap(),
        Regex::new(&format!("(?i-u)^{}", target.uuid())).unwrap(),
        Regex::new(&format!("(?i-u)^{}", target.hex())).unwrap(),
    ];
    whole_tokens(hay, &shapes)
}

/// A hit as (start, end, query index).
type Found = Vec<(usize, usize, usize)>;

/// The matcher's hits and the regex oracle's, in position order.
fn matcher_and_oracle(hay: &[u8], targets: &[Id]) -> (Found, Found) {
    let mut expected = Vec::new();
    for (q, &t) in targets.iter().enumerate() {
        expected.extend(regex_oracle(hay, t).into_iter().map(|(s, e)| (s, e, q)));
    }
    expected.sort();
    let mut hits = Vec::new();
    Matcher::new(targets).find(hay, &mut hits);
    let got = hits.iter().map(|h| (h.start, h.end, h.query)).collect();
    (got, expected)
}

#[test]
fn matcher_agrees_with_a_regex_scan() {
    let mut rng = Rng(42);
    for round in 0..60 {
        let targets: Vec<Id> = (0..1 + round % 4).map(|_| Id(rng.u128())).collect();
        let len = 2000 + rng.below(6000);
        let hay = haystack(&mut rng, &targets, len);
        let (got, expected) = matcher_and_oracle(&hay, &targets);
        assert!(
            !expected.is_empty(),
            "round {round}: the generator planted nothing"
        );
        assert_eq!(got, expected, "round {round}");
    }
}

#[test]
fn many_id_matcher_agrees_with_a_regex_scan() {
    let mut rng = Rng(43);
    let targets: Vec<Id> = (0..12).map(|_| Id(rng.u128())).collect();
    let hay = haystack(&mut rng, &targets, 60_000);
    let (got, expected) = matcher_and_oracle(&hay, &targets);
    assert!(!expected.is_empty());
    assert_eq!(got, expected);
}

#[test]
fn token_walk_agrees_with_a_regex_scan_for_every_token() {
    let mut rng = Rng(44);
    let targets: Vec<Id> = (0..5).map(|_| Id(rng.u128())).collect();
    let hay = haystack(&mut rng, &targets, 80_000);
    let shapes = [
        Regex::new("(?i-u)^[0-7][0-9a-hjkmnp-tv-z]{25}").unwrap(),
        Regex::new("(?i-u)^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap(),
        Regex::new("(?i-u)^[0-9a-f]{32}").unwrap(),
    ];
    let expected = whole_tokens(&hay, &shapes);
    let mut got = Vec::new();
    scan::for_each_token(&hay, |h| {
        assert_eq!(id::decode_shape(h.shape, &hay[h.start..h.end]), Some(h.id));
        got.push((h.start, h.end));
    });
    assert!(expected.len() > 100);
    assert_eq!(got, expected);
}

/// Hands out the input in pieces of a fixed size, so lines and IDs straddle reads.
struct Pieces<'a> {
    data: &'a [u8],
    size: usize,
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.size.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn line_numbers_survive_every_read_size() {
    let mut rng = Rng(45);
    // One and three IDs take the pair prefilter, forty the sampled filter: each counts the
    // newlines in its own loop.
    for queries in [1, 3, 40] {
        let targets: Vec<Id> = (0..queries).map(|_| Id(rng.u128())).collect();
        // Well over one internal buffer, so the carry-over between buffers is exercised too.
        let hay = haystack(&mut rng, &targets, search::BUFFER_SIZE * 2 + 12_345);
        // The oracle's hits over the whole haystack, counted per line.
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(
                hay.iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        let mut per_line = vec![0; line_starts.len()];
        for &t in &targets {
            for (start, _) in regex_oracle(&hay, t) {
                per_line[line_starts.partition_point(|&s| s <= start) - 1] += 1;
            }
        }
        let mut expected = Vec::new();
        for (i, line) in hay.split(|&b| b == b'\n').enumerate() {
            if per_line[i] > 0 {
                let text = line.strip_suffix(b"\r").unwrap_or(line);
                expected.push((i as u64 + 1, text.to_vec(), per_line[i]));
            }
        }
        assert!(expected.len() > 100, "{queries} IDs");
        let matcher = Matcher::new(&targets);
        let options = SearchOptions {
            line_numbers: true,
            text: true,
            ..SearchOptions::default()
        };
        for size in [1, 7, 26, 35, 4096, 65_537, search::BUFFER_SIZE, usize::MAX] {
            let mut got = Vec::new();
            let outcome = search::search(
                &matcher,
                options,
                &mut Pieces { data: &hay, size },
                &mut Scratch::default(),
                &mut |m| {
                    got.push((m.line_no, m.line.to_vec(), m.hits.len()));
                    true
                },
            );
            assert!(outcome.error.is_none());
            assert_eq!(
                outcome.matched_lines as usize,
                expected.len(),
                "{queries} IDs, read size {size}"
            );
            assert!(
                got == expected,
                "{queries} IDs, read size {size}: lines differ"
            );
        }
    }
}
