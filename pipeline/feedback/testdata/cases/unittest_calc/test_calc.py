import unittest

from calc import add, div, words


class TestCalc(unittest.TestCase):
    def test_add_small(self):
        self.assertEqual(add(1, 1), 2)

    def test_add(self):
        self.assertEqual(add(2, 2), 4)

    def test_add_more(self):
        self.assertEqual(add(3, 4), 7)

    def test_div_zero(self):
        self.assertEqual(div(1, 0), 0)

    def test_words(self):
        self.assertEqual(words("a b,c"), ["a", "b", "c"])


if __name__ == "__main__":
    unittest.main()
