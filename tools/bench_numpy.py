#!/usr/bin/env python3
"""tools/bench_numpy.py: samebits' host path next to numpy.sum, one process.

numpy.sum runs on one thread (its pairwise sum, vectorised per CPU). This
script times it and sb_reduce_host_opts() with threads = 1 on the *same*
buffer in the same process, interleaved (each repetition runs every method
once, so a passing disturbance spreads over all of them), for f32 and f64
sums at n = 2^20, 2^24, 2^27 (floats in [1, 2), as `samebits bench`), once
for each instruction set this CPU runs (sb_host_options.isa). It prints
the CPU model, each GB/s (best of the repetitions; median in brackets) and
the ratio samebits / numpy of the best.

Usage: python3 tools/bench_numpy.py [--lib build/libsamebits.so]
           [--sizes 20,24,27] [--repeat 9]
Needs numpy (Debian: python3-numpy) and a built libsamebits.
"""
import argparse
import ctypes
import os
import platform
import sys
import time

import numpy

SB_SUM = 0
SB_TYPES = {"f32": (9, numpy.float32), "f64": (10, numpy.float64)}  # sb_type
ISA_NAMES = {1: "sse2", 2: "avx2", 3: "avx512"}


class Reduction(ctypes.Structure):
    _fields_ = [("op", ctypes.c_int), ("input", ctypes.c_int),
                ("accumulator", ctypes.c_int), ("flags", ctypes.c_uint),
                ("map", ctypes.c_int)]   # sb_reduction of samebits.h 0.3


class HostOptions(ctypes.Structure):
    _fields_ = [("threads", ctypes.c_uint), ("isa", ctypes.c_uint)]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", default=os.path.join(here, "..", "build",
                                                  "libsamebits.so"))
    ap.add_argument("--sizes", default="20,24,27")
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()

    lib = ctypes.CDLL(args.lib)
    lib.sb_reduce_host_opts.restype = ctypes.c_int
    lib.sb_reduce_host_opts.argtypes = [
        Reduction, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
        ctypes.c_void_p, ctypes.POINTER(HostOptions)]
    lib.sb_host_isa_check.restype = ctypes.c_int
    lib.sb_host_isa_check.argtypes = [ctypes.c_uint]
    isas = [i for i in sorted(ISA_NAMES) if lib.sb_host_isa_check(i) == 0]
    # The enum values above, checked against the library's own names.
    lib.sb_type_name.restype = ctypes.c_char_p
    lib.sb_type_name.argtypes = [ctypes.c_int]
    for tname, (code, _) in SB_TYPES.items():
        if lib.sb_type_name(code).decode() != tname:
            raise SystemExit("sb_type %d is not %s in %s" % (code, tname, args.lib))

    print("command: " + " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]))
    print("cpu: %s; numpy %s; instruction sets run here: %s"
          % (cpu_model(), numpy.__version__,
             ", ".join(ISA_NAMES[i] for i in isas)))
    print("GB/s, best of %d interleaved repetitions (median in brackets); "
          "samebits on 1 thread" % args.repeat)
    print()
    header = "%-4s %-5s %16s" % ("type", "n", "numpy.sum")
    for i in isas:
        header += " %16s" % ("samebits " + ISA_NAMES[i])
    header += "  | " + " ".join("%s/numpy" % ISA_NAMES[i] for i in isas)
    print(header)

    for tname, (sb_type, dtype) in SB_TYPES.items():
        for log2n in (int(s) for s in args.sizes.split(",")):
            n = 1 << log2n
            rng = numpy.random.default_rng(log2n)
            x = (1.0 + rng.random(n)).astype(dtype)
            out = numpy.zeros(1, dtype=dtype)
            r = Reduction(SB_SUM, sb_type, 0, 0)
            opts = {i: HostOptions(1, i) for i in isas}

            def run_samebits(isa):
                s = lib.sb_reduce_host_opts(r, x.ctypes.data, None, n,
                                            out.ctypes.data,
                                            ctypes.byref(opts[isa]))
                if s != 0:
                    raise SystemExit("sb_reduce_host_opts: status %d" % s)

            methods = [("numpy", lambda: numpy.sum(x))]
            methods += [(ISA_NAMES[i], (lambda i=i: run_samebits(i)))
                        for i in isas]
            # Calls per sample: at least 20 ms each.
            calls = {}
            for name, fn in methods:
                t0 = time.perf_counter()
                fn()
                dt = time.perf_counter() - t0
                calls[name] = max(1, int(0.02 / max(dt, 1e-9)))
            samples = {name: [] for name, _ in methods}
            for _ in range(args.repeat):
                for name, fn in methods:
                    t0 = time.perf_counter()
                    for _ in range(calls[name]):
                        fn()
                    dt = (time.perf_counter() - t0) / calls[name]
                    samples[name].append(x.nbytes / dt * 1e-9)
            best = {k: max(v) for k, v in samples.items()}
            med = {k: sorted(v)[len(v) // 2] for k, v in samples.items()}
            row = "%-4s 2^%-3d %16s" % (tname, log2n, "%.2f (%.2f)"
                                        % (best["numpy"], med["numpy"]))
            for i in isas:
                k = ISA_NAMES[i]
                row += " %16s" % ("%.2f (%.2f)" % (best[k], med[k]))
            row += "  | " + " ".join(
                "%*.2f" % (len(ISA_NAMES[i]) + 6, best[ISA_NAMES[i]] / best["numpy"])
                for i in isas)
            print(row, flush=True)


if __name__ == "__main__":
    main()
