#!/usr/bin/env python3
"""tools/accuracy.py: how accurate is samebits' order, next to numpy and a loop.

For a few fixed data sets (seeded, so the table is the same on every run)
it computes the exact sum (math.fsum, exact and then rounded once, kept as
a double-double so that errors are measured to far below an ulp), then the
error, in ulps of the exact sum in the accumulator's format, of:

  samebits        `samebits reduce --op sum --format npy` on a .npy file
                  written with numpy.save (the order of docs/order.md);
  numpy sum       numpy.sum(x), x contiguous, no dtype cast;
  numpy x[::2]    numpy.sum(x[::2]), a strided 1-D view, against the exact
                  sum of those same elements;
  numpy axis=0    numpy.sum(x.reshape(-1, 2), axis=0)[0]: the same elements
                  as x[::2], summed along the slow axis of a 2-D array;
  plain loop      numpy.cumsum(x)[-1], a left-to-right loop (checked here
                  against a Python loop on the small sets).

A second table does the same for f32 data in an f64 accumulator
(samebits --acc f64, numpy.sum(x, dtype=numpy.float64), cumsum in f64).
A last check reproduces numpy's own sums bit for bit with a Python
transcription of numpy's pairwise_sum (numpy/_core/src/umath/loops_utils.h.src;
numpy/core/... before numpy 2), applied either to the whole array or to
blocks of 8192 elements (the iterator's buffer size, NPY_BUFSIZE) added one
after the other, and counts which of the two gives numpy's bits.

Usage: python3 tools/accuracy.py [--samebits PATH] [--quick]
Needs numpy (Debian: apt-get install python3-numpy) and a built samebits
(tools/setup.sh). Prints Markdown tables.
"""
import argparse
import json
import math
import os
import platform
import struct
import subprocess
import sys
import tempfile
from fractions import Fraction

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = 20240611
BUFSIZE = 8192                     # numpy: NPY_BUFSIZE (ndarraytypes.h)

PRECISION = {np.float32: 24, np.float64: 53}
NAME = {np.float32: "f32", np.float64: "f64"}


# ---------------------------------------------------------------------------
# Exact sums and errors in ulps
# ---------------------------------------------------------------------------

class Exact:
    """The exact sum of a vector, as hi + lo (hi = fsum, lo = fsum of the
    remainder), and the sum of its absolute values."""

    def __init__(self, x):
        values = x.astype(np.float64).tolist()   # f32 -> f64 is exact
        self.hi = math.fsum(values)
        values.append(-self.hi)
        self.lo = math.fsum(values)               # exact rest, rounded once
        self.abs_sum = math.fsum(abs(v) for v in values[:-1])
        self.n = len(values) - 1

    def ulp(self, t):
        """The ulp of the exact sum in format t (binary32 or binary64)."""
        s = abs(self.hi)
        if s == 0.0:
            return math.ulp(0.0) if t is np.float64 else 2.0 ** -149
        e = math.frexp(s)[1]                      # s in [2^(e-1), 2^e)
        lowest = -1074 if t is np.float64 else -149
        return 2.0 ** max(e - PRECISION[t], lowest)

    def ulps(self, computed, t):
        """Signed error of `computed` in ulps (format t) of the exact sum."""
        c = float(computed)
        if not math.isfinite(c):
            return math.inf
        err = Fraction(c) - Fraction(self.hi) - Fraction(self.lo)
        return float(err / Fraction(self.ulp(t)))


