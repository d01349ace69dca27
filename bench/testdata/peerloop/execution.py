"""The peer harness's loop, for Capsule's throughput benchmark.

This is NOT openai/human-eval's code: it is a small equivalent written for
Capsule, with the structure of human-eval's execution.py and evaluation.py
(evaluate_functional_correctness), so that the benchmark fetches nothing:

- a thread pool of --workers threads submits one check per problem;
- each check starts a multiprocessing.Manager for its result list and a
  multiprocessing.Process (a fork) that runs the program;
- the process makes a temporary directory its working directory, applies
  the reliability guard (disables destructive functions; no isolation),
  silences the standard streams and runs prompt + completion + test +
  check(entry_point) under a SIGALRM time limit of --timeout seconds
  (human-eval's default: 3.0);
- the parent waits timeout + 1 seconds for it and kills it if still alive.

Input: a JSON-lines file, one problem a line, with task_id, prompt,
completion, test and entry_point. Output: "passed N/M"; the exit status is
0 when every check passed. Like human-eval, this runs untrusted code on the
host with no sandbox: give it trusted code only.

The process imports what human-eval's evaluate_functional_correctness
imports (numpy, tqdm and fire; Debian's python3-numpy, python3-tqdm and
python3-fire): every check forks this process twice (the Manager's server
and the check), and a fork's cost grows with the parent. Without them, the
loop ran at 0.70 of the official harness's time.
"""

import argparse
import contextlib
import faulthandler
import io
import json
import multiprocessing
import os
import platform
import signal
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor, as_completed

try:
    import fire  # noqa: F401  (imported for their weight, as human-eval's process has them)
    import numpy  # noqa: F401
    import tqdm  # noqa: F401
except ImportError as err:
    sys.exit("peer loop: %s; install python3-numpy, python3-tqdm and python3-fire" % err)


class TimeoutException(Exception):
    pass


class WriteOnlyStringIO(io.StringIO):
    """A StringIO that cannot be read from."""

    def read(self, *args, **kwargs):
        raise IOError

    def readline(self, *args, **kwargs):
        raise IOError

    def readlines(self, *args, **kwargs):
        raise IOError

    def readable(self, *args, **kwargs):
        return False


class redirect_stdin(contextlib._RedirectStream):  # type: ignore
    _stream = "stdin"


@contextlib.contextmanager
def time_limit(seconds):
    def signal_handler(signum, frame):
        raise TimeoutException("Timed out!")

    signal.setitimer(signal.ITIMER_REAL, seconds)
    signal.signal(signal.SIGALRM, signal_handler)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


@contextlib.contextmanager
def swallow_io():
    stream = WriteOnlyStringIO()
    with contextlib.redirect_stdout(stream):
        with contextlib.redirect_stderr(stream):
            with redirect_stdin(stream):
                yield


@contextlib.contextmanager
def chdir(root):
    if root == ".":
        yield
        return
    cwd = os.getcwd()
    os.chdir(root)
    try:
        yield
    finally:
        os.chdir(cwd)


@contextlib.contextmanager
def create_tempdir():
    with tempfile.TemporaryDirectory() as dirname:
        with chdir(dirname):
            yield dirname


def reliability_guard(maximum_memory_bytes=None):
    """Disable destructive functions, as human-eval's guard does. It is not
    a security sandbox."""
    if maximum_memory_bytes is not None:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (maximum_memory_bytes, maximum_memory_bytes))
        resource.setrlimit(resource.RLIMIT_DATA, (maximum_memory_bytes, maximum_memory_bytes))
        if not platform.uname().system == "Darwin":
            resource.setrlimit(resource.RLIMIT_STACK, (maximum_memory_bytes, maximum_memory_bytes))

    faulthandler.disable()

    import builtins
    builtins.exit = None
    builtins.quit = None

    os.environ["OMP_NUM_THREADS"] = "1"
    for name in ("kill", "system", "putenv", "remove", "removedirs", "rmdir",
                 "fchdir", "setuid", "fork", "forkpty", "killpg", "rename",
                 "renames", "truncate", "replace", "unlink", "fchmod",
                 "fchown", "chmod", "chown", "chroot", "lchflags", "lchmod",
                 "lchown", "getcwd", "chdir"):
        setattr(os, name, None)

    import shutil
    shutil.rmtree = None
    shutil.move = None
    shutil.chown = None

    import subprocess
    subprocess.Popen = None  # type: ignore

    builtins.help = None
    for name in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
        sys.modules[name] = None


def unsafe_execute(problem, timeout, result):
    with create_tempdir():
        # These are needed to clean up the temporary directory.
        import shutil
        rmtree, rmdir, chdir_ = shutil.rmtree, os.rmdir, os.chdir

        reliability_guard()

        check_program = (problem["prompt"] + problem["completion"] + "\n" +
                         problem["test"] + "\n" +
                         "check(%s)" % problem["entry_point"])
        try:
            exec_globals = {}
            with swallow_io():
                with time_limit(timeout):
                    exec(check_program, exec_globals)
            result.append("passed")
        except TimeoutException:
            result.append("timed out")
        except BaseException as e:
            result.append("failed: %s" % e)

        shutil.rmtree, os.rmdir, os.chdir = rmtree, rmdir, chdir_


def check_correctness(problem, timeout):
    """Run one problem's program in a forked process; report the result."""
    manager = multiprocessing.Manager()
    result = manager.list()
    p = multiprocessing.Process(target=unsafe_execute, args=(problem, timeout, result))
    p.start()
    p.join(timeout=timeout + 1)
    if p.is_alive():
        p.kill()
    if not result:
        result.append("timed out")
    return dict(task_id=problem["task_id"], passed=result[0] == "passed", result=result[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("problems")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=3.0)
    args = parser.parse_args()
    with open(args.problems) as f:
        problems = [json.loads(line) for line in f if line.strip()]
    results = []
    with ThreadPoolExecutor(max_workers=args.workers) as executor:
        futures = [executor.submit(check_correctness, p, args.timeout) for p in problems]
        for future in as_completed(futures):
            results.append(future.result())
    passed = sum(r["passed"] for r in results)
    for r in sorted(results, key=lambda r: r["task_id"]):
        if not r["passed"]:
            print("%s: %s" % (r["task_id"], r["result"]))
    print("passed %d/%d" % (passed, len(results)))
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
