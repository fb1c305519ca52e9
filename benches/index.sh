#!/usr/bin/env bash
# benches/index.sh measures the ID index against the scan it replaces, in one run, and
# prints a markdown table of medians and ratios against the bars of issue 18:
#   - one ID (the corpus's ULID query, its UUID query, and a trace of the corpus as a Datadog
#     decimal) with a fresh index vs --no-index: at most 1/100 of the scan and at most 50 ms
#     wall; beside them, the reads alone that each lookup asks of the files and the index
#     (benches/lookup_floor.rs: the design's floor on this machine, no byte searched, no line
#     printed);
#   - 1,000 IDs with -f: at most 1/10 of the scan;
#   - a full build vs `idgrep ids`: at most 1.5x;
#   - an update after 1% of the bytes are appended vs a full build: at most 5%;
#   - the index's size vs the log bytes: at most 10%;
#   - `timeline --hops 2` with vs without the index: at most 1/20;
#   - beside the bars, the two one-ID queries with the corpus and the index on disk (dropped
#     from the page cache before every run), as on an archive no search has read lately.
#
# usage: benches/index.sh
#
# Environment: as benches/compare.sh (CORPUS, SIZE, SEED, RUNS, IDGREP, RESULTS; the shared
# setup in benches/common.sh builds idgrep and makes or reuses the corpus), and
#   THREADS=2   -j for every command
#   FAST_RUNS=40   runs of each lookup with the index (RUNS: of everything else)
#   PARTS="lookup build update cold"   which measures to take (lookup: one ID, -f, timeline
#               and the size; build: build vs ids; update: the 1% update, on a copy of the
#               corpus; cold: the one-ID queries from disk, taken last, as they leave the
#               corpus out of the page cache)
# The update is measured on a copy of the corpus in $RESULTS/index-work (the corpus itself
# is never written), restored before every timed run.
set -euo pipefail

cd "$(dirname "$0")/.."

RUNS=${RUNS:-5}
FAST_RUNS=${FAST_RUNS:-40}
THREADS=${THREADS:-2}
PARTS=${PARTS:-lookup build update cold}
has() { [[ " $PARTS " == *" $1 "* ]]; }
# shellcheck source=benches/common.sh
source benches/common.sh

warm_corpus
ULID=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["ulid"])' "$QUERY_JSON")
UUID=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["uuid"])' "$QUERY_JSON")
CACHE=$RESULTS/index-cache
WORK=$RESULTS/index-work
WORK_CACHE=$RESULTS/index-work-cache
rm -rf "$CACHE" "$WORK" "$WORK_CACHE" "$WORK_CACHE.fresh" "$RESULTS"/index-*.json

log "building the index once (for the lookups)"
$IDGREP index -j"$THREADS" --index-dir "$CACHE" "$CORPUS" >&2
INDEX_BYTES=$(du -sb "$CACHE" | cut -f1)

if has lookup; then
FLOOR=$(bench_binary lookup_floor)
log "the reads of each lookup: $($FLOOR "$THREADS" "$CACHE" "$ULID" "$CORPUS" 2>&1) (ULID);" \
    "$($FLOOR "$THREADS" "$CACHE" "$UUID" "$CORPUS" 2>&1) (UUID)"
log "1,000 IDs of the corpus for -f"
# 1,000 IDs spread evenly over the whole inventory (ranked by line count), so the sample has
# the inventory's mix of common and rare IDs.
$IDGREP ids -j"$THREADS" --csv "$CORPUS" >"$RESULTS/ids.csv" 2>/dev/null
DISTINCT=$(($(wc -l <"$RESULTS/ids.csv") - 1))
tail -n +2 "$RESULTS/ids.csv" | cut -d, -f1 |
    awk -v stride=$((DISTINCT / 1000)) 'NR % stride == 1 && n < 1000 { print; n++ }' \
        >"$RESULTS/ids-1000.txt"
log "$(wc -l <"$RESULTS/ids-1000.txt") IDs"
# A trace of the corpus asked for as Datadog shows it, a decimal of its low 64 bits: a 64-bit
# trace, found in the 128-bit trace it is the low half of.
DECIMAL=$(python3 - "$RESULTS/ids.csv" <<'PY'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    if row["kind"] == "trace" and len(row["id"]) == 32:
        print(int(row["id"][16:], 16))
        break
PY
)
[[ -n $DECIMAL ]] || { log "no trace ID in the corpus"; exit 1; }
log "a trace as a Datadog decimal: $DECIMAL"

