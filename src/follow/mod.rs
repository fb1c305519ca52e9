//! Following files as they grow (`--tail`): what the paths hold at the start, then every line
//! written to them, once, through rotation, until SIGINT or SIGTERM.
//!
//! - [`watch`] wakes the loop: OS file events (or a poll timer) and signals, on one channel.
//! - [`file`] keeps one file's state: its handle, identity (device and inode), how far it was
//!   read and its first bytes; it tells growth from truncation.
//! - [`lines`] assembles whole lines and holds a partial one until its newline or a quiet
//!   spell.
//! - [`once`] tells what a compressed file that appears is, and searches it once its stream
//!   is whole.
//!
//! This module ties them: it maps event paths to followed files, finds the files and
//! directories that appear, and tells what an appearing file is. A file under a new name
//! with a known identity was renamed (read on from where it stood); one whose first bytes are
//! those of a known file is a copy (copytruncate's `app.log.1`: read on from where the
//! original stood, so a line is neither lost nor printed twice; a copy still being written,
//! shorter than that, shows nothing while its bytes are the original's); a compressed file whose
//! decompressed first bytes are a known file's is a rotation's product, not read; anything
//! else is new and read from its first byte. A file that disappears is read to its end
//! through the handle still open, and kept open a while for late writes.
//!
//! Lines go to a [`Sink`], which searches and prints them.

mod file;
mod lines;
mod once;
mod watch;

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};
use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use file::{Change, Followed, Identity, Progress, Waiting};
use lines::Piece;
use once::Settling;
use watch::{Wake, Wakes};

use crate::source::{self, Input, WalkOptions};

/// How long a file that disappeared (renamed, deleted) is still read for late writes from a
/// process that holds it open.
const GRACE: Duration = Duration::from_secs(10);

/// A file that lost its name is first read this long after, so that its new name, reported
/// by an event of its own, is known by then and its lines are shown under it.
const RENAME_SETTLE: Duration = Duration::from_millis(100);

/// How many states of files that are gone or were truncated are kept, to recognise copies
/// and compressed rotations of them.
const HISTORY: usize = 256;

/// A directory that appears is walked at once and again this long after, for the files
/// created in it before its watch was in place.
const REWALK: Duration = Duration::from_millis(250);

/// What to follow and how.
pub struct Options {
    /// Files and directories; directories are followed recursively.
    pub roots: Vec<PathBuf>,
    pub walk: WalkOptions,
    /// `-a`: no file is binary.
    pub text: bool,
    /// `--poll`: look at every file at this interval instead of waiting for OS events.
    pub poll: Option<Duration>,
}

/// Lines of a followed file, handed to the [`Sink`].
pub struct Batch<'a> {
    /// Whole lines, each ending in `\n`; or one line without its newline
    /// handed on after a quiet spell.
    pub bytes: &'a [u8],
    pub first_line_no: u64,
    /// The file has a NUL byte in its first block: count matching lines, do not print them.
    pub binary: bool,
}

/// Where the follower's lines go.
pub trait Sink {
    /// Lines of the file shown as `path`; returns whether a line was printed.
    fn lines(&mut self, path: &Path, batch: &Batch) -> bool;
    /// A file to read whole, once, and not follow (compressed, UTF-16).
    fn whole(&mut self, path: &Path);
    /// A file that cannot be read: `idgrep: PATH: reason`.
    fn problem(&mut self, path: &Path, reason: &str);
    /// The files present at the start were read; what is written from now on follows.
    fn following(&mut self);
    /// The end of a round of reading: output goes out now. `false`: stop following (`-q`
    /// found a line, or standard output is gone).
    fn flush(&mut self) -> bool;
}

/// Follows until SIGINT or SIGTERM, or until the sink says stop. `Err`: following could not
/// start.
pub fn run(options: Options, sink: &mut dyn Sink) -> Result<(), String> {
    let wakes = match Wakes::new(options.poll.is_none()) {
        Ok(wakes) => wakes,
        Err(reason) => {
            crate::exit::report(&format!(
                "file events are not available ({reason}); polling every 500 ms (--poll MS)"
            ));
            Wakes::new(false)?
        }
    };
    let poll = options
        .poll
        .or_else(|| (!wakes.has_events()).then_some(Duration::from_millis(500)));
    let mut follower = Follower {
        sink,
        globs: Box::new(source::glob_filter(&options.walk.globs)?),
        roots: Vec::new(),
        walk: options.walk,
        text: options.text,
        wakes,
        poll,
        files: BTreeMap::new(),
        detached: Vec::new(),
        history: VecDeque::new(),
        once: HashSet::new(),
        waiting_once: BTreeMap::new(),
        unreadable: HashSet::new(),
        links: HashSet::new(),
        output: file::stdout_identity(),
        rewalk: Vec::new(),
        relook: Vec::new(),
        partial: BTreeSet::new(),
        buf: Vec::new(),
    };
    follower.start(&options.roots)?;
    follower.sink.following();
    follower.follow();
    Ok(())
}

