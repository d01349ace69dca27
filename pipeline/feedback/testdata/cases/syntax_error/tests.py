def check(candidate):
    assert candidate([1, -2]) is True
