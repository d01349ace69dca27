def check(candidate):
    assert candidate({"a": 1}) == 1
