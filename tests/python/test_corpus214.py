"""The torch 2.14 corpus (tests/data/corpus214): under the torch that made it, the generator
still makes the committed bytes (the exporter, its param flags and PyTorch's reference
partitions unchanged), and `ilpart mincut` gives PyTorch's saved set on the fresh export
at budget 1 and at each recorded budget. Skipped under another torch."""

import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

import torch

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(top, "scripts"))
import ilpart  # noqa: E402

FILES = sorted(glob.glob(os.path.join(top, "tests", "data", "corpus214", "*.json")))


def made_here():
    with open(FILES[0]) as f:
        return json.load(f)["meta"]["torch"] == torch.__version__


@unittest.skipUnless(FILES and made_here(), "corpus214 made with another torch version")
class Corpus214Test(unittest.TestCase):
    def test_generator_reproduces_committed_files(self):
        import gen_corpus214
        names = ["mlp", "dropout-sac", "scaled-mlp"]
        with tempfile.TemporaryDirectory() as d:
            gen_corpus214.export(d, set(names))
            for name in names:
                with open(os.path.join(top, "tests", "data", "corpus214", name + ".json")) as f:
                    committed = f.read()
                path = os.path.join(d, name + ".json")
                with open(path) as f:
                    made = f.read()
                # the exporter records the capture's device; the committed files keep
                # the cost model's default (no "device"), as tests/data/corpus does
                self.assertIn(' "device": "cpu",\n', made, name)
                self.assertEqual(made.replace(' "device": "cpu",\n', "", 1), committed, name)
                self.check_parity(path)

    def check_parity(self, path):
        g = json.load(open(path))
        refs = g.get("reference") or []
        self.assertTrue(refs, path)
        for r in refs:
            f = r["name"].split("-budget-")[1] if "-budget-" in r["name"] else None
            out = subprocess.run([ilpart.find_binary(), "mincut", path, "--no-check"] +
                                 (["--memory-budget", f] if f else []),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 universal_newlines=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(json.loads(out.stdout)["saved"], r["saved"],
                             "%s %s" % (os.path.basename(path), r["name"]))


if __name__ == "__main__":
    unittest.main()
