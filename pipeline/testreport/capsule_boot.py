"""Capsule's boot: the tripwire, and the loader of the pytest plugin.

Executed by the line of capsule_tripwire.pth in the user site directory
(PYTHONUSERBASE), while the site module starts the interpreter: before any
repository code runs and before the working directory is on sys.path. It is
run by absolute path, never imported, and imports what it needs with
sys.path limited to the standard library's own directories, so no file of
the workspace or of PYTHONPATH can take the place of what it uses. Without
CAPSULE_TEST_CHANNEL it does nothing.

It installs two things:

- A finder that serves the module capsule_testreport (the pytest plugin,
  named in the entry points of the user site's dist-info) only from the
  capsule_testreport.py next to this file. It stays first on sys.meta_path
  (a finder inserted at position 0 later, such as pytest's assertion
  rewriter, goes after it), so no file of the workspace can stand in for
  the plugin, with sys.path limited to the standard library's and the
  installed packages' directories while it runs. The plugin module gets two
  functions: _capsule_tripwire says
  whether this process's tripwire connection is still its own, and
  _capsule_executed whether a file's code ran as a module in this process
  (the "exec" events of module code), which a module put in sys.modules in
  its place never did.

- A tripwire: a PEP 578 audit hook, which cannot be removed. It opens one
  connection to the report channel (the Unix socket named by
  CAPSULE_TEST_CHANNEL), sends {"kind": "tripwire", ...}, then one
  {"kind": "audit", "event": ..., "file": ..., "line": ..., "detail": ...}
  per event by which code reaches into the runner, deduplicated per
  (event, file, line), at most 1000 per process. A forked child opens its
  own connection. The audited events (those Python 3.8 to 3.13 raise):

    gc.get_objects, gc.get_referrers, gc.get_referents   object walks
    ctypes.* (dlopen, dlsym, addressof, string_at, cdata, call_function, ...)
    sys._getframe, sys._current_frames, sys.settrace, sys.setprofile,
    sys.addaudithook
    object.__setattr__ of a function's __code__, __defaults__, __kwdefaults__
        (of a function of the runner, the helpers, the standard library or
        an installed package, or the __code__ of a test file's function)
    open, os.truncate, os.remove, os.rename, os.symlink, os.link, os.chmod,
    os.listdir, os.scandir
        of the channel's socket or directory, of the helper files, or of
        /proc/<pid>/mem or /proc/<pid>/fd
    socket.connect to the channel's socket
    socket.__new__ of a socket object over an existing descriptor
        (socket.socket(fileno=n)), how code takes hold of a connection
    import of capsule_testreport by any code but pytest's loading of it
        (pluggy's entry points, pytest's -p): the finder records it

  Attribution, which frame counts: for sys._getframe and object.__setattr__,
  only the frame that called it (so the standard library's own calls, from
  namedtuple, typing, logging, dataclasses, enum, on behalf of a workspace
  file, record nothing); for every other event, the innermost frame whose file is under
  the workspace (/capsule/workspace, the working tree). An event with no
  workspace frame on the stack (the runner's or an installed package's own
  doing) is not recorded.

Writes to sys.modules, to module or class attributes and calls such as
pluginmanager.register raise no audit event: the plugin checks those at the
end of each session. The hook and the finder keep what they use in
closures, not in any module; but they live in the interpreter that runs the
code under test, which can still reach them (without raising an event only
through paths Python does not audit): what they send is evidence, not
proof. The hook never raises into the code under test.

With CAPSULE_TRIPWIRE=off (Capsule's own tests, which show the other
defences holding alone) the boot installs the finder without the tripwire:
the sessions of that interpreter are then reported as unwatched.
"""


