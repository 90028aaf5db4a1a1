"""ilpart.store without torch: record, batch-solve, look up a renamed graph, on_miss modes,
the better-answer rule, and processes writing one store at once. Run by `make check` on the
host's python3 (tests/python_notorch.sh) against the ilpart just built ($ILPART_BIN); also
discovered in the torch chroot by tests/python/run.py.

Run by hand: ILPART_BIN=build/ilpart PYTHONPATH=python python3 tests/python/test_store_notorch.py
"""

import hashlib
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings

from notorch import SEED, TOP, main  # sets sys.path up for ilpart
from notorch import SEED_POLICY as POLICY

from ilpart import runner, store  # noqa: E402
from ilpart.runner import IlpartError  # noqa: E402

RENAMED = os.path.join(TOP, "tests", "golden", "remap-renamed", "renamed.json")


def load(path):
    with open(path) as f:
        return json.load(f)


def ilpart(*argv):
    return subprocess.run([runner.find_binary()] + [str(a) for a in argv],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)


def _compile_into(args):
    root, path, on_miss = args
    run = store.store_solver(root, on_miss=on_miss)
    return run(load(path), objective="runtime", memory_budget=0.5)["store"]["how"]


class StoreTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ilpart-store-")
        self.root = os.path.join(self.tmp, "store")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def ls(self, sub):
        return sorted(os.listdir(os.path.join(self.root, sub)))

    def test_record_batch_then_hit_on_renamed_graph(self):
        part = store.store_solver(self.root, on_miss="mincut")(load(SEED))
        self.assertEqual(part["store"]["how"], "mincut")
        key = part["store"]["key"]
        self.assertEqual(self.ls("entries"), [key + ".json"])
        self.assertEqual(self.ls("partitions"), [])
        self.assertEqual(self.ls("tmp"), [])
        r = ilpart("batch", self.root, "--no-times")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("optimal, gap 0, objective 4160: stored", r.stdout)
        # The same graph under other names and in another order: a hit, in its names.
        renamed = load(RENAMED)
        hit = store.store_solver(self.root, on_miss="error")(renamed)
        self.assertEqual(hit["store"], {"key": key, "fingerprint": part["store"]["fingerprint"],
                                        "how": "hit"})
        names = {n["name"] for n in renamed["nodes"]}
        self.assertTrue(hit["saved"] and set(hit["saved"]) <= names)
        self.assertEqual(sorted(hit["saved"]), ["n0_primals", "n1_primals", "n4_primals"])
        p = os.path.join(self.tmp, "p.json")
        with open(p, "w") as f:
            json.dump(hit, f)
        self.assertEqual(ilpart("check", RENAMED, p).returncode, 0)

    def test_error_on_miss_records_pending(self):
        run = store.store_solver(self.root, on_miss="error")
        with self.assertRaises(IlpartError) as cm:
            run(load(SEED), policy=POLICY)
        self.assertIn("recorded as pending", str(cm.exception))
        (entry,) = self.ls("entries")
        e = load(os.path.join(self.root, "entries", entry))
        i = e["args"].index("--policy")
        self.assertTrue(os.path.exists(os.path.join(self.root, e["args"][i + 1])))
        r = ilpart("batch", self.root, "--dry-run")
        self.assertIn("pending (no partition)", r.stdout)
        # options are part of the request: another budget is another entry
        with self.assertRaises(IlpartError):
            run(load(SEED), policy=POLICY, objective="runtime", memory_budget=0.3)
        self.assertEqual(len(self.ls("entries")), 2)

    def test_policy_key_is_content_not_location(self):
        other = os.path.join(self.tmp, "elsewhere.json")
        shutil.copy(POLICY, other)
        run = store.store_solver(self.root, on_miss="solve")
        a = run(load(SEED), policy=POLICY)["store"]
        b = run(load(SEED), policy=other)["store"]
        self.assertEqual(a["key"], b["key"])
        self.assertEqual((a["how"], b["how"]), ("solved", "hit"))
        stored = load(os.path.join(self.root, "partitions", a["key"] + ".json"))
        with open(POLICY, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        self.assertEqual(stored["options"]["policy"]["sha256"], sha)
        self.assertEqual(stored["producer"]["status"], "optimal")

    def test_better(self):
        def part(status, obj, gap=None):
            p = {"producer": {"status": status, "objective_value": obj}}
            if gap is not None:
                p["producer"]["gap"] = gap
            return p
        self.assertTrue(store.better(part("feasible", 9), None))
        self.assertFalse(store.better(None, part("feasible", 9)))
        self.assertTrue(store.better(part("optimal", 9), part("time-limit", 5)))
        self.assertFalse(store.better(part("time-limit", 5), part("optimal", 9)))
        self.assertTrue(store.better(part("feasible", 4), part("time-limit", 5)))
        self.assertFalse(store.better(part("feasible", 6), part("time-limit", 5)))
        self.assertFalse(store.better(part("optimal", 5), part("optimal", 5)))
        self.assertTrue(store.better(part("feasible", 5, 0.1), part("feasible", 5, 0.2)))

    def test_key_is_effective_options_and_version(self):
        fp = "0" * 64
        args = store.solve_args("runtime", 0.5)
        # defaults are written out: giving one explicitly is the same request
        self.assertEqual(store.solve_args("runtime", 0.5, extra_args=["--fraction-cap", "pytorch"]),
                         args)
        self.assertIn("--fraction-cap", args)
        key = store.entry_key(fp, args, "ilpart 0.1.0")
        self.assertEqual(key, store.entry_key(fp, list(args), "ilpart 0.1.0"))
        # another value of a defaulted option, another budget, another ilpart: other keys
        other = [store.entry_key(fp, store.solve_args(
                     "runtime", 0.5, extra_args=["--fraction-cap", "normalised"]), "ilpart 0.1.0"),
                 store.entry_key(fp, store.solve_args(
                     "runtime", 0.5, extra_args=["--rng-replay=no"]), "ilpart 0.1.0"),
                 store.entry_key(fp, store.solve_args("runtime", 0.3), "ilpart 0.1.0"),
                 store.entry_key(fp, args, "ilpart 0.2.0")]
        self.assertEqual(len(set(other + [key])), 5)
        # an entry written under another version is not a hit for this binary
        run = store.store_solver(self.root, on_miss="solve")
        a = run(load(SEED))["store"]
        e = load(os.path.join(self.root, "entries", a["key"] + ".json"))
        self.assertEqual(e["ilpart"], ilpart("--version").stdout.strip())
        st = store.Store(self.root)
        st._versions[st._bin()] = "ilpart 0.0.1"
        self.assertEqual(store.store_solver(st, on_miss="solve")(load(SEED))["store"]["how"],
                         "solved")
        self.assertEqual(len(self.ls("entries")), 2)

    def test_defaults_are_the_binarys(self):
        defaults = dict(store.SOLVE_DEFAULTS)
        p = os.path.join(self.tmp, "p.json")
        r = ilpart("solve", SEED, "-o", p)
        self.assertEqual(r.returncode, 0, r.stdout)
        opts = load(p)["options"]
        for opt in ("bans", "device", "prefer"):
            self.assertEqual(opts[opt], defaults["--" + opt], opt)
        help_text = ilpart("solve", "--help").stdout
        self.assertIn("--fraction-cap %s (default)" % defaults["--fraction-cap"], help_text)
        self.assertIn("(default %s:" % defaults["--rng-replay"], help_text)
        # the batch runs entries' effective arguments as they are
        self.assertEqual(ilpart("solve", SEED, "-o", p,
                                *store.solve_args("runtime", 0.5)).returncode, 0)

    def test_entry_under_another_name(self):
        # Two requests on one graph; then request B's entry file holds A's request
        # (copied or renamed by hand) and its partition is the answer to A.
        run = store.store_solver(self.root, on_miss="error")
        keys = []
        for kw in ({}, {"objective": "runtime", "memory_budget": 0.3}):
            with self.assertRaises(IlpartError) as cm:
                run(load(SEED), **kw)
            keys.append(str(cm.exception).split("entries/")[1].split(".json")[0])
        a, b = keys
        entries = os.path.join(self.root, "entries")
        shutil.copy(os.path.join(entries, a + ".json"), os.path.join(entries, b + ".json"))
        self.assertEqual(store.Store(self.root).entry_key_of(b), a)
        r = ilpart("batch", self.root, "--no-times")
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn("%s: bad entry: entries/%s.json: file name does not match the entry: "
                      "its args, fingerprint and ilpart version have the key %s..."
                      % (b[:12], b, a[:12]), r.stdout)
        self.assertEqual(self.ls("partitions"), [a + ".json"])
        # A store where B's answer is A's (solved from the misnamed entry): request B is
        # a miss with a warning, never A's partition.
        shutil.copy(os.path.join(self.root, "partitions", a + ".json"),
                    os.path.join(self.root, "partitions", b + ".json"))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with self.assertRaises(IlpartError) as cm:
                run(load(SEED), objective="runtime", memory_budget=0.3)
        self.assertIn("recorded as pending", str(cm.exception))
        self.assertTrue(any("another request's entry" in str(x.message) for x in w),
                        [str(x.message) for x in w])
        # Request A still hits.
        self.assertEqual(run(load(SEED))["store"]["how"], "hit")

    def test_entry_key_escapes_as_python(self):
        # The batch computes an entry's key as json.dumps does (ensure_ascii): control
        # characters, quotes, backslashes, non-ASCII and astral code points.
        st = store.Store(self.root)
        tmp = os.path.join(self.tmp, "g.json")
        shutil.copy(SEED, tmp)
        fp = st.fingerprint(tmp)
        args = ["--alpha", "\u00e9\t\"x\\\u0001\u00ff\U0001f600/", "--prefer", "hard"]
        key, _mine = st.record(tmp, fp, args, 70)
        self.assertEqual(st.entry_key_of(key), key)
        r = ilpart("batch", self.root, "--no-times")
        self.assertNotIn("bad entry", r.stdout)
        self.assertIn("failed (exit 2)", r.stdout)  # solve refuses the alpha itself

    def test_processes_writing_one_store(self):
        jobs = [(self.root, SEED if i % 2 else RENAMED, "solve") for i in range(8)]
        with multiprocessing.get_context("fork").Pool(4) as pool:
            hows = pool.map(_compile_into, jobs)
        self.assertTrue(set(hows) <= {"solved", "hit"}, hows)
        self.assertEqual(len(self.ls("entries")), 1)
        self.assertEqual(len(self.ls("graphs")), 1)
        self.assertEqual(self.ls("partitions"), self.ls("entries"))
        self.assertEqual(self.ls("tmp"), [])
        (key,) = self.ls("partitions")
        graph = os.path.join(self.root, "graphs", self.ls("graphs")[0])
        r = ilpart("check", graph, os.path.join(self.root, "partitions", key))
        self.assertEqual(r.returncode, 0, r.stdout)


class WriteJsonTest(unittest.TestCase):
    def test_special_file_written_not_replaced(self):
        """write_json's atomic rename never replaces a path that is not a regular file
        (a FIFO here; /dev/null for a user who discards the output)."""
        from ilpart import graphfile
        import stat
        tmp = tempfile.mkdtemp()
        try:
            fifo = os.path.join(tmp, "out.json")
            os.mkfifo(fifo)
            rd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            try:
                graphfile.write_json(fifo, {"nodes": [], "x": 1})
                got = os.read(rd, 65536).decode()
            finally:
                os.close(rd)
            self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO was replaced")
            self.assertEqual(json.loads(got), {"nodes": [], "x": 1})
            self.assertEqual(sorted(os.listdir(tmp)), ["out.json"])
        finally:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main("store_notorch"))
