//! The last step of a timeline: the found lines become its lines, in time order, each with the
//! listed IDs it mentions, and each listed ID gets its figures (its lines, its first and last
//! time, the field that holds it most, a span's parent and service).
//!
//! The lines are read in parts, one per thread, each part sorted on its thread, and the
//! sorted parts merged: two hops from the bench corpus's UUID bring 83,000 lines and 400,000
//! tokens, and reading and sorting them took a tenth of the run on one thread while the other
//! waited.

use super::fields::FieldCounts;
use super::scan::{FastMap, Found, InputFinds, PairBuffers, Token, UNLISTED, service_of};
use super::{Known, Line, Placement, Query, Timeline, TimelineId, in_window, is_entity};
use crate::id::{self, Kind};
use crate::par::merge_sorted;
use crate::source::Input;
use crate::text::Name;

/// Fewer found lines than this are read on one thread.
const PART_MIN_LINES: usize = 4096;

/// Sorts, applies the window, drops unlisted IDs and works out each ID's figures, on
/// `threads` threads. `found`: the found lines, a list per input and pass in walk order;
/// `placed`: each one's time and rule, as [`super::place`] gives them.
pub(super) fn finish(
    query: &Query,
    inputs: &[Input],
    mut found: Vec<InputFinds>,
    placed: Vec<(Option<i64>, Placement)>,
    known: &[Known],
    index: &FastMap<u128, usize>,
    threads: usize,
) -> Timeline {
    let (mut ids, remap) = listed(query, known);
    let reader = Reader {
        query,
        known,
        index,
        remap: &remap,
        ids: &ids,
    };
    let per = placed.len().div_ceil(threads.max(1)).max(PART_MIN_LINES);
    let mut pieces = split(&mut found, per).into_iter();
    let parts: Vec<Part> = if placed.len() <= per {
        vec![reader.read(0, pieces.next().unwrap_or_default(), &placed)]
    } else {
        std::thread::scope(|scope| {
            let running: Vec<_> = pieces
                .zip(placed.chunks(per))
                .enumerate()
                .map(|(i, (lines, placed))| {
                    let reader = &reader;
                    scope.spawn(move || reader.read(i * per, lines, placed))
                })
                .collect();
            running
                .into_iter()
                .map(|part| {
                    part.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        })
    };
    // Each line's text went to the parts; what is left is the shells.
    drop(found);
    let mut fields = FieldCounts::new(ids.len());
    let mut figures = vec![Figures::default(); ids.len()];
    let (mut outside_window, mut untimed_outside_window) = (0, 0);
    let mut runs = Vec::with_capacity(parts.len());
    // In line order, part after part: a span's parent is the one its first line names.
    for part in parts {
        for (all, some) in figures.iter_mut().zip(&part.figures) {
            all.add(some);
        }
        fields.merge(part.fields);
        for (span, parent) in part.parents {
            ids[span].parent.get_or_insert(parent);
        }
        outside_window += part.outside_window;
        untimed_outside_window += part.untimed_outside_window;
        runs.push(part.lines);
    }
    for ((entry, field), figures) in ids.iter_mut().zip(fields.most_used()).zip(figures) {
        entry.lines = figures.lines;
        // Placed lines give both times or neither.
        if figures.first_us <= figures.last_us {
            (entry.first_us, entry.last_us) = (Some(figures.first_us), Some(figures.last_us));
        }
        entry.field = field;
    }
    let mut lines = Vec::with_capacity(runs.iter().map(Vec::len).sum());
    lines.extend(merge_sorted(runs, order_key));
    name_services(&mut ids, &lines);
    Timeline {
        ids,
        lines,
        paths: inputs.iter().map(Name::of).collect(),
        hops: query.hops,
        max_fanout: query.max_fanout,
        outside_window,
        untimed_outside_window,
    }
}

/// The listed IDs: the root, and named entities, in order of discovery; and the index of
/// each known ID among them (`usize::MAX` for one not listed).
fn listed(query: &Query, known: &[Known]) -> (Vec<TimelineId>, Vec<usize>) {
    let mut remap = vec![usize::MAX; known.len()];
    // Room for every known ID at once: grown by doubling, the list would be copied into fresh
    // pages at each step (about 6 ms for two hops' 48,000 IDs); the room past the listed ones
    // is never written, so its pages are never faulted in.
    let mut ids = Vec::with_capacity(known.len());
    for (k, entry) in known.iter().enumerate() {
        if k == 0 || (entry.named && is_entity(entry.id)) {
            remap[k] = ids.len();
            ids.push(TimelineId {
                id: entry.id,
                kind: entry.kind,
                description: if k == 0 {
                    query.root.describe()
                } else {
                    entry.id.describe(entry.kind)
                },
                hop: entry.hop,
                found_via: entry.found_via,
                status: entry.status,
                lines: 0,
                first_us: None,
                last_us: None,
                field: None,
                parent: None,
                service: None,
            });
        }
    }
    for entry in &mut ids {
        entry.found_via = entry.found_via.map(|v| remap[v]);
    }
    (ids, remap)
}

/// Some found lines of one input, with its tokens.
type Piece<'a> = (&'a mut [Found], &'a [Token]);

/// The lines of `found` cut into parts of `per` lines (the last one fewer), in order, each
/// part the pieces of the inputs' lists it takes; a list may go to two parts or more.
fn split(found: &mut [InputFinds], per: usize) -> Vec<Vec<Piece<'_>>> {
    let per = per.max(1);
    let (mut parts, mut part, mut room) = (Vec::new(), Vec::new(), per);
    for input in found {
        let InputFinds { lines, tokens, .. } = input;
        let mut rest: &mut [Found] = lines;
        while !rest.is_empty() {
            let take = room.min(rest.len());
            let (piece, after) = std::mem::take(&mut rest).split_at_mut(take);
            room -= take;
            part.push((piece, &tokens[..]));
            rest = after;
            if room == 0 {
                parts.push(std::mem::take(&mut part));
                room = per;
            }
        }
    }
    if !part.is_empty() {
        parts.push(part);
    }
    parts
}

/// What every part's reader shares.
struct Reader<'a> {
    query: &'a Query,
    known: &'a [Known],
    index: &'a FastMap<u128, usize>,
    remap: &'a [usize],
    ids: &'a [TimelineId],
}

