# benches/common.sh: what the benchmark scripts share, sourced by them: settings from the
# environment, building idgrep, the deterministic corpus (generated once, reused while it is
# current), ripgrep, hyperfine and GNU time. See benches/compare.sh for the variables.

CORPUS=${CORPUS:-target/bench-corpus}
CORPUS=${CORPUS%/}
SIZE=${SIZE:-1G}
SEED=${SEED:-1}
DISTINCT_IDS=${DISTINCT_IDS:-}
THREADS_LIST=${THREADS_LIST:-"2 1"}
RUNS=${RUNS:-5}
IDGREP=${IDGREP:-target/release/idgrep}
RESULTS=${RESULTS:-target/bench-results}

log() { printf '==> %s\n' "$*" >&2; }

# Builds the bench target benches/$1.rs (optimised) and prints its executable's path.
bench_binary() {
    log "building benches/$1.rs"
    local exe
    exe=$(cargo bench --quiet --no-run --bench "$1" --message-format=json |
        python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == sys.argv[1]:
        print(m["executable"])' "$1")
    [[ -x $exe ]] || { log "benches/$1.rs did not build"; exit 1; }
    echo "$exe"
}

apt_install() {
    # One `apt-get update` only when the plain install fails: the lists may be stale or empty.
    apt-get install -y "$@" >/dev/null 2>&1 ||
        { apt-get update >/dev/null && apt-get install -y "$@" >/dev/null; }
}

# ---- 1. build idgrep, then the corpus unless an identical one is already there ----

if [[ $IDGREP == target/release/idgrep ]]; then
    log "building idgrep (release)"
    cargo build --release --quiet
fi

generator_sha() {
    cat benches/gen_corpus.rs benches/corpus/*.rs | sha256sum | cut -d' ' -f1
}

corpus_is_current() {
    QUERY_JSON="$CORPUS.query.json"
    STAMP="$CORPUS.gen-sha256"
    [[ -d $CORPUS && -f $QUERY_JSON && -f $STAMP ]] || return 1
    [[ $(cat "$STAMP") == "$(generator_sha)" ]] || return 1
    python3 - "$CORPUS" "$QUERY_JSON" "$SIZE" "$SEED" "$DISTINCT_IDS" <<'EOF'
import json, os, sys
corpus, query, size, seed, distinct = sys.argv[1:]
units = {"K": 10, "M": 20, "G": 30, "T": 40}
s = size.strip()
for suffix in ("iB", "B", "b"):
    if s.endswith(suffix):
        s = s[: -len(suffix)]
        break
shift = units.get(s[-1:].upper(), 0)
target = int(s[:-1] if shift else s) << shift
q = json.load(open(query))
on_disk = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(corpus) for f in fs)
same = (q.get("version") == 1 and q["target_bytes"] == target and q["seed"] == int(seed)
        and q["distinct_ids_target"] == (int(distinct) if distinct else None)
        and q["bytes"] == on_disk)
sys.exit(0 if same else 1)
EOF
}

# Makes sure $CORPUS holds the corpus of $SIZE, $SEED and $DISTINCT_IDS, generating it unless
# an identical one is there; sets QUERY_JSON and STAMP beside it. Run once when this file is
# sourced; a script that times a second corpus sets the variables and calls it again.
ensure_corpus() {
    if corpus_is_current; then
        log "reusing corpus $CORPUS"
    else
        log "generating a $SIZE corpus in $CORPUS (seed $SEED)"
        local gen_args=(--out "$CORPUS" --size "$SIZE" --seed "$SEED" --force)
        [[ -n $DISTINCT_IDS ]] && gen_args+=(--distinct-ids "$DISTINCT_IDS")
        mkdir -p "$(dirname "$CORPUS")"
        rm -f "$STAMP"
        cargo bench --quiet --bench gen_corpus -- "${gen_args[@]}" >/dev/null
        generator_sha >"$STAMP"
    fi
}
ensure_corpus

# ---- 2. tools ----

if [[ -z ${RG:-} ]]; then
    RG=$HOME/.cargo/bin/rg
    if [[ ! -x $RG ]]; then
        log "installing ripgrep with cargo"
        cargo install --quiet --locked ripgrep
    fi
fi
log "$("$RG" --version | head -n1)"
if ! command -v hyperfine >/dev/null; then
    log "installing hyperfine"
    apt_install hyperfine
fi
if [[ ! -x /usr/bin/time ]]; then
    log "installing GNU time"
    apt_install time
fi


# Times the commands of the arrays `names` and `cmds` in one hyperfine run, exported to
# $RESULTS/$1-hyperfine-j$2.json, then runs each once more under GNU time for its peak RSS,
# in $RESULTS/$1-rss.<index>.j$2 (KiB): the command of the same index in the array
# `rss_cmds` if there is one (say, the same command writing its output to a file to be
# counted), else the timed one. Every command must succeed: a grep-style exit 1 (no match)
# fails the run, which is right, since each command is expected to find something.
time_commands() {
    local label=$1 j=$2 i
    local hf_args=()
    for i in "${!cmds[@]}"; do
        hf_args+=(-n "${names[$i]}" "${cmds[$i]}")
    done
    log "hyperfine, $label, $j thread(s)"
    hyperfine --style basic --warmup 1 --runs "$RUNS" \
        --export-json "$RESULTS/$label-hyperfine-j$j.json" "${hf_args[@]}" >&2
    for i in "${!cmds[@]}"; do
        /usr/bin/time -f %M -o "$RESULTS/$label-rss.$i.j$j" bash -c "${rss_cmds[$i]:-${cmds[$i]}}"
    done
}

# Creates $RESULTS, reads the corpus once so every timed run finds it in the page cache, and
# sets BYTES to its size from the query JSON.
warm_corpus() {
    mkdir -p "$RESULTS"
    # The same cache state in every run: pages the generator wrote are cached as it wrote
    # them, in 4 KiB pages, while pages read back come in large folios, and the kernel's share
    # of read(2) is a fifth smaller with those (the same for every tool). So the corpus is
    # synced and dropped from the cache, then read back.
    log "warming the page cache (drop, then read back)"
    python3 benches/drop_cache.py "$CORPUS"
    find "$CORPUS" -type f -exec cat {} + >/dev/null
    BYTES=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bytes"])' "$QUERY_JSON")
}
