#!/usr/bin/env python3
"""Checks a generated corpus against its DIR.query.json, independently of the generator.

usage: python3 benches/corpus/check_query.py DIR [--distinct] [--times]

Recounts, for each query ID, the lines that hold it in any written form (lowercase or upper
ULID, dashed or undashed UUID, so TypeID, braces and urn:uuid: are covered) where the bytes
before and after the token are not ASCII letters or digits, and the lines where it only
occurs glued into a longer token (decoys). With --distinct, also counts the distinct
128-bit values of every whole-token ULID and UUID in the corpus (slow on gigabytes). With
--times, checks that timestamps never go backwards within a file. Exits 1 on a mismatch.
"""
import json
import os
import re
import sys

CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def ulid_of(v):
    return "".join(CROCKFORD[(v >> (5 * (25 - i))) & 31] for i in range(26))


def forms(query_id):
    """Lowercase spellings that, as whole tokens, name the ID."""
    if "-" in query_id:
        v = int(query_id.replace("-", ""), 16)
    else:
        v = sum(CROCKFORD.index(c) << (5 * (25 - i)) for i, c in enumerate(query_id.lower()))
    h = f"{v:032x}"
    dashed = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return [ulid_of(v).encode(), dashed.encode(), h.encode()]


def is_tok(b):
    return (48 <= b <= 57) or (65 <= b <= 90) or (97 <= b <= 122)


def files(root):
    for d, _, names in sorted(os.walk(root)):
        for n in sorted(names):
            yield os.path.join(d, n)


def scan(root, query_id):
    """Lines with a whole-token form, lines with only glued forms, files with a whole-token
    form, and the lines `rg -F` and `rg -i -F` would print for the query string."""
    pats = forms(query_id)
    exact = query_id.encode()
    hits, glued, fixed, fixed_i, nfiles = set(), set(), set(), set(), 0
    for path in files(root):
        data = open(path, "rb").read()
        low = data.lower()
        found = False
        for p in pats:
            i = low.find(p)
            while i >= 0:
                ls = low.rfind(b"\n", 0, i) + 1
                j = i + len(p)
                whole = (i == 0 or not is_tok(low[i - 1])) and (j >= len(low) or not is_tok(low[j]))
                (hits if whole else glued).add((path, ls))
                found |= whole
                i = low.find(p, i + 1)
        for text, found_lines in ((data, fixed), (low, fixed_i)):
            needle = exact if text is data else exact.lower()
            i = text.find(needle)
            while i >= 0:
                found_lines.add((path, text.rfind(b"\n", 0, i) + 1))
                i = text.find(needle, i + 1)
        nfiles += found
    return len(hits), len(glued - hits), nfiles, len(fixed), len(fixed_i)


ID_RE = re.compile(
    rb"(?<![A-Za-z0-9])(?:[0-7][0-9a-hjkmnp-tv-z]{25}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})(?![A-Za-z0-9])",
    re.IGNORECASE,
)


def distinct(root):
    seen = set()
    for path in files(root):
        for m in ID_RE.finditer(open(path, "rb").read()):
            t = m.group().lower().decode()
            if len(t) == 26:
                seen.add(sum(CROCKFORD.index(c) << (5 * (25 - i)) for i, c in enumerate(t)))
            else:
                seen.add(int(t.replace("-", ""), 16))
    return len(seen)


MONTHS = {m: i for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split())}
TS_RE = re.compile(rb"(\d{4})-(\d\d)-(\d\d)[T ](\d\d:\d\d:\d\d)[.,](\d{3})|\[(\d\d)/(\w{3})/(\d{4}):(\d\d:\d\d:\d\d)")


def times_monotonic(root):
    bad = 0
    for path in files(root):
        last = b""
        for line in open(path, "rb"):
            m = TS_RE.search(line)
            if not m:
                print(f"no timestamp: {path}: {line[:80]!r}")
                bad += 1
                continue
            if m.group(1):
                key = m.group(1) + m.group(2) + m.group(3) + m.group(4) + m.group(5)
            else:  # access log: second resolution
                key = m.group(8) + b"%02d" % (MONTHS[m.group(7).decode()] + 1) + m.group(6) + m.group(9) + b"000"
                last = last[: len(key) - 3] + b"000" if last else last
            if key < last:
                print(f"time goes back: {path}: {line[:80]!r}")
                bad += 1
            last = key
    return bad


def main():
    root = sys.argv[1].rstrip("/")
    q = json.load(open(root + ".query.json"))
    ok = True
    for kind in ("ulid", "uuid"):
        lines, decoys, nfiles, fixed, fixed_i = scan(root, q[kind])
        print(f"{kind} {q[kind]}: lines {lines} (json {q[kind + '_lines']}), decoy lines {decoys} "
              f"(json {q[kind + '_decoy_lines']}), files {nfiles} (json {q[kind + '_files']}), "
              f"rg -F would print {fixed}, rg -i -F {fixed_i}")
        ok &= lines == q[kind + "_lines"] and decoys == q[kind + "_decoy_lines"] and nfiles == q[kind + "_files"]
    total = sum(os.path.getsize(p) for p in files(root))
    nfiles = sum(1 for _ in files(root))
    print(f"bytes {total} (json {q['bytes']}), files {nfiles} (json {q['files']})")
    ok &= total == q["bytes"] and nfiles == q["files"]
    if "--distinct" in sys.argv:
        n = distinct(root)
        print(f"distinct ids {n} (json {q['distinct_ids']})")
        ok &= n == q["distinct_ids"]
    if "--times" in sys.argv:
        bad = times_monotonic(root)
        print(f"timestamps going backwards or missing: {bad}")
        ok &= bad == 0
    print("OK" if ok else "MISMATCH")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