/// What one part of the found lines gives.
struct Part {
    /// Its lines in the window, sorted.
    lines: Vec<Line>,
    /// Each listed ID's figures over these lines.
    figures: Vec<Figures>,
    fields: FieldCounts,
    /// (span, parent) as the lines name them, in line order.
    parents: Vec<(usize, usize)>,
    outside_window: usize,
    untimed_outside_window: usize,
}

impl Reader<'_> {
    /// Reads the found lines of `pieces`, the first of them numbered `first` among all,
    /// placed as `placed` says; takes their text.
    fn read(
        &self,
        first: usize,
        pieces: Vec<Piece<'_>>,
        placed: &[(Option<i64>, Placement)],
    ) -> Part {
        let ids = self.ids;
        let mut part = Part {
            lines: Vec::with_capacity(placed.len()),
            figures: vec![Figures::default(); ids.len()],
            fields: FieldCounts::new(ids.len()),
            parents: Vec::new(),
            outside_window: 0,
            untimed_outside_window: 0,
        };
        // The last line that listed each ID: a line may hold an ID many times, and a test of
        // the line's list for each of its tokens took quadratic time on a line of 200,000 IDs.
        let mut listed_on = vec![usize::MAX; ids.len()];
        let lines = pieces.into_iter().flat_map(|(lines, tokens)| {
            lines
                .iter_mut()
                .map(move |f| (&tokens[f.tokens.clone()], f))
        });
        for (n, ((tokens, f), &(time_us, placement))) in (first..).zip(lines.zip(placed)) {
            if !in_window(time_us, self.query) {
                match time_us {
                    Some(_) => part.outside_window += 1,
                    None => part.untimed_outside_window += 1,
                }
                continue;
            }
            let via_id = self.known[f.via].id;
            let mut line_ids = Vec::with_capacity(tokens.len());
            let mut field = None;
            let mut marks = Vec::with_capacity(1);
            // The line's own span and its parent, as span fields name them.
            let (mut own_span, mut parent_span) = (None, None);
            for token in tokens {
                if token.id == via_id {
                    marks.push((token.start, token.end));
                    if field.is_none() {
                        field.clone_from(&token.field);
                    }
                }
                // A line placed outside the window when its pass ended had its IDs left
                // unlisted then; one of them may have been listed from another line since.
                let listed = match token.known {
                    UNLISTED => self.index.get(&token.id.0).copied(),
                    k => Some(k as usize),
                };
                let Some(k) = listed.map(|k| self.remap[k]).filter(|&k| k != usize::MAX) else {
                    continue;
                };
                if let Some(name) = &token.field {
                    // A span ID is a 64-bit value: the test of the value spares most tokens a
                    // read of their entry, far apart in memory.
                    if token.id.0 >> 64 == 0
                        && ids[k].kind == Kind::Span
                        && id::trace::field_role(name.as_bytes())
                            == Some(id::trace::FieldRole::Span)
                    {
                        let slot = if id::trace_value::is_parent_span_field(name.as_bytes()) {
                            &mut parent_span
                        } else {
                            &mut own_span
                        };
                        slot.get_or_insert(k);
                    }
                    part.fields.add(k, name);
                }
                if listed_on[k] != n {
                    listed_on[k] = n;
                    line_ids.push(k);
                }
            }
            // Tokens come from the token walk, then span fields, then the trace spellings of
            // the pass's hits: in line order, without overlaps, for the printers.
            marks.sort_unstable();
            marks.dedup_by(|next, kept| next.0 < kept.1);
            if let (Some(span), Some(parent)) = (own_span, parent_span)
                && span != parent
            {
                part.parents.push((span, parent));
            }
            for &k in &line_ids {
                part.figures[k].count(time_us);
            }
            part.lines.push(Line {
                time_us,
                placement,
                file: f.file,
                line_no: f.line_no,
                field,
                via: self.remap[f.via],
                text: std::mem::take(&mut f.text),
                marks,
                ids: line_ids,
            });
        }
        sort_lines(&mut part.lines);
        part
    }
}

