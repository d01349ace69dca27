import sys

from . import ops

SYMBOLS = {"+": ops.add, "/": ops.divide}


def main(argv):
    a, op, b = argv
    print(SYMBOLS[op](float(a), float(b)))


if __name__ == "__main__":
    main(sys.argv[1:])
