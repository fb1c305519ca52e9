//! `idgrep index PATH...`: builds or updates the index of each path, or with `--status`
//! tells how fresh it is; and the index's part in the commands that search
//! ([`open_for`], [`candidates`]), which fall back to a scan with one warning line when the
//! index cannot be used.

use std::io::{self, Write};

use crate::config::{IndexConfig, IndexUse, InputConfig};
use crate::exit::{Exit, report};
use crate::index::{self, Candidates, Index, Status, Summary};
use crate::writer;

pub fn run(config: IndexConfig) -> Exit {
    let Some(base) = index::base_dir(config.dir.as_deref()) else {
        report(
            "no directory for the index: give --index-dir DIR, or set IDGREP_INDEX_DIR, \
             XDG_CACHE_HOME or HOME",
        );
        return Exit::Error;
    };
    let mut errored = false;
    let mut found = false;
    // Reports go out as each path is done; a closed pipe ends none of the work.
    let mut written = Ok(());
    let mut status_shown = false;
    for path in &config.paths {
        let root = match path.canonicalize() {
            Ok(root) => root,
            Err(e) => {
                report(&format!(
                    "{}: {}",
                    path.display(),
                    crate::source::io_reason(&e)
                ));
                errored = true;
                continue;
            }
        };
        if config.status {
            // The index a search of the path would use, which may be a directory's above it.
            let covering = match index::covering(&base, &root) {
                Ok(covering) => covering,
                Err((dir, e)) => {
                    report(&format!(
                        "index {}: {}",
                        dir.display(),
                        crate::source::io_reason(&e)
                    ));
                    errored = true;
                    continue;
                }
            };
            let status = covering.map_or(Ok(None), |(dir, index_root)| {
                index::status(&dir, &index_root, &root)
            });
            match status {
                Ok(Some(status)) => {
                    found = true;
                    for problem in &status.problems {
                        report(problem);
                        errored = true;
                    }
                    // Several paths' blocks are told apart by a blank line.
                    let after_another = std::mem::replace(&mut status_shown, true);
                    keep_first_error(&mut written, |out| {
                        if after_another {
                            writeln!(out)?;
                        }
                        write_status(out, &status)
                    });
                }
                Ok(None) => keep_first_error(&mut written, |out| {
                    // The command that builds it, in the directory the user named.
                    let dir_flag = config.dir.as_ref().map_or(String::new(), |dir| {
                        format!("--index-dir {} ", dir.display())
                    });
                    writeln!(
                        out,
                        "{}: no index (idgrep index {dir_flag}{} builds one)",
                        root.display(),
                        path.display()
                    )
                }),
                Err(e) => {
                    report(&e);
                    errored = true;
                }
            }
            continue;
        }
        let dir = index::dir_for(&base, &root);
        match index::update(&dir, &root, config.threads, config.progress) {
            Ok(summary) => {
                found = true;
                if let Some(why) = &summary.rebuilt_because {
                    report(&format!("index {}: {why}; built anew", dir.display()));
                }
                for problem in &summary.problems {
                    report(problem);
                    errored = true;
                }
                keep_first_error(&mut written, |out| {
                    write_summary(out, &root, &dir, &summary)
                });
            }
            Err(e) => {
                report(&e);
                errored = true;
            }
        }
    }
    Exit::after_report(written, errored, found || !config.status)
}

/// Writes one path's report to stdout, keeping the first failure to write in `written`.
fn keep_first_error(
    written: &mut Result<(), Exit>,
    report: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) {
    let now = writer::write_stdout(report);
    if written.is_ok() {
        *written = now;
    }
}

fn write_summary(
    out: &mut dyn Write,
    root: &std::path::Path,
    dir: &std::path::Path,
    s: &Summary,
) -> io::Result<()> {
    writeln!(
        out,
        "{}: {} files indexed ({} read whole, {} read from their indexed end, {} unchanged, {} gone), {} read; index in {}",
        root.display(),
        s.files,
        s.read_whole,
        s.appended,
        s.kept,
        s.removed,
        bytes(s.bytes_read),
        dir.display()
    )
}

fn write_status(out: &mut dyn Write, s: &Status) -> io::Result<()> {
    let files = s.fresh + s.grown + s.changed + s.new;
    let age = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
        - s.updated_secs;
    writeln!(out, "root     {}", s.root.display())?;
    if s.scope != s.root {
        writeln!(
            out,
            "path     {} (the counts are for this path only)",
            s.scope.display()
        )?;
    }
    writeln!(out, "index    {}", s.dir.display())?;
    writeln!(
        out,
        "files    {files}: {} fresh, {} grown (new bytes read), {} changed and {} new (read whole); {} gone",
        s.fresh, s.grown, s.changed, s.new, s.removed
    )?;
    writeln!(
        out,
        "bytes    {} covered, {} read by every search",
        bytes(s.indexed_bytes),
        bytes(s.unindexed_bytes)
    )?;
    // The index is the whole root's: a share of one directory's bytes would mislead.
    let share = if s.indexed_bytes > 0 && s.scope == s.root {
        format!(
            " ({:.1}% of the covered bytes)",
            s.index_bytes as f64 * 100.0 / s.indexed_bytes as f64
        )
    } else {
        String::new()
    };
    writeln!(out, "size     {}{share}", bytes(s.index_bytes))?;
    writeln!(out, "updated  {} ago", duration(age.max(0)))
}

fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn duration(secs: i64) -> String {
    match secs {
        s if s < 120 => format!("{s}s"),
        s if s < 7200 => format!("{}m", s / 60),
        s if s < 172_800 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// The index that covers the inputs, if one is to be used; an unusable one is reported in
/// one line and left aside.
pub fn open_for(input: &InputConfig, using: &IndexUse) -> Option<Index> {
    if !using.enabled || input.paths.is_empty() || input.paths.iter().any(|p| p.as_os_str() == "-")
    {
        return None;
    }
    let base = index::base_dir(using.dir.as_deref())?;
    match Index::find(&base, &input.paths) {
        Ok(found) => found,
        Err(warning) => {
            report(&warning);
            None
        }
    }
}

/// The postings of `keys` ([`index::keys_of`]) for a search; a damaged index is reported in
/// one line and left aside.
pub fn candidates(index: &Index, keys: Vec<u64>, threads: usize) -> Option<Candidates<'_>> {
    match index.candidates(keys, threads, index::SEARCH_RANGE_COST) {
        Ok(c) => Some(c),
        Err(warning) => {
            report(&warning);
            None
        }
    }
}