/// An ID's line count and the times of its first and last placed lines, while
/// [`finish`] counts them.
#[derive(Clone, Copy)]
struct Figures {
    lines: u64,
    first_us: i64,
    last_us: i64,
}

impl Default for Figures {
    fn default() -> Figures {
        Figures {
            lines: 0,
            first_us: i64::MAX,
            last_us: i64::MIN,
        }
    }
}

impl Figures {
    /// Counts a line at `time_us`.
    fn count(&mut self, time_us: Option<i64>) {
        self.lines += 1;
        if let Some(t) = time_us {
            self.first_us = self.first_us.min(t);
            self.last_us = self.last_us.max(t);
        }
    }

    /// Adds the figures of other lines.
    fn add(&mut self, other: &Figures) {
        self.lines += other.lines;
        self.first_us = self.first_us.min(other.first_us);
        self.last_us = self.last_us.max(other.last_us);
    }
}

/// Gives each span the service its first line names.
fn name_services(ids: &mut [TimelineId], lines: &[Line]) {
    // One flag per ID, apart from the entries: a line's IDs lie far apart among those.
    let mut unread: Vec<bool> = ids.iter().map(|e| e.kind == Kind::Span).collect();
    if !unread.contains(&true) {
        return;
    }
    let mut buffers = PairBuffers::default();
    for line in lines {
        for &k in &line.ids {
            if unread[k] {
                unread[k] = false;
                ids[k].service = service_of(&line.text, &mut buffers);
            }
        }
    }
}

/// Where a line stands: time order; ties keep file order, then line order; unplaced lines
/// last. A line is on a timeline once, so no two lines stand in one place.
fn order_key(line: &Line) -> (bool, Option<i64>, usize, u64) {
    (
        line.time_us.is_none(),
        line.time_us,
        line.file,
        line.line_no,
    )
}

/// Sorts lines by [`order_key`]. The keys are read once and sorted apart, and each line then
/// moved once, not at every swap of a sort.
pub(super) fn sort_lines(lines: &mut [Line]) {
    lines.sort_by_cached_key(order_key);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(time_us: Option<i64>, file: usize, line_no: u64) -> Line {
        Line {
            time_us,
            placement: if time_us.is_some() {
                Placement::Line
            } else {
                Placement::Unplaced
            },
            file,
            line_no,
            field: None,
            via: 0,
            text: Box::from(&b""[..]),
            marks: Vec::new(),
            ids: Vec::new(),
        }
    }

    fn order(lines: &[Line]) -> Vec<(Option<i64>, usize, u64)> {
        lines
            .iter()
            .map(|l| (l.time_us, l.file, l.line_no))
            .collect()
    }

    #[test]
    fn ties_keep_file_order_then_line_order_and_unplaced_lines_come_last() {
        let mut lines = vec![
            line(None, 0, 1),
            line(Some(5), 2, 1),
            line(Some(5), 1, 7),
            line(Some(3), 2, 9),
            line(Some(5), 1, 2),
            line(None, 0, 0),
        ];
        sort_lines(&mut lines);
        assert_eq!(
            order(&lines),
            vec![
                (Some(3), 2, 9),
                (Some(5), 1, 2),
                (Some(5), 1, 7),
                (Some(5), 2, 1),
                (None, 0, 0),
                (None, 0, 1),
            ]
        );
    }

    /// Sorted runs merged give the order of one sort of all their lines.
    #[test]
    fn merged_runs_are_in_the_order_of_one_sort() {
        let mut rng = crate::testing::Rng(0x5eed);
        for round in 0..50 {
            let runs: Vec<Vec<Line>> = (0..1 + rng.next() % 4)
                .map(|run| {
                    let mut lines: Vec<Line> = (0..rng.next() % 40)
                        .map(|i| {
                            let time =
                                (!rng.next().is_multiple_of(5)).then(|| (rng.next() % 20) as i64);
                            line(time, (rng.next() % 3) as usize, run * 1000 + i)
                        })
                        .collect();
                    sort_lines(&mut lines);
                    lines
                })
                .collect();
            let mut all: Vec<Line> = runs.iter().flatten().cloned().collect();
            sort_lines(&mut all);
            assert_eq!(
                order(&merge_sorted(runs, order_key).collect::<Vec<_>>()),
                order(&all),
                "round {round}"
            );
        }
    }
}
