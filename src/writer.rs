//! Search output in walk order, whatever order the threads finish in, so `-j1` and `-j8`
//! print the same bytes, with each input's errors printed in their place as
//! `idgrep: PATH: reason`; and whole reports written to stdout. A closed pipe stops
//! everything quietly; any other write error is the caller's to report.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use crate::exit::{Exit, report};
use crate::output::search::CONTEXT_BREAK;
use crate::source::{self, Input};

/// What one input's output is made by: the search of one input, run in order by
/// [`run_in_order`].
pub trait Job: Sync {
    /// What a thread reuses from input to input.
    type Scratch: Default;

    /// Set when the run should stop: by the job (`-q` at the first match) or when stdout is
    /// gone.
    fn stop(&self) -> &AtomicBool;

    /// Searches one input; `flush` may take output away early, and returns false when the
    /// search should stop.
    fn run_one(
        &self,
        input: &Input,
        scratch: &mut Self::Scratch,
        flush: &mut dyn FnMut(&mut Vec<u8>) -> bool,
    ) -> Done;
}

/// What searching one input produced, ready to print.
pub struct Done {
    pub out: Vec<u8>,
    pub matched: bool,
    pub error: Option<String>,
}

/// Writes to stdout; remembers a broken pipe so everything stops quietly. Output is written
/// in large pieces, so taking the stdout lock per piece costs nothing, and the parallel
/// search's threads can take turns with it.
pub struct Writer {
    /// Standard output, behind a buffer of [`BLOCK`] bytes when output is block-buffered: a
    /// lookup from the index prints a few lines from each of hundreds of files, and a write
    /// per file was a tenth of its time. A terminal and `--line-buffered` write each piece at
    /// once.
    out: Box<dyn Write + Send>,
    broken: bool,
    /// Context lines are shown: an input's output is set off from the output before it.
    separate_inputs: bool,
    /// The input whose output was written last.
    last_input: Option<usize>,
}

impl Writer {
    /// A writer to stdout; `separate_inputs`: context lines are shown, so each input's output
    /// is set off from the output before it; `line_buffered`: each piece is written at once,
    /// else pieces are gathered into writes of [`BLOCK`] bytes.
    pub fn new(separate_inputs: bool, line_buffered: bool) -> Writer {
        let out: Box<dyn Write + Send> = if line_buffered {
            Box::new(io::stdout())
        } else {
            Box::new(io::BufWriter::with_capacity(BLOCK, io::stdout()))
        };
        Writer {
            out,
            broken: false,
            separate_inputs,
            last_input: None,
        }
    }

    /// Writes output of input number `input` (in the order of the inputs).
    fn write_input(&mut self, input: usize, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        if self.separate_inputs && self.last_input.is_some_and(|last| last != input) {
            self.write(CONTEXT_BREAK)?;
        }
        self.last_input = Some(input);
        self.write(bytes)
    }

    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.broken || bytes.is_empty() {
            return Ok(());
        }
        let written = self.out.write_all(bytes);
        self.quiet_on_broken_pipe(written)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        let flushed = self.out.flush();
        self.quiet_on_broken_pipe(flushed)
    }

    /// A closed pipe is no error: it is remembered, and everything stops quietly.
    fn quiet_on_broken_pipe(&mut self, result: io::Result<()>) -> io::Result<()> {
        match result {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.broken = true;
                Ok(())
            }
            other => other,
        }
    }

    /// Prints a per-input error after flushing what came before it, so the two streams
    /// interleave in order on a terminal.
    fn error(&mut self, path: &str, reason: &str) -> io::Result<()> {
        self.flush()?;
        report(&format!("{path}: {reason}"));
        Ok(())
    }
}

/// Runs `job` on every input on `threads` threads and prints each input's output in input
/// order; returns whether any input matched and whether any errored.
pub fn run_in_order<J: Job>(
    job: &J,
    inputs: &[Input],
    threads: usize,
    writer: &mut Writer,
) -> io::Result<(bool, bool)> {
    if threads == 1 {
        sequential(job, inputs, writer)
    } else {
        parallel(job, inputs, threads, writer)
    }
}

