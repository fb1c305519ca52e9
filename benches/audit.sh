#!/usr/bin/env bash
# benches/audit.sh owns the `idgrep audit` benchmark: on the deterministic corpus it times
# `idgrep audit` against `idgrep ids`, the same scan (every ID token, each line's fields and
# time), in the same hyperfine run, and prints a markdown table of medians, the ratio to
# `ids` (our bar: audit at most 1.2x), user CPU time, throughput and peak RSS.
#
# usage: benches/audit.sh
#        CORPUS=/path/to/bench-corpus benches/audit.sh   # reuse a corpus generated elsewhere
#
# Environment: as benches/compare.sh (CORPUS, SIZE, SEED, DISTINCT_IDS, THREADS_LIST, RUNS,
# IDGREP, RG, RESULTS).
#
# The machines we share are noisy, and hyperfine runs one command's repetitions before the
# other's, so a change of load between them moves the wall-time ratio; user CPU time, also
# in the table, moves less.
set -euo pipefail

cd "$(dirname "$0")/.."

# shellcheck source=benches/common.sh
source benches/common.sh

warm_corpus

names=("idgrep ids" "idgrep audit")
commands_for() {
    local j=$1
    echo "$IDGREP ids -j$j --color never $CORPUS > $RESULTS/audit.ids.j$j"
    echo "$IDGREP audit -j$j --color never $CORPUS > $RESULTS/audit.audit.j$j"
}

for j in $THREADS_LIST; do
    mapfile -t cmds < <(commands_for "$j")
    time_commands audit "$j"
done

python3 - "$RESULTS" "$THREADS_LIST" "$BYTES" <<'PY' | tee "$RESULTS/audit.md"
import json, statistics, sys
results, threads, total = sys.argv[1], sys.argv[2], int(sys.argv[3])
print(f"Corpus: {total / 2**30:.2f} GiB.\n")
print("| command | threads | median s | vs `idgrep ids` | user s (mean) | user vs ids | GB/s | peak RSS MiB |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for j in threads.split():
    runs = json.load(open(f"{results}/audit-hyperfine-j{j}.json"))["results"]
    base, base_user = statistics.median(runs[0]["times"]), runs[0]["user"]
    for i, r in enumerate(runs):
        med = statistics.median(r["times"])
        rss = int(open(f"{results}/audit-rss.{i}.j{j}").read().split()[-1]) * 1024
        print(f"| `{r['command']}` | {j} | {med:.3f} | {med / base:.2f} | {r['user']:.2f} "
              f"| {r['user'] / base_user:.2f} | {total / med / 1e9:.2f} | {rss / 2**20:.1f} |")
PY
