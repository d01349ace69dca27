def concatenate(strings):
    return "".join(strings, "")
