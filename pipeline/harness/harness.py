"""Capsule's case-testing harness (stdlib only, Python 3.8+).

Run in the workspace, with PYTHONHASHSEED=0 in the environment (without
it the script starts itself again with it), as:

    python3 -B -u capsule_harness.py --cpu-limit 10 --timeout 40 \
        --hard-timeout 400 --solution solution.py --tests tests.py \
        [--entry-point NAME]

1. Example-call removal: top-level statements of the solution other than
   imports, definitions, constants and import fallbacks are replaced by blank
   lines, so that line numbers in tracebacks stay those of the model's code.
2. Case testing: a child process, a fork of the harness (one interpreter
   starts per run), runs the cleaned solution and then the tests in one
   module namespace; with --entry-point, and when the tests define
   check(candidate), it then calls check(<entry point>).

The traceback of a failure is printed as Python prints it, without the
harness's own frames. When an assert of the tests fails, the harness evaluates
its sides again and prints their values.

The child's CPU time is bounded by RLIMIT_CPU (--cpu-limit, rounded up to
whole seconds, as the kernel counts it). A CPU-time limit does not depend on
how busy the machine is, so a run stopped by it means the code is slow, not
that the machine was. The wall clock only stops code that waits: past
--timeout, the tests are stopped once they have used almost no CPU over the
last IDLE_WINDOW seconds (they sleep, or wait for input), and past
--hard-timeout in any case.

Protocol, on stderr: lines "##capsule <json object>"; "removed" (1-based
inclusive line ranges) and "syntax_ok" before the run; "cpu" (seconds of CPU
the tests used) after it; "cpu_limit" (seconds) when the tests ran past the
CPU-time limit and "timeout" (seconds) when they ran past the wall clock.
Other harness messages start with "capsule: ". Exit status: 0 when all tests
passed, 124 when a limit stopped them, 128+N when the tests were killed by
signal N, 1 for any other failure (SystemExit included), 2 for bad arguments.
"""

# Only what every run needs is imported here: _ast and _signal rather than
# ast and signal (whose enum import costs more than the rest together), no
# argparse, json or subprocess. The failure paths import what they use.
import _ast
import _signal
import os
import resource
import sys
import time

PROTOCOL = "##capsule "
TIMEOUT_EXIT = 124
EVAL_BUDGET = 1.0  # seconds to re-evaluate a failing assertion
IDLE_WINDOW = 10.0  # seconds over which the child's progress is judged
IDLE_SHARE = 0.02  # share of a core below which the child counts as waiting

# Calls that make a top-level assignment an example run rather than a constant.
BANNED_CALLS = {"print", "input", "exit", "quit", "breakpoint", "help"}
BANNED_DOTTED = ("sys.exit", "os._exit", "sys.stdin.")
# Top-level calls that set the interpreter up and are kept.
SETUP_CALLS = {"setrecursionlimit", "seed", "filterwarnings", "simplefilter"}


def encode(value):
    """Encode a bool, number or list of them as json.dumps does."""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(encode(v) for v in value) + "]"
    return repr(value)


def note(**fields):
    """Write one protocol line on stderr, keys sorted."""
    body = ", ".join('"%s": %s' % (k, encode(fields[k])) for k in sorted(fields))
    sys.stderr.write(PROTOCOL + "{" + body + "}\n")
    sys.stderr.flush()


def say(message):
    """Write one human-readable harness line on stderr."""
    sys.stderr.write("capsule: " + message + "\n")
    sys.stderr.flush()


# ---------------------------------------------------------------- cleaning


def parse(source):
    """Parse source as ast.parse does, without importing ast."""
    return compile(source, "<unknown>", "exec", _ast.PyCF_ONLY_AST)


def iter_child_nodes(node):
    """Yield the direct child nodes of node, as ast.iter_child_nodes does."""
    for name in node._fields:
        field = getattr(node, name, None)
        if isinstance(field, _ast.AST):
            yield field
        elif isinstance(field, list):
            for item in field:
                if isinstance(item, _ast.AST):
                    yield item


