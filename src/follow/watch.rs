//! What wakes the follower: file-system events from the OS through the `notify` crate
//! (inotify, kqueue, FSEvents, ReadDirectoryChangesW), SIGINT and SIGTERM, or, when polling,
//! only the clock. Everything arrives on one channel, so the follower sleeps in one place and
//! uses no CPU while nothing happens.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Instant;

use notify::event::{AccessKind, EventKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};

/// Why the follower woke.
pub enum Wake {
    /// Something happened to these paths (as watched: `./app.log` under a watched `.`).
    Paths(Vec<PathBuf>),
    /// Events were lost (the OS queue overflowed): every file is looked at again.
    Rescan,
    /// SIGINT or SIGTERM.
    Stop,
}

pub struct Wakes {
    rx: Receiver<Wake>,
    /// `None` when polling.
    watcher: Option<RecommendedWatcher>,
}

impl Wakes {
    /// Wakes from signals, and from file-system events unless `events` is false (polling).
    pub fn new(events: bool) -> Result<Wakes, String> {
        let (tx, rx) = mpsc::channel();
        listen_for_signals(tx.clone())?;
        let watcher = if events {
            let handler = move |result: notify::Result<notify::Event>| {
                let wake = match result {
                    Ok(event) if event.need_rescan() => Wake::Rescan,
                    // Our own opens are events too; reads of a file change nothing.
                    Ok(event)
                        if matches!(
                            event.kind,
                            EventKind::Access(AccessKind::Open(_) | AccessKind::Read)
                        ) =>
                    {
                        return;
                    }
                    Ok(event) => Wake::Paths(event.paths),
                    Err(e) if !e.paths.is_empty() => Wake::Paths(e.paths),
                    Err(_) => Wake::Rescan,
                };
                let _ = tx.send(wake);
            };
            Some(notify::recommended_watcher(handler).map_err(|e| e.to_string())?)
        } else {
            None
        };
        Ok(Wakes { rx, watcher })
    }

    /// Whether OS file events arrive (else the caller polls).
    pub fn has_events(&self) -> bool {
        self.watcher.is_some()
    }

    /// Watches a directory (with everything below it when `recursive`), or one file.
    pub fn watch(&mut self, path: &Path, recursive: bool) -> Result<(), String> {
        let Some(watcher) = &mut self.watcher else {
            return Ok(());
        };
        let mode = if recursive {
            RecursiveMode::Recursive
        } else {
            RecursiveMode::NonRecursive
        };
        watcher.watch(path, mode).map_err(|e| describe(&e))
    }

    pub fn unwatch(&mut self, path: &Path) {
        if let Some(watcher) = &mut self.watcher {
            let _ = watcher.unwatch(path);
        }
    }

    /// Waits for the next wake, until `deadline` at the latest (`None`: timed out).
    pub fn wait(&self, deadline: Option<Instant>) -> Option<Wake> {
        match deadline {
            None => self.rx.recv().ok(),
            Some(at) => match self
                .rx
                .recv_timeout(at.saturating_duration_since(Instant::now()))
            {
                Ok(wake) => Some(wake),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => Some(Wake::Stop),
            },
        }
    }

    /// A wake that has already arrived, if any.
    pub fn next_ready(&self) -> Option<Wake> {
        self.rx.try_recv().ok()
    }
}

/// A watch error in a few words: the OS's reason, without the paths notify lists.
fn describe(e: &notify::Error) -> String {
    match &e.kind {
        notify::ErrorKind::Io(io) => crate::source::io_reason(io),
        notify::ErrorKind::MaxFilesWatch => {
            "the OS limit of watches is reached (raise fs.inotify.max_user_watches, or use --poll MS)"
                .to_string()
        }
        notify::ErrorKind::PathNotFound => "no such file or directory".to_string(),
        other => format!("{other:?}"),
    }
}

/// Sends [`Wake::Stop`] on SIGINT and SIGTERM, from a thread that waits for them.
#[cfg(unix)]
fn listen_for_signals(tx: Sender<Wake>) -> Result<(), String> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])
        .map_err(|e| format!("cannot catch SIGINT and SIGTERM: {e}"))?;
    std::thread::spawn(move || {
        for _ in signals.forever() {
            if tx.send(Wake::Stop).is_err() {
                break;
            }
        }
    });
    Ok(())
}

/// Without Unix signals, Ctrl-C ends the process as it does any other.
#[cfg(not(unix))]
fn listen_for_signals(_tx: Sender<Wake>) -> Result<(), String> {
    Ok(())
}
