//! Shared helpers: a deterministic generator for test inputs, the paths of the bundled test
//! data and the built binary, and one run of it.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};

/// splitmix64: deterministic, so a failure reproduces from its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn u128(&mut self) -> u128 {
        (self.next() as u128) << 64 | self.next() as u128
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

pub fn testdata(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(rel)
}

/// The idgrep binary, run from the crate root with colour decided by the flags alone.
pub fn idgrep() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_idgrep"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd.env_remove("NO_COLOR");
    cmd
}

/// One run of idgrep with `args` and nothing on standard input, its output collected.
pub fn run(args: &[&str]) -> Output {
    idgrep().args(args).stdin(Stdio::null()).output().unwrap()
}

/// One run of idgrep with `args` and `input` on standard input, its output collected.
pub fn run_with_input(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = idgrep()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// Decompressed contents of a test file, by the crates the tests trust as oracles.
pub fn decompressed(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap();
    let mut out = Vec::new();
    match path.extension().and_then(|e| e.to_str()) {
        Some("gz") => {
            flate2::read::MultiGzDecoder::new(&raw[..])
                .read_to_end(&mut out)
                .unwrap();
        }
        Some("zst") => out = zstd::decode_all(&raw[..]).unwrap(),
        _ => out = raw,
    }
    out
}

pub fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Waits for `child` to exit, at most `limit`; kills it and fails past that.
pub fn wait_within(child: &mut std::process::Child, limit: std::time::Duration) -> ExitStatus {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