def dotted(func):
    """Return the dotted name of a call target such as sys.stdin.read."""
    parts = []
    while isinstance(func, _ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, _ast.Name):
        parts.append(func.id)
        return ".".join(reversed(parts))
    return ""


def calls_banned(node, banned):
    """Report whether evaluating node calls one of the banned functions."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, _ast.Lambda):
            continue  # the body runs only when called
        if isinstance(cur, _ast.Call):
            name = dotted(cur.func)
            if name in banned or any(
                name == d or (d.endswith(".") and name.startswith(d))
                for d in BANNED_DOTTED
            ):
                return True
        stack.extend(iter_child_nodes(cur))
    return False


def plain_target(target):
    """Report whether an assignment target is a name or a tuple of names."""
    if isinstance(target, _ast.Name):
        return True
    if isinstance(target, _ast.Starred):
        return plain_target(target.value)
    if isinstance(target, (_ast.Tuple, _ast.List)):
        return all(plain_target(t) for t in target.elts)
    return False


def is_main_check(test):
    """Report whether test is `__name__ == "__main__"` (either way round)."""
    if not isinstance(test, _ast.Compare) or len(test.comparators) != 1:
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, _ast.Name) and s.id == "__name__" for s in sides)


def keep(node, banned):
    """Report whether a top-level statement is kept in the cleaned code."""
    kind = type(node).__name__
    if kind in ("Import", "ImportFrom", "FunctionDef", "AsyncFunctionDef",
                "ClassDef", "Pass", "TypeAlias"):
        return True
    if kind == "Expr":
        value = node.value
        if isinstance(value, _ast.Constant):
            return isinstance(value.value, str)  # a docstring
        return (isinstance(value, _ast.Call)
                and dotted(value.func).split(".")[-1] in SETUP_CALLS
                and not calls_banned(value, banned))
    if kind == "Assign":
        return (all(plain_target(t) for t in node.targets)
                and not calls_banned(node.value, banned))
    if kind in ("AnnAssign", "AugAssign"):
        return (isinstance(node.target, _ast.Name)
                and (node.value is None
                     or not calls_banned(node.value, banned)))
    if kind in ("Try", "TryStar"):
        return all(keep(s, banned) for s in node.body)
    if kind == "If":
        return (not is_main_check(node.test)
                and not calls_banned(node.test, banned)
                and all(keep(s, banned) for s in node.body + node.orelse))
    return False


def first_line(node):
    """Return the first line of a statement, decorators included."""
    lines = [node.lineno]
    lines.extend(d.lineno for d in getattr(node, "decorator_list", []))
    return min(lines)


def ranges(numbers):
    """Merge sorted line numbers into [first, last] ranges."""
    out = []
    for n in numbers:
        if out and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return out


def clean(source, entry_point):
    """Return (code to run, removed line ranges, whether source parses)."""
    if isinstance(source, bytes):
        return source, [], False  # not UTF-8: compile reports the error
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return source, [], False
    banned = set(BANNED_CALLS)
    if entry_point:
        banned.add(entry_point)
    # Statements that share a line (a; b) are kept or removed together.
    groups = []
    for node in tree.body:
        span = [first_line(node), node.end_lineno, keep(node, banned)]
        if groups and span[0] <= groups[-1][1]:
            last = groups[-1]
            last[1] = max(last[1], span[1])
            last[2] = last[2] or span[2]
        else:
            groups.append(span)
    removed = []
    for first, last, kept in groups:
        if not kept:
            removed.extend(range(first, last + 1))
    if not removed:
        return text, [], True
    lines = text.split("\n")
    for n in removed:
        lines[n - 1] = ""
    cleaned = "\n".join(lines)
    try:
        parse(cleaned)
    except (SyntaxError, ValueError):
        return text, [], True  # never make parseable code unparseable
    return cleaned, ranges(removed), True


def read_source(path):
    """Read a Python file as text, or as bytes when it is not UTF-8."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data


