"""What the torch-free tests (test_*_notorch.py) share: the repository's paths, the ilpart
package on sys.path, and a runner that ends with the line "LABEL: N passed, N failed" that
tests/python_notorch.sh adds up. Standard library only."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
PYDIR = os.path.join(TOP, "python")
if PYDIR not in sys.path:
    sys.path.insert(0, PYDIR)

SEED = os.path.join(TOP, "examples", "seed_float8_sac.json")
SEED_POLICY = os.path.join(TOP, "examples", "policies", "seed_mm_only.json")


def main(label):
    """Run the calling script's tests; exit status 1 on any failure or when none ran."""
    result = unittest.main(module="__main__", exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    passed = result.testsRun - failed - len(result.skipped)
    print("%s: %d passed, %d failed" % (label, passed, failed))
    return 1 if failed or passed == 0 else 0
