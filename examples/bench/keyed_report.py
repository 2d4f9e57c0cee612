#!/usr/bin/env python3
"""The plot of chapter 7's sorting, selection and keyed tables:
docs/sort-select-keyed-vs-cub.png, one panel a family, each bar one row
of the family's benchmark CSV as coop's speed over CUB's (above 1: coop
faster), the CSV and the GPU named in the panel's title.

Usage: python3 examples/bench/keyed_report.py [out.png]
       (reads the CSVs under docs/results/ named in FAMILIES; needs matplotlib)

Each family's CSV is the one its chapter 7 table quotes; rerun the
family's benchmark (the command is beside its table) and point FAMILIES
at the new CSV to redraw.
"""
import csv
import os
import sys

RESULTS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "results")


def rows(name):
    """The CSV's rows as dicts, and its first comment line (the GPU)."""
    path = os.path.join(RESULTS, name)
    lines = open(path).read().splitlines()
    comments = [l.lstrip("# ") for l in lines if l.startswith("#")]
    named = [c for c in comments if "NVIDIA" in c] or [c for c in comments if "H100" in c or "H200" in c]
    gpu = named[0].split(",")[0].split(" (")[0] if named else ""
    body = [l for l in lines if l and not l.startswith("#")]
    return list(csv.DictReader(body)), gpu


def sort_rows():
    out, gpu = rows("sort-bench-h200.csv")
    return [(f"{r['sort']} 2^{r['log2_n']}", float(r["coop_speed_over_cub"])) for r in out], gpu, "sort-bench-h200.csv"


def bench_rows(name, parts):
    """Rows of the algorithms/select/runs bench format (part, call, type,
    size, ..., coop_over_cub), of the given parts only."""
    out, gpu = rows(name)
    got = []
    for r in out:
        if r["part"] in parts:
            got.append((f"{r['call']} {r['type']} {r['size']}", float(r["coop_over_cub"])))
    return got, gpu, name


def scan_by_key_rows():
    out, gpu = rows("scan-by-key-bench-walk-h200.csv")
    return (
        [
            (f"{r['kind']} {r['values']} 2^{r['log2_n']}, {r['runs']}", float(r["coop_speed_over_cub"]))
            for r in out
            if r.get("build", "shipped") == "shipped"
        ],
        gpu,
        "scan-by-key-bench-walk-h200.csv",
    )


def top_k_rows():
    out, gpu = rows("top-k-bench-h200.csv")
    got = []
    for r in out:
        # Against CUB's best route: its top-k where the toolkit has one,
        # else its sort then take.
        best = r["speed_over_cub_top_k"] or r["speed_over_cub_sort"]
        if best:
            got.append((f"{r['selection']} 2^{r['log2_n']} k={r['k']}", float(best)))
    return got, gpu, "top-k-bench-h200.csv"


def segmented_sort_rows():
    out, gpu = rows("segmented-sort-routes-calibrated-h100.csv")
    got = [
        (f"{r['layout']} {r['keys']} 2^{r['log2_n']}", float(r["speed_over_best_cub"]))
        for r in out
        if ":" not in r["layout"]  # the default route only
    ]
    return got, gpu, "segmented-sort-routes-calibrated-h100.csv"


FAMILIES = [
    ("Radix sort (DeviceRadixSort)", sort_rows),
    ("Select, partition, unique (DeviceSelect, DevicePartition)", lambda: bench_rows("select-bench-h200.csv", {"select"})),
    ("Sum by key, run-length encode", lambda: bench_rows("runs-bench-walk-h200.csv", {"runs"})),
    ("Scan by key (DeviceScan::*ByKey)", scan_by_key_rows),
    ("Top-k (CUB's best route)", top_k_rows),
    ("Segmented sort (best of CUB's)", segmented_sort_rows),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(RESULTS, "..", "sort-select-keyed-vs-cub.png")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(title, *f()) for title, f in FAMILIES]
    heights = [1.2 + 0.16 * len(p[1]) for p in panels]
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(11, sum(heights)), gridspec_kw={"height_ratios": heights}
    )
    for ax, (title, data, gpu, name) in zip(axes, panels):
        labels = [d[0] for d in data]
        ratios = [d[1] for d in data]
        colors = ["#2a7" if r >= 1.0 else "#c44" for r in ratios]
        # Bars from 1 (CUB's speed) to coop's ratio, either way.
        ax.barh(range(len(data)), [r - 1.0 for r in ratios], left=1.0, color=colors)
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_yticks(range(len(data)))
        ax.set_yticklabels(labels, fontsize=6)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("coop speed / CUB speed (log scale; right of the line: coop faster)", fontsize=7)
        ax.set_title(f"{title} - {gpu} - docs/results/{name}", fontsize=8)
        print(f"{title}: {len(data)} rows, {sum(r >= 1.0 for r in ratios)} at or above CUB, lowest {min(ratios):.2f}")
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