# ---------------------------------------------------------------- child


class OutOfBudget(Exception):
    """Raised by the timer that bounds re-evaluating an assertion."""


def short_repr(value):
    """Return a bounded repr of value."""
    import reprlib
    r = reprlib.Repr()
    r.maxlevel, r.maxlist, r.maxtuple, r.maxdict = 4, 30, 30, 20
    r.maxset, r.maxfrozenset, r.maxdeque, r.maxarray = 30, 30, 30, 30
    r.maxstring, r.maxlong, r.maxother = 200, 100, 200
    return r.repr(value)


def evaluate(node, frame, filename):
    """Evaluate an expression in a frame within EVAL_BUDGET seconds."""
    import ast
    import io
    import signal

    def expire(signum, stack):
        raise OutOfBudget()

    code = compile(ast.Expression(body=node), filename, "eval")
    old = signal.signal(signal.SIGALRM, expire)
    sink = io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = sink
    try:
        signal.setitimer(signal.ITIMER_REAL, EVAL_BUDGET)
        return short_repr(eval(code, frame.f_globals, dict(frame.f_locals)))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        sys.stdout, sys.stderr = saved


OPS = {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">",
       "GtE": ">=", "Is": "is", "IsNot": "is not", "In": "in",
       "NotIn": "not in"}


def assertion_values(tb, filename, source):
    """Describe the values of a failing assert in the tests, or ''."""
    import ast

    while tb.tb_next is not None:
        tb = tb.tb_next
    if tb.tb_frame.f_code.co_filename != filename:
        return ""
    line = tb.tb_lineno
    found = None
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Assert)
                and node.lineno <= line <= node.end_lineno
                and (found is None or node.lineno > found.lineno)):
            found = node
    if found is None:
        return ""
    test = found.test
    shown = " ".join((ast.get_source_segment(source, test) or "").split())
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op = OPS.get(type(test.ops[0]).__name__, "?")
        left = evaluate(test.left, tb.tb_frame, filename)
        right = evaluate(test.comparators[0], tb.tb_frame, filename)
        got = "%s %s %s" % (left, op, right)
    elif isinstance(test, ast.Call):
        got = evaluate(test, tb.tb_frame, filename)
    else:
        return ""
    return "assertion `%s` gave `%s` (re-evaluated after the failure)" % (
        shown, got)


def harness_frames_removed(tb):
    """Drop the harness's own leading frames from a traceback."""
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return tb


def ceil(value):
    """Round a number of seconds up to a whole number, as an int."""
    return int(-(-value // 1))


def limit_cpu(seconds_):
    """Bound this process's CPU time: SIGXCPU at the limit, SIGKILL a second
    later should the code catch SIGXCPU. Processes it starts inherit the
    limit; nobody here may raise it again."""
    soft = max(1, ceil(seconds_))
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))


def run_child(args, done, code, tests):
    """Run the cleaned solution code and the tests in one namespace; return
    the exit status."""
    limit_cpu(args.cpu_limit)
    module = type(sys)("solution")
    module.__file__ = args.solution
    sys.modules["solution"] = module
    sys.argv = [args.solution]
    try:
        namespace = module.__dict__
        exec(compile(code, args.solution, "exec", dont_inherit=True),
             namespace)
        exec(compile(tests, args.tests, "exec", dont_inherit=True), namespace)
        check = namespace.get("check")
        defined_by_tests = getattr(getattr(check, "__code__", None),
                                   "co_filename", None) == args.tests
        if args.entry_point and defined_by_tests:
            if args.entry_point not in namespace:
                raise NameError("name %r is not defined" % args.entry_point)
            check(namespace[args.entry_point])
    except BaseException:
        kind, value, tb = sys.exc_info()
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        sys.stdout.flush()
        user_tb = harness_frames_removed(tb)
        sys.__excepthook__(kind, value.with_traceback(user_tb), user_tb)
        sys.stderr.flush()
        os.write(done, b"F")
        if isinstance(value, AssertionError) and isinstance(tests, str):
            try:
                line = assertion_values(tb, args.tests, tests)
            except BaseException:
                line = ""
            if line:
                say(line)
        return 1
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    sys.stdout.flush()
    sys.stderr.flush()
    os.write(done, b"P")
    return 0