def _capsule_boot(boot_file):
    import sys

    os = sys.modules["os"]  # imported by site before any .pth line
    environ = os.environ
    channel = environ.get("CAPSULE_TEST_CHANNEL", "")
    if not channel:
        return
    watch = environ.get("CAPSULE_TRIPWIRE", "") != "off"
    helper_dir = os.path.dirname(os.path.abspath(boot_file))
    plugin_file = os.path.join(helper_dir, "capsule_testreport.py")
    plugin_name = "capsule_testreport"
    helper_prefix = helper_dir + "/"
    workspace = "/capsule/workspace"

    # Import only from the standard library's directories.
    stdlib = os.path.dirname(os.__file__)
    stdzip = os.path.join(os.path.dirname(stdlib), "python%d%d.zip" % sys.version_info[:2])

    def installed(entry):
        """Whether the sys.path entry is the standard library's or an
        installed packages' directory, never the workspace's."""
        return entry == stdlib or entry.startswith(stdlib + "/") or entry == stdzip or (
            entry.endswith(("/site-packages", "/dist-packages")) and not entry.startswith(workspace + "/"))

    saved = sys.path[:]
    sys.path[:] = [p for p in saved if installed(p) and "-packages" not in p]
    try:
        import _socket
        import _thread
    finally:
        sys.path[:] = saved

    external = sys.modules["_frozen_importlib_external"]
    FunctionType = type(_capsule_boot)
    getframe = sys._getframe
    fstat, getpid, fspath, abspath, realpath = os.fstat, os.getpid, os.fspath, os.path.abspath, os.path.realpath
    basename = os.path.basename

    # --- the tripwire's connection -----------------------------------------

    escapes = {i: "\\u%04x" % i for i in range(32)}
    escapes.update({ord('"'): '\\"', ord("\\"): "\\\\"})

    def quote(s):
        return '"' + str(s).translate(escapes) + '"'

    header = '{"kind":"tripwire","python":%s,"executable":%s}\n' % (
        quote("%d.%d.%d" % sys.version_info[:3]),
        quote(sys.executable),
    )
    max_records = 1000
    max_detail = 300
    conn = {"sock": None, "ino": None, "pid": 0}
    seen = set()
    lock = _thread.allocate_lock()

    def connect():
        """Opens this process's tripwire connection; None when it cannot.
        An earlier socket object lets go of its descriptor without closing
        it: the number may belong to another file by now."""
        old = conn["sock"]
        conn["sock"] = None
        if old is not None:
            try:
                old.detach()
            except Exception:
                pass
        try:
            sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
            sock.connect(channel)
            sock.sendall(header.encode("utf-8", "replace"))
            conn["ino"] = fstat(sock.fileno()).st_ino
            conn["sock"] = sock
        except Exception:
            conn["sock"] = None
        conn["pid"] = getpid()

    def intact():
        """Why this process's tripwire connection is no longer its own, or ''."""
        sock = conn["sock"]
        if sock is None:
            return "the tripwire could not connect to the channel"
        try:
            fd = sock.fileno()
            if fd < 0 or fstat(fd).st_ino != conn["ino"]:
                return "the tripwire's socket was closed or replaced (descriptor %d)" % fd
            sock.send(b"")
            if sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_ERROR):
                return "the tripwire's socket has an error"
        except Exception as e:
            return "the tripwire's socket was closed or replaced: %s" % type(e).__name__
        return ""

    def send(event, file, line, detail):
        key = (event, file, line)
        if key in seen or len(seen) >= max_records:
            return
        seen.add(key)
        if len(detail) > max_detail:
            detail = detail[:max_detail] + " [...]"
        data = ('{"kind":"audit","event":%s,"file":%s,"line":%d,"detail":%s}\n' % (
            quote(event), quote(file), line, quote(detail))).encode("utf-8", "replace")
        if not lock.acquire(True, 2.0):
            return
        try:
            if conn["sock"] is None or intact():
                # Closed or replaced: a new connection carries the record
                # and says what became of the old one.
                lost = conn["sock"] is not None
                connect()
                if lost and conn["sock"] is not None:
                    conn["sock"].sendall(('{"kind":"audit","event":"capsule.tripwire-lost","file":"","line":0,"detail":%s}\n'
                                          % quote("the tripwire's earlier connection was closed or replaced")).encode())
            if conn["sock"] is not None:
                conn["sock"].sendall(data)
        except Exception:
            pass
        finally:
            lock.release()

    def after_fork():
        nonlocal lock
        lock = _thread.allocate_lock()
        seen.clear()
        # The parent's connection, inherited: closed here when it is still
        # the tripwire's, so that it ends with the parent.
        if conn["sock"] is not None and not intact():
            try:
                conn["sock"].close()
            except Exception:
                pass
            conn["sock"] = None
        connect()

    # --- which frame counts ---------------------------------------------------

    under = {}

    def in_workspace(filename):
        ok = under.get(filename)
        if ok is None:
            # "<frozen ...>", "<string>": no file.
            name = filename if filename.startswith("/") or filename.startswith("<") else abspath(filename)
            ok = name == workspace or name.startswith(workspace + "/")
            if len(under) < 100000:
                under[filename] = ok
        return ok

    def is_test_file(path):
        """Whether path names a file pytest collects tests or fixtures from."""
        base = path.rsplit("/", 1)[-1]
        return base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py"

    def workspace_frame(frame):
        """The file and line of the innermost workspace frame from frame
        out, or None; None too when a helper's frame (the plugin's) is
        inner to it: the helpers' own doing."""
        while frame is not None:
            code = frame.f_code
            if in_workspace(code.co_filename):
                return code.co_filename, frame.f_lineno
            if code.co_filename.startswith(helper_prefix):
                return None
            frame = frame.f_back
        return None

    def imported():
        where = importer(getframe(2))  # imported <- guarded <- find_spec
        if where is not None:
            send("import", where[0], where[1], plugin_name)

    loaders = frozenset(("load_setuptools_entrypoints", "import_plugin"))

    def importer(frame):
        """The workspace frame that imports the plugin, None when pytest
        loads it (pluggy's entry points, pytest's -p)."""
        while frame is not None:
            code = frame.f_code
            if code.co_name in loaders and not in_workspace(code.co_filename):
                return None
            if in_workspace(code.co_filename):
                return code.co_filename, frame.f_lineno
            frame = frame.f_back
        return None

    # --- the watched paths ------------------------------------------------------

    channel_dir = os.path.dirname(channel)
    watched_names = frozenset(basename(p) for p in (channel, channel_dir, plugin_file, boot_file, helper_dir))
    watched_paths = (realpath(channel), realpath(channel_dir), realpath(helper_dir))

    def watched_path(path):
        """The watched path path names, or ''."""
        try:
            if isinstance(path, int):
                return ""
            path = fspath(path)
            if isinstance(path, bytes):
                path = path.decode("utf-8", "replace")
            base = basename(path.rstrip("/"))
            if path.startswith("/proc/") and (base == "mem" or "/fd" in path):
                return path
            if base not in watched_names:
                # A symlink of another name to a watched path shows in
                # os.symlink, which is watched too.
                return ""
            full = realpath(path)
            for w in watched_paths:
                if full == w or full.startswith(w + "/"):
                    return path
        except Exception:
            pass
        return ""

    # --- the hook --------------------------------------------------------------

    ctypes_events = frozenset(
        "ctypes." + e for e in (
            "dlopen", "dlsym", "dlsym/handle", "addressof", "call_function", "cdata", "cdata/buffer",
            "create_string_buffer", "create_unicode_buffer", "get_errno", "set_errno", "get_last_error",
            "set_last_error", "seh_exception", "string_at", "wstring_at", "PyObj_FromPtr", "set_exception",
        )
    )
    plain = frozenset(("gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames",
                       "sys.settrace", "sys.setprofile", "sys.addaudithook")) | ctypes_events
    path_events = frozenset(("open", "os.truncate", "os.remove", "os.rename", "os.symlink", "os.link", "os.chmod",
                             "os.listdir", "os.scandir"))
    code_attrs = frozenset(("__code__", "__defaults__", "__kwdefaults__"))
    watched = plain | path_events | frozenset(("sys._getframe", "object.__setattr__", "socket.connect", "socket.__new__", "exec"))
    CodeType = type(_capsule_boot.__code__)
    executed = set()
    busy = set()

    def hook(event, args):
        if event in watched:
            if event == "exec":
                code = args[0] if args else None
                if type(code) is CodeType and code.co_name == "<module>" and len(executed) < 100000:
                    executed.add(code.co_filename)
                return
            guarded(audit, event, args)

    def guarded(fn, *args):
        """Runs fn unless this thread is already in the tripwire (whose own
        calls raise events too); never raises."""
        try:
            ident = _thread.get_ident()
            if ident in busy:
                return
            busy.add(ident)
            try:
                fn(*args)
            finally:
                busy.discard(ident)
        except Exception:
            pass

    def audit(event, args):
        detail = ""
        if event in plain:
            pass
        elif event == "sys._getframe":
            caller = getframe(3)  # audit <- guarded <- hook <- the caller of sys._getframe
            if caller is not None and in_workspace(caller.f_code.co_filename):
                send(event, caller.f_code.co_filename, caller.f_lineno, "")
            return
        elif event == "object.__setattr__":
            if len(args) < 2 or type(args[0]) is not FunctionType or args[1] not in code_attrs:
                return
            # Code that builds or copies functions of its own (decorator
            # libraries do) changes their defaults: only the functions of
            # the runner, the helpers, the standard library and installed
            # packages count, and the code of a test file's functions.
            file = args[0].__code__.co_filename
            if in_workspace(file):
                if args[1] != "__code__" or not is_test_file(file):
                    return
            elif file.startswith("<"):
                return  # code made at run time: "<string>", "<FunctionBuilder-0>"
            caller = getframe(3)
            if caller is not None and in_workspace(caller.f_code.co_filename):
                fn = args[0]
                send(event, caller.f_code.co_filename, caller.f_lineno,
                     "%s of %s (%s:%d)" % (args[1], fn.__qualname__, fn.__code__.co_filename, fn.__code__.co_firstlineno))
            return
        elif event in path_events:
            paths = args[:2] if event in ("os.rename", "os.symlink", "os.link") else args[:1]
            hit = ""
            for p in paths:
                hit = hit or watched_path(p)
            if not hit:
                return
            detail = hit
            if event == "open" and len(args) >= 3 and isinstance(args[2], int) and args[2] & os.O_TRUNC:
                detail += " (O_TRUNC)"
        elif event == "socket.__new__":
            # A socket object over a descriptor the code did not open as
            # one (family -1: socket.socket(fileno=n)), how code takes hold
            # of the channel's connections.
            if len(args) < 2 or args[1] != -1:
                return
            detail = "a socket object over an existing descriptor"
        elif event == "socket.connect":
            if len(args) < 2 or not watched_path(args[1]):
                return
            detail = str(args[1])
        where = workspace_frame(getframe(3))
        if where is not None:
            send(event, where[0], where[1], detail)

    # --- the plugin's finder ---------------------------------------------------

    def tripwire():
        """Why the tripwire connection of this process is no longer intact, or ''."""
        if not watch or conn["pid"] != getpid():
            return ""  # unwatched, or a forked child that connects on its first record
        if not lock.acquire(True, 2.0):
            return "the tripwire's lock is held"
        try:
            return intact()
        finally:
            lock.release()

    class PluginLoader(external.SourceFileLoader):
        def exec_module(self, module):
            module.__dict__["_capsule_tripwire"] = tripwire
            if watch:  # the "exec" events are the tripwire's
                module.__dict__["_capsule_executed"] = executed.__contains__
            # What the plugin imports (json, _socket) comes from the
            # standard library or the installed packages, never from the
            # working directory or PYTHONPATH.
            saved = sys.path[:]
            sys.path[:] = [p for p in saved if installed(p)]
            try:
                super().exec_module(module)
            finally:
                sys.path[:] = saved + [p for p in sys.path if p not in saved]

    class PluginFinder:
        """Serves capsule_testreport from the helper directory only."""

        @classmethod
        def find_spec(cls, name, path=None, target=None):
            if name != plugin_name:
                return None
            guarded(imported)
            return external.spec_from_file_location(name, plugin_file, loader=PluginLoader(name, plugin_file))

    class MetaPath(list):
        """sys.meta_path, where the plugin's finder stays first."""

        def insert(self, index, finder):
            if index == 0 or index < -len(self):
                index = 1
            list.insert(self, index, finder)

    if watch:
        connect()

        def in_child():
            busy.clear()  # the forking thread's state is the parent's
            guarded(after_fork)

        os.register_at_fork(after_in_child=in_child)
        sys.addaudithook(hook)
    sys.meta_path = MetaPath([PluginFinder] + [f for f in sys.meta_path if f is not PluginFinder])

    # A set-up phase's `pip install --user` went to the user base that the
    # test runs' PYTHONUSERBASE (this boot's) replaces: its site directory
    # stays on sys.path, with its .pth files, as a user site would be.
    setup_base = environ.get("CAPSULE_SETUP_USERBASE", "")
    site = sys.modules.get("site")
    if setup_base and site is not None:
        setup_site = os.path.join(setup_base, "lib", "python%d.%d" % sys.version_info[:2], "site-packages")
        if os.path.isdir(setup_site):
            site.addsitedir(setup_site)


try:
    _capsule_boot(__file__)
except Exception:
    pass
del _capsule_boot
