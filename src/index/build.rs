//! `idgrep index`: building an index or bringing it up to date, under the index's lock.
//!
//! Each file the walk finds is matched to its entry by device and inode, so a renamed file
//! keeps its postings. A file not written since is kept as it is; a file whose indexed bytes
//! are unchanged has only its last block and its new bytes read; any other
//! file is read whole under a new file id (the old id's postings are then dead, and dropped
//! at the next merge). The new postings become one new segment; when there are too many
//! segments, or most of the index was read again, all live postings are merged into one.
//! The new manifest is written to a temporary file and renamed into place, and only then are
//! the segments it no longer names removed.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::fingerprint::{self, Freshness, Stat};
use super::format::Damage;
use super::manifest::{FileEntry, FileRef, Layout, Manifest};
use super::read;
use super::segment::{self, Posting, Segment};
use super::spill::{self, Merge, RunDir, Spiller};
use super::{MANIFEST, load_manifest, lock};
use crate::progress::Progress;
use crate::source::{self, Input, WalkOptions};

/// Merge every segment into one once an update would leave more than this many.
const MAX_SEGMENTS: usize = 8;

/// What an update did.
#[derive(Debug, Default)]
pub struct Summary {
    pub files: usize,
    /// Read from the start (new, changed, or the first build).
    pub read_whole: usize,
    /// Only their new bytes read.
    pub appended: usize,
    pub kept: usize,
    pub removed: usize,
    pub bytes_read: u64,
    pub segments: usize,
    /// Files that could not be read: `PATH: reason`.
    pub problems: Vec<String>,
    /// The old index could not be used, and why.
    pub rebuilt_because: Option<String>,
}

enum Task {
    Keep(FileEntry),
    Append(FileEntry, Stat),
    Read(PathBuf, Stat),
}