def start_child(args, done, read_fd, mask, code, tests):
    """Fork the child that runs the tests, in a session of its own with
    stdin from the null device; return its pid. The child never returns."""
    pid = os.fork()
    if pid:
        return pid
    status = 1
    try:
        os.close(read_fd)
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        _signal.pthread_sigmask(_signal.SIG_SETMASK, mask)
        status = run_child(args, done, code, tests)
    except BaseException:
        sys.__excepthook__(*sys.exc_info())
    finally:
        os._exit(status)  # threads the code left running do not matter now


# ---------------------------------------------------------------- parent


def seconds(value):
    """Format a number of seconds without a useless fraction."""
    return int(value) if value == int(value) else value


def seconds_text(value):
    """Format a duration in seconds for people: 1 second, 2.5 seconds."""
    n = seconds(value)
    return "%s second%s" % (n, "" if n == 1 else "s")


def kill_group(pid):
    """Kill the child's whole process group."""
    try:
        os.killpg(pid, _signal.SIGKILL)
    except OSError:
        pass


def read_status(fd):
    """Read what the child reported on the status pipe without blocking."""
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 16)
    except BlockingIOError:
        return b""
    finally:
        os.close(fd)


def cpu_seconds(pid):
    """Return the CPU time of process pid and of the children it waited for,
    or None when /proc does not tell."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    except (OSError, IndexError, ValueError):
        return None
    return ticks / os.sysconf("SC_CLK_TCK")


def exit_code(status):
    """Turn a wait status into Popen's returncode: -N for signal N."""
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def wait_for(pid, limit, hard_limit):
    """Wait for the child and return its exit code, or None when the wall
    clock stops it: past limit seconds once it has used almost no CPU over
    the last IDLE_WINDOW seconds, and past hard_limit in any case. Code
    that computes on a busy machine goes on until its CPU time runs out.
    SIGCHLD, blocked in this process, wakes the wait the moment the child
    ends; the clock is looked at once a second."""
    start = time.monotonic()
    samples = []  # (time, cpu seconds) over the last IDLE_WINDOW
    while True:
        got, status = os.waitpid(pid, os.WNOHANG)
        if got == pid:
            return exit_code(status)
        if _signal.sigtimedwait((_signal.SIGCHLD,), 1.0) is not None:
            continue
        now = time.monotonic()
        samples.append((now, cpu_seconds(pid)))
        while now - samples[0][0] > IDLE_WINDOW:
            samples.pop(0)
        elapsed = now - start
        if elapsed >= hard_limit:
            return None
        first_time, first_cpu = samples[0]
        cpu = samples[-1][1]
        if (elapsed >= limit and first_cpu is not None and cpu is not None
                and now - first_time >= IDLE_WINDOW - 1.5
                and cpu - first_cpu < IDLE_SHARE * (now - first_time)):
            return None


