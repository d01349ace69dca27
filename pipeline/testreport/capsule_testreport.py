"""Capsule's per-test report: a pytest plugin (stdlib and pytest >= 7 only).

Loaded without changing the test command: the user site directory named by
PYTHONUSERBASE holds a dist-info whose entry points declare it under
[pytest11], and capsule_boot.py (run by a .pth line of that directory when
the interpreter starts) serves this module from its own directory only.

Each pytest session (also pytest.main inside a test, and pytest in a child
process) opens its own connection to the report channel, the Unix socket
named by CAPSULE_TEST_CHANNEL, and sends one JSON object per line:

    {"kind": "start", "rootdir": "/w", "pytest": "7.2.1"}
    {"kind": "collect-error", "path": "tests/test_x.py", "message": "...", "longrepr": "..."}
    {"kind": "collected", "count": 9}
    {"kind": "test", "file": "tests/test_x.py", "classes": ["TestA"], "name": "test_b",
     "params": "1-2", "outcome": "failed", "phase": "call", "duration": 0.01,
     "message": "assert 1 == 2", "longrepr": "..."}
    {"kind": "integrity", "check": "plugin", "detail": "...", "file": "/w/x.py", "line": 3}
    {"kind": "end", "exitstatus": 1, "stopped": ""}

The process and the session are the channel's to name (the peer's pid, the
connection). A session that starts and never sends its end record did not
finish (os._exit, a signal, a crash). Without CAPSULE_TEST_CHANNEL the
plugin does nothing; it reads the environment only when it is loaded.

Before the end record the session checks what no audit event covers, and
sends an integrity record for each failure:

    plugin    this module's globals and its functions' code are still those
              it was loaded with (checked after every test too)
    module    each collected test module is the one in sys.modules, loaded
              from the file collected, whose code ran (the boot saw it)
    hooks     no hook implementation was added since the session started,
              but those of conftest modules, of pytest and pluggy and of
              installed packages, and the plugin manager's callers are those
              of the start
    tripwire  this process's tripwire connection (capsule_boot.py) is still
              open and its own
    pytest    pytest's and pluggy's module functions and classes, and their
              classes' methods, are those they were when the plugin loaded
              (or the session started), but for replacements by installed
              packages
    channel   the session's connection was closed or replaced: the session
              goes on over a new connection, which starts with a start record

These checks run in the same interpreter as the code under test: what they
send is evidence, which Capsule checks, never proof.
"""

import json
import os
import sys

import _socket
import pytest

MESSAGE_MAX = 300
LONGREPR_MAX = 2000
INTEGRITY_MAX = 50

# The state of each test in progress, by nodeid, until its protocol ends.
_pending = {}

# The sessions running in this process, innermost last (a test may call
# pytest.main): each a dict with its connection and its checks' state.
_sessions = []

# Taken when the plugin is loaded: tests that clear os.environ or patch os
# (pyfakefs) or json change none of them.
_CHANNEL = os.environ.get("CAPSULE_TEST_CHANNEL", "")
_encode = json.JSONEncoder(default=str, ensure_ascii=True).encode
_fstat, _realpath, _basename, _dirname = os.fstat, os.path.realpath, os.path.basename, os.path.dirname
_FunctionType = type(lambda: None)
_modules = sys.modules
_unwrap_attrs = ("__func__", "__wrapped__")
_METHODS = (_FunctionType, classmethod, staticmethod, property)


def _connect(session):
    """Opens a connection for session and sends its start record. An
    earlier socket object lets go of its descriptor without closing it: the
    number may belong to another file by now."""
    old, session["sock"] = session["sock"], None
    if old is not None:
        old.detach()
    try:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        sock.connect(_CHANNEL)
        session["sock"], session["ino"] = sock, _fstat(sock.fileno()).st_ino
    except OSError:
        session["sock"] = None
        return
    _send(session, session["start"])


def _replaced(session):
    """Why the session's connection is no longer its own, or ''."""
    sock = session["sock"]
    try:
        fd = sock.fileno()
        if fd < 0 or _fstat(fd).st_ino != session["ino"]:
            return "the session's connection (descriptor %d) was closed or replaced" % fd
    except OSError as e:
        return "the session's connection was closed: %s" % e
    return ""


