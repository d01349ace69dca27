"""Capsule: give matplotlib the font cache built into this image.

The sandbox starts every run with an empty HOME, and matplotlib rebuilds
its font cache (about a second) when it finds none there. This module, run
at start-up by capsule_matplotlib.pth, copies the cache the image build
made into HOME's cache folder first. It does nothing when MPLCONFIGDIR is
set or the cache is already there, and never fails the interpreter.
"""

import os
import shutil

PREBUILT = "/usr/local/share/capsule/matplotlib"


def _install():
    home = os.environ.get("HOME")
    if not home or os.environ.get("MPLCONFIGDIR"):
        return
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    target = os.path.join(cache, "matplotlib")
    if os.path.isdir(target) or not os.path.isdir(PREBUILT):
        return
    try:
        shutil.copytree(PREBUILT, target)
    except OSError:
        pass


_install()
