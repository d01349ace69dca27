def check(candidate):
    assert candidate('{"name": "x"}') == "x"
    assert candidate("{name: 'y'}") == "y"
