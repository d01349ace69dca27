"""Arithmetic on numbers."""


def add(a, b):
    """Return a + b."""
    return a + b


def divide(a, b):
    """Return a / b; dividing by zero raises ValueError."""
    if b == 0:
        raise ValueError("cannot divide by zero")
    return a / b
