//! Faults that lose nothing: a full disk and a closed pipe on standard output, symbolic link
//! loops, deep trees, file names that could drive a terminal, and time zones' daylight saving
//! gaps. Each run reports what went wrong as `idgrep: ...` and keeps what it could read.

use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use crate::support::{idgrep, wait_within};

const ID: &str = "01m592wyvrm6f3s97b8ys6vsxc";

fn stderr_of(child: &mut std::process::Child) -> String {
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    err
}

/// Every command writing to a full disk exits 2 with the reason, and a search stops at the
/// first failed write: here its input is a pipe that stays open, so a run that went on
/// reading would never end.
#[test]
fn a_full_disk_ends_the_run_at_once_with_status_2() {
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full");
    if full().is_err() {
        panic!("/dev/full is missing: this test needs a Linux machine");
    }
    let mut child = idgrep()
        .args(["--line-buffered", ID])
        .stdin(Stdio::piped())
        .stdout(full().unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    writeln!(input, "first x {ID}").unwrap();
    input.flush().unwrap();
    let status = wait_within(&mut child, Duration::from_secs(20));
    drop(input);
    assert_eq!(status.code(), Some(2));
    let err = stderr_of(&mut child);
    assert!(err.contains("no space left on device"), "{err}");

    let (logs, found) = ("testdata/logs", "01M8KBYGM5NG2PSHNY302ZVWBS");
    for args in [
        vec![found, logs],
        vec!["--json", found, logs],
        vec!["-c", found, logs],
        vec!["ids", logs],
        vec!["timeline", found, logs],
        vec!["audit", logs],
        vec!["decode", found],
    ] {
        let out = idgrep()
            .args(&args)
            .stdin(Stdio::null())
            .stdout(full().unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.lines()
                .any(|l| l == "idgrep: error writing output: no space left on device"),
            "{args:?}: {err}"
        );
    }
}

/// `idgrep ID big.log | head -1`: the reader goes away, and idgrep ends quietly instead of
/// reading the rest or printing a broken-pipe error.
#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("big.log");
    let line = format!("2026-11-29T10:00:00Z x {ID}\n");
    std::fs::write(&log, line.repeat(400_000)).unwrap();
    let mut child = idgrep()
        .arg(ID)
        .arg(&log)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let status = wait_within(&mut child, Duration::from_secs(20));
    assert_eq!(
        status.code(),
        Some(0),
        "a line was found before the pipe closed"
    );
    assert_eq!(stderr_of(&mut child), "");
}

/// With `-L`, a link back up the tree and a link to itself are each reported once, by path,
/// and the files are still searched.
#[test]
fn symbolic_link_loops_are_reported_and_the_rest_is_searched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("sub")).unwrap();
    std::fs::write(d.join("sub/a.log"), format!("x {ID}\n")).unwrap();
    std::os::unix::fs::symlink("..", d.join("sub/up")).unwrap();
    std::os::unix::fs::symlink("self", d.join("self")).unwrap();
    let out = idgrep()
        .args(["-L", ID])
        .current_dir(d)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("sub/a.log:1:x {ID}\n")
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let mut lines: Vec<&str> = err.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "idgrep: self: too many levels of symbolic links",
            "idgrep: sub/up: symbolic link loop"
        ]
    );
}

/// A file 30 directories down is found by every command.
#[test]
fn a_thirty_level_tree_is_searched_to_the_bottom() {
    let dir = tempfile::tempdir().unwrap();
    let mut deep = dir.path().to_path_buf();
    for level in 0..30 {
        deep.push(format!("level{level}"));
    }
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(deep.join("app.log"), format!("x {ID}\n")).unwrap();
    let root = dir.path().to_str().unwrap();
    let out = idgrep().args(["-c", ID, root]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("level29/app.log:1\n"));
    let out = idgrep().args(["ids", "--json", root]).output().unwrap();
    let ids: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(ids["lines"], 1);
}

fn write_named(dir: &Path, name: &[u8]) {
    use std::os::unix::ffi::OsStrExt;
    let path = dir.join(std::ffi::OsStr::from_bytes(name));
    std::fs::write(path, format!("x {ID}\n")).unwrap();
}

/// File names with a newline, a terminal escape or bytes that are not UTF-8: the text output
/// shows them escaped, one line per match; JSON gives the escape and the newline as JSON
/// escapes and the non-UTF-8 byte as `\xff`, the same name the text shows.
#[test]
fn file_names_never_drive_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_named(d, b"new\nline.log");
    write_named(d, b"esc\x1b[31mred.log");
    write_named(d, b"bad\xffname.log");
    let run = |args: &[&str]| {
        let out = idgrep()
            .args(args)
            .current_dir(d)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        out.stdout
    };
    let text = String::from_utf8(run(&[ID])).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            format!("bad\\xffname.log:1:x {ID}"),
            format!("esc\\x1b[31mred.log:1:x {ID}"),
            format!("new\\x0aline.log:1:x {ID}"),
        ]
    );
    let names = String::from_utf8(run(&["-l", ID])).unwrap();
    assert!(!names.bytes().any(|b| b == 0x1b), "{names:?}");
    assert_eq!(names.lines().count(), 3);
    let json = String::from_utf8(run(&["--json", ID])).unwrap();
    let mut paths: Vec<String> = json
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["path"].as_str().unwrap().to_string()
        })
        .collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        ["bad\\xffname.log", "esc\x1b[31mred.log", "new\nline.log"]
    );
}

/// `--tz` with a daylight saving gap: 02:30 on the night New York springs forward does not
/// exist, and is read as 03:30 EDT (the later offset, as jiff's "compatible" rule does); the
/// hour that repeats in autumn is read with its earlier offset.
#[test]
fn daylight_saving_gaps_and_folds_in_tz() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ny.log");
    std::fs::write(
        &log,
        format!("2026-03-08 02:30:00 gap {ID}\n2026-11-01 01:30:00 fold {ID}\n"),
    )
    .unwrap();
    let out = idgrep()
        .args([
            "timeline",
            ID,
            "--tz",
            "America/New_York",
            "--format",
            "ndjson",
        ])
        .arg(&log)
        .output()
        .unwrap();
    assert!(out.status.success());
    let ts: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["ts"].to_string())
        .collect();
    assert_eq!(
        ts,
        [
            "\"2026-03-08T07:30:00.000Z\"",
            "\"2026-11-01T05:30:00.000Z\""
        ]
    );
}
