def check(candidate):
    assert candidate(0) == [0]
    got = candidate(200)
    assert got == [i * i for i in range(200)], f"got {got}"
