//! `--tail` when a file that appears begins as a followed one: copytruncate's copy, read in
//! pieces, seen early or late, among files that share a banner; a new log that only begins
//! alike; compressed rotations, damaged or cut short. Every matching line must come out
//! exactly once, under the name of the file it was first read from. The harness is
//! [`crate::tail`]'s.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::ExitStatus;

use crate::tail::{ID, Tail, append, counts, follow_app_log, gzip, pause, truncate};
/// With a slow poll, idgrep does not read between the writer's steps: the line written just
/// before copytruncate is only in the copy when idgrep looks, and must come from there, once.
#[test]
fn copytruncate_lines_not_yet_read_come_from_the_copy_once() {
    let (dir, log, mut tail) = follow_app_log(&["--poll", "700", ID, "."]);
    append(&log, &format!("b {ID}\n"));
    fs::copy(&log, dir.path().join("app.log.1")).unwrap();
    truncate(&log);
    append(&log, &format!("c {ID}\n"));
    tail.expect("c ");
    let (got, status, _) = tail.stop("-INT");
    assert_eq!(got.len(), 3, "{got:#?}");
    assert_eq!(got[0], format!("./app.log:1:a {ID}"));
    assert!(
        [
            format!("./app.log.1:2:b {ID}"),
            format!("./app.log:2:b {ID}")
        ]
        .contains(&got[1]),
        "{got:#?}"
    );
    assert_eq!(got[2], format!("./app.log:1:c {ID}"));
    assert_eq!(status.code(), Some(0));
}