/// Prints one input's result; returns whether it matched and whether it errored.
fn emit(
    stop: &AtomicBool,
    inputs: &[Input],
    i: usize,
    done: Done,
    writer: &mut Writer,
) -> io::Result<(bool, bool)> {
    let input = &inputs[i];
    writer.write_input(i, &done.out)?;
    let reason = match input {
        Input::Error(_, reason) => Some(reason.clone()),
        _ => done.error,
    };
    if let Some(reason) = &reason {
        writer.error(&input.display_name(), reason)?;
    }
    if writer.broken {
        stop.store(true, Ordering::Relaxed);
    }
    Ok((done.matched, reason.is_some()))
}

fn sequential<J: Job>(job: &J, inputs: &[Input], writer: &mut Writer) -> io::Result<(bool, bool)> {
    let stop = job.stop();
    let mut scratch = J::Scratch::default();
    let (mut matched, mut errored) = (false, false);
    for (i, input) in inputs.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let mut write_error = None;
        let done = job.run_one(input, &mut scratch, &mut |out| {
            let result = writer.write_input(i, out);
            out.clear();
            match result {
                Ok(()) => !writer.broken,
                Err(e) => {
                    write_error = Some(e);
                    false
                }
            }
        });
        if let Some(e) = write_error {
            return Err(e);
        }
        let (m, e) = emit(stop, inputs, i, done, writer)?;
        matched |= m;
        errored |= e;
    }
    Ok((matched, errored))
}

/// Workers take inputs in order from a shared counter. The worker on the earliest
/// unprinted input prints as it goes; the others hold their output back, finished or
/// not, until its turn, and wait for it once they hold too much, so memory stays bounded
/// however many lines match. Every claimed input is finished (searched, or skipped once
/// the search stops) and the earliest one's worker never waits, so the turn always
/// moves on.
fn parallel<J: Job>(
    job: &J,
    inputs: &[Input],
    threads: usize,
    writer: &mut Writer,
) -> io::Result<(bool, bool)> {
    let stop = job.stop();
    let claimed = AtomicUsize::new(0);
    // `Turn::next`, readable without the lock.
    let printing = AtomicUsize::new(0);
    let turn = Mutex::new(Turn {
        writer,
        next: 0,
        finished: BTreeMap::new(),
        finished_bytes: 0,
        matched: false,
        errored: false,
        failure: None,
        abandoned: false,
        waiting: 0,
    });
    let moved = Condvar::new();
    let wait_for = |i: usize| {
        let mut guard = turn.lock().expect(TURN_POISONED);
        guard.waiting += 1;
        let mut guard = moved
            .wait_while(guard, |t| t.next != i && !t.abandoned)
            .expect(TURN_POISONED);
        guard.waiting -= 1;
        guard
    };
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let _abandon = Abandon {
                    turn: &turn,
                    moved: &moved,
                };
                let mut scratch = J::Scratch::default();
                loop {
                    let i = claimed.fetch_add(1, Ordering::Relaxed);
                    if i >= inputs.len() {
                        break;
                    }
                    let skipped = stop.load(Ordering::Relaxed);
                    let done = (!skipped).then(|| {
                        job.run_one(&inputs[i], &mut scratch, &mut |out| {
                            if printing.load(Ordering::Acquire) != i && out.len() < HOLD_PER_INPUT {
                                return true;
                            }
                            let mut guard = wait_for(i);
                            !guard.abandoned && guard.write(out, stop)
                        })
                    });
                    let size = done.as_ref().map_or(0, |d| d.out.len());
                    let mut guard = turn.lock().expect(TURN_POISONED);
                    if guard.next != i && guard.finished_bytes + size > HOLD_FINISHED {
                        drop(guard);
                        guard = wait_for(i);
                    }
                    if guard.abandoned {
                        break;
                    }
                    if guard.next == i {
                        guard.print(stop, inputs, done);
                        printing.store(guard.next, Ordering::Release);
                        // A notify is a system call even with no one to wake, and most
                        // inputs print with no thread waiting for its turn.
                        if guard.waiting > 0 {
                            moved.notify_all();
                        }
                    } else {
                        guard.finished_bytes += size;
                        guard.finished.insert(i, done);
                    }
                    if skipped {
                        break;
                    }
                }
            });
        }
    });
    let turn = turn.into_inner().expect(TURN_POISONED);
    match turn.failure {
        Some(e) => Err(e),
        None => Ok((turn.matched, turn.errored)),
    }
}

