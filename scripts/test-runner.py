#!/usr/bin/env python3
"""Runs the test suite (`swift test ...`) with its whole output in a log file and a short account on
the terminal: one progress line a minute, every failure as it happens (capped), the summary line.

A run that goes silent (no line from Swift Testing for --silence seconds: nothing started, passed or
failed) is a hang: the runner prints which tests started and never ended, the test process's
threads (gdb, when installed), kills the run and exits 124, so CI fails in minutes with the cause
instead of waiting out its own limit.

    scripts/test-runner.py --log FILE [--silence 1200] [--verbose] -- swift test --skip-build ...
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

STARTED = re.compile(r'◇ Test "(.*)" started\.')
ENDED = re.compile(r'[✔✘] Test "(.*?)" (?:with \d+ test cases? )?(?:passed|failed)')
FAILURE = re.compile(r"✘|recorded an issue|error:|fatal error|Fatal error")
SUMMARY = re.compile(r"Test run with \d+ tests?")
FAILURE_LINES_CAP = 400


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--silence", type=int, default=int(os.environ.get("BOOKSCAN_TEST_SILENCE", "1200")))
    parser.add_argument("--verbose", action="store_true", help="print every line, not only the account")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("no test command")

    log = open(options.log, "w", encoding="utf-8", errors="replace")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    state = {"last": time.time(), "passed": 0, "failed": 0, "printed": 0, "continuation": 0}
    running = {}
    lock = threading.Lock()
    began = time.time()

    def say(line):
        sys.stdout.write(line if line.endswith("\n") else line + "\n")
        sys.stdout.flush()

    def read():
        for raw in process.stdout:
            line = raw.decode("utf-8", errors="replace")
            log.write(line)
            log.flush()
            if options.verbose:
                say(line)
            with lock:
                state["last"] = time.time()
                started = STARTED.search(line)
                if started:
                    running[started.group(1)] = time.time()
                ended = ENDED.search(line)
                if ended:
                    running.pop(ended.group(1), None)
                    state["passed" if "✔" in line else "failed"] += 1
                show = False
                if SUMMARY.search(line):
                    show = True
                elif FAILURE.search(line) and "passed after" not in line:
                    show = True
                    state["continuation"] = 30  # the lines an issue prints under itself (↳ …, tables)
                elif state["continuation"] > 0 and (line.startswith((" ", "↳", "\t")) or not line.strip()):
                    show = True
                    state["continuation"] -= 1
                else:
                    state["continuation"] = 0
                if show and not options.verbose and state["printed"] < FAILURE_LINES_CAP:
                    state["printed"] += 1
                    say(line[:2000])
                    if state["printed"] == FAILURE_LINES_CAP:
                        say(f"test-runner: more failure lines in {options.log}")

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    next_progress = time.time() + 60
    while process.poll() is None:
        time.sleep(1)
        now = time.time()
        with lock:
            silent = now - state["last"]
            if now >= next_progress and not options.verbose:
                next_progress = now + 60
                say(f"test-runner: {int(now - began)} s, {state['passed']} passed, {state['failed']} failed, {len(running)} running")
            if silent < options.silence:
                continue
            unfinished = sorted(running.items(), key=lambda item: item[1])
        report_hang(options, process, unfinished, silent, say)
        reader.join(5)
        log.close()
        return 124
    reader.join(30)
    status = process.wait()
    say(f"test-runner: exit {status} after {int(time.time() - began)} s; the whole output is in {options.log}")
    log.close()
    return status


def report_hang(options, process, unfinished, silent, say):
    say(f"test-runner: HANG: no test started or ended for {int(silent)} s; tests that started and never ended:")
    now = time.time()
    for name, started in unfinished[:40]:
        say(f"  - {name} (running {int(now - started)} s)")
    traces = thread_traces(process.pid)
    if traces:
        with open(options.log, "a", encoding="utf-8") as log:
            log.write("\n=== threads of the hung test process\n" + traces)
        say("test-runner: the hung process's threads (our frames; the whole traces are in the log):")
        for line in condensed(traces)[:150]:
            say("  " + line)
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    say(f"test-runner: killed the run; exit 124 (the whole output is in {options.log})")


def thread_traces(root):
    """gdb's backtraces of every thread of the test processes under `root` (the test binary itself)."""
    if not shutil.which("gdb"):
        return ""
    children = subprocess.run(["pgrep", "-s", str(root)], capture_output=True, text=True).stdout.split()
    traces = []
    for pid in children:
        try:
            name = open(f"/proc/{pid}/comm").read().strip()
        except OSError:
            continue
        if not (name.endswith("PackageTests") or "xctest" in name or "swiftpm-testing" in name or name.startswith("bookscanPack")):
            continue
        result = subprocess.run(["gdb", "-p", pid, "-batch", "-ex", "thread apply all bt 40"],
                                capture_output=True, text=True, timeout=600)
        traces.append(f"--- pid {pid} ({name})\n{result.stdout}")
    return "\n".join(traces)


def condensed(traces):
    """Per thread, the frames in the project's own modules (demangled names shortened)."""
    lines = []
    for block in re.split(r"\n(?=Thread \d+ )", traces):
        if not block.startswith("Thread"):
            continue
        own = [re.sub(r"^#\d+\s+(0x[0-9a-f]+ in )?", "", frame).split(" (")[0][:160]
               for frame in block.splitlines()
               if frame.startswith("#") and re.search(r"(Scan|Bookscan|bookscan|Spine|Image|Postgres|Tracker|Fault|Test)", frame)]
        if own:
            lines.append(block.splitlines()[0][:100])
            lines.extend("    " + frame for frame in own[:8])
    return lines


if __name__ == "__main__":
    sys.exit(main())
