#!/usr/bin/env bash
# benches/index.sh measures the ID index against the scan it replaces, in one run, and
# prints a markdown table of medians and ratios against the bars of issue 18:
#   - one ID (the corpus's ULID query, 2,000 lines in 44 files, and its UUID query) with a
#     fresh index vs --no-index: at most 1/100 of the scan and at most 50 ms wall;
#   - 1,000 IDs with -f: at most 1/10 of the scan;
#   - a full build vs `idgrep ids`: at most 1.5x;
#   - an update after 1% of the bytes are appended vs a full build: at most 5%;
#   - the index's size vs the log bytes: at most 10%;
#   - `timeline --hops 2` with vs without the index: at most 1/20.
#
# usage: benches/index.sh
#
# Environment: as benches/compare.sh (CORPUS, SIZE, SEED, RUNS, IDGREP, RESULTS; the shared
# setup in benches/common.sh builds idgrep and makes or reuses the corpus), and
#   THREADS=2   -j for every command
# The update is measured on a copy of the corpus in $RESULTS/index-work (the corpus itself
# is never written), restored before every timed run.
set -euo pipefail

cd "$(dirname "$0")/.."

RUNS=${RUNS:-5}
THREADS=${THREADS:-2}
# shellcheck source=benches/common.sh
source benches/common.sh

warm_corpus
ULID=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["ulid"])' "$QUERY_JSON")
UUID=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["uuid"])' "$QUERY_JSON")
CACHE=$RESULTS/index-cache
WORK=$RESULTS/index-work
WORK_CACHE=$RESULTS/index-work-cache
rm -rf "$CACHE" "$WORK" "$WORK_CACHE"

log "building the index once (for the lookups)"
$IDGREP index -j"$THREADS" --index-dir "$CACHE" "$CORPUS" >&2
INDEX_BYTES=$(du -sb "$CACHE" | cut -f1)

log "1,000 IDs of the corpus for -f"
$IDGREP ids -j"$THREADS" --csv "$CORPUS" 2>/dev/null | tail -n +2 | cut -d, -f1 |
    awk 'NR % 97 == 1' | head -n 1000 >"$RESULTS/ids-1000.txt"
wc -l <"$RESULTS/ids-1000.txt" >&2

hyperfine --style basic --warmup 1 --runs "$RUNS" --export-json "$RESULTS/index-lookup.json" \
    -n "ulid, index" "$IDGREP -j$THREADS --index-dir $CACHE $ULID $CORPUS > $RESULTS/out.ulid.index" \
    -n "ulid, scan" "$IDGREP -j$THREADS --no-index $ULID $CORPUS > $RESULTS/out.ulid.scan" \
    -n "uuid, index" "$IDGREP -j$THREADS --index-dir $CACHE $UUID $CORPUS > $RESULTS/out.uuid.index" \
    -n "uuid, scan" "$IDGREP -j$THREADS --no-index $UUID $CORPUS > $RESULTS/out.uuid.scan" \
    -n "-f 1000, index" "$IDGREP -j$THREADS --index-dir $CACHE -c -f $RESULTS/ids-1000.txt $CORPUS > $RESULTS/out.f.index" \
    -n "-f 1000, scan" "$IDGREP -j$THREADS --no-index -c -f $RESULTS/ids-1000.txt $CORPUS > $RESULTS/out.f.scan" \
    -n "timeline --hops 2, index" "$IDGREP timeline -j$THREADS --index-dir $CACHE --hops 2 $UUID $CORPUS > $RESULTS/out.tl.index" \
    -n "timeline --hops 2, scan" "$IDGREP timeline -j$THREADS --no-index --hops 2 $UUID $CORPUS > $RESULTS/out.tl.scan" >&2
for what in ulid uuid f tl; do
    cmp "$RESULTS/out.$what.index" "$RESULTS/out.$what.scan" ||
        { log "OUTPUT DIFFERS for $what"; exit 1; }
done

hyperfine --style basic --warmup 1 --runs "$RUNS" --export-json "$RESULTS/index-build.json" \
    --prepare "rm -rf $CACHE.build" \
    -n "index (full build)" "$IDGREP index -j$THREADS --index-dir $CACHE.build $CORPUS > /dev/null" \
    -n "ids" "$IDGREP ids -j$THREADS $CORPUS > /dev/null 2>&1" >&2
