def largest_prime_factor(n):
    largest = 1
    for candidate in range(2, n + 1):
        while n % candidate == 0:
            n //= candidate
            largest = candidate
        if n == 1:
            return largest // (n - candidate // candidate)
    return largest
