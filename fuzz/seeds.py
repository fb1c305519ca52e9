#!/usr/bin/env python3
"""Writes the seed inputs of each fuzz target into fuzz/corpus/TARGET/ from testdata/ and
the ID vectors (tests/data). Run once; the fuzzers grow the corpora, `cargo fuzz cmin`
keeps them small. Inputs follow each target's layout (see fuzz/checks/)."""
import hashlib, json, os, pathlib, glob

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
PLANT = 0xF5


def put(target, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def lines_of(path, n, skip=0):
    raw = (ROOT / path).read_bytes().split(b"\n")
    return b"\n".join(raw[skip:skip + n]) + b"\n"


ID1 = bytes.fromhex("0193f2a04b5c7d6e8f90a1b2c3d4e5f6")
ID2 = bytes.fromhex("01937c1e5a4b7cde8f0123456789abcd")
vectors = json.loads((ROOT / "tests/data/id_vectors.json").read_text())
invalid = json.loads((ROOT / "tests/data/invalid_vectors.json").read_text())

# id_parse: the vectors as written, and their other forms.
for v in vectors:
    put("id_parse", v["id"].encode())
for v in invalid:
    put("id_parse", v["id"].encode())
for extra in ["{0193f2a0-4b5c-7d6e-8f90-a1b2c3d4e5f6}", "URN:UUID:0193F2A0-4B5C-7D6E-8F90-A1B2C3D4E5F6",
              "order_01kb2x1x0m4v6f9a1t8e3q7c5d", "  01KB2X1X0M4V6F9A1T8E3Q7C5D  ", "7zzzzzzzzzzzzzzzzzzzzzzzzz"]:
    put("id_parse", extra.encode())

# scanner: flags, query IDs, read sizes, then log lines with planted forms.
samples = [("testdata/logs/api/api.jsonl", 6), ("testdata/logs/billing/ledger.log", 10),
           ("testdata/logs/gateway/access.log", 6), ("testdata/logs/k8s/kubelet.log", 8),
           ("testdata/records/app.logfmt", 8), ("testdata/records/plain.log", 8)]
for k, (path, n) in enumerate(samples):
    flags = k % 4 | (0x10 if k == 3 else 0)
    ids = b"".join([ID1, ID2, ID1[::-1], ID2[::-1]][: 1 + flags % 4])
    planted = b"".join(bytes([PLANT, sel, case]) + b" " for sel, case in [(0, 0), (5, 255), (10, 0x5a), (13, 1), (16, 0)])
    put("scanner", bytes([flags]) + ids + bytes([7, 0, 26]) + lines_of(path, n) + planted + b"\r\n")

# record: zone, reference, an ID, one line.
for path in ["testdata/records/api.jsonl", "testdata/records/app.logfmt", "testdata/records/plain.log"]:
    for i, line in enumerate((ROOT / path).read_bytes().split(b"\n")[:6]):
        if line:
            put("record", bytes([i % 4, 0x40, 0x02]) + ID1 + line)

# input: the magic selector 8 (none) before files that carry their own.
for path in sorted(glob.glob(str(ROOT / "testdata/edge/*"))) + [str(ROOT / "testdata/logs/notifier/notifier.log.zst")]:
    put("input", bytes([8, 0x00, 0x10]) + pathlib.Path(path).read_bytes())
put("input", bytes([5, 0x00, 0x10]) + "a 01kb2x1x0m4v6f9a1t8e3q7c5d\n".encode("utf-16-le"))
put("input", bytes([0, 0x00, 0x10]) + b"\x00\x00\x00\x00\x00\x00\xff" + b"garbage")

# tree: threads, three pool IDs, files separated by 0xFE.
pool = ID1 + ID2 + ID1[::-1]
files = [lines_of("testdata/records/app.logfmt", 4), bytes([PLANT, 0, 0, 32, PLANT, 4, 0xff, 10, PLANT, 13, 3]),
         lines_of("testdata/audit-clean/payments.log", 4)]
put("tree", bytes([0]) + pool + b"\xfe".join(files))
put("tree", bytes([1]) + pool + lines_of("testdata/logs/billing/ledger.log", 6))

# index: damage, repeat, edits, pool, tree, 0xFD, raw bytes.
for damage in range(12):
    put("index", bytes([damage, 20, 2, 0x10, 0, 0x40, 0x33, 0x01, 0x02]) + pool +
        bytes([PLANT, 0, 0, 32, PLANT, 1, 0, 10]) + lines_of("testdata/logs/billing/ledger.log", 3) +
        b"\xfe" + bytes([PLANT, 2, 0, 10]) + b"\xfd" + bytes([PLANT, 0, 0]) + b"\n")
