#!/usr/bin/env bash
# benches/index_real.sh measures the ID index at the ID density of real logs (issue 18: "also
# on logs at real ID density"): the logs in LOGS, whole files copied again and again until the
# tree holds SIZE bytes, then, in one run, against the scan of the same command:
#   - the index's size against the log bytes (bar 0.10 on the bench corpus);
#   - a full build against `idgrep ids` (bar 1.5x);
#   - one ID with a fresh index: the ID on the most lines, and one on a median number;
#   - up to 1,000 IDs with -c -f, spread over the inventory ranked by lines.
# Every output with the index (standard output, standard error, exit status) is compared
# byte for byte with the scan's.
#
# usage: LOGS=/path/to/real/logs benches/index_real.sh
#
# Environment: LOGS (required: a directory of logs; nothing in this repository is used),
# SIZE (bytes, default 1 GiB), RUNS (default 5), THREADS (default 2), IDGREP, RESULTS.
set -euo pipefail

: "${LOGS:?set LOGS to a directory of real logs}"
# The paths given are the caller's; the script runs from the repository.
LOGS=$(realpath -e "$LOGS")
[[ -z ${IDGREP:-} ]] || IDGREP=$(realpath -e "$IDGREP")
[[ -z ${RESULTS:-} ]] || RESULTS=$(realpath -m "$RESULTS")
cd "$(dirname "$0")/.."

SIZE=${SIZE:-$((1 << 30))}
RUNS=${RUNS:-5}
THREADS=${THREADS:-2}
IDGREP=${IDGREP:-target/release/idgrep}
RESULTS=${RESULTS:-target/bench-results}
TREE=$RESULTS/real-corpus
CACHE=$RESULTS/real-index-cache

log() { printf '==> %s\n' "$*" >&2; }

command -v hyperfine >/dev/null || { log "hyperfine is needed (apt-get install hyperfine)"; exit 1; }
if [[ $IDGREP == target/release/idgrep ]]; then
    log "building idgrep (release)"
    cargo build --release --quiet
fi
mkdir -p "$RESULTS"

# The logs: every non-empty regular file under LOGS (a link to one included), by name.
list_logs() {
    python3 - "$LOGS" <<'PY'
import os, sys
logs = sys.argv[1]
for d, _, fs in sorted(os.walk(logs)):
    for f in sorted(fs):
        path = os.path.join(d, f)
        if os.path.isfile(path) and os.path.getsize(path) > 0:
            st = os.stat(path)
            print(f"{os.path.relpath(path, logs)}\t{st.st_size}\t{st.st_mtime_ns}")
PY
}
# The tree is made again only when a log (its name, size or time) or the size changes.
want="$(list_logs | sha256sum | cut -d' ' -f1) $SIZE"
if [[ ! -d $TREE || $(cat "$TREE.stamp" 2>/dev/null) != "$want" ]]; then
    log "copying $LOGS into $TREE until it holds $SIZE bytes"
    rm -rf "$TREE" "$TREE.stamp"
    list_logs >"$TREE.list"
    python3 - "$LOGS" "$TREE" "$SIZE" "$TREE.list" <<'PY'
import os, shutil, sys
logs, tree, size, listed = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
files = [line.split("\t")[0] for line in open(listed).read().splitlines()]
if not files:
    sys.exit(f"no logs in {logs}")
total, copy = 0, 0
while total < size:
    # A directory per round of copies, so every name stays the log's own.
    into = os.path.join(tree, f"copy-{copy:04d}")
    for f in files:
        if total >= size:
            break
        target = os.path.join(into, f)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(logs, f), target)
        total += os.path.getsize(target)
    copy += 1
print(f"{copy} rounds of copies, {total} bytes", file=sys.stderr)
PY
    rm "$TREE.list"
    echo "$want" >"$TREE.stamp"
fi
find "$TREE" -type f -exec cat {} + >/dev/null
BYTES=$(find "$TREE" -type f -printf '%s\n' | awk '{s += $1} END {print s}')

rm -rf "$CACHE" "$CACHE.build"
log "building the index once (for the lookups)"
$IDGREP index -j"$THREADS" --index-dir "$CACHE" "$TREE" >&2
INDEX_BYTES=$(du -sb "$CACHE" | cut -f1)

