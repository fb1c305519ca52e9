"""idgrep as the map step of a Spark job: search, ids and timeline over a log archive.

    spark-submit --files target/release/idgrep idgrep_spark.py search --json 01kb... s3a://logs/2026/11/
    spark-submit --files idgrep idgrep_spark.py ids --top 20 hdfs:///logs/app/ > ids.txt
    spark-submit --files idgrep idgrep_spark.py timeline 01kb... /mnt/archive/ --format ndjson

The job takes idgrep's own arguments after the command and prints what one idgrep run over
the same files prints, byte for byte (see docs/distributed.md):

- the driver lists the files through Spark's file systems (local, HDFS, S3 through s3a where
  the cluster has it) and sorts them in idgrep's walk order;
- each task runs the idgrep binary (shipped with --files, else on PATH) on a run of
  consecutive files: by path where the executors see the files (file: paths), else with each
  file's bytes on standard input under --label PATH (compressed files are recognised by
  content either way). `--stream` before the command streams local files too;
- search runs as `idgrep --json`, ids as `idgrep ids --partial`, timeline as
  `idgrep timeline --format ndjson`; the driver merges the tasks' results with
  `idgrep merge`, in file order.

A file idgrep cannot read (a corrupt archive) is reported by idgrep as `idgrep: PATH: reason`
on standard error and does not fail the job; the exit status is idgrep's: 0 found, 1 nothing
found, 2 an error (a file reported, a bad argument, or the job itself failing once Spark has
retried its tasks).
"""

import os
import shutil
import stat
import subprocess
import sys
import tempfile

USAGE = """usage: spark-submit [--files idgrep] idgrep_spark.py [--stream] [--tasks N] COMMAND ARGS...

COMMAND ARGS are idgrep's own:
  search --json [-e ID]... [-A/-B/-C N] [--tz ZONE] ID PATH...
  ids [--json|--csv] [--sort KEY] [--top N] [--min-lines N] [--kind K] [--field F]... [--all-hex] [--tz ZONE] PATH...
  timeline ID PATH... --format ndjson [--since T] [--until T] [--tz ZONE] [-o FILE]

--stream   send every file's bytes to idgrep's standard input, also where executors see the files
--tasks N  split the files into N tasks (default: 4 per core of the cluster)"""

# idgrep's flags that take a value, per command: what is not a flag or a flag's value is an
# ID or a path.
VALUE_FLAGS = {
    "search": {"-e", "--id", "-f", "--file", "-A", "--after-context", "-B",
               "--before-context", "-C", "--context", "--tz", "-j", "--threads", "--color"},
    "ids": {"--sort", "--top", "--min-lines", "--kind", "--field", "--tz", "-j", "--threads",
            "--color"},
    "timeline": {"--since", "--until", "--format", "-o", "--output", "--tz", "-j",
                 "--threads", "--color", "--max-fanout", "--hops"},
}

# Flags whose meaning is the walk's or a live terminal's, which the job does not take.
REFUSED = {
    "-g": "filter the paths with the file system's own globs in PATH",
    "--glob": "filter the paths with the file system's own globs in PATH",
    "-L": "the job lists files through Spark's file systems",
    "--follow": "the job lists files through Spark's file systems",
    "--tail": "the job reads an archive once",
    "--label": "the job names each file by its path",
    "--local": "give the zone with --tz: executors may be in other zones",
    "--related": "the job merges one-pass timelines; run --related on one machine",
    "-c": "use --json: a merge needs the lines", "--count": "use --json",
    "-l": "use --json", "--files-with-matches": "use --json",
    "-q": "use --json", "--quiet": "use --json",
}

# ids flags applied by the driver's merge, not by the tasks' partial runs.
IDS_VIEW_FLAGS = {"--json", "--csv", "--sort", "--top", "--min-lines", "--kind", "--field",
                  "--all-hex", "--color"}


class UsageError(Exception):
    pass


class Errors:
    """Where messages go: the JVM's standard error when there is one. Under spark-submit the
    Python driver's standard error is merged into its standard output, which is the result."""

    def __init__(self, spark=None):
        self.jvm_err = spark.sparkContext._jvm.System.err if spark is not None else None

    def write(self, data):
        if not data:
            return
        if self.jvm_err is not None:
            self.jvm_err.write(bytearray(data), 0, len(data))
            self.jvm_err.flush()
        else:
            sys.stderr.buffer.write(data)
            sys.stderr.flush()

    def report(self, message):
        self.write(f"idgrep: {message}\n".encode())


def split_flag(arg):
    """`--tz=UTC` as ("--tz", "UTC"); anything else as (arg, None)."""
    if arg.startswith("--") and "=" in arg:
        name, value = arg.split("=", 1)
        return name, value
    return arg, None


