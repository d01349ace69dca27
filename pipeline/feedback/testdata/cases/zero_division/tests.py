assert ratio([2, 4]) == 3
assert ratio([]) == 0
