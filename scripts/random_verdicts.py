#!/usr/bin/env python3
"""random_verdicts.py BIN SEED_FROM SEED_TO [NCMD] - for each seed, a graph from
scripts/random_graph.py and NCMD (default 14) randomly chosen ilpart commands over the
recent paths (budgets and the fraction cap, peak objective and budget, pareto with
--axis peak / --solve-each / --budgets, compare, mincut's budget path and switches,
time limits, prefer modes); reports to stdout and WORK/issues.log any crash, sanitizer
report, internal error, timeout (300 s), exit 2 on a valid graph (other than a usage
error), exit other than 2 on an invalid one, exit 3 without a conflict, partial
output, partition refused by `ilpart check`, or output that differs between two runs
(without a time limit). WORK: $RANDOM_VERDICTS_DIR or /tmp/random_verdicts."""
import os, random, subprocess, sys, json, shutil, re
BIN = sys.argv[1]; lo = int(sys.argv[2]); hi = int(sys.argv[3])
NCMD = int(sys.argv[4]) if len(sys.argv) > 4 else 14
TOP = os.environ.get("RANDOM_VERDICTS_DIR", "/tmp/random_verdicts")
GEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "random_graph.py")
W = f"{TOP}/w{os.getpid()}"; os.makedirs(W, exist_ok=True)
LOG = open(f"{TOP}/issues.log", "a")
env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")

def cmds(G, R):
    P = f"{W}/p.json"
    pb = R.choice(["0", "1", "1024", "4611686018427387903", "1000000000000000000", "0.5", "17"])
    mb = R.choice(["0.0", "0.1", "0.5", "1.0", "0", "1", "64", "4611686018427387903", "0.999", "0.0001"])
    pre = R.choice([[], ["--prefer", "soft"], ["--prefer", "pytorch"], ["--bans", "none"], ["--prefer", "hard"]])
    tl = R.choice([[], [], ["--time-limit", "0.001"], ["--time-limit", "0.05"], ["--time-limit", "1"]])
    L = [
        ("solve", ["solve", G, "-o", P]),
        ("solve-mb", ["solve", G, "--memory-budget", mb, "-o", P]),
        ("solve-mb-norm", ["solve", G, "--memory-budget", mb, "--fraction-cap", "normalised", "-o", P]),
        ("solve-mb-mono", ["solve", G, "--memory-budget", mb, "--monolithic", "-o", P]),
        ("solve-peak", ["solve", G, "--objective", "peak", "-o", P]),
        ("solve-peakbudget", ["solve", G, "--objective", "runtime", "--peak-budget", pb, "-o", P]),
        ("solve-peakbudget-mb", ["solve", G, "--objective", "runtime", "--peak-budget", pb, "--memory-budget", mb, "-o", P]),
        ("solve-weighted", ["solve", G, "--objective", "weighted", "--alpha", R.choice(["0", "1", "1e30", "1e-30"]), "-o", P]),
        ("solve-runtime", ["solve", G, "--objective", "runtime", "-o", P]),
        ("solve-peak-tl", ["solve", G, "--objective", "peak", "--time-limit", R.choice(["0.001", "0.01", "0.2"]), "-o", P]),
        ("mincut", ["mincut", G, "-o", P]),
        ("mincut-mb", ["mincut", G, "--memory-budget", mb.replace("64", "0.3") if "." in mb else "0.3", "-o", P,
                       "--config", "activation_memory_budget_solver=" + R.choice(["dp", "greedy", "ilp"]),
                       "--config", "activation_memory_budget_runtime_estimator=" + R.choice(["flops", "testing", "profile"])]),
        ("mincut-cfg", ["mincut", G, "-o", P, "--config", "activation_memory_budget=" + R.choice(["0.0", "0.2", "1.0", "0.7"]),
                        "--config", "activation_memory_budget_solver=" + R.choice(["dp", "greedy", "ilp"]),
                        "--config", R.choice(["recompute_views=True", "aggressive_recomputation=True", "max_dist_from_bw=0", "ban_recompute_reductions=False", "unsafe_allow_optimization_of_collectives=True"])]),
        ("compare", ["compare", G, "--no-times"]),
        ("compare-peak", ["compare", G, "--no-times", "--peak"]),
        ("compare-mb", ["compare", G, "--no-times", "--memory-budget", mb, "--json"]),
        ("pareto", ["pareto", G, "--points", R.choice(["2", "3", "5"]), "-o", f"{W}/c.csv"]),
        ("pareto-peak", ["pareto", G, "--points", "3", "--axis", "peak", "-o", f"{W}/c.csv"]),
        ("pareto-each", ["pareto", G, "--points", "3", "--solve-each", "-o", f"{W}/c.csv"]),
        ("pareto-budgets", ["pareto", G, "--budgets", ",".join(R.sample(["0.0", "0.5", "1.0", "0", "1", "100", "0.25", "4611686018427387903"], 3)), "-o", f"{W}/c.csv", "--json"]),
        ("pareto-peak-each", ["pareto", G, "--axis", "peak", "--points", "4", "--solve-each", "-o", f"{W}/c.csv", "--json"]),
        ("pareto-norm", ["pareto", G, "--budgets", "0.1,0.5", "--fraction-cap", "normalised", "-o", f"{W}/c.csv"]),
        ("solve-outputs", ["solve", G, "-o", P, "--split", f"{W}/split", "--write-lp", f"{W}/m.lp",
                           "--write-mps", f"{W}/m.mps"] + R.choice([[], ["--memory-budget", mb], ["--objective", "peak"],
                                                                  ["--peak-budget", pb]])),
        ("mincut-explain", ["mincut", G, "--explain"] + R.choice([[], ["--memory-budget", "0.3"]])),
        ("info-blocks", ["info", G, "--blocks"]),
    ]
    out = []
    for name, c in R.sample(L, min(NCMD, len(L))):
        extra = list(pre)
        if c[0] in ("solve", "pareto", "compare") and R.random() < 0.4:
            extra += tl
        out.append((name, c + extra))
    return out

