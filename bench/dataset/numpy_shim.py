

class _capsule_numpy:
    # Capsule: the part of numpy EvalPlus's tests use, for when numpy is absent.
    ndarray = type("ndarray", (), {})
    float64 = float
    float32 = float
    allclose = staticmethod(_capsule_allclose)


try:
    import numpy as np
except ImportError:
    np = _capsule_numpy
