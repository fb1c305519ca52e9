//! Lookups on logs and indexes that are on disk, not in memory: whether a read would wait for
//! the disk, and asking the kernel for many parts of a file at once.
//!
//! A lookup reads a few KiB at a time from places far apart: each candidate block of a log,
//! each run of block-table entries. From memory each read costs a system call; from disk each
//! waits for its own trip to the device, one after another. So the first read of a file's
//! parts is tried from memory only (`preadv2` with `RWF_NOWAIT`); when that would wait, every
//! part is asked for at once (`posix_fadvise(POSIX_FADV_WILLNEED)`, which starts the reads
//! and returns), and the reads that follow find their bytes on the way or arrived. In memory
//! the first read is the read, so nothing is added. The advice changes no byte read.
//!
//! Elsewhere than Linux nothing is tried: each read waits for itself, as it did.

use std::fs::File;

/// Reads `buf.len()` bytes of `file` at `at` if the kernel has them all in memory; `None`
/// when a read would wait for the disk (or this system cannot tell, or the file ends
/// first): the caller then reads as usual, and `buf` holds nothing it can use.
#[cfg(target_os = "linux")]
pub fn read_cached(file: &File, buf: &mut [u8], at: u64) -> Option<()> {
    use rustix::io::{ReadWriteFlags, preadv2};
    let want = buf.len();
    let read = preadv2(
        file,
        &mut [std::io::IoSliceMut::new(buf)],
        at,
        ReadWriteFlags::NOWAIT,
    );
    (read.ok()? == want).then_some(())
}

#[cfg(not(target_os = "linux"))]
pub fn read_cached(_file: &File, _buf: &mut [u8], _at: u64) -> Option<()> {
    None
}

/// Asks the kernel to start reading each `(offset, length)` of `spans` into memory, and
/// returns at once. Advice only: a span it does not take is read when it is asked for.
#[cfg(target_os = "linux")]
pub fn will_need(file: &File, spans: impl IntoIterator<Item = (u64, u64)>) {
    use rustix::fs::{Advice, fadvise};
    for (offset, len) in spans {
        // A length of zero would mean "to the end of the file".
        if let Some(len) = std::num::NonZeroU64::new(len) {
            let _ = fadvise(file, offset, Some(len), Advice::WillNeed);
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub fn will_need(_file: &File, _spans: impl IntoIterator<Item = (u64, u64)>) {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Write;

    /// Bytes just written are in memory: they are read from it, and match. Past the file's
    /// end nothing is claimed.
    #[test]
    fn bytes_in_memory_are_read_from_it() {
        let mut file = tempfile::tempfile().unwrap();
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        file.write_all(&data).unwrap();
        let mut buf = vec![0u8; 3000];
        assert_eq!(read_cached(&file, &mut buf, 1234), Some(()));
        assert_eq!(buf, data[1234..4234]);
        assert_eq!(read_cached(&file, &mut buf, 9000), None);
        // Advice on bytes already there, or past the end, changes nothing.
        will_need(&file, [(0, 4096), (9000, 5000), (20_000, 0)]);
        assert_eq!(read_cached(&file, &mut buf, 0), Some(()));
        assert_eq!(buf, data[..3000]);
    }
}
