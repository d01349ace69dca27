"""Capsule's warm parent (stdlib only, Python 3.8+).

The agent starts it as root, in a directory only root can open, as

    python3 -s -B -u capsule_warm.py UID GID SCRIPT

with descriptor 3 its end of the channel, a SOCK_SEQPACKET socket pair
whose other end only the agent holds. It makes itself not dumpable, loads
SCRIPT (a module defining main()) once, says "ready" and then serves one
run per message until the agent closes the channel:

    agent -> parent   "run" NUL cpu NUL dir NUL n NUL argv... NUL env...
                      with the run's stdout and stderr as SCM_RIGHTS
    parent -> agent   "exit <wait status>" once the run's process ended,
                      or "error <why>" when none could be started

For each run it forks a child, which closes the channel, starts a process
group of its own (as an exec'd run does), sets RLIMIT_CPU (cpu seconds, one
more as the hard limit; 0 for none), asks the kernel's OOM killer to pick it
first, clears its supplementary groups, drops to GID and UID (every one of
its ids), becomes dumpable again as an exec'd process is, changes to dir,
takes /dev/null, stdout and stderr as descriptors 0, 1 and 2, closes every
other, takes the run's argv and environment, and sys.path as `python3 -B -u
SCRIPT` started in dir would have it, and calls SCRIPT's main() as
__main__, without starting another interpreter. The parent waits for it
without polling and never runs anything of a run itself.
"""

import _ctypes
import _socket
import os
import resource
import site
import sys

CHANNEL = 3
MAX_MESSAGE = 1 << 20
PR_SET_DUMPABLE = 4
RUN_FAILED = 126  # the exit status of a run whose process could not start


def prctl(option, value):
    """Call prctl(2) without importing ctypes."""
    libc = _ctypes.dlopen(None, 2)  # RTLD_NOW
    if _ctypes.call_function(_ctypes.dlsym(libc, "prctl"), (option, value, 0, 0, 0)) != 0:
        raise OSError("prctl(%d, %d) failed" % (option, value))


def load(path):
    """Load the script at path as a module of its file's name."""
    with open(path, "rb") as f:
        source = f.read()
    name = os.path.basename(path).rpartition(".")[0] or "script"
    module = type(sys)(name)
    module.__file__ = path
    sys.modules[name] = module
    exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)
    if not callable(getattr(module, "main", None)):
        raise ValueError("%s defines no main()" % path)
    return module


def receive(channel):
    """Read one message and the descriptors it carries; (None, []) once the
    agent has closed the channel."""
    data, ancillary, flags, _ = channel.recvmsg(
        MAX_MESSAGE, _socket.CMSG_SPACE(16), _socket.MSG_CMSG_CLOEXEC)
    fds = []
    for level, kind, payload in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            for i in range(0, len(payload) - len(payload) % 4, 4):
                fds.append(int.from_bytes(payload[i:i + 4], sys.byteorder))
    if flags & (_socket.MSG_TRUNC | _socket.MSG_CTRUNC):
        for fd in fds:
            os.close(fd)
        raise ValueError("a message cut short")
    if not data and not fds:
        return None, []
    return data, fds


def parse(data):
    """Read a run message: (cpu seconds, dir, argv, environment)."""
    fields = [os.fsdecode(f) for f in data.split(b"\0")]
    if len(fields) < 4 or fields[0] != "run":
        raise ValueError("not a run message")
    cpu, wd, count = int(fields[1]), fields[2], int(fields[3])
    argv = fields[4:4 + count]
    if len(argv) != count or not argv:
        raise ValueError("a run message without its argv")
    env = {}
    for pair in fields[4 + count:]:
        key, sep, value = pair.partition("=")
        if sep and key:
            env[key] = value
    return cpu, wd, argv, env


def run_path(wd, env):
    """Return the sys.path of `python3 -B -u SCRIPT` started in wd with env:
    wd, PYTHONPATH, the standard library, the user's site-packages (when
    enabled and present, with its .pth files), the system's site-packages."""
    system = set(site.getsitepackages())
    base = sys.path[1:]  # without the parent's own directory
    cut = next((i for i, p in enumerate(base) if p in system), len(base))
    extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = [wd] + extra + base[:cut]
    site.USER_BASE = site.USER_SITE = None
    site.ENABLE_USER_SITE = not env.get("PYTHONNOUSERSITE")
    if site.ENABLE_USER_SITE:
        user = site.getusersitepackages()  # reads os.environ, the run's
        if os.path.isdir(user):
            site.addsitedir(user)
    sys.path.extend(p for p in base[cut:] if p not in sys.path)
    return sys.path


def drop(uid, gid):
    """Drop to uid and gid, with no supplementary groups."""
    if os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    if (os.getresuid() != (uid, uid, uid) or os.getresgid() != (gid, gid, gid)
            or (uid != 0 and os.getgroups())):
        raise OSError("could not drop to %d:%d" % (uid, gid))
    # Changing the user made the process not dumpable; an exec'd run is.
    prctl(PR_SET_DUMPABLE, 1)


def child(module, uid, gid, message, out, err):
    """Become the run and call main(); never returns."""
    try:
        os.close(CHANNEL)
        os.setpgid(0, 0)
        cpu, wd, argv, env = parse(message)
        if cpu > 0:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")
        except OSError:
            pass
        drop(uid, gid)
        os.chdir(wd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.closerange(3, max(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 1024))
        os.environ.clear()
        os.environ.update(env)
        run_path(wd, env)
        sys.argv = argv
        module.__name__ = "__main__"
        sys.modules["__main__"] = module
    except BaseException as e:
        try:
            os.write(err, ("capsule warm parent: cannot start the run: %r\n" % (e,)).encode())
        finally:
            os._exit(RUN_FAILED)
    os._exit(call_main(module))


def call_main(module):
    """Call main() and return the exit status the interpreter would."""
    try:
        code = module.main()
    except SystemExit as e:
        code = e.code
    except BaseException:
        sys.excepthook(*sys.exc_info())
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
        sys.stderr.flush()
    except BaseException:
        pass
    return 1


def serve(channel, module, uid, gid):
    """Serve runs until the agent closes the channel."""
    while True:
        message, fds = receive(channel)
        if message is None:
            return 0
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            channel.sendall(b"error a run message without its two descriptors")
            continue
        out, err = fds
        try:
            pid = os.fork()
        except OSError as e:
            os.close(out)
            os.close(err)
            channel.sendall(("error fork: %s" % e).encode())
            continue
        if pid == 0:
            child(module, uid, gid, message, out, err)
        os.close(out)
        os.close(err)
        _, status = os.waitpid(pid, 0)
        channel.sendall(b"exit %d" % status)


def main():
    prctl(PR_SET_DUMPABLE, 0)
    channel = _socket.socket(fileno=CHANNEL)
    try:
        uid, gid = int(sys.argv[1]), int(sys.argv[2])
        module = load(sys.argv[3])
    except BaseException as e:
        channel.sendall(("error load %s: %r" % (sys.argv[3:4], e)).encode())
        return 1
    channel.sendall(b"ready")
    return serve(channel, module, uid, gid)


if __name__ == "__main__":
    sys.exit(main())
