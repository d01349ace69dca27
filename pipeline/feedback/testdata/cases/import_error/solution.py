import numpy as np


def average(values):
    return float(np.mean(values))
