//! The searcher for many queries among which some may be trace or span IDs: their needles are
//! the pair searcher's ([`super::pairs`]), but instead of one packed-pair pass per few
//! queries over the whole buffer (a pass per four queries: a thousand IDs from `idgrep ids`
//! took two hundred times as long as the scan of one), one walk over the buffer's
//! alphanumeric runs looks up the end of each run whose length some needle's form can have
//! in a hash map of the needles' tails, and each needle found there verifies the candidate
//! as the pair searcher does.
//!
//! Every form a needle finds ends at a token boundary with its tail (a ULID's 26 characters,
//! a UUID's last group, 32 undashed hex digits, an X-Ray ID's last 24, 16 hex digits, or a
//! decimal of up to 20 digits), so its tail is the end of a whole alphanumeric run, of a
//! length the form fixes: the walk misses nothing the pair searcher finds.

use std::collections::HashMap;

use super::Hit;
use super::pairs::{
    DECIMAL_TAIL_LEN, Entry, Needle, Tail, ULID_TAIL_LEN, UUID_TAIL_LEN, needles_of,
};
use super::simd::Simd;
use super::tokens::{RUN_MIN, for_each_long_run, for_each_run_scalar};
use crate::id::{ULID_LEN, trace};

/// The lengths of the alphanumeric runs a hex tail (12 digits) can end: a dashed UUID's last
/// group, a span ID or the low 64 bits (16), an X-Ray ID's last part (24), a 32-hex token.
const HEX_RUNS: [usize; 4] = [12, 16, 24, 32];

#[derive(Clone, Debug)]
pub(super) struct TailSearcher {
    needles: Vec<Needle>,
    /// (tail length, folded tail bytes) -> the needles with that tail, in entry order.
    by_tail: HashMap<(u8, u128), Vec<u32>, foldhash::fast::RandomState>,
    /// Bit [`filter_bit`] of each key of `by_tail`: most runs are no needle's, and one bit
    /// of an 8 KiB set turns them away for less than a lookup in the map costs.
    filter: Box<[u64]>,
    /// Bit `n`: a run of length `n` may end a needle's form.
    run_lengths: u64,
    /// Bit `n`: some decimal needle's tail is `n` digits long; a run of digits is looked up
    /// by its last `n` for each.
    decimal_tails: u64,
    /// A run of digits this short or longer may be a decimal needle's (leading zeros are
    /// read over, as the pair searcher reads them).
    shortest_decimal: usize,
}

/// The bytes `bytes` folded to lowercase (digits are unchanged), packed for the map.
fn packed(bytes: &[u8]) -> u128 {
    let mut word = [0u8; 16];
    for (slot, &b) in word.iter_mut().zip(bytes) {
        *slot = b | 0x20;
    }
    u128::from_le_bytes(word)
}

