#!/usr/bin/env bash
# benches/spark.sh owns the Spark benchmark: on the deterministic corpus (1 GiB), in Spark's
# local mode with two cores (local[2]), it times in one hyperfine run
#   - idgrep alone:   idgrep -j2 --json ULID corpus/
#   - the idgrep job: spark-submit --files idgrep integrations/spark/idgrep_spark.py search --json ULID corpus/
#   - what a Spark user writes today: spark.read.text + rlike with a regex of every written
#     form of the ID, bounded at tokens (benches/spark_rlike.py)
# and the two Spark queries again inside one session (benches/spark_session.py: the session's
# start, paid once per session, left out), then checks that they all find the same lines (as sorted multisets of line text), and prints
# a markdown table of medians with the ratios: the job against rlike (the speed-up) and the
# job against idgrep alone (the overhead of Spark).
#
# usage: CORPUS=/work/main/target/bench-corpus benches/spark.sh
#
# Environment: as benches/compare.sh (CORPUS, SIZE, SEED, IDGREP, RESULTS); SPARK_RUNS timed
# runs of each (default 3: a Spark run takes tens of seconds). Needs Java 17 and PySpark
# (installed with pip when missing).
set -euo pipefail

cd "$(dirname "$0")/.."

# shellcheck source=benches/common.sh
source benches/common.sh

warm_corpus

if ! python3 -c 'import pyspark' 2>/dev/null; then
    log "installing pyspark"
    python3 -m pip install -q pyspark
fi
SPARK_RUNS=${SPARK_RUNS:-3}
ULID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ulid"])' "$QUERY_JSON")
IDGREP_ABS=$(realpath "$IDGREP")
# Spark's logs to a file of their own: standard output is the result.
export PYTHONWARNINGS=ignore
SUBMIT="spark-submit --master local[2] --conf spark.ui.enabled=false --conf spark.executorEnv.PYTHONWARNINGS=ignore"

names=("idgrep alone (-j2)" "idgrep job, local[2]" "spark.read.text + rlike, local[2]")
cmds=(
    "$IDGREP_ABS -j2 --json $ULID $CORPUS > $RESULTS/spark-out.0"
    "$SUBMIT --files $IDGREP_ABS integrations/spark/idgrep_spark.py search --json $ULID $CORPUS > $RESULTS/spark-out.1 2>$RESULTS/spark-err.1"
    "$SUBMIT benches/spark_rlike.py $ULID $CORPUS > $RESULTS/spark-out.2 2>$RESULTS/spark-err.2"
)
hf_args=()
for i in "${!cmds[@]}"; do
    hf_args+=(-n "${names[$i]}" "${cmds[$i]}")
done
log "hyperfine, $SPARK_RUNS runs each"
hyperfine --style basic --runs "$SPARK_RUNS" --export-json "$RESULTS/spark-hyperfine.json" \
    "${hf_args[@]}" >&2

# The same two Spark queries inside one session, its start left out.
log "inside one Spark session, $SPARK_RUNS runs each"
python3 benches/spark_session.py "$ULID" "$CORPUS" "$SPARK_RUNS" "$IDGREP_ABS" \
    >"$RESULTS/spark-session.json" 2>"$RESULTS/spark-session.err"

log "checking that the three find the same lines"
python3 - "$RESULTS" "$BYTES" "${names[@]}" <<'PY'
import json, sys
results, size, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
session = json.load(open(f"{results}/spark-session.json"))
def texts(i):
    raw = open(f"{results}/spark-out.{i}", "rb").read().decode()
    if i == 2:
        return sorted(raw.splitlines())
    return sorted(json.loads(l)["text"] for l in raw.splitlines())
alone, job, rlike = texts(0), texts(1), texts(2)
same_job = open(f"{results}/spark-out.0", "rb").read() == open(f"{results}/spark-out.1", "rb").read()
runs = json.load(open(f"{results}/spark-hyperfine.json"))["results"]
med = [r["median"] for r in runs]
print(f"| command | median s | GB/s |")
print(f"|---|---:|---:|")
for name, m in zip(names, med):
    print(f"| {name} | {m:.2f} | {size / m / 1e9:.2f} |")
print()
print(f"- rlike / idgrep job: **{med[2] / med[1]:.1f}x** (the job is that much faster)")
print(f"- idgrep job / idgrep alone: **{med[1] / med[0]:.1f}x** (Spark's overhead, {med[1] - med[0]:.1f} s)")
print()
print(f"Inside one Spark session (its start, paid once per session, left out):")
print()
print(f"| query | median s | GB/s |")
print(f"|---|---:|---:|")
print(f"| idgrep job | {session['job']:.2f} | {size / session['job'] / 1e9:.2f} |")
print(f"| spark.read.text + rlike | {session['rlike']:.2f} | {size / session['rlike'] / 1e9:.2f} |")
print()
print(f"- rlike / idgrep job, in session: **{session['rlike'] / session['job']:.1f}x**")
print(f"- idgrep job in session / idgrep alone: **{session['job'] / med[0]:.1f}x**")
print(f"- lines: idgrep {len(alone)}, job {len(job)}, rlike {len(rlike)}; "
      f"job output byte-identical to idgrep's: {same_job}; same lines as rlike: {job == rlike}")
if not (same_job and job == rlike and session["same_lines"]):
    sys.exit("the outputs differ")
PY
