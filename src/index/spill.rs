//! Postings gathered while building, in bounded memory: each thread's buffer is sorted and
//! written to a run file when it fills, and the runs are merged in one streaming pass into a
//! segment. Memory is the buffers, whatever the size of the logs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::segment::Posting;

/// Postings kept in memory by one building thread before a run is written: 24 bytes each.
pub const BUFFER_POSTINGS: usize = 4 << 20;

/// Where runs go, shared by the threads.
pub struct RunDir {
    pub dir: PathBuf,
    next: AtomicUsize,
}

impl RunDir {
    pub fn new(dir: PathBuf) -> RunDir {
        RunDir {
            dir,
            next: AtomicUsize::new(0),
        }
    }

    fn next_path(&self) -> PathBuf {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        self.dir.join(format!("run-{n}"))
    }

    /// Writes `postings` (sorted, distinct) as a run; returns its path.
    pub fn write_run(&self, postings: impl Iterator<Item = Posting>) -> io::Result<PathBuf> {
        let path = self.next_path();
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        for p in postings {
            out.write_all(&p.to_bytes())?;
        }
        out.into_inner().map_err(|e| e.into_error())?;
        Ok(path)
    }
}

/// One thread's postings.
pub struct Spiller<'a> {
    runs_dir: &'a RunDir,
    buffer: Vec<Posting>,
    capacity: usize,
    pub runs: Vec<PathBuf>,
}

impl<'a> Spiller<'a> {
    pub fn new(runs_dir: &'a RunDir, capacity: usize) -> Spiller<'a> {
        Spiller {
            runs_dir,
            buffer: Vec::new(),
            capacity: capacity.max(1),
            runs: Vec::new(),
        }
    }

    pub fn push(&mut self, p: Posting) -> io::Result<()> {
        self.buffer.push(p);
        if self.buffer.len() >= self.capacity {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> io::Result<()> {
        self.buffer.sort_unstable();
        self.buffer.dedup();
        let path = self.runs_dir.write_run(self.buffer.drain(..))?;
        self.runs.push(path);
        Ok(())
    }

    /// The runs written and what is still in memory, sorted.
    pub fn finish(mut self) -> (Vec<PathBuf>, Vec<Posting>) {
        self.buffer.sort_unstable();
        self.buffer.dedup();
        (self.runs, self.buffer)
    }
}

/// A sorted source of postings for the merge.
enum Source {
    File(BufReader<File>),
    Memory(std::vec::IntoIter<Posting>),
}

impl Source {
    fn next(&mut self) -> io::Result<Option<Posting>> {
        match self {
            Source::Memory(it) => Ok(it.next()),
            Source::File(r) => {
                let mut b = [0u8; Posting::BYTES];
                match r.read_exact(&mut b) {
                    Ok(()) => Ok(Some(Posting::from_bytes(&b))),
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
                    Err(e) => Err(e),
                }
            }
        }
    }
}

/// The union of sorted runs and in-memory lists, in order, each posting once, without the
/// postings `keep` refuses.
pub struct Merge<F> {
    sources: Vec<Source>,
    heap: BinaryHeap<Reverse<(Posting, usize)>>,
    last: Option<Posting>,
    keep: F,
    started: bool,
}

impl<F: Fn(&Posting) -> bool> Merge<F> {
    pub fn new(runs: &[PathBuf], memory: Vec<Vec<Posting>>, keep: F) -> io::Result<Merge<F>> {
        let mut sources = Vec::new();
        for run in runs {
            sources.push(Source::File(BufReader::with_capacity(
                256 * 1024,
                File::open(run)?,
            )));
        }
        sources.extend(memory.into_iter().map(|m| Source::Memory(m.into_iter())));
        Ok(Merge {
            sources,
            heap: BinaryHeap::new(),
            last: None,
            keep,
            started: false,
        })
    }

    fn advance(&mut self) -> io::Result<Option<Posting>> {
        if !self.started {
            self.started = true;
            for i in 0..self.sources.len() {
                if let Some(p) = self.sources[i].next()? {
                    self.heap.push(Reverse((p, i)));
                }
            }
        }
        while let Some(Reverse((p, i))) = self.heap.pop() {
            if let Some(next) = self.sources[i].next()? {
                self.heap.push(Reverse((next, i)));
            }
            if self.last == Some(p) || !(self.keep)(&p) {
                continue;
            }
            self.last = Some(p);
            return Ok(Some(p));
        }
        Ok(None)
    }
}

impl<F: Fn(&Posting) -> bool> Iterator for Merge<F> {
    type Item = io::Result<Posting>;

    fn next(&mut self) -> Option<Self::Item> {
        self.advance().transpose()
    }
}

/// Removes the run files.
pub fn remove_runs(runs: &[PathBuf]) {
    for run in runs {
        let _ = std::fs::remove_file(run);
    }
}

/// True if `path` is a run file this module wrote.
pub fn is_run(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("run-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spilled_runs_merge_into_one_sorted_distinct_list() {
        let dir = tempfile::tempdir().unwrap();
        let runs_dir = RunDir::new(dir.path().to_path_buf());
        let mut a = Spiller::new(&runs_dir, 1000);
        let mut b = Spiller::new(&runs_dir, 333);
        let mut want = Vec::new();
        for i in 0..10_000u64 {
            let p = Posting {
                key: (i * 7919) % 4000,
                file: (i % 5) as u32,
                block: (i % 3) as u32,
                line: i % 3 * 4 + 1,
            };
            want.push(p);
            if i % 2 == 0 { a.push(p) } else { b.push(p) }.unwrap();
        }
        want.sort();
        want.dedup();
        want.retain(|p| p.file != 3);
        let (mut runs, ma) = a.finish();
        let (rb, mb) = b.finish();
        runs.extend(rb);
        assert!(runs.len() > 10, "the small buffers spilled");
        let merged: Vec<Posting> = Merge::new(&runs, vec![ma, mb], |p: &Posting| p.file != 3)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(merged, want);
    }
}
