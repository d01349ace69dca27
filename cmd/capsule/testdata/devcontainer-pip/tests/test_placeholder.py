def test_nothing_yet():
    pass
