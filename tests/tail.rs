//! `--tail`: a real `idgrep --tail` process follows files while the test writes to them the
//! way loggers and logrotate do: slowly, in bursts, in pieces of lines; rotating by rename,
//! copytruncate, and delete and create; compressing rotations; creating files and
//! directories; writing noise. Every matching line must come out exactly once, in order per
//! file, and the process must end cleanly on SIGINT or SIGTERM with the right status.
//!
//! The tests wait for output with a timeout rather than sleeping a fixed time; each ends by
//! writing a marker line and waiting for it, so that everything written before it has been
//! read when the output is compared.

use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::support::idgrep;

pub(crate) const ID: &str = "01M8KBYGM5NG2PSHNY302ZVWBS";

/// Long enough for a loaded machine; a lost line never comes at all.
const PATIENCE: Duration = Duration::from_secs(20);

/// A running `idgrep --tail` and the lines it printed so far.
pub(crate) struct Tail {
    child: Child,
    lines: mpsc::Receiver<String>,
    got: Vec<String>,
}

impl Tail {
    pub(crate) fn start(dir: &Path, args: &[&str]) -> Tail {
        let mut child = idgrep()
            .current_dir(dir)
            .arg("--tail")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, rx) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Tail {
            child,
            lines: rx,
            got: Vec::new(),
        }
    }

    /// Waits for a line holding `needle`; returns it.
    pub(crate) fn expect(&mut self, needle: &str) -> String {
        if let Some(line) = self.got.iter().find(|l| l.contains(needle)) {
            return line.clone();
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.got.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(e) => {
                    let _ = self.child.kill();
                    panic!(
                        "no line with {needle:?} ({e}); printed so far:\n{}",
                        self.got.join("\n")
                    );
                }
            }
        }
    }

    /// The CPU time the process has used so far (Linux's `/proc`).
    pub(crate) fn cpu(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        // The kernel counts in USER_HZ, 100 on every Linux platform.
        Duration::from_millis(ticks * 10)
    }

    /// Sends `signal` and goes on.
    pub(crate) fn signal(&self, signal: &str) {
        let sent = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    }

    /// Sends `signal`; returns everything printed, the exit status and standard error.
    pub(crate) fn stop(mut self, signal: &str) -> (Vec<String>, ExitStatus, String) {
        let sent = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("idgrep --tail did not end on {signal}");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.got.push(line);
        }
        let mut stderr = String::new();
        let _ = std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut stderr);
        (self.got, status, stderr)
    }
}

pub(crate) fn append(path: &Path, text: &str) {
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// A directory holding `app.log` with one matching line `a`, followed with `args` until that
/// line is shown.
pub(crate) fn follow_app_log(args: &[&str]) -> (tempfile::TempDir, PathBuf, Tail) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    append(&log, &format!("a {ID}\n"));
    let mut tail = Tail::start(dir.path(), args);
    tail.expect("a ");
    (dir, log, tail)
}

pub(crate) fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// Empties the file in place, as copytruncate does.
pub(crate) fn truncate(path: &Path) {
    OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(0)
        .unwrap();
}

pub(crate) fn pause(ms: u64) {
    std::thread::sleep(Duration::from_millis(ms));
}

/// Each line's text and how often it was printed, for lines printed as `path:line:text`.
pub(crate) fn counts(lines: &[String]) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for line in lines {
        let text = line.splitn(3, ':').nth(2).unwrap_or(line).to_string();
        *counts.entry(text).or_insert(0) += 1;
    }
    counts
}

/// Asserts that line numbers go up within each path.
fn assert_in_order_per_file(lines: &[String]) {
    let mut last: HashMap<&str, u64> = HashMap::new();
    for line in lines {
        let mut parts = line.splitn(3, ':');
        let (path, number) = (parts.next().unwrap(), parts.next().unwrap());
        let number: u64 = number.parse().unwrap_or_else(|_| panic!("{line}"));
        if let Some(before) = last.insert(path, number) {
            assert!(
                number > before,
                "{line} after line {before}:\n{}",
                lines.join("\n")
            );
        }
    }
}

