def check(candidate):
    assert candidate("hello") == 2
