assert solve(2) == 4