def leaf_tree_k(n):
    """k of the bound |error| <= gamma_k * sum|x_i| (docs/order.md)."""
    if n <= 1:
        return 0
    leaves = -(-n // 16)
    return min(n - 1, 15) + (leaves - 1).bit_length()   # ceil(log2(leaves))


def bound_ulps(ex, t):
    """gamma_k * sum|x_i|, in ulps of the exact sum (format t)."""
    u = 2.0 ** -PRECISION[t]
    k = leaf_tree_k(ex.n)
    return k * u / (1 - k * u) * ex.abs_sum / ex.ulp(t)


def fmt(v):
    if math.isinf(v):
        return "inf"
    if abs(v) < 0.005:
        return "0.00"
    return f"{v:+.2f}" if abs(v) < 100 else f"{v:+.3g}"


def fmt_n(n):
    e = round(math.log10(n))
    return f"10^{e}" if 10 ** e == n else str(n)


# ---------------------------------------------------------------------------
# samebits
# ---------------------------------------------------------------------------

def samebits_sum(exe, tmp, x, acc):
    """Sum x with `samebits reduce`; returns a numpy scalar of type acc."""
    path = os.path.join(tmp, "x.npy")
    np.save(path, x)
    cmd = [exe, "reduce", "--op", "sum", "--type", NAME[x.dtype.type],
           "--acc", NAME[acc], "--format", "npy", "--json", path]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    res = json.loads(out.stdout)
    if res["status"] != "ok":
        sys.exit(f"accuracy: {' '.join(cmd)}: status {res['status']}")
    bits = int(res["bits"], 16)
    if acc is np.float32:
        return np.float32(struct.unpack("<f", struct.pack("<I", bits))[0])
    return np.float64(struct.unpack("<d", struct.pack("<Q", bits))[0])


# ---------------------------------------------------------------------------
# numpy's pairwise_sum, transcribed (for the model check)
# ---------------------------------------------------------------------------

def np_pairwise(a, T):
    """numpy's @TYPE@_pairwise_sum on the list a, each step rounded to T."""
    n = len(a)
    if n < 8:
        res = T(-0.0)
        for v in a:
            res = T(res + v)
        return res
    if n <= 128:                                  # PW_BLOCKSIZE
        r = list(a[:8])
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] = T(r[j] + a[i + j])
            i += 8
        res = T(T(T(r[0] + r[1]) + T(r[2] + r[3]))
                + T(T(r[4] + r[5]) + T(r[6] + r[7])))
        for v in a[i:]:
            res = T(res + v)
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return T(np_pairwise(a[:n2], T) + np_pairwise(a[n2:], T))


def np_blocks(a, T):
    """pairwise_sum per block of BUFSIZE, blocks added left to right."""
    acc = T(0.0)
    for s in range(0, len(a), BUFSIZE):
        acc = T(acc + np_pairwise(a[s:s + BUFSIZE], T))
    return acc


def model_check(rng, trials=8, n=100003):
    """Counts, over `trials` random vectors, which transcription of numpy's
    order reproduces numpy's bits: pairwise_sum over the whole array, or per
    block of BUFSIZE with the blocks added left to right."""
    def data(T):
        x = rng.random(n) * np.exp2(rng.integers(-20, 21, n)) \
            * rng.choice((-1.0, 1.0), n)
        return x.astype(T)

    def count(make):
        whole = blocks = 0
        for _ in range(trials):
            got, a, T = make()
            whole += np_pairwise(a, T) == got
            blocks += np_blocks(a, T) == got
        return f"{whole}/{trials} | {blocks}/{trials}"

    def plain(T, stride):
        x = data(T)[::stride]
        return np.sum(x), [T(e) for e in x.tolist()], T

    def cast():
        x = data(np.float32)
        return (np.sum(x, dtype=np.float64),
                [np.float64(e) for e in x.tolist()], np.float64)

    print(f"\nWhich order does this numpy use? {trials} random vectors of "
          f"n = {n} (signs mixed, magnitudes 2^-20 .. 2^20); how many times "
          "a transcription of numpy's pairwise_sum reproduces numpy's bits:\n")
    print(f"| call | pairwise over the whole array | pairwise per block of "
          f"{BUFSIZE}, blocks added in sequence |")
    print("|---|---|---|")
    for T in (np.float32, np.float64):
        print(f"| np.sum(x), {NAME[T]} | {count(lambda: plain(T, 1))} |")
        print(f"| np.sum(x[::3]), {NAME[T]} | {count(lambda: plain(T, 3))} |")
    print(f"| np.sum(x, dtype=np.float64), f32 data | {count(cast)} |")
    loops = 0
    for _ in range(trials):
        m = data(np.float64)[: n - n % 2].reshape(-1, 2)
        seq = 0.0
        for v in m[:, 0].tolist():
            seq += v
        loops += np.sum(m, axis=0)[0] == seq
    print(f"\nnp.sum(x.reshape(-1, 2), axis=0)[0] (f64) equals a left-to-right "
          f"loop over its column in {loops}/{trials} vectors.")


# ---------------------------------------------------------------------------
# The data sets
# ---------------------------------------------------------------------------

