//! `idgrep index --status`: how much of a tree, or of a directory under it, an index covers,
//! without changing anything.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::path::{Path, PathBuf};

use super::fingerprint::{self, Freshness};
use super::load_manifest;
use super::lookup::reads_whole;
use crate::source::{self, Input, WalkOptions};

/// How fresh an index is for the files under its root now.
#[derive(Debug, Default)]
pub struct Status {
    pub dir: PathBuf,
    pub root: PathBuf,
    /// What was looked at: the root, or a path under it (the counts are for its files only).
    pub scope: PathBuf,
    /// Files whose postings hold as they are.
    pub fresh: usize,
    /// Files whose indexed part holds and that have grown since: their new bytes are read.
    pub grown: usize,
    /// Indexed files that changed otherwise: read whole.
    pub changed: usize,
    /// Files the index does not know: read whole.
    pub new: usize,
    /// Indexed files that are gone.
    pub removed: usize,
    /// Bytes covered by postings that hold.
    pub indexed_bytes: u64,
    /// Bytes every search reads: files read whole (changed, new, binary, small and grown,
    /// compressed and grown) and the new tails of the others.
    pub unindexed_bytes: u64,
    /// Paths the walk could not read (`PATH: reason`): they are not counted.
    pub problems: Vec<String>,
    /// Bytes of the index's own files.
    pub index_bytes: u64,
    pub updated_secs: i64,
}

/// The status of the index in `dir`, built for `root`, for the files under `scope` (`root`
/// or a path under it): `Ok(None)` when there is none.
pub fn status(dir: &Path, root: &Path, scope: &Path) -> Result<Option<Status>, String> {
    let manifest = match load_manifest(dir) {
        Ok(Some(m)) => m,
        Ok(None) => return Ok(None),
        Err(d) => return Err(format!("index {}: {d}", dir.display())),
    };
    if manifest.root != root {
        return Err(format!(
            "index {}: built for {}",
            dir.display(),
            manifest.root.display()
        ));
    }
    let mut s = Status {
        dir: dir.to_path_buf(),
        root: root.to_path_buf(),
        scope: scope.to_path_buf(),
        updated_secs: manifest.updated_secs,
        ..Status::default()
    };
    s.index_bytes = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    let by_inode: HashMap<(u64, u64), usize> = manifest
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| ((f.fingerprint.dev, f.fingerprint.ino), i))
        .collect();
    let mut present = HashSet::new();
    for input in source::walk(&[scope.to_path_buf()], &WalkOptions::default())? {
        let path = match input {
            Input::File(path) => path,
            Input::Error(path, reason) => {
                s.problems.push(format!("{}: {reason}", path.display()));
                continue;
            }
            Input::Stdin => continue,
        };
        let meta = match fs::metadata(&path) {
            Ok(meta) => meta,
            Err(e) => {
                s.problems
                    .push(format!("{}: {}", path.display(), source::io_reason(&e)));
                continue;
            }
        };
        if !meta.is_file() {
            continue;
        }
        let stat = fingerprint::stat_of(&meta);
        let Some(&i) = by_inode.get(&(stat.dev, stat.ino)) else {
            s.new += 1;
            s.unindexed_bytes += stat.len;
            continue;
        };
        if !present.insert(i) {
            continue;
        }
        let entry = &manifest.files[i];
        let freshness = fingerprint::check(&entry.fingerprint, entry.indexed, &stat, || {
            File::open(&path)
        });
        if freshness == Freshness::Changed {
            s.changed += 1;
        } else if stat.len > entry.fingerprint.len {
            s.grown += 1;
        } else {
            s.fresh += 1;
        }
        if reads_whole(entry, freshness, stat.len) {
            s.unindexed_bytes += stat.len;
        } else {
            s.indexed_bytes += entry.indexed;
            s.unindexed_bytes += stat.len - entry.indexed;
        }
    }
    // Gone: indexed under the scope, and not found there nor (renamed) anywhere else in it.
    s.removed = (manifest.files.iter().enumerate())
        .filter(|&(i, f)| f.path.starts_with(scope) && !present.contains(&i))
        .count();
    Ok(Some(s))
}
