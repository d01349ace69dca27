def roman(n):
    table = {1: "I", 5: "V", 10: "X"}
    return table[n]
