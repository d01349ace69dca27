

# Capsule: run the TestCases above with unittest; the report goes to stderr.
import sys as _capsule_sys
import unittest as _capsule_unittest


class CapsuleTestsFailed(Exception):
    """Some tests failed: unittest's report above says which and how."""


def _capsule_run_tests(first_only):
    loader = _capsule_unittest.TestLoader()
    names = [name for name, value in vars(TestCases).items()
             if name.startswith(loader.testMethodPrefix) and callable(value)]
    if first_only and names:
        suite = _capsule_unittest.TestSuite([TestCases(names[0])])
    else:
        suite = loader.loadTestsFromTestCase(TestCases)
    runner = _capsule_unittest.TextTestRunner(stream=_capsule_sys.stderr)
    result = runner.run(suite)
    if not result.wasSuccessful():
        failed = (len(result.failures) + len(result.errors)
                  + len(result.unexpectedSuccesses))
        raise CapsuleTestsFailed("%d of %d tests failed" % (failed, result.testsRun))


_capsule_run_tests(FIRST_ONLY)
