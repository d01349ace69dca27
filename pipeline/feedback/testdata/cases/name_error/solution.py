def count_vowels(text):
    vowels = "aeiou"
    count = 0
    for ch in text:
        if ch in vowel:
            count += 1
    return count
