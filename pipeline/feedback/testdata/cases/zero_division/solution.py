def ratio(values):
    return _safe_div(sum(values), len(values))


def _safe_div(a, b):
    return a / b
