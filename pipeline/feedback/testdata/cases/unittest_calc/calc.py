def add(a, b):
    return a + b + 1 if a > 1 else a + b


def div(a, b):
    return a / b


def words(text):
    return text.split(",")
