assert roman(1) == "I"
assert roman(4) == "IV"
