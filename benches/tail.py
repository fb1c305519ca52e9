#!/usr/bin/env python3
"""benches/tail.py: `idgrep --tail` measured against `tail -F FILES | rg --line-buffered ID`,
the pipeline users run today, in the same run. Run through benches/tail.sh.

1. latency from a flushed write (one write(2) of a whole line) to the printed line: p50, p95,
   max over LAT_SAMPLES lines, with OS events, with --poll POLL_MS, and for the pipeline;
2. idle CPU while IDLE_FILES files are followed and nothing is written (% of one core);
3. a sustained RATE_MB MB/s of appended lines across 100 files for RATE_SECONDS: CPU (% of one
   core), the write rate reached, every matching line printed, and the lag after the last write;
4. resident memory sampled over MEM_SECONDS of writes with a rename rotation of every file each
   ROTATE_SECONDS;
5. a gzip stream of about 40 MB of log that appears in a followed directory and is written in
   GZ_CHUNKS pieces GZ_PAUSE seconds apart (`app | gzip > app.log.gz`): CPU (% of one core)
   while it is written, every matching line printed once, and the time from its last byte to
   its lines. `tail -F | rg` does not read compressed files: idgrep alone.
SECTIONS picks some of: latency idle sustained memory compressing.
"""

import gzip
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ID = "01M8KBYGM5NG2PSHNY302ZVWBS"
IDGREP = os.path.abspath(os.environ.get("IDGREP", "target/release/idgrep"))
RG = shutil.which("rg") or os.path.expanduser("~/.cargo/bin/rg")
LAT_SAMPLES = int(os.environ.get("LAT_SAMPLES", "200"))
POLL_MS = int(os.environ.get("POLL_MS", "100"))
IDLE_FILES = int(os.environ.get("IDLE_FILES", "1000"))
IDLE_SECONDS = float(os.environ.get("IDLE_SECONDS", "10"))
RATE_MB = float(os.environ.get("RATE_MB", "50"))
RATE_SECONDS = float(os.environ.get("RATE_SECONDS", "10"))
MEM_SECONDS = float(os.environ.get("MEM_SECONDS", "60"))
ROTATE_SECONDS = float(os.environ.get("ROTATE_SECONDS", "2"))
GZ_CHUNKS = int(os.environ.get("GZ_CHUNKS", "100"))
GZ_PAUSE = float(os.environ.get("GZ_PAUSE", "0.6"))
SECTIONS = os.environ.get("SECTIONS", "latency idle sustained memory compressing").split()
CLK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / CLK


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Follower:
    """A follower process whose output lines are timestamped as they arrive."""

    def __init__(self, kind, root, files, extra=()):
        self.kind = kind
        if kind == "idgrep":
            self.procs = [subprocess.Popen([IDGREP, "--tail", *extra, ID, root],
                                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)]
        else:
            tail = subprocess.Popen(["tail", "-q", "-F", "-n", "+1", *files],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            rg = subprocess.Popen([RG, "--line-buffered", ID], stdin=tail.stdout,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            tail.stdout.close()
            self.procs = [tail, rg]
        self.seen = {}
        self.count = 0
        self.lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.procs[-1].stdout:
            now = time.monotonic()
            marker = line.split(b" ", 1)[0].rsplit(b":", 1)[-1]
            with self.lock:
                self.seen[marker] = now
                self.count += 1
                self.lock.notify_all()

    def wait_for(self, marker, timeout=30):
        deadline = time.monotonic() + timeout
        with self.lock:
            while marker not in self.seen:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.lock.wait(left)
            return self.seen[marker]

    def ready(self, path):
        """Writes markers until one is printed: the follower is watching."""
        for i in range(100):
            marker = f"ready-{i}".encode()
            append(path, marker + b" " + ID.encode() + b"\n")
            if self.wait_for(marker, timeout=0.5):
                return
        raise SystemExit(f"{self.kind}: never printed a ready marker")

    def pids(self):
        return [p.pid for p in self.procs]

    def stop(self):
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            p.wait()


def append(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, data)
    os.close(fd)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def latency(kind, extra=()):
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, "app.log")
        append(path, b"start\n")
        follower = Follower(kind, root, [path], extra)
        follower.ready(path)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        rng = random.Random(1)
        sent = {}
        for i in range(LAT_SAMPLES):
            time.sleep(rng.uniform(0.005, 0.03))
            marker = f"lat-{i}".encode()
            sent[marker] = time.monotonic()
            os.write(fd, marker + b" order=" + ID.encode() + b" noise noise noise\n")
        os.close(fd)
        lat = []
        for marker, t0 in sent.items():
            t1 = follower.wait_for(marker, timeout=10)
            lat.append((t1 - t0) * 1000 if t1 else float("inf"))
        follower.stop()
    return lat


def idle_cpu(kind):
    with tempfile.TemporaryDirectory() as root:
        files = []
        for d in range(10):
            os.mkdir(os.path.join(root, f"svc{d}"))
            for f in range(IDLE_FILES // 10):
                path = os.path.join(root, f"svc{d}", f"f{f}.log")
                append(path, b"2026-12-01T10:00:00Z INFO started\n")
                files.append(path)
        follower = Follower(kind, root, files)
        follower.ready(files[0])
        time.sleep(1)
        before, t0 = cpu_seconds(follower.pids()), time.monotonic()
        time.sleep(IDLE_SECONDS)
        used = cpu_seconds(follower.pids()) - before
        wall = time.monotonic() - t0
        follower.stop()
    return 100 * used / wall


def sustained(kind):
    with tempfile.TemporaryDirectory() as root:
        files = [os.path.join(root, f"f{i:03}.log") for i in range(100)]
        for path in files:
            append(path, b"start\n")
        follower = Follower(kind, root, files)
        follower.ready(files[0])
        fds = [os.open(p, os.O_WRONLY | os.O_APPEND) for p in files]
        noise = b"".join(b"2026-12-01T10:00:00.000Z INFO request served path=/api/v1/items status=200 dur=3ms user=u%04d\n" % i
                         for i in range(50))
        tick = 0.01
        per_tick = int(RATE_MB * 1e6 * tick / len(noise))  # chunks per tick across all files
        start_count = follower.count
        before, t0 = cpu_seconds(follower.pids()), time.monotonic()
        written = 0
        matches = 0
        n = 0
        while time.monotonic() - t0 < RATE_SECONDS:
            for _ in range(per_tick):
                fd = fds[n % len(fds)]
                chunk = noise
                if n % 10 == 0:
                    chunk = noise + b"tp-%d order=%s\n" % (matches, ID.encode())
                    matches += 1
                os.write(fd, chunk)
                if n % 10 == 0:
                    last_write = time.monotonic()
                written += len(chunk)
                n += 1
            next_tick = t0 + tick * (1 + int((time.monotonic() - t0) / tick))
            time.sleep(max(0, next_tick - time.monotonic()))
        t_end = time.monotonic()
        last = follower.wait_for(b"tp-%d" % (matches - 1), timeout=60)
        used = cpu_seconds(follower.pids()) - before
        wall = t_end - t0
        printed = follower.count - start_count
        for fd in fds:
            os.close(fd)
        follower.stop()
    return {
        "rate": written / wall / 1e6,
        "cpu": 100 * used / wall,
        "printed": printed,
        "expected": matches,
        "lag_ms": (last - last_write) * 1000 if last else float("inf"),
    }


def memory():
    with tempfile.TemporaryDirectory() as root:
        files = [os.path.join(root, f"f{i:02}.log") for i in range(20)]
        for path in files:
            append(path, b"start\n")
        follower = Follower("idgrep", root, files)
        follower.ready(files[0])
        pid = follower.pids()[0]
        samples = []
        t0 = time.monotonic()
        next_sample = t0
        next_rotation = t0 + ROTATE_SECONDS
        n = 0
        rotations = 0
        line = b"2026-12-01T10:00:00.000Z INFO noise noise noise noise noise noise noise noise\n" * 40
        while time.monotonic() - t0 < MEM_SECONDS:
            for path in files:
                append(path, line + b"mem-%d order=%s\n" % (n, ID.encode()))
                n += 1
            if time.monotonic() >= next_sample:
                samples.append((time.monotonic() - t0, rss_mib(pid)))
                next_sample += MEM_SECONDS / 12
            if time.monotonic() >= next_rotation:
                next_rotation += ROTATE_SECONDS
                # A rename rotation of every file, the old ones deleted a round later.
                for path in files:
                    if os.path.exists(path + ".1"):
                        os.remove(path + ".1")
                    os.rename(path, path + ".1")
                rotations += 1
            time.sleep(0.01)
        samples.append((time.monotonic() - t0, rss_mib(pid)))
        ok = follower.wait_for(b"mem-%d" % (n - 1), timeout=30) is not None
        follower.stop()
    return samples, n, rotations, ok


def compressing():
    rng = random.Random(1)
    lines = []
    for i in range(350_000):
        if i % 1000 == 0:
            lines.append(b"gz-%d 2026-12-01T10:00:00.000Z INFO charged order=%s\n" % (i // 1000, ID.encode()))
        else:
            lines.append(b"2026-12-01T10:00:00.000Z INFO noise %064x\n" % rng.getrandbits(256))
    stream = gzip.compress(b"".join(lines), 6)
    expected = 350
    with tempfile.TemporaryDirectory() as root:
        first = os.path.join(root, "app.log")
        append(first, b"start\n")
        follower = Follower("idgrep", root, [first])
        follower.ready(first)
        start_count = follower.count
        before, t0 = cpu_seconds(follower.pids()), time.monotonic()
        step = len(stream) // GZ_CHUNKS + 1
        with open(os.path.join(root, "new.log.gz"), "wb") as out:
            for at in range(0, len(stream), step):
                out.write(stream[at:at + step])
                out.flush()
                time.sleep(GZ_PAUSE)
        wall = time.monotonic() - t0
        used = cpu_seconds(follower.pids()) - before
        last_write = t0 + wall - GZ_PAUSE
        last = follower.wait_for(b"gz-%d" % (expected - 1), timeout=120)
        time.sleep(1)
        printed = follower.count - start_count
        follower.stop()
    return {
        "mb": len(stream) / 1e6,
        "cpu": 100 * used / wall,
        "printed": printed,
        "expected": expected,
        "after_ms": (last - last_write) * 1000 if last else float("inf"),
    }


def main():
    print(f"idgrep: {IDGREP}\nalternative: tail -F FILES | rg --line-buffered ID ({RG})")
    print(f"cores: {os.cpu_count()}; load average: {os.getloadavg()[0]:.2f}")
    if "latency" in SECTIONS:
        latency_table()
    if "idle" in SECTIONS:
        idle_table()
    if "sustained" in SECTIONS:
        sustained_table()
    if "memory" in SECTIONS:
        memory_table()
    if "compressing" in SECTIONS:
        compressing_table()


def latency_table():
    print("\n## 1. latency, flushed write to printed line (ms)")
    print(f"{'follower':<34} {'p50':>8} {'p95':>8} {'max':>8}")
    rows = [
        ("idgrep --tail (events)", "idgrep", ()),
        (f"idgrep --tail --poll {POLL_MS}", "idgrep", ("--poll", str(POLL_MS))),
        ("tail -F | rg --line-buffered", "pipeline", ()),
    ]
    for name, kind, extra in rows:
        lat = latency(kind, extra)
        print(f"{name:<34} {statistics.median(lat):8.1f} {percentile(lat, 95):8.1f} {max(lat):8.1f}")
    print(f"bars: p95 <= 250 ms with events, <= {2 * POLL_MS} ms (2 intervals) with --poll {POLL_MS}")


def idle_table():
    print(f"\n## 2. idle CPU, {IDLE_FILES} files followed, nothing written for {IDLE_SECONDS:.0f} s")
    for name, kind in (("idgrep --tail", "idgrep"), ("tail -F | rg", "pipeline")):
        print(f"{name:<34} {idle_cpu(kind):6.2f}% of a core")
    print("bar: 1% of a core")



def sustained_table():
    print(f"\n## 3. sustained {RATE_MB:.0f} MB/s across 100 files for {RATE_SECONDS:.0f} s")
    print(f"{'follower':<34} {'MB/s':>7} {'CPU %':>7} {'printed':>9} {'lag ms':>8}")
    for name, kind in (("idgrep --tail", "idgrep"), ("tail -F | rg", "pipeline")):
        r = sustained(kind)
        print(f"{name:<34} {r['rate']:7.1f} {r['cpu']:7.1f} {r['printed']:>5}/{r['expected']:<4} {r['lag_ms']:8.1f}")
    print("lag: from the write of the last matching line to its printing")
    print("bar: CPU at most 50% of a core, every matching line printed, no growing lag")



def memory_table():
    print(f"\n## 4. memory over {MEM_SECONDS:.0f} s of writes to 20 files, each renamed every "
          f"{ROTATE_SECONDS:g} s")
    samples, lines, rotations, ok = memory()
    print("seconds  RSS MiB")
    for at, rss in samples:
        print(f"{at:7.1f}  {rss:7.1f}")
    print(f"{lines} matching lines written, {rotations} rotations, last line printed: {ok}")


def compressing_table():
    r = compressing()
    print(f"\n## 5. a {r['mb']:.0f} MB gzip stream written into a followed directory in {GZ_CHUNKS} "
          f"pieces, {GZ_PAUSE:g} s apart")
    print(f"{'follower':<34} {'CPU %':>7} {'printed':>9} {'after ms':>9}")
    print(f"{'idgrep --tail':<34} {r['cpu']:7.1f} {r['printed']:>5}/{r['expected']:<4} {r['after_ms']:9.0f}")
    print("after: from the stream's last byte to its last matching line printed")


if __name__ == "__main__":
    sys.exit(main())
