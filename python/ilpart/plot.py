"""Plot the memory / recompute trade-off written by `ilpart pareto`.

    ilpart pareto graph.json -o pareto.csv
    python3 -m ilpart.plot pareto.csv -o pareto.png -o pareto.svg

The ILP points (kind "ilp") form the frontier: for each memory budget the least
recompute time (hollow when the solver stopped at its time limit). The min-cut, reference and save-all rows are drawn on the same axes;
a partition that breaks the SAC tags is marked. Standalone: stdlib and matplotlib
only (no torch). The output format follows each -o file's extension (.png, .svg,
.pdf); the files carry no timestamps, so the same CSV gives the same bytes.
"""

import argparse
import csv
import json
import sys

STYLE = {
    "mincut": ("s", "tab:orange"),
    "reference": ("D", "tab:green"),
    "save-all": ("^", "tab:gray"),
}


def read_points(path):
    """Rows of a pareto CSV (or of `ilpart pareto --json`) as dicts with numbers."""
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    if text.lstrip().startswith("{"):
        rows = json.loads(text)["points"]
    else:
        rows = list(csv.DictReader(text.splitlines()))
    points = []
    for r in rows:
        budget = r.get("budget_bytes")
        points.append({
            "kind": r["kind"],
            "name": r["name"],
            "budget": None if budget in (None, "") else float(budget),
            "saved": float(r["saved_bytes"]),
            "peak": None if r.get("peak_bytes") in (None, "") else float(r["peak_bytes"]),
            "time_us": float(r["recompute_time_us"]),
            "flops": float(r["recompute_flops"]),
            "sac": r.get("sac", "ok"),
            "status": r.get("status", ""),
        })
    if not points:
        raise ValueError(f"{path}: no points")
    return points


def _byte_scale(maximum):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if maximum >= scale:
            return unit, scale
    return "B", 1


def plot(points, outputs, title=None, axis="saved"):
    """axis: "saved" (saved bytes) or "peak" (simulated peak, `pareto --axis peak`)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.hashsalt"] = "ilpart"
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("ilpart.plot: matplotlib is needed (Debian: apt-get install "
                 "python3-matplotlib, then run /usr/bin/python3 -m ilpart.plot)")

    points = [dict(p, x=p[axis]) for p in points if p.get(axis) is not None]
    if not points:
        raise ValueError("no point has %s bytes" % axis)
    unit, scale = _byte_scale(max(p["x"] for p in points))
    fig, ax = plt.subplots(figsize=(8, 5))
    frontier = sorted((p for p in points if p["kind"] == "ilp"),
                      key=lambda p: (p["x"], p["time_us"]))
    if frontier:
        ax.plot([p["x"] / scale for p in frontier], [p["time_us"] for p in frontier],
                marker="o", color="tab:blue", label="ILP optimum per budget")
        loose = [p for p in frontier if p["status"] not in ("optimal", "")]
        if loose:
            ax.scatter([p["x"] / scale for p in loose], [p["time_us"] for p in loose],
                       marker="o", s=80, facecolors="white", edgecolors="tab:blue",
                       zorder=3, label="ILP, time limit (best found, not proven)")
    for p in points:
        if p["kind"] == "ilp":
            continue
        marker, color = STYLE.get(p["kind"], ("o", "tab:red"))
        if "budget" in p["name"]:  # PyTorch's activation_memory_budget points
            marker = "P" if p["kind"] == "mincut" else "X"
        bad = p["sac"] != "ok"
        label = p["name"] + (" (breaks SAC tags)" if bad else "")
        ax.scatter([p["x"] / scale], [p["time_us"]], marker=marker, s=70,
                   color=color, edgecolors="red" if bad else "black",
                   linewidths=2 if bad else 0.5, label=label, zorder=3)
    ax.set_xlabel(f"saved for backward ({unit})" if axis == "saved" else
                  f"peak memory, simulated ({unit})")
    ax.set_ylabel("recompute time in backward (µs, roofline)")
    ax.set_title(title or "Memory / recompute trade-off")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    for out in outputs:
        meta = {"Date": None} if out.endswith(".svg") else None
        if out.endswith(".png"):
            meta = {"Software": None}
        fig.savefig(out, metadata=meta)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m ilpart.plot", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="output of `ilpart pareto` (CSV, or --json)")
    ap.add_argument("-o", "--output", action="append", required=True,
                    help="image to write (.png, .svg, .pdf); repeat for several")
    ap.add_argument("--title", help="plot title")
    ap.add_argument("--axis", choices=("saved", "peak"), default="saved",
                    help="x axis: saved bytes (default) or simulated peak")
    args = ap.parse_args(argv)
    try:
        points = read_points(args.csv)
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"ilpart.plot: {args.csv}: {e}")
    try:
        plot(points, args.output, args.title, args.axis)
    except ValueError as e:
        sys.exit(f"ilpart.plot: {args.csv}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
