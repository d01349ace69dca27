import collections


def task_func(words):
    counts = collections.Counter(words)
    return counts.most_common(1)[0][0]