#[test]
fn slow_lines_bursts_and_split_writes_come_out_once_each_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    append(&log, &format!("start {ID}\nnoise\n"));
    let mut tail = Tail::start(dir.path(), &[ID, "app.log"]);
    assert_eq!(tail.expect("start"), format!("1:start {ID}"));
    let mut expected = vec![format!("1:start {ID}")];
    let mut line_no = 2;
    let mut add = |text: String, matching: bool, expected: &mut Vec<String>| {
        line_no += 1;
        if matching {
            expected.push(format!("{line_no}:{text}"));
        }
        text + "\n"
    };
    // Slowly.
    for i in 0..3 {
        let line = add(format!("slow {i} {ID}"), true, &mut expected);
        append(&log, &line);
        tail.expect(&format!("slow {i} "));
    }
    // A burst of 5,000 lines in one write, a fifth of them matching, in lower case too.
    let mut burst = String::new();
    for i in 0..5000 {
        let matching = i % 5 == 0;
        let id = if i % 10 == 0 {
            ID.to_lowercase()
        } else {
            ID.to_string()
        };
        let text = if matching {
            format!("burst {i} order={id}")
        } else {
            format!("burst {i} noise")
        };
        burst.push_str(&add(text, matching, &mut expected));
    }
    append(&log, &burst);
    // Lines split across writes, well inside the quiet second.
    let split = add(format!("split {ID} end"), true, &mut expected);
    for piece in [&split[..4], &split[4..15], &split[15..]] {
        append(&log, piece);
        pause(30);
    }
    append(&log, &add("marker-1".into(), false, &mut expected));
    append(&log, &add(format!("done {ID}"), true, &mut expected));
    tail.expect("done");
    let (got, status, stderr) = tail.stop("-INT");
    assert_eq!(got, expected);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
}

#[test]
fn every_rotation_kind_loses_and_repeats_nothing_and_compressed_rotations_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    fs::create_dir(&logs).unwrap();
    let log = logs.join("app.log");
    append(&log, &format!("before-0 {ID}\n"));
    // A compressed rotation present at the start is searched once.
    fs::write(
        logs.join("app.log.9.gz"),
        gzip(format!("archived {ID}\n").as_bytes()),
    )
    .unwrap();
    let mut tail = Tail::start(dir.path(), &[ID, "logs"]);
    tail.expect("before-0");
    tail.expect("archived");
    let mut texts = vec![format!("before-0 {ID}"), format!("archived {ID}")];
    let mut write = |path: &Path, text: String| {
        append(path, &format!("{text}\n"));
        texts.push(text);
    };

    // rename and create, as logrotate does by default, with a late write into the old file.
    write(&log, format!("r1 {ID}"));
    fs::rename(&log, logs.join("app.log.1")).unwrap();
    write(&log, format!("r2 new file {ID}"));
    write(
        &logs.join("app.log.1"),
        format!("r3 late into the old file {ID}"),
    );
    tail.expect("r3 late");
    tail.expect("r2 new");

    // copytruncate: copy, then empty the file in place; lines go on into it.
    write(&log, format!("c1 {ID}"));
    fs::copy(&log, logs.join("app.log.2")).unwrap();
    truncate(&log);
    write(&log, format!("c2 after truncation {ID}"));
    tail.expect("c2 after");

    // The first rotation compressed afterwards: app.log.1 becomes app.log.1.gz.
    let old = fs::read(logs.join("app.log.1")).unwrap();
    fs::write(logs.join("app.log.1.gz"), gzip(&old)).unwrap();
    fs::remove_file(logs.join("app.log.1")).unwrap();

    // delete and create.
    write(&log, format!("d1 {ID}"));
    fs::remove_file(&log).unwrap();
    write(&log, format!("d2 recreated {ID}"));
    write(&log, "noise after".into());
    write(&log, format!("end {ID}"));
    tail.expect("end");
    let (got, status, stderr) = tail.stop("-TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
    let counts = counts(&got);
    for text in texts.iter().filter(|t| t.contains(ID)) {
        assert_eq!(
            counts.get(text),
            Some(&1),
            "{text:?} in:\n{}",
            got.join("\n")
        );
    }
    assert_eq!(
        got.len(),
        texts.iter().filter(|t| t.contains(ID)).count(),
        "{got:#?}"
    );
    assert!(
        !got.iter().any(|l| l.starts_with("logs/app.log.1.gz")),
        "{got:#?}"
    );
    // A renamed file goes on with its own line numbers.
    assert!(
        got.contains(&format!("logs/app.log.1:3:r3 late into the old file {ID}")),
        "{got:#?}"
    );
}

