#!/usr/bin/env python3
"""Turns the CSV of examples/bench/algorithms.sh into the tables of
docs/guide/07-performance.md (printed as Markdown) and the plot
docs/algorithms-vs-cub.png (one panel per algorithm: GB/s of coop and of
CUB by size or segment length).

Usage: python3 examples/bench/algorithms_report.py docs/results/algorithms-bench-h100.csv [docs/algorithms-vs-cub.png]

The plot needs matplotlib; the tables do not.
"""
import csv
import sys


def read(path):
    rows = [r for r in csv.reader(open(path)) if r and not r[0].startswith("#") and r[0] != "part"]
    return [
        dict(part=r[0], call=r[1], ty=r[2], size=r[3], coop_us=float(r[4]), cub_us=float(r[5]),
             coop=float(r[6]), cub=float(r[7]), ratio=float(r[8]))
        for r in rows
    ]


def table(rows, title, first="size"):
    print(f"\n**{title}**\n")
    print(f"| {first} | call | type | coop GB/s | CUB GB/s | coop / CUB |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['size']} | {r['call']} | {r['ty']} | {r['coop']:.0f} | {r['cub']:.0f} | {r['ratio']:.2f} |")


def main():
    rows = read(sys.argv[1])
    by = lambda part: [r for r in rows if r["part"] == part]
    table(by("arg"), "Arg-min and arg-max (`DeviceReduce::ArgMin`/`ArgMax`), bytes read")
    table(by("transform"), "Transform-reductions of f32 (`DeviceReduce::TransformReduce`), bytes read")
    table(by("segmented"), "Segmented sums of 2^28 f32 (`DeviceSegmentedReduce::Sum`), bytes of values, offsets and results")
    table([r for r in rows if r["part"] == "scan"], "Single-pass scans (`DeviceScan::InclusiveSum`/`ExclusiveSum`), bytes read and written")
    copy = [r for r in rows if r["part"] == "scan_vs_copy"]
    if copy:
        print("\n**The inclusive scan against a device-to-device copy of the same bytes** (the copy in the CUB column)\n")
        print("| size | type | scan GB/s | copy GB/s | scan / copy |")
        print("|---|---|---|---|---|")
        for r in copy:
            print(f"| {r['size']} | {r['ty']} | {r['coop']:.0f} | {r['cub']:.0f} | {r['ratio']:.2f} |")
    det = [r for r in rows if r["part"] in ("scan_deterministic", "deterministic_vs_default")]
    if det:
        print("\n**Deterministic forms** (scans against CUB; the sum against coop's default sum in the CUB column)\n")
        print("| part | size | call | type | coop GB/s | other GB/s | ratio |")
        print("|---|---|---|---|---|---|---|")
        for r in det:
            print(f"| {r['part']} | {r['size']} | {r['call']} | {r['ty']} | {r['coop']:.0f} | {r['cub']:.0f} | {r['ratio']:.2f} |")
    if len(sys.argv) > 2:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(2, 2, figsize=(12, 8))
        panels = [
            ("Scans, inclusive sum (single pass)", [r for r in rows if r["part"] == "scan" and r["call"] == "inclusive_sum"], lambda r: f"{r['ty']} {r['size']}"),
            ("Arg-min / arg-max", by("arg"), lambda r: f"{r['call']} {r['ty']} {r['size']}"),
            ("Transform-reductions, f32", by("transform"), lambda r: f"{r['call']} {r['size']}"),
            ("Segmented sums, 2^28 f32", by("segmented"), lambda r: r["size"].split(" in segments of ")[-1].split(" (")[0]),
        ]
        for ax, (title, data, label) in zip(axes.flat, panels):
            xs = range(len(data))
            ax.bar([x - 0.2 for x in xs], [r["coop"] for r in data], 0.4, label="coop")
            ax.bar([x + 0.2 for x in xs], [r["cub"] for r in data], 0.4, label="CUB 3.0.1")
            ax.set_xticks(list(xs))
            ax.set_xticklabels([label(r) for r in data], rotation=60, ha="right", fontsize=7)
            ax.set_ylabel("GB/s")
            ax.set_title(title)
            ax.legend(fontsize=8)
        fig.suptitle("coop against CUB on an NVIDIA H100 (higher is faster)")
        fig.tight_layout()
        fig.savefig(sys.argv[2], dpi=90)


main()
