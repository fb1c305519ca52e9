//! Runs an `idgrep` command inside the fuzzer's process (so that the fuzzer sees its coverage),
//! with standard output and error sent to memory files for the time of the run.

use std::ffi::{CString, OsString};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::{AsRawFd, FromRawFd};

use idgrep::{cli, cmd, exit};

use crate::checks::Output;

pub fn run(args: &[OsString]) -> Output {
    let mut argv = vec![OsString::from("idgrep")];
    argv.extend_from_slice(args);
    let mut out = memory_file("stdout");
    let mut err = memory_file("stderr");
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: plain descriptor calls on descriptors this function owns or the process's 1
    // and 2, which are put back before it returns.
    let status = unsafe {
        let saved = (libc::dup(1), libc::dup(2));
        assert!(saved.0 >= 0 && saved.1 >= 0, "dup");
        libc::dup2(out.as_raw_fd(), 1);
        libc::dup2(err.as_raw_fd(), 2);
        let status = match cli::parse_from(argv) {
            Err(cli::UsageError(message)) => {
                exit::report(&message);
                2
            }
            Ok(command) => cmd::run(command) as i32,
        };
        let _ = std::io::stdout().flush();
        libc::dup2(saved.0, 1);
        libc::dup2(saved.1, 2);
        libc::close(saved.0);
        libc::close(saved.1);
        status
    };
    Output {
        stdout: contents(&mut out),
        stderr: contents(&mut err),
        status,
    }
}

fn memory_file(name: &str) -> File {
    let name = CString::new(name).expect("no NUL");
    // SAFETY: a valid C string; the descriptor returned is checked and owned by the File.
    unsafe {
        let fd = libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC);
        assert!(fd >= 0, "memfd_create");
        File::from_raw_fd(fd)
    }
}

fn contents(file: &mut File) -> Vec<u8> {
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0)).expect("seek");
    file.read_to_end(&mut bytes).expect("read");
    bytes
}
