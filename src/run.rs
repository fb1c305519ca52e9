//! The search and decode commands, and what every command shares: listing the inputs, running
//! a scan on N threads ([`scan_all`]), reporting per-input problems ([`Notice`]) and writing
//! to stdout quietly past a closed pipe.
//!
//! A search's output is written in walk order, whatever order the threads finish in, so `-j1`
//! and `-j8` print the same bytes, and its per-input errors are printed in their place as
//! `idgrep: PATH: reason`. The other commands report them after their scan, in input order.
//! Either way an error makes the exit code 2 at the end; the run goes on with the other
//! inputs.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use crate::cli::{InputConfig, OutputMode, SearchConfig};
use crate::output::{self, Printer};
use crate::record::{Analysis, TimeContext};
use crate::scan::Matcher;
use crate::search::{self, Context, Scratch, SearchOptions};
use crate::source::{self, Input, WalkOptions};

/// The process exit status, as grep and ripgrep define it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Found = 0,
    NotFound = 1,
    Error = 2,
}

impl Exit {
    /// The status of a command that prints one report: an output failure or an input error
    /// wins, then whether anything was found.
    pub fn after_report(written: Result<(), Exit>, errored: bool, found: bool) -> Exit {
        match (written, errored, found) {
            (Err(exit), _, _) => exit,
            (Ok(()), true, _) => Exit::Error,
            (Ok(()), false, true) => Exit::Found,
            (Ok(()), false, false) => Exit::NotFound,
        }
    }
}

/// In sequential mode, output is flushed to stdout once a buffer holds this much, so a file
/// with millions of matching lines does not pile up in memory.
const FLUSH_AT: usize = 64 * 1024;

/// What searching one input produced, ready to print.
struct Done {
    out: Vec<u8>,
    matched: bool,
    error: Option<String>,
}

/// Writes to stdout; remembers a broken pipe so everything stops quietly. Output is written
/// in large pieces, so taking the stdout lock per piece costs nothing, and the parallel
/// search's threads can take turns with it.
struct Writer {
    stdout: io::Stdout,
    broken: bool,
    /// Context lines are shown: an input's output is set off from the output before it.
    separate_inputs: bool,
    /// The input whose output was written last.
    last_input: Option<usize>,
}