# The inventory ranked by lines: the top ID, the median one, and up to 1,000 spread evenly.
$IDGREP ids -j"$THREADS" --csv "$TREE" >"$RESULTS/real-ids.csv" 2>/dev/null
read -r TOP MEDIAN DISTINCT < <(python3 - "$RESULTS/real-ids.csv" "$RESULTS/real-ids-1000.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rows.sort(key=lambda r: -int(r["lines"]))
stride = -(-len(rows) // 1000)
open(sys.argv[2], "w").write("".join(r["id"] + "\n" for r in rows[::stride][:1000]))
print(rows[0]["id"], rows[len(rows) // 2]["id"], len(rows))
PY
)
log "$DISTINCT distinct IDs; the top one $TOP, a median one $MEDIAN"

hyperfine --style basic --warmup 1 --runs "$RUNS" --export-json "$RESULTS/real-lookup.json" \
    -n "top, index" "$IDGREP -j$THREADS --index-dir $CACHE $TOP $TREE > $RESULTS/real.top.index" \
    -n "top, scan" "$IDGREP -j$THREADS --no-index $TOP $TREE > $RESULTS/real.top.scan" \
    -n "median, index" "$IDGREP -j$THREADS --index-dir $CACHE $MEDIAN $TREE > $RESULTS/real.median.index" \
    -n "median, scan" "$IDGREP -j$THREADS --no-index $MEDIAN $TREE > $RESULTS/real.median.scan" \
    -n "list, index" "$IDGREP -j$THREADS --index-dir $CACHE -c -f $RESULTS/real-ids-1000.txt $TREE > $RESULTS/real.f.index" \
    -n "list, scan" "$IDGREP -j$THREADS --no-index -c -f $RESULTS/real-ids-1000.txt $TREE > $RESULTS/real.f.scan" \
    --prepare "rm -rf $CACHE.build" \
    -n "index (full build)" "$IDGREP index -j$THREADS --index-dir $CACHE.build $TREE > /dev/null" \
    -n "ids" "$IDGREP ids -j$THREADS $TREE > /dev/null 2>&1" >&2
for what in top median f; do
    cmp "$RESULTS/real.$what.index" "$RESULTS/real.$what.scan" ||
        { log "OUTPUT DIFFERS for $what"; exit 1; }
done
rm -rf "$CACHE.build"
# Standard error and the exit status too, once each.
for args in "$TOP" "$MEDIAN" "-c -f $RESULTS/real-ids-1000.txt"; do
    # shellcheck disable=SC2086
    with=$($IDGREP -j"$THREADS" --index-dir "$CACHE" $args "$TREE" 2>&1 >/dev/null; echo "exit $?")
    # shellcheck disable=SC2086
    without=$($IDGREP -j"$THREADS" --no-index $args "$TREE" 2>&1 >/dev/null; echo "exit $?")
    [[ $with == "$without" ]] || { log "STDERR OR EXIT STATUS DIFFERS for $args"; exit 1; }
done

python3 - "$RESULTS" "$BYTES" "$INDEX_BYTES" "$THREADS" "$DISTINCT" "$(wc -l <"$RESULTS/real-ids-1000.txt")" \
    "$(wc -l <"$RESULTS/real.top.scan")" "$(wc -l <"$RESULTS/real.median.scan")" <<'PY' |
import json, statistics, sys
results, logs, index, threads, distinct, listed, top_lines, median_lines = sys.argv[1:]
logs, index = int(logs), int(index)
med = {r["command"]: statistics.median(r["times"])
       for r in json.load(open(f"{results}/real-lookup.json"))["results"]}
print(f"{logs / 2**30:.2f} GiB of real logs repeated, {distinct} distinct IDs, {threads} threads, "
      "hyperfine medians, outputs compared.\n")
print("| measure | with index | without | ratio |")
print("|---|---:|---:|---:|")
def row(label, a, b, seconds=False):
    x, y = med[a], med[b]
    unit = (lambda t: f"{t:.2f} s") if seconds else (lambda t: f"{t * 1000:.1f} ms")
    print(f"| {label} | {unit(x)} | {unit(y)} | {x / y:.4f} |")
row(f"one ID, the one on most lines ({top_lines.strip()} lines)", "top, index", "top, scan")
row(f"one ID, a median one ({median_lines.strip()} lines)", "median, index", "median, scan")
row(f"{listed.strip()} IDs, -c -f", "list, index", "list, scan")
row("full build (against `idgrep ids`)", "index (full build)", "ids", seconds=True)
print(f"| index size (against the log bytes) | {index / 2**20:.1f} MiB | {logs / 2**20:.0f} MiB | {index / logs:.4f} |")
PY
    tee "$RESULTS/index-real.md"
