#!/usr/bin/env bash
# benches/tail.sh: `idgrep --tail` against `tail -F FILES | rg --line-buffered ID` in the same
# run: latency from a flushed write to the printed line (events and --poll), idle CPU with
# 1,000 files followed, CPU at a sustained 50 MB/s across 100 files, and memory over a long
# follow with rotations, and CPU while a gzip stream is written slowly into a followed
# directory. The measuring is in benches/tail.py; its variables (LAT_SAMPLES, POLL_MS,
# IDLE_FILES, IDLE_SECONDS, RATE_MB, RATE_SECONDS, MEM_SECONDS, GZ_CHUNKS, GZ_PAUSE, SECTIONS)
# pass through.
#
#   bash benches/tail.sh                    # about 4 minutes
#   MEM_SECONDS=3600 bash benches/tail.sh   # the hour-long memory check
set -euo pipefail
cd "$(dirname "$0")/.."
IDGREP=${IDGREP:-target/release/idgrep}
if [[ $IDGREP == target/release/idgrep ]]; then
    cargo build --release --quiet
fi
command -v rg >/dev/null || [[ -x ~/.cargo/bin/rg ]] || { echo "ripgrep is needed: cargo install ripgrep" >&2; exit 2; }
IDGREP=$IDGREP exec python3 benches/tail.py
