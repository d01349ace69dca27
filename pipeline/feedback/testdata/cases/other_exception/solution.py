import statistics


def spread(values):
    return statistics.mean(values) - min(values, default=0)
