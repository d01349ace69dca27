def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    assert len(ordered) % 2 == 1, "only odd lengths are handled"
    return ordered[middle]
