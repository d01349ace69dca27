"""A small calculator library: the example repository for `capsule solve`."""

from calc.stats import mean, median
from calc.ops import add, divide

__all__ = ["add", "divide", "mean", "median"]
