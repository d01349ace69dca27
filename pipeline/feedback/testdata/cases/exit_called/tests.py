assert solve(2) == 4
assert solve(-1) == -2
