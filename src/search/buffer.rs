//! The read buffer of a search: [`BUFFER_SIZE`] bytes on the heap, moved for a line longer
//! than that into an anonymous memory map that grows in place.
//!
//! A line must be in the buffer whole to be searched and printed, so a line of gigabytes
//! makes a buffer of gigabytes. Grown as a `Vec`, each doubling copied the buffer and
//! zero-filled its new half, and the allocator held the old copy a while: a 2 GB line peaked
//! at 1.9 times its size. The pages of an anonymous map take memory only once a read fills
//! them, and `mremap` moves them to a larger range without copying, so the buffer costs about
//! the bytes read into it. Once the long line is done and what is left fits the heap buffer,
//! the map is given back.

use std::io;
use std::ops::{Deref, DerefMut, Range};

use memmap2::MmapMut;

use super::BUFFER_SIZE;

/// Where the bytes are.
enum Storage {
    Heap(Vec<u8>),
    Map(MmapMut),
}

/// A byte buffer of [`BUFFER_SIZE`] bytes or more; see the module documentation.
pub struct ReadBuffer(Storage);

impl Default for ReadBuffer {
    fn default() -> ReadBuffer {
        ReadBuffer(Storage::Heap(Vec::new()))
    }
}

impl Deref for ReadBuffer {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            Storage::Heap(v) => v,
            Storage::Map(m) => m,
        }
    }
}

impl DerefMut for ReadBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.0 {
            Storage::Heap(v) => v,
            Storage::Map(m) => m,
        }
    }
}

impl ReadBuffer {
    /// Makes it the heap buffer of [`BUFFER_SIZE`] bytes, for a new input: a long line of an
    /// earlier input gives its memory back.
    pub fn reset(&mut self) {
        if !matches!(&self.0, Storage::Heap(v) if v.len() == BUFFER_SIZE) {
            self.0 = Storage::Heap(vec![0; BUFFER_SIZE]);
        }
    }

    /// Doubles the size, keeping the bytes.
    pub fn grow(&mut self) -> io::Result<()> {
        let len = self.len().max(BUFFER_SIZE) * 2;
        match &mut self.0 {
            Storage::Heap(v) => {
                let mut map = MmapMut::map_anon(len)?;
                map[..v.len()].copy_from_slice(v);
                self.0 = Storage::Map(map);
            }
            Storage::Map(map) => grow_map(map, len)?,
        }
        Ok(())
    }

    /// Moves the bytes of `range` to the front, where the next read continues them, and
    /// returns their length; a map whose remaining bytes fit the heap buffer is given back.
    pub fn keep(&mut self, range: Range<usize>) -> usize {
        let kept = range.len();
        match &mut self.0 {
            Storage::Map(map) if kept <= BUFFER_SIZE / 2 => {
                let mut heap = vec![0; BUFFER_SIZE];
                heap[..kept].copy_from_slice(&map[range]);
                self.0 = Storage::Heap(heap);
            }
            _ => self.copy_within(range, 0),
        }
        kept
    }
}

/// `map` made `len` bytes long, its pages moved rather than copied.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn grow_map(map: &mut MmapMut, len: usize) -> io::Result<()> {
    // SAFETY: `remap` may move the mapping; the `&mut` borrow means no reference into it is
    // alive, and the map is anonymous, so no file can shrink under it.
    unsafe { map.remap(len, memmap2::RemapOptions::new().may_move(true)) }
}

/// `map` made `len` bytes long: without `mremap`, a new map and a copy.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn grow_map(map: &mut MmapMut, len: usize) -> io::Result<()> {
    let mut larger = MmapMut::map_anon(len)?;
    larger[..map.len()].copy_from_slice(map);
    *map = larger;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growing_keeps_the_bytes_and_keeping_a_short_tail_returns_to_the_heap() {
        let mut buf = ReadBuffer::default();
        buf.reset();
        assert_eq!(buf.len(), BUFFER_SIZE);
        buf.fill(7);
        buf.grow().unwrap();
        assert_eq!(buf.len(), 2 * BUFFER_SIZE);
        assert!(matches!(buf.0, Storage::Map(_)));
        buf[BUFFER_SIZE..].fill(9);
        buf.grow().unwrap();
        assert_eq!(buf.len(), 4 * BUFFER_SIZE);
        assert!(buf[..BUFFER_SIZE].iter().all(|&b| b == 7));
        assert!(buf[BUFFER_SIZE..2 * BUFFER_SIZE].iter().all(|&b| b == 9));
        assert!(buf[2 * BUFFER_SIZE..].iter().all(|&b| b == 0));

        // A long tail stays in the map, at the front.
        let end = 2 * BUFFER_SIZE + 10;
        assert_eq!(buf.keep(BUFFER_SIZE - 10..end), BUFFER_SIZE + 20);
        assert!(matches!(buf.0, Storage::Map(_)));
        assert_eq!(buf[..10], [7; 10]);
        assert!(buf[10..BUFFER_SIZE + 10].iter().all(|&b| b == 9));
        assert_eq!(buf[BUFFER_SIZE + 10..BUFFER_SIZE + 20], [0; 10]);
        // A short one goes back to the heap buffer.
        assert_eq!(buf.keep(5..15), 10);
        assert!(matches!(&buf.0, Storage::Heap(v) if v.len() == BUFFER_SIZE));
        assert_eq!(buf[..10], [7, 7, 7, 7, 7, 9, 9, 9, 9, 9]);
        buf.grow().unwrap();
        buf.reset();
        assert!(matches!(&buf.0, Storage::Heap(v) if v.len() == BUFFER_SIZE));
    }
}
