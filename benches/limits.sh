#!/usr/bin/env bash
# benches/limits.sh: what makes idgrep's memory and time grow, measured (docs/reliability.md).
# Prints wall time and peak RSS (GNU time) of idgrep, and of ripgrep where it does the same job:
#   1. one line without a newline, LINE_MB megabytes (default 2000): counted (-c) and printed;
#   2. -B N: a match after N lines of 100 bytes, N in BEFORE_LIST;
#   3. the ID inventory (`ids`) over files of N distinct IDs, N in IDS_LIST;
#   4. a tree of FILES (default 1,000,000) empty files: search and ids, and rg.
# SECTIONS (default "1 2 3 4") picks which run; BASE, another idgrep binary (an earlier
# build), is measured on the long line too.
# Files go to WORK (default target/limits), removed at the end. IDGREP as in common.sh
# (target/release/idgrep, built here, unless set).
set -euo pipefail
cd "$(dirname "$0")/.."

IDGREP=${IDGREP:-target/release/idgrep}
RG=${RG:-$(command -v rg || echo ~/.cargo/bin/rg)}
WORK=${WORK:-target/limits}
LINE_MB=${LINE_MB:-2000}
BEFORE_LIST=${BEFORE_LIST:-"1000 100000 1000000"}
IDS_LIST=${IDS_LIST:-"100000 1000000 3000000"}
FILES=${FILES:-1000000}
SECTIONS=${SECTIONS:-"1 2 3 4"}
BASE=${BASE:-}
ID=01m592wyvrm6f3s97b8ys6vsxc

if [[ $IDGREP == target/release/idgrep ]]; then
    cargo build --release --quiet
fi
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 2; }
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT

# measure LABEL CMD...: one run, its output to /dev/null; prints seconds and peak MiB.
measure() {
    local label=$1
    shift
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" >/dev/null 2>"$WORK/err" || true
    read -r secs kib < <(tail -n 1 "$WORK/time")
    awk -v l="$label" -v s="$secs" -v k="$kib" 'BEGIN { printf "%-44s %8s s %9.1f MiB\n", l, s, k / 1024 }'
}

section() { [[ " $SECTIONS " == *" $1 "* ]]; }

if section 1; then
echo "== 1. one line of $LINE_MB MB without a newline, the ID in its middle"
python3 - "$WORK/line.log" "$LINE_MB" "$ID" <<'PY'
import sys
path, mb, ident = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
chunk = b'{"k":"v","n":12345} ' * 65536
half = mb * 1_000_000 // 2
with open(path, "wb") as f:
    for _ in range(2):
        n = 0
        while n < half:
            f.write(chunk)
            n += len(chunk)
        if ident:
            f.write(b" " + ident + b" ")
            ident = b""
PY
measure "idgrep -c" "$IDGREP" -c "$ID" "$WORK/line.log"
measure "idgrep (the line printed)" "$IDGREP" "$ID" "$WORK/line.log"
if [[ -n $BASE ]]; then
    measure "base -c" "$BASE" -c "$ID" "$WORK/line.log"
    measure "base (the line printed)" "$BASE" "$ID" "$WORK/line.log"
fi
measure "rg -c" "$RG" -c "$ID" "$WORK/line.log"
measure "rg (the line printed)" "$RG" "$ID" "$WORK/line.log"
rm -f "$WORK/line.log"
fi

if section 2; then
echo "== 2. -B N: a match after N lines of 100 bytes"
for n in $BEFORE_LIST; do
    python3 - "$WORK/before.log" "$n" "$ID" <<'PY'
import sys
path, n, ident = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, "w") as f:
    line = "x" * 99 + "\n"
    for _ in range(n):
        f.write(line)
    f.write(f"match {ident}\n")
PY
    measure "idgrep -B $n" "$IDGREP" -B "$n" "$ID" "$WORK/before.log"
    measure "rg -B $n" "$RG" -B "$n" "$ID" "$WORK/before.log"
done
rm -f "$WORK/before.log"
fi

if section 3; then
echo "== 3. ids over N distinct IDs (each on two lines, 75-byte lines)"
for n in $IDS_LIST; do
    python3 - "$WORK/ids.log" "$n" <<'PY'
import sys, random
path, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(1)
alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
with open(path, "w") as f:
    for _ in range(n):
        ident = "01" + "".join(rnd.choice(alphabet) for _ in range(24))
        f.write(f"2026-11-29T10:00:00Z req={ident} start\n2026-11-29T10:00:01Z req={ident} end\n")
PY
    measure "idgrep ids ($n IDs)" "$IDGREP" ids "$WORK/ids.log"
done
rm -f "$WORK/ids.log"
fi

if section 4; then
echo "== 4. a tree of $FILES empty files (1,000 directories)"
python3 - "$WORK/tree" "$FILES" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, f"d{i % 1000:03d}")
    if i < 1000:
        os.makedirs(d, exist_ok=True)
    open(os.path.join(d, f"f{i}.log"), "w").close()
PY
measure "idgrep search" "$IDGREP" "$ID" "$WORK/tree"
measure "idgrep ids" "$IDGREP" ids "$WORK/tree"
measure "idgrep audit" "$IDGREP" audit "$WORK/tree"
measure "rg" "$RG" "$ID" "$WORK/tree"
fi
