#!/usr/bin/env bash
# benches/timeline.sh times `idgrep timeline ID` and `idgrep timeline ID --related` against
# `idgrep ID` on the generated corpus, in one hyperfine run, and prints a markdown table of
# medians and ratios against the bars of issue 4 (timeline at most 1.2x of the search, one hop
# of related IDs at most 2.5x).
#
# usage: benches/timeline.sh
#
# Environment (all optional):
#   CORPUS=target/bench-corpus     corpus directory; CORPUS.query.json beside it holds the ID
#   SIZE=1G  SEED=1                passed to the generator when the corpus is missing
#   QUERY=ulid                     which query ID of the JSON to follow: ulid or uuid
#   THREADS=2                      -j for every command
#   RUNS=10                        hyperfine --runs (after one warm-up run)
#   IDGREP=target/release/idgrep   built here only when left at this default
#   RESULTS=target/bench-results   where hyperfine JSON, command output and the table go
#
# benches/compare.sh checks that an existing corpus matches the generator; this script only
# makes one when none is there. Each command writes to a file, as a user's run would.
set -euo pipefail

cd "$(dirname "$0")/.."

CORPUS=${CORPUS:-target/bench-corpus}
CORPUS=${CORPUS%/}
SIZE=${SIZE:-1G}
SEED=${SEED:-1}
QUERY=${QUERY:-ulid}
THREADS=${THREADS:-2}
RUNS=${RUNS:-10}
IDGREP=${IDGREP:-target/release/idgrep}
RESULTS=${RESULTS:-target/bench-results}
QUERY_JSON="$CORPUS.query.json"

log() { printf '==> %s\n' "$*" >&2; }

if [[ $IDGREP == target/release/idgrep ]]; then
    log "building idgrep (release)"
    cargo build --release --quiet
fi
if [[ ! -d $CORPUS || ! -f $QUERY_JSON ]]; then
    log "generating a $SIZE corpus in $CORPUS (seed $SEED)"
    mkdir -p "$(dirname "$CORPUS")"
    cargo bench --quiet --bench gen_corpus -- --out "$CORPUS" --size "$SIZE" --seed "$SEED" --force >/dev/null
fi
if ! command -v hyperfine >/dev/null; then
    log "installing hyperfine"
    apt-get install -y hyperfine >/dev/null 2>&1 ||
        { apt-get update >/dev/null && apt-get install -y hyperfine >/dev/null; }
fi

ID=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$QUERY_JSON" "$QUERY")
log "query $QUERY: $ID"
mkdir -p "$RESULTS"
log "warming the page cache"
find "$CORPUS" -type f -exec cat {} + >/dev/null

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