def parse(command, args):
    """Splits idgrep's arguments into (flags as pairs, positionals)."""
    if command not in VALUE_FLAGS:
        raise UsageError(f"unknown command {command!r}: give search, ids or timeline")
    flags, positional = [], []
    # Each task runs on its own share of cores: the user's -j is the executors' spark.task.cpus.
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            positional.extend(args[i + 1:])
            break
        name, inline = split_flag(arg)
        if name in REFUSED:
            raise UsageError(f"{name} is not taken by the Spark job: {REFUSED[name]}")
        if arg.startswith("-") and arg != "-":
            if name in ("-j", "--threads"):
                i += 1 if inline is not None else 2
                continue
            if name in VALUE_FLAGS[command] and inline is None:
                if i + 1 >= len(args):
                    raise UsageError(f"{name} needs a value")
                flags.append((name, args[i + 1]))
                i += 2
                continue
            flags.append((name, inline))
        else:
            positional.append(arg)
        i += 1
    if command == "timeline" and any(n == "--hops" and v != "0" for n, v in flags):
        raise UsageError("--hops: the job merges one-pass timelines; run hops on one machine")
    return flags, positional


def flag_args(flags):
    out = []
    for name, value in flags:
        out.append(name)
        if value is not None:
            out.append(value)
    return out


class Plan:
    """What the tasks run and what the driver merges with."""

    def __init__(self, command, args):
        flags, positional = parse(command, args)
        names = {n for n, _ in flags}
        self.command = command
        self.output_file = None
        self.merge_args = []
        if command == "search":
            if "--json" not in names:
                raise UsageError("search: give --json (the job merges JSON lines, ordered by path "
                                 "then line)")
            if names & {"-e", "--id", "-f", "--file"}:
                self.paths = positional
            elif positional:
                flags.append(("-e", positional[0]))
                self.paths = positional[1:]
            else:
                raise UsageError("search: no ID given")
            self.task_args = flag_args(flags)
        elif command == "ids":
            self.paths = positional
            task = [(n, v) for n, v in flags if n not in IDS_VIEW_FLAGS]
            self.task_args = ["ids", "--partial"] + flag_args(task)
            view = [(n, v) for n, v in flags if n in IDS_VIEW_FLAGS or n == "--tz"]
            self.merge_args = flag_args(view)
        else:
            if not positional:
                raise UsageError("timeline: no ID given")
            ident, self.paths = positional[0], positional[1:]
            fmt = dict(flags).get("--format")
            output = dict(flags).get("-o") or dict(flags).get("--output")
            if fmt is None and output is not None:
                fmt = "ndjson" if output.endswith((".ndjson", ".jsonl")) else output
            if fmt not in ("ndjson", "jsonl"):
                raise UsageError(f"timeline: the job merges --format ndjson timelines, not "
                                 f"{fmt or 'text'}; convert with jq or run on one machine")
            self.output_file = output
            task = [(n, v) for n, v in flags if n not in ("-o", "--output", "--format")]
            self.task_args = ["timeline"] + flag_args(task) + ["--format", "ndjson", "--", ident]
        if not self.paths:
            raise UsageError(f"{command}: give the paths to read (the job reads no standard "
                             f"input)")


def idgrep_binary():
    """The binary shipped with --files, else idgrep on PATH; made executable."""
    try:
        from pyspark import SparkFiles
        shipped = os.path.join(SparkFiles.getRootDirectory(), "idgrep")
    except Exception:
        shipped = None
    if shipped and os.path.isfile(shipped):
        mode = os.stat(shipped).st_mode
        if not mode & stat.S_IXUSR:
            os.chmod(shipped, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return shipped
    found = os.environ.get("IDGREP") or shutil.which("idgrep")
    if not found:
        raise RuntimeError("no idgrep binary: ship one with spark-submit --files PATH/idgrep, "
                           "or install it on the executors' PATH")
    return found


def list_files(spark, roots):
    """Every file under `roots`, as (shown name, qualified path, bytes), in idgrep's walk
    order: each root in turn, its files by path components. Names are the root as given
    followed by the path below it, as idgrep shows them."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    files = []
    for root in roots:
        path = jvm.org.apache.hadoop.fs.Path(root)
        fs = path.getFileSystem(conf)
        qualified = fs.makeQualified(path).toString().rstrip("/")
        if not fs.exists(path):
            raise FileNotFoundError(f"{root}: no such file or directory")
        found = []
        listing = fs.listFiles(path, True)
        while listing.hasNext():
            status = listing.next()
            full = status.getPath().toString()
            below = full[len(qualified):] if full.startswith(qualified) else "/" + full
            name = root if not below else root.rstrip("/") + below
            found.append((below.split("/"), name, full, status.getLen()))
        found.sort(key=lambda f: f[0])
        files.extend((name, full, size) for _, name, full, size in found)
    return files


def chunks(files, tasks):
    """Runs of consecutive files of about equal bytes, at most `tasks` of them."""
    total = sum(size for _, _, size in files) or 1
    out, current, current_bytes = [], [], 0
    target = total / max(1, tasks)
    for f in files:
        current.append(f)
        current_bytes += f[2]
        if current_bytes >= target and len(out) < tasks - 1:
            out.append(current)
            current, current_bytes = [], 0
    if current:
        out.append(current)
    return out


def run_by_path(task_args, cwd, threads):
    """A task that runs idgrep once over its files' paths."""
    def run(item):
        index, files = item
        argv = [idgrep_binary(), "-j", str(threads)] + task_args
        if "--" not in task_args:
            argv.append("--")
        argv += [name for name, _, _ in files]
        done = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True)
        return index, done.stdout, done.stderr, done.returncode
    return run


