for word, want in [("abcabc", "a"), ("abc", "None"), ("123123", "1")]:
    got = first_repeated_char(word)
    assert got == want, f"first_repeated_char({word!r}): expected {want!r}, got {got!r}"
