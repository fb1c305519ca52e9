#!/usr/bin/env bash
# benches/compare.sh owns the idgrep-versus-ripgrep comparison: it builds idgrep and a
# deterministic corpus, times idgrep against `rg -F` and `rg -i -F` for the corpus's hot ID,
# and prints a markdown table of medians, ratios, peak RSS and output line counts.
#
# usage: benches/compare.sh
#
# Environment (all optional):
#   CORPUS=target/bench-corpus     corpus directory; CORPUS.query.json is written beside it
#   SIZE=1G  SEED=1                corpus size and seed, passed to the generator
#   DISTINCT_IDS=N                 steer the corpus toward N distinct IDs (default: natural)
#   QUERY=ulid                     which query ID of the JSON to search for: ulid or uuid
#   QUERY_ID=...                   search for this string instead (a trace ID, a span ID: the
#                                  corpus holds none, so this times the scan, not the output)
#   THREADS_LIST="2 1"             thread counts, one hyperfine run each
#   RUNS=5                         hyperfine --runs (after one warm-up run)
#   IDGREP=target/release/idgrep   idgrep command, built here only when left at this default;
#                                  may carry arguments, e.g. IDGREP="rg -i" to try the script
#                                  before idgrep exists
#   RG=...                         ripgrep binary (default: ~/.cargo/bin/rg, installed if absent)
#   RESULTS=target/bench-results   where hyperfine JSON, command output and the table go
#
# The corpus is generated once and reused while its query JSON records the same size, seed
# and distinct-ID target, its files add up to the recorded bytes, and CORPUS.gen-sha256
# matches the generator's current source (a changed generator means a different corpus).
#
# Each command writes its matches to a file: with stdout on /dev/null ripgrep stops at the
# first match, which would time a different job.
set -euo pipefail

cd "$(dirname "$0")/.."

QUERY=${QUERY:-ulid}
# shellcheck source=benches/common.sh
source benches/common.sh

read -r ID EXPECTED DECOYS < <(python3 -c '
import json, sys
q = json.load(open(sys.argv[1])); k = sys.argv[2]
print(q[k], q[k + "_lines"], q[k + "_decoy_lines"])' "$QUERY_JSON" "$QUERY")
if [[ -n ${QUERY_ID:-} ]]; then
    read -r QUERY ID EXPECTED DECOYS <<<"given $QUERY_ID n/a n/a"
fi
log "query $QUERY: $ID ($EXPECTED lines name it in some form, $DECOYS more only glued into longer tokens)"

# ---- 3. timings ----

warm_corpus

names=(idgrep "rg -n -F" "rg -n -i -F")

# A given query may be found by none of the commands (exit 1), which hyperfine counts as a
# failure; each command then ends in `; true`.
FOUND_OR_NOT=${QUERY_ID:+; true}

commands_for() {
    local j=$1
    printf '%s\n' \
        "$IDGREP -j$j --color never $ID $CORPUS > $RESULTS/out.idgrep.j$j$FOUND_OR_NOT" \
        "$RG -j$j -n -F --color never $ID $CORPUS > $RESULTS/out.rg.j$j$FOUND_OR_NOT" \
        "$RG -j$j -n -i -F --color never $ID $CORPUS > $RESULTS/out.rgi.j$j$FOUND_OR_NOT"
}

for j in $THREADS_LIST; do
    mapfile -t cmds < <(commands_for "$j")
    time_commands search "$j"
done

# ---- 5. the table ----

python3 - "$RESULTS" "$THREADS_LIST" "$ID" "$EXPECTED" "$DECOYS" "$QUERY" <<'EOF' | tee "$RESULTS/compare.md"
import json, statistics, sys
results, threads, qid, expected, decoys, query = sys.argv[1:]
outs = {"idgrep": "idgrep", "rg -n -F": "rg", "rg -n -i -F": "rgi"}
print(f"Query ({query}): `{qid}`; {expected} lines name it in some form, "
      f"{decoys} more hold it glued into a longer token.\n")
print("| command | threads | median s | vs `rg -n -F` | peak RSS MiB | output lines |")
print("|---|---:|---:|---:|---:|---:|")
for j in threads.split():
    runs = json.load(open(f"{results}/search-hyperfine-j{j}.json"))["results"]
    medians = {r["command"]: statistics.median(r["times"]) for r in runs}
    base = medians["rg -n -F"]
    for name, med in medians.items():
        out = outs[name]
        index = list(outs).index(name)
        rss_kib = int(open(f"{results}/search-rss.{index}.j{j}").read().split()[-1])
        lines = sum(1 for _ in open(f"{results}/out.{out}.j{j}", "rb"))
        print(f"| `{name}` | {j} | {med:.3f} | {med / base:.2f} | {rss_kib / 1024:.1f} | {lines} |")
EOF
