#!/usr/bin/env python3
"""tests/golden/corpus_reference.py: the conformance corpus regenerated from
its specification, docs/corpus.md, alone (not from tools/corpus.c), and
compared with what the samebits command generates: the case list (ids and
--quick flags, from `samebits check --list`) and the input and mask bytes of
a sample of cases (from `samebits check --dump`). It keeps the page and the
code in step, and shows that the inputs can be regenerated outside C.

usage: corpus_reference.py SAMEBITS WORKDIR
"""
import os
import struct
import subprocess
import sys

M64 = (1 << 64) - 1
TYPES = ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"]
ACCS = {
    "i8": ["i8", "i32", "i64", "f32", "f64"],
    "u8": ["u8", "u32", "u64", "i32", "i64", "f32", "f64"],
    "i16": ["i16", "i32", "i64", "f32", "f64"],
    "u16": ["u16", "u32", "u64", "i32", "i64", "f32", "f64"],
    "i32": ["i32", "i64", "f64"],
    "u32": ["u32", "u64", "i64", "f64"],
    "i64": ["i64"], "u64": ["u64"], "f32": ["f32", "f64"], "f64": ["f64"],
}
FAMILIES = ["uniform", "huge_range", "cancel", "alternating", "harmonic",
            "subnormal", "specials", "negzero", "limits", "small",
            "edge_high", "edge_low", "prod_edge", "near_max", "nan_leaves"]
FLOAT_FAMILIES = FAMILIES[:9]
HALF_FAMILIES = [f for f in FAMILIES[:9] if f != "harmonic"] + [
    "near_max", "nan_leaves"]
HALVES = ["f16", "bf16"]
MASKS = ["half", "sparse", "dense", "empty_leaves", "alt_leaves", "zero"]
S = [0, 1, 2, 15, 16, 17, 31, 32, 33, 255, 256, 257, 1000]
L = [4095, 4096, 4097, 65535, 65536, 65537, 100003, 262144, 1048575,
     1048576, 1048577]


def is_float(t):
    return t[0] == "f" or t == "bf16"


def is_signed(t):
    return t[0] == "i"


def width(t):
    return int(t[1:])


def applies(family, inp, acc):
    if inp in HALVES:
        return family in HALF_FAMILIES
    if is_float(inp):
        return family in FLOAT_FAMILIES
    if family == "edge_low":
        return is_signed(acc) or is_float(acc)
    return family in ("uniform", "huge_range", "alternating", "limits",
                      "small", "edge_high", "prod_edge")


# ---- the case list ----------------------------------------------------------

