import pytest

from calc.ops import add, div, mean


def test_add_small():
    assert add(1, 1) == 2


@pytest.mark.parametrize("a, b, want", [(2, 2, 4), (3, 4, 7), (10, 5, 15)])
def test_add(a, b, want):
    assert add(a, b) == want


def test_div():
    assert div(6, 3) == 2


def test_mean_empty():
    assert mean([]) == 0


def test_div_zero():
    assert div(1, 0) == 0


def test_mean():
    assert mean([1, 2, 3]) == 2