/// The bit of [`TailSearcher::filter`] for the folded tail bytes `packed`.
fn filter_bit(packed: u128) -> usize {
    let mixed = ((packed as u64) ^ (packed >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (mixed >> (64 - FILTER_BITS)) as usize
}

const FILTER_BITS: u32 = 16;

impl TailSearcher {
    pub(super) fn new(entries: &[Entry]) -> TailSearcher {
        let needles: Vec<Needle> = needles_of(entries)
            .into_iter()
            .filter(|n| n.tail != Tail::Repeat)
            .collect();
        let mut by_tail: HashMap<(u8, u128), Vec<u32>, _> = HashMap::default();
        let mut filter = vec![0u64; (1 << FILTER_BITS) / 64].into_boxed_slice();
        let mut run_lengths = 0u64;
        let mut decimal_tails = 0u64;
        let mut shortest_decimal = usize::MAX;
        for (n, needle) in needles.iter().enumerate() {
            let len = needle.bytes.len();
            let key = packed(&needle.bytes);
            by_tail.entry((len as u8, key)).or_default().push(n as u32);
            let bit = filter_bit(key);
            filter[bit / 64] |= 1 << (bit % 64);
            match needle.tail {
                Tail::Ulid => run_lengths |= 1 << ULID_LEN,
                Tail::Uuid | Tail::Span => {
                    for run in HEX_RUNS {
                        run_lengths |= 1 << run;
                    }
                }
                Tail::Decimal => {
                    decimal_tails |= 1 << len;
                    shortest_decimal = shortest_decimal.min(len);
                    for run in len..=trace::DECIMAL_MAX_LEN {
                        run_lengths |= 1 << run;
                    }
                }
                Tail::Repeat => {}
            }
        }
        TailSearcher {
            needles,
            by_tail,
            filter,
            run_lengths,
            decimal_tails,
            shortest_decimal,
        }
    }

    /// Adds every needle's hits in `hay` to `hits`, in no particular order.
    pub(super) fn find(&self, simd: Simd, hay: &[u8], hits: &mut Vec<Hit>) {
        let mut run = |start: usize, end: usize| {
            if self.run_lengths & (1 << (end - start)) != 0 {
                self.run(hay, start, end, hits);
            }
        };
        if self.shortest_decimal >= RUN_MIN {
            for_each_long_run(simd, hay, &mut run);
            return;
        }
        // A decimal needle shorter than the runs the vector walk reports (a value below
        // 10^11): every run is looked at.
        for_each_run_scalar(hay, 1, &mut run);
    }

    /// The candidates of the whole alphanumeric run `hay[start..end]`.
    fn run(&self, hay: &[u8], start: usize, end: usize, hits: &mut Vec<Hit>) {
        let run = end - start;
        // Every form a needle finds ends its run with the whole tail inside it: a tail longer
        // than the run (a full-length decimal tail on a short run of digits, walked for a
        // short decimal needle) would reach before the run, even before the buffer.
        let mut look = |tail: usize| {
            if tail > run {
                return;
            }
            let key = packed(&hay[end - tail..end]);
            let bit = filter_bit(key);
            if self.filter[bit / 64] & (1 << (bit % 64)) == 0 {
                return;
            }
            if let Some(found) = self.by_tail.get(&(tail as u8, key)) {
                for &n in found {
                    self.needles[n as usize].verify(hay, end - tail, hits);
                }
            }
        };
        if run == ULID_LEN {
            look(ULID_TAIL_LEN);
            return;
        }
        let digits = self.decimal_tails != 0
            && run >= self.shortest_decimal
            && run <= trace::DECIMAL_MAX_LEN
            && hay[start..end].iter().all(u8::is_ascii_digit);
        // A hex tail and a decimal one of full length are looked up as one: both are 12
        // bytes, and each needle found verifies its own form.
        if HEX_RUNS.contains(&run) || (digits && self.decimal_tails & (1 << DECIMAL_TAIL_LEN) != 0)
        {
            look(UUID_TAIL_LEN);
        }
        if digits {
            // The decimals of values below 10^12, whole, at the run's end.
            for tail in self.shortest_decimal..DECIMAL_TAIL_LEN {
                if self.decimal_tails & (1 << tail) != 0 {
                    look(tail);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::Id;
    use crate::scan::pairs::PairSearcher;
    use crate::scan::simd::{Level, coverage};
    use crate::testing::Rng;

    /// Entries of every kind `Matcher::for_queries` makes: ULID or UUID queries, 32-hex
    /// queries that may be traces (with their decimal), trace queries, span queries, and
    /// values whose decimal is short (below 10^11, so every run is walked).
    fn entries(rng: &mut Rng, count: usize, short_decimals: bool) -> Vec<Entry> {
        (0..count)
            .map(|query| {
                let wide = (u128::from(rng.next()) << 64) | u128::from(rng.next());
                let (value, tails, wide64) = match query % 5 {
                    0 => (wide, [Tail::Ulid, Tail::Uuid], false),
                    1 => (wide, [Tail::Decimal, Tail::Repeat], false),
                    2 => (wide, [Tail::Uuid, Tail::Decimal], false),
                    3 if short_decimals => (
                        u128::from(100 + rng.next() % 1_000_000),
                        [Tail::Span, Tail::Decimal],
                        true,
                    ),
                    _ => (u128::from(rng.next()), [Tail::Span, Tail::Decimal], true),
                };
                Entry {
                    value,
                    query,
                    tails,
                    wide64,
                    trace: query % 5 != 0,
                }
            })
            .collect()
    }

    /// Text with every value of `entries` in every spelling the needles find, in fields and
    /// out, in either case, glued to letters and digits, with leading zeros, and noise.
    fn haystack(rng: &mut Rng, entries: &[Entry]) -> Vec<u8> {
        let mut hay = Vec::new();
        while hay.len() < 30_000 {
            let id = Id(rng.pick(entries).value);
            let text = match rng.below(15) {
                0 => id.ulid(),
                1 => id.uuid().to_uppercase(),
                2 => id.hex(),
                3 => id.xray(),
                4 => format!("trace_id={}", id.hex16()),
                5 => format!("\"span_id\": \"{}\"", id.hex16().to_uppercase()),
                6 => format!("dd.span_id={}", id.low64()),
                7 => format!("\"dd.trace_id\":\"{}\"", id.low64()),
                8 => format!("x-b3-traceid: 0000{}", id.low64()),
                9 => format!("msg={} count={}", id.hex16(), id.low64()),
                10 => format!("trace_id=z{}", id.hex()),
                11 => format!("{}7", id.ulid()),
                12 => format!(
                    "seq {} ts 1795000000123 n {}",
                    rng.next(),
                    rng.next() % 1000
                ),
                13 => format!("{} items", rng.next() % 100_000_000),
                _ => "padding text, 0123456789abcdef0123 abcdef".to_string(),
            };
            hay.extend_from_slice(text.as_bytes());
            hay.push(*rng.pick(b" \n-_x,"));
        }
        hay
    }

    fn sorted(mut hits: Vec<Hit>) -> Vec<Hit> {
        hits.sort_by_key(|h| (h.start, h.end, h.query));
        hits
    }

    /// What one pair searcher per entry finds in `hay`, byte at a time.
    fn oracle(entries: &[Entry], hay: &[u8]) -> Vec<Hit> {
        let mut want = Vec::new();
        for entry in entries {
            PairSearcher::new(std::slice::from_ref(entry)).find_scalar(hay, 0, &mut want);
        }
        sorted(want)
    }

    /// What the walk finds is exactly what one pair searcher per entry finds, byte at a
    /// time, at every level: every needle's hits, each once. Each line is also searched on
    /// its own, as a search's buffers begin at any line: a run at a buffer's start is where
    /// a tail reaching before the run would fall outside it.
    #[test]
    fn finds_what_a_pair_searcher_per_entry_finds() {
        let levels = coverage::levels("scan tails", &Level::ALL);
        let mut rng = Rng(0x7a11_5eed);
        for round in 0..12 {
            let entries = entries(&mut rng, 5 + round * 7, round % 3 == 2);
            let hay = haystack(&mut rng, &entries);
            let want = oracle(&entries, &hay);
            assert!(want.len() > 100, "round {round}: {} hits", want.len());
            let searcher = TailSearcher::new(&entries);
            for &simd in &levels {
                let mut got = Vec::new();
                searcher.find(simd, &hay, &mut got);
                assert_eq!(sorted(got), want, "round {round}, {}", simd.level().name());
                for line in hay.split(|&b| b == b'\n') {
                    let mut got = Vec::new();
                    searcher.find(simd, line, &mut got);
                    assert_eq!(
                        sorted(got),
                        oracle(&entries, line),
                        "round {round}, {}, line {:?}",
                        simd.level().name(),
                        String::from_utf8_lossy(line)
                    );
                }
            }
        }
    }
}
