"""The Spark job against one idgrep run, byte for byte, in Spark's local mode (local[2]).

    python3 integrations/spark/test_spark.py --idgrep target/debug/idgrep [--mb 256]

Every case runs the job and idgrep alone over the same files and compares standard output
byte for byte and the exit status; the idgrep messages (`idgrep: PATH: reason`) of the
single run must all be among the job's. The cases run in one Spark session (a session takes
longer to start than most cases take to run), over the bundled testdata and over a generated
tree of a few hundred MB with corrupt files among them. The binary is shipped to the
executors with addFile, as spark-submit --files ships it; a last case runs spark-submit itself. Ends with 'N passed, N failed';
exits 1 when a case failed.
"""

import argparse
import bz2
import gzip
import lzma
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import idgrep_spark  # noqa: E402

CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def ulid(value):
    return "".join(CROCKFORD[(value >> (5 * (25 - i))) & 31] for i in range(26))


def forms(value):
    """`value` in the seven forms idgrep finds."""
    u = uuid.UUID(int=value)
    return [ulid(value), ulid(value).upper(), str(u), str(u).upper(), "{%s}" % u, u.hex,
            "urn:uuid:%s" % u]


def generate(root, megabytes, seed=22):
    """A log tree of about `megabytes` MB: JSON, logfmt and plain lines, some files gzip,
    bzip2 or xz compressed, times with and without microseconds, a hot ID in every file, and
    three files idgrep cannot read whole (truncated gzip, bytes that are no gzip, a binary
    file). Returns the hot ID."""
    rng = random.Random(seed)
    hot = (0x0192 << 112) | (0x7 << 76) | (0x2 << 62) | rng.getrandbits(48)
    values = [rng.getrandbits(128) for _ in range(20000)]
    values += [((1795946400000 + rng.randrange(3_600_000)) << 80) | rng.getrandbits(80)
               for _ in range(20000)]
    # Every written form of each value, rendered once: rendering per line took most of the time.
    pool = [forms(v) for v in values]
    hot_forms = forms(hot)
    traces = ["%032x" % rng.getrandbits(128) for _ in range(5000)]
    services = ["api", "billing", "gateway", "ledger", "worker"]
    target = megabytes * 1_000_000
    size, n = 0, 0
    while size < target:
        svc = services[n % len(services)]
        directory = os.path.join(root, svc, "2026", "11", "%02d" % (1 + n % 3))
        os.makedirs(directory, exist_ok=True)
        lines = []
        micros = n % 4 == 0
        start = 1795946400 + n * 37
        seconds = [time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(start + s)) for s in range(4000)]
        rand = rng.random
        for i in range(rng.randrange(20000, 40000)):
            frac = ("%06d" % int(rand() * 1e6)) if micros else ("%03d" % int(rand() * 1e3))
            stamp = seconds[i // 10] + "." + frac + "Z"
            a = hot_forms if rand() < 0.002 else pool[int(rand() * len(pool))]
            a = a[int(rand() * 7)]
            b = pool[int(rand() * len(pool))][int(rand() * 7)]
            kind = i % 3
            if kind == 0:
                lines.append('{"ts":"%s","level":"info","svc":"%s","order_id":"%s",'
                             '"user":{"id":"%s"},"msg":"order step %d"}' % (stamp, svc, a, b, i))
            elif kind == 1:
                lines.append('ts=%s level=warn svc=%s payment_id=%s msg="retry %d" trace=%s'
                             % (stamp, svc, a, i, traces[int(rand() * len(traces))]))
            else:
                lines.append("%s INFO [%s] handled request %s for tenant %s in %dms"
                             % (stamp.replace("T", " "), svc, a, b, i % 900))
        data = ("\n".join(lines) + "\n").encode()
        name = os.path.join(directory, "%s-%04d.log" % (svc, n))
        compress = [None, None, "gz", "bz2", "xz"][n % 5]
        if compress == "gz":
            data, name = gzip.compress(data, 1), name + ".gz"
        elif compress == "bz2":
            data, name = bz2.compress(data, 1), name + ".bz2"
        elif compress == "xz":
            data, name = lzma.compress(data, preset=0), name + ".xz"
        with open(name, "wb") as f:
            f.write(data)
        size += len(data)
        n += 1
    broken = os.path.join(root, "worker", "broken")
    os.makedirs(broken, exist_ok=True)
    whole = gzip.compress(("x %s\n" % ulid(hot)).encode() * 50000)
    with open(os.path.join(broken, "truncated.log.gz"), "wb") as f:
        f.write(whole[: len(whole) // 2])
    with open(os.path.join(broken, "not-gzip.log.gz"), "wb") as f:
        f.write(b"\x1f\x8b\x08\x00" + bytes(rng.getrandbits(8) for _ in range(4096)))
    with open(os.path.join(broken, "core.bin"), "wb") as f:
        f.write(b"\x00\x01ELF" + ("id=%s\n" % ulid(hot)).encode() * 10 + b"\x00" * 100)
    return ulid(hot)


class Collected(idgrep_spark.Errors):
    """The job's messages, kept to compare."""

    def __init__(self):
        super().__init__(None)
        self.data = b""

    def write(self, data):
        self.data += data


def single_argv(binary, argv):
    """The idgrep run a job's arguments stand for."""
    while argv[0] in ("--stream", "--tasks"):
        argv = argv[1:] if argv[0] == "--stream" else argv[2:]
    if argv[0] == "search":
        argv = argv[1:]
    return [binary] + argv


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--idgrep", required=True)
    parser.add_argument("--mb", type=int, default=256)
    args = parser.parse_args()
    binary = os.path.abspath(args.idgrep)
    os.chdir(REPO)
    os.environ["PYTHONWARNINGS"] = "ignore"
    # Not on PATH: the executors find the binary shipped with addFile, or fail.
    os.environ.pop("IDGREP", None)

    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").appName("idgrep-test")
             .config("spark.ui.enabled", "false")
             .config("spark.executorEnv.PYTHONWARNINGS", "ignore")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark.sparkContext.addFile(binary)
    # The job's functions are this module's, which the Python workers import by name.
    spark.sparkContext.addPyFile(idgrep_spark.__file__)

    hot = "01m8kbygm5ng2pshny302zvwbs"
    root_tl = "01a226bf-5052-7e7f-bf69-4da8a434d6f9"
    cases = [
        ["ids", "testdata/logs", "testdata/edge"],
        ["ids", "--json", "--sort", "first", "testdata/logs"],
        ["ids", "--csv", "--top", "5", "--kind", "ulid", "--tz", "Europe/Paris", "testdata/logs"],
        ["search", "--json", hot, "testdata/logs", "testdata/edge"],
        ["search", "--json", "-C", "1", hot, "testdata/logs/"],
        ["timeline", hot, "testdata/logs", "--format", "ndjson"],
        ["timeline", root_tl, "testdata", "--format", "ndjson"],
        ["--stream", "ids", "testdata/logs", "testdata/edge"],
        ["--stream", "search", "--json", hot, "testdata/logs"],
        ["--stream", "--tasks", "3", "timeline", hot, "testdata/logs", "--format", "ndjson"],
        ["--tasks", "1", "ids", "--all-hex", "testdata"],
        ["search", "--json", "01m8kbygm5ng2pshny302zvwbz", "testdata/logs"],
    ]
    refused = [
        (["search", hot, "testdata/logs"], "--json"),
        (["ids", "testdata/nope"], "testdata/nope"),
        (["timeline", "--related", hot, "testdata/logs"], "--related"),
    ]
    passed = failed = 0

    def check(argv, cwd_files):
        nonlocal passed, failed
        errors = Collected()
        with tempfile.TemporaryFile() as out:
            started = time.monotonic()
            code = idgrep_spark.run(spark, list(argv), stdout=out, errors=errors)
            took = time.monotonic() - started
            out.seek(0)
            got = out.read()
        single = subprocess.run(single_argv(binary, argv), capture_output=True,
                                stdin=subprocess.DEVNULL)
        problems = []
        if got != single.stdout:
            problems.append("output differs (%d bytes, one run %d)" % (len(got), len(single.stdout)))
        if code != single.returncode:
            problems.append("exit %d, one run %d" % (code, single.returncode))
        for line in single.stderr.splitlines():
            if line not in errors.data.splitlines():
                problems.append("message missing: %s" % line.decode(errors="replace"))
        if not single.stdout and single.returncode != 1:
            problems.append("the one run printed nothing")
        status = "ok" if not problems else "FAILED"
        print("%s %s (%.1fs, %d bytes, exit %d)" % (status, " ".join(argv), took, len(got), code))
        for p in problems:
            print("    " + p)
        passed += not problems
        failed += bool(problems)

    for argv in cases:
        check(argv, None)
    for argv, reason in refused:
        errors = Collected()
        code = idgrep_spark.run(spark, list(argv), stdout=sys.stdout.buffer, errors=errors)
        ok = code == 2 and reason.encode() in errors.data
        print("%s refused: %s (%s)" % ("ok" if ok else "FAILED", " ".join(argv),
                                        errors.data.decode(errors="replace").strip()))
        passed += ok
        failed += not ok

    with tempfile.TemporaryDirectory(prefix="idgrep-spark-tree-") as tmp:
        root = os.path.join(tmp, "logs")
        started = time.monotonic()
        big_hot = generate(root, args.mb)
        total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
        print("generated %d MB in %.0fs" % (total // 1_000_000, time.monotonic() - started))
        for argv in [
            ["ids", root],
            ["search", "--json", big_hot, root],
            ["timeline", big_hot, root, "--format", "ndjson"],
            ["--stream", "ids", "--sort", "files", "--top", "1000", root],
        ]:
            check(argv, root)

    spark.stop()

    # The command line as users run it: spark-submit, the binary shipped with --files, the
    # exit status through spark-submit, standard output holding the result alone (spark-submit
    # merges the Python driver's standard error into it).
    argv = ["ids", "testdata/logs", "testdata/edge"]
    submitted = subprocess.run(
        ["spark-submit", "--master", "local[2]", "--conf", "spark.ui.enabled=false",
         "--files", binary, os.path.join(HERE, "idgrep_spark.py")] + argv,
        capture_output=True, stdin=subprocess.DEVNULL)
    single = subprocess.run(single_argv(binary, argv), capture_output=True,
                            stdin=subprocess.DEVNULL)
    ok = (submitted.stdout == single.stdout and submitted.returncode == single.returncode
          and all(line in submitted.stderr.splitlines() for line in single.stderr.splitlines()))
    print("%s spark-submit %s (%d bytes, exit %d; one run %d bytes, exit %d)"
          % ("ok" if ok else "FAILED", " ".join(argv), len(submitted.stdout),
             submitted.returncode, len(single.stdout), single.returncode))
    passed += ok
    failed += not ok
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