#[test]
fn new_files_and_directories_are_read_from_their_first_byte_and_globs_apply() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    fs::create_dir(&logs).unwrap();
    append(&logs.join("a.log"), &format!("first {ID}\n"));
    let mut tail = Tail::start(dir.path(), &["-g", "*.log", ID, "logs"]);
    tail.expect("first");
    append(&logs.join("b.log"), &format!("noise\nnew file {ID}\n"));
    let deep = logs.join("sub").join("deeper");
    fs::create_dir_all(&deep).unwrap();
    append(&deep.join("c.log"), &format!("in a new directory {ID}\n"));
    append(&deep.join("c.txt"), &format!("not a log {ID}\n"));
    append(&logs.join("a.log"), &format!("end {ID}\n"));
    tail.expect("end");
    tail.expect("new file");
    tail.expect("in a new directory");
    let (mut got, status, _) = tail.stop("-INT");
    assert_in_order_per_file(&got);
    got.sort();
    assert_eq!(
        got,
        [
            format!("logs/a.log:1:first {ID}"),
            format!("logs/a.log:2:end {ID}"),
            format!("logs/b.log:2:new file {ID}"),
            format!("logs/sub/deeper/c.log:1:in a new directory {ID}"),
        ]
    );
    assert_eq!(status.code(), Some(0));
}

#[test]
fn a_partial_line_is_printed_after_a_quiet_second_and_not_again() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    append(&log, "noise\n");
    let mut tail = Tail::start(dir.path(), &[ID, "app.log"]);
    // Nothing matched at the start: wait until the follower is watching.
    pause(300);
    let started = Instant::now();
    append(&log, &format!("half {ID}"));
    assert_eq!(tail.expect("half"), format!("2:half {ID}"));
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    append(&log, &format!(" and the rest\nnext {ID}\n"));
    tail.expect("next");
    let (got, status, _) = tail.stop("-INT");
    assert_eq!(got, [format!("2:half {ID}"), format!("3:next {ID}")]);
    assert_eq!(status.code(), Some(0));
}

