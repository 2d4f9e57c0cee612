#!/usr/bin/env python3
"""Turns the CSV of examples/bench/run.sh into the tables of
docs/guide/07-performance.md and the plot docs/reduce-sizes.png.

Usage: python3 examples/bench/report.py docs/results/reduce-bench-h200.csv [docs/reduce-sizes.png [cold.csv]]

cold.csv: a run with COOP_FLUSH_L2=1 COOP_BENCH=sizes (the L2 written over
before every sample), printed as one more table.

coop and CUB were timed in turns in one process; "coop / CUB" is the
median over the rounds of CUB's time over coop's in the same round (above
1: coop is faster), with the first and third quartiles beside it. `device`
rows time the GPU's work alone; `call` rows what a caller waiting for one
reduction sees, the host's launch cost included.
"""
import csv
import sys


def read(path):
    """(µs by (kind, impl, op, type, n), ratios by key, copy GB/s, block µs)."""
    rows = [r for r in csv.reader(open(path)) if r and not r[0].startswith("#")]
    # The size sweep runs first and measures the f32 sum of 2^28 elements
    # again later with the other types: the sweep's table takes the first
    # row of a key, the typed table the last.
    times, ratio, block, copy = {}, {}, {}, None
    for r in rows:
        if r[0] in ("device", "call"):
            times.setdefault((r[0], r[1], r[2], r[3], int(r[4])), []).append(float(r[5]))
        elif r[0] == "block":
            block[(r[1], r[2], int(r[3]))] = float(r[4])
        elif r[0] == "ratio":
            *key, m, q1, q3 = r[1:]
            key = tuple(int(k) if k.isdigit() else k for k in key)
            ratio.setdefault(key, []).append((float(m), float(q1), float(q3)))
        elif r[0] == "copy":
            copy = float(r[6])
    return times, ratio, copy, block


def fmt(ratio, key, which=-1):
    m, q1, q3 = ratio[key][which]
    return f"{m:.3f} ({q1:.3f}–{q3:.3f})"


def pow2(n):
    return f"2^{n.bit_length() - 1}"


times, ratio, copy, block = read(sys.argv[1])
size = {"f32": 4, "i32": 4, "u32": 4, "f64": 8, "i64": 8}
n = 1 << 28
print(f"Device-to-device copy: {copy:.0f} GB/s (bytes read + written).\n")
print("| reduction, 2^28 elements | coop µs | CUB µs | coop GB/s read | of the copy's bytes/s | coop / CUB (quartiles) |")
print("|---|---|---|---|---|---|")
for op, ty in [("sum", "f32"), ("sum", "f64"), ("sum", "i32"), ("sum", "u32"), ("sum", "i64"),
               ("min", "f32"), ("max", "f32"), ("min", "i32"), ("max", "i32")]:
    c, b = times[("device", "coop", op, ty, n)][-1], times[("device", "cub", op, ty, n)][-1]
    gbs = n * size[ty] / c / 1e3
    print(f"| {op} {ty} | {c:.1f} | {b:.1f} | {gbs:.0f} | {100 * gbs / copy:.0f} % | {fmt(ratio, ('device', 'coop', op, ty, n))} |")

sizes = sorted({k[4] for k in ratio if k[:4] == ("device", "coop", "sum", "f32")})
print("\n| f32 sum, n | coop µs | CUB µs | coop / CUB, GPU time | coop µs, call | CUB µs, call | coop / CUB, call |")
print("|---|---|---|---|---|---|---|")
for s in sizes:
    d = [times[("device", i, "sum", "f32", s)][0] for i in ("coop", "cub")]
    c = [times[("call", i, "sum", "f32", s)][0] for i in ("coop", "cub")]
    print(f"| {pow2(s)} | {d[0]:.2f} | {d[1]:.2f} | {fmt(ratio, ('device', 'coop', 'sum', 'f32', s), 0)} "
          f"| {c[0]:.2f} | {c[1]:.2f} | {fmt(ratio, ('call', 'coop', 'sum', 'f32', s), 0)} |")

others = sorted({k[1] for k in ratio if k[0] == "device" and k[1].startswith("coop-")})
if others:
    print("\nOther first-pass grids, GPU time, coop / CUB (median):\n")
    print("| f32 sum, n | coop | " + " | ".join(others) + " |")
    print("|---|---|" + "---|" * len(others))
    for s in sizes:
        cells = [f"{ratio[('device', i, 'sum', 'f32', s)][0][0]:.3f}" for i in ["coop"] + others]
        print(f"| {pow2(s)} | " + " | ".join(cells) + " |")

print("\n| block reduce (64 per launch, 16 blocks per SM) | coop µs | CUB µs | coop / CUB (quartiles) |")
print("|---|---|---|---|")
for ty in ["f32", "i32"]:
    for t in [128, 256, 512, 1024]:
        c, b = block[("coop", ty, t)], block[("cub", ty, t)]
        print(f"| {ty}, {t} threads | {c:.1f} | {b:.1f} | {fmt(ratio, ('block', 'coop', ty, t))} |")

if len(sys.argv) > 3:
    cold_times, cold, _, _ = read(sys.argv[3])
    cold_sizes = sorted({k[4] for k in cold if k[:4] == ("device", "coop", "sum", "f32")})
    print("\n| f32 sum, n, cold L2 | coop µs | CUB µs | coop / CUB (quartiles) |")
    print("|---|---|---|---|")
    for s in cold_sizes:
        c, b = (cold_times[("device", i, "sum", "f32", s)][0] for i in ("coop", "cub"))
        print(f"| {pow2(s)} | {c:.2f} | {b:.2f} | {fmt(cold, ('device', 'coop', 'sum', 'f32', s), 0)} |")

if len(sys.argv) > 2:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    gb = lambda kind, impl: [s * 4 / times[(kind, impl, "sum", "f32", s)][0] / 1e3 for s in sizes]
    ax1.loglog(sizes, gb("device", "coop"), "o-", label="coop")
    ax1.loglog(sizes, gb("device", "cub"), "s--", label="CUB DeviceReduce::Sum")
    ax1.axhline(copy, color="gray", lw=0.8, ls=":", label="device-to-device copy (read + write)")
    ax1.set_xlabel("f32 elements")
    ax1.set_ylabel("GB/s read (GPU time)")
    ax1.set_title("Device-wide f32 sum")
    ax1.legend()
    for kind, style, label in [("device", "o-", "GPU time"), ("call", "s--", "one call (host launch included)")]:
        med = [ratio[(kind, "coop", "sum", "f32", s)][0] for s in sizes]
        ax2.semilogx(sizes, [m for m, _, _ in med], style, label=label)
        ax2.fill_between(sizes, [q1 for _, q1, _ in med], [q3 for _, _, q3 in med], alpha=0.2)
    ax2.axhline(1.0, color="gray", lw=0.8)
    ax2.set_xlabel("f32 elements")
    ax2.set_ylabel("CUB time / coop time, same round")
    ax2.set_ylim(0.7, 1.7)
    ax2.set_title("Ratio, median and quartiles (above 1: coop faster)")
    ax2.legend()
    fig.suptitle("NVIDIA H200, coop and CUB timed in turns in one process (examples/bench/run.sh)")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)
