#!/usr/bin/env bash
# benches/ids_traces.sh owns the trace benchmark of `idgrep ids` (issue 20's bars):
#   - `ids` on trace-heavy logs (benches/gen_traces.py) per GiB, against `ids` on the bench
#     corpus per GiB: at most 1.2;
#   - with BASE=<an idgrep built before trace IDs counted>, `ids` on the bench corpus against
#     that build's: no slower (1.0).
# The machines are shared and their speed drifts within minutes, so the commands run in
# interleaved rounds (each once per round, in one order) and each ratio is the median of the
# rounds' own ratios. Peak RSS comes from one more run of each under GNU time.
#
# usage: benches/ids_traces.sh
#        BASE=/path/to/old/idgrep RUNS=9 benches/ids_traces.sh
#
# Environment: as benches/compare.sh (CORPUS, SIZE, SEED, THREADS_LIST, RUNS, IDGREP,
# RESULTS), and TRACE_CORPUS (default target/trace-corpus), TRACE_SIZE (bytes, default
# 512 MiB), BASE.
set -euo pipefail

cd "$(dirname "$0")/.."

# shellcheck source=benches/common.sh
source benches/common.sh

TRACE_CORPUS=${TRACE_CORPUS:-target/trace-corpus}
TRACE_CORPUS=${TRACE_CORPUS%/}
TRACE_SIZE=${TRACE_SIZE:-$((512 << 20))}
stamp="$TRACE_CORPUS.gen"
want="$(sha256sum benches/gen_traces.py | cut -d' ' -f1) $TRACE_SIZE $SEED"
if [[ ! -d $TRACE_CORPUS || ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
    log "generating the trace corpus in $TRACE_CORPUS"
    rm -rf "$TRACE_CORPUS" "$stamp"
    python3 benches/gen_traces.py "$TRACE_CORPUS" "$TRACE_SIZE" "$SEED"
    echo "$want" >"$stamp"
fi

warm_corpus
find "$TRACE_CORPUS" -type f -exec cat {} + >/dev/null
TRACE_BYTES=$(find "$TRACE_CORPUS" -type f -printf '%s\n' | awk '{s += $1} END {print s}')

for j in $THREADS_LIST; do
    python3 - "$RESULTS" "$j" "$RUNS" "$IDGREP" "${BASE:-}" "$CORPUS" "$BYTES" \
        "$TRACE_CORPUS" "$TRACE_BYTES" <<'PY' | tee "$RESULTS/ids-traces-j$j.md"
import statistics, subprocess, sys, time
results, j, runs, idgrep, base, corpus, nbytes, traces, tbytes = sys.argv[1:]
runs, nbytes, tbytes = int(runs), int(nbytes), int(tbytes)
commands = {
    "bench corpus": [idgrep, "ids", f"-j{j}", "--color", "never", corpus],
    "trace corpus": [idgrep, "ids", f"-j{j}", "--color", "never", traces],
}
if base:
    commands["bench corpus, BASE"] = [base, "ids", f"-j{j}", "--color", "never", corpus]
times = {name: [] for name in commands}
for name, cmd in commands.items():  # warm-up
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
for _ in range(runs):
    for name, cmd in commands.items():
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[name].append(time.perf_counter() - start)
rss = {}
for name, cmd in commands.items():
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, check=True, text=True)
    rss[name] = int(out.stderr.strip().splitlines()[-1])
gib = 2**30
print(f"\n`idgrep ids -j{j}`, {runs} interleaved rounds; bench corpus {nbytes / gib:.2f} GiB, "
      f"trace corpus {tbytes / gib:.2f} GiB.\n")
print("| command | median s | GiB/s | peak RSS MiB |")
print("|---|---|---|---|")
for name, ts in times.items():
    size = tbytes if name.startswith("trace") else nbytes
    med = statistics.median(ts)
    print(f"| {name} | {med:.3f} | {size / gib / med:.2f} | {rss[name] / 1024:.0f} |")
per_gib = [(t / tbytes) / (b / nbytes)
           for t, b in zip(times["trace corpus"], times["bench corpus"])]
print(f"\ntrace corpus per GiB / bench corpus per GiB: median of rounds "
      f"{statistics.median(per_gib):.3f} (bar 1.2; rounds {min(per_gib):.2f}-{max(per_gib):.2f})")
if base:
    vs = [n / o for n, o in zip(times["bench corpus"], times["bench corpus, BASE"])]
    print(f"bench corpus, this build / BASE: median of rounds {statistics.median(vs):.3f} "
          f"(bar 1.0; rounds {min(vs):.2f}-{max(vs):.2f})")
PY
done
