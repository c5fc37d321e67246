#!/usr/bin/env python3
"""tests/fuzz/make_seeds.py: writes the hand-made seeds of the committed
corpora tests/fuzz/corpus_host/ and tests/fuzz/corpus_device/ (files named
seed-*), in the input format of tests/fuzz/fuzz_case.h.

    python3 tests/fuzz/make_seeds.py

Only the seed-* files are rewritten; inputs found by fuzzing (crashes made
regressions, or coverage merged with -merge=1) keep their own names. Not
needed to build or test: the corpora are committed."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
TYPES = ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"]
OPS = ["sum", "prod", "min", "max", "any", "all"]
MASKS = {"none": 0, "bytes": 1, "random": 2, "leaves": 3}
SIZES = {"payload": 0, "small": 5, "medium": 6, "large": 7, "huge": 7}
ENCODINGS = {"raw": 0, "specials": 1, "small": 2, "tiny": 3}
FPENVS = {"default": 0, "upward": 1, "towardzero": 2, "ftz": 3}


def type_byte(t):
    return TYPES.index(t)              # decodes to (v % 10) + 1


def acc_byte(acc):
    if acc is None:
        return 0                       # "same"
    if acc == "invalid":
        return 15 | (1 << 4)           # type 11
    return 14 | (TYPES.index(acc) << 4)  # that type, valid pair or not


def seed(op="sum", input="f32", acc=None, wrap=False, unknown_flag=None,
         mask="none", mask_param=0, size="payload", N=0, offset=0,
         encoding="raw", fpenv="default", target=0, payload=b"",
         op_byte=None, input_byte=None):
    if size == "large":                # top bits of N: 2 large, 3 huge
        N = 0x8000 | (N & 0x3FFF)
    elif size == "huge":
        N = 0xC000 | (N & 0x3FFF)
    header = bytes([
        OPS.index(op) if op_byte is None else op_byte,
        type_byte(input) if input_byte is None else input_byte,
        acc_byte(acc),
        (1 if wrap else 0)
        | (0 if unknown_flag is None else 14 | (unknown_flag << 4)),
        MASKS[mask] | SIZES[size] << 2 | offset << 5,
        N & 0xFF, N >> 8,
        mask_param,
        ENCODINGS[encoding] | FPENVS[fpenv] << 2 | target << 4,
    ])
    return header + payload


ALL_SPECIALS = bytes(range(32))
SMALL_MIX = bytes([1, 2, 3, 0x7F, 0x80, 0xFF, 0, 5, 0xFE, 9, 0x40, 0xC0])


def f32s(*values):
    return b"".join(struct.pack("<f", v) for v in values)


def host_seeds():
    s = {}
    for t in TYPES:
        s[f"sum-{t}-specials"] = seed("sum", t, encoding="specials",
                                      payload=ALL_SPECIALS)
        s[f"max-{t}-small-random-mask"] = seed(
            "max", t, encoding="small", mask="random", mask_param=128,
            size="small", N=1000, payload=SMALL_MIX)
    for op in OPS:
        for t in ("f32", "f64"):
            s[f"{op}-{t}-specials-leaf-mask"] = seed(
                op, t, encoding="specials", mask="leaves", mask_param=0xB2,
                size="small", N=777, payload=ALL_SPECIALS[::-1])
    # Checked and wrapping integers.
    s["sum-i8-checked-overflow"] = seed("sum", "i8", encoding="small",
                                        size="small", N=300,
                                        payload=bytes([100, 27]))
    s["sum-i8-wrap"] = seed("sum", "i8", wrap=True, encoding="small",
                            size="small", N=300, payload=bytes([100, 27]))
    s["prod-i32-specials"] = seed("prod", "i32", encoding="specials",
                                  size="small", N=64, payload=bytes([3, 4, 1]))
    s["prod-u64-wrap"] = seed("prod", "u64", wrap=True, encoding="specials",
                              size="small", N=200, payload=bytes([5, 14, 3]))
    s["sum-i64-limits-tree-order"] = seed(
        "sum", "i64", encoding="specials", size="small", N=48,
        payload=bytes([24, 25, 24, 2, 25]))
    # Widening, including unsigned to wider signed and ints to floats.
    for (i, a) in [("u8", "u64"), ("i16", "i64"), ("u32", "i64"),
                   ("f32", "f64"), ("i32", "f64"), ("u16", "f32"),
                   ("i8", "i32"), ("u16", "i32")]:
        s[f"sum-{i}-to-{a}"] = seed("sum", i, acc=a, encoding="small",
                                    size="medium", N=40000, payload=SMALL_MIX)
    # Large n: the threaded engine (n >= 2^18), several chunks.
    s["large-sum-f64"] = seed("sum", "f64", encoding="small", size="large",
                              N=12345, payload=SMALL_MIX)
    s["large-sum-i32-checked"] = seed("sum", "i32", encoding="specials",
                                      size="large", N=30000,
                                      payload=bytes([20, 2, 1]))
    s["large-sum-u8-to-u64-masked"] = seed(
        "sum", "u8", acc="u64", mask="random", mask_param=200, size="large",
        N=999, payload=SMALL_MIX)
    s["large-min-f32-leaf-mask"] = seed(
        "min", "f32", encoding="specials", mask="leaves", mask_param=0x5A,
        size="large", N=31000, payload=ALL_SPECIALS)
    s["large-max-i16-byte-mask"] = seed(
        "max", "i16", encoding="small", mask="bytes", mask_param=5,
        size="large", N=7, payload=SMALL_MIX + bytes([0, 1, 0, 0, 3, 0]))
    s["large-all-f32"] = seed("all", "f32", encoding="specials", size="large",
                              N=100, payload=bytes([2, 3, 17]))
    s["large-prod-f32"] = seed("prod", "f32", encoding="specials",
                               size="large", N=5000,
                               payload=bytes([2, 5, 24, 4]))
    # Huge n (bit 15 of N): chunks of more than the minimum 16 blocks.
    s["huge-sum-f32-tenths"] = seed("sum", "f32", encoding="specials",
                                    size="huge", N=1234,
                                    payload=bytes([25, 26, 25, 24, 22]))
    s["huge-min-f64-signed-zeros"] = seed(
        "min", "f64", encoding="specials", size="huge", N=77,
        payload=bytes([0, 1, 1]))
    s["huge-prod-i64-wrap-masked"] = seed(
        "prod", "i64", wrap=True, encoding="small", mask="random",
        mask_param=90, size="huge", N=20000, payload=SMALL_MIX)
    # The caller's floating-point environment.
    s["fpenv-upward-sum-f32"] = seed("sum", "f32", encoding="specials",
                                     fpenv="upward", size="small", N=999,
                                     payload=bytes([25, 22, 12]))
    s["fpenv-towardzero-prod-f64"] = seed(
        "prod", "f64", encoding="specials", fpenv="towardzero", size="small",
        N=333, payload=bytes([25, 26, 3]))
    s["fpenv-ftz-sum-f32-subnormals"] = seed(
        "sum", "f32", encoding="specials", fpenv="ftz", size="small", N=500,
        payload=bytes([12, 13, 14, 12]))
    # Signed zeros where only the strictness of min/max decides.
    s["min-f32-signed-zeros-empty-leaves"] = seed(
        "min", "f32", encoding="specials", mask="leaves", mask_param=0x55,
        size="small", N=200, payload=bytes([0, 1, 1, 0]))
    s["max-f64-signed-zeros"] = seed("max", "f64", encoding="specials",
                                     size="small", N=37,
                                     payload=bytes([1, 0, 17]))
    # Signs, NaNs and ties from the 8-value table.
    TINY = bytes([0, 1, 1, 0, 2, 3, 6, 1, 0, 7, 4, 5])
    for op in ("min", "max", "sum", "prod"):
        s[f"{op}-f32-tiny-random-mask"] = seed(
            op, "f32", encoding="tiny", mask="random", mask_param=170,
            size="small", N=2345, payload=TINY)
        s[f"{op}-i16-tiny"] = seed(op, "i16", encoding="tiny", size="small",
                                   N=100, payload=TINY)
    s["max-f64-tiny-many-blocks"] = seed("max", "f64", encoding="tiny",
                                         size="medium", N=13000,
                                         payload=bytes([1, 0, 0, 3]))
    # Refusals and edge statuses.
    s["invalid-op"] = seed(op_byte=14, input="f32", payload=f32s(1.0))
    s["invalid-op-negative"] = seed(op_byte=15, input="i32")
    s["invalid-input"] = seed(input_byte=15 | (3 << 4), payload=b"\1\2")
    s["invalid-pair-u8-to-i8"] = seed("sum", "u8", acc="i8",
                                      payload=b"\1\2\3")
    s["invalid-acc-type"] = seed("min", "i16", acc="invalid")
    s["invalid-wrap-on-float"] = seed("sum", "f32", wrap=True,
                                      payload=f32s(1.0, 2.0))
    s["invalid-unknown-flag"] = seed("prod", "i32", unknown_flag=7,
                                     payload=b"\1\0\0\0")
    s["invalid-any-with-widening"] = seed("any", "u8", acc="u64",
                                          payload=b"\1")
    s["n0-null-x-min-empty"] = seed("min", "f64", mask_param=1)
    s["n0-sum-f32"] = seed("sum", "f32", mask="random")
    s["all-zero-mask-max-empty"] = seed("max", "u32", mask="leaves",
                                        mask_param=0, size="small", N=100,
                                        payload=b"\1\0\0\0")
    s["all-zero-mask-prod-i64"] = seed("prod", "i64", mask="random",
                                       mask_param=0, size="small", N=50,
                                       encoding="small", payload=b"\3")
    return s


def device_seeds():
    s = {}
    ops_types = [("sum", "f32", None), ("sum", "f64", None),
                 ("prod", "f64", None), ("min", "f32", None),
                 ("max", "f64", None), ("any", "f32", None),
                 ("all", "f64", None), ("sum", "i32", None),
                 ("sum", "u8", "u64"), ("sum", "i16", "i64"),
                 ("sum", "f32", "f64"), ("prod", "i64", None),
                 ("max", "u16", None), ("min", "i8", None)]
    for k, (op, t, a) in enumerate(ops_types):
        ctx = k % 4
        s[f"{op}-{t}-{a or 'same'}-ctx{ctx}"] = seed(
            op, t, acc=a, encoding="specials" if k % 2 else "small",
            mask=["none", "random", "leaves", "bytes"][k % 4],
            mask_param=0x9D, size="medium", N=3000 + 997 * k, offset=k % 8,
            target=ctx | (4 if k % 3 == 0 else 0) | (8 if k % 5 == 0 else 0),
            payload=ALL_SPECIALS if k % 2 else SMALL_MIX)
    for ctx in range(4):
        s[f"large-sum-f32-ctx{ctx}"] = seed(
            "sum", "f32", encoding="specials", size="large", N=50000,
            offset=3, target=ctx | 4, payload=bytes([2, 22, 25, 0, 1]))
        s[f"min-f32-signed-zeros-ctx{ctx}"] = seed(
            "min", "f32", encoding="specials", mask="leaves",
            mask_param=0x6C, size="small", N=4000, offset=ctx,
            target=ctx, payload=bytes([0, 1, 1, 0, 17]))
        s[f"sum-i32-overflow-ctx{ctx}"] = seed(
            "sum", "i32", encoding="specials", size="medium", N=20000,
            target=ctx | 4, payload=bytes([20, 20, 2]))
        s[f"tiny-n-ctx{ctx}"] = seed(
            "max", "f64", encoding="specials", size="small", N=17 + ctx,
            target=ctx, payload=ALL_SPECIALS)
    for ctx in range(4):
        s[f"max-f64-tiny-ctx{ctx}"] = seed(
            "max", "f64", encoding="tiny", mask="random" if ctx % 2 else "none",
            mask_param=100, size="medium", N=6000 + 1000 * ctx, offset=ctx,
            target=ctx | (4 if ctx == 1 else 0),
            payload=bytes([1, 0, 0, 3, 6, 1]))
    s["sum-i8-wrap"] = seed("sum", "i8", wrap=True, encoding="small",
                            size="medium", N=9000, target=1,
                            payload=bytes([100, 27]))
    s["n0-null-x-min-empty"] = seed("min", "f64", mask_param=1, target=4)
    s["n0-sum-buffers"] = seed("sum", "f32", mask="random", offset=2,
                               target=2 | 4)
    s["all-zero-mask-max-empty"] = seed("max", "f32", mask="leaves",
                                        mask_param=0, size="medium", N=5000,
                                        target=1 | 4, payload=f32s(1.0))
    s["invalid-pair"] = seed("sum", "u8", acc="i8", target=4,
                             payload=b"\1\2\3")
    s["invalid-wrap-on-float"] = seed("sum", "f64", wrap=True, target=0,
                                      payload=b"\0" * 8)
    return s


def write(directory, seeds):
    path = os.path.join(HERE, directory)
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        if name.startswith("seed-"):
            os.remove(os.path.join(path, name))
    for name, data in seeds.items():
        with open(os.path.join(path, "seed-" + name), "wb") as f:
            f.write(data)
    print(f"{directory}: {len(seeds)} seeds")


if __name__ == "__main__":
    write("corpus_host", host_seeds())
    write("corpus_device", device_seeds())
