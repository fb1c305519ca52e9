#!/usr/bin/env bash
# benches/ids.sh owns the `idgrep ids` benchmark: on the deterministic corpus it times
# `idgrep ids` against what a user does today without it,
#   rg -o -i '\b[0-9A-HJKMNP-TV-Z]{26}\b' corpus/ | LC_ALL=C sort | uniq -c | sort -rn
# (which finds less: no UUIDs, no fields, no times), and against a floor, the part no `ids`
# can skip done as cheaply as we know how (benches/ids_floor.rs: idgrep's token scan and a
# count per value, nothing else), in the same hyperfine run, all writing to /dev/null, and prints a markdown table of medians, the
# ratio, throughput, peak RSS and bytes of peak RSS per distinct ID counted.
#
# usage: benches/ids.sh                                     # the 1 GiB corpus
#        CORPUS=target/bench-corpus-10m DISTINCT_IDS=10000000 benches/ids.sh   # memory per ID
#
# Environment: as benches/compare.sh (CORPUS, SIZE, SEED, DISTINCT_IDS, THREADS_LIST, RUNS,
# IDGREP, RG, RESULTS). IDS_ONLY=1 skips the pipeline and the floor (for the memory run).
set -euo pipefail

cd "$(dirname "$0")/.."

# shellcheck source=benches/common.sh
source benches/common.sh

warm_corpus

PATTERN='\b[0-9A-HJKMNP-TV-Z]{26}\b'
names=("idgrep ids")
if [[ -z ${IDS_ONLY:-} ]]; then
    names+=("rg -o -i | sort | uniq -c | sort -rn" "floor: tokens counted per value, nothing else")
    FLOOR=$(bench_binary ids_floor)
fi

# Timed with the output to /dev/null, as the issue states the bar; the run for peak RSS
# writes it to a file, for the count of IDs listed. (Writing 160 MB to a file replaced on
# every run costs idgrep about a tenth of its time in page-cache churn.)
commands_for() {
    local j=$1 out=$2
    echo "$IDGREP ids -j$j --color never $CORPUS > ${out:-/dev/null}${out:+/ids.idgrep.j$j}"
    if [[ -z ${IDS_ONLY:-} ]]; then
        echo "$RG -j$j -o -i '$PATTERN' $CORPUS | LC_ALL=C sort | uniq -c | sort -rn > ${out:-/dev/null}${out:+/ids.pipeline.j$j}"
        echo "$FLOOR $j $CORPUS > ${out:-/dev/null}${out:+/ids.floor.j$j}"
    fi
}

for j in $THREADS_LIST; do
    mapfile -t cmds < <(commands_for "$j" "")
    mapfile -t rss_cmds < <(commands_for "$j" "$RESULTS")
    time_commands ids "$j"
done

python3 - "$RESULTS" "$THREADS_LIST" "$BYTES" <<'EOF' | tee "$RESULTS/ids.md"
import json, statistics, sys
results, threads, total = sys.argv[1], sys.argv[2], int(sys.argv[3])
print(f"Corpus: {total / 2**30:.2f} GiB.\n")
print("| command | threads | median s | vs idgrep ids | GB/s | peak RSS MiB | IDs listed | RSS bytes per ID |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for j in threads.split():
    runs = json.load(open(f"{results}/ids-hyperfine-j{j}.json"))["results"]
    base = statistics.median(runs[0]["times"])
    for i, r in enumerate(runs):
        med = statistics.median(r["times"])
        rss = int(open(f"{results}/ids-rss.{i}.j{j}").read().split()[-1]) * 1024
        out = ["idgrep", "pipeline", "floor"][i]
        listed = sum(1 for _ in open(f"{results}/ids.{out}.j{j}", "rb")) - (1 if i == 0 else 0)
        per_id = f"{rss / listed:.0f}" if i == 0 and listed else "-"
        print(f"| `{r['command']}` | {j} | {med:.3f} | {med / base:.2f} | {total / med / 1e9:.2f} "
              f"| {rss / 2**20:.1f} | {listed} | {per_id} |")
EOF