/usr/bin/time -f %M -o "$RESULTS/index-build.rss" \
    bash -c "rm -rf $CACHE.build && $IDGREP index -j$THREADS --index-dir $CACHE.build $CORPUS > /dev/null"

log "a copy of the corpus for the update, and 1% of its bytes to append"
cp -r "$CORPUS" "$WORK"
find "$WORK" -type f -printf '%s %p\n' | sort -k2 >"$RESULTS/index-work.sizes"
$IDGREP index -j"$THREADS" --index-dir "$WORK_CACHE" "$WORK" >/dev/null
cp -r "$WORK_CACHE" "$WORK_CACHE.fresh"
# 1% of the bytes, as whole lines taken from the corpus, appended to ten files.
head -c $((BYTES / 100)) "$(find "$CORPUS" -type f -name '*.log' | sort | head -n 1)" |
    head -n -1 >"$RESULTS/index-append.txt"
cat >"$RESULTS/index-prepare.sh" <<PREP
set -e
while read -r size path; do truncate -s "\$size" "\$path"; done < "$RESULTS/index-work.sizes"
rm -rf "$WORK_CACHE" && cp -r "$WORK_CACHE.fresh" "$WORK_CACHE"
$IDGREP index -j$THREADS --index-dir "$WORK_CACHE" "$WORK" > /dev/null
split -n l/10 -d "$RESULTS/index-append.txt" "$RESULTS/index-append.part."
i=0
for f in \$(find "$WORK" -type f -name '*.log' | sort | head -n 10); do
    cat "$RESULTS/index-append.part.0\$i" >> "\$f"; i=\$((i + 1))
done
PREP
hyperfine --style basic --runs "$RUNS" --export-json "$RESULTS/index-update.json" \
    --prepare "bash $RESULTS/index-prepare.sh" \
    -n "index (update after 1%)" "$IDGREP index -j$THREADS --index-dir $WORK_CACHE $WORK > /dev/null" >&2
APPENDED=$(stat -c %s "$RESULTS/index-append.txt")

python3 - "$RESULTS" "$BYTES" "$INDEX_BYTES" "$APPENDED" "$THREADS" <<'PY' | tee "$RESULTS/index.md"
import json, statistics, sys
results, logs, index, appended, threads = sys.argv[1:]
logs, index, appended = int(logs), int(index), int(appended)
med = {}
for name in ("lookup", "build", "update"):
    for r in json.load(open(f"{results}/index-{name}.json"))["results"]:
        med[r["command"]] = statistics.median(r["times"])
rss = int(open(f"{results}/index-build.rss").read().split()[-1])
print(f"{logs / 2**30:.2f} GiB of logs, {threads} threads, hyperfine medians.\n")
print("| measure | with index | without | ratio | bar |")
print("|---|---:|---:|---:|---:|")
def row(label, a, b, bar, ms=True):
    fa, fb = (f"{a * 1000:.1f} ms", f"{b * 1000:.1f} ms") if ms else (f"{a:.2f} s", f"{b:.2f} s")
    print(f"| {label} | {fa} | {fb} | {a / b:.4f} | {bar} |")
row("one ID, ULID query (scan)", med["ulid, index"], med["ulid, scan"], "0.01 and 50 ms")
row("one ID, UUID query (scan)", med["uuid, index"], med["uuid, scan"], "0.01 and 50 ms")
row("1,000 IDs, -c -f (scan)", med["-f 1000, index"], med["-f 1000, scan"], "0.1")
row("timeline --hops 2, UUID query (scan)", med["timeline --hops 2, index"], med["timeline --hops 2, scan"], "0.05")
row("full build (`idgrep ids`)", med["index (full build)"], med["ids"], "1.5", ms=False)
row(f"update after {appended / logs:.1%} appended (full build)", med["index (update after 1%)"], med["index (full build)"], "0.05", ms=False)
print(f"| index size (log bytes) | {index / 2**20:.1f} MiB | {logs / 2**20:.0f} MiB | {index / logs:.4f} | 0.10 |")
print(f"\nPeak memory of a full build: {rss / 1024:.0f} MiB.")
PY
