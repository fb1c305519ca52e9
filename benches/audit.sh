#!/usr/bin/env bash
# benches/audit.sh owns the `idgrep audit` benchmark: it times `idgrep audit` against
# `idgrep ids`, the same scan (every ID token, each line's fields and time), in the same
# hyperfine run, on two deterministic corpora: the usual one and one of many more distinct IDs
# per GB, where the audit's per-ID records cost the most. It prints a markdown table of
# medians, the ratio to `ids` (our bar: audit at most 1.2x), user CPU time, throughput and
# peak RSS.
#
# usage: benches/audit.sh
#        CORPUS=/path/to/bench-corpus benches/audit.sh   # reuse a corpus generated elsewhere
#
# Environment: as benches/compare.sh (CORPUS, SIZE, SEED, DISTINCT_IDS, THREADS_LIST, RUNS,
# IDGREP, RG, RESULTS), plus:
#   HIGH_CORPUS=target/bench-corpus-3m   the high-cardinality corpus, generated once, reused
#   HIGH_DISTINCT_IDS=3000000            its distinct-ID target (same SIZE and SEED)
#
# The machines we share are noisy, and hyperfine runs one command's repetitions before the
# other's, so a change of load between them moves the wall-time ratio; user CPU time, also
# in the table, moves less.
set -euo pipefail

cd "$(dirname "$0")/.."

HIGH_CORPUS=${HIGH_CORPUS:-target/bench-corpus-3m}
HIGH_CORPUS=${HIGH_CORPUS%/}
HIGH_DISTINCT_IDS=${HIGH_DISTINCT_IDS:-3000000}

# shellcheck source=benches/common.sh
source benches/common.sh

names=("idgrep ids" "idgrep audit")
commands_for() {
    local j=$1 label=$2
    echo "$IDGREP ids -j$j --color never $CORPUS > $RESULTS/$label.ids.j$j"
    echo "$IDGREP audit -j$j --color never $CORPUS > $RESULTS/$label.audit.j$j"
}

# One label per corpus: its distinct IDs and bytes, for the table.
labels=()
for label in audit audit-high; do
    if [[ $label == audit-high ]]; then
        CORPUS=$HIGH_CORPUS
        DISTINCT_IDS=$HIGH_DISTINCT_IDS
        ensure_corpus
    fi
    warm_corpus
    for j in $THREADS_LIST; do
        mapfile -t cmds < <(commands_for "$j" "$label")
        time_commands "$label" "$j"
    done
    labels+=("$label:$QUERY_JSON")
done

python3 - "$RESULTS" "$THREADS_LIST" "${labels[@]}" <<'PY' | tee "$RESULTS/audit.md"
import json, statistics, sys
results, threads, corpora = sys.argv[1], sys.argv[2], sys.argv[3:]
print("| corpus | command | threads | median s | vs `idgrep ids` | user s (mean) | user vs ids "
      "| GB/s | peak RSS MiB |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for corpus in corpora:
    label, query = corpus.split(":", 1)
    q = json.load(open(query))
    total = q["bytes"]
    name = f"{total / 2**30:.2f} GiB, {q['distinct_ids'] / 1e6:.2f} M IDs"
    for j in threads.split():
        runs = json.load(open(f"{results}/{label}-hyperfine-j{j}.json"))["results"]
        base, base_user = statistics.median(runs[0]["times"]), runs[0]["user"]
        for i, r in enumerate(runs):
            med = statistics.median(r["times"])
            rss = int(open(f"{results}/{label}-rss.{i}.j{j}").read().split()[-1]) * 1024
            print(f"| {name} | `{r['command']}` | {j} | {med:.3f} | {med / base:.2f} "
                  f"| {r['user']:.2f} | {r['user'] / base_user:.2f} | {total / med / 1e9:.2f} "
                  f"| {rss / 2**20:.1f} |")
PY
