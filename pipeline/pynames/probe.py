# Lists the top-level module names the interpreter can import: the standard
# library's, the built-in modules and every module or package on sys.path.
# Run isolated (python3 -I) from /, so that no workspace, user site or
# PYTHONPATH entry is on the path. Prints one JSON object.
import importlib.machinery, json, os, sys

names, seen = set(), set()
suffixes = sorted(importlib.machinery.all_suffixes(), key=len, reverse=True)
for d in sys.path:
    if not d or not os.path.isdir(d) or d in seen:
        continue
    seen.add(d)
    for e in os.listdir(d):
        if os.path.isdir(os.path.join(d, e)):
            if e.isidentifier() and e != "__pycache__":
                names.add(e)
            continue
        for s in suffixes:
            if e.endswith(s) and e[: -len(s)].isidentifier():
                names.add(e[: -len(s)])
                break
std = set(getattr(sys, "stdlib_module_names", ()))
print(json.dumps({
    "version": sys.version.split()[0],
    "stdlib": sorted(std),
    "builtin": sorted(sys.builtin_module_names),
    "installed": sorted(names - std),
}))
