//! Line numbers for [`super::Matcher::find_numbered`], from the newline counts the vector
//! loops leave as checkpoints while they search.

use super::Hit;

/// Line numbers for [`Matcher::find_numbered`](super::Matcher::find_numbered): the newlines before each hit and in the whole
/// buffer. The vector loops count newlines in the bytes they load anyway, so line numbers
/// need no second pass over the buffer (that pass ran at the L2 bandwidth, 15-20 ms per GiB).
#[derive(Debug, Default)]
pub struct Numbering {
    /// `before[i]`: the newlines before `hits[i].start`.
    pub before: Vec<u64>,
    /// The newlines in the whole buffer.
    pub total: u64,
    /// (position, newlines before it), ascending: how far a vector loop had counted when it
    /// met candidates. Hits are numbered from the nearest one before them.
    pub(super) checkpoints: Vec<(usize, u64)>,
}

impl Numbering {
    /// Records that `cum` newlines precede `counted_to`, as a checkpoint a little before
    /// `block`: a hit found in the block starts at most 28 bytes before it (a dashed UUID
    /// around a window or tail at the block's first byte).
    pub(super) fn checkpoint(&mut self, hay: &[u8], block: usize, counted_to: usize, cum: u64) {
        let at = block.saturating_sub(32);
        let before = cum - count_newlines(&hay[at..counted_to]);
        self.checkpoints.push((at, before));
    }

    /// Fills `before` for `hits` (in order of position) from the checkpoints, counting only
    /// the bytes between a checkpoint or the previous hit and each hit; returns the newlines
    /// counted up to where the last hit starts, and that position.
    pub(super) fn number(&mut self, hay: &[u8], hits: &[Hit]) -> (usize, u64) {
        self.before.clear();
        let (mut pos, mut before) = (0, 0);
        let mut next = 0;
        for hit in hits {
            while let Some(&(at, count)) = self.checkpoints.get(next) {
                if at > hit.start {
                    break;
                }
                if at > pos {
                    (pos, before) = (at, count);
                }
                next += 1;
            }
            before += count_newlines(&hay[pos..hit.start]);
            pos = hit.start;
            self.before.push(before);
        }
        (pos, before)
    }
}

/// The newlines in `bytes`.
pub(super) fn count_newlines(bytes: &[u8]) -> u64 {
    bytecount::count(bytes, b'\n') as u64
}
