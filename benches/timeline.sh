#!/usr/bin/env bash
# benches/timeline.sh times `idgrep timeline ID` and `idgrep timeline ID --related` against
# `idgrep ID` on the generated corpus, in one hyperfine run, and prints a markdown table of
# medians and ratios against the bars of issue 4 (timeline at most 1.2x of the search, one hop
# of related IDs at most 2.5x).
#
# usage: benches/timeline.sh
#
# Environment: as benches/compare.sh (CORPUS, SIZE, SEED, RUNS, IDGREP, RESULTS; the shared
# setup in benches/common.sh builds idgrep and makes or reuses the corpus), and
#   QUERY=ulid      which query ID of the corpus's JSON to follow: ulid or uuid
#   THREADS=2       -j for every command
# Each command writes to a file, as a user's run would.
set -euo pipefail

cd "$(dirname "$0")/.."

RUNS=${RUNS:-10}
QUERY=${QUERY:-ulid}
THREADS=${THREADS:-2}
# shellcheck source=benches/common.sh
source benches/common.sh

ID=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$QUERY_JSON" "$QUERY")
log "query $QUERY: $ID"
warm_corpus

hyperfine --style basic --warmup 1 --runs "$RUNS" --export-json "$RESULTS/timeline.json" \
    -n "idgrep ID" "$IDGREP -j$THREADS --color never $ID $CORPUS > $RESULTS/out.search" \
    -n "idgrep timeline ID" "$IDGREP timeline -j$THREADS $ID $CORPUS > $RESULTS/out.timeline" \
    -n "idgrep timeline ID --related" "$IDGREP timeline -j$THREADS --related $ID $CORPUS > $RESULTS/out.related" >&2

python3 - "$RESULTS" "$ID" "$THREADS" <<'EOF' | tee "$RESULTS/timeline.md"
import json, statistics, sys
results, qid, threads = sys.argv[1:]
runs = json.load(open(f"{results}/timeline.json"))["results"]
medians = {r["command"]: statistics.median(r["times"]) for r in runs}
base = medians["idgrep ID"]
bars = {"idgrep timeline ID": 1.2, "idgrep timeline ID --related": 2.5}
outs = {"idgrep ID": "search", "idgrep timeline ID": "timeline", "idgrep timeline ID --related": "related"}
print(f"Query `{qid}`, {threads} threads, hyperfine medians.\n")
print("| command | median s | vs `idgrep ID` | bar | output lines |")
print("|---|---:|---:|---:|---:|")
for name, med in medians.items():
    lines = sum(1 for _ in open(f"{results}/out.{outs[name]}", "rb"))
    bar = f"{bars[name]:.1f}" if name in bars else ""
    print(f"| `{name}` | {med:.3f} | {med / base:.2f} | {bar} | {lines} |")
EOF