def _send(session, record):
    """Sends record over the session's connection: why it could not, or ''."""
    try:
        session["sock"].sendall((_encode(record) + "\n").encode("utf-8", "replace"))
    except OSError as e:
        return "the session's connection failed: %s" % e
    return ""


def _write(record):
    """Sends record in the innermost session. A connection that was closed
    or replaced is left: a new one starts the session again, says why, and
    carries the rest."""
    if not _sessions or _sessions[-1]["sock"] is None:
        return
    session = _sessions[-1]
    why = _replaced(session) or _send(session, record)
    if not why:
        return
    _connect(session)
    if session["sock"] is not None:
        _send(session, {"kind": "integrity", "check": "channel", "detail": why, "file": "", "line": 0})
        _send(session, record)


def _bound(text, limit):
    if len(text) <= limit:
        return text
    head = limit // 4
    return text[:head] + "\n[...]\n" + text[len(text) - (limit - head) :]


def _texts(report):
    """The one-line message and the bounded excerpt of a report's longrepr."""
    longrepr = report.longrepr
    if longrepr is None:
        return "", ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip
        reason = str(longrepr[2])
        return _bound(reason, MESSAGE_MAX), ""
    crash = getattr(longrepr, "reprcrash", None)
    message = getattr(crash, "message", "") if crash is not None else ""
    text = getattr(report, "longreprtext", "") or str(longrepr)
    if not message:
        lines = [l for l in text.splitlines() if l.strip()]
        message = lines[-1] if lines else ""
        if message.startswith("E "):
            message = message[1:]
    message = (message.strip().splitlines() or [""])[0]
    return _bound(message, MESSAGE_MAX), _bound(text, LONGREPR_MAX)


def _identity(item):
    file = item.nodeid.split("::", 1)[0]
    classes = []
    node = item.parent
    while node is not None and isinstance(node, pytest.Class):
        classes.insert(0, node.name)
        node = node.parent
    callspec = getattr(item, "callspec", None)
    name = getattr(item, "originalname", None) or item.name
    params = callspec.id if callspec is not None else ""
    if not params and name != item.name and item.name.startswith(name + "["):
        params = item.name[len(name) + 1 : -1]
    return {"file": file, "classes": classes, "name": name, "params": params}


# --- integrity checks ----------------------------------------------------------


def _where(obj):
    """The file and first line of the code behind obj, or ("", 0)."""
    for _ in range(10):
        inner = None
        for attr in _unwrap_attrs:
            try:
                inner = object.__getattribute__(obj, attr)
                break
            except Exception:
                pass
        if inner is None:
            break
        obj = inner
    code = getattr(obj, "__code__", None) if isinstance(obj, _FunctionType) else None
    if code is None:
        call = getattr(type(obj), "__call__", None)
        code = getattr(call, "__code__", None) if isinstance(call, _FunctionType) else None
    if code is None:
        return "", 0
    return str(code.co_filename), int(code.co_firstlineno)


def _fail(session, check, detail, obj=None, where=None):
    """Notes one failed check of session, once."""
    failures = session["failures"]
    if detail in failures or len(failures) >= INTEGRITY_MAX:
        return
    file, line = where or (_where(obj) if obj is not None else ("", 0))
    failures[detail] = {"kind": "integrity", "check": check, "detail": _bound(detail, MESSAGE_MAX), "file": file, "line": line}


def _code_of(fn):
    return (fn.__code__, fn.__defaults__, fn.__kwdefaults__)


def _check_plugin(session, code=True):
    """This module's globals and functions (their code too, unless not
    code: after each test, where a change of code is an audit event) are
    those it was loaded with."""
    now = globals()
    for name, value in _GLOBALS.items():
        current = now.get(name, _GLOBALS)
        if current is not value:
            _fail(session, "plugin", "the plugin's global %s was rebound" % name, obj=current)
    if len(now) != len(_GLOBALS):
        for name in now:
            if name not in _GLOBALS and not name.startswith("__"):
                _fail(session, "plugin", "the plugin's global %s was added" % name, obj=now[name])
    for fn, was in _CODE if code else ():
        if _code_of(fn) != was:
            _fail(session, "plugin", "the code of the plugin's %s was replaced" % fn.__name__, obj=fn)


