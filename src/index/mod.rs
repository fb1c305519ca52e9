//! The persistent ID index: which blocks of which files may mention an ID, so that a search
//! reads those instead of every byte. It only prunes: every candidate block is read by the
//! normal scanner, which prints its own lines, and every file the index cannot vouch for is
//! read whole. Output with the index is byte-identical to output without it.
//!
//! An index lives in a directory of its own, under the cache directory (`--index-dir`, else
//! `$IDGREP_INDEX_DIR`, else `$XDG_CACHE_HOME/idgrep`, else `~/.cache/idgrep`), named after
//! the canonical root it was built for. It holds:
//! - `manifest` ([`manifest`]): the files, each with its fingerprint ([`fingerprint`]), and
//!   the segments; replaced whole by rename;
//! - `seg-*` ([`segment`]): immutable sorted postings, ID key -> (file, block, the block's
//!   first line), with chunk checksums;
//! - `lock`: held by a build ([`build`]) for its whole run.
//!
//! [`read`] reads one log into postings, [`spill`] keeps a build's memory bounded, and
//! [`lookup`] answers a search, and [`ranges`] reads what it names, with [`readahead`] asking
//! for a file's parts at once when they are on disk; [`status`] tells how fresh an index is.

mod build;
mod checked;
mod fingerprint;
mod format;
mod lookup;
mod manifest;
mod ranges;
mod read;
mod readahead;
mod segment;
mod spill;
mod status;

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

pub use build::{Summary, update};
pub use lookup::{Candidates, Index, Plan, Range, SEARCH_RANGE_COST, TIMELINE_RANGE_COST, keys_of};
pub use ranges::{Held, RangeBytes, Walk, find_from_start, last_before, open_range};
pub use status::{Status, status};

use format::Damage;
use manifest::Manifest;

/// The environment variable that names the directory indexes live in.
pub const ENV_DIR: &str = "IDGREP_INDEX_DIR";
const MANIFEST: &str = "manifest";

/// Where indexes live: the flag's directory, else the environment's, else the user's cache.
pub fn base_dir(flag: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = flag {
        return Some(dir.to_path_buf());
    }
    if let Some(dir) = std::env::var_os(ENV_DIR).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    if let Some(cache) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        let cache = PathBuf::from(cache);
        if cache.is_absolute() {
            return Some(cache.join("idgrep"));
        }
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|home| PathBuf::from(home).join(".cache").join("idgrep"))
}

/// The index a search of the canonical `path` uses: the one built for `path`, else for the
/// nearest directory above it, as (its directory, its root). `Ok(None)`: there is none.
/// `Err`: an index directory that cannot be searched (no permission), which may hold one.
pub fn covering(
    base: &Path,
    path: &Path,
) -> Result<Option<(PathBuf, PathBuf)>, (PathBuf, io::Error)> {
    for root in path.ancestors() {
        let dir = dir_for(base, root);
        match dir.join(MANIFEST).try_exists() {
            Ok(true) => return Ok(Some((dir, root.to_path_buf()))),
            Ok(false) => {}
            Err(e) => return Err((dir, e)),
        }
    }
    Ok(None)
}

/// The directory of the index for the canonical `root`: its last name, for people looking
/// at the cache, and a hash of the whole path, so that two roots never share one.
pub fn dir_for(base: &Path, root: &Path) -> PathBuf {
    let text = root.to_string_lossy();
    let bytes = text.as_bytes();
    let hash = u128::from(crc32fast::hash(bytes))
        | u128::from(crc32fast::hash(
            &bytes.iter().rev().copied().collect::<Vec<_>>(),
        )) << 32
        | (bytes.len() as u128) << 64;
    let name: String = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "root".to_string())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    base.join(format!("{name}-{:016x}", format::key_of(hash)))
}

/// Reads the manifest of the index in `dir`: `None` if there is none.
fn load_manifest(dir: &Path) -> Result<Option<Manifest>, Damage> {
    match fs::read(dir.join(MANIFEST)) {
        Ok(bytes) => Manifest::decode(&bytes).map(Some),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Damage(crate::source::io_reason(&e))),
    }
}

/// Takes the index's lock, which a build holds alone: another build waits for it to finish.
/// A search takes none: the manifest it reads is replaced whole by a rename, and the segments
/// it names are removed only once a new manifest no longer names them.
fn lock(dir: &Path) -> Result<File, String> {
    let path = dir.join("lock");
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("{}: {}", path.display(), crate::source::io_reason(&e)))?;
    file.lock()
        .map_err(|e| format!("{}: {}", path.display(), crate::source::io_reason(&e)))?;
    Ok(file)
}