def run_parent(args):
    """Clean the solution, run the child with a timeout, report."""
    try:
        source = read_source(args.solution)
        tests = read_source(args.tests)
    except OSError as err:
        say("cannot read the code: %s" % err)
        return 2
    cleaned, removed, syntax_ok = clean(source, args.entry_point)
    note(removed=removed, syntax_ok=syntax_ok)

    read_fd, write_fd = os.pipe()  # neither is inherited by an exec
    mask = _signal.pthread_sigmask(_signal.SIG_BLOCK, (_signal.SIGCHLD,))
    pid = start_child(args, write_fd, read_fd, mask, cleaned, tests)
    os.close(write_fd)

    def stop(signum, frame):
        kill_group(pid)
        os._exit(128 + signum)

    _signal.signal(_signal.SIGTERM, stop)
    code = wait_for(pid, args.timeout, max(args.hard_timeout, args.timeout))
    timed_out = code is None
    if timed_out:
        kill_group(pid)
        code = exit_code(os.waitpid(pid, 0)[1])
    kill_group(pid)  # leftovers the code started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    note(cpu=round(cpu, 3))
    status = read_status(read_fd)
    sys.stdout.flush()
    if status == b"F":
        return 1  # the child has reported the failure
    if status == b"P":
        return 0
    if timed_out:
        note(timeout=seconds(args.timeout))
        say("ran past the wall-clock limit of %s while using almost no CPU "
            "time (waiting for input, sleeping, or blocked?); the tests were "
            "stopped" % seconds_text(args.timeout))
        return TIMEOUT_EXIT
    if code == -_signal.SIGXCPU or (code == -_signal.SIGKILL
                                    and cpu >= ceil(args.cpu_limit)):
        note(cpu_limit=seconds(args.cpu_limit))
        say("used more than %s of CPU time; the tests were stopped"
            % seconds_text(args.cpu_limit))
        return TIMEOUT_EXIT
    if code < 0:
        import signal
        name = signal.Signals(-code).name if -code in signal.valid_signals() \
            else str(-code)
        hint = " (out of memory?)" if -code == signal.SIGKILL else ""
        say("the tests were killed by signal %s%s" % (name, hint))
        return 128 - code
    say("the process ended with exit status %d before the tests finished "
        "(os._exit() or a similar call in the code?)" % code)
    return 1


# ---------------------------------------------------------------- arguments


class Args:
    """The command line, with the defaults of the options left out."""
    cpu_limit = 10.0
    timeout = 40.0
    hard_timeout = 400.0
    solution = "solution.py"
    tests = "tests.py"
    entry_point = ""


USAGE = ("usage: capsule_harness.py [--cpu-limit SECONDS] [--timeout SECONDS]"
         " [--hard-timeout SECONDS] [--solution FILE] [--tests FILE]"
         " [--entry-point NAME]")
NUMBERS = ("cpu_limit", "timeout", "hard_timeout")


def usage_error(message):
    """Report bad arguments and exit with status 2, as argparse would."""
    sys.stderr.write(USAGE + "\ncapsule_harness.py: error: " + message + "\n")
    sys.exit(2)


def parse_args(argv):
    """Read the command line: options, each followed by its value."""
    args = Args()
    if len(argv) % 2:
        usage_error("every option takes one value")
    for i in range(0, len(argv), 2):
        flag, value = argv[i], argv[i + 1]
        name = flag[2:].replace("-", "_")
        if not flag.startswith("--") or not hasattr(Args, name):
            usage_error("unrecognized argument: %s" % flag)
        if name in NUMBERS:
            try:
                value = float(value)
            except ValueError:
                usage_error("%s: invalid number: %r" % (flag, value))
        setattr(args, name, value)
    if args.entry_point and not args.entry_point.isidentifier():
        usage_error("--entry-point must be a Python identifier")
    if not args.timeout > 0:
        usage_error("--timeout must be positive")
    if not args.cpu_limit > 0:
        usage_error("--cpu-limit must be positive")
    return args


def main():
    args = parse_args(sys.argv[1:])
    if os.environ.get("PYTHONHASHSEED") != "0":
        # The tests run in a fork of this interpreter and get its hash
        # seed: start again with seed 0 (the command's Env spares this).
        env = dict(os.environ, PYTHONHASHSEED="0")
        argv = [sys.executable, "-B", "-u", os.path.abspath(__file__)]
        os.execve(sys.executable, argv + sys.argv[1:], env)
    return run_parent(args)


if __name__ == "__main__":
    sys.exit(main())
