#!/usr/bin/env python3
"""Builds a wheel of a pure-Python package from its source tree, offline,
with the standard library alone: the package directory, and a dist-info
made from pyproject.toml's [project] (name, version, requires-python,
dependencies). For the set-up cache's demonstration
(scripts/setup-cache-demo.sh), which serves a local index of such wheels;
C sources and compiled files are left out (MarkupSafe falls back to its
pure-Python code).

    scripts/purewheel.py SOURCE PACKAGE_DIR OUT_DIR [VERSION]
"""
import base64
import hashlib
import os
import re
import sys
import tomllib
import zipfile


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main(source, package_dir, out, version=None):
    with open(os.path.join(source, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    name = project["name"]
    version = version or project.get("version")
    if version is None:  # a dynamic version: __version__ in the package
        init = open(os.path.join(source, package_dir, "__init__.py")).read()
        version = re.search(r'__version__\s*=\s*["\']([^"\']+)', init).group(1)
    dist = re.sub(r"[-_.]+", "_", name).lower()
    info = f"{dist}-{version}.dist-info"
    files = {}
    root = os.path.join(source, package_dir)
    top = os.path.basename(package_dir.rstrip("/"))
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for fn in sorted(filenames):
            if fn.endswith((".c", ".so", ".pyc", ".pyd", ".h")):
                continue
            path = os.path.join(dirpath, fn)
            arc = os.path.join(top, os.path.relpath(path, root)).replace(os.sep, "/")
            files[arc] = open(path, "rb").read()
    meta = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if "requires-python" in project:
        meta.append(f"Requires-Python: {project['requires-python']}")
    meta += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    files[f"{info}/METADATA"] = ("\n".join(meta) + "\n").encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: capsule-purewheel\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    os.makedirs(out, exist_ok=True)
    whl = os.path.join(out, f"{dist}-{version}-py3-none-any.whl")
    with zipfile.ZipFile(whl, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            z.writestr(n, d)
    print(whl)


if __name__ == "__main__":
    main(*sys.argv[1:])
