"""Partition stores end to end: a first training run records its joint graphs as pending,
`ilpart batch` solves them, a second run in a fresh process trains with the stored
partitions without solving anything (the ilpart binary it gets refuses to solve), and its
gradients equal eager's; a changed model's entry is not used; two processes compiling
into one store at once leave a consistent store."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import ilpart  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def no_solve_binary(d):
    """An ilpart that logs every command and refuses solve and mincut."""
    path = os.path.join(d, "ilpart-no-solve")
    with open(path, "w") as f:
        f.write('#!/bin/sh\necho "$1" >> "%s/commands.log"\n'
                'case "$1" in solve|mincut) echo "ilpart: solving is forbidden here" >&2; '
                'exit 99;; esac\nexec "%s" "$@"\n' % (d, ilpart.find_binary()))
    os.chmod(path, 0o755)
    return path


def train(store, on_miss, models, repeat=1, binary=None, wait=True):
    env = dict(os.environ)
    if binary:
        env["ILPART_BIN"] = binary
    argv = [sys.executable, os.path.join(HERE, "store_run.py"), store, on_miss,
            ",".join(models), str(repeat)]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True)
    return proc if not wait else finish(proc)


def finish(proc):
    out, _ = proc.communicate()
    lines = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise AssertionError("training process failed (exit %d):\n%s"
                             % (proc.returncode, out[-3000:]))
    return json.loads(lines[-1][len("RESULT "):])


def ilpart_cmd(*argv):
    return subprocess.run([ilpart.find_binary()] + list(argv), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)


def files(store, sub):
    return sorted(os.listdir(os.path.join(store, sub)))


class StoreTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ilpart-store-test-")
        self.store = os.path.join(self.tmp.name, "store")

    def tearDown(self):
        self.tmp.cleanup()

    def assertConsistent(self):
        """Every entry has its graph; every partition is whole, made for its entry's
        graph, and passes `ilpart check`; no temporaries are left behind."""
        for e in files(self.store, "entries"):
            with open(os.path.join(self.store, "entries", e)) as f:
                entry = json.load(f)
            graph = os.path.join(self.store, entry["graph"])
            self.assertTrue(os.path.exists(graph), e)
            part = os.path.join(self.store, "partitions", e)
            if os.path.exists(part):
                r = ilpart_cmd("check", graph, part)
                self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(files(self.store, "tmp"), [])

    def test_record_batch_then_train_without_solving(self):
        first = train(self.store, "mincut", ["mlp", "mixed"])
        for r in first:
            self.assertEqual(r["how"], ["mincut"], r["model"])
            self.assertTrue(r["close"], "%s: max diff %g" % (r["model"], r["max_diff"]))
        entries = files(self.store, "entries")
        self.assertEqual(len(entries), 2)
        self.assertEqual(files(self.store, "partitions"), [])

        r = ilpart_cmd("batch", self.store, "-j", "2", "--time-limit", "120")
        print("\n" + r.stdout)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(r.stdout.count(": stored"), 2, r.stdout)
        self.assertEqual(files(self.store, "partitions"), entries)
        for e in entries:
            with open(os.path.join(self.store, "status", e)) as f:
                self.assertEqual(json.load(f)["status"], "optimal")

        # A fresh process with an ilpart that cannot solve, and no fallback on a miss.
        second = train(self.store, "error", ["mlp", "mixed"],
                       binary=no_solve_binary(self.tmp.name))
        for r in second:
            self.assertEqual(r["how"], ["hit"], r["model"])
            self.assertTrue(r["close"], "%s: max diff %g" % (r["model"], r["max_diff"]))
        with open(os.path.join(self.tmp.name, "commands.log")) as f:
            cmds = set(f.read().split())
        # --version: the binary's version is part of every key (docs/python.md)
        self.assertTrue(cmds <= {"info", "remap", "--version"}, cmds)
        # what was trained with is the stored partition
        for r in second:
            with open(os.path.join(self.store, "partitions", r["keys"][0] + ".json")) as f:
                self.assertEqual(json.load(f)["saved"], r["saved"][0])
        self.assertConsistent()

        # A changed model has another fingerprint: its entry is recorded, not served.
        with self.assertRaises(AssertionError) as cm:
            train(self.store, "error", ["mlp-wide"], binary=no_solve_binary(self.tmp.name))
        self.assertIn("recorded as pending", str(cm.exception))
        self.assertEqual(len(files(self.store, "entries")), 3)
        self.assertEqual(len(files(self.store, "partitions")), 2)

    def test_two_processes_compile_into_one_store(self):
        procs = [train(self.store, "solve", ["mlp", "mixed"], repeat=2, wait=False)
                 for _ in range(2)]
        results = [finish(p) for p in procs]
        keys = set()
        for res in results:
            for r in res:
                self.assertTrue(r["close"], "%s: max diff %g" % (r["model"], r["max_diff"]))
                self.assertIn(r["how"][0], ("solved", "hit"))
                keys.update(r["keys"])
        self.assertEqual(len(keys), 2)
        self.assertEqual(files(self.store, "entries"), sorted(k + ".json" for k in keys))
        self.assertEqual(files(self.store, "partitions"), sorted(k + ".json" for k in keys))
        self.assertEqual(len(files(self.store, "graphs")), 2)
        self.assertConsistent()
        r = ilpart_cmd("batch", self.store)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(r.stdout.count("(stored): skipped"), 2, r.stdout)


if __name__ == "__main__":
    unittest.main()