# The lookups take milliseconds, so their medians take more runs than the scans' seconds do.
hyperfine --style basic --warmup 3 --runs "$FAST_RUNS" --export-json "$RESULTS/index-lookup.json" \
    -n "ulid, index" "$IDGREP -j$THREADS --index-dir $CACHE $ULID $CORPUS > $RESULTS/out.ulid.index" \
    -n "ulid, reads alone" "$FLOOR $THREADS $CACHE $ULID $CORPUS" \
    -n "uuid, index" "$IDGREP -j$THREADS --index-dir $CACHE $UUID $CORPUS > $RESULTS/out.uuid.index" \
    -n "uuid, reads alone" "$FLOOR $THREADS $CACHE $UUID $CORPUS" \
    -n "decimal, index" "$IDGREP -j$THREADS --index-dir $CACHE $DECIMAL $CORPUS > $RESULTS/out.decimal.index" \
    -n "1000 IDs, index" "$IDGREP -j$THREADS --index-dir $CACHE -c -f $RESULTS/ids-1000.txt $CORPUS > $RESULTS/out.f.index" \
    -n "timeline --hops 2, index" "$IDGREP timeline -j$THREADS --index-dir $CACHE --hops 2 $UUID $CORPUS > $RESULTS/out.tl.index" >&2
hyperfine --style basic --warmup 1 --runs "$RUNS" --export-json "$RESULTS/index-scan.json" \
    -n "ulid, scan" "$IDGREP -j$THREADS --no-index $ULID $CORPUS > $RESULTS/out.ulid.scan" \
    -n "uuid, scan" "$IDGREP -j$THREADS --no-index $UUID $CORPUS > $RESULTS/out.uuid.scan" \
    -n "decimal, scan" "$IDGREP -j$THREADS --no-index $DECIMAL $CORPUS > $RESULTS/out.decimal.scan" \
    -n "1000 IDs, scan" "$IDGREP -j$THREADS --no-index -c -f $RESULTS/ids-1000.txt $CORPUS > $RESULTS/out.f.scan" \
    -n "timeline --hops 2, scan" "$IDGREP timeline -j$THREADS --no-index --hops 2 $UUID $CORPUS > $RESULTS/out.tl.scan" >&2
for what in ulid uuid decimal f tl; do
    cmp "$RESULTS/out.$what.index" "$RESULTS/out.$what.scan" ||
        { log "OUTPUT DIFFERS for $what"; exit 1; }
done
fi

if has build; then
hyperfine --style basic --warmup 1 --runs "$RUNS" --export-json "$RESULTS/index-build.json" \
    --prepare "rm -rf $CACHE.build" \
    -n "index (full build)" "$IDGREP index -j$THREADS --index-dir $CACHE.build $CORPUS > /dev/null" \
    -n "ids" "$IDGREP ids -j$THREADS $CORPUS > /dev/null 2>&1" >&2
/usr/bin/time -f %M -o "$RESULTS/index-build.rss" \
    bash -c "rm -rf $CACHE.build && $IDGREP index -j$THREADS --index-dir $CACHE.build $CORPUS > /dev/null"
fi

APPENDED=0
if has update; then
log "a copy of the corpus for the update, and 1% of its bytes to append"
cp -r "$CORPUS" "$WORK"
find "$WORK" -type f -printf '%s %p\n' | sort -k2 >"$RESULTS/index-work.sizes"
$IDGREP index -j"$THREADS" --index-dir "$WORK_CACHE" "$WORK" >/dev/null
cp -r "$WORK_CACHE" "$WORK_CACHE.fresh"
# 1% of the bytes, as whole lines taken from the corpus, appended to ten files.
python3 - "$CORPUS" $((BYTES / 100)) "$RESULTS/index-append.txt" <<'PY'
import os, sys
corpus, want, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
logs = sorted(os.path.join(d, f) for d, _, fs in os.walk(corpus) for f in fs if f.endswith(".log"))
data = b""
for path in logs:
    data += open(path, "rb").read(want - len(data))
    if len(data) >= want:
        break
open(out, "wb").write(data[: data.rfind(b"\n") + 1])
PY
cat >"$RESULTS/index-prepare.sh" <<PREP
set -e
while read -r size path; do truncate -s "\$size" "\$path"; done < "$RESULTS/index-work.sizes"
rm -rf "$WORK_CACHE" && cp -r "$WORK_CACHE.fresh" "$WORK_CACHE"
$IDGREP index -j$THREADS --index-dir "$WORK_CACHE" "$WORK" > /dev/null
split -n l/10 -d "$RESULTS/index-append.txt" "$RESULTS/index-append.part."
i=0
for f in \$(find "$WORK" -type f -name '*.log' | sort | awk 'NR <= 10'); do
    cat "$RESULTS/index-append.part.0\$i" >> "\$f"; i=\$((i + 1))
