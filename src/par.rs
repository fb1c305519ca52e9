//! The parallel scan that `ids`, `audit` and `timeline` share: every input on N threads,
//! each thread with state of its own, and what each input has to tell the user
//! ([`Notice`]), reported after the scan in input order; and the merge of parts that
//! threads sorted ([`merge_sorted`]).

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::exit::report;
use crate::search;
use crate::source::{self, Input};
use crate::text;

/// How a scan reads its inputs: what `ids`, `audit` and `timeline` share.
#[derive(Clone, Debug, Default)]
pub struct ScanSettings {
    pub threads: usize,
    /// Binary files are read as text (`-a`).
    pub text: bool,
    /// The zone of log times written without an offset; `None` is UTC.
    pub zone: Option<jiff::tz::TimeZone>,
    /// Standard error is a terminal: a progress bar may show.
    pub progress: bool,
}

/// Something to tell the user about one input, after a scan.
pub struct Notice {
    pub message: String,
    /// An error (exit 2) rather than a remark (a binary file skipped).
    pub error: bool,
}

impl Notice {
    /// An input that could not be read (or read to the end).
    pub fn failed(e: &io::Error) -> Notice {
        Notice {
            message: source::io_reason(e),
            error: true,
        }
    }

    /// What to tell about an input once scanned: a read error, or a binary file's matching
    /// lines `left_out` (`"not counted"`: the notice reads "binary file: N lines not
    /// counted (-a reads it as text)").
    pub fn after_scan(outcome: search::Outcome, left_out: &str) -> Option<Notice> {
        if let Some(e) = outcome.error {
            return Some(Notice::failed(&e));
        }
        (outcome.withheld_lines > 0).then(|| Notice {
            message: format!(
                "binary file: {} {left_out} (-a reads it as text)",
                text::withheld_lines(&outcome, "matching line")
            ),
            error: false,
        })
    }
}

/// Inputs with the order a scan takes them in: largest file first, so that no thread is
/// left with a big file while the others wait. Each size is a `stat`, taken once: the sizes
/// also give the progress bar its total, and a caller that scans the same inputs again keeps
/// this.
pub struct Ordered<'a> {
    pub inputs: &'a [Input],
    order: Vec<usize>,
    total: Option<u64>,
}

impl Ordered<'_> {
    pub fn largest_first(inputs: &[Input]) -> Ordered<'_> {
        let sizes: Vec<Option<u64>> = inputs.iter().map(source::size).collect();
        let mut order: Vec<usize> = (0..inputs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
        Ordered {
            inputs,
            order,
            total: sizes.into_iter().sum(),
        }
    }

    /// The inputs' bytes when they were ordered; `None` when one has no size (standard input,
    /// a file gone).
    pub fn total(&self) -> Option<u64> {
        self.total
    }
}

/// Runs `work` on every input on `threads` threads, in their order, each thread with its own
/// state made by `init`; returns the states, and the notices with their input's index, in
/// input order. Each thread calls `done` on its state once it has no input left, so that work
/// on the states (freeing what the caller does not keep) runs on the threads rather than
/// after them.
pub fn scan_all<S: Send>(
    ordered: &Ordered,
    threads: usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize, &Input) -> Option<Notice> + Sync,
    done: impl Fn(&mut S) + Sync,
) -> (Vec<S>, Vec<(usize, Notice)>) {
    let (inputs, queue) = (ordered.inputs, &ordered.order);
    let next = AtomicUsize::new(0);
    let threads = threads.min(inputs.len()).max(1);
    let results: Vec<(S, Vec<(usize, Notice)>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut state = init();
                    let mut notices = Vec::new();
                    while let Some(&i) = queue.get(next.fetch_add(1, Ordering::Relaxed)) {
                        if let Some(notice) = work(&mut state, i, &inputs[i]) {
                            notices.push((i, notice));
                        }
                    }
                    done(&mut state);
                    (state, notices)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a scan thread panicked"))
            .collect()
    });
    let mut states = Vec::with_capacity(results.len());
    let mut notices = Vec::new();
    for (state, n) in results {
        states.push(state);
        notices.extend(n);
    }
    notices.sort_by_key(|(i, _)| *i);
    (states, notices)
}

/// Prints the notices of a scan as `idgrep: PATH: message`; true if one was an error.
pub fn report_notices(inputs: &[Input], notices: &[(usize, Notice)]) -> bool {
    for (i, notice) in notices {
        report(&format!(
            "{}: {}",
            inputs[*i].display_name(),
            notice.message
        ));
    }
    notices.iter().any(|(_, n)| n.error)
}

/// The items of `runs`, each run sorted by `key`, in the order of one sort of them all (of
/// equal items, the earlier run's first), each item moved once (a sort moves each at every
/// swap): parts sorted on their threads, put together.
pub fn merge_sorted<T, K: Ord>(
    runs: Vec<Vec<T>>,
    key: impl Fn(&T) -> K,
) -> impl Iterator<Item = T> {
    let mut runs: Vec<_> = runs.into_iter().map(|r| r.into_iter().peekable()).collect();
    std::iter::from_fn(move || {
        let (_, i) = runs
            .iter_mut()
            .enumerate()
            .filter_map(|(i, run)| run.peek().map(|item| (key(item), i)))
            .min()?;
        runs[i].next()
    })
}
