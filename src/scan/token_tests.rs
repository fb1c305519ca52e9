//! Unit tests of the token walk: every dispatch level the CPU has against the scalar walk,
//! on generated near misses, at every block offset and on huge runs.

use super::simd::{Level, Simd, coverage};
use super::tokens::{RUN_MAX, RUN_MIN, for_each_long_run, for_each_run_scalar};
use super::*;
use crate::id::Id;

/// The levels the token walk runs at here, after saying which on stderr.
fn levels() -> Vec<Simd> {
    coverage::levels("scan token walk", &Level::ALL)
}

/// Checks the token walk at every level in `levels` against the scalar walk on `hay`;
/// returns the scalar hits.
fn agree(levels: &[Simd], hay: &[u8], what: &str) -> Vec<Hit> {
    let mut want = Vec::new();
    for_each_token_scalar(hay, |h| want.push(h));
    for &simd in levels {
        let mut got = Vec::new();
        for_each_token_at(simd, hay, &mut |h| got.push(h));
        assert_eq!(
            got,
            want,
            "{}, {what}: {:?}",
            simd.level().name(),
            String::from_utf8_lossy(hay)
        );
    }
    want
}

/// splitmix64, so a failure reproduces from its seed.
fn rng(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

const ALNUM: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const HEX_DIGITS: &[u8] = b"0123456789abcdefABCDEF";

/// An ID rendering, a near miss of one, or filler that looks like neither.
fn piece(next: &mut impl FnMut() -> u64) -> Vec<u8> {
    let id = Id((next() as u128) << 64 | next() as u128);
    let mut below = |n: usize| (next() % n as u64) as usize;
    let mut ulid = id.ulid_bytes().to_vec();
    if below(2) == 0 {
        ulid.make_ascii_uppercase();
    }
    let mut hex = id.hex_bytes().to_vec();
    let mut dashed = id.uuid_bytes().to_vec();
    if below(3) == 0 {
        hex.make_ascii_uppercase();
        dashed.make_ascii_uppercase();
    }
    let dash_at = [8, 13, 18, 23][below(4)];
    match below(16) {
        0 => ulid,
        1 => {
            // First character 8-9 or a letter: does not fit in 128 bits.
            ulid[0] = b"89AZaz"[below(6)];
            ulid
        }
        2 => {
            // 25 or 27 characters.
            if below(2) == 0 {
                ulid.pop();
            } else {
                ulid.push(ALNUM[below(ALNUM.len())]);
            }
            ulid
        }
        3 => {
            // A letter Crockford leaves out.
            ulid[1 + below(25)] = b"uUiIlLoO"[below(8)];
            ulid
        }
        4 => hex,
        5 => {
            match below(3) {
                0 => hex.truncate(31),
                1 => hex.push(HEX_DIGITS[below(HEX_DIGITS.len())]),
                _ => hex[below(32)] = b"gGzZ"[below(4)],
            }
            hex
        }
        6 | 7 => dashed,
        8 => {
            // One group a digit short or long.
            let at = [0, 9, 14, 19, 24][below(5)] + below(4);
            if below(2) == 0 {
                dashed.remove(at);
            } else {
                dashed.insert(at, HEX_DIGITS[below(HEX_DIGITS.len())]);
            }
            dashed
        }
        9 => {
            // Double dash, a dash missing or replaced.
            match below(3) {
                0 => dashed.insert(dash_at, b'-'),
                1 => drop(dashed.remove(dash_at)),
                _ => dashed[dash_at] = b"_. "[below(3)],
            }
            dashed
        }
        10 => {
            // A non-hex digit in a group, or an extra group on either side.
            match below(3) {
                0 => dashed[[0, 9, 14, 19, 24][below(5)]] = b"gG"[below(2)],
                1 => drop(dashed.splice(0..0, *b"abcd-")),
                _ => dashed.extend_from_slice(b"-abcd"),
            }
            dashed
        }
        11 => {
            // An 8-hex group and a dash, then anything.
            let mut out: Vec<u8> = (0..8)
                .map(|_| HEX_DIGITS[below(HEX_DIGITS.len())])
                .collect();
            out.push(b'-');
            out
        }
        12 => (0..below(300)).map(|_| ALNUM[below(ALNUM.len())]).collect(),
        _ => {
            // Words, with the interesting lengths more likely than their share.
            let len = [1, 3, 7, 8, 9, 12, 16, 25, 26, 27, 31, 32, 33][below(13)];
            (0..len).map(|_| ALNUM[below(ALNUM.len())]).collect()
        }
    }
}

/// Haystacks of pieces and separators: spaces, dashes, CRLF, non-ASCII bytes, and
/// nothing at all, which glues the pieces to their neighbours.
fn haystack(next: &mut impl FnMut() -> u64, len: usize) -> Vec<u8> {
    const SEPARATORS: &[&[u8]] = &[
        b" ",
        b" ",
        b"-",
        b"--",
        b"\n",
        b"\r\n",
        b"\t",
        b"\"",
        b":",
        b"=",
        b"_",
        b".",
        b"/",
        b"{",
        b"}",
        b"\0",
        b"\x7f",
        b"\x80",
        b"\xff",
        b"\xc3\xa9",
        b"",
    ];
    let mut hay = Vec::new();
    while hay.len() < len {
        hay.extend(piece(next));
        hay.extend_from_slice(SEPARATORS[(next() % SEPARATORS.len() as u64) as usize]);
    }
    hay.truncate(len);
    hay
}

#[test]
fn every_path_agrees_with_the_scalar_walk_on_near_misses() {
    let levels = levels();
    let mut next = rng(0x5eed);
    let mut hits = 0;
    for round in 0..3000 {
        let len = (next() % 400) as usize;
        let hay = haystack(&mut next, len);
        hits += agree(&levels, &hay, &format!("round {round}")).len();
    }
    assert!(hits > 1000, "the generator planted too few IDs: {hits}");
}

#[test]
fn every_path_agrees_at_every_block_offset() {
    let levels = levels();
    let mut next = rng(0xb10c);
    let hay = haystack(&mut next, 6000);
    for from in 0..64 {
        for trim in [0, 1, 2, 31, 63] {
            agree(
                &levels,
                &hay[from..hay.len() - trim],
                &format!("{from}..-{trim}"),
            );
        }
    }
}

#[test]
fn tokens_at_every_offset_and_at_the_ends() {
    let levels = levels();
    let id = Id(0x0123_4567_89ab_cdef_0fed_cba9_8765_4321);
    let ulid = id.ulid();
    let dashed = id.uuid().to_uppercase();
    let hex = id.hex();
    // Each with the number of IDs it holds.
    let tokens = [
        (ulid.clone(), 1),
        (dashed.clone(), 1),
        (hex.clone(), 1),
        (format!("{dashed}-"), 1),
        (format!("-{dashed}"), 1),
        (format!("{ulid}x"), 0),
        (format!("x{hex}"), 0),
        (ulid[1..].to_string(), 0),
        (hex[1..].to_string(), 0),
        (format!("{dashed}0"), 0),
        (format!("0{dashed}"), 0),
        (dashed[..35].to_string(), 0),
        (dashed.replacen('-', "--", 1), 0),
        (format!("{}-{}", &hex[..8], &hex[8..]), 0),
    ];
    for (token, expect) in tokens {
        for pad in 0..140 {
            for after in [0, 1, 7, 64] {
                let mut hay = vec![b' '; pad];
                hay.extend_from_slice(token.as_bytes());
                hay.extend(std::iter::repeat_n(b'\n', after));
                let found = agree(&levels, &hay, &format!("{token} at {pad}"));
                assert_eq!(found.len(), expect, "{token} at {pad}");
            }
        }
    }
}

#[test]
fn every_path_agrees_on_huge_runs() {
    let levels = levels();
    let ulid = Id(u128::MAX >> 3).ulid();
    let mut hays: Vec<Vec<u8>> = vec![
        vec![b'a'; 10_000],
        vec![b'7'; 10_001],
        b"0123456789abcdef".repeat(1000),
        b"abcdef01-".repeat(1000),
        b"abcd-".repeat(1000),
        vec![b'-'; 1000],
    ];
    // An ID glued to the end of a long run, beginning on a block edge and either side
    // of it, then the same ID standing alone.
    for run in [64 * 79 - 1, 64 * 79, 64 * 79 + 1] {
        for token in [ulid.clone(), Id(u128::MAX >> 3).uuid()] {
            let mut glued = vec![b'f'; run];
            glued.extend_from_slice(token.as_bytes());
            glued.push(b' ');
            glued.extend_from_slice(token.as_bytes());
            hays.push(glued);
        }
    }
    for hay in hays {
        let found = agree(&levels, &hay, "huge run");
        assert!(found.len() <= 1);
    }
}

/// The runs of 12 to 32 letters and digits come out the same at every level: runs of every
/// length from 0 to 80 (the longest cross two block edges), at every offset.
#[test]
fn long_runs_agree_with_the_scalar_walk_at_every_level() {
    let levels = coverage::levels("scan long runs", &Level::ALL);
    let mut rng = crate::testing::Rng(0x5eed_0f10_0075);
    let alphabet = b"0123456789abcdefXYZ";
    let gaps = b" -_:\n\"=";
    for round in 0..200 {
        let mut hay = Vec::new();
        while hay.len() < 400 + round {
            for _ in 0..rng.below(81) {
                hay.push(*rng.pick(alphabet));
            }
            for _ in 0..1 + rng.below(3) {
                hay.push(*rng.pick(gaps));
            }
        }
        // Half the rounds end in the middle of a run.
        if round % 2 == 0 {
            hay.extend_from_slice(b"0123456789abcdef");
        }
        let mut want = Vec::new();
        for_each_run_scalar(&hay, RUN_MIN, &mut |s, e| want.push((s, e)));
        assert!(
            want.iter()
                .all(|&(s, e)| (RUN_MIN..=RUN_MAX).contains(&(e - s))),
            "scalar walk: {want:?}"
        );
        for &simd in &levels {
            let mut got = Vec::new();
            for_each_long_run(simd, &hay, &mut |s, e| got.push((s, e)));
            assert_eq!(got, want, "{}, round {round}", simd.level().name());
        }
    }
}

/// Where each level's walk notes X-Ray roots is where a search for `Root=1-` finds them
/// (plus the `Root=`), on haystacks with roots, near misses of them (`root=1-`, `Root=11-`,
/// `xRoot=1-`, a `1-` after other keys) and IDs, at every offset and cut short at the end; and
/// the hits are the walk's hits without roots.
#[test]
fn xray_roots_are_where_a_search_for_them_finds_them() {
    use crate::id::trace::{XRAY_ROOT, XRAY_ROOT_KEY_LEN};
    let levels = levels();
    let mut next = rng(0x0a11);
    const PIECES: &[&[u8]] = &[
        b"Root=1-5759e988-bd862e3fe1be46a994272793",
        b"Root=1-",
        b"root=1-5759e988-bd862e3fe1be46a994272793",
        b"Root=11-",
        b"Root=1",
        b"xRoot=1-",
        b"Self=1-5759e988",
        b"a-b 1-2 v1-",
        b"01m8metwzf4yycgcys5ftvs67f",
        b";Parent=53995c3f42cd8ad8;Sampled=1",
        b" ",
        b"\n",
        b"=",
        b"-",
    ];
    let mut found = 0;
    for round in 0..2000 {
        let mut hay = Vec::new();
        let len = (next() % 300) as usize;
        while hay.len() < len {
            hay.extend_from_slice(PIECES[(next() % PIECES.len() as u64) as usize]);
        }
        let cut = (next() % 8) as usize;
        hay.truncate(hay.len().saturating_sub(cut));
        let want: Vec<usize> = memchr::memmem::find_iter(&hay, XRAY_ROOT)
            .map(|at| at + XRAY_ROOT_KEY_LEN)
            .collect();
        found += want.len();
        let mut want_hits = Vec::new();
        for_each_token_scalar(&hay, |h| want_hits.push(h));
        for &simd in &levels {
            for from in [0, 1, 5, 63] {
                let part = &hay[from.min(hay.len())..];
                let mut roots = vec![usize::MAX];
                let mut hits = Vec::new();
                tokens::for_each_token_and_xray_root(simd, part, &mut |h| hits.push(h), &mut roots);
                let expected: Vec<usize> = want
                    .iter()
                    .filter(|&&at| at >= from + XRAY_ROOT_KEY_LEN)
                    .map(|&at| at - from)
                    .collect();
                let text = String::from_utf8_lossy(part);
                assert_eq!(
                    roots,
                    expected,
                    "{} round {round}: {text:?}",
                    simd.level().name()
                );
                if from == 0 {
                    assert_eq!(hits, want_hits, "{} round {round}", simd.level().name());
                }
            }
        }
    }
    assert!(found > 1000, "the generator planted too few roots: {found}");
}