done
PREP
hyperfine --style basic --runs "$RUNS" --export-json "$RESULTS/index-update.json" \
    --prepare "bash $RESULTS/index-prepare.sh" \
    -n "index (update after 1%)" "$IDGREP index -j$THREADS --index-dir $WORK_CACHE $WORK > /dev/null" >&2
APPENDED=$(stat -c %s "$RESULTS/index-append.txt")
rm -rf "$WORK"
fi

if has cold; then
log "the one-ID queries with the corpus and the index dropped from the page cache"
hyperfine --style basic --runs "$RUNS" --export-json "$RESULTS/index-cold.json" \
    --prepare "python3 benches/drop_cache.py $CORPUS $CACHE" \
    -n "ulid, index, cold" "$IDGREP -j$THREADS --index-dir $CACHE $ULID $CORPUS > $RESULTS/out.ulid.index" \
    -n "ulid, scan, cold" "$IDGREP -j$THREADS --no-index $ULID $CORPUS > $RESULTS/out.ulid.scan" \
    -n "uuid, index, cold" "$IDGREP -j$THREADS --index-dir $CACHE $UUID $CORPUS > $RESULTS/out.uuid.index" \
    -n "uuid, scan, cold" "$IDGREP -j$THREADS --no-index $UUID $CORPUS > $RESULTS/out.uuid.scan" >&2
for what in ulid uuid; do
    cmp "$RESULTS/out.$what.index" "$RESULTS/out.$what.scan" ||
        { log "OUTPUT DIFFERS for $what from disk"; exit 1; }
done
fi

python3 - "$RESULTS" "$BYTES" "$INDEX_BYTES" "$APPENDED" "$THREADS" <<'PY' | tee "$RESULTS/index.md"
import json, statistics, sys
results, logs, index, appended, threads = sys.argv[1:]
logs, index, appended = int(logs), int(index), int(appended)
import os
med = {}
for name in ("lookup", "scan", "build", "update", "cold"):
    path = f"{results}/index-{name}.json"
    if os.path.exists(path):
        for r in json.load(open(path))["results"]:
            med[r["command"]] = statistics.median(r["times"])
print(f"{logs / 2**30:.2f} GiB of logs, {threads} threads, hyperfine medians.\n")
print("| measure | with index | without | ratio | bar |")
print("|---|---:|---:|---:|---:|")
def row(label, a, b, bar, ms=True):
    if a not in med or b not in med:
        return
    a, b = med[a], med[b]
    fa, fb = (f"{a * 1000:.1f} ms", f"{b * 1000:.1f} ms") if ms else (f"{a:.2f} s", f"{b:.2f} s")
    print(f"| {label} | {fa} | {fb} | {a / b:.4f} | {bar} |")
row("one ID, ULID query (scan)", "ulid, index", "ulid, scan", "0.01 and 50 ms")
row("one ID, UUID query (scan)", "uuid, index", "uuid, scan", "0.01 and 50 ms")
row("one ID, a trace as a Datadog decimal (scan)", "decimal, index", "decimal, scan", "0.01 and 50 ms")
row("the ULID lookup's reads alone (scan)", "ulid, reads alone", "ulid, scan", "floor")
row("the UUID lookup's reads alone (scan)", "uuid, reads alone", "uuid, scan", "floor")
row("the ULID lookup's reads alone (the lookup)", "ulid, reads alone", "ulid, index", "floor")
row("1,000 IDs, -c -f (scan)", "1000 IDs, index", "1000 IDs, scan", "0.1")
row("timeline --hops 2, UUID query (scan)", "timeline --hops 2, index", "timeline --hops 2, scan", "0.05")
row("full build (`idgrep ids`)", "index (full build)", "ids", "1.5", ms=False)
row(f"update after {appended / logs:.1%} appended (full build)", "index (update after 1%)", "index (full build)", "0.05", ms=False)
row("one ID, ULID query from disk (scan from disk)", "ulid, index, cold", "ulid, scan, cold", "-")
row("one ID, UUID query from disk (scan from disk)", "uuid, index, cold", "uuid, scan, cold", "-")
print(f"| index size (log bytes) | {index / 2**20:.1f} MiB | {logs / 2**20:.0f} MiB | {index / logs:.4f} | 0.10 |")
if os.path.exists(f"{results}/index-build.rss"):
    rss = int(open(f"{results}/index-build.rss").read().split()[-1])
    print(f"\nPeak memory of a full build: {rss / 1024:.0f} MiB.")
PY
