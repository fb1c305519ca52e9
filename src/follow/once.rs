//! Compressed files that appear while following: a rotation's product of a known file (its
//! decompressed first bytes are that file's) is not read; any other is searched once its
//! stream reads to its end, or as far as it reads when it is damaged or when idgrep ends.

use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{Follower, file};

/// A compressed file that is no rotation's product is looked at once it has stayed as it is
/// this long: a compressor writes on while it works, and each look reads the stream whole.
const SETTLE: Duration = Duration::from_millis(500);

/// After a look that found the stream still short, the next waits this many times as long as
/// that look took (when longer than [`SETTLE`]): a compressor that pauses every second for
/// hours makes each look longer, and with looks at every pause the CPU they took grew with the
/// square of the stream. So looks take at most about a tenth of the time.
const LOOK_SPACING: u32 = 9;

/// What a look at a compressed file that appeared found.
enum Verdict {
    /// It begins as a known file: a rotation's product, not read.
    Product,
    /// Its first bytes are too few yet to tell.
    Undecided,
    /// Something else: searched once its stream is whole.
    New,
}

impl Follower<'_> {
    /// A compressed file that appeared while following: a rotation's product when its
    /// decompressed first bytes are a known file's (not read), else searched once its stream
    /// reads to its end, after it has stayed as it is for [`SETTLE`]. A damaged stream is
    /// searched as far as it reads and reported; one that ends early is waited for (it is
    /// still being written), however long it pauses, until [`Follower::finish_once`].
    pub(super) fn examine_once(&mut self, path: &Path) {
        let Ok(meta) = self.stat(path) else {
            self.waiting_once.remove(path);
            return;
        };
        let identity = file::identity(&meta);
        if self.once.contains(&identity) {
            self.waiting_once.remove(path);
            return;
        }
        match self.verdict(path) {
            Verdict::Product => {
                self.once.insert(identity);
                self.waiting_once.remove(path);
                return;
            }
            Verdict::Undecided => {
                // Looked at again when it changes: a stale next look would be due at every
                // turn of the loop, which then never slept.
                self.waiting_once.insert(path.to_path_buf(), None);
                return;
            }
            Verdict::New => {}
        }
        let stamp = Stamp::of(&meta);
        let now = Instant::now();
        match self.waiting_once.get(path) {
            Some(Some(settling)) if settling.stamp == stamp => {
                if settling.next_look.is_none_or(|at| now < at) {
                    return;
                }
            }
            other => {
                let last_look = other
                    .copied()
                    .flatten()
                    .map_or(Duration::ZERO, |s| s.last_look);
                let settling = Settling {
                    stamp,
                    next_look: Some(now + SETTLE.max(last_look * LOOK_SPACING)),
                    last_look,
                };
                self.waiting_once.insert(path.to_path_buf(), Some(settling));
                return;
            }
        }
        let look = Instant::now();
        match file::stream_end(path) {
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                // Looked at again when it changes.
                let settling = Settling {
                    stamp,
                    next_look: None,
                    last_look: look.elapsed(),
                };
                self.waiting_once.insert(path.to_path_buf(), Some(settling));
            }
            // Whole, or damaged: the search reports what stops it.
            _ => self.search_once(path, identity),
        }
    }

    /// What the compressed file at `path` is, by its decompressed first bytes. A UTF-8 byte
    /// order mark, which decompression leaves out, is put back for the comparison: the known
    /// files' first bytes were read as they are.
    fn verdict(&self, path: &Path) -> Verdict {
        let head = file::decompressed_head(path).unwrap_or_default();
        if head.is_empty() {
            return Verdict::New;
        }
        let with_mark = [&[0xef, 0xbb, 0xbf][..], &head].concat();
        let mut verdict = Verdict::New;
        for progress in self.known() {
            for head in [&head, &with_mark] {
                match progress.copied_into(head) {
                    Some(true) => return Verdict::Product,
                    None => verdict = Verdict::Undecided,
                    Some(false) => {}
                }
            }
        }
        verdict
    }

    fn search_once(&mut self, path: &Path, identity: file::Identity) {
        self.once.insert(identity);
        self.waiting_once.remove(path);
        let raw_head = file::first_bytes(path, 8).unwrap_or_default();
        self.read_whole(path, &raw_head);
    }

    /// The compressed files waiting whose time to be looked at has come.
    pub(super) fn due_once(&mut self, now: Instant) {
        let due: Vec<PathBuf> = self
            .waiting_once
            .iter()
            .filter(|(_, settling)| {
                settling
                    .and_then(|s| s.next_look)
                    .is_some_and(|at| at <= now)
            })
            .map(|(path, _)| path.clone())
            .collect();
        for path in due {
            self.examine_once(&path);
        }
    }

    /// The end: a compressed file still waiting is searched as it is, as far as it reads (what
    /// stops it reported), unless it is a rotation's product or too short yet to tell.
    pub(super) fn finish_once(&mut self) {
        let waiting: Vec<PathBuf> = self.waiting_once.keys().cloned().collect();
        for path in waiting {
            let Ok(meta) = self.stat(&path) else {
                continue;
            };
            let identity = file::identity(&meta);
            if !self.once.contains(&identity) && matches!(self.verdict(&path), Verdict::New) {
                self.search_once(&path, identity);
            }
        }
    }
}

/// A file's size and modification time: what changes while it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp(u64, Option<std::time::SystemTime>);

impl Stamp {
    fn of(meta: &Metadata) -> Stamp {
        Stamp(meta.len(), meta.modified().ok())
    }
}

/// A compressed file that is no rotation's product, as it was last seen, when it is next
/// looked at (`None`: when it changes), and how long the last look at it took.
#[derive(Clone, Copy, Debug)]
pub(super) struct Settling {
    stamp: Stamp,
    pub(super) next_look: Option<Instant>,
    last_look: Duration,
}
