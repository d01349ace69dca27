def check(candidate):
    assert candidate(3.5) == 0.5
