//! The progress bar on standard error for scans of whole log trees: bytes done of the total,
//! rate and time left. It shows only when standard error is a terminal and the scan has
//! already taken a second, so quick runs, pipes and CI logs never see it; it erases itself
//! before the results are printed.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const SHOW_AFTER: Duration = Duration::from_secs(1);
const REDRAW_EVERY: Duration = Duration::from_millis(150);
const BAR_WIDTH: usize = 30;

/// A running progress display; [`Progress::finish`] stops and erases it.
pub struct Progress {
    done: Arc<AtomicU64>,
    stop: Option<(mpsc::Sender<()>, JoinHandle<()>)>,
}

impl Progress {
    /// Starts counting; draws only if `enabled` (standard error is a terminal). `total` is
    /// the sum of the input sizes, `None` when unknown (standard input).
    pub fn start(enabled: bool, total: Option<u64>) -> Progress {
        let done = Arc::new(AtomicU64::new(0));
        let stop = enabled.then(|| {
            let (sender, receiver) = mpsc::channel::<()>();
            let counter = Arc::clone(&done);
            let handle = std::thread::spawn(move || draw_until_stopped(&counter, total, &receiver));
            (sender, handle)
        });
        Progress { done, stop }
    }

    /// The counter readers add their raw bytes to; `None` when nothing is drawn, so readers
    /// skip the counting.
    pub fn counter(&self) -> Option<&Arc<AtomicU64>> {
        self.stop.as_ref().map(|_| &self.done)
    }

    pub fn finish(self) {
        if let Some((sender, handle)) = self.stop {
            drop(sender);
            let _ = handle.join();
        }
    }
}

fn draw_until_stopped(done: &AtomicU64, total: Option<u64>, stop: &mpsc::Receiver<()>) {
    let started = Instant::now();
    let mut wait = SHOW_AFTER;
    let mut shown = false;
    while let Err(RecvTimeoutError::Timeout) = stop.recv_timeout(wait) {
        wait = REDRAW_EVERY;
        shown = true;
        let line = render(done.load(Ordering::Relaxed), total, started.elapsed());
        let _ = std::io::stderr().write_all(format!("\r{line}\x1b[K").as_bytes());
    }
    if shown {
        let _ = std::io::stderr().write_all(b"\r\x1b[K");
    }
}

/// One frame: `[#####-----]  412 MiB / 1.0 GiB  820 MiB/s  1s left`.
fn render(done: u64, total: Option<u64>, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64().max(1e-3);
    let rate = done as f64 / secs;
    match total {
        Some(total) if total > 0 => {
            let fraction = (done as f64 / total as f64).min(1.0);
            let filled = (fraction * BAR_WIDTH as f64).round() as usize;
            let left = if rate > 0.0 {
                format!(
                    "{}s left",
                    ((total.saturating_sub(done)) as f64 / rate).ceil() as u64
                )
            } else {
                String::new()
            };
            format!(
                "[{}{}] {} / {}  {}/s  {left}",
                "#".repeat(filled),
                "-".repeat(BAR_WIDTH - filled),
                bytes(done as f64),
                bytes(total as f64),
                bytes(rate)
            )
        }
        _ => format!("{} read  {}/s", bytes(done as f64), bytes(rate)),
    }
}

fn bytes(n: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_show_share_rate_and_time_left() {
        let frame = render(512 << 20, Some(1 << 30), Duration::from_secs(1));
        assert_eq!(
            frame,
            format!(
                "[{}{}] 512.0 MiB / 1.0 GiB  512.0 MiB/s  1s left",
                "#".repeat(15),
                "-".repeat(15)
            )
        );
        assert_eq!(
            render(2048, None, Duration::from_secs(2)),
            "2.0 KiB read  1.0 KiB/s"
        );
    }

    #[test]
    fn nothing_is_counted_when_not_drawn() {
        let p = Progress::start(false, Some(10));
        assert!(p.counter().is_none());
        p.finish();
    }
}
