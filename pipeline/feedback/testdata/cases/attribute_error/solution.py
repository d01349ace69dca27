def sort_words(words):
    return words.sorted()
