"""A tiny calculator."""

from .ops import add, divide

__all__ = ["add", "divide"]
