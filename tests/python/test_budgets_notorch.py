"""Budgets without torch: a fraction out of reach for a SAC graph is answered with the
least-bytes partition (ilpart.solve, the partition store, `ilpart batch`); a failed store
entry is said to have failed (on_miss="mincut" warns, on_miss="error" says "failed" and
names the store as given); the time budget through ilpart.solve and the store key; and the
arguments ilpart.options refuses when they are given. Run by `make check` on the host's
python3 (tests/python_notorch.sh); also discovered in the torch chroot.

Run by hand: ILPART_BIN=build/ilpart PYTHONPATH=python python3 tests/python/test_budgets_notorch.py
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings

from notorch import TOP, main  # sets sys.path up for ilpart

from ilpart import options, runner, store  # noqa: E402
from ilpart.runner import IlpartError, IlpartWarning  # noqa: E402

SAC = os.path.join(TOP, "tests", "data", "corpus", "gpt-6l-sac-mm.json")
GPT = os.path.join(TOP, "tests", "data", "corpus", "gpt-4l.json")


def load(path):
    with open(path) as f:
        return json.load(f)


def batch(root):
    return subprocess.run([runner.find_binary(), "batch", root, "--no-times"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)


class OutOfReachTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ilpart-budgets-")
        self.cwd = os.getcwd()
        os.chdir(self.tmp)

    def tearDown(self):
        os.chdir(self.cwd)
        shutil.rmtree(self.tmp)

    def test_solve_fraction_out_of_reach_warns_and_answers_least(self):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            part = runner.solve(SAC, objective="runtime", memory_budget=0.3)
        notes = [str(x.message) for x in w if issubclass(x.category, IlpartWarning)]
        self.assertEqual(len(notes), 1, notes)
        self.assertIn("memory budget 0.3", notes[0])
        self.assertIn("out of reach", notes[0])
        self.assertEqual(part["producer"]["note"], notes[0])
        # the least: one byte below it is a conflict
        least = part["cost"]["saved_bytes"]
        self.assertEqual(part["producer"]["budget_bytes"], least)
        with self.assertRaises(IlpartError) as cm:
            runner.solve(SAC, objective="runtime", memory_budget=least - 1)
        self.assertEqual(cm.exception.status, 3)
        # --strict-budget keeps the conflict for a fraction
        with self.assertRaises(IlpartError) as cm:
            runner.solve(SAC, objective="runtime", memory_budget=0.3,
                         extra_args=["--strict-budget"])
        self.assertIn("budget conflict", str(cm.exception))

    def test_store_mincut_then_batch_then_hit_with_note(self):
        run = store.store_solver("parts", on_miss="mincut")
        part = run(load(SAC), objective="runtime", memory_budget=0.3)
        self.assertEqual(part["store"]["how"], "mincut")
        key = part["store"]["key"]
        r = batch("parts")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("stored; note: memory budget 0.3", r.stdout)
        self.assertNotIn("failed", r.stdout.replace("0 failed", ""))
        with open(os.path.join("parts", "status", key + ".json")) as f:
            self.assertEqual(json.load(f)["exit"], 0)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            hit = store.store_solver("parts", on_miss="error")(
                load(SAC), objective="runtime", memory_budget=0.3)
        self.assertEqual(hit["store"]["how"], "hit")
        self.assertIn("out of reach", hit["producer"]["note"])
        self.assertEqual(hit["saved"], load(os.path.join("parts", "partitions",
                                                         key + ".json"))["saved"])
        del w

    def test_failed_entry_is_said_to_have_failed(self):
        # an explicit byte budget out of reach still fails in batch
        args = dict(objective="runtime", memory_budget=1000)
        with self.assertRaises(IlpartError) as cm:
            store.store_solver("parts", on_miss="error")(load(SAC), **args)
        self.assertIn("pending", str(cm.exception))
        self.assertIn("partition store parts ", str(cm.exception))
        self.assertNotIn(self.tmp, str(cm.exception))
        r = batch("parts")
        self.assertEqual(r.returncode, 3, r.stdout)
        with self.assertRaises(IlpartError) as cm:
            store.store_solver("parts", on_miss="error")(load(SAC), **args)
        msg = str(cm.exception)
        self.assertIn("failed in `ilpart batch`", msg)
        self.assertIn("exit 3", msg)
        self.assertNotIn("pending", msg)
        self.assertIn("ilpart batch parts --retry", msg)
        self.assertNotIn(self.tmp, msg)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            part = store.store_solver("parts", on_miss="mincut")(load(SAC), **args)
        self.assertEqual(part["store"]["how"], "mincut")
        failed = [str(x.message) for x in w if issubclass(x.category, IlpartWarning)]
        self.assertEqual(len(failed), 1, failed)
        self.assertIn("failed in `ilpart batch`", failed[0])
        self.assertIn("training with min-cut", failed[0])


class TimeBudgetTest(unittest.TestCase):
    def test_pytorch_time_least_bytes(self):
        mc = runner.solve(GPT, command="mincut", prefer="pytorch", memory_budget=0.3)
        part = runner.solve(GPT, time_budget="pytorch:0.3")
        self.assertEqual(part["producer"]["status"], "optimal")
        self.assertLessEqual(part["cost"]["recompute_time_us"],
                             mc["cost"]["recompute_time_us"] * (1 + 1e-9))
        self.assertLess(part["cost"]["saved_bytes"], mc["cost"]["saved_bytes"])
        self.assertEqual(part["options"]["time_budget_pytorch_fraction"], 0.3)
        # seconds: the same answer at PyTorch's time written out
        t = mc["cost"]["recompute_time_us"] * 1e-6
        same = runner.solve(GPT, time_budget=options.time_budget_arg(t))
        self.assertEqual(same["cost"]["saved_bytes"], part["cost"]["saved_bytes"])

    def test_store_key_has_the_time_budget(self):
        a = store.solve_args(time_budget="pytorch:0.3")
        b = store.solve_args(time_budget="pytorch:0.5")
        self.assertIn("--time-budget", a)
        self.assertNotEqual(a, b)
        self.assertNotEqual(store.entry_key("0" * 64, a, "v"), store.entry_key("0" * 64, b, "v"))


class OptionsTest(unittest.TestCase):
    def test_bad_arguments_name_themselves(self):
        cases = [dict(objective="peek"), dict(prefer="strict"), dict(method="greedy"),
                 dict(on_miss="later"), dict(fraction_cap="torch"), dict(device="tpu"),
                 dict(time_limit=0), dict(time_limit="10"), dict(policy="no/such.json"),
                 dict(memory_budget=30), dict(memory_budget=30.0), dict(memory_budget=-1),
                 dict(memory_budget="30 percent"), dict(memory_budget=True),
                 dict(time_budget="soon"), dict(time_budget="pytorch:2"),
                 dict(time_budget=0.001, memory_budget=0.3),
                 dict(time_budget=0.001, objective="runtime"), dict(calibrate="yes"),
                 dict(codegen="llvm")]
        for kw in cases:
            (name, value), = kw.items() if len(kw) == 1 else [next(iter(kw.items()))]
            with self.assertRaises(ValueError, msg=kw) as cm:
                options.check_partition_options(**kw)
            self.assertIn("%s=%r" % (name, value), str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            options.check_partition_options(objective="peek")
        self.assertIn("'memory', 'runtime', 'weighted', 'peak'", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            options.check_partition_options(memory_budget=30)
        self.assertIn("did you mean 0.3", str(cm.exception))

    def test_int_and_float_alike(self):
        mb = options.memory_budget_value
        self.assertEqual(mb(0), 0.0)
        self.assertEqual(mb(1), 1.0)
        self.assertIsInstance(mb(1), float)
        self.assertEqual(mb(0.5), 0.5)
        self.assertEqual(mb(2000000), 2000000)
        self.assertEqual(mb(2e6), 2000000)
        self.assertIsInstance(mb(2e6), int)
        self.assertEqual(mb("0.3"), 0.3)
        self.assertEqual(mb("512MiB"), "512MiB")
        for bad in (30, 30.0, 100, 2e6 + 0.5):
            with self.assertRaises(ValueError):
                mb(bad)
        self.assertEqual(options.time_budget_arg("pytorch", 0.3), "pytorch:0.3")
        self.assertEqual(options.time_budget_arg("pytorch", None), "pytorch:1.0")
        self.assertEqual(options.time_budget_arg(4e-6), "4e-06")


if __name__ == "__main__":
    sys.exit(main("budgets_notorch"))
