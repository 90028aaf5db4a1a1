#!/bin/sh
# peak_100l.sh - issue 24's targets at 100 layers: the least simulated peak
# (`solve --objective peak`) of transformers' Llama and GPT-2 with 100 layers at tiny
# widths, captured fresh with ilpart.capture, and of the 100k-node generator graph, against
# the baselines of the same run on the same graph.
#
# usage: bench/peak_100l.sh [-t SECONDS] [--bans "none pytorch"] [--layers N]
#            [--out DIR] [GRAPH.json ...]
#
# Graphs (default): DIR/llama-Nl.json and DIR/gpt2-Nl.json, captured when missing by
# bench/capture_100l.py in the sid chroot (ILPART_SUITE=sid scripts/torch-chroot.sh: torch
# 2.14 with transformers; about 1-2 min and 1 GB each), and DIR/gen-100k.json
# (bench/gen_graph.py 100000). DIR defaults to build/bench-100l: inside the repository (the
# chroot sees only that), ignored by git (3-17 MB files). N defaults to 100.
#
# For each graph and ban set, one process at a time:
#   peak:     solve --objective peak --time-limit T (T default 60) -v: CPU seconds and max
#             RSS of the child (wait4), status, proven gap, the simulated peak
#             (`ilpart check`, which must accept it), and the second stage (least
#             recompute at that peak) from -v: its last GLPK status, or why it did not run;
#   baseline: the least simulated peak among min-cut (`ilpart mincut`, PyTorch's
#             heuristic) and the saved-bytes ILP (`solve` without a budget, and at
#             --memory-budget 0.1 / 0.3 / 0.5), each checked; ratio = peak / baseline;
#   budget:   CPU, RSS and status of `solve --memory-budget 0.5` (the saved-bytes path).
# Then every baseline row's peak, CPU and status. Prints numbers, does not fail on them
# (exit 1 only when the checker rejects a partition).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
ILPART=${ILPART:-$top/build/ilpart}
limit=60
bans="none pytorch"
layers=100
out=$top/build/bench-100l
while [ $# -gt 0 ]; do
	case "$1" in
	-t) limit=$2; shift 2 ;;
	--bans) bans=$2; shift 2 ;;
	--layers) layers=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-*) echo "usage: $0 [-t SECONDS] [--bans \"none pytorch\"] [--layers N] [--out DIR] [GRAPH.json ...]" >&2
	    exit 2 ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	case "$out" in
	"$top"/*) rel=${out#"$top"/} ;;
	*) rel="" ;;
	esac
	for m in llama gpt2; do
		g=$out/$m-${layers}l.json
		[ -s "$g" ] && continue
		if [ -z "$rel" ]; then
			echo "peak_100l: $g is missing and $out is outside the repository" >&2
			exit 2
		fi
		ILPART_SUITE=sid "$top/scripts/torch-chroot.sh" python3 bench/capture_100l.py \
		    "$m" "$layers" "$rel/$m-${layers}l.json"
	done
	[ -s "$out/gen-100k.json" ] || python3 "$here/gen_graph.py" 100000 -o "$out/gen-100k.json"
	set -- "$out/llama-${layers}l.json" "$out/gpt2-${layers}l.json" "$out/gen-100k.json"
fi
python3 - "$ILPART" "$limit" "$bans" "$@" <<'PY'
import json, os, re, subprocess, sys, tempfile, time
ilpart, limit, bans = sys.argv[1:4]
graphs = sys.argv[4:]
rejected = []


def run(cmd):
    """(exit status, CPU s, max RSS KiB, wall s, stderr) of one child."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        err.seek(0)
        text = err.read().decode(errors="replace")
    return p.returncode, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, wall, text


def partition(g, args):
    """Run `ilpart args... -o TMP` on g, check the answer: a dict of what was measured."""
    with tempfile.NamedTemporaryFile(suffix=".json") as part:
        rc, cpu, rss, wall, err = run([ilpart] + args[:1] + [g] + args[1:] + ["-o", part.name])
        r = {"rc": rc, "cpu": cpu, "rss": rss, "wall": wall, "err": err, "peak": None,
             "status": "exit %d" % rc, "gap": None}
        if rc != 0:
            return r
        prod = json.load(open(part.name)).get("producer", {})
        r["status"] = prod.get("status", prod.get("method", "-"))
        r["gap"] = prod.get("gap")
        chk = subprocess.run([ilpart, "check", g, part.name], capture_output=True, text=True)
        if chk.returncode != 0:
            r["status"] = "REJECTED"
            rejected.append("%s %s: %s" % (g, " ".join(args), chk.stderr.strip()))
            return r
        r["peak"] = int(re.search(r"peak (\d+) bytes", chk.stdout).group(1))
    return r


def stage2(err):
    """The second stage of the peak objective, from -v."""
    for line in reversed(err.splitlines()):
        if "least-recompute: not run" in line:
            return "not run"
        if "least-recompute: no answer in the time left" in line:
            return "no answer"
        m = re.search(r"stage least-recompute: (.*?), objective ", line)
        if m:
            return m.group(1)
    return "not run"


def gapf(g):
    return "-" if g is None else "%.2g%%" % (100 * g)


base_args = [("mincut", ["mincut"]), ("ilp memory", ["solve"]),
             ("ilp 0.1", ["solve", "--memory-budget", "0.1"]),
             ("ilp 0.3", ["solve", "--memory-budget", "0.3"]),
             ("ilp 0.5", ["solve", "--memory-budget", "0.5"])]
print("peak: solve --objective peak --time-limit %s; baseline: least peak of mincut and the "
      "saved-bytes ILP (none, 0.1, 0.3, 0.5); budget 0.5: solve --memory-budget 0.5" % limit)
print("%-12s %-7s | %-10s %6s %6s %6s %11s %-9s | %11s %-10s %6s | %6s %6s %-8s" % (
    "graph", "bans", "status", "gap", "cpu_s", "MiB", "peak", "stage2", "baseline", "(row)",
    "ratio", "0.5cpu", "MiB", "status"), flush=True)
details = []
for g in graphs:
    name = os.path.basename(g)[:-5]
    for b in bans.split():
        pk = partition(g, ["solve", "--objective", "peak", "--time-limit", limit,
                           "--bans", b, "-v"])
        rows = [(label, partition(g, a + ["--bans", b, "--time-limit", limit]
                                  if a[0] == "solve" else a + ["--bans", b]))
                for label, a in base_args]
        ok = [(l, r) for l, r in rows if r["peak"] is not None]
        bl, br = min(ok, key=lambda x: x[1]["peak"]) if ok else ("-", {"peak": None})
        half = dict(rows)["ilp 0.5"]
        ratio = ("%6.3f" % (pk["peak"] / br["peak"])
                 if pk["peak"] is not None and br["peak"] else "     -")
        print("%-12s %-7s | %-10s %6s %6.1f %6.0f %11s %-9s | %11s %-10s %s | %6.2f %6.0f %-8s" % (
            name[:12], b, pk["status"], gapf(pk["gap"]), pk["cpu"], pk["rss"] / 1024,
            pk["peak"] if pk["peak"] is not None else "-", stage2(pk["err"])[:9],
            br["peak"] if br["peak"] is not None else "-", bl, ratio, half["cpu"],
            half["rss"] / 1024, half["status"]), flush=True)
        details.append((name, b, rows))
print()
print("baseline rows: simulated peak, CPU s, max RSS MiB, status")
for name, b, rows in details:
    print("%-12s %-7s %s" % (name[:12], b, "  ".join(
        "%s %s %.2fs %.0fM %s" % (l, r["peak"] if r["peak"] is not None else "-", r["cpu"],
                                  r["rss"] / 1024, r["status"]) for l, r in rows)))
if rejected:
    print("\nchecker rejections:\n" + "\n".join(rejected))
    sys.exit(1)
PY
