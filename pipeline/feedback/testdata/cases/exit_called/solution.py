import sys


def solve(n):
    if n < 0:
        print("negative input")
        sys.exit(2)
    return n * 2
