"""Plot what `ilpart pareto` and `ilpart timeline` write.

    build/ilpart pareto graph.json -o pareto.csv
    python3 -m ilpart.plot pareto.csv -o pareto.png -o pareto.svg
    build/ilpart timeline graph.json --csv timeline.csv
    python3 -m ilpart.plot timeline timeline.csv [more.csv...] -o timeline.svg

Pareto: the ILP points (kind "ilp") form the frontier: for each memory budget the least
recompute time (hollow when the solver stopped at its time limit). The min-cut, reference and save-all rows are drawn on the same axes;
a partition that breaks the SAC tags is marked. Standalone: stdlib and matplotlib
only (no torch). The output format follows each -o file's extension (.png, .svg,
.pdf); the files carry no timestamps, so the same CSV gives the same bytes.
The CSV's axis column (saved or peak) sets the x axis; --axis overrides it (older
CSVs have no such column: saved unless --axis peak).

Timeline: live bytes at every step of the forward and the backward, one line per
partition (one panel per CSV, side by side, titled by the file's name), each peak
marked with a dot and given in the legend.
"""

import argparse
import csv
import json
import os
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
        doc = json.loads(text)
        rows = [dict(r, axis=doc.get("axis")) for r in doc["points"]]
    else:
        rows = list(csv.DictReader(text.splitlines()))
    points = []
    for r in rows:
        budget = r.get("budget_bytes")
        off = r.get("offloaded_bytes")
        off = 0.0 if off in (None, "") else float(off)
        exposed = r.get("exposed_us")
        exposed = 0.0 if exposed in (None, "") else float(exposed)
        points.append({
            "kind": r["kind"],
            "name": r["name"],
            "budget": None if budget in (None, "") else float(budget),
            # on the device: `pareto --offload free` bounds what stays there
            "saved": float(r["saved_bytes"]) - off,
            "peak": None if r.get("peak_bytes") in (None, "") else float(r["peak_bytes"]),
            # recompute plus the simulated transfer time the compute does not hide
            "time_us": float(r["recompute_time_us"]) + exposed,
            "flops": float(r["recompute_flops"]),
            "sac": r.get("sac", "ok"),
            "status": r.get("status", ""),
            "axis": r.get("axis") or None,
        })
    if not points:
        raise ValueError(f"{path}: no points")
    return points


def csv_axis(points):
    """The axis the file says it holds ("saved" or "peak"), or None (older files)."""
    axes = {p.get("axis") for p in points} - {None}
    if len(axes) > 1:
        raise ValueError("rows of both axes: %s" % ", ".join(sorted(axes)))
    return axes.pop() if axes else None


def _byte_scale(maximum):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if maximum >= scale:
            return unit, scale
    return "B", 1


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.hashsalt"] = "ilpart"
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("ilpart.plot: matplotlib is needed (Debian: apt-get install "
                 "python3-matplotlib, then run /usr/bin/python3 -m ilpart.plot)")
    return plt


def _save(fig, outputs):
    """No timestamps or version strings: the same CSV gives the same bytes."""
    for out in outputs:
        meta = {"Date": None} if out.endswith(".svg") else None
        if out.endswith(".png"):
            meta = {"Software": None}
        elif out.endswith(".pdf"):
            meta = {"CreationDate": None, "Producer": None}
        fig.savefig(out, metadata=meta)


def plot(points, outputs, title=None, axis="saved"):
    """axis: "saved" (saved bytes) or "peak" (simulated peak, `pareto --axis peak`)."""
    plt = _pyplot()

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
    offload = sorted((p for p in points if p["kind"] == "ilp-offload"),
                     key=lambda p: (p["x"], p["time_us"]))
    if offload:
        ax.plot([p["x"] / scale for p in offload], [p["time_us"] for p in offload],
                marker="s", color="tab:purple", linestyle="--",
                label="ILP with offload (device bytes; recompute + exposed transfer)")
    for p in points:
        if p["kind"] in ("ilp", "ilp-offload"):
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
    _save(fig, outputs)
    plt.close(fig)


TIMELINE_SUFFIX = " [live bytes]"


