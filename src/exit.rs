//! The process exit status and the one way errors reach the user: `idgrep: MESSAGE` on
//! standard error, escaped like log text. Per-input errors do not stop a run; they make the
//! status 2 at the end.

use std::io::{self, Write};

use crate::text;

/// The process exit status, as grep and ripgrep define it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Found = 0,
    NotFound = 1,
    Error = 2,
}

impl Exit {
    /// The status of a command that prints one report: an output failure or an input error
    /// wins, then whether anything was found.
    pub fn after_report(written: Result<(), Exit>, errored: bool, found: bool) -> Exit {
        match (written, errored, found) {
            (Err(exit), _, _) => exit,
            (Ok(()), true, _) => Exit::Error,
            (Ok(()), false, true) => Exit::Found,
            (Ok(()), false, false) => Exit::NotFound,
        }
    }
}

/// Prints `idgrep: MESSAGE` on stderr, escaped like log text (paths and reasons can hold
/// anything).
pub fn report(message: &str) {
    let mut line = b"idgrep: ".to_vec();
    text::escape_into(&mut line, message.as_bytes());
    line.push(b'\n');
    let _ = io::stderr().write_all(&line);
}