#[test]
fn sigint_with_nothing_matched_exits_1_and_a_symlink_loop_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    fs::create_dir(&logs).unwrap();
    append(&logs.join("a.log"), "noise\n");
    let tail = Tail::start(dir.path(), &["-L", ID, "logs"]);
    pause(300);
    std::os::unix::fs::symlink("loop.log", logs.join("loop.log")).unwrap();
    append(&logs.join("a.log"), "more noise\n");
    pause(300);
    let (got, status, stderr) = tail.stop("-INT");
    assert_eq!(got, Vec::<String>::new());
    assert_eq!(status.code(), Some(1));
    assert!(stderr.contains("idgrep: logs/loop.log: "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn followed_json_lines_are_what_a_search_prints() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    append(
        &log,
        &format!("{{\"ts\":\"2026-12-01T10:00:00Z\",\"order_id\":\"{ID}\"}}\n"),
    );
    let mut tail = Tail::start(dir.path(), &["--json", ID, "app.log"]);
    tail.expect("10:00:00");
    append(&log, "noise\n");
    append(
        &log,
        &format!(
            "{{\"ts\":\"2026-12-01T10:00:05Z\",\"user\":\"{}\"}}\n",
            ID.to_lowercase()
        ),
    );
    append(&log, &format!("2026-12-01T10:00:09Z plain {ID}\n"));
    tail.expect("10:00:09");
    let (got, status, _) = tail.stop("-INT");
    assert_eq!(status.code(), Some(0));
    let search = idgrep()
        .current_dir(dir.path())
        .args(["--json", ID, "app.log"])
        .output()
        .unwrap();
    let oracle: Vec<String> = String::from_utf8(search.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(got, oracle);
}

#[test]
fn polling_follows_growth_and_rotation_too() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    append(&log, &format!("one {ID}\n"));
    let mut tail = Tail::start(dir.path(), &["--poll", "50", ID, "."]);
    tail.expect("one");
    append(&log, &format!("two {ID}\n"));
    tail.expect("two");
    fs::rename(&log, dir.path().join("app.log.1")).unwrap();
    append(&log, &format!("three {ID}\n"));
    tail.expect("three");
    let (got, status, _) = tail.stop("-INT");
    assert_eq!(
        got,
        [
            format!("./app.log:1:one {ID}"),
            format!("./app.log:2:two {ID}"),
            format!("./app.log:1:three {ID}"),
        ]
    );
    assert_eq!(status.code(), Some(0));
}

/// Polling, files created after the last poll are read at the stop, plain or compressed.
#[test]
fn polling_reads_files_created_since_the_last_poll_at_the_stop() {
    let (dir, _log, tail) = follow_app_log(&["--poll", "60000", ID, "."]);
    append(&dir.path().join("new.log"), &format!("new {ID}\n"));
    let compressed = gzip(format!("packed {ID}\n").as_bytes());
    fs::write(dir.path().join("new.log.gz"), compressed).unwrap();
    pause(200);
    let (mut got, status, stderr) = tail.stop("-INT");
    got.sort();
    assert_eq!(
        got,
        [
            format!("./app.log:1:a {ID}"),
            format!("./new.log.gz:1:packed {ID}"),
            format!("./new.log:1:new {ID}"),
        ]
    );
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn timeline_tail_prints_the_timeline_then_new_lines_as_rows() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    append(&log, &format!("2026-12-01T10:00:00Z placed order={ID}\n"));
    let until = ["--until", "2026-12-01T10:00:08Z"];
    let mut tail = Tail::start(dir.path(), &["timeline", until[0], until[1], ID, "app.log"]);
    tail.expect("placed");
    tail.expect("following");
    append(&log, &format!("2026-12-01T10:00:07Z paid order={ID}\n"));
    let row = tail.expect("paid");
    assert!(row.starts_with("10:00:07.000 "), "{row}");
    assert!(
        row.contains("+7.000s") && row.contains("app.log:2"),
        "{row}"
    );
    // A line after --until is left out of the rows, as out of the timeline.
    append(&log, &format!("2026-12-01T10:00:09Z too-late order={ID}\n"));
    append(&log, &format!("2026-12-01T10:00:08Z refund order={ID}\n"));
    tail.expect("refund");
    let (got, status, _) = tail.stop("-INT");
    assert!(!got.iter().any(|l| l.contains("too-late")), "{got:#?}");
    assert_eq!(got.iter().filter(|l| l.contains("paid")).count(), 1);
    assert_eq!(got.iter().filter(|l| l.contains("placed")).count(), 1);
    assert_eq!(status.code(), Some(0));
}

#[test]
fn a_symlink_swapped_to_a_new_file_is_followed_from_the_new_files_start() {
    let dir = tempfile::tempdir().unwrap();
    let releases = dir.path().join("releases");
    fs::create_dir(&releases).unwrap();
    let (v1, v2) = (releases.join("v1.log"), releases.join("v2.log"));
    append(&v1, &format!("v1 start {ID}\n"));
    let current = dir.path().join("current.log");
    std::os::unix::fs::symlink(&v1, &current).unwrap();
    let mut tail = Tail::start(dir.path(), &["-L", ID, "current.log"]);
    tail.expect("v1 start");
    // The link's target is in another directory: its writes are seen through the link.
    append(&v1, &format!("v1 more {ID}\n"));
    tail.expect("v1 more");
    append(&v2, &format!("v2 start {ID}\n"));
    let swap = dir.path().join("current.tmp");
    std::os::unix::fs::symlink(&v2, &swap).unwrap();
    fs::rename(&swap, &current).unwrap();
    tail.expect("v2 start");
    append(&v2, &format!("v2 more {ID}\n"));
    tail.expect("v2 more");
    let (got, status, _) = tail.stop("-INT");
    assert_eq!(
        got,
        [
            format!("1:v1 start {ID}"),
            format!("2:v1 more {ID}"),
            format!("1:v2 start {ID}"),
            format!("2:v2 more {ID}"),
        ]
    );
    assert_eq!(status.code(), Some(0));
}

#[test]
fn flags_that_cannot_follow_are_refused_with_the_reason() {
    for (args, says) in [
        (&["--tail", "-c", ID, "."][..], "-c and -l are not accepted"),
        (
            &["--tail", "-A", "2", ID, "."][..],
            "-A, -B and -C are not accepted",
        ),
        (&["--poll", "100", ID, "."][..], "--tail"),
        (
            &["timeline", "--tail", "-o", "x.html", ID, "."][..],
            "--format and -o",
        ),
    ] {
        let out = idgrep().args(args).stdin(Stdio::null()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("idgrep: ") && stderr.contains(says),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_named_file_that_does_not_exist_yet_is_reported_then_followed_when_it_appears() {
    let dir = tempfile::tempdir().unwrap();
    append(&dir.path().join("other.log"), &format!("other {ID}\n"));
    let mut tail = Tail::start(dir.path(), &[ID, "other.log", "app.log"]);
    tail.expect("other");
    append(&dir.path().join("app.log"), &format!("appeared {ID}\n"));
    assert_eq!(tail.expect("appeared"), format!("app.log:1:appeared {ID}"));
    let (got, status, stderr) = tail.stop("-INT");
    assert_eq!(got.len(), 2, "{got:#?}");
    assert_eq!(status.code(), Some(0));
    assert_eq!(stderr, "idgrep: app.log: no such file or directory\n");
}

#[test]
fn several_ids_are_followed_in_any_written_form() {
    // The same 128 bits as ID, written as a UUID; and another ULID.
    let uuid = "01a226bf-4285-ac05-6cc6-be1805fdf179";
    let other = "01KB2X1X0M4V6F9A1T8E3Q7C5D";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    append(&log, "noise\n");
    let ids = dir.path().join("ids.txt");
    fs::write(&ids, format!("# incident\n{other}\n")).unwrap();
    let mut tail = Tail::start(dir.path(), &["-e", ID, "-f", "ids.txt", "app.log"]);
    pause(300);
    append(
        &log,
        &format!("as uuid {uuid}\nother {}\nnoise\n", other.to_lowercase()),
    );
    tail.expect("other");
    let (got, status, _) = tail.stop("-INT");
    let oracle = idgrep()
        .current_dir(dir.path())
        .args(["-e", ID, "-f", "ids.txt", "app.log"])
        .output()
        .unwrap();
    let oracle: Vec<String> = String::from_utf8(oracle.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(got, oracle);
    assert_eq!(got.len(), 2, "{got:#?}");
    assert_eq!(status.code(), Some(0));
}

/// `idgrep --tail ID .` in `dir`, following the directory `svc` made after it started, with
/// the line `first` in its file `log` read.
fn tail_into_new_dir(dir: &Path, log: &str, first: &str) -> (PathBuf, Tail) {
    let svc = dir.join("svc");
    append(&dir.join("app.log"), &format!("a {ID}\n"));
    let mut tail = Tail::start(dir, &[ID, "."]);
    tail.expect("a ");
    fs::create_dir(&svc).unwrap();
    append(&svc.join(log), &format!("{first} {ID}\n"));
    tail.expect(&format!("{first} "));
    (svc, tail)
}

/// A directory that appeared while following is replaced by a new one of the same name
/// (renamed away, or deleted, and made again), and a short job writes its whole log there at
/// once, never to touch it again: each new directory's log is read.
#[test]
fn a_directory_replaced_by_a_new_one_of_the_same_name_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let (svc, mut tail) = tail_into_new_dir(dir.path(), "job.log", "job 0");
    for round in 1..=4 {
        if round % 2 == 1 {
            fs::rename(&svc, dir.path().join(format!("svc.{round}"))).unwrap();
        } else {
            fs::remove_dir_all(&svc).unwrap();
        }
        fs::create_dir(&svc).unwrap();
        append(&svc.join("job.log"), &format!("job {round} {ID}\n"));
        pause(300);
    }
    for round in 1..=4 {
        tail.expect(&format!("job {round} "));
    }
    let (got, status, _) = tail.stop("-INT");
    for round in 0..=4 {
        let shown = got
            .iter()
            .filter(|l| l.ends_with(&format!("job {round} {ID}")));
        assert_eq!(shown.count(), 1, "job {round}: {got:#?}");
    }
    assert_eq!(status.code(), Some(0));
}

/// A directory that appeared while following is deleted and made again, and a file written
/// into the new one, while idgrep is stopped (SIGSTOP): it gets the removal, the creation and
/// nothing of the file in one round, before the new directory has a watch, and finds the
/// file only by walking the new directory.
#[test]
fn a_directory_deleted_and_made_again_in_one_round_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let (svc, mut tail) = tail_into_new_dir(dir.path(), "old.log", "old");
    tail.signal("-STOP");
    fs::remove_dir_all(&svc).unwrap();
    fs::create_dir(&svc).unwrap();
    append(&svc.join("new.log"), &format!("new {ID}\n"));
    pause(100);
    tail.signal("-CONT");
    tail.expect("new ");
    let (got, status, _) = tail.stop("-INT");
    assert_eq!(
        got.iter().filter(|l| l.contains("new ")).count(),
        1,
        "{got:#?}"
    );
    assert_eq!(status.code(), Some(0));
}

#[test]
fn output_into_a_followed_directory_is_not_read_back() {
    let dir = tempfile::tempdir().unwrap();
    append(&dir.path().join("app.log"), &format!("first {ID}\n"));
    let out_path = dir.path().join("out.txt");
    let mut child = idgrep()
        .current_dir(dir.path())
        .args(["--tail", ID, "."])
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out_path).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let wait_for = |needle: &str| {
        let deadline = Instant::now() + PATIENCE;
        while !fs::read_to_string(&out_path).unwrap().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "no {needle:?} in the output file"
            );
            pause(20);
        }
    };
    wait_for("first");
    append(&dir.path().join("app.log"), &format!("second {ID}\n"));
    wait_for("second");
    pause(300);
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(
        fs::read_to_string(&out_path).unwrap(),
        format!("./app.log:1:first {ID}\n./app.log:2:second {ID}\n")
    );
    assert_eq!(status.code(), Some(0));
    assert_eq!(
        stderr,
        "idgrep: ./out.txt: the output goes to this file: not followed\n"
    );
}