/// The size of the writes of block-buffered output.
const BLOCK: usize = 64 << 10;

/// How much output a search thread holds back for an input that is not yet its turn to
/// print, before it waits for that turn.
const HOLD_PER_INPUT: usize = 4 << 20;

/// How much output of finished inputs may wait in all for their turn to print.
const HOLD_FINISHED: usize = 8 << 20;

const TURN_POISONED: &str = "a search thread panicked while printing";

/// The parallel search's printing state, shared by its threads.
struct Turn<'w> {
    writer: &'w mut Writer,
    /// The input whose output is printed now; every earlier one is printed.
    next: usize,
    /// Finished inputs after `next`, waiting for their turn (`None`: skipped, as the search
    /// had stopped).
    finished: BTreeMap<usize, Option<Done>>,
    finished_bytes: usize,
    matched: bool,
    errored: bool,
    /// The first failure to write to stdout; it stops the search.
    failure: Option<io::Error>,
    /// A search thread panicked: the others stop waiting for turns that may never come.
    abandoned: bool,
    /// Threads waiting on the condition variable for a turn.
    waiting: usize,
}

impl Turn<'_> {
    /// Writes output of the input at `next` before it is finished; false when the search
    /// should stop.
    fn write(&mut self, out: &mut Vec<u8>, stop: &AtomicBool) -> bool {
        if self.failure.is_none()
            && let Err(e) = self.writer.write_input(self.next, out)
        {
            self.failure = Some(e);
            stop.store(true, Ordering::Relaxed);
        }
        out.clear();
        self.failure.is_none() && !self.writer.broken && !stop.load(Ordering::Relaxed)
    }

    /// Prints the finished input at `next`, then every finished one that follows it.
    fn print(&mut self, stop: &AtomicBool, inputs: &[Input], done: Option<Done>) {
        let mut done = Some(done);
        while let Some(d) = done {
            if let (Some(d), None) = (d, &self.failure) {
                match emit(stop, inputs, self.next, d, self.writer) {
                    Ok((m, e)) => {
                        self.matched |= m;
                        self.errored |= e;
                    }
                    Err(e) => {
                        self.failure = Some(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            }
            self.next += 1;
            done = self.finished.remove(&self.next);
            if let Some(Some(d)) = &done {
                self.finished_bytes -= d.out.len();
            }
        }
    }
}

/// Marks the turn abandoned if its search thread panics, so that the other threads stop
/// waiting and the panic reaches the caller instead of a hang.
struct Abandon<'a, 'w> {
    turn: &'a Mutex<Turn<'w>>,
    moved: &'a Condvar,
}

impl Drop for Abandon<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut turn = self
                .turn
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            turn.abandoned = true;
            self.moved.notify_all();
        }
    }
}

/// Writes a whole report to stdout; a closed pipe is not an error.
pub fn write_stdout(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), Exit> {
    let stdout = io::stdout().lock();
    let mut out = io::BufWriter::with_capacity(256 * 1024, stdout);
    match write(&mut out).and_then(|_| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            report(&format!("error writing output: {}", source::io_reason(&e)));
            Err(Exit::Error)
        }
        _ => Ok(()),
    }
}
