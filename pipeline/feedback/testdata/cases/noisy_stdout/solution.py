def digits_sum(n):
    total = 0
    for d in str(n):
        print("digit", d)
        total += int(d)
    return total


for n in range(5):
    print(digits_sum(n))