def datasets(rng, quick):
    sizes = (10 ** 3, 10 ** 6) if quick else (10 ** 3, 10 ** 6, 10 ** 7)
    big = sizes[-1]
    for T in (np.float64, np.float32):
        for n in sizes:
            yield "uniform [0,1)", T, rng.random(n, dtype=np.float64).astype(T)
    for T in (np.float64, np.float32):
        yield "normal(0,1), cancelling", T, rng.standard_normal(10 ** 6).astype(T)
    for T in (np.float64, np.float32):
        yield "harmonic 1/i", T, (1.0 / np.arange(1, big + 1, dtype=np.float64)).astype(T)


def cpu_model():
    """'model name (family F, model M), N CPUs' from /proc/cpuinfo."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        return platform.processor() or "unknown CPU"
    name = info.get("model name", platform.processor() or "unknown CPU")
    if "cpu family" in info and "model" in info:
        name += f" (family {info['cpu family']}, model {info['model']})"
    return f"{name}, {os.cpu_count()} CPUs"


def plain_loop(x, acc):
    """numpy.cumsum's last element: a left-to-right loop in acc."""
    s = np.cumsum(x, dtype=acc)[-1]
    if len(x) <= 10 ** 4:                         # check that claim
        v = acc(0.0)
        for e in x.tolist():
            v = acc(v + acc(e))
        assert v == s, "cumsum is not a left-to-right loop here"
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samebits", default=os.path.join(ROOT, "build", "tools", "samebits"))
    ap.add_argument("--quick", action="store_true", help="skip n = 10^7")
    args = ap.parse_args()
    if not os.access(args.samebits, os.X_OK):
        sys.exit(f"accuracy: no samebits at {args.samebits} (run tools/setup.sh)")

    version = subprocess.run([args.samebits, "--version"], capture_output=True,
                             text=True).stdout.strip()
    print(f"CPU: {cpu_model()}; numpy {np.__version__}; "
          f"Python {platform.python_version()}; {version}; seed {SEED}\n")
    print("Errors in ulps of the exact sum (fsum), signed; accumulator = data type. "
          "`bound` is gamma_k * sum|x| of docs/order.md in the same ulps.\n")
    print("| data | type | n | sum\\|x\\| / \\|sum x\\| | bound | samebits | numpy sum "
          "| numpy x[::2] | numpy axis=0 (same elements) | plain loop |")
    print("|---|---|---|---|---|---|---|---|---|---|")

    rng = np.random.default_rng(SEED)
    widened = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, T, x in datasets(rng, args.quick):
            ex = Exact(x)
            ex2 = Exact(x[::2])
            cond = ex.abs_sum / abs(ex.hi)
            sb = samebits_sum(args.samebits, tmp, x, T)
            cells = [
                fmt(ex.ulps(sb, T)),
                fmt(ex.ulps(np.sum(x), T)),
                fmt(ex2.ulps(np.sum(x[::2]), T)),
                fmt(ex2.ulps(np.sum(x.reshape(-1, 2), axis=0)[0], T)),
                fmt(ex.ulps(plain_loop(x, T), T)),
            ]
            print(f"| {label} | {NAME[T]} | {fmt_n(len(x))} | {cond:.3g} "
                  f"| {bound_ulps(ex, T):.3g} | " + " | ".join(cells) + " |")
            if T is np.float32:
                f64 = np.float64
                widened.append((label, len(x), [
                    f"{bound_ulps(ex, f64):.3g}",
                    fmt(ex.ulps(samebits_sum(args.samebits, tmp, x, f64), f64)),
                    fmt(ex.ulps(np.sum(x, dtype=f64), f64)),
                    fmt(ex2.ulps(np.sum(x[::2], dtype=f64), f64)),
                    fmt(ex.ulps(plain_loop(x, f64), f64)),
                ]))

    print("\nf32 data, f64 accumulator: errors in f64 ulps of the exact sum.\n")
    print("| data | n | bound | samebits --acc f64 | numpy dtype=float64 "
          "| numpy x[::2], dtype=float64 | plain loop in f64 |")
    print("|---|---|---|---|---|---|---|")
    for label, n, cells in widened:
        print(f"| {label} | {fmt_n(n)} | " + " | ".join(cells) + " |")

    model_check(np.random.default_rng(SEED + 1))


if __name__ == "__main__":
    main()
