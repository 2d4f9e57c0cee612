#!/usr/bin/env python3
"""Turns the CSV of examples/bench/run.sh into the tables of
docs/guide/07-performance.md and the plot docs/reduce-sizes.png.

Usage: python3 examples/bench/report.py docs/results/reduce-bench-h200.csv docs/reduce-sizes.png
CUB ran twice (before and after coop); its figure is the mean of the two.
"""
import csv
import sys
from collections import defaultdict
from statistics import mean

rows = [r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith("#")]
dev = defaultdict(list)    # (impl, op, type, n) -> [us]
block = defaultdict(list)  # (impl, type, threads) -> [us]
copy = None
for r in rows:
    if r[0] == "device":
        dev[(r[1], r[2], r[3], int(r[4]))].append(float(r[5]))
    elif r[0] == "block":
        block[(r[1], r[2], int(r[3]))].append(float(r[4]))
    elif r[0] == "copy":
        copy = float(r[6])

def us(impl, *key):
    table = dev if len(key) == 3 else block
    v = table.get((impl,) + key)
    return mean(v) if v else None

size = {"f32": 4, "i32": 4, "u32": 4, "f64": 8, "i64": 8}
n = 1 << 28
print(f"Device-to-device copy: {copy:.0f} GB/s (bytes read + written).\n")
print("| reduction, 2^28 elements | coop µs | CUB µs | coop GB/s read | of the copy's bytes/s | coop / CUB |")
print("|---|---|---|---|---|---|")
for op, ty in [("sum", "f32"), ("sum", "f64"), ("sum", "i32"), ("sum", "u32"), ("sum", "i64"),
               ("min", "f32"), ("max", "f32"), ("min", "i32"), ("max", "i32")]:
    # The size sweep also measured f32 sum at 2^28: the table uses the row
    # of the typed section (the last coop measurement of that key).
    c = dev[("coop", op, ty, n)][-1]
    b = us("cub", op, ty, n)
    gbs = n * size[ty] / c / 1e3
    print(f"| {op} {ty} | {c:.1f} | {b:.1f} | {gbs:.0f} | {100 * gbs / copy:.0f} % | {b / c:.3f} |")

print("\n| f32 sum, n | coop µs | CUB µs | coop / CUB |")
print("|---|---|---|---|")
sizes = sorted({k[3] for k in dev if k[1:3] == ("sum", "f32")})
coop_t, cub_t = [], []
for s in sizes:
    c = dev[("coop", "sum", "f32", s)][0]
    b = us("cub", "sum", "f32", s)
    coop_t.append(c)
    cub_t.append(b)
    print(f"| 2^{s.bit_length() - 1} | {c:.1f} | {b:.1f} | {b / c:.2f} |")

print("\n| block reduce (64 per launch, 16 blocks per SM) | coop µs | CUB µs | coop / CUB |")
print("|---|---|---|---|")
for ty in ["f32", "i32"]:
    for t in [128, 256, 512, 1024]:
        c, b = us("coop", ty, t), us("cub", ty, t)
        print(f"| {ty}, {t} threads | {c:.1f} | {b:.1f} | {b / c:.2f} |")

if len(sys.argv) > 2:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    gb = lambda t, s: s * 4 / t / 1e3
    ax1.loglog(sizes, [gb(t, s) for t, s in zip(coop_t, sizes)], "o-", label="coop")
    ax1.loglog(sizes, [gb(t, s) for t, s in zip(cub_t, sizes)], "s--", label="CUB DeviceReduce::Sum")
    ax1.axhline(copy, color="gray", lw=0.8, ls=":", label="device-to-device copy (read + write)")
    ax1.set_xlabel("f32 elements")
    ax1.set_ylabel("GB/s read")
    ax1.set_title("Device-wide f32 sum")
    ax1.legend()
    ax2.semilogx(sizes, [b / c for b, c in zip(cub_t, coop_t)], "o-")
    ax2.axhline(1.0, color="gray", lw=0.8)
    ax2.set_xlabel("f32 elements")
    ax2.set_ylabel("coop throughput / CUB")
    ax2.set_ylim(0.5, 1.5)
    ax2.set_title("Ratio (above 1: coop faster)")
    fig.suptitle("NVIDIA H200, one run (examples/bench/run.sh)")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)
