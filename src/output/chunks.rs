//! Long outputs on several threads: a pass over every row split among the threads
//! ([`map_parts`]), and rows formatted a chunk at a time on each thread while the calling
//! thread writes the chunks in order ([`write_chunks`]). The `ids` table and the timeline's
//! rows share them: with tens of thousands of rows, formatting on one thread held the
//! output back by a tenth of a two-thread run.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};

/// `of` over the rows `0..len` split into one run per thread, in order; one run on this
/// thread when there are fewer than `min_rows` rows or one thread.
pub fn map_parts<T: Send>(
    len: usize,
    threads: usize,
    min_rows: usize,
    of: impl Fn(Range<usize>) -> T + Sync,
) -> Vec<T> {
    if threads < 2 || len < min_rows {
        return vec![of(0..len)];
    }
    let per = len.div_ceil(threads);
    std::thread::scope(|scope| {
        let parts: Vec<_> = (0..threads)
            .map(|t| {
                let rows = (t * per).min(len)..((t + 1) * per).min(len);
                let of = &of;
                scope.spawn(move || of(rows))
            })
            .collect();
        parts
            .into_iter()
            .map(|part| part.join().expect("an output thread panicked"))
            .collect()
    })
}

/// Formats the rows `0..len`, `chunk_rows` at a time, with `format_chunk`, which appends a
/// chunk's rows to an empty buffer, on `threads` threads, a chunk at a time each, while this
/// thread writes the chunks in order.
///
/// Written buffers go back to the formatters, so that each grows once: a fresh buffer per
/// chunk, sized by a guess per row, was copied as it grew whenever the guess fell short (a
/// table chunk of 16,384 rows outgrew its 2.6 MB by a few percent on the bench corpus).
pub fn write_chunks(
    out: &mut dyn Write,
    len: usize,
    chunk_rows: usize,
    threads: usize,
    format_chunk: impl Fn(Range<usize>, &mut Vec<u8>) -> io::Result<()> + Sync,
) -> io::Result<()> {
    let chunk_rows = chunk_rows.max(1);
    let chunks = len.div_ceil(chunk_rows);
    let rows = |chunk: usize| chunk * chunk_rows..((chunk + 1) * chunk_rows).min(len);
    if threads < 2 || chunks < 2 {
        let mut buf = Vec::new();
        for chunk in 0..chunks {
            buf.clear();
            format_chunk(rows(chunk), &mut buf)?;
            out.write_all(&buf)?;
        }
        return Ok(());
    }
    let next = AtomicUsize::new(0);
    let spare: Mutex<Vec<Vec<u8>>> = Mutex::default();
    std::thread::scope(|scope| {
        // A few chunks in flight at most: memory stays bounded whatever the output's pace.
        let (done, formatted) = mpsc::sync_channel(threads);
        for _ in 0..threads {
            let done = done.clone();
            let (next, format_chunk, rows, spare) = (&next, &format_chunk, &rows, &spare);
            scope.spawn(move || {
                loop {
                    let chunk = next.fetch_add(1, Ordering::Relaxed);
                    if chunk >= chunks {
                        break;
                    }
                    let mut buf = spare
                        .lock()
                        .ok()
                        .and_then(|mut s| s.pop())
                        .unwrap_or_default();
                    buf.clear();
                    let formatted = format_chunk(rows(chunk), &mut buf).map(|()| buf);
                    // A send fails once the writer has stopped on an error.
                    if done.send((chunk, formatted)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done);
        let mut waiting = BTreeMap::new();
        let mut want = 0;
        for (chunk, buf) in formatted {
            waiting.insert(chunk, buf);
            while let Some(buf) = waiting.remove(&want) {
                let buf = buf?;
                out.write_all(&buf)?;
                if let Ok(mut spare) = spare.lock() {
                    spare.push(buf);
                }
                want += 1;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row once, in order, whatever the threads and the chunk size.
    #[test]
    fn chunks_come_out_in_row_order() {
        for threads in [1, 2, 3] {
            for (len, chunk_rows) in [(0, 4), (1, 4), (10, 3), (100, 7), (64, 64)] {
                let mut out = Vec::new();
                write_chunks(&mut out, len, chunk_rows, threads, |rows, buf| {
                    for row in rows {
                        writeln!(buf, "{row}")?;
                    }
                    Ok(())
                })
                .unwrap();
                let expected: String = (0..len).map(|row| format!("{row}\n")).collect();
                assert_eq!(String::from_utf8(out).unwrap(), expected, "{threads} {len}");
            }
        }
    }

    /// The parts cover every row once, in order.
    #[test]
    fn parts_cover_the_rows_in_order() {
        for threads in [1, 2, 3] {
            for len in [0, 1, 5, 100] {
                let parts = map_parts(len, threads, 2, |rows| rows.collect::<Vec<_>>());
                assert_eq!(parts.concat(), (0..len).collect::<Vec<_>>());
            }
        }
    }

    /// A formatting error stops the output and comes back to the caller.
    #[test]
    fn an_error_in_a_chunk_is_returned() {
        let mut out = Vec::new();
        let result = write_chunks(&mut out, 100, 10, 2, |rows, buf| {
            if rows.start == 50 {
                return Err(io::Error::other("no"));
            }
            buf.push(b'.');
            Ok(())
        });
        assert!(result.is_err());
        assert!(out.len() <= 5, "{}", out.len());
    }
}
