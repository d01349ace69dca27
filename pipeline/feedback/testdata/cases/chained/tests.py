assert price("apple") == 3
assert price("plum") == 0