def case_list():
    cases, seen = [], set()

    def add(op, inp, acc, wrap, family, mask, n, quick, extra=""):
        cid = "%s.%s.%s%s%s.%s.%s.n%d" % (op, inp, acc, ".wrap" if wrap else "",
                                           extra, family, mask, n)
        if cid not in seen:
            seen.add(cid)
            cases.append(dict(id=cid, op=op, inp=inp, acc=acc, family=family,
                              mask=mask, n=n, quick=quick, dot=op == "dot"))

    j = k = 0
    for op in ["sum", "prod", "min", "max", "any", "all"]:
        for inp in TYPES:
            for acc in ACCS[inp]:
                if op in ("any", "all") and acc != inp:
                    continue
                wraps = [0, 1] if op in ("sum", "prod") and not is_float(acc) else [0]
                for wrap in wraps:
                    for masked in (0, 1):
                        small = masked == j % 2
                        n = S[5 * j % 13] if small else L[3 * j % 11]
                        fams = [f for f in FAMILIES if applies(f, inp, acc)]
                        mask = MASKS[(j // 2) % 6] if masked else "nomask"
                        add(op, inp, acc, wrap, fams[k % len(fams)], mask, n,
                            small)
                        k += 1
                    j += 1
    reps = ["sum.f32.f32", "sum.f64.f64", "sum.f32.f64", "prod.f64.f64",
            "min.f32.f32", "max.f64.f64", "any.f32.f32", "all.f64.f64",
            "sum.i32.i32", "sum.i32.i32.wrap", "sum.i8.i32", "sum.i64.i64",
            "sum.u16.f32", "prod.i32.i32", "prod.u64.u64.wrap", "min.i16.i16",
            "max.u32.u32", "any.i8.i8", "all.u64.u64"]
    p = 0
    for rep in reps:
        parts = rep.split(".")
        op, inp, acc, wrap = parts[0], parts[1], parts[2], len(parts) == 4
        for f in FAMILIES:
            if not applies(f, inp, acc):
                continue
            add(op, inp, acc, wrap, f, "nomask", 17, True)
            add(op, inp, acc, wrap, f, MASKS[p % 6], 4097, False)
            add(op, inp, acc, wrap, f, "nomask", 100003, False)
            p += 1
    for t in range(17):
        for n in (16 * 2 ** t - 1, 16 * 2 ** t, 16 * 2 ** t + 1):
            add("sum", "f32", "f32", 0, "uniform", "nomask", n, n <= 4097)
            if t <= 12:
                add("min", "f64", "f64", 0, "specials", "empty_leaves", n,
                    n <= 4097)
                add("sum", "i64", "i64", 0, "edge_high", "nomask", n, n <= 4097)
    for n in range(34):
        add("sum", "f64", "f64", 0, "uniform", "half", n, True)
    maps = ["sum.f32.f32.abs", "sum.f64.f64.abs", "sum.f32.f64.square",
            "sum.f64.f64.square", "prod.f32.f32.square", "max.f32.f32.abs",
            "min.f64.f64.abs", "sum.i32.i32.abs", "max.i32.i32.abs",
            "max.i32.i64.abs", "sum.i16.i32.square", "sum.i32.i32.wrap.square",
            "min.i8.i8.wrap.abs", "sum.f32.f32.skipnan", "min.f32.f32.skipnan",
            "max.f64.f64.skipnan", "any.f64.f64.skipnan",
            "sum.f64.f64.square.skipnan", "max.f32.f32.abs.skipnan",
            "dot.f32.f32", "dot.f64.f64", "dot.f32.f64", "dot.f32.f32.skipnan",
            "dot.i32.i32", "dot.i32.i64", "dot.i16.i16.wrap", "dot.u8.u32"]
    p = 0
    for rep in maps:
        parts = rep.split(".")
        op, inp, acc = parts[0], parts[1], parts[2]
        wrap = "wrap" in parts[3:]
        extra = "".join("." + w for w in parts[3:] if w != "wrap")
        first = True
        for f in FAMILIES:
            if not applies(f, inp, acc):
                continue
            add(op, inp, acc, wrap, f, "nomask", 17, True, extra)
            add(op, inp, acc, wrap, f, MASKS[p % 6], 4097, False, extra)
            if first:
                add(op, inp, acc, wrap, f, "nomask", 100003, False, extra)
            first = False
            p += 1
    # Part 5: the half types.
    H = [0, 1, 15, 16, 17, 31, 32, 33, 4095, 4096, 4097, 100003]
    j = 0
    for op in ["sum", "prod", "min", "max", "any", "all"]:
        for inp in HALVES:
            accs = [inp] if op in ("any", "all") else [inp, "f32", "f64"]
            for acc in accs:
                fams = [f for f in FAMILIES if applies(f, inp, acc)]
                for t, n in enumerate(H):
                    mask = MASKS[(j + t) % 6] if 4095 <= n <= 4097 else "nomask"
                    add(op, inp, acc, 0, fams[(j + t) % len(fams)], mask, n,
                        n <= 33)
                j += 1
    halfmaps = ["sum.f16.f16.abs", "sum.bf16.f32.abs", "sum.f16.f32.square",
                "sum.bf16.bf16.square", "sum.f16.f64.square",
                "prod.f16.f32.square", "max.f16.f16.abs", "min.bf16.bf16.abs",
                "max.bf16.f64.abs", "sum.f16.f16.skipnan",
                "sum.bf16.f32.skipnan", "prod.f16.f16.skipnan",
                "min.f16.f16.skipnan", "max.bf16.bf16.skipnan",
                "min.bf16.f64.skipnan", "any.f16.f16.skipnan",
                "all.bf16.bf16.skipnan", "sum.f16.f32.square.skipnan",
                "max.bf16.bf16.abs.skipnan", "dot.f16.f16", "dot.f16.f32",
                "dot.f16.f64", "dot.bf16.bf16", "dot.bf16.f32", "dot.bf16.f64",
                "dot.f16.f32.skipnan", "dot.bf16.bf16.skipnan"]
    p = 0
    for rep in halfmaps:
        parts = rep.split(".")
        op, inp, acc = parts[0], parts[1], parts[2]
        extra = "".join("." + w for w in parts[3:])
        first = True
        for f in FAMILIES:
            if not applies(f, inp, acc):
                continue
            add(op, inp, acc, 0, f, "nomask", 17, True, extra)
            add(op, inp, acc, 0, f, MASKS[p % 6], 4097, False, extra)
            if first:
                add(op, inp, acc, 0, f, "nomask", 100003, False, extra)
            first = False
            p += 1
    # Part 6: positions and counts, as part 4.
    positions = ["argmin.f32.f32", "argmax.f64.f64", "argmin.f32.f64",
                 "argmax.f32.f32.abs", "argmin.f64.f64.skipnan",
                 "argmax.i32.i32", "argmin.i8.i32", "argmax.i16.i16.abs",
                 "argmax.i32.i32.wrap.abs", "argmin.u64.u64",
                 "argmin.f16.f16", "argmax.bf16.f32.skipnan",
                 "count.f32.f32.skipnan", "count.f64.f64", "count.i8.i8",
                 "count.u64.u64", "count.f16.f16.skipnan"]
    p = 0
    for rep in positions:
        parts = rep.split(".")
        op, inp, acc = parts[0], parts[1], parts[2]
        wrap = "wrap" in parts[3:]
        extra = "".join("." + w for w in parts[3:] if w != "wrap")
        first = True
        for f in FAMILIES:
            if not applies(f, inp, acc):
                continue
            add(op, inp, acc, wrap, f, "nomask", 17, True, extra)
            add(op, inp, acc, wrap, f, MASKS[p % 6], 4097, False, extra)
            if first:
                add(op, inp, acc, wrap, f, "nomask", 100003, False, extra)
            first = False
            p += 1
    # Part 7: batches (rows, columns, segments of one input).
    for rep, family, mask, layout, count, length, quick in BATCHES:
        parts = rep.split(".")
        op, inp, acc = parts[0], parts[1], parts[2]
        extra = "".join("." + w for w in parts[3:])
        cid = "%s.%s.%s%s.%s.%s.%s%dx%d" % (op, inp, acc, extra, family, mask,
                                           layout, count, length)
        c = dict(id=cid, op=op, inp=inp, acc=acc, family=family, mask=mask,
                 quick=quick, dot=False, layout=layout, count=count,
                 length=length, n=count * length)
        if layout == "segs":
            c["n"] = offsets(c)[-1]
        if cid not in seen:
            seen.add(cid)
            cases.append(c)
    return cases


BATCHES = [  # reduction, family, mask, layout, count, length, quick
    ("sum.f32.f32", "specials", "empty_leaves", "rows", 37, 33, True),
    ("sum.i32.i32", "limits", "nomask", "rows", 25, 17, True),
    ("argmin.f64.f64", "specials", "half", "rows", 20, 100, True),
    ("count.f32.f32.skipnan", "specials", "nomask", "rows", 9, 257, True),
    ("max.f16.f32", "nan_leaves", "nomask", "rows", 12, 40, True),
    ("prod.i16.i32", "prod_edge", "sparse", "rows", 30, 64, True),
    ("sum.f32.f32", "uniform", "nomask", "rows", 1000, 16, False),
    ("sum.f64.f64", "cancel", "nomask", "rows", 3, 100003, False),
    ("sum.f32.f32", "uniform", "nomask", "cols", 40, 50, True),
    ("max.f64.f64", "specials", "nomask", "cols", 17, 33, True),
    ("argmax.i32.i32", "small", "half", "cols", 16, 100, True),
    ("sum.bf16.bf16", "near_max", "nomask", "cols", 24, 20, True),
    ("sum.f32.f64", "harmonic", "empty_leaves", "cols", 33, 1000, False),
    ("min.f32.f32.abs", "specials", "nomask", "cols", 100, 300, False),
    ("sum.f32.f32", "specials", "nomask", "segs", 60, 100, True),
    ("min.f64.f64", "specials", "empty_leaves", "segs", 40, 120, True),
    ("argmax.f32.f32.abs", "specials", "nomask", "segs", 50, 64, True),
    ("count.i8.i8", "uniform", "alt_leaves", "segs", 30, 50, True),
    ("sum.f16.f16", "subnormal", "nomask", "segs", 35, 70, True),
    ("sum.i64.i64", "edge_high", "nomask", "segs", 20, 2000, False),
    ("sum.f32.f32", "uniform", "nomask", "segs", 2000, 40, False),
]


def offsets(c):
    """The count + 1 offsets of a batch's rows or segments."""
    state = fnv1a64(c["id"] + "/offsets")
    out = [0]
    for b in range(c["count"]):
        state, r = splitmix64(state)
        if c["layout"] == "rows":
            length = c["length"]
        else:
            length = 0 if b % 7 == 3 else r % (c["length"] + 1)
        out.append(out[-1] + length)
    return out


def npy_u64(path):
    """The items of a 1-D little-endian uint64 .npy (format 1.0)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x93NUMPY\x01\x00", path
    start = 10 + struct.unpack("<H", data[8:10])[0]
    assert b"'<u8'" in data[10:start], path
    body = data[start:]
    return list(struct.unpack("<%dQ" % (len(body) // 8), body))


# ---- the generator ------------------------------------------------------------

def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for b in text.encode("ascii"):
        h = ((h ^ b) * 0x100000001B3) & M64
    return h


FORMATS = {  # M, bias, E_max, K, sign bit, cancel exponent offset, span
    "f32": (23, 127, 255, 8, 31, 16, 15),
    "f64": (52, 1023, 2047, 16, 63, 16, 15),
    "f16": (10, 15, 31, 4, 15, 4, 3),
    "bf16": (7, 127, 255, 3, 15, 4, 3),
}


def float_bits(t, family, i, r, prev):
    m, bias, emax, kbits, top, cexp, cspan = FORMATS[t]

    def fields(s, e, mant):
        return (s & 1) << top | e << m | (mant & ((1 << m) - 1))

    def uniform(k):
        v = k * 2.0 ** -m - 1.0                       # exact
        return to_bits(t, v)

    if family == "uniform":
        return uniform(r >> (63 - m))
    if family == "huge_range":
        return fields(r >> 63, 1 + ((r >> 52) & 0x7FF) % (emax - 1), r)
    if family == "cancel":
        if i % 2 == 0:
            return fields(r >> 63, bias + cexp + ((r >> 52) & cspan), r)
        low = (1 << kbits) - 1
        return ((prev ^ (1 << top)) & ~low) | (r & low)
    if family == "alternating":
        return fields(i & 1, bias, r >> (64 - m))
    if family == "harmonic":
        # A double quotient rounded to f32 is the correctly rounded f32
        # quotient: 53 >= 2 * 24 + 2 bits.
        return to_bits(t, 1.0 / (i + 1))
    if family == "subnormal":
        return fields(r >> 63, 1 if ((r >> 52) & 7) == 0 else 0, r)
    if family == "specials":
        w = (r >> 56) & 0xFF
        q = 1 << (m - 1)
        table = [fields(0, emax, 0), fields(1, emax, 0), fields(0, emax, q),
                 fields(1, emax, q + 1), fields(0, emax, 1),
                 fields(0, emax - 1, (1 << m) - 1),
                 fields(1, emax - 1, (1 << m) - 1), fields(1, 0, 0)]
        if w < 8:
            return table[w]
        return uniform(r & ((1 << (m + 1)) - 1))
    if family == "negzero":
        return fields(1, 0, 0)
    if family == "limits":
        v = r % 10
        s = v & 1
        return [fields(s, emax - 1, (1 << m) - 1), fields(s, 1, 0),
                fields(s, 0, 1), fields(s, 0, 0), fields(s, bias, 0)][v // 2]
    if family == "near_max":
        return fields(1 if r >> 60 == 0 else 0, emax - 1 - ((r >> 52) & 1), r)
    if family == "nan_leaves":
        if (i // 16) % 2 == 1:
            return fields(r >> 63, emax, (1 << (m - 1)) | r)
        return uniform(r >> (63 - m))
    raise ValueError(family)


def to_bits(t, v):
    if t == "f16":                                    # exact values only
        return struct.unpack("<H", struct.pack("<e", v))[0]
    if t == "bf16":                                   # the top of a binary32
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
        assert bits & 0xFFFF == 0
        return bits >> 16
    if t == "f32":
        return struct.unpack("<I", struct.pack("<f", v))[0]
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def int_value(c, i, r):
    t, acc, n = c["inp"], c["acc"], c["n"]
    w = width(t)
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if is_signed(t) else (0, (1 << w) - 1)

    def low(x):
        v = x & ((1 << w) - 1)
        return v - (1 << w) if is_signed(t) and v >> (w - 1) else v

    def clamp(v):
        return min(max(v, lo), hi)

    f = c["family"]
    if f == "uniform":
        return low(r)
    if f == "huge_range":
        return low(r) >> ((r >> 58) % w)               # floor division
    if f == "alternating":
        mm = r % (1 << (w - 2))
        if is_signed(t):
            return mm if i % 2 == 0 else -mm
        return (1 << (w - 1)) + mm if i % 2 == 0 else mm
    if f == "small":
        return (r % 7) - 3 if is_signed(t) else r % 4
    if f == "limits":
        return [lo, hi, lo + 1, hi - 1, 0, 1, -1 if is_signed(t) else 2][r % 7]
    if f in ("edge_high", "edge_low"):
        if is_float(acc):
            target = 1 << (24 if acc == "f32" else 53)
            target = target if f == "edge_high" else -target
        else:
            aw = width(acc)
            alo, ahi = (-(1 << (aw - 1)), (1 << (aw - 1)) - 1) if is_signed(acc) \
                else (0, (1 << aw) - 1)
            target = ahi if f == "edge_high" else alo
        d = max(n, 1)
        q = abs(target) // d
        base = clamp(q if target >= 0 else -q)          # truncation
        return clamp(base + (r % 5) - 2)
    if f == "prod_edge":
        c64 = r % 64
        if c64 == 0:
            return 2
        if c64 == 1:
            return -1 if is_signed(t) else 3
        if c64 == 2:
            return -2 if is_signed(t) else 2
        return 1
    raise ValueError(f)


def input_bytes(c, stream=""):
    state = fnv1a64(c["id"] + stream)
    t = c["inp"]
    out = bytearray()
    prev = 0
    for i in range(c["n"]):
        state, r = splitmix64(state)
        if is_float(t):
            b = float_bits(t, c["family"], i, r, prev)
            prev = b
            out += b.to_bytes({"f16": 2, "bf16": 2, "f32": 4, "f64": 8}[t],
                              "little")
        else:
            v = int_value(c, i, r) & ((1 << width(t)) - 1)
            out += v.to_bytes(width(t) // 8, "little")
    return bytes(out)


def mask_bytes(c):
    state = fnv1a64(c["id"] + "/mask")
    out = bytearray()
    empty = False
    for i in range(c["n"]):
        state, q = splitmix64(state)
        kind = c["mask"]
        if kind == "half":
            take = q >> 63
        elif kind == "sparse":
            take = q >> 60 == 0
        elif kind == "dense":
            take = q >> 60 != 0
        elif kind == "empty_leaves":
            if i % 16 == 0:
                empty = (q >> 62) & 1 == 1
            take = not empty and q >> 63 == 1
        elif kind == "alt_leaves":
            take = (i // 16) % 2 == 0
        else:
            take = False
        out.append(1 + (q & 0xFF) % 255 if take else 0)
    return bytes(out)


def main():
    samebits, workdir = sys.argv[1], sys.argv[2]
    os.makedirs(workdir, exist_ok=True)
    cases = case_list()
    listed = subprocess.run([samebits, "check", "--list"], check=True,
                            capture_output=True, text=True).stdout.split("\n")
    rows = [line.split() for line in listed if line and line[0] != "#"]
    failures = 0
    if [(r[0], r[4] == "yes") for r in rows] != [(c["id"], bool(c["quick"])) for c in cases]:
        print("FAIL: the case list differs from docs/corpus.md (%d cases "
              "listed, %d specified)" % (len(rows), len(cases)))
        for r, c in zip(rows, cases):
            if r[0] != c["id"] or (r[4] == "yes") != bool(c["quick"]):
                print("  first difference: listed %s, specified %s" % (r[0], c["id"]))
                break
        return 1
    # Every family x input type x mask kind once, small cases first.
    sample, covered = [], set()
    # Every batch (part 7) up to 10^5 elements, each its own offsets.
    for c in sorted(cases, key=lambda c: c["n"]):
        key = (c["family"], c["inp"], c["mask"], c["dot"]) \
            if "layout" not in c else c["id"]
        if key not in covered and c["n"] <= 100003:
            covered.add(key)
            sample.append(c)
    for c in sample:
        subprocess.run([samebits, "check", "--dump", c["id"]], cwd=workdir,
                       check=True, capture_output=True)
        with open(os.path.join(workdir, c["id"] + ".raw"), "rb") as f:
            got = f.read()
        os.remove(os.path.join(workdir, c["id"] + ".raw"))
        if got != input_bytes(c):
            print("FAIL: %s: the input differs from docs/corpus.md" % c["id"])
            failures += 1
        if c["dot"]:
            path = os.path.join(workdir, c["id"] + ".y.raw")
            with open(path, "rb") as f:
                got = f.read()
            os.remove(path)
            if got != input_bytes(c, "/y"):
                print("FAIL: %s: the second factors differ from "
                      "docs/corpus.md" % c["id"])
                failures += 1
        if c["mask"] != "nomask":
            path = os.path.join(workdir, c["id"] + ".mask")
            with open(path, "rb") as f:
                got = f.read()
            os.remove(path)
            if got != mask_bytes(c):
                print("FAIL: %s: the mask differs from docs/corpus.md" % c["id"])
                failures += 1
        if "layout" in c:
            # The offsets the dump hands to --segments: the rows' or the
            # segments', or the columns' in the file of columns.
            path = os.path.join(workdir, c["id"] + ".offsets.npy")
            got = npy_u64(path)
            os.remove(path)
            want = offsets(c) if c["layout"] != "cols" else \
                [b * c["length"] for b in range(c["count"] + 1)]
            if got != want:
                print("FAIL: %s: the offsets differ from docs/corpus.md"
                      % c["id"])
                failures += 1
            if c["layout"] == "cols":
                # Column b's elements b, b + count, ... one after another.
                size = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8}.get(
                    c["inp"], width(c["inp"]) // 8 if not is_float(c["inp"])
                    else 0)
                whole = input_bytes(c)
                want = b"".join(whole[(i * c["count"] + b) * size:
                                      (i * c["count"] + b + 1) * size]
                                for b in range(c["count"])
                                for i in range(c["length"]))
                path = os.path.join(workdir, c["id"] + ".columns.raw")
                with open(path, "rb") as f:
                    got = f.read()
                os.remove(path)
                if got != want:
                    print("FAIL: %s: the columns file is not the input's "
                          "columns" % c["id"])
                    failures += 1
                path = os.path.join(workdir, c["id"] + ".columns.mask")
                if os.path.exists(path):
                    os.remove(path)
    print("%d cases listed as specified; %d inputs regenerated from "
          "docs/corpus.md, %d differ" % (len(cases), len(sample), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
