"""Run the bridge tests (unittest discovery in this directory) and end with the line
"python: N passed, N failed[, N skipped]" that scripts/python-tests.sh adds up, after one
"skipped: TEST: REASON" line per skipped test. Exit status 1 on any failure."""

import os
import sys
import unittest


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    pattern = sys.argv[1] if len(sys.argv) > 1 else "test*.py"
    # torch warns once per process that SAC context_fn under compile must avoid in-place
    # ops; the tests use SAC on purpose.
    import logging
    logging.getLogger("torch._higher_order_ops.wrap").setLevel(logging.ERROR)
    suite = unittest.defaultTestLoader.discover(here, pattern=pattern, top_level_dir=here)
    try:
        import torch
        print("torch %s" % torch.__version__)
    except ImportError:
        pass
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    # Tests that need a feature of another torch version skip; say which and why.
    for test, reason in result.skipped:
        print("skipped: %s: %s" % (test.id(), reason))
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    print("python: %d passed, %d failed%s" % (passed, failed,
                                                ", %d skipped" % skipped if skipped else ""))
    return 1 if failed or result.testsRun == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
