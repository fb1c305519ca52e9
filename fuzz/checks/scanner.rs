//! The scanner, differentially: over fuzzer bytes with query IDs planted in any form and case,
//! every matcher (one to four IDs: the pair prefilter; more: the sampled filter; none: the
//! token walk of the inventories) at every SIMD level the CPU has finds exactly the tokens of
//! the plain oracle ([`super::oracle_tokens`]), and a search through it, read in pieces of
//! two sizes the input picks and whole, reports exactly the oracle's lines. With a flag, the
//! same IDs as trace and span queries, with their trace spellings added: one matcher for all
//! finds what one matcher per query finds. The token walk notes where `Root=1-` is written
//! as a search for it finds it.

use idgrep::id::{self, Id, Parsed};
use idgrep::scan::{Hit, Level, Matcher};
use idgrep::search::{self, Scratch, SearchOptions};

use super::{Bytes, Pieces, Token, lines, oracle_tokens, plant};

pub fn check(data: &[u8]) {
    let mut input = Bytes::new(data);
    let flags = input.u8();
    let mut queries: Vec<Id> = (0..1 + flags % 4).map(|_| Id(input.u128())).collect();
    if flags & 0x10 != 0 {
        // Enough IDs for the sampled filter; only the first ones are planted.
        let seed = queries[0].0;
        queries.extend((1..=12u128).map(|k| Id(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ k)));
    }
    let sizes = [
        1 + usize::from(input.u16() % 4096),
        1 + usize::from(input.u8()),
    ];
    let hay = plant(input.rest(), &queries[..queries.len().min(4)]);
    let tokens = oracle_tokens(&hay);

    let wanted: Vec<(usize, usize, usize)> = tokens
        .iter()
        .filter_map(|t| {
            let q = queries.iter().position(|&q| q == t.id)?;
            Some((t.start, t.end, q))
        })
        .collect();
    let every: Vec<Token> = tokens
        .iter()
        .copied()
        .filter(|t| !super::is_number(t, &hay))
        .collect();

    if flags & 0x20 != 0 {
        trace_queries_agree(&queries, &hay);
    }

    let mut hits = Vec::new();
    for level in Level::ALL {
        let Some(matcher) = Matcher::new(&queries).at_level(level) else {
            continue;
        };
        matcher.find(&hay, &mut hits);
        let got: Vec<(usize, usize, usize)> =
            hits.iter().map(|h| (h.start, h.end, h.query)).collect();
        assert_eq!(got, wanted, "{} IDs at {}", queries.len(), level.name());
        for h in &hits {
            assert_eq!(h.id, queries[h.query]);
        }
        same_lines(
            &matcher,
            &hay,
            &sizes,
            |t| queries.contains(&t.id),
            &tokens,
            level,
        );

        let walk = Matcher::every_id()
            .at_level(level)
            .expect("supported above");
        walk.find(&hay, &mut hits);
        let got: Vec<Token> = hits.iter().map(token_of).collect();
        assert_eq!(got, every, "the token walk at {}", level.name());
        // Noting X-Ray roots changes no hit, and notes every `Root=1-`.
        let mut roots = Vec::new();
        assert!(walk.find_with_xray_roots(&hay, &mut hits, &mut roots));
        assert_eq!(hits.iter().map(token_of).collect::<Vec<_>>(), every);
        let want: Vec<usize> = (0..hay.len())
            .filter(|&at| hay[at..].starts_with(id::trace::XRAY_ROOT))
            .map(|at| at + id::trace::XRAY_ROOT_KEY_LEN)
            .collect();
        assert_eq!(roots, want, "X-Ray roots at {}", level.name());
        same_lines(
            &walk,
            &hay,
            &sizes,
            |t| !super::is_number(t, &hay),
            &tokens,
            level,
        );
    }
}

/// The queries as trace IDs (32 hex digits) and every third as a span ID: one matcher for
/// all of them (beyond four, the walk of long runs) finds at every level what one matcher per
/// query finds, the first query keeping a token two find.
fn trace_queries_agree(queries: &[Id], hay: &[u8]) {
    let parsed: Vec<Parsed> = queries
        .iter()
        .enumerate()
        .filter_map(|(i, q)| {
            let text = if i % 3 == 2 {
                format!("{:016x}", q.low64() | 1)
            } else {
                q.hex()
            };
            id::parse(&text).ok()
        })
        .collect();
    if parsed.is_empty() {
        return;
    }
    // The spellings only trace and span queries find, after the fuzzer's bytes.
    let mut hay = hay.to_vec();
    for q in &parsed {
        let low = q.id.low64();
        hay.extend_from_slice(
            format!(
                "\n{} trace_id={low:016x} \"dd.span_id\":\"{low}\" {low:016X}\n",
                q.id.xray()
            )
            .as_bytes(),
        );
    }
    let hay = &hay[..];
    let key = |h: &Hit| (h.start, h.end, h.query, h.id);
    let mut hits = Vec::new();
    for level in Level::ALL {
        let Some(all) = Matcher::for_queries(&parsed).at_level(level) else {
            continue;
        };
        all.find(hay, &mut hits);
        let got: Vec<_> = hits.iter().map(key).collect();
        let mut want = Vec::new();
        for (i, q) in parsed.iter().enumerate() {
            let one = Matcher::for_queries(std::slice::from_ref(q))
                .at_level(level)
                .expect("supported above");
            one.find(hay, &mut hits);
            want.extend(hits.iter().map(|h| (h.start, h.end, i, h.id)));
        }
        want.sort_by_key(|&(start, end, ..)| (start, end));
        want.dedup_by_key(|&mut (start, end, ..)| (start, end));
        assert_eq!(
            got,
            want,
            "{} trace queries at {}",
            parsed.len(),
            level.name()
        );
    }
}

fn token_of(h: &Hit) -> Token {
    Token {
        start: h.start,
        end: h.end,
        shape: h.shape,
        id: h.id,
    }
}

/// A search with `matcher`, fed in pieces of each of `sizes` and whole, reports the lines
/// that hold a token `counts`, with their numbers and their hits.
fn same_lines(
    matcher: &Matcher,
    hay: &[u8],
    sizes: &[usize],
    counts: impl Fn(&Token) -> bool,
    tokens: &[Token],
    level: Level,
) {
    let mut expected = Vec::new();
    for (no, start, line) in lines(hay) {
        let spans: Vec<(usize, usize)> = tokens
            .iter()
            .filter(|t| t.start >= start && t.end <= start + line.len() && counts(t))
            .map(|t| (t.start - start, t.end - start))
            .collect();
        if !spans.is_empty() {
            expected.push((no, line.to_vec(), spans));
        }
    }
    let options = SearchOptions {
        line_numbers: true,
        text: true,
        ..SearchOptions::default()
    };
    for &size in sizes.iter().chain(&[usize::MAX]) {
        let mut got = Vec::new();
        let outcome = search::search(
            matcher,
            options,
            &mut Pieces { data: hay, size },
            &mut Scratch::default(),
            &mut |m| {
                let spans = m.hits.iter().map(|h| (h.start, h.end)).collect();
                got.push((m.line_no, m.line.to_vec(), spans));
                true
            },
        );
        assert!(outcome.error.is_none());
        assert_eq!(outcome.matched_lines as usize, expected.len());
        assert!(
            got == expected,
            "read in pieces of {size} at {}: {got:?} != {expected:?}",
            level.name()
        );
    }
}
