def last_two(values):
    return [values[len(values)], values[len(values) - 1]]
