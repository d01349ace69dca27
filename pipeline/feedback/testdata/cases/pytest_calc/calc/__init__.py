"""A tiny calculator package."""
