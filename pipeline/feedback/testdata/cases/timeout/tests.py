def check(candidate):
    assert candidate(5)
    assert not candidate(9)
