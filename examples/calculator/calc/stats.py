"""Statistics over lists of numbers."""

from calc.ops import divide


def mean(values):
    """Return the arithmetic mean of values."""
    return divide(sum(values), len(values))


def median(values):
    """Return the middle value of values (the mean of the two middle ones
    when there is an even number of them)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return mean(ordered[middle - 1 : middle + 1])