def read_timeline(path):
    """A timeline CSV: (steps, series); steps [(phase, step)], series [(name, [bytes or
    None])] in the file's column order."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0][:2] != ["phase", "step"]:
        raise ValueError("not an `ilpart timeline --csv` file (no phase,step header)")
    names = []
    for h in rows[0][2:]:
        if not h.endswith(TIMELINE_SUFFIX):
            raise ValueError("column %r: expected a name ending in %r" % (h, TIMELINE_SUFFIX))
        names.append(h[:-len(TIMELINE_SUFFIX)])
    if not names:
        raise ValueError("no partition has a timeline")
    steps, cols = [], [[] for _ in names]
    for n, r in enumerate(rows[1:], 2):
        if len(r) != len(names) + 2 or r[0] not in ("forward", "backward"):
            raise ValueError("line %d: expected forward|backward, a step and %d values"
                             % (n, len(names)))
        steps.append((r[0], int(r[1])))
        for c, cell in zip(cols, r[2:]):
            c.append(None if cell == "" else int(cell))
    return steps, list(zip(names, cols))


def plot_timeline(files, outputs, title=None):
    """One panel per (path, steps, series); a line per partition, its peak marked."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(files), figsize=(7 * len(files), 4.8), squeeze=False)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple",
              "tab:brown", "tab:pink", "tab:gray", "tab:olive", "tab:cyan"]
    for ax, (path, steps, series) in zip(axes[0], files):
        top = max((v for _, col in series for v in col if v is not None), default=0)
        unit, scale = _byte_scale(top)
        n_fw = sum(1 for ph, _ in steps if ph == "forward")
        for k, (name, col) in enumerate(series):
            xs = [i for i, v in enumerate(col) if v is not None]
            ys = [col[i] / scale for i in xs]
            color = colors[k % len(colors)]
            peak = max(range(len(col)), key=lambda i: (col[i] is not None,
                                                        col[i] or 0, -i))
            label = "%s: peak %.3g %s" % (name, col[peak] / scale, unit)
            ax.step(xs, ys, where="mid", color=color, linewidth=1.2, label=label)
            ax.plot([peak], [col[peak] / scale], marker="o", markersize=7, color=color,
                    markeredgecolor="black", zorder=3)
        ax.axvline(n_fw - 0.5, color="black", linestyle="--", linewidth=0.8)
        ax.text(n_fw - 0.5, 0, " backward", fontsize=8, va="bottom")
        ax.text(n_fw - 0.5, 0, "forward ", fontsize=8, va="bottom", ha="right")
        ax.set_xlabel("step (forward ops, then the backward's start and its ops)")
        ax.set_ylabel(f"live bytes, simulated ({unit})")
        stem = os.path.basename(path)
        ax.set_title(title if title and len(files) == 1 else
                     stem[:-4] if stem.endswith(".csv") else stem)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    if title and len(files) > 1:
        fig.suptitle(title)
    fig.tight_layout()
    _save(fig, outputs)
    plt.close(fig)


def main_timeline(argv):
    ap = argparse.ArgumentParser(prog="python3 -m ilpart.plot timeline",
                                 description="Live bytes over one training step, from "
                                 "`ilpart timeline GRAPH --csv FILE`; several files are "
                                 "drawn side by side.")
    ap.add_argument("csv", nargs="+", help="output of `ilpart timeline --csv`")
    ap.add_argument("-o", "--output", action="append", required=True,
                    help="image to write (.png, .svg, .pdf); repeat for several")
    ap.add_argument("--title", help="plot title")
    args = ap.parse_args(argv)
    files = []
    for path in args.csv:
        try:
            files.append((path,) + read_timeline(path))
        except (OSError, ValueError) as e:
            sys.exit(f"ilpart.plot: {path}: {e}")
    plot_timeline(files, args.output, args.title)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["timeline"]:
        return main_timeline(argv[1:])
    if argv[:1] == ["pareto"]:
        argv = argv[1:]
    ap = argparse.ArgumentParser(prog="python3 -m ilpart.plot", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="output of `ilpart pareto` (CSV, or --json)")
    ap.add_argument("-o", "--output", action="append", required=True,
                    help="image to write (.png, .svg, .pdf); repeat for several")
    ap.add_argument("--title", help="plot title")
    ap.add_argument("--axis", choices=("saved", "peak"),
                    help="x axis: saved bytes or simulated peak (default: what the "
                    "file says it holds; saved for files without an axis column)")
    args = ap.parse_args(argv)
    try:
        points = read_points(args.csv)
        axis = args.axis or csv_axis(points) or "saved"
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"ilpart.plot: {args.csv}: {e}")
    try:
        plot(points, args.output, args.title, axis)
    except ValueError as e:
        sys.exit(f"ilpart.plot: {args.csv}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
