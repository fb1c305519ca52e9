//! What counts as an input and how it is read, in every command: symbolic links named on the
//! command line, the same file named twice, gzip padding and trailing garbage, byte-order
//! marks and UTF-16.

use std::path::Path;
use std::process::{Output, Stdio};

use crate::support::idgrep;

const ID: &str = "01m8kbygm5ng2pshny302zvwbs";

fn run_in(dir: &Path, args: &[&str]) -> Output {
    idgrep()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every command over `path` in `dir`, with its output and a piece of it that shows the
/// two lines of [`LOG`] were read once each.
fn every_command(dir: &Path, path: &str) -> Vec<(&'static str, Output, &'static str)> {
    vec![
        ("search", run_in(dir, &["-c", ID, path]), "2\n"),
        ("ids", run_in(dir, &["ids", "--json", path]), "\"lines\":2,"),
        (
            "timeline",
            run_in(dir, &["timeline", "--format", "csv", ID, path]),
            "paid",
        ),
        (
            "audit",
            run_in(dir, &["audit", "--json", path]),
            "\"inputs\":1,\"lines_with_ids\":2,",
        ),
    ]
}

const LOG: &str = "2026-12-01T10:00:00Z INFO order_id=01m8kbygm5ng2pshny302zvwbs placed\n\
                   2026-12-01T10:00:05Z INFO order_id=01m8kbygm5ng2pshny302zvwbs paid\n";

#[cfg(unix)]
/// `command` on `path` succeeded, said nothing on stderr, and printed `expected`.
fn assert_clean_find(command: &str, path: &str, out: &Output, expected: &str) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{command} {path}: {}",
        stderr(out)
    );
    assert!(stderr(out).is_empty(), "{command} {path}: {}", stderr(out));
    assert!(
        stdout(out).contains(expected),
        "{command} {path}: {}",
        stdout(out)
    );
}

#[test]
fn a_link_named_on_the_command_line_is_followed_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("real")).unwrap();
    std::fs::write(dir.path().join("real/a.log"), LOG).unwrap();
    std::os::unix::fs::symlink("real", dir.path().join("linkdir")).unwrap();
    std::os::unix::fs::symlink("real/a.log", dir.path().join("linkfile")).unwrap();
    for path in ["linkdir", "linkfile"] {
        for (command, out, expected) in every_command(dir.path(), path) {
            assert_clean_find(command, path, &out, expected);
        }
    }
    let search = run_in(dir.path(), &["-n", ID, "linkdir"]);
    assert_eq!(
        stdout(&search),
        format!(
            "linkdir/a.log:1:{}",
            LOG.replace("\n2026", "\nlinkdir/a.log:2:2026")
        )
    );
}

/// Overlapping paths and a hard link name one file four times: `ids`, `timeline` and `audit`
/// read it once, under the first name in walk order; a search prints it under every name,
/// as ripgrep does.
#[cfg(unix)]
#[test]
fn a_file_named_twice_is_counted_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs/api")).unwrap();
    std::fs::write(dir.path().join("logs/api/a.log"), LOG).unwrap();
    std::fs::hard_link(
        dir.path().join("logs/api/a.log"),
        dir.path().join("hard.log"),
    )
    .unwrap();
    let paths = ["logs", "logs/api", "logs/api/a.log", "hard.log"];
    let with = |args: &[&str]| -> Output {
        let mut all = args.to_vec();
        all.extend_from_slice(&paths);
        run_in(dir.path(), &all)
    };
    let ids = with(&["ids", "--json"]);
    assert_eq!(ids.status.code(), Some(0), "{}", stderr(&ids));
    assert!(
        stdout(&ids).contains("\"lines\":2,\"occurrences\":2,\"files\":[\"logs/api/a.log\"]"),
        "{}",
        stdout(&ids)
    );
    let timeline = with(&["timeline", "--format", "csv", ID]);
    assert_eq!(timeline.status.code(), Some(0), "{}", stderr(&timeline));
    assert_eq!(
        stdout(&timeline).lines().count(),
        3,
        "{}",
        stdout(&timeline)
    );
    let audit = with(&["audit", "--json"]);
    assert_eq!(audit.status.code(), Some(0), "{}", stderr(&audit));
    assert!(
        stdout(&audit).contains("\"inputs\":1,\"lines_with_ids\":2,"),
        "{}",
        stdout(&audit)
    );
    let search = with(&["-c", ID]);
    assert_eq!(
        stdout(&search),
        "logs/api/a.log:2\nlogs/api/a.log:2\nlogs/api/a.log:2\nhard.log:2\n"
    );
}

