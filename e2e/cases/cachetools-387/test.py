import unittest
import unittest.mock
import warnings

from .test_cachedmethod import Cached


class AutospecTest(unittest.TestCase):
    def test_autospec_no_warnings(self):

        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")

            _ = unittest.mock.create_autospec(Cached, instance=True)

        self.assertEqual(len(w), 0)
