"""Capsule's per-test report: a pytest plugin (stdlib and pytest >= 7 only).

Loaded without changing the test command, through the environment:

    PYTEST_ADDOPTS="-p capsule_testreport" PYTHONPATH=<this directory>

It appends one JSON object per line to the file named by CAPSULE_TEST_REPORT,
each line written whole with one write to a descriptor opened O_APPEND, so
that several pytest processes of one command add to the same file:

    {"kind": "start", "pid": 7, "session": 1, "rootdir": "/w", "pytest": "7.2.1"}
    {"kind": "collect-error", "pid": 7, "session": 1, "path": "tests/test_x.py", ...}
    {"kind": "collected", "pid": 7, "session": 1, "count": 9}
    {"kind": "test", "pid": 7, "session": 1, "file": "tests/test_x.py",
     "classes": ["TestA"], "name": "test_b", "params": "1-2", "outcome": "failed",
     "phase": "call", "duration": 0.01, "message": "assert 1 == 2", "longrepr": "..."}
    {"kind": "end", "pid": 7, "session": 1, "exitstatus": 1, "stopped": ""}

A session that starts and never writes its end record did not finish
(os._exit, a signal, a crash). Without CAPSULE_TEST_REPORT the plugin
does nothing. The file is written by the same interpreter as the code under
test: it is evidence, which Capsule checks, never proof.
"""

import json
import os

import pytest

REPORT_ENV = "CAPSULE_TEST_REPORT"
MESSAGE_MAX = 300
LONGREPR_MAX = 2000

# The state of each test in progress, by nodeid, until its protocol ends.
_pending = {}

# The sessions running in this process, innermost last (a test may call
# pytest.main), numbered from 1 in the order they started.
_sessions = []
_started = 0


# The report file and the functions that write it, taken when the plugin is
# loaded: tests that clear os.environ or patch os (pyfakefs) change neither.
_PATH = os.environ.get(REPORT_ENV, "")
_getpid, _makedirs, _open, _write_fd, _close = os.getpid, os.makedirs, os.open, os.write, os.close


def _path():
    return _PATH


def _write(record):
    record["pid"] = _getpid()
    record["session"] = _sessions[-1] if _sessions else 0
    line = (json.dumps(record, default=str) + "\n").encode("utf-8", "replace")
    try:
        parent = os.path.dirname(_PATH)
        if parent:
            _makedirs(parent, exist_ok=True)
        fd = _open(_PATH, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            _write_fd(fd, line)
        finally:
            _close(fd)
    except OSError:
        pass  # a missing record is caught on the reading side


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


def pytest_sessionstart(session):
    global _started
    if _path():
        _started += 1
        _sessions.append(_started)
        _write({"kind": "start", "rootdir": str(session.config.rootpath), "pytest": pytest.__version__})


def pytest_collectreport(report):
    if report.failed and _path():
        message, longrepr = _texts(report)
        _write({"kind": "collect-error", "path": report.nodeid, "message": message, "longrepr": longrepr})


def pytest_collection_finish(session):
    if _path():
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
    if not _path():
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
    _write(record)


def pytest_sessionfinish(session, exitstatus):
    if _path():
        stopped = session.shouldfail or session.shouldstop
        _write({"kind": "end", "exitstatus": int(exitstatus), "stopped": str(stopped) if stopped else ""})
        if _sessions:
            _sessions.pop()
