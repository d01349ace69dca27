def is_prime(n):
    k = 2
    while k * k <= n:
        if n % k == 0:
            return False
    return n > 1