/// A path named on the command line, and how event paths under it are shown.
struct Root {
    /// As given (or as the walk shows it).
    shown: PathBuf,
    is_dir: bool,
    /// The directory watched for it: itself, or a file's parent.
    watched: PathBuf,
    /// `watched` with links resolved (some OSes report events by the real path).
    real: Option<PathBuf>,
    /// What stands for `watched` in shown names (`""` for the implicit `.`).
    prefix: PathBuf,
}

struct Follower<'s> {
    sink: &'s mut dyn Sink,
    globs: Box<dyn Fn(&Path) -> bool>,
    roots: Vec<Root>,
    walk: WalkOptions,
    text: bool,
    wakes: Wakes,
    poll: Option<Duration>,
    /// Followed files by the name they are shown by.
    files: BTreeMap<PathBuf, Followed>,
    /// Files that lost their name, with when the grace period ends.
    detached: Vec<(Followed, Instant)>,
    /// Where files stood that were truncated or are gone.
    history: VecDeque<Progress>,
    /// Files read whole once, or known as a rotation's product: never read again.
    once: HashSet<Identity>,
    /// Compressed files that appeared and are not read yet, with how they were last seen.
    waiting_once: BTreeMap<PathBuf, Option<Settling>>,
    /// Files reported as unreadable (once each, until they can be read).
    unreadable: HashSet<PathBuf>,
    /// Followed files watched through their symbolic link (the target may be elsewhere).
    links: HashSet<PathBuf>,
    /// The file standard output writes to, never read.
    output: Option<Identity>,
    rewalk: Vec<(Instant, PathBuf)>,
    /// Waiting copies to look at again in this round: their original was truncated.
    relook: Vec<PathBuf>,
    /// Files whose partial last line waits.
    partial: BTreeSet<PathBuf>,
    buf: Vec<u8>,
}

