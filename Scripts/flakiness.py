#!/usr/bin/env python3
"""Flakiness as a number: runs the timing-sensitive test classes many times, under a CPU
burner, and reports each test's failure rate.

    python3 Scripts/flakiness.py [--runs 50] [--burners N] [--sanitize thread]
                                 [--report FILE] [Class ...]

Builds the tests once, then runs the test binary `--runs` times, each time with every
class named (by default the timing-sensitive ones listed below), while `--burners`
processes spin on the CPU (default: one per core, so the tests share the machine with as
much load again). A test that fails in any run is listed with its count and the first
failure message; a run that crashes or exceeds its time is counted as such. Exit status 0
only when no test failed in any run.

A test that needs a timing window gets a bigger window or virtual time, never a retry:
this script measures; it never reruns a failure to make it pass.
"""

import argparse
import collections
import multiprocessing
import os
import re
import subprocess
import sys
import time

# The classes whose tests depend on real time, threads or sockets: loopback, streams,
# transfers, WebSockets, stress, timeouts.
TIMING_SENSITIVE = [
    "LoopbackCancelStressTests", "LoopbackCancellationTests", "LoopbackDeliveryTests", "LoopbackExecutionTests",
    "StreamLoopbackTests", "TransferStressTests", "TransferFaultTests", "DownloadLoopbackTests",
    "UploadLoopbackTests", "CancelAllStressTests", "CancelAllDuringDeliveryTests", "ExecutionEndStressTests",
    "PipelineURLSessionTimeoutTests", "FaultProxyLoopbackTests", "RetryStreamLoopbackTests", "RetryLoopbackTests",
    "WebSocketLoopbackTests", "WebSocketStressTests", "AsyncWebSocketTests", "WebSocketLargeMessageTests",
    "LargeTransferTests", "FaultProxyTests", "OutboxLoopbackTests", "TakeTests", "PublishSubjectStressTests",
    "DisposablesStressTests", "OperatorChainStressTests", "CreateStressTests", "TCPByteStreamTests",
]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module_of(test_class):
    """The test target that declares `test_class` (its folder under Tests/)."""
    pattern = re.compile(r"^\s*(final\s+)?class\s+" + re.escape(test_class) + r"\b", re.M)
    for target in sorted(os.listdir(os.path.join(ROOT, "Tests"))):
        folder = os.path.join(ROOT, "Tests", target)
        for directory, _, files in os.walk(folder):
            for name in files:
                if name.endswith(".swift"):
                    with open(os.path.join(directory, name), encoding="utf-8") as source:
                        if pattern.search(source.read()):
                            return target
    return None


def build(sanitize):
    arguments = ["swift", "build", "--build-tests"]
    if sanitize:
        arguments += ["--sanitize", sanitize, "--scratch-path", ".build-" + ("tsan" if sanitize == "thread" else sanitize)]
    subprocess.run(arguments, cwd=ROOT, check=True)
    shown = subprocess.run(arguments[:2] + arguments[3:] + ["--show-bin-path"], cwd=ROOT, check=True,
                           capture_output=True, text=True)
    return os.path.join(shown.stdout.strip(), "LeashPackageTests.xctest")


def burn():
    while True:
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--burners", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--sanitize", choices=["thread", "address"])
    parser.add_argument("--timeout", type=int, default=1800, help="seconds allowed for one run of every class")
    parser.add_argument("--report", help="also write the report to this file")
    parser.add_argument("classes", nargs="*", default=TIMING_SENSITIVE)
    options = parser.parse_args()

    filters = []
    for test_class in options.classes:
        module = module_of(test_class)
        if module is None:
            sys.exit(f"no test class {test_class} under Tests/")
        filters.append(f"{module}.{test_class}")
    binary = build(options.sanitize)

    burners = [multiprocessing.Process(target=burn, daemon=True) for _ in range(options.burners)]
    for burner in burners:
        burner.start()
    runs_of = collections.Counter()
    failures_of = collections.Counter()
    first_message = {}
    crashed_runs = []
    started = time.time()
    try:
        for run in range(1, options.runs + 1):
            try:
                result = subprocess.run([binary, ",".join(filters)], cwd=ROOT, capture_output=True, text=True,
                                        timeout=options.timeout)
                output, status = result.stdout + result.stderr, result.returncode
            except subprocess.TimeoutExpired as expired:
                output = (expired.stdout or b"").decode(errors="replace") + (expired.stderr or b"").decode(errors="replace")
                status = "timed out"
            messages = collections.defaultdict(list)
            for line in output.splitlines():
                error = re.search(r": error: (\w+)\.(\w+) : (.*)$", line)
                if error:
                    messages[f"{error.group(1)}.{error.group(2)}"].append(error.group(3)[:200])
                case = re.match(r"Test Case '(\S+)' (passed|failed)", line)
                if case:
                    name = case.group(1).replace("/", ".").split(".")
                    name = ".".join(name[-2:])
                    runs_of[name] += 1
                    if case.group(2) == "failed":
                        failures_of[name] += 1
                        first_message.setdefault(name, (messages.get(name) or ["(no message)"])[0])
            # XCTest exits with 1 when a test failed; anything else (a signal, a time-out)
            # is a run that did not finish.
            if status not in (0, 1):
                crashed_runs.append((run, status, output.strip().splitlines()[-3:]))
            failed_now = sum(failures_of.values())
            print(f"run {run}/{options.runs}: exit {status}, failures so far {failed_now}, "
                  f"{time.time() - started:.0f} s", flush=True)
    finally:
        for burner in burners:
            burner.terminate()

    lines = [
        f"# Flakiness: {options.runs} runs of {len(filters)} classes, {options.burners} CPU burners"
        + (f", sanitizer {options.sanitize}" if options.sanitize else "")
        + f", {time.time() - started:.0f} s",
        "",
        f"Tests run: {len(runs_of)}; test runs: {sum(runs_of.values())}; failed: {sum(failures_of.values())}; "
        f"runs that crashed or timed out: {len(crashed_runs)}",
        "",
    ]
    if failures_of:
        lines += ["| test | failed | of runs | rate | first failure |", "|---|---|---|---|---|"]
        for name, count in failures_of.most_common():
            lines.append(f"| {name} | {count} | {runs_of[name]} | {count / runs_of[name]:.1%} | {first_message[name]} |")
    for run, status, tail in crashed_runs:
        lines.append(f"- run {run}: {status}: " + " / ".join(tail))
    if not failures_of and not crashed_runs:
        lines.append("No test failed in any run.")
    report = "\n".join(lines)
    print(report)
    if options.report:
        with open(options.report, "w", encoding="utf-8") as file:
            file.write(report + "\n")
    sys.exit(0 if not failures_of and not crashed_runs else 1)


if __name__ == "__main__":
    main()
