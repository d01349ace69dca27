# Capsule: EvalPlus's output comparison in plain Python (no numpy needed).
import math as _capsule_math


def _capsule_ndim(x):
    if not isinstance(x, (list, tuple)):
        return 0
    dims = {_capsule_ndim(v) for v in x}
    if len(dims) > 1:
        raise ValueError("allclose: ragged nested sequence")
    return 1 + (dims.pop() if dims else 0)


def _capsule_isclose(a, b, rtol, atol):
    for v in (a, b):
        if not isinstance(v, (bool, int, float, complex)):
            raise TypeError("allclose: unsupported operand type " + type(v).__name__)
    if a == b:
        return True
    if a != a or b != b or _capsule_math.isinf(abs(a)) or _capsule_math.isinf(abs(b)):
        return False
    return abs(a - b) <= atol + rtol * abs(b)


def _capsule_allclose(a, b, rtol=1e-05, atol=1e-08):
    # numpy.allclose for numbers and (nested) lists or tuples of numbers,
    # broadcasting like numpy does.
    na, nb = _capsule_ndim(a), _capsule_ndim(b)
    if na > nb:
        return all(_capsule_allclose(x, b, rtol, atol) for x in a)
    if nb > na:
        return all(_capsule_allclose(a, y, rtol, atol) for y in b)
    if na == 0:
        return _capsule_isclose(a, b, rtol, atol)
    if len(a) == len(b):
        pairs = zip(a, b)
    elif len(a) == 1:
        pairs = ((a[0], y) for y in b)
    elif len(b) == 1:
        pairs = ((x, b[0]) for x in a)
    else:
        raise ValueError("allclose: operands could not be broadcast together")
    return all(_capsule_allclose(x, y, rtol, atol) for x, y in pairs)


def _capsule_is_floats(x):
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)):
        return all(isinstance(i, float) for i in x)
    return False


def _capsule_matches(out, exp, atol):
    # Exact equality; for float results closeness within atol (at least 1e-6),
    # with numpy.allclose's rule and rtol=1e-07, as EvalPlus checks.
    try:
        if out == exp:
            return True
    except Exception:
        return False
    if atol == 0 and _capsule_is_floats(exp):
        atol = 1e-6
    if atol == 0:
        return False
    try:
        return bool(_capsule_allclose(out, exp, rtol=1e-07, atol=atol))
    except (TypeError, ValueError):
        return False
