assert spread([1, 2, 3]) == 1
assert spread([]) == 0
