//! `idgrep timeline`: the export file is created first, the timeline built by
//! [`crate::timeline`], then written by [`crate::output::timeline`] to stdout or the file.

use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::Arc;

use crate::config::{Destination, TimelineConfig};
use crate::exit::{Exit, report};
use crate::output::timeline as render;
use crate::source::{self, Input};
use crate::timeline;
use crate::writer;

pub fn run(config: TimelineConfig) -> Exit {
    let mut inputs = match super::distinct_inputs(&config.input) {
        Ok(inputs) => inputs,
        Err(exit) => return exit,
    };
    // The export file is created before anything is read, as a shell redirection would be:
    // a path that cannot be written fails at once, not after a long scan. Creating it
    // empties it, so it must not be one of the logs; an earlier export that the walk met
    // again in a searched directory is left out of the inputs, so that a second run reads
    // what the first read.
    if let Destination::File(path) = &config.destination
        && let Some(at) = inputs.iter().position(|input| match input {
            Input::File(log) => same_file::is_same_file(log, path).unwrap_or(false),
            _ => false,
        })
    {
        let named = config
            .input
            .paths
            .iter()
            .any(|p| same_file::is_same_file(p, path).unwrap_or(false));
        if named || !earlier_export(path) {
            report(&format!(
                "{}: -o names one of the logs to read; choose another file",
                path.display()
            ));
            return Exit::Error;
        }
        report(&format!("{}: an earlier export, not read", path.display()));
        inputs.remove(at);
    }
    let export = match &config.destination {
        Destination::File(path) => match std::fs::File::create(path) {
            Ok(file) => Export::File(path, file),
            Err(e) => return export_failed(path, &e),
        },
        Destination::Stdout { width } => Export::Stdout { width: *width },
    };
    // Every hop reads the inputs again; standard input can be read once, so it is kept.
    let stdin = if config.query.hops > 0 && inputs.contains(&Input::Stdin) {
        let mut data = Vec::new();
        if let Err(e) = io::stdin().read_to_end(&mut data) {
            report(&format!(
                "{}: {}",
                Input::Stdin.display_name(),
                source::io_reason(&e)
            ));
            return Exit::Error;
        }
        Some(Arc::<[u8]>::from(data))
    } else {
        None
    };
    let settings = config.input.scan_settings(config.progress);
    let index = super::index::open_for(&config.input, &config.index);
    let (timeline, errored) = timeline::build(
        &config.query,
        &settings,
        &inputs,
        stdin.as_ref(),
        index.as_ref(),
    );
    let found = !timeline.lines.is_empty();
    let clock = config.input.clock();
    let written = match export {
        Export::File(path, file) => write_file(path, file, |out| {
            render::write(
                out,
                config.format,
                &timeline,
                &clock,
                &render::Style::default(),
                settings.threads,
            )
        }),
        Export::Stdout { width } => writer::write_stdout(|out| {
            render::write(
                out,
                config.format,
                &timeline,
                &clock,
                &render::Style {
                    color: config.input.color,
                    width,
                },
                settings.threads,
            )
        }),
    };
    // The process ends here: its exit frees the lines and unmaps the index at once, where
    // dropping them freed each line's allocations one by one (40 ms of a `--hops 2` run of
    // 78,000 lines).
    std::mem::forget(timeline);
    std::mem::forget(index);
    Exit::after_report(written, errored, found)
}

/// Where the timeline goes: [`Destination`] with the export file already created.
enum Export<'a> {
    Stdout { width: Option<usize> },
    File(&'a Path, std::fs::File),
}

/// Writes an export to `file`, created at `path`; a failure is reported with the path.
fn write_file(
    path: &Path,
    file: std::fs::File,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), Exit> {
    let mut out = io::BufWriter::new(file);
    let result = write(&mut out).and_then(|()| out.flush());
    result.map_err(|e| export_failed(path, &e))
}

/// Whether the file at `path` begins as an export of this command does (its first 4 KiB).
fn earlier_export(path: &Path) -> bool {
    let mut head = Vec::with_capacity(4096);
    std::fs::File::open(path)
        .and_then(|file| file.take(4096).read_to_end(&mut head))
        .is_ok_and(|_| render::is_export(&head))
}

/// Reports that the export file at `path` could not be created or written.
fn export_failed(path: &Path, e: &io::Error) -> Exit {
    report(&format!("{}: {}", path.display(), source::io_reason(e)));
    Exit::Error
}