fn gzip(text: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(text).unwrap();
    enc.finish().unwrap()
}

/// Zero padding after the last member is read past, as `gzip -dc` does; other bytes there
/// keep every line (the last one has no newline) and fail the run in gzip's words.
#[test]
fn gzip_padding_is_ignored_and_trailing_garbage_reported() {
    let dir = tempfile::tempdir().unwrap();
    let log = LOG.trim_end().as_bytes();
    let mut padded = gzip(log);
    padded.extend(vec![0; 10_240 - padded.len() % 10_240]);
    std::fs::write(dir.path().join("padded.gz"), padded).unwrap();
    let mut garbage = gzip(log);
    garbage.extend_from_slice(b"\0\0junk\n");
    std::fs::write(dir.path().join("garbage.gz"), garbage).unwrap();
    for (command, out, expected) in every_command(dir.path(), "padded.gz") {
        assert_eq!(out.status.code(), Some(0), "{command}: {}", stderr(&out));
        assert!(stderr(&out).is_empty(), "{command}: {}", stderr(&out));
        assert!(
            stdout(&out).contains(expected),
            "{command}: {}",
            stdout(&out)
        );
    }
    for (command, out, expected) in every_command(dir.path(), "garbage.gz") {
        assert_eq!(out.status.code(), Some(2), "{command}: {}", stderr(&out));
        assert_eq!(
            stderr(&out),
            "idgrep: garbage.gz: trailing garbage ignored\n",
            "{command}"
        );
        assert!(
            stdout(&out).contains(expected),
            "{command}: {}",
            stdout(&out)
        );
    }
}

/// A UTF-8 byte-order mark is neither printed nor hides the first line's time; UTF-16 logs
/// (either byte order, plain or gzipped) are read as their text in every command.
#[test]
fn byte_order_marks_are_dropped_and_utf16_is_transcoded() {
    let dir = tempfile::tempdir().unwrap();
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(LOG.as_bytes());
    std::fs::write(dir.path().join("bom.log"), bom).unwrap();
    let windows = LOG.replace('\n', "\r\n");
    let le: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(windows.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let be: Vec<u8> = [0xfe, 0xff]
        .into_iter()
        .chain(windows.encode_utf16().flat_map(u16::to_be_bytes))
        .collect();
    std::fs::write(dir.path().join("le.log"), &le).unwrap();
    std::fs::write(dir.path().join("be.log"), &be).unwrap();
    std::fs::write(dir.path().join("le.log.gz"), gzip(&le)).unwrap();
    for path in ["bom.log", "le.log", "be.log", "le.log.gz"] {
        for (command, out, expected) in every_command(dir.path(), path) {
            assert_clean_find(command, path, &out, expected);
        }
        let search = run_in(dir.path(), &["-n", ID, path]);
        let numbered: String = LOG
            .lines()
            .enumerate()
            .map(|(i, line)| format!("{}:{line}\n", i + 1))
            .collect();
        assert_eq!(stdout(&search), numbered, "{path}");
        // The first line's own time, not one inferred from the ID.
        let timeline = run_in(dir.path(), &["timeline", "--format", "csv", ID, path]);
        assert!(
            stdout(&timeline).contains("2026-12-01T10:00:00.000Z,false,"),
            "{path}: {}",
            stdout(&timeline)
        );
    }
}