impl Follower<'_> {
    /// Watches the roots, then reads what they hold; a write while this runs is read once,
    /// by whichever comes later.
    fn start(&mut self, paths: &[PathBuf]) -> Result<(), String> {
        let mut watched_any = false;
        for path in paths {
            let is_dir = path.is_dir();
            let watched = if is_dir {
                path.clone()
            } else {
                match path.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
                    _ => PathBuf::from("."),
                }
            };
            let prefix = if is_dir && self.walk.implicit_cwd {
                PathBuf::new()
            } else {
                watched.clone()
            };
            match self.wakes.watch(&watched, is_dir) {
                Ok(()) => watched_any = true,
                Err(reason) => self.sink.problem(&watched, &reason),
            }
            self.roots.push(Root {
                shown: path.clone(),
                is_dir,
                real: std::fs::canonicalize(&watched).ok(),
                watched,
                prefix,
            });
        }
        if !watched_any && self.wakes.has_events() {
            return Err("nothing to follow: no path could be watched".to_string());
        }
        for input in self.walked(paths) {
            match input {
                Input::File(path) => self.discover(path, true),
                Input::Error(path, reason) => self.sink.problem(&path, &reason),
                Input::Stdin => {}
            }
        }
        Ok(())
    }

    fn follow(&mut self) {
        let mut next_poll = self.poll.map(|every| Instant::now() + every);
        loop {
            if !self.sink.flush() {
                return;
            }
            let deadline = [next_poll, self.next_due()].into_iter().flatten().min();
            let mut touched = Vec::new();
            let mut seen = HashSet::new();
            let mut rescan = false;
            let mut stop = false;
            let mut wake = self.wakes.wait(deadline);
            // Everything that has arrived is handled in one round, each path once.
            let mut budget = 10_000;
            while let Some(w) = wake {
                match w {
                    Wake::Stop => {
                        stop = true;
                        break;
                    }
                    Wake::Rescan => rescan = true,
                    Wake::Paths(paths) => {
                        for path in paths {
                            if let Some(shown) = self.shown(&path)
                                && seen.insert(shown.clone())
                            {
                                touched.push(shown);
                            }
                        }
                    }
                }
                budget -= 1;
                wake = if budget > 0 {
                    self.wakes.next_ready()
                } else {
                    None
                };
            }
            let now = Instant::now();
            if next_poll.is_some_and(|at| at <= now) {
                rescan = true;
                next_poll = self.poll.map(|every| now + every);
            }
            // The stop takes one last look at everything: a file created just before it may
            // have had no event yet (or none at all, polling), and what was written to a
            // followed file before the stop is shown, whether or not its event came first.
            if rescan || stop {
                touched = self.everything();
            }
            // New names first: a file renamed is then found under its new name before its
            // old name is looked at, and goes on there.
            touched.sort_by_key(|path| self.files.contains_key(path));
            for path in touched {
                self.touch(path);
            }
            if stop {
                self.finish();
                return;
            }
            self.drain_detached(Instant::now());
            self.relook_copies();
            self.due_rewalks(Instant::now());
            self.due_once(Instant::now());
            self.flush_partials(Some(Instant::now()));
        }
    }

    /// Looks again at the copies whose original was found truncated (see
    /// [`Follower::shown_before_truncation`]).
    fn relook_copies(&mut self) {
        while let Some(path) = self.relook.pop() {
            self.touch(path);
        }
    }

    /// The end: partial lines are handed on as they are, files gone are read to their end.
    fn finish(&mut self) {
        self.relook_copies();
        self.drain_detached(Instant::now() + GRACE);
        self.relook_copies();
        self.finish_once();
        self.flush_partials(None);
        self.sink.flush();
    }

    /// The earliest time something is due without an event.
    fn next_due(&self) -> Option<Instant> {
        let partial = self
            .partial
            .iter()
            .filter_map(|p| self.files.get(p)?.progress.lines.quiet_due());
        let now = Instant::now();
        let detached = self.detached.iter().flat_map(|(followed, until)| {
            let first_read = *until - GRACE + RENAME_SETTLE;
            let quiet = followed.progress.lines.quiet_due();
            [
                Some(*until),
                (first_read > now).then_some(first_read),
                quiet,
            ]
            .into_iter()
            .flatten()
        });
        let rewalk = self.rewalk.iter().map(|(at, _)| *at);
        let settling = self
            .waiting_once
            .values()
            .flatten()
            .filter_map(|settling| settling.next_look);
        partial.chain(detached).chain(rewalk).chain(settling).min()
    }

    /// Every path worth a look after lost events or at a poll: the walk's files, the files
    /// followed (which may be gone) and those waiting.
    fn everything(&mut self) -> Vec<PathBuf> {
        let roots: Vec<PathBuf> = self.roots.iter().map(|r| r.shown.clone()).collect();
        let mut paths: BTreeSet<PathBuf> = self
            .walked(&roots)
            .into_iter()
            .filter_map(|input| match input {
                Input::File(path) => Some(path),
                _ => None,
            })
            .collect();
        paths.extend(self.files.keys().cloned());
        paths.extend(self.waiting_once.keys().cloned());
        paths.into_iter().collect()
    }

    fn walked(&self, paths: &[PathBuf]) -> Vec<Input> {
        source::walk(paths, &self.walk).unwrap_or_default()
    }

    /// The name an event path is shown by, when it is one of ours.
    fn shown(&self, event: &Path) -> Option<PathBuf> {
        for root in &self.roots {
            let rest = event
                .strip_prefix(&root.watched)
                .ok()
                .or_else(|| event.strip_prefix(root.real.as_ref()?).ok());
            let Some(rest) = rest else { continue };
            if root.is_dir {
                return Some(root.prefix.join(rest));
            }
            if Some(rest.as_os_str()) == root.shown.file_name() {
                return Some(root.shown.clone());
            }
        }
        None
    }

    /// Whether `path` is a root named on the command line (always followed through a link).
    fn is_root(&self, path: &Path) -> bool {
        self.roots.iter().any(|r| r.shown == path)
    }

    /// The metadata of `path` as the walk sees it: links followed for roots and with `-L`.
    fn stat(&self, path: &Path) -> io::Result<Metadata> {
        if self.walk.follow_links || self.is_root(path) {
            std::fs::metadata(path)
        } else {
            std::fs::symlink_metadata(path)
        }
    }

    /// Something happened at `path`.
    fn touch(&mut self, path: PathBuf) {
        if self.files.contains_key(&path) {
            self.check(path);
        } else if self.waiting_once.contains_key(&path) {
            self.examine_once(&path);
        } else {
            match self.stat(&path) {
                // Whatever happened to a directory, it is walked again: one replaced by a new
                // directory of the same name may reuse the old one's inode, and a file written
                // into it before its watch was added sends no event of its own.
                Ok(meta) if meta.is_dir() => {
                    if self.roots.iter().any(|r| r.is_dir) {
                        self.add_dir(path);
                    }
                }
                Ok(meta) if meta.is_file() && self.wanted(&path) => self.discover(path, false),
                Ok(_) => {}
                Err(e) if e.kind() != io::ErrorKind::NotFound && self.wanted(&path) => {
                    // A link that leads nowhere readable (a loop, no permission).
                    if self.unreadable.insert(path.clone()) {
                        self.sink.problem(&path, &source::io_reason(&e));
                    }
                }
                Err(_) => {
                    self.unreadable.remove(&path);
                }
            }
        }
    }

    /// Whether a file at `path` is to be followed: a root, or under a root directory and
    /// chosen by the globs.
    fn wanted(&self, path: &Path) -> bool {
        self.is_root(path)
            || (self
                .roots
                .iter()
                .any(|r| r.is_dir && path.starts_with(&r.prefix))
                && (self.globs)(path))
    }

    /// Something happened to a directory (it appeared, or was made again): the files in it not
    /// followed yet are read from their first byte, now and again after [`REWALK`].
    fn add_dir(&mut self, dir: PathBuf) {
        let at = Instant::now() + REWALK;
        match self.rewalk.iter_mut().find(|(_, pending)| *pending == dir) {
            Some(pending) => pending.0 = at,
            None => self.rewalk.push((at, dir.clone())),
        }
        self.walk_new(&dir);
    }

    fn walk_new(&mut self, dir: &Path) {
        for input in self.walked(&[dir.to_path_buf()]) {
            match input {
                Input::File(path) if !self.files.contains_key(&path) => self.touch(path),
                Input::Error(path, reason) => self.sink.problem(&path, &reason),
                _ => {}
            }
        }
    }

    fn due_rewalks(&mut self, now: Instant) {
        let (due, later): (Vec<_>, Vec<_>) = self.rewalk.drain(..).partition(|(at, _)| *at <= now);
        self.rewalk = later;
        for (_, dir) in due {
            self.walk_new(&dir);
        }
    }

    /// A followed file's name was touched: it grew, was truncated, is gone, or names another
    /// file now.
    fn check(&mut self, path: PathBuf) {
        let Some(mut followed) = self.files.remove(&path) else {
            return;
        };
        match self.stat(&path) {
            Ok(meta) if meta.is_file() && file::identity(&meta) == followed.identity => {
                if self.read(&mut followed) {
                    self.follow_on(path, followed);
                }
            }
            other => {
                // Gone or replaced: what the old file gets last is read through its handle,
                // under its new name if it was renamed to one followed.
                self.detach(followed);
                if other.is_ok_and(|m| m.is_file()) {
                    self.discover(path, false);
                }
            }
        }
    }

    /// A file found at `path`: at the start (`present`), or appearing while following.
    fn discover(&mut self, path: PathBuf, present: bool) {
        let mut followed = match Followed::open(&path, path.clone(), self.text) {
            Ok(followed) => followed,
            Err(e) if e.kind() == io::ErrorKind::NotFound && !present => return,
            Err(e) => {
                if self.unreadable.insert(path.clone()) {
                    self.sink.problem(&path, &source::io_reason(&e));
                }
                return;
            }
        };
        if Some(followed.identity) == self.output {
            // As ripgrep: the file output goes to is not read; followed, it would grow from
            // its own lines without end.
            if self.unreadable.insert(path.clone()) {
                self.sink
                    .problem(&path, "the output goes to this file: not followed");
            }
            return;
        }
        self.unreadable.remove(&path);
        if self.once.contains(&followed.identity) {
            return;
        }
        if let Some(other) = self
            .files
            .iter()
            .find(|(_, f)| f.identity == followed.identity)
            .map(|(p, _)| p.clone())
        {
            // The same file under two names (a hard link, overlapping paths) is followed
            // once; under a new name only, it was renamed.
            if self.still_named(&other, &followed) {
                return;
            }
            let mut moved = self.files.remove(&other).expect("found above");
            moved.shown = path.clone();
            self.partial.remove(&other);
            self.adopt(path, moved);
            return;
        }
        if let Some(at) = self
            .detached
            .iter()
            .position(|(f, _)| f.identity == followed.identity)
        {
            let (mut moved, _) = self.detached.swap_remove(at);
            moved.shown = path.clone();
            self.adopt(path, moved);
            return;
        }
        let head = match followed.read_head() {
            Ok(head) => head,
            Err(e) => {
                self.sink.problem(&path, &source::io_reason(&e));
                return;
            }
        };
        if file::read_once(&head) {
            if present {
                self.once.insert(followed.identity);
                self.read_whole(&path, &head);
            } else {
                self.waiting_once.insert(path.clone(), None);
                self.examine_once(&path);
            }
            return;
        }
        followed.settled = present;
        self.adopt(path, followed);
    }

    /// Follows `followed` under `path` from where it stands.
    fn adopt(&mut self, path: PathBuf, mut followed: Followed) {
        let linked = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        if linked && self.wakes.watch(&path, false).is_ok() {
            self.links.insert(path.clone());
        }
        if self.read(&mut followed) {
            self.follow_on(path, followed);
        }
    }

    /// Goes on following `followed` under `path`, its partial line due after a quiet spell.
    /// Only a file followed under its name has its name in `partial`: a file that lost it
    /// (read through its handle) must not take the entry of the new file there.
    fn follow_on(&mut self, path: PathBuf, followed: Followed) {
        if followed.progress.lines.quiet_due().is_some() {
            self.partial.insert(path.clone());
        } else {
            self.partial.remove(&path);
        }
        self.files.insert(path, followed);
    }

    /// A file read whole once: compressed, or UTF-16 (which is then not followed).
    fn read_whole(&mut self, path: &Path, head: &[u8]) {
        if !crate::source::is_compressed(head) {
            self.sink.problem(
                path,
                "UTF-16 text: searched once as it is now, not followed",
            );
        }
        self.sink.whole(path);
    }

    /// The known file whose copy `copy`, a followed file of `size` bytes starting with
    /// `head`, is: `Some(Some(progress))` a copy, `Some(None)` too early to tell, `None` no
    /// copy. Several known files may begin alike, and one it is no shorter than is its
    /// original only if it holds that file's last bytes read at the same place; one that
    /// stands further is handed back when none does, for [`Follower::behind`] to compare.
    fn copy_of(&self, head: &[u8], copy: &Followed, size: u64) -> Option<Option<Progress>> {
        let mut undecided = false;
        let mut further = None;
        for progress in self.known() {
            match progress.copied_into(head) {
                Some(true) if size >= progress.offset => {
                    if copy.holds_tail_of(progress) {
                        return Some(Some(progress.clone()));
                    }
                }
                Some(true) => {
                    further.get_or_insert(progress);
                }
                None => undecided = true,
                Some(false) => {}
            }
        }
        match further {
            Some(progress) => Some(Some(progress.clone())),
            None => undecided.then_some(None),
        }
    }

    /// Where the files a new file may copy stand: the files followed, those read on through
    /// their handle after losing their name, and those truncated or closed, latest first.
    fn known(&self) -> impl Iterator<Item = &Progress> {
        self.files
            .values()
            .filter(|f| f.settled)
            .map(|f| &f.progress)
            .chain(self.detached.iter().map(|(f, _)| &f.progress))
            .chain(self.history.iter().rev())
    }

    /// Reads the followed files that a new file starting with `head` may be a copy of, and
    /// that only grew, up to their end. A copy goes on from where its original stands, so a
    /// line written before the copy was made is shown once: from the original while it still
    /// holds it, else (the original was truncated first) from the copy, before the original's
    /// new lines.
    fn catch_up_originals(&mut self, head: &[u8]) {
        let originals: Vec<PathBuf> = self
            .files
            .iter()
            .filter(|(path, f)| {
                f.settled
                    && f.progress.copied_into(head) != Some(false)
                    && self.still_named(path, f)
                    && f.only_grew()
            })
            .map(|(path, _)| path.clone())
            .collect();
        for path in originals {
            self.check(path);
        }
    }

    /// Whether `path` still names the file `followed` (not replaced since the last look).
    fn still_named(&self, path: &Path, followed: &Followed) -> bool {
        self.stat(path)
            .is_ok_and(|m| file::identity(&m) == followed.identity)
    }

    /// Reads what `followed` got since the last read and hands it to the sink. `false`: the
    /// file is dropped (unreadable, or compressed after all).
    fn read(&mut self, followed: &mut Followed) -> bool {
        if !followed.settled {
            // Set again only while the file waits (see `behind`).
            let behind = followed.behind.take();
            let head = match followed.read_head() {
                Ok(head) => head,
                Err(e) => {
                    self.sink.problem(&followed.shown, &source::io_reason(&e));
                    return false;
                }
            };
            if head.is_empty() {
                return true;
            }
            if file::read_once(&head) {
                let path = followed.shown.clone();
                self.waiting_once.insert(path.clone(), None);
                self.examine_once(&path);
                return false;
            }
            self.catch_up_originals(&head);
            let size = match followed.size() {
                Ok(size) => size,
                Err(e) => {
                    self.sink.problem(&followed.shown, &source::io_reason(&e));
                    return false;
                }
            };
            match self.copy_of(&head, followed, size) {
                Some(None) => return true,
                Some(Some(progress)) => match self.behind(&head, followed, size, behind) {
                    Behind::Wait(waiting) => {
                        followed.behind = Some(waiting);
                        return true;
                    }
                    // Where the original stood when truncated: a partial line there is
                    // still to show, and the copy may hold its end.
                    Behind::Copied(end) if end == progress.offset => {
                        followed.continue_from(progress);
                    }
                    Behind::Copied(end) => {
                        if let Err(e) = followed.skip_to(end, &mut self.buf) {
                            self.sink.problem(&followed.shown, &source::io_reason(&e));
                            return false;
                        }
                    }
                    // Its original is no longer there to compare with (truncated, closed):
                    // a copy goes on from where the original stood.
                    Behind::New if size >= progress.offset => followed.continue_from(progress),
                    Behind::New => followed.settled = true,
                },
                None => followed.settled = true,
            }
        }
        let shown = followed.shown.clone();
        let sink = &mut *self.sink;
        let result = followed.read_new(&mut self.buf, Instant::now(), &mut |piece, binary| {
            hand_on(sink, &shown, piece, binary)
        });
        match result {
            Ok(Change::Grew) => {}
            Ok(Change::Truncated(before)) => {
                self.shown_before_truncation(followed.identity, before.offset);
                self.remember(before);
            }
            Err(e) => {
                self.sink.problem(&shown, &source::io_reason(&e));
                return false;
            }
        }
        true
    }

    /// What a new file is whose first bytes are a known file's, `size` bytes: a copy still
    /// being written (copytruncate's copy of a large log), a finished copy of a file that
    /// may still grow, or a new file that only begins the same (a banner). Its last bytes are
    /// compared with those of the files it may copy at the same places, followed or read on
    /// through their handle: while they are equal it waits and shows nothing (a finished
    /// copy waits for good), even when it has caught up with where its original stands, for
    /// the copy goes on getting what the original gets until the original is truncated; when
    /// they differ it is new. When no such file can be read any more (its original was
    /// truncated), what its original had shown before its truncation is not shown again.
    /// Read from its start, a copy would print the whole log again. `behind`: what the last
    /// look found, if the file waited.
    fn behind(
        &self,
        head: &[u8],
        followed: &Followed,
        size: u64,
        behind: Option<Waiting>,
    ) -> Behind {
        /// Bytes compared: a new file that begins like a followed one differs within them
        /// as soon as it has lines of its own.
        const SAMPLE: u64 = 4096;
        let from = size.saturating_sub(SAMPLE);
        let Ok(own) = followed.bytes_at(from, (size - from) as usize) else {
            return Behind::New;
        };
        // The cheap tests first: a directory may hold many followed files.
        let may_copy = |f: &Followed| f.progress.copied_into(head) == Some(true);
        let named = self
            .files
            .iter()
            .filter(|(path, f)| f.settled && may_copy(f) && self.still_named(path, f))
            .map(|(_, f)| f);
        let originals = named
            .chain(self.detached.iter().map(|(f, _)| f).filter(|f| may_copy(f)))
            .filter(|f| f.only_grew());
        let mut comparable = false;
        let mut equal: Option<(u64, Identity)> = None;
        for original in originals {
            comparable = true;
            if original.holds_at(from, &own) {
                equal = equal.max(Some((original.progress.offset, original.identity)));
            }
        }
        if let Some((shown, original)) = equal {
            return Behind::Wait(Waiting {
                size,
                shown,
                original,
            });
        }
        match behind {
            // Its original was truncated since its bytes were found equal: what the original
            // has shown is not shown again (read on since, and not yet found truncated, it
            // stands further); what came after is read on.
            Some(w) if !comparable && w.size <= size => {
                let since = self
                    .files
                    .values()
                    .chain(self.detached.iter().map(|(f, _)| f));
                let shown = since
                    .filter(|f| f.identity == w.original && f.progress.offset > w.shown)
                    .map(|f| f.progress.offset)
                    .fold(w.shown, u64::max);
                Behind::Copied(size.min(shown))
            }
            _ => Behind::New,
        }
    }

    /// The file `original` was found truncated, having shown `offset` bytes: a copy of it
    /// that waits goes on from there, not from where the original stood when they were last
    /// found equal. Each such copy is looked at again after this round: a finished copy gets
    /// no event of its own, and holds the lines its original got after it was last read.
    fn shown_before_truncation(&mut self, original: Identity, offset: u64) {
        for (path, followed) in &mut self.files {
            if let Some(w) = followed.behind.as_mut().filter(|w| w.original == original) {
                w.shown = w.shown.max(offset);
                self.relook.push(path.clone());
            }
        }
    }

    fn remember(&mut self, progress: Progress) {
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(progress);
    }

    /// A followed file lost its name: read on for a while through its handle.
    fn detach(&mut self, followed: Followed) {
        if self.links.remove(&followed.shown) {
            self.wakes.unwatch(&followed.shown);
        }
        self.partial.remove(&followed.shown);
        self.detached.push((followed, Instant::now() + GRACE));
    }

    /// Reads the files that lost their name; those past their grace period are closed.
    fn drain_detached(&mut self, now: Instant) {
        let detached = std::mem::take(&mut self.detached);
        for (mut followed, until) in detached {
            if now < until - GRACE + RENAME_SETTLE {
                self.detached.push((followed, until));
                continue;
            }
            let kept = self.read(&mut followed) && now < until;
            // A partial last line is due after its quiet spell, as under a name, and is
            // handed on as it is when the file is closed.
            let path = followed.shown.clone();
            flush_partial(&mut *self.sink, &path, &mut followed, kept.then_some(now));
            if kept {
                self.detached.push((followed, until));
            } else {
                self.remember(followed.progress);
            }
        }
    }

    /// Hands on the partial lines that waited long enough (all of them when `now` is `None`).
    fn flush_partials(&mut self, now: Option<Instant>) {
        let paths: Vec<PathBuf> = match now {
            Some(_) => self.partial.iter().cloned().collect(),
            None => self.files.keys().cloned().collect(),
        };
        for path in paths {
            let Some(followed) = self.files.get_mut(&path) else {
                self.partial.remove(&path);
                continue;
            };
            flush_partial(&mut *self.sink, &path, followed, now);
            if followed.progress.lines.quiet_due().is_none() {
                self.partial.remove(&path);
            }
        }
    }
}

/// What [`Follower::behind`] found a new file to be.
enum Behind {
    /// Equal so far to a file that stands further: a copy, maybe still written.
    Wait(Waiting),
    /// A copy whose first this many bytes were shown from its original.
    Copied(u64),
    /// Not a copy: read from its first byte.
    New,
}

/// Hands on the partial line of `followed` if it waited long enough (`now` `None`: anyway).
fn flush_partial(sink: &mut dyn Sink, path: &Path, followed: &mut Followed, now: Option<Instant>) {
    let binary = followed.progress.binary;
    followed
        .progress
        .lines
        .flush_quiet(now, &mut |piece| hand_on(sink, path, piece, binary));
}

/// Hands the lines of `piece`, from the file shown as `path`, to `sink`.
fn hand_on(sink: &mut dyn Sink, path: &Path, piece: &Piece, binary: bool) -> bool {
    sink.lines(
        path,
        &Batch {
            bytes: piece.bytes,
            first_line_no: piece.first_line_no,
            binary,
        },
    )
}
