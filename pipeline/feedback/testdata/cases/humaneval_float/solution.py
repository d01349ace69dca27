def mean_absolute_deviation(numbers):
    mean = sum(numbers) / len(numbers)
    return sum(x - mean for x in numbers) / len(numbers)
