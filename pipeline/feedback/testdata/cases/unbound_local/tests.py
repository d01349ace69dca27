def check(candidate):
    assert candidate("hello") == 2
    assert candidate("xyz") == 0
