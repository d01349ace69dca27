def vowels_count(text):
    return sum(ch in "aeiou" for ch in text)
