def count_vowels(text):
    total = 0
    for ch in text:
        if ch in "aeiou":
            totl += 1
    return total
