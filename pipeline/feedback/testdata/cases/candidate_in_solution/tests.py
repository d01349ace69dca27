METADATA = {}


def check(candidate):
    assert candidate(15) == 5
    assert candidate(13195) == 29