/// The copy is seen in the same poll as the line written before it: the original still
/// holds the line and is read first, so the copy adds nothing and the line shows once.
#[test]
fn a_copy_seen_before_the_line_it_copied_was_read_repeats_no_line() {
    let (dir, log, mut tail) = follow_app_log(&["--poll", "2000", ID, "."]);
    append(&log, &format!("b {ID}\n"));
    fs::copy(&log, dir.path().join("app.log.1")).unwrap();
    tail.expect("b ");
    truncate(&log);
    append(&log, &format!("c {ID}\n"));
    tail.expect("c ");
    let (got, status, stderr) = tail.stop("-INT");
    assert_eq!(
        got,
        [
            format!("./app.log:1:a {ID}"),
            format!("./app.log:2:b {ID}"),
            format!("./app.log:1:c {ID}"),
        ]
    );
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// A copy made while the original ended in a partial line: the line is shown once, though
/// the original was truncated before its quiet second was up.
#[test]
fn a_partial_line_copied_then_truncated_shows_once() {
    let (dir, log, mut tail) = follow_app_log(&[ID, "."]);
    append(&log, &format!("partial {ID}"));
    pause(300);
    fs::copy(&log, dir.path().join("app.log.1")).unwrap();
    pause(300);
    truncate(&log);
    append(&log, &format!("c {ID}\n"));
    tail.expect("c ");
    pause(1500);
    let (got, status, stderr) = tail.stop("-INT");
    assert_eq!(
        counts(&got).get(&format!("partial {ID}")),
        Some(&1),
        "{got:#?}"
    );
    assert_eq!(got.len(), 3, "{got:#?}");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// Copies `from` to `to` 16 KiB at a time, 100 ms apart, as a slow copy of a large log is
/// seen: `between` runs after each piece.
fn copy_in_pieces(from: &Path, to: &Path, between: &mut dyn FnMut()) {
    let mut original = fs::File::open(from).unwrap();
    let mut copy = fs::File::create(to).unwrap();
    let mut piece = vec![0u8; 16 << 10];
    loop {
        let n = std::io::Read::read(&mut original, &mut piece).unwrap();
        if n == 0 {
            break;
        }
        copy.write_all(&piece[..n]).unwrap();
        between();
        pause(100);
    }
}

/// Truncates `log` (copytruncate) and writes a line to it; once that line is shown and
/// `settle_ms` more have passed (for anything a copy's last events would print), stops
/// `tail` and checks that no line was printed twice.
fn truncate_then_stop(
    mut tail: Tail,
    log: &Path,
    settle_ms: u64,
) -> (Vec<String>, ExitStatus, String) {
    truncate(log);
    append(log, &format!("after {ID}\n"));
    tail.expect("after ");
    pause(settle_ms);
    let stopped = tail.stop("-INT");
    assert_no_line_twice(&stopped.0);
    stopped
}

fn assert_no_line_twice(got: &[String]) {
    let repeated: Vec<_> = counts(got).into_iter().filter(|(_, n)| *n > 1).collect();
    assert!(
        repeated.is_empty(),
        "{} lines printed more than once, such as {:?}",
        repeated.len(),
        &repeated[..repeated.len().min(3)]
    );
}

/// copytruncate of a log large enough that its copy is seen while still being written,
/// shorter than where the original stands: the copy prints nothing (it used to be read from
/// its start, the whole log again), and with `during`, the lines the original gets while the
/// copy is written are shown once. Every line once, each under the original's name.
fn copy_slowly_then_truncate(during: bool) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let lines: String = (1..=3000).map(|n| format!("line {n:04} {ID}\n")).collect();
    append(&log, &lines);
    let mut tail = Tail::start(dir.path(), &[ID, "."]);
    tail.expect("line 3000 ");
    let mut written = 0;
    copy_in_pieces(&log, &dir.path().join("app.log.1"), &mut || {
        if during && written < 5 {
            written += 1;
            append(&log, &format!("during {written} {ID}\n"));
        }
    });
    let (got, status, stderr) = truncate_then_stop(tail, &log, 500);
    assert_eq!(got.len(), 3000 + written + 1);
    assert!(got.iter().all(|l| l.starts_with("./app.log:")), "{got:#?}");
    assert_eq!(got.last(), Some(&format!("./app.log:1:after {ID}")));
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn a_large_copy_seen_while_it_is_written_repeats_no_line() {
    copy_slowly_then_truncate(false);
}

#[test]
fn lines_written_while_a_copy_is_made_are_shown_once() {
    copy_slowly_then_truncate(true);
}

/// 6.6 KiB of lines that logs of one program write first, the same in every run.
fn banner() -> String {
    (1..=100)
        .map(|n| format!("config key{n:03} = a long constant value, the same in every run\n"))
        .collect()
}

/// A new log that begins with the same long banner as a followed one is no copy of it: its
/// lines are all shown, numbered from its start.
#[test]
fn a_new_file_that_only_begins_like_a_followed_one_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let banner = banner();
    let first = dir.path().join("job1.log");
    let lines: String = (1..=300).map(|n| format!("job1 {n} {ID}\n")).collect();
    append(&first, &format!("{banner}{lines}"));
    let mut tail = Tail::start(dir.path(), &[ID, "."]);
    tail.expect("job1 300 ");
    let second = dir.path().join("job2.log");
    append(&second, &banner);
    pause(300);
    append(&second, &format!("job2 {ID}\n"));
    tail.expect("job2 ");
    let (got, status, stderr) = tail.stop("-INT");
    assert_eq!(got.len(), 301, "{:#?}", &got[300..]);
    assert_eq!(got[300], format!("./job2.log:101:job2 {ID}"));
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// A new log that begins with the same long banner as a shorter followed one, and is already
/// longer than it when first seen, is no copy of it: none of its lines is taken as shown.
#[test]
fn a_new_file_longer_than_a_followed_one_it_begins_like_loses_no_line() {
    let dir = tempfile::tempdir().unwrap();
    let banner = banner();
    let first = dir.path().join("job1.log");
    append(&first, &format!("{banner}job1 {ID}\n"));
    let mut tail = Tail::start(dir.path(), &[ID, "."]);
    tail.expect("job1 ");
    let lines: String = (1..=300).map(|n| format!("job2 {n} {ID}\n")).collect();
    append(&dir.path().join("job2.log"), &format!("{banner}{lines}"));
    tail.expect("job2 300 ");
    let (got, status, stderr) = tail.stop("-INT");
    assert_eq!(got.len(), 301, "{got:#?}");
    assert_eq!(got[1], format!("./job2.log:101:job2 1 {ID}"));
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// Two followed logs begin with the same banner, and the longer one is copied slowly, then
/// truncated (copytruncate): the copy goes on from where the file it copies stands, not from
/// where the other one does. Every line once, each under its own file's name.
#[test]
fn a_copy_goes_on_from_the_file_it_copies_among_several_that_begin_alike() {
    let dir = tempfile::tempdir().unwrap();
    let banner = banner();
    let short: String = (1..=100).map(|n| format!("short {n:04} {ID}\n")).collect();
    let long: String = (1..=3000).map(|n| format!("long {n:04} {ID}\n")).collect();
    append(&dir.path().join("a.log"), &format!("{banner}{short}"));
    let log = dir.path().join("b.log");
    append(&log, &format!("{banner}{long}"));
    let mut tail = Tail::start(dir.path(), &[ID, "."]);
    tail.expect("long 3000 ");
    copy_in_pieces(&log, &dir.path().join("b.log.1"), &mut || {});
    let (got, status, stderr) = truncate_then_stop(tail, &log, 500);
    assert_eq!(got.len(), 100 + 3000 + 1);
    assert!(
        got.iter()
            .all(|l| l.starts_with("./a.log:") || l.starts_with("./b.log:")),
        "{got:#?}"
    );
    assert_eq!(got.last(), Some(&format!("./b.log:1:after {ID}")));
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// Compressed files that appear and are no rotation: one damaged is searched as far as it
/// reads and reported; one whose writer pauses is searched once, whole, when it is complete;
/// one cut short is waited for, and searched as far as it reads and reported when idgrep ends,
/// as is one written just before the end. Following goes on meanwhile.
#[test]
fn compressed_files_that_appear_damaged_paused_or_late_lose_no_line() {
    let (dir, log, mut tail) = follow_app_log(&[ID, "."]);
    let lines =
        |name: &str| -> String { (1..=2000).map(|n| format!("{name} {n} {ID}\n")).collect() };
    let damaged_gz = gzip(lines("damaged").as_bytes());
    let mut damaged = damaged_gz.clone();
    // The trailer's CRC-32 no longer matches what the stream holds.
    let crc = damaged.len() - 8;
    damaged[crc] ^= 0xff;
    fs::write(dir.path().join("damaged.log.gz"), &damaged).unwrap();
    tail.expect("damaged 2000 ");
    let paused = gzip(lines("paused").as_bytes());
    let paused_path = dir.path().join("paused.log.gz");
    fs::write(&paused_path, &paused[..paused.len() / 2]).unwrap();
    let cut = gzip(lines("cut").as_bytes());
    fs::write(dir.path().join("cut.log.gz"), &cut[..cut.len() / 2]).unwrap();
    // Long enough for both to be looked at and found short.
    pause(1500);
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(&paused_path)
        .unwrap();
    file.write_all(&paused[paused.len() / 2..]).unwrap();
    drop(file);
    tail.expect("paused 2000 ");
    append(&log, &format!("after {ID}\n"));
    tail.expect("after ");
    fs::write(
        dir.path().join("late.log.gz"),
        gzip(format!("late {ID}\n").as_bytes()),
    )
    .unwrap();
    let (got, status, stderr) = tail.stop("-INT");
    let of = |name: &str| {
        got.iter()
            .filter(|l| l.starts_with(&format!("./{name}.log.gz:")))
            .count()
    };
    assert_eq!(
        (of("damaged"), of("paused"), of("late")),
        (2000, 2000, 1),
        "{got:#?}"
    );
    assert!(of("cut") > 0 && of("cut") < 2000, "{} of cut", of("cut"));
    assert_no_line_twice(&got);
    let reports: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        reports,
        [
            "idgrep: ./damaged.log.gz: gzip: corrupt gzip stream does not have a matching checksum",
            "idgrep: ./cut.log.gz: gzip: incomplete deflate stream",
        ],
        "{stderr}"
    );
    // Errors met while following leave the status to what matched.
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// A log that begins with a UTF-8 byte order mark, rotated and then compressed: the
/// compressed rotation is recognised (decompression drops the mark) and not read again.
#[test]
fn a_compressed_rotation_of_a_log_with_a_byte_order_mark_is_not_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let text: String = (1..=100).map(|n| format!("line {n} {ID}\n")).collect();
    append(&log, &format!("\u{feff}{text}"));
    let mut tail = Tail::start(dir.path(), &[ID, "."]);
    tail.expect("line 100 ");
    let rotated = dir.path().join("app.log.1");
    fs::rename(&log, &rotated).unwrap();
    append(&log, &format!("new {ID}\n"));
    tail.expect("new ");
    fs::write(
        dir.path().join("app.log.1.gz"),
        gzip(&fs::read(&rotated).unwrap()),
    )
    .unwrap();
    fs::remove_file(&rotated).unwrap();
    pause(1000);
    append(&log, &format!("after {ID}\n"));
    tail.expect("after ");
    let (got, status, stderr) = tail.stop("-INT");
    assert_no_line_twice(&got);
    assert_eq!(got.len(), 102, "{got:#?}");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// A copy seen while it is written waits; its original is read on meanwhile; then the copy
/// is finished short of where the original stands and the original emptied, at once
/// (copytruncate with lines written between the copy and the truncation): the lines the
/// original showed since the copy was last compared are not shown again from the copy.
#[test]
fn a_waiting_copy_finished_as_its_original_is_emptied_repeats_no_line() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let first: String = (1..=3000).map(|n| format!("first {n:04} {ID}\n")).collect();
    append(&log, &first);
    let mut tail = Tail::start(dir.path(), &[ID, "."]);
    tail.expect("first 3000 ");
    let copy = dir.path().join("app.log.1");
    let half = first.len() / 2;
    fs::write(&copy, &first[..half]).unwrap();
    pause(300);
    let more: String = (1..=100).map(|n| format!("more {n:03} {ID}\n")).collect();
    append(&log, &more);
    tail.expect("more 100 ");
    let copied_more = more.len() / 2;
    let rest = format!("{}{}", &first[half..], &more[..copied_more]);
    append(&copy, &rest);
    truncate(&log);
    append(&log, &format!("after {ID}\n"));
    tail.expect("after ");
    let (got, status, stderr) = tail.stop("-INT");
    assert_no_line_twice(&got);
    assert_eq!(got.len(), 3000 + 100 + 1, "{:#?}", &got[2990..]);
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// A compressed file is read once and its file deleted; the next file created is given its
/// inode number (ext4 does so at once): it is a new file, followed from its first byte.
#[test]
fn a_new_file_given_the_inode_of_a_deleted_one_is_followed() {
    let (dir, _log, mut tail) = follow_app_log(&[ID, "."]);
    let old = dir.path().join("old.log.gz");
    fs::write(&old, gzip(format!("old {ID}\n").as_bytes())).unwrap();
    tail.expect("old ");
    fs::remove_file(&old).unwrap();
    let new = dir.path().join("new.log");
    append(&new, &format!("new 1 {ID}\n"));
    pause(300);
    append(&new, &format!("new 2 {ID}\n"));
    tail.expect("new 2 ");
    let (got, status, stderr) = tail.stop("-INT");
    assert_eq!(got.len(), 4, "{got:#?}");
    assert_eq!(got[2], format!("./new.log:1:new 1 {ID}"));
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// A compressed file whose stream first holds only its header (an unbuffered compressor
/// writes it first), then, before it was looked at again, the first lines of a followed log
/// (too few to tell whether it is that log's rotation): idgrep sits idle afterwards.
#[test]
fn a_compressed_file_too_short_to_tell_leaves_the_follower_idle() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let first = format!("a {ID}\nb {ID}\n");
    append(&log, &format!("{first}c {ID}\n"));
    let mut tail = Tail::start(dir.path(), &[ID, "."]);
    tail.expect("c ");
    let stream = gzip(first.as_bytes());
    let mut gz = fs::File::create(dir.path().join("app.log.1.gz")).unwrap();
    gz.write_all(&stream[..10]).unwrap();
    pause(100);
    gz.write_all(&stream[10..]).unwrap();
    drop(gz);
    pause(1000);
    let before = tail.cpu();
    pause(2000);
    let idle = tail.cpu() - before;
    let (got, status, stderr) = tail.stop("-INT");
    assert!(
        idle < std::time::Duration::from_millis(500),
        "{idle:?} of CPU in 2 s of quiet"
    );
    assert_eq!(got.len(), 3, "{got:#?}");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// copytruncate's copy catches up with its original while both still grow: the copying
/// program copies what the original gets until it reaches the end. What the copy gets then
/// is the original's, already shown from there: no line is shown twice, none is lost.
#[test]
fn a_copy_that_catches_up_with_its_growing_original_repeats_no_line() {
    copy_catches_up(&[]);
    copy_catches_up(&["--poll", "100"]);
}

fn copy_catches_up(flags: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let first: String = (1..=3000).map(|n| format!("first {n:04} {ID}\n")).collect();
    append(&log, &first);
    let mut args = flags.to_vec();
    args.extend([ID, "."]);
    let mut tail = Tail::start(dir.path(), &args);
    tail.expect("first 3000 ");
    let copy = dir.path().join("app.log.1");
    fs::write(&copy, &first).unwrap();
    pause(300);
    for n in 1..=5 {
        let line = format!("during {n} {ID}\n");
        append(&log, &line);
        tail.expect(&format!("during {n} "));
        append(&copy, &line);
        pause(200);
    }
    // Written after the copy's last piece, before the truncation: only the copy keeps it.
    append(&log, &format!("late {ID}\n"));
    append(&copy, &format!("late {ID}\n"));
    let (got, status, stderr) = truncate_then_stop(tail, &log, 500);
    assert_eq!(got.len(), 3000 + 5 + 2, "{:#?}", &got[2990..]);
    assert_eq!(
        counts(&got).get(&format!("late {ID}")),
        Some(&1),
        "{:#?}",
        &got[2990..]
    );
    assert_eq!(status.code(), Some(0), "{stderr}");
}