impl Writer {
    /// Writes output of input number `input` (in the order of the inputs).
    fn write_input(&mut self, input: usize, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        if self.separate_inputs && self.last_input.is_some_and(|last| last != input) {
            self.write(output::CONTEXT_BREAK)?;
        }
        self.last_input = Some(input);
        self.write(bytes)
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.broken || bytes.is_empty() {
            return Ok(());
        }
        match self.stdout.lock().write_all(bytes) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.broken = true;
                Ok(())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.stdout.lock().flush() {
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

/// Prints `idgrep: MESSAGE` on stderr, escaped like log text (paths and reasons can hold
/// anything).
pub fn report(message: &str) {
    let mut line = b"idgrep: ".to_vec();
    output::escape_into(&mut line, message.as_bytes());
    line.push(b'\n');
    let _ = io::stderr().write_all(&line);
}

/// The inputs named by the paths (or standard input); a walk that cannot start is reported.
pub fn inputs(config: &InputConfig) -> Result<Vec<Input>, Exit> {
    if config.paths.is_empty() {
        return Ok(vec![Input::Stdin]);
    }
    let options = WalkOptions {
        globs: config.globs.clone(),
        follow_links: config.follow_links,
        implicit_cwd: config.implicit_cwd,
    };
    let inputs = source::walk(&config.paths, &options).map_err(|e| {
        report(&e);
        Exit::Error
    })?;
    if inputs.is_empty() {
        // As ripgrep does: an empty walk is most often a glob or path mistake.
        report("no files to read: check the paths and the -g globs");
    }
    Ok(inputs)
}

pub fn search(config: SearchConfig) -> Exit {
    let inputs = match inputs(&config.input) {
        Ok(inputs) => inputs,
        Err(exit) => return exit,
    };
    let paths = &config.input.paths;
    let with_filename = config
        .with_filename
        .unwrap_or_else(|| paths.len() > 1 || paths.iter().any(|p| p.is_dir()));
    let printer = Printer::new(
        config.mode,
        config.input.color,
        with_filename,
        config.line_numbers,
        &config.queries,
    );
    let ids: Vec<_> = config.queries.iter().map(|q| q.id).collect();
    let matcher = Matcher::new(&ids);
    let options = SearchOptions {
        line_numbers: config.line_numbers,
        text: config.input.text,
        context: config.context,
    };
    let mut writer = Writer {
        stdout: io::stdout(),
        broken: false,
        separate_inputs: config.mode == OutputMode::Lines && config.context != Context::default(),
        last_input: None,
    };
    if config.terminal && config.mode == OutputMode::Lines {
        let mut header = Vec::new();
        printer.header(&mut header, &config.queries, &config.input.clock());
        let _ = writer.write(&header);
    }
    let job = Job {
        matcher: &matcher,
        zone: config.input.zone.clone(),
        printer: &printer,
        options,
        stop: AtomicBool::new(false),
    };
    let threads = config.input.threads.min(inputs.len()).max(1);
    let result = if threads == 1 {
        job.sequential(&inputs, &mut writer)
    } else {
        job.parallel(&inputs, threads, &mut writer)
    };
    let (matched, errored) = match result.and_then(|r| writer.flush().map(|_| r)) {
        Ok(r) => r,
        Err(e) => {
            report(&format!("error writing output: {}", source::io_reason(&e)));
            return Exit::Error;
        }
    };
    match (matched, errored, config.mode) {
        (true, _, OutputMode::Quiet) => Exit::Found,
        (_, true, _) => Exit::Error,
        (true, false, _) => Exit::Found,
        (false, false, _) => Exit::NotFound,
    }
}

/// What one search thread reuses from input to input.
#[derive(Default)]
struct ThreadScratch {
    search: Scratch,
    analysis: Analysis,
}

struct Job<'a> {
    matcher: &'a Matcher,
    /// `--tz`/`--local`, for the line times of JSON output.
    zone: Option<jiff::tz::TimeZone>,
    printer: &'a Printer,
    options: SearchOptions,
    /// Set by -q at the first match, or when stdout is gone.
    stop: AtomicBool,
}

impl Job<'_> {
    /// Searches one input; `flush` may take output away early (sequential mode only).
    fn run_one(
        &self,
        input: &Input,
        scratch: &mut ThreadScratch,
        flush: &mut dyn FnMut(&mut Vec<u8>) -> bool,
    ) -> Done {
        let name = input.display_name();
        let mut out = Vec::new();
        let mut reader = match source::open(input, None) {
            Ok(r) => r,
            Err(e) => {
                return Done {
                    out,
                    matched: false,
                    error: Some(source::io_reason(&e)),
                };
            }
        };
        let mode = self.printer.mode;
        let stop_at_first = matches!(mode, OutputMode::Quiet | OutputMode::FilesWithMatches);
        // JSON lines carry each match's field and the line's time.
        let context = (mode == OutputMode::Json)
            .then(|| TimeContext::for_file(self.zone.as_ref(), source::modified(input)));
        let ThreadScratch {
            search: scratch,
            analysis,
        } = scratch;
        let outcome = search::search(self.matcher, self.options, &mut reader, scratch, &mut |m| {
            if stop_at_first {
                if mode == OutputMode::Quiet {
                    self.stop.store(true, Ordering::Relaxed);
                }
                return false;
            }
            let record = context.as_ref().map(|context| {
                crate::record::analyse_hits(m.line, m.hits, context, analysis);
                &*analysis
            });
            self.printer.line(&mut out, &name, m, record);
            if out.len() >= FLUSH_AT && !flush(&mut out) {
                return false;
            }
            !self.stop.load(Ordering::Relaxed)
        });
        self.printer.input_end(&mut out, &name, &outcome);
        Done {
            out,
            matched: outcome.matched_lines > 0,
            error: outcome.error.map(|e| source::io_reason(&e)),
        }
    }

    /// Prints one input's result; returns whether it matched and whether it errored.
    fn emit(
        &self,
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
            self.stop.store(true, Ordering::Relaxed);
        }
        Ok((done.matched, reason.is_some()))
    }

