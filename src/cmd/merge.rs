//! `idgrep merge`: reads the results, tells their kind, leaves out (and reports) those that
//! cannot be read or are of another kind than the first, merges the rest with
//! [`crate::merge`], prints them as `ids`, a search or a timeline would, and decides the exit
//! status.

use std::io::Read;
use std::path::Path;

use crate::config::{MergeConfig, SortKey};
use crate::exit::{Exit, report};
use crate::merge::{self, ResultKind, lines, partial};
use crate::output::inventory::IdsFormat;
use crate::source;
use crate::writer;

pub fn run(config: MergeConfig) -> Exit {
    let mut errored = false;
    let mut fail = |name: &str, reason: &str| {
        report(&format!("{name}: {reason}"));
        errored = true;
    };
    let mut kind = None;
    let mut results = Vec::new();
    for path in &config.files {
        let name = path_name(path);
        let text = match read(path) {
            Ok(text) => text,
            Err(e) => {
                fail(&name, &source::io_reason(&e));
                continue;
            }
        };
        match merge::kind_of(&text) {
            Err(reason) => fail(&name, &reason),
            Ok(None) => results.push((name, text)),
            Ok(Some(this)) if kind.is_none_or(|k| k == this) => {
                kind = Some(this);
                results.push((name, text));
            }
            Ok(Some(this)) => fail(
                &name,
                &format!(
                    "{}, but the first is {}: merge takes results of one kind",
                    this.describe(),
                    kind.map_or("", ResultKind::describe)
                ),
            ),
        }
    }
    let view = &config.view;
    let line_kind = matches!(kind, Some(ResultKind::Search | ResultKind::Timeline));
    if line_kind
        && (view.format == IdsFormat::Csv
            || view.sort != SortKey::Lines
            || view.top.is_some()
            || view.min_lines > 1
            || view.kind.is_some()
            || !view.fields.is_empty()
            || view.all_hex)
    {
        report(&format!(
            "--csv, --sort, --top, --min-lines, --kind, --field and --all-hex apply to ids \
             partials; {}s merge as they are",
            kind.map_or("", ResultKind::describe)
                .trim_start_matches("a ")
        ));
        return Exit::Error;
    }
    match kind {
        Some(ResultKind::Ids) => {
            let mut partials = Vec::new();
            for (name, text) in results {
                match partial::read(&text) {
                    Ok(partial) => partials.push(partial),
                    Err(reason) => fail(&name, &reason),
                }
            }
            let (inventory, paths) = merge::inventory(partials, view.all_hex, view.threads);
            super::ids::show(inventory, &paths, view, errored)
        }
        Some(ResultKind::Timeline) => {
            let mut timelines = Vec::new();
            for (name, text) in &results {
                match lines::read_timeline(text) {
                    Ok(lines) => timelines.push(lines),
                    Err(reason) => fail(name, &reason),
                }
            }
            let found = timelines.iter().any(|t| !t.is_empty());
            let written = writer::write_stdout(|out| lines::write_timeline(out, timelines));
            Exit::after_report(written, errored, found)
        }
        Some(ResultKind::Search) | None => {
            let mut searches = Vec::new();
            for (name, text) in &results {
                match lines::read_search(text) {
                    Ok(search) => searches.push(search),
                    Err(reason) => fail(name, &reason),
                }
            }
            let found = searches.iter().any(|(_, matched)| *matched);
            let written = writer::write_stdout(|out| {
                for line in searches.iter().flat_map(|(lines, _)| lines) {
                    out.write_all(line)?;
                    out.write_all(b"\n")?;
                }
                Ok(())
            });
            Exit::after_report(written, errored, found)
        }
    }
}

/// A result named on the command line, or standard input for `-`.
fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut text = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin().read_to_end(&mut text)?;
    } else {
        text = std::fs::read(path)?;
    }
    Ok(text)
}

fn path_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}
