"""ilpart.runner and ilpart.graphfile without torch: run by `make check` on the host's
python3 (tests/python_notorch.sh), against the ilpart binary the build made ($ILPART_BIN).
Also discovered by tests/python/run.py in the torch chroot, where it passes the same way.

Run by hand: ILPART_BIN=build/ilpart PYTHONPATH=python python3 tests/python/test_runner_notorch.py
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from notorch import PYDIR, SEED, SEED_POLICY, TOP, main  # sets sys.path up for ilpart

import ilpart  # noqa: E402
from ilpart import graphfile, runner  # noqa: E402


def chain(x_extra=None):
    """a, b -> x = mm(a, b) -> y = relu(x) -> s = sum(y); backward g1 = t * y,
    g2 = mm(g1, x). `x_extra` adds fields to x."""
    x = {"name": "x", "kind": "op", "target": "aten.mm.default", "inputs": ["a", "b"],
         "bytes": 1024, "flops": 1e9}
    x.update(x_extra or {})
    return {
        "format": "ilpart-joint-graph", "version": 1,
        "nodes": [
            {"name": "a", "kind": "primal", "bytes": 4096},
            {"name": "b", "kind": "primal", "bytes": 4096},
            x,
            {"name": "y", "kind": "op", "target": "aten.relu.default", "inputs": ["x"],
             "bytes": 1024},
            {"name": "s", "kind": "op", "target": "aten.sum.default", "inputs": ["y"],
             "bytes": 4},
            {"name": "t", "kind": "tangent", "bytes": 4},
            {"name": "g1", "kind": "op", "target": "aten.mul.Tensor", "inputs": ["t", "y"],
             "bytes": 1024},
            {"name": "g2", "kind": "op", "target": "aten.mm.default", "inputs": ["g1", "x"],
             "bytes": 4096},
        ],
        "outputs": {"forward": ["s"], "backward": ["g2", None]},
    }


def binary():
    """The binary under test: $ILPART_BIN (make check sets it), else what find_binary()
    finds (the chroot run: ../../build/ilpart)."""
    return runner.find_binary()


class NoTorch(unittest.TestCase):
    def test_torch_not_imported(self):
        # Using the runner and the file helpers must not pull torch in.
        code = ("import sys; sys.path.insert(0, %r); import ilpart; "
                "ilpart.find_binary; ilpart.solve; ilpart.IlpartError; ilpart.read_json; "
                "ilpart.write_json; ilpart.dumps; ilpart.saved_bytes; "
                "print('torch' in sys.modules)" % PYDIR)
        out = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                             universal_newlines=True, check=True).stdout
        self.assertEqual(out.strip(), "False")

    def test_lazy_exports(self):
        self.assertIs(ilpart.solve, runner.solve)
        self.assertIs(ilpart.IlpartError, runner.IlpartError)
        self.assertIs(ilpart.read_json, graphfile.read_json)
        with self.assertRaises(AttributeError):
            ilpart.no_such_name  # noqa: B018


class FindBinary(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ilpart-py-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def find_in_copy(self, env):
        """find_binary() from a copy of the package that has no build/ beside it."""
        shutil.copytree(os.path.join(PYDIR, "ilpart"), os.path.join(self.tmp, "pkg", "ilpart"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        code = ("import sys; sys.path.insert(0, %r)\n"
                "from ilpart import runner\n"
                "try:\n    print('found', runner.find_binary())\n"
                "except runner.IlpartError as e:\n    print('error', e)\n"
                % os.path.join(self.tmp, "pkg"))
        return subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env,
                              universal_newlines=True, check=True).stdout.strip()

    def test_env_wins(self):
        mine = os.path.join(self.tmp, "my-ilpart")
        os.symlink(os.path.abspath(binary()), mine)
        env = dict(os.environ, ILPART_BIN=mine)
        code = "import sys; sys.path.insert(0, %r); import ilpart; print(ilpart.find_binary())"
        out = subprocess.run([sys.executable, "-c", code % PYDIR], stdout=subprocess.PIPE,
                             env=env, universal_newlines=True, check=True).stdout
        self.assertEqual(out.strip(), mine)

    def test_env_missing_is_ilpart_error(self):
        """$ILPART_BIN naming no executable: IlpartError saying so, not a later OSError."""
        env = dict(os.environ, ILPART_BIN="/some/where/ilpart")
        self.assertEqual(self.find_in_copy(env), "error ilpart binary not found: "
                         "ILPART_BIN=/some/where/ilpart is not an executable file (build it "
                         "with ./scripts/setup.sh build)")

    def test_path(self):
        bindir = os.path.join(self.tmp, "bin")
        os.mkdir(bindir)
        os.symlink(os.path.abspath(binary()), os.path.join(bindir, "ilpart"))
        env = {k: v for k, v in os.environ.items() if k != "ILPART_BIN"}
        env["PATH"] = bindir
        self.assertEqual(self.find_in_copy(env), "found " + os.path.join(bindir, "ilpart"))

    def test_not_found(self):
        env = {k: v for k, v in os.environ.items() if k != "ILPART_BIN"}
        env["PATH"] = os.path.join(self.tmp, "empty")
        out = self.find_in_copy(env)
        self.assertTrue(out.startswith("error ilpart binary not found"), out)


class Solve(unittest.TestCase):
    def test_seed_file(self):
        p = runner.solve(SEED, policy=SEED_POLICY, binary=binary())
        self.assertEqual(p["format"], "ilpart-partition")
        self.assertEqual(p["producer"]["method"], "ilp")
        self.assertEqual(p["producer"]["status"], "optimal")
        self.assertEqual(p["saved"], ["primals_1", "primals_2", "primals_3"])
        self.assertIn("convert_element_type_4", p["recomputed"])
        self.assertEqual(p["cost"]["saved_bytes"], 4160)
        # Python counts saved bytes as the C library does.
        self.assertEqual(graphfile.saved_bytes(graphfile.read_json(SEED), p["saved"]), 4160)

    def test_dict_graph_and_options(self):
        g = chain()
        p = runner.solve(g, extra_args=["--bans", "none"], binary=binary())
        self.assertEqual(p["saved"], ["x"])
        self.assertEqual(p["recomputed"], ["y"])
        # A float budget is PyTorch's activation_memory_budget: 1.0 is what torch's min-cut
        # saves at budget 1 (here x, 1024 bytes: the inputs weigh more, so torch keeps it).
        p = runner.solve(g, objective="runtime", memory_budget=1.0, time_limit=30,
                         extra_args=["--bans", "none"], binary=binary())
        self.assertEqual(p["producer"]["objective"], "runtime")
        self.assertEqual(p["producer"]["budget_bytes"], 1024)
        self.assertEqual(p["saved"], ["x"])
        # An int budget is bytes.
        p = runner.solve(g, objective="runtime", memory_budget=1024,
                         extra_args=["--bans", "none"], binary=binary())
        self.assertEqual(p["cost"]["saved_bytes"], 1024)
        self.assertEqual(p["producer"]["budget_bytes"], 1024)

    def test_mincut(self):
        p = runner.solve(SEED, policy=SEED_POLICY, prefer="pytorch", command="mincut",
                         binary=binary())
        self.assertEqual(p["producer"]["method"], "mincut")
        self.assertEqual(p["cost"]["saved_bytes"], 4160)

    def test_bad_input(self):
        with self.assertRaises(runner.IlpartError) as cm:
            runner.solve({"format": "ilpart-joint-graph", "version": 1}, binary=binary())
        self.assertEqual(cm.exception.status, 2)
        self.assertIn("nodes", str(cm.exception))
        self.assertIsInstance(cm.exception, RuntimeError)

    def test_conflict(self):
        # A random op that must be recomputed, in a graph whose RNG is not functionalized.
        g = chain({"random": True, "recompute": "MUST_RECOMPUTE", "ac_graph_id": 1})
        with self.assertRaises(ilpart.IlpartError) as cm:
            runner.solve(g, binary=binary())
        self.assertEqual(cm.exception.status, 3)
        self.assertIn("'x'", str(cm.exception))
        # a MUST tag: soft preferences would not help, and the error does not say so
        self.assertNotIn("soft", str(cm.exception))

    def test_conflict_of_preferences_names_soft(self):
        # A checkpointed training-mode BatchNorm (transformers' MobileViT under gradient
        # checkpointing): its saved statistics are PREFER_RECOMPUTE and cannot be
        # recomputed (their tuple reads the running statistics the forward updates in
        # place). The error says that soft preferences lift the conflict, and they do.
        g = os.path.join(TOP, "tests", "golden", "solve-conflict-mutated-tuple", "graph.json")
        with self.assertRaises(ilpart.IlpartError) as cm:
            runner.solve(g, prefer="hard", binary=binary())
        self.assertEqual(cm.exception.status, 3)
        self.assertIn("PREFER_RECOMPUTE", str(cm.exception))
        self.assertIn('prefer="soft"', str(cm.exception))
        p = runner.solve(g, prefer="soft", binary=binary())
        self.assertEqual(p["producer"]["status"], "optimal")

    def test_budget_too_small(self):
        with self.assertRaises(runner.IlpartError) as cm:
            runner.solve(chain(), objective="runtime", memory_budget=10,
                         extra_args=["--bans", "none"], binary=binary())
        self.assertEqual(cm.exception.status, 3)


class Files(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ilpart-py-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_round_trip(self):
        g = graphfile.read_json(SEED)
        path = os.path.join(self.tmp, "g.json")
        graphfile.write_json(path, g)
        self.assertEqual(graphfile.read_json(path), g)
        self.assertEqual(os.listdir(self.tmp), ["g.json"])
        with open(path) as f:
            text = f.read()
        self.assertEqual(text, graphfile.dumps(g))
        # one node per line, no trailing spaces, final newline
        self.assertTrue(text.endswith("}\n"))
        self.assertFalse(any(line != line.rstrip() for line in text.splitlines()))
        lines = text.splitlines()
        start = lines.index(' "nodes": [')
        self.assertEqual(lines[start + 1 + len(g["nodes"])].rstrip(","), " ]")
        # ilpart reads what write_json wrote and gives the same answer
        p = runner.solve(path, policy=SEED_POLICY, binary=binary())
        self.assertEqual(p["cost"]["saved_bytes"], 4160)

    def test_partition_dumps(self):
        p = {"format": "ilpart-partition", "version": 1, "saved": ["x"]}
        self.assertEqual(json.loads(graphfile.dumps(p)), p)

    def test_failed_write_leaves_nothing(self):
        path = os.path.join(self.tmp, "g.json")
        graphfile.write_json(path, chain())
        with self.assertRaises(TypeError):
            graphfile.write_json(path, {"nodes": [object()]})
        self.assertEqual(os.listdir(self.tmp), ["g.json"])
        self.assertEqual(graphfile.read_json(path), chain())

    def test_saved_bytes_views(self):
        g = chain()
        g["nodes"].insert(3, {"name": "v", "kind": "op", "target": "aten.t.default",
                              "inputs": ["x"], "view_of": "x", "bytes": 1024})
        self.assertEqual(graphfile.saved_bytes(g, ["x", "v"]), 1024)
        self.assertEqual(graphfile.saved_bytes(g, ["v", "y"]), 2048)
        self.assertEqual(graphfile.node_bytes({"shape": [2, 3], "dtype": "bf16"}), 12)
        self.assertEqual(graphfile.node_bytes({"tuple": True}), 0)


if __name__ == "__main__":
    sys.exit(main("runner_notorch"))