def _same_file(a, b):
    try:
        return a == b or _realpath(a) == _realpath(b)
    except (TypeError, ValueError):
        return False


def _check_modules(session, items):
    """Each collected test module is the one imported from its file, whose
    code ran in this process."""
    modules = {}
    for item in items:
        module = item.getparent(pytest.Module)
        obj = getattr(item, "obj", None)
        if module is None or obj is None:
            continue
        modules.setdefault(id(module), (module, []))[1].append(obj)
    for module, tests in modules.values():
        path = str(module.path)
        mod = module.__dict__.get("_obj")
        if mod is None:
            continue
        name = getattr(mod, "__name__", "?")
        if _modules.get(name) is not mod:
            _fail(session, "module", "sys.modules[%r] is not the module collected from %s" % (name, path), where=(path, 0))
        spec = getattr(mod, "__spec__", None)
        origin = getattr(spec, "origin", None)
        if not _same_file(str(origin), path) or not _same_file(str(getattr(mod, "__file__", "")), path):
            _fail(session, "module", "test module %s was not loaded from %s (its origin: %s)" % (name, path, origin), where=(path, 0))
        ran = globals().get("_capsule_executed")
        if ran is not None and not ran(path) and not ran(_realpath(path)):
            file, line = next((p for p in map(_where, tests) if p[0]), (path, 0))
            _fail(session, "module", "the code of %s never ran in this process: its tests (the first: %s:%d) come from elsewhere" %
                  (path, file, line), where=(file, line))


def _own(fn):
    """Whether fn is pytest's or pluggy's own code, or an installed plugin's."""
    file = _where(fn)[0]
    return any(file.startswith(d) for d in _PYTEST_DIRS) or "/site-packages/" in file or "/dist-packages/" in file


def _hookimpls(pm):
    impls = {}
    for name, caller in list(vars(pm.hook).items()):
        get = getattr(caller, "get_hookimpls", None)
        if get is None:
            continue
        for impl in get():
            impls[(name, id(impl.function), id(impl.plugin))] = impl
    return impls


def _hookexecs(pm):
    """The functions by which pm calls its hooks (their identities)."""
    execs = {"": id(getattr(pm, "_inner_hookexec", None))}
    for name, caller in list(vars(pm.hook).items()):
        execs[name] = id(getattr(caller, "_hookexec", None))
    return execs


def _check_hooks(session, config):
    pm = config.pluginmanager
    conftests = getattr(pm, "_conftest_plugins", set())
    for key, impl in _hookimpls(pm).items():
        if key in session["hooks"]:
            continue
        plugin = impl.plugin
        if plugin in conftests or _basename(str(getattr(plugin, "__file__", ""))) == "conftest.py" or _own(impl.function):
            continue
        _fail(session, "hooks", "a %s hook was added during the session (plugin %s)" % (key[0], impl.plugin_name), obj=impl.function)
    now = _hookexecs(pm)
    if any(now.get(name) != ident for name, ident in session["hookexec"].items()):
        _fail(session, "hooks", "the plugin manager's hook caller was replaced", obj=getattr(pm, "_inner_hookexec", None))


def _runner_modules():
    """The modules of pytest and pluggy loaded now."""
    return [m for name, m in list(_modules.items())
            if m is not None and (name in ("pytest", "_pytest", "pluggy") or name.startswith(("_pytest.", "pluggy.")))]


def _runner_snapshot(into):
    """Adds to into, by (module, name) and (module, class, name), the
    functions and classes of pytest's and pluggy's modules and the
    methods of their classes, for the modules not in it yet."""
    for m in _runner_modules():
        mname = m.__name__
        if (mname, None) in into:
            continue
        into[(mname, None)] = m
        for name, value in list(vars(m).items()):
            if isinstance(value, (_FunctionType, type)):
                into[(mname, name)] = value
                if isinstance(value, type) and value.__module__ == mname:
                    for attr, member in list(vars(value).items()):
                        if isinstance(member, _METHODS) and (not attr.startswith("__") or attr in ("__init__", "__call__", "__new__")):
                            into[(mname, name, attr)] = member
    return into


