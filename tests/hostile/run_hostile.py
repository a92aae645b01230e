#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Builds every hostile input of cases.py under OUT and runs attnscope-cli on each. A case passes when the CLI exits
with status 1 (never a signal, never a usage error), its message names the culprit file and holds the expected
fragment, and it stays within the case's wall-time and peak-RSS bounds (the child's own rusage, from wait4;
ATTNSCOPE_RSS_SCALE / ATTNSCOPE_TIME_SCALE widen them under sanitizers).

usage: run_hostile.py CLI OUT [--only NAME...]"""
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases import CASES  # noqa: E402


def run(argv, seconds):
    """(status from wait4, wall seconds, peak RSS in MiB, stderr text); the child is killed at `seconds`."""
    with tempfile.TemporaryFile() as err, open(os.devnull, "wb") as out:
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            os.execv(argv[0], argv)
        while True:
            got, status, usage = os.wait4(pid, os.WNOHANG)
            if got == pid:
                break
            if time.monotonic() - start > seconds:
                os.kill(pid, signal.SIGKILL)
                _, status, usage = os.wait4(pid, 0)
                break
            time.sleep(0.005)
        wall = time.monotonic() - start
        err.seek(0)
        return status, wall, usage.ru_maxrss / 1024.0, err.read().decode("utf-8", "replace")


def check(case, cli, root):
    d = root / case.name
    if d.exists():
        shutil.rmtree(d)
    culprit = Path(case.build(d))
    argv = [cli] + [a.replace("{dir}", str(d)) for a in case.argv]
    seconds = case.seconds * float(os.environ.get("ATTNSCOPE_TIME_SCALE", "1"))
    status, wall, rss, err = run(argv, seconds)
    problems = []
    if os.WIFSIGNALED(status):
        problems.append("killed by signal %d%s" % (os.WTERMSIG(status), " (over the time bound)" if wall >= seconds else ""))
    else:
        code = os.WEXITSTATUS(status)
        if case.ok and code != 0:
            problems.append("exit status %d, expected success" % code)
        if not case.ok:
            if code != 1:
                problems.append("exit status %d, expected 1" % code)
            if case.fragment not in err:
                problems.append("message lacks %r" % case.fragment)
            if str(culprit) not in err:
                problems.append("message does not name %s" % culprit)
    if wall > seconds:
        problems.append("took %.1f s (bound %.0f s)" % (wall, seconds))
    rss_bound = case.rss_mb * float(os.environ.get("ATTNSCOPE_RSS_SCALE", "1"))  # >1 under sanitizers
    if rss > rss_bound:
        problems.append("peak RSS %.0f MiB (bound %.0f MiB)" % (rss, rss_bound))
    if not problems:  # sparse giants (64 GiB apparent size) would trip up anything that copies the build tree
        for f in d.rglob("*"):
            if f.is_file() and not f.is_symlink() and f.stat().st_size > 1 << 30:
                f.unlink()
    return problems, wall, rss, err.strip().splitlines()[-1:] if err.strip() else [""]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cli, root = sys.argv[1], Path(sys.argv[2]).resolve()
    only = set(sys.argv[sys.argv.index("--only") + 1:]) if "--only" in sys.argv else None
    root.mkdir(parents=True, exist_ok=True)
    cases = [c for c in CASES if only is None or c.name in only]
    failed, worst = [], (0.0, "")
    for case in cases:
        problems, wall, rss, last = check(case, cli, root)
        worst = max(worst, (rss, case.name))
        print("%-34s %s %6.2f s %6.0f MiB  %s" % (case.name, "FAIL" if problems else "ok  ", wall, rss, last[0][:150]))
        for p in problems:
            print("    " + p)
        if problems:
            failed.append(case.name)
    print("%d hostile inputs, %d handled, %d failed; worst peak RSS %.0f MiB (%s)"
          % (len(cases), len(cases) - len(failed), len(failed), worst[0], worst[1]))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