    fn sequential(&self, inputs: &[Input], writer: &mut Writer) -> io::Result<(bool, bool)> {
        let mut scratch = ThreadScratch::default();
        let (mut matched, mut errored) = (false, false);
        for (i, input) in inputs.iter().enumerate() {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let mut write_error = None;
            let done = self.run_one(input, &mut scratch, &mut |out| {
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
            let (m, e) = self.emit(inputs, i, done, writer)?;
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
    fn parallel(
        &self,
        inputs: &[Input],
        threads: usize,
        writer: &mut Writer,
    ) -> io::Result<(bool, bool)> {
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
        });
        let moved = Condvar::new();
        let wait_for = |i: usize| {
            let guard = turn.lock().expect(TURN_POISONED);
            moved
                .wait_while(guard, |t| t.next != i && !t.abandoned)
                .expect(TURN_POISONED)
        };
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let _abandon = Abandon {
                        turn: &turn,
                        moved: &moved,
                    };
                    let mut scratch = ThreadScratch::default();
                    loop {
                        let i = claimed.fetch_add(1, Ordering::Relaxed);
                        if i >= inputs.len() {
                            break;
                        }
                        let skipped = self.stop.load(Ordering::Relaxed);
                        let done = (!skipped).then(|| {
                            self.run_one(&inputs[i], &mut scratch, &mut |out| {
                                if printing.load(Ordering::Acquire) != i
                                    && out.len() < HOLD_PER_INPUT
                                {
                                    return true;
                                }
                                let mut guard = wait_for(i);
                                !guard.abandoned && guard.write(out, &self.stop)
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
                            guard.print(self, inputs, done);
                            printing.store(guard.next, Ordering::Release);
                            moved.notify_all();
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
}

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
    fn print(&mut self, job: &Job, inputs: &[Input], done: Option<Done>) {
        let mut done = Some(done);
        while let Some(d) = done {
            if let (Some(d), None) = (d, &self.failure) {
                match job.emit(inputs, self.next, d, self.writer) {
                    Ok((m, e)) => {
                        self.matched |= m;
                        self.errored |= e;
                    }
                    Err(e) => {
                        self.failure = Some(e);
                        job.stop.store(true, Ordering::Relaxed);
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

/// `idgrep decode`: one block (or JSON object) per ID, from the arguments or, with none, from
/// standard input; an invalid one is reported and makes the exit code 2, the others are still
/// decoded.
pub fn decode(inputs: &[String], json: bool, color: bool) -> Exit {
    let mut decoder = Decoder {
        json,
        color,
        text: Vec::new(),
        decoded: 0,
        errored: false,
    };
    let written = write_stdout(|out| {
        if inputs.is_empty() {
            decoder.stdin_words(out)
        } else {
            inputs.iter().try_for_each(|input| decoder.one(input, out))
        }
    });
    if let Err(exit) = written {
        return exit;
    }
    match (decoder.errored, decoder.decoded) {
        (true, _) => Exit::Error,
        // Standard input held no word: nothing decoded, as a search that finds nothing.
        (false, 0) => Exit::NotFound,
        (false, _) => Exit::Found,
    }
}

/// `decode`'s settings and what it has met so far.
struct Decoder {
    json: bool,
    color: bool,
    /// One ID's output, reused.
    text: Vec<u8>,
    decoded: usize,
    errored: bool,
}

impl Decoder {
    /// Decodes the blank-separated words of standard input as they come, a line at a time,
    /// so that a pipe that stays open (`tail -f`) gets its answers and memory stays flat.
    /// A word that is not UTF-8 is reported like any other invalid ID, and a failed read
    /// like an unreadable input.
    fn stdin_words(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let mut stdin = io::stdin().lock();
        let mut line = Vec::new();
        loop {
            line.clear();
            match stdin.read_until(b'\n', &mut line) {
                Ok(0) => return Ok(()),
                Ok(_) => {}
                Err(e) => {
                    report(&format!("standard input: {}", source::io_reason(&e)));
                    self.errored = true;
                    return Ok(());
                }
            }
            for word in line
                .split(u8::is_ascii_whitespace)
                .filter(|w| !w.is_empty())
            {
                self.one(&String::from_utf8_lossy(word), out)?;
            }
            out.flush()?;
        }
    }

    /// Prints what `input` holds, or reports why it is not an ID.
    fn one(&mut self, input: &str, out: &mut dyn Write) -> io::Result<()> {
        let decoded = match crate::id::parse(input) {
            Ok(parsed) => output::Decoded::new(input, parsed),
            Err(e) => {
                self.errored = true;
                report(&format!(
                    "{input:?}: {e}; accepted forms: {}",
                    crate::id::ACCEPTED_FORMS
                ));
                return Ok(());
            }
        };
        let text = &mut self.text;
        text.clear();
        if self.json {
            serde_json::to_writer(&mut *text, &decoded)
                .expect("writing JSON to memory cannot fail");
            text.push(b'\n');
        } else {
            if self.decoded > 0 {
                text.push(b'\n');
            }
            decoded.write_text(text, self.color);
        }
        self.decoded += 1;
        out.write_all(text)
    }
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
                output::withheld_lines(&outcome, "matching line")
            ),
            error: false,
        })
    }
}

/// Runs `work` on every input on `threads` threads, each thread with its own state made by
/// `init`; returns the states, and the notices with their input's index, in input order.
pub fn scan_all<S: Send>(
    inputs: &[Input],
    threads: usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize, &Input) -> Option<Notice> + Sync,
) -> (Vec<S>, Vec<(usize, Notice)>) {
    // Largest first, so that no thread is left with a big file while the others wait.
    let mut queue: Vec<usize> = (0..inputs.len()).collect();
    queue.sort_by_cached_key(|&i| std::cmp::Reverse(source::size(&inputs[i])));
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