def _check_runner(session):
    """pytest's and pluggy's functions and classes are those they were."""
    for key, value in _RUNNER.items():
        if key[1] is None:
            continue
        holder = vars(_RUNNER[(key[0], None)]) if len(key) == 2 else vars(_RUNNER[key[:2]])
        current = holder.get(key[-1], _RUNNER)
        if current is not value and not _own(current):
            _fail(session, "pytest", "pytest's %s was replaced" % ".".join(key), obj=current)


def _check_tripwire(session):
    beat = globals().get("_capsule_tripwire")
    if beat is None:
        _fail(session, "tripwire", "the plugin was not loaded by the tripwire's boot")
        return
    try:
        why = beat()
    except Exception as e:
        why = "the tripwire's check failed: %s" % type(e).__name__
    if why:
        _fail(session, "tripwire", why)


# --- the hooks --------------------------------------------------------------------


def pytest_sessionstart(session):
    if not _CHANNEL:
        return
    state = {
        "sock": None,
        "ino": None,
        "start": {"kind": "start", "rootdir": str(session.config.rootpath), "pytest": pytest.__version__},
        "failures": {},
        "hooks": _hookimpls(session.config.pluginmanager),
        "hookexec": _hookexecs(session.config.pluginmanager),
    }
    _runner_snapshot(_RUNNER)
    _sessions.append(state)
    _connect(state)


def pytest_collectreport(report):
    if report.failed and _sessions:
        message, longrepr = _texts(report)
        _write({"kind": "collect-error", "path": report.nodeid, "message": message, "longrepr": longrepr})


def pytest_collection_finish(session):
    if _sessions:
        _write({"kind": "collected", "count": len(session.items)})


def _outcome(report):
    """The test's outcome as one phase reports it, or None when the phase
    changes nothing (a passing set-up or teardown)."""
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.passed:
            return "xpassed" if xfail else "passed"
        if report.skipped:
            return "xfailed" if xfail else "skipped"
        return "failed"
    if report.failed:
        return "error"
    if report.skipped:
        return "xfailed" if xfail else "skipped"
    return None


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report):
    state = _pending.get(report.nodeid)
    if state is None or report.when not in ("setup", "call", "teardown"):
        return
    state["duration"] += getattr(report, "duration", 0.0) or 0.0
    outcome = _outcome(report)
    # A teardown error does not hide a failure of the test itself.
    if outcome is not None and not (outcome == "error" and state["outcome"] == "failed"):
        state["outcome"], state["phase"] = outcome, report.when
        state["message"], state["longrepr"] = _texts(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not _sessions:
        yield
        return
    state = {"outcome": "passed", "phase": "", "duration": 0.0, "message": "", "longrepr": ""}
    _pending[item.nodeid] = state
    yield
    _pending.pop(item.nodeid, None)
    if state["outcome"] not in ("error", "failed"):
        state["phase"] = ""
    state["duration"] = round(state["duration"], 6)
    record = {"kind": "test"}
    record.update(_identity(item))
    record.update(state)
    _check_plugin(_sessions[-1], code=False)
    _write(record)


def pytest_sessionfinish(session, exitstatus):
    if not _sessions:
        return
    state = _sessions[-1]
    for check in (
        lambda: _check_plugin(state),
        lambda: _check_modules(state, session.items),
        lambda: _check_hooks(state, session.config),
        lambda: _check_tripwire(state),
        lambda: _check_runner(state),
    ):
        try:
            check()
        except Exception as e:  # a check that cannot run is a failure too
            _fail(state, "plugin", "an integrity check failed: %s: %s" % (type(e).__name__, e))
    for record in state["failures"].values():
        _write(record)
    stopped = session.shouldfail or session.shouldstop
    _write({"kind": "end", "exitstatus": int(exitstatus), "stopped": str(stopped) if stopped else ""})
    _sessions.pop()
    if state["sock"] is not None:
        try:
            state["sock"].close()
        except OSError:
            pass


# What the plugin and the runner were loaded with, which the checks compare
# against (the runner's modules imported later are added when a session
# starts).
_RUNNER = _runner_snapshot({})
_PYTEST_DIRS = tuple(_dirname(str(m.__file__)) + "/" for m in (sys.modules["_pytest"], sys.modules["pluggy"]))
_CODE = tuple((fn, _code_of(fn)) for fn in list(globals().values()) if isinstance(fn, _FunctionType) and fn.__module__ == __name__)
_GLOBALS = {}
_GLOBALS.update(globals())
