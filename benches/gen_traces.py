#!/usr/bin/env python3
"""benches/gen_traces.py owns the trace-heavy corpus of benches/ids_traces.sh: logs of a
fleet that writes trace and span IDs on every line, in every spelling idgrep reads.

usage: benches/gen_traces.py OUT_DIR SIZE_BYTES [SEED]

Each trace is told over 8 to 24 lines by the services that own its 3 to 7 spans (a span's
lines come from its own service, as OpenTelemetry's do), each service in its own format, in
files of 32 MiB (OUT_DIR/<service>/<service>-NNNN.log):
  otlp/     OTLP JSON log records (traceId, spanId, parentSpanId, timeUnixNano)
  ecs/      ECS JSON (trace.id, span.id, transaction.id)
  app/      logfmt with a traceparent, span_id, parent_span_id, and sometimes a b3 header
  edge/     nginx access lines with an X-Amzn-Trace-Id value (Root=1-...;Parent=...)
  payments/ Datadog JSON (dd.trace_id, dd.span_id as decimals)
with a ULID order ID and a UUIDv7 request ID on some lines, and digests (sha, md5) that are
no IDs. The output depends only on SIZE_BYTES and SEED (the standard library's PRNG).
"""
import os
import random
import sys
import time

SERVICES = ("otlp", "ecs", "app", "edge", "payments")
FILE_BYTES = 32 << 20
CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def ulid(rng, ms):
    v = (ms << 80) | rng.getrandbits(80)
    return "".join(CROCKFORD[(v >> (5 * i)) & 31] for i in range(25, -1, -1))


def uuid7(rng, ms):
    v = (ms << 80) | (0x7 << 76) | (rng.getrandbits(12) << 64) | (0b10 << 62) | rng.getrandbits(62)
    h = f"{v:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def iso(ms):
    """The RFC 3339 UTC time of Unix milliseconds `ms`: the same instant as timeUnixNano."""
    s, milli = divmod(ms, 1000)
    t = time.gmtime(s)
    return (f"{t.tm_year}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:"
            f"{t.tm_sec:02d}.{milli:03d}Z")


def line(rng, service, ms, trace, span, parent, order, request):
    """One log line; `parent` is None on the root span's lines, which name no parent (OTLP
    writes an empty parentSpanId, logfmt and b3 leave it out)."""
    t = f"{trace:032x}"
    s = f"{span:016x}"
    p = "" if parent is None else f"{parent:016x}"
    if service == "otlp":
        return (
            '{"timeUnixNano":"%d000000","severityText":"INFO","body":{"stringValue":"step done"},'
            '"attributes":{"order_id":"%s"},"traceId":"%s","spanId":"%s","parentSpanId":"%s"}'
            % (ms, order, t, s, p)
        )
    if service == "ecs":
        return (
            '{"@timestamp":"%s","log.level":"info","message":"cart updated","service.name":"cart",'
            '"trace.id":"%s","span.id":"%s","transaction.id":"%s","file.hash.sha1":"%040x"}'
            % (iso(ms), t, s, s, rng.getrandbits(160))
        )
    if service == "app":
        b3 = f" b3={t}-{s}-1" + (f"-{p}" if p else "") if rng.random() < 0.3 else ""
        parent_field = f" parent_span_id={p}" if p else ""
        return (
            f'ts={iso(ms)} level=info msg="call downstream" request_id={request} '
            f"traceparent=00-{t}-{s}-01 span_id={s}{parent_field}{b3}"
        )
    if service == "edge":
        return (
            f'10.0.{rng.randrange(256)}.{rng.randrange(256)} - - [{iso(ms)}] "POST /api/orders/{order} HTTP/1.1" '
            f'200 {rng.randrange(100, 9000)} "-" "client/2.1" "Root=1-{t[:8]}-{t[8:]};Parent={s};Sampled=1"'
        )
    return (
        '{"timestamp":"%s","status":"info","message":"charge","service":"payments","etag":"%032x",'
        '"dd":{"trace_id":"%d","span_id":"%d"},"request_id":"%s"}'
        % (iso(ms), rng.getrandbits(128), trace & (2**64 - 1), span, request)
    )


def main():
    out, size = sys.argv[1], int(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    os.makedirs(out, exist_ok=True)
    files, sizes, numbers = {}, {}, {}

    def rotate(service):
        """Each service's log rolls over at FILE_BYTES, as logrotate leaves them."""
        if service in files:
            files[service].close()
        numbers[service] = numbers.get(service, -1) + 1
        name = f"{service}-{numbers[service]:04d}.log"
        files[service] = open(os.path.join(out, service, name), "w")
        sizes[service] = 0

    for service in SERVICES:
        os.makedirs(os.path.join(out, service), exist_ok=True)
        rotate(service)
    written = 0
    ms = 1_795_000_000_000
    while written < size:
        trace = rng.getrandbits(128) or 1
        order, request = ulid(rng, ms), uuid7(rng, ms)
        spans = [rng.getrandbits(64) or 1 for _ in range(rng.randrange(3, 8))]
        # A span is one service's unit of work, so its lines come from that service; its
        # parent, the caller's span, is often another service's.
        owners = [SERVICES[rng.randrange(len(SERVICES))] for _ in spans]
        for _ in range(rng.randrange(8, 25)):
            ms += rng.randrange(1, 40)
            i = rng.randrange(len(spans))
            # The spans form a chain from the root, spans[0], which has no parent.
            parent = spans[i - 1] if i else None
            service = owners[i]
            text = line(rng, service, ms, trace, spans[i], parent, order, request) + "\n"
            files[service].write(text)
            written += len(text)
            sizes[service] += len(text)
            if sizes[service] >= FILE_BYTES:
                rotate(service)
    for f in files.values():
        f.close()


if __name__ == "__main__":
    main()
