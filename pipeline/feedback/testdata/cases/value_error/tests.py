def check(candidate):
    assert candidate('o o| .| o') == [4, 2, 1, 4]
