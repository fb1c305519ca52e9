//! A live pipe (`tail -f app.log | idgrep ID`) shows each match as its line arrives, on a
//! terminal and with `--line-buffered`, while the writer is still writing.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::support::{idgrep, wait_within};

const ID: &str = "01M8KBYGM5NG2PSHNY302ZVWBS";

/// Long enough for a loaded machine; a held-back line never comes before the input ends.
const PATIENCE: Duration = Duration::from_secs(30);

/// The lines of `stdout`, one by one, as they arrive.
fn lines_of(stdout: ChildStdout) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// The next line holding `needle`, while the input is still open.
fn next_with(lines: &mpsc::Receiver<String>, needle: &str, child: &mut Child) -> String {
    loop {
        match lines.recv_timeout(PATIENCE) {
            Ok(line) if line.contains(needle) => return line,
            Ok(_) => {}
            Err(e) => {
                let _ = child.kill();
                panic!("no line with {needle:?} while the input is open ({e}): output held back");
            }
        }
    }
}

#[test]
fn line_buffered_output_shows_each_match_while_the_pipe_is_open() {
    let mut child = idgrep()
        .args(["--line-buffered", ID])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = lines_of(child.stdout.take().unwrap());
    writeln!(stdin, "noise\nfirst {ID}").unwrap();
    stdin.flush().unwrap();
    assert_eq!(
        next_with(&lines, "first", &mut child),
        format!("2:first {ID}")
    );
    writeln!(stdin, "second {}", ID.to_lowercase()).unwrap();
    stdin.flush().unwrap();
    assert!(next_with(&lines, "second", &mut child).starts_with("3:second"));
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// On a terminal the default is line buffering: `script` gives idgrep a pseudo-terminal as
/// its standard output, and its input is a FIFO the test keeps open.
#[test]
fn on_a_terminal_each_match_shows_while_the_pipe_is_open() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("live");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let inner = format!(
        "'{}' --color never {ID} < '{}'",
        env!("CARGO_BIN_EXE_idgrep"),
        fifo.display()
    );
    let mut child = Command::new("script")
        .args(["-qfec", &inner, "/dev/null"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the terminal test needs util-linux's script (Debian's bsdutils)");
    let lines = lines_of(child.stdout.take().unwrap());
    // Opening the FIFO for writing waits for idgrep to open it for reading.
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    writeln!(writer, "first {ID}").unwrap();
    writer.flush().unwrap();
    let first = next_with(&lines, "first", &mut child);
    assert_eq!(first.trim_end_matches('\r'), format!("1:first {ID}"));
    writeln!(writer, "second {ID}").unwrap();
    writer.flush().unwrap();
    next_with(&lines, "second", &mut child);
    drop(writer);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// `-q` on a live pipe exits 0 at the first match, while the writer still holds the pipe open.
#[test]
fn quiet_exits_at_the_first_match_of_a_live_pipe() {
    let mut child = idgrep()
        .args(["-q", ID])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "noise\nfound {ID}").unwrap();
    stdin.flush().unwrap();
    let status = wait_within(&mut child, PATIENCE);
    drop(stdin);
    assert_eq!(status.code(), Some(0));
}

/// A socket as standard input (as `systemd` hands a service one) is read as lines arrive,
/// like a pipe.
#[test]
fn a_socket_on_stdin_is_searched_as_lines_arrive() {
    let (mut writer, reader) = std::os::unix::net::UnixStream::pair().unwrap();
    let mut child = idgrep()
        .args(["--line-buffered", ID])
        .stdin(std::os::fd::OwnedFd::from(reader))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = lines_of(child.stdout.take().unwrap());
    writeln!(writer, "noise\nvia socket {ID}").unwrap();
    writer.flush().unwrap();
    assert_eq!(
        next_with(&lines, "via socket", &mut child),
        format!("2:via socket {ID}")
    );
    drop(writer);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// Into a pipe, without `--line-buffered`, output comes in blocks: a lone match waits for
/// more output or the end of the input (the throughput default, as ripgrep's).
#[test]
fn into_a_pipe_output_is_block_buffered_by_default() {
    let mut child = idgrep()
        .arg(ID)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = lines_of(child.stdout.take().unwrap());
    writeln!(stdin, "held {ID}").unwrap();
    stdin.flush().unwrap();
    assert!(
        lines.recv_timeout(Duration::from_millis(700)).is_err(),
        "a block-buffered line came before the input ended"
    );
    drop(stdin);
    assert_eq!(
        lines.recv_timeout(PATIENCE).unwrap(),
        format!("1:held {ID}")
    );
    assert_eq!(child.wait().unwrap().code(), Some(0));
}
