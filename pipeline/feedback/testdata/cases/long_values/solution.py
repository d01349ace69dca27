def squares(n):
    return [i * i for i in range(n + 1)]