#[test]
fn a_binary_file_is_summarised_not_printed_as_it_grows() {
    let dir = tempfile::tempdir().unwrap();
    append(&dir.path().join("a.log"), &format!("start {ID}\n"));
    let mut tail = Tail::start(dir.path(), &[ID, "."]);
    tail.expect("start");
    append(&dir.path().join("b.bin"), &format!("bin\0ary {ID}\n"));
    tail.expect("b.bin: binary file matches (1 line)");
    append(
        &dir.path().join("b.bin"),
        &format!("more {ID}\nand more {ID}\n"),
    );
    tail.expect("b.bin: binary file matches (2 lines)");
    let (got, status, _) = tail.stop("-INT");
    assert_eq!(
        got,
        [
            format!("./a.log:1:start {ID}"),
            "./b.bin: binary file matches (1 line)".to_string(),
            "./b.bin: binary file matches (2 lines)".to_string(),
        ]
    );
    assert_eq!(status.code(), Some(0));
}

#[test]
fn standard_input_with_tail_is_searched_as_it_arrives() {
    let mut child = idgrep()
        .args(["--tail", ID])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, lines) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    writeln!(stdin, "noise\nlive {ID}").unwrap();
    stdin.flush().unwrap();
    // While the pipe is still open.
    assert_eq!(
        lines.recv_timeout(PATIENCE).unwrap(),
        format!("2:live {ID}")
    );
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// A line written just before Ctrl-C is shown, though no poll (or event) has come for it:
/// the stop reads every followed file to its end.
#[test]
fn lines_written_before_the_stop_are_shown_before_idgrep_ends() {
    let (_dir, log, tail) = follow_app_log(&["--poll", "600000", ID, "."]);
    append(&log, &format!("noise\nb {ID}\n"));
    let (got, status, stderr) = tail.stop("-INT");
    assert_eq!(
        got,
        vec![format!("./app.log:1:a {ID}"), format!("./app.log:3:b {ID}")]
    );
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// After delete and create, the new file's partial line is shown after its quiet second,
/// while the old file is still read through its handle; not only when idgrep ends.
#[test]
fn a_partial_line_of_a_recreated_file_is_shown_after_a_quiet_second() {
    let (_dir, log, mut tail) = follow_app_log(&[ID, "."]);
    fs::remove_file(&log).unwrap();
    append(&log, &format!("new {ID}\n"));
    tail.expect("new ");
    append(&log, &format!("part {ID}"));
    tail.expect("part ");
    let (got, status, stderr) = tail.stop("-INT");
    assert_eq!(got.last(), Some(&format!("./app.log:2:part {ID}")));
    assert_eq!(got.len(), 3, "{got:#?}");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// A writer stops in the middle of a line, then the log is rotated (renamed and made again)
/// or deleted: the partial line, read on through the old file's handle, is shown after its
/// quiet second, not only when that handle is closed (10 s later) or idgrep ends.
#[test]
fn a_partial_line_of_a_rotated_or_deleted_file_is_shown_after_a_quiet_second() {
    for rotate in [true, false] {
        let (_dir, log, mut tail) = follow_app_log(&[ID, "."]);
        append(&log, &format!("part {ID}"));
        if rotate {
            fs::rename(&log, log.with_extension("log.1")).unwrap();
            append(&log, &format!("new {ID}\n"));
            tail.expect("new ");
        } else {
            fs::remove_file(&log).unwrap();
        }
        let gone = Instant::now();
        tail.expect("part ");
        let waited = gone.elapsed();
        let (got, status, stderr) = tail.stop("-INT");
        assert!(
            waited < Duration::from_secs(5),
            "rotate {rotate}: {waited:?}"
        );
        assert_eq!(got.len(), 2 + rotate as usize, "{got:#?}");
        assert_eq!(status.code(), Some(0), "{stderr}");
    }
}

#[test]
fn quiet_waits_for_the_first_matching_line_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    append(&log, "noise\n");
    let mut child = idgrep()
        .current_dir(dir.path())
        .args(["--tail", "-q", ID, "app.log"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    pause(300);
    assert!(
        child.try_wait().unwrap().is_none(),
        "-q --tail ended before a match"
    );
    append(&log, &format!("found {ID}\n"));
    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "-q --tail did not end at the match"
        );
        pause(10);
    };
    assert_eq!(status.code(), Some(0));
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    assert_eq!(out, "");
}

/// A log truncated in place (`: > app.log`) while it ended in a partial line: that line was
/// in the file, and is shown as it was, before the lines written after the truncation.
#[test]
fn a_partial_line_of_a_file_truncated_in_place_is_shown() {
    let (_dir, log, mut tail) = follow_app_log(&[ID, "."]);
    append(&log, &format!("partial {ID}"));
    pause(300);
    truncate(&log);
    append(&log, &format!("c {ID}\n"));
    tail.expect("c ");
    let (got, status, stderr) = tail.stop("-INT");
    assert_eq!(
        got,
        [
            format!("./app.log:1:a {ID}"),
            format!("./app.log:2:partial {ID}"),
            format!("./app.log:1:c {ID}"),
        ]
    );
    assert_eq!(status.code(), Some(0), "{stderr}");
}