/// Builds or updates the index in `dir` for the canonical `root`.
pub fn update(dir: &Path, root: &Path, threads: usize, progress: bool) -> Result<Summary, String> {
    fs::create_dir_all(dir).map_err(|e| format!("{}: {}", dir.display(), source::io_reason(&e)))?;
    let _lock = lock(dir)?;
    let mut summary = Summary::default();
    let fresh = || Manifest::empty(root.to_path_buf());
    let old = match load_manifest(dir).and_then(|m| m.map(|m| open_sound(dir, m)).transpose()) {
        Ok(Some(m)) if m.root != root => {
            summary.rebuilt_because = Some(format!("it was built for {}", m.root.display()));
            fresh()
        }
        Ok(Some(sound)) => sound,
        Ok(None) => fresh(),
        Err(damage) => {
            summary.rebuilt_because = Some(damage.to_string());
            fresh()
        }
    };
    let inputs = source::walk(&[root.to_path_buf()], &WalkOptions::default())?;
    let by_inode: HashMap<(u64, u64), &FileEntry> = old
        .files
        .iter()
        .map(|f| ((f.fingerprint.dev, f.fingerprint.ino), f))
        .collect();
    let mut tasks = Vec::new();
    let mut seen_inodes = std::collections::HashSet::new();
    // Indexed files found again, whether kept, continued or read whole: the rest are gone.
    let mut found_again = 0;
    for input in inputs {
        let path = match input {
            Input::File(path) => path,
            Input::Error(path, reason) => {
                summary
                    .problems
                    .push(format!("{}: {reason}", path.display()));
                continue;
            }
            Input::Stdin => continue,
        };
        let meta = match fs::metadata(&path) {
            Ok(m) if m.is_file() => m,
            Ok(_) => continue,
            Err(e) => {
                summary
                    .problems
                    .push(format!("{}: {}", path.display(), source::io_reason(&e)));
                continue;
            }
        };
        let stat = fingerprint::stat_of(&meta);
        if !seen_inodes.insert((stat.dev, stat.ino)) {
            continue; // a hard link to a file already listed
        }
        let task = match by_inode.get(&(stat.dev, stat.ino)) {
            Some(entry) => {
                // A file deleted and written anew may get the freed inode: not found again.
                if stat.birth == entry.fingerprint.birth {
                    found_again += 1;
                }
                let freshness =
                    fingerprint::check(&entry.fingerprint, entry.indexed, &stat, || {
                        File::open(&path)
                    });
                let mut entry = (*entry).clone();
                entry.path = path.clone();
                match (freshness, entry.layout) {
                    (Freshness::Untouched, _) => Task::Keep(entry),
                    (Freshness::Kept, Layout::Blocks) => Task::Append(entry, stat),
                    _ => Task::Read(path, stat),
                }
            }
            None => Task::Read(path, stat),
        };
        tasks.push(task);
    }
    summary.files = tasks.len();
    summary.removed = old.files.len().saturating_sub(found_again);

    let mut next_id = old.next_file_id;
    let ids: Vec<u32> = tasks
        .iter()
        .map(|t| match t {
            Task::Read(..) => {
                let id = next_id;
                next_id = next_id.wrapping_add(1);
                id
            }
            Task::Keep(e) | Task::Append(e, _) => e.id,
        })
        .collect();
    let to_read: u64 = tasks
        .iter()
        .map(|t| match t {
            Task::Read(_, s) => s.len,
            Task::Append(e, s) => s.len - e.indexed,
            Task::Keep(_) => 0,
        })
        .sum();
    let runs_dir = RunDir::new(dir.to_path_buf());
    let shown = Progress::start(progress, Some(to_read));
    let counter = shown.counter().map(|c| &**c);
    let threads = threads.max(1).min(tasks.len().max(1));
    let per_thread = (spill::BUFFER_POSTINGS * 2 / threads).max(1 << 16);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, io::Result<FileEntry>)>> = Mutex::new(Vec::new());
    let bytes_read = AtomicU64::new(0);
    let spilled: Vec<(Vec<PathBuf>, Vec<Posting>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut spiller = Spiller::new(&runs_dir, per_thread);
                    let mut mine = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(task) = tasks.get(index) else { break };
                        let result = run_task(task, ids[index], &mut spiller, counter, &bytes_read);
                        if let Some(r) = result {
                            mine.push((index, r));
                        }
                    }
                    results
                        .lock()
                        .expect("no thread panics holding it")
                        .extend(mine);
                    spiller.finish()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("an index thread panicked"))
            .collect()
    });
    shown.finish();
    summary.bytes_read = bytes_read.load(Ordering::Relaxed);

    let mut results = results.into_inner().expect("no thread panics holding it");
    results.sort_by_key(|(i, _)| *i);
    let mut files: Vec<FileEntry> = Vec::with_capacity(tasks.len());
    let mut read = results.into_iter().peekable();
    for (i, task) in tasks.into_iter().enumerate() {
        match task {
            Task::Keep(entry) => {
                summary.kept += 1;
                files.push(entry);
            }
            Task::Append(..) | Task::Read(..) => {
                let appended = matches!(task, Task::Append(..));
                let Some((j, result)) = read.next() else {
                    continue;
                };
                debug_assert_eq!(i, j);
                match result {
                    Ok(entry) => {
                        if appended {
                            summary.appended += 1;
                        } else {
                            summary.read_whole += 1;
                        }
                        files.push(entry);
                    }
                    Err(e) => summary.problems.push(e.to_string()),
                }
            }
        }
    }

    let mut runs: Vec<PathBuf> = Vec::new();
    let mut memory = Vec::new();
    for (r, m) in spilled {
        runs.extend(r);
        memory.push(m);
    }
    let live: std::collections::HashSet<u32> = files.iter().map(|f| f.id).collect();
    let compact = old.segments.len() + 1 > MAX_SEGMENTS
        || (summary.bytes_read > 0 && summary.read_whole * 2 > summary.files.max(1));
    let mut segments: Vec<FileRef> = Vec::new();
    let stamp = unique_stamp();
    if compact {
        for s in &old.segments {
            match Segment::open(&dir.join(&s.name), s.len, s.table_crc) {
                Ok(seg) => {
                    let mut dumped = Vec::new();
                    let ok = seg.for_each(&mut |p| {
                        if live.contains(&p.file) {
                            dumped.push(p)
                        }
                    });
                    if ok.is_err() {
                        return Err(rebuild_needed(dir, &runs));
                    }
                    runs.push(
                        runs_dir
                            .write_run(dumped.into_iter())
                            .map_err(|e| io_error(dir, &e))?,
                    );
                }
                Err(_) => return Err(rebuild_needed(dir, &runs)),
            }
        }
    } else {
        segments.extend(old.segments.iter().cloned());
    }
    let has_new = !runs.is_empty() || memory.iter().any(|m| !m.is_empty());
    if has_new {
        let name = format!("seg-{stamp}");
        let merge = Merge::new(&runs, memory, |p: &Posting| live.contains(&p.file))
            .map_err(|e| io_error(dir, &e))?;
        let written = segment::write(&dir.join(&name), dir, merge);
        spill::remove_runs(&runs);
        let written = written.map_err(|e| io_error(dir, &e))?;
        segments.push(FileRef {
            name,
            len: written.len,
            table_crc: written.table_crc,
        });
    }
    summary.segments = segments.len();
    let now = now_secs();
    let manifest = Manifest {
        root: root.to_path_buf(),
        next_file_id: next_id,
        built_secs: if old.files.is_empty() && old.segments.is_empty() {
            now
        } else {
            old.built_secs
        },
        updated_secs: now,
        segments,
        files,
    };
    write_manifest(dir, &manifest).map_err(|e| io_error(dir, &e))?;
    remove_unnamed(dir, &manifest);
    Ok(summary)
}

