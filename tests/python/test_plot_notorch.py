"""ilpart.plot without torch: the timeline CSV of `ilpart timeline` read back (its maxima
are the peaks the command prints), the pareto CSV's axis column (a peak curve is labelled
as one without --axis; older files without the column still read), and, where matplotlib
is installed, both pictures drawn twice to the same bytes. Run by `make check` on the
host's python3 (tests/python_notorch.sh) against the ilpart just built ($ILPART_BIN).

Run by hand: ILPART_BIN=build/ilpart PYTHONPATH=python python3 tests/python/test_plot_notorch.py
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest

from notorch import SEED, SEED_POLICY, TOP, main  # sets sys.path up for ilpart

from ilpart import plot, runner  # noqa: E402

MLP = os.path.join(TOP, "tests", "data", "corpus", "mlp.json")

try:
    import matplotlib  # noqa: F401
    HAVE_MPL = True
except ImportError:
    HAVE_MPL = False


def ilpart(*argv):
    r = subprocess.run([runner.find_binary()] + [str(a) for a in argv],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if r.returncode != 0:
        raise AssertionError("ilpart %s: exit %d: %s" % (argv, r.returncode, r.stderr))
    return r.stdout


class Timeline(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.csv = os.path.join(self.dir.name, "t.csv")
        self.out = ilpart("timeline", SEED, "ilp", "mincut", "refs", "save-all",
                          "--policy", SEED_POLICY, "--csv", self.csv)

    def tearDown(self):
        self.dir.cleanup()

    def test_columns_peaks_and_phases(self):
        steps, series = plot.read_timeline(self.csv)
        names = [n for n, _ in series]
        self.assertEqual(names, ["ilp (memory)", "mincut (torch 2.14)",
                                 "ref:pytorch-bug-report", "save-all"])
        printed = dict(re.findall(r"^(\S.*?): peak (\d+) bytes", self.out, re.M))
        for name, col in series:
            self.assertEqual(max(v for v in col if v is not None), int(printed[name]), name)
        phases = [ph for ph, _ in steps]
        n_fw = phases.count("forward")
        self.assertEqual(phases, ["forward"] * n_fw + ["backward"] * (len(phases) - n_fw))
        self.assertEqual(steps[n_fw], ("backward", 0))   # the backward's start
        self.assertEqual(steps[0], ("forward", 1))

    def test_bad_files(self):
        bad = os.path.join(self.dir.name, "bad.csv")
        with open(bad, "w") as f:
            f.write("kind,name\n")
        with self.assertRaisesRegex(ValueError, "phase,step"):
            plot.read_timeline(bad)
        with open(bad, "w") as f:
            f.write("phase,step,x [live bytes]\nforward,1\n")
        with self.assertRaisesRegex(ValueError, "line 2"):
            plot.read_timeline(bad)

    @unittest.skipUnless(HAVE_MPL, "matplotlib not installed")
    def test_picture_is_deterministic(self):
        a, b = (os.path.join(self.dir.name, n) for n in ("a.svg", "b.svg"))
        for out in (a, b):
            self.assertEqual(plot.main(["timeline", self.csv, self.csv, "-o", out]), 0)
        with open(a, "rb") as fa, open(b, "rb") as fb:
            data = fa.read()
            self.assertEqual(data, fb.read())
        self.assertIn(b"<svg", data)


class ParetoAxis(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def sweep(self, *extra):
        path = os.path.join(self.dir.name, "p%d.csv" % len(extra))
        ilpart("pareto", MLP, "--points", "3", "--bans", "none", "-o", path, *extra)
        return path

    def test_the_file_says_its_axis(self):
        self.assertEqual(plot.csv_axis(plot.read_points(self.sweep("--axis", "peak"))), "peak")
        self.assertEqual(plot.csv_axis(plot.read_points(self.sweep())), "saved")
        js = os.path.join(self.dir.name, "p.json")
        ilpart("pareto", MLP, "--points", "3", "--axis", "peak", "--json", "-o", js)
        self.assertEqual(plot.csv_axis(plot.read_points(js)), "peak")

    def test_older_files_without_the_column(self):
        with open(self.sweep("--axis", "peak")) as f:
            lines = [line.rsplit(",", 1)[0] for line in f.read().splitlines()]
        old = os.path.join(self.dir.name, "old.csv")
        with open(old, "w") as f:
            f.write("\n".join(lines) + "\n")
        points = plot.read_points(old)
        self.assertIsNone(plot.csv_axis(points))
        self.assertEqual(len(points), len(lines) - 1)

    @unittest.skipUnless(HAVE_MPL, "matplotlib not installed")
    def test_peak_curve_labelled_without_axis(self):
        out = os.path.join(self.dir.name, "p.svg")
        labels = []
        real = plot.plot

        def spy(points, outputs, title=None, axis="saved"):
            labels.append(axis)
            return real(points, outputs, title, axis)
        plot.plot = spy
        try:
            plot.main([self.sweep("--axis", "peak"), "-o", out])
            plot.main(["pareto", self.sweep(), "-o", out])
        finally:
            plot.plot = real
        self.assertEqual(labels, ["peak", "saved"])


if __name__ == "__main__":
    sys.exit(main("plot"))
