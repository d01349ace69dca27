def check(candidate):
    assert candidate(["b", "a"]) == ["a", "b"]