/// `manifest`, once every segment it names is found sound: a damaged one, which a search
/// warns of and scans past, is built anew here rather than kept.
fn open_sound(dir: &Path, manifest: Manifest) -> Result<Manifest, Damage> {
    for s in &manifest.segments {
        Segment::open(&dir.join(&s.name), s.len, s.table_crc)
            .and_then(|segment| segment.verify())
            .map_err(|d| Damage(format!("segment {}: {d}", s.name)))?;
    }
    Ok(manifest)
}

fn run_task(
    task: &Task,
    id: u32,
    spiller: &mut Spiller,
    counter: read::Counter,
    bytes_read: &AtomicU64,
) -> Option<io::Result<FileEntry>> {
    let named = |path: &Path, e: io::Error| {
        io::Error::other(format!("{}: {}", path.display(), source::io_reason(&e)))
    };
    match task {
        Task::Keep(_) => None,
        Task::Append(entry, stat) => {
            bytes_read.fetch_add(stat.len - entry.indexed, Ordering::Relaxed);
            let result = File::open(&entry.path).and_then(|mut file| {
                read::blocks(
                    &entry.path,
                    &mut file,
                    id,
                    stat,
                    Some(entry),
                    spiller,
                    counter,
                )
            });
            Some(result.map_err(|e| named(&entry.path, e)))
        }
        Task::Read(path, stat) => {
            bytes_read.fetch_add(stat.len, Ordering::Relaxed);
            Some(read::whole_file(path, id, stat, spiller, counter).map_err(|e| named(path, e)))
        }
    }
}

fn io_error(dir: &Path, e: &io::Error) -> String {
    format!("{}: {}", dir.display(), source::io_reason(e))
}

fn rebuild_needed(dir: &Path, runs: &[PathBuf]) -> String {
    spill::remove_runs(runs);
    format!(
        "{}: a segment is damaged; remove the directory and run idgrep index again",
        dir.display()
    )
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// A name part no earlier update of this index used.
fn unique_stamp() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{nanos:x}-{}", std::process::id())
}

/// Writes the manifest beside its place, syncs it, and renames it over the old one.
fn write_manifest(dir: &Path, manifest: &Manifest) -> io::Result<()> {
    let tmp = dir.join(format!(".manifest-{}", unique_stamp()));
    let result = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(&manifest.encode())?;
        file.sync_all()?;
        fs::rename(&tmp, dir.join(MANIFEST))?;
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Removes segments the manifest does not name, what a build that stopped half way left, and
/// the block tables (`blocks-*`) of indexes of an earlier format.
fn remove_unnamed(dir: &Path, manifest: &Manifest) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let stray = (name.starts_with("seg-") && !manifest.segments.iter().any(|s| s.name == name))
            || name.starts_with("blocks-")
            || name.starts_with(".manifest-")
            || spill::is_run(&entry.path());
        if stray {
            let _ = fs::remove_file(entry.path());
        }
    }
}