OUTS = ("p.json", "c.csv", "m.lp", "m.mps", "split")

def run(c, t=300, clean=True):
    for f in (OUTS if clean else ()):
        shutil.rmtree(f"{W}/{f}", ignore_errors=True)
        try: os.unlink(f"{W}/{f}")
        except (FileNotFoundError, IsADirectoryError): pass
    try:
        r = subprocess.run([BIN] + c, capture_output=True, text=True, timeout=t, env=env)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "TIMEOUT"

def issue(seed, G, name, c, what, err):
    LOG.write(f"seed {seed} {name}: {what}\n  cmd: ilpart {' '.join(c)}\n  err: {err.strip()[:600]}\n"); LOG.flush()
    keep = f"{TOP}/bad/{seed}.json"; os.makedirs(f"{TOP}/bad", exist_ok=True); shutil.copy(G, keep)
    print(f"ISSUE seed {seed} {name}: {what}", flush=True)

stats = {}
for seed in range(lo, hi):
    G = f"{W}/g{seed}.json"
    subprocess.run([sys.executable, GEN, str(seed), G], check=True)
    rc, _, err = run(["info", G])
    valid = rc == 0
    R = random.Random(seed * 7 + 1)
    for name, c in cmds(G, R):
        rc, out, err = run(c)
        stats[(name, rc)] = stats.get((name, rc), 0) + 1
        tlim = "--time-limit" in c
        if rc == 124: issue(seed, G, name, c, "timeout (hang?)", err); continue
        if re.search(r"Sanitizer|runtime error|internal error|Assertion|LeakSanitizer", err):
            issue(seed, G, name, c, f"exit {rc} sanitizer/internal", err); continue
        if rc not in (0, 1, 2, 3, 4): issue(seed, G, name, c, f"exit {rc} crash", err); continue
        if not valid:
            if rc != 2: issue(seed, G, name, c, f"invalid graph gives exit {rc}", err)
            continue
        if rc == 2 and "see ilpart --help" not in err and "no measured time_us" not in err: issue(seed, G, name, c, "exit 2 on a valid graph", err)
        if rc == 1: issue(seed, G, name, c, "exit 1", err)
        if rc == 3 and "conflict" not in err: issue(seed, G, name, c, "exit 3 without conflict", err)
        if rc == 4 and not tlim and "peak" not in err: issue(seed, G, name, c, "exit 4", err)
        if err.count("\n") > 0 and rc != 0 and len([l for l in err.splitlines() if not l.startswith("ilpart: warning")]) > 1 and rc == 2:
            issue(seed, G, name, c, "multi-line error", err)
        outs = [f for f in OUTS if os.path.exists(f"{W}/{f}")]
        if rc != 0 and outs: issue(seed, G, name, c, f"exit {rc} but wrote {outs}", err)
        if rc == 0 and c[0] in ("solve", "mincut") and "-o" in c:
            if not os.path.exists(f"{W}/p.json"): issue(seed, G, name, c, "exit 0 no partition", err); continue
            part = open(f"{W}/p.json").read()
            crc, cout, cerr = run(["check", G, f"{W}/p.json"], clean=False)  # removes p.json! re-create
            if crc != 0: issue(seed, G, name, c, f"check rejects (exit {crc})", cerr + "\n" + part[:300])
            src, sout, serr = run(["split", G, f"{W}/p.json", "--format", R.choice(["text", "json", "dot"])], clean=False)
            if src != 0: issue(seed, G, name, c, f"split refuses (exit {src})", serr)
            if "--split" in c and not all(os.path.exists(f"{W}/split/{f}") for f in ("split.json", "split.txt")):
                issue(seed, G, name, c, "exit 0 without the split files", err)
            # budget honoured?
            if not tlim:
                rc2, out2, err2 = run(c)
                part2 = open(f"{W}/p.json").read() if os.path.exists(f"{W}/p.json") else None
                if rc2 != rc or part2 != part: issue(seed, G, name, c, "nondeterministic", f"{rc}/{rc2}\n{part[:400]}\n---\n{(part2 or '')[:400]}")
        elif rc == 0 and not tlim and c[0] in ("compare", "pareto"):
            o1 = out + (open(f"{W}/c.csv").read() if os.path.exists(f"{W}/c.csv") else "")
            rc2, out2, err2 = run(c)
            o2 = out2 + (open(f"{W}/c.csv").read() if os.path.exists(f"{W}/c.csv") else "")
            if rc2 != rc or o1 != o2: issue(seed, G, name, c, "nondeterministic", f"{o1[:500]}\n---\n{o2[:500]}")
print(sorted(stats.items()))
