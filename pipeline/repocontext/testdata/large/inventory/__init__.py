"""Stock keeping for a small shop."""
