//! Where lines go: one directory per service under the output directory, each holding
//! numbered files that rotate at a size drawn per file, plus the byte, file and
//! hot-ID-per-file tallies the query JSON reports.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::rng::Rng;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Svc {
    Gateway = 0,
    Api,
    Payments,
    Worker,
    Billing,
    Notifier,
    Ledger,
}

pub const SERVICES: [&str; 7] = [
    "gateway", "api", "payments", "worker", "billing", "notifier", "ledger",
];

impl Svc {
    pub fn name(self) -> &'static str {
        SERVICES[self as usize]
    }
}

struct Stream {
    dir: PathBuf,
    name: &'static str,
    out: Option<BufWriter<File>>,
    bytes: u64,
    limit: u64,
    index: u32,
    has_hot_ulid: bool,
    has_hot_uuid: bool,
}

pub struct Sink {
    streams: Vec<Stream>,
    /// Files are cut between half and all of this, so a 1 GiB corpus has about a hundred.
    base_limit: u64,
    pub bytes: u64,
    pub files: u64,
    pub hot_ulid_files: u64,
    pub hot_uuid_files: u64,
}

impl Sink {
    pub fn new(root: &Path, total: u64) -> io::Result<Sink> {
        let mut streams = Vec::new();
        for name in SERVICES {
            let dir = root.join(name);
            fs::create_dir_all(&dir)?;
            streams.push(Stream {
                dir,
                name,
                out: None,
                bytes: 0,
                limit: 0,
                index: 0,
                has_hot_ulid: false,
                has_hot_uuid: false,
            });
        }
        Ok(Sink {
            streams,
            base_limit: (total / 80).clamp(64 << 10, 16 << 20),
            bytes: 0,
            files: 0,
            hot_ulid_files: 0,
            hot_uuid_files: 0,
        })
    }

    pub fn write(
        &mut self,
        svc: Svc,
        line: &[u8],
        hot_ulid: bool,
        hot_uuid: bool,
        rng: &mut Rng,
    ) -> io::Result<()> {
        let base = self.base_limit;
        let s = &mut self.streams[svc as usize];
        if s.out.is_none() {
            s.index += 1;
            let path = s.dir.join(format!("{}-{:04}.log", s.name, s.index));
            s.out = Some(BufWriter::with_capacity(256 << 10, File::create(path)?));
            s.bytes = 0;
            s.limit = base / 2 + rng.below(base / 2 + 1);
            s.has_hot_ulid = false;
            s.has_hot_uuid = false;
            self.files += 1;
        }
        if hot_ulid && !s.has_hot_ulid {
            s.has_hot_ulid = true;
            self.hot_ulid_files += 1;
        }
        if hot_uuid && !s.has_hot_uuid {
            s.has_hot_uuid = true;
            self.hot_uuid_files += 1;
        }
        let out = s.out.as_mut().expect("opened above");
        out.write_all(line)?;
        s.bytes += line.len() as u64;
        self.bytes += line.len() as u64;
        if s.bytes >= s.limit {
            let mut done = s.out.take().expect("opened above");
            done.flush()?;
        }
        Ok(())
    }

    pub fn finish(&mut self) -> io::Result<()> {
        for s in &mut self.streams {
            if let Some(mut out) = s.out.take() {
                out.flush()?;
            }
        }
        Ok(())
    }
}