def run_streamed(task_args, threads):
    """A task that sends one file's bytes to idgrep under --label with its shown name."""
    def run(item):
        index, name, data = item
        argv = [idgrep_binary(), "-j", str(threads)] + task_args
        argv = argv[:]
        # The label before `--`, the stdin marker after it.
        at = argv.index("--") if "--" in argv else len(argv)
        argv[at:at] = ["--label", name]
        if "--" not in argv:
            argv.append("--")
        argv.append("-")
        done = subprocess.run(argv, input=bytes(data), capture_output=True)
        return index, done.stdout, done.stderr, done.returncode
    return run


def run(spark, argv, stdout=None, errors=None):
    """Runs the job for `argv` (the arguments after the script's name); returns the exit
    status. The merged output goes to `stdout` (a binary file, default standard output), the
    messages to `errors` (an [`Errors`], default the JVM's standard error)."""
    errors = errors or Errors(spark)
    report = errors.report
    stream, tasks = False, None
    while argv and argv[0] in ("--stream", "--tasks"):
        if argv[0] == "--stream":
            stream, argv = True, argv[1:]
        else:
            if len(argv) < 2 or not argv[1].isdigit() or int(argv[1]) < 1:
                report("--tasks needs a number of tasks, 1 or more")
                return 2
            tasks, argv = int(argv[1]), argv[2:]
    if not argv or argv[0] in ("-h", "--help"):
        errors.write((USAGE + "\n").encode())
        return 2 if not argv else 0
    try:
        plan = Plan(argv[0], argv[1:])
    except UsageError as e:
        report(str(e))
        return 2
    sc = spark.sparkContext
    try:
        files = list_files(spark, plan.paths)
    except Exception as e:
        report(str(e).splitlines()[0])
        return 2
    if not files:
        report("no files to read: check the paths")
        return 2
    threads = int(sc.getConf().get("spark.task.cpus", "1"))
    tasks = tasks or max(1, sc.defaultParallelism * 4)
    try:
        local = all(full.startswith("file:") for _, full, _ in files)
        if local and not stream:
            parts = list(enumerate(chunks(files, tasks)))
            job = run_by_path(plan.task_args, os.getcwd(), threads)
            results = sc.parallelize(parts, max(1, len(parts))).map(job).collect()
        else:
            order = {full: (i, name) for i, (name, full, _) in enumerate(files)}
            job = run_streamed(plan.task_args, threads)
            # A file a partition: Spark holds each streamed file whole in memory, and a
            # partition of many held them all at once (a heap of 1 GB ran out on 256 MB).
            rdd = sc.binaryFiles(",".join(full for _, full, _ in files), len(files))
            results = (rdd.map(lambda kv: (order[kv[0]][0], order[kv[0]][1], kv[1]))
                          .map(job).collect())
    except Exception as e:
        report(f"the Spark job failed: {str(e).splitlines()[0]}")
        return 2
    results.sort(key=lambda r: r[0])
    errored = False
    for _, _, err, code in results:
        errors.write(err)
        errored |= code == 2
    with tempfile.TemporaryDirectory(prefix="idgrep-spark-") as tmp:
        parts = []
        for index, out, _, _ in results:
            part = os.path.join(tmp, f"{index:08}")
            with open(part, "wb") as f:
                f.write(out)
            parts.append(part)
        target = stdout if stdout is not None else sys.stdout.buffer
        if plan.output_file:
            target = open(plan.output_file, "wb")
        target.flush()
        done = subprocess.run([idgrep_binary(), "merge"] + plan.merge_args + ["--"] + parts,
                              stdout=target.fileno(), stderr=subprocess.PIPE)
        errors.write(done.stderr)
        if plan.output_file:
            target.close()
    return 2 if errored else done.returncode


def main():
    import warnings
    warnings.simplefilter("ignore")
    from pyspark.sql import SparkSession
    # Python workers share the job's standard output, which is the result: a library's
    # warning there (pyspark warns of the pandas version) would corrupt it.
    spark = (SparkSession.builder.appName("idgrep")
             .config("spark.executorEnv.PYTHONWARNINGS", "ignore")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        code = run(spark, sys.argv[1:])
    finally:
        spark.stop()
    sys.exit(code)


if __name__ == "__main__":
    main()
