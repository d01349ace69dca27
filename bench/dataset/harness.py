# Capsule test for {{.EntryPoint}}: calls it on EvalPlus's inputs and compares
# each result with the dataset's canonical solution.
import copy as _capsule_copy
import json as _capsule_json

_CAPSULE_INPUTS = [args for part in ({{range .Inputs}}{{py .}}, {{end}}) for args in _capsule_json.loads(part)]
_CAPSULE_ATOL = {{.Atol}}
_CAPSULE_REFERENCE = {{py .Reference}}


def _capsule_reference():
    namespace = {"__name__": "_capsule_reference"}
    exec(_CAPSULE_REFERENCE, namespace)
    return namespace[{{py .EntryPoint}}]


def _capsule_short(value, limit=200):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _capsule_fail(args, got, want):
    call = "{{.EntryPoint}}(" + ", ".join(_capsule_short(a) for a in args) + ")"
    raise AssertionError(call + " returned " + _capsule_short(got) + ", expected " + want)


def _capsule_poly(xs, x):
    return sum(c * _capsule_math.pow(x, i) for i, c in enumerate(xs))


def check(candidate):
{{- if .PolyRoot}}
    for args in _CAPSULE_INPUTS:
        got = candidate(*_capsule_copy.deepcopy(args))
        if not abs(_capsule_poly(args[0], got)) <= _CAPSULE_ATOL:
            _capsule_fail(args, got, "a root x with |poly(xs, x)| <= " + repr(_CAPSULE_ATOL))
{{- else}}
    reference = _capsule_reference()
    for args in _CAPSULE_INPUTS:
        got = candidate(*_capsule_copy.deepcopy(args))
        expected = reference(*_capsule_copy.deepcopy(args))
        if not _capsule_matches(got, expected, _CAPSULE_ATOL):
            _capsule_fail(args, got, _capsule_short(expected))
{{- end}}
