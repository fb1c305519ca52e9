//! Compressed files that appear while following: what they are is decided once their stream
//! reads to its end (a rotation's product of a known file, not read, or a new file, searched
//! once); a damaged stream is reported, one that stops short is waited for while it changes.

use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{Follower, file};
use crate::source;

/// A compressed file that appears is read once it has stayed as it is this long (a compressor
/// writes on while it works, and its stream is read whole each time it is looked at).
const SETTLE: Duration = Duration::from_millis(500);

/// A compressed file whose stream still ends early after it has stayed as it is this long is
/// damaged, not being written: it is read as far as it goes, and its error reported.
const STALLED: Duration = Duration::from_secs(10);

impl Follower<'_> {
    /// A compressed file that appeared while following, once its stream reads to its end: a
    /// rotation's product when it begins as a known file and, where it is as long as that file
    /// stood, holds the last bytes read from it at the same place (not read; a shorter one
    /// cannot be compared further); else read whole. It is looked at once it has stayed as it
    /// is for [`SETTLE`]; a damaged stream is reported; one that ends early is waited for while
    /// it changes, then read as far as it goes (see [`STALLED`]).
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
        let stamp = Stamp::of(&meta);
        let now = Instant::now();
        let waiting = match self.waiting_once.get(path) {
            Some(Some(waiting)) if waiting.stamp == stamp => *waiting,
            _ => {
                let since = now;
                let next_look = now + SETTLE;
                let waiting = Settling {
                    stamp,
                    since,
                    next_look,
                };
                self.waiting_once.insert(path.to_path_buf(), Some(waiting));
                return;
            }
        };
        if now < waiting.next_look {
            return;
        }
        let stalled = now >= waiting.since + STALLED;
        let head = file::decompressed_head(path).unwrap_or_default();
        // Every known file it may be a copy of, with where that file stood and its last bytes.
        let originals: Vec<(u64, u64, Vec<u8>)> = self
            .known()
            .filter(|progress| !head.is_empty() && progress.copied_into(&head) != Some(false))
            .map(|progress| {
                let (from, tail) = progress.tail_window();
                (progress.offset, from, tail.to_vec())
            })
            .collect();
        let windows: Vec<(u64, &[u8])> = originals
            .iter()
            .map(|(_, from, tail)| (*from, tail.as_slice()))
            .collect();
        let product = match file::stream_holds(path, &windows) {
            Ok((len, holds)) => Some(
                originals
                    .iter()
                    .zip(holds)
                    .any(|((offset, _, _), held)| held || len < *offset),
            ),
            Err(e) if e.kind() != io::ErrorKind::UnexpectedEof || stalled => {
                // Damaged: what it holds of a known file was shown from that file.
                if !originals.is_empty() {
                    self.sink.problem(path, &source::io_reason(&e));
                }
                Some(!originals.is_empty())
            }
            Err(_) => None,
        };
        match product {
            Some(product) => {
                self.once.insert(identity);
                self.waiting_once.remove(path);
                if !product {
                    let raw_head = file::first_bytes(path, 8).unwrap_or_default();
                    self.read_whole(path, &raw_head);
                }
            }
            None => {
                let next_look = waiting.since + STALLED;
                let waiting = Settling {
                    next_look,
                    ..waiting
                };
                self.waiting_once.insert(path.to_path_buf(), Some(waiting));
            }
        }
    }

    /// The compressed files waiting whose time to be looked at has come.
    pub(super) fn due_stalled(&mut self, now: Instant) {
        let due: Vec<PathBuf> = self
            .waiting_once
            .iter()
            .filter(|(_, waiting)| waiting.is_some_and(|w| w.next_look <= now))
            .map(|(path, _)| path.clone())
            .collect();
        for path in due {
            self.examine_once(&path);
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

/// A compressed file waiting: as it was last seen, since when it has stayed so, and when it
/// is next looked at.
#[derive(Clone, Copy, Debug)]
pub(super) struct Settling {
    stamp: Stamp,
    since: Instant,
    pub(super) next_look: Instant,
}
