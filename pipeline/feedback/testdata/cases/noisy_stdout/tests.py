assert digits_sum(123) == 6
assert digits_sum(-12) == 3
