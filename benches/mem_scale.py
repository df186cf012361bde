#!/usr/bin/env python3
"""Memory of a whole job at scale: page tables and resident memory with benches/c/mem_scale.c.

    cargo build --release
    python3 benches/mem_scale.py [--np 64 128 256 512 1024] [--baseline-bin DIR]

Builds benches/c/mem_scale.c with each rshmem build's oshcc (this one's, target/release, and
optionally another's: --baseline-bin, e.g. an installed copy of the commit before a change)
and runs it once per PE count with `oshrun -np N` (oversubscribed: any N works on any
machine that has the memory), the baseline first. Every PE reads VmPTE (/proc/self/status)
and Rss/Pss (/proc/self/smaps_rollup) after shmem_init and after a shmem_long_alltoall of one
long per pair; PE 0 prints the sums. While a job runs this script watches MemAvailable
(/proc/meminfo) every 0.2 s: the table shows how far it fell below its value at the start
(the job's peak, other users of the machine included), and a job that brings it under
--min-available GiB is ended (with its PEs) and shown as such.

Output: a Markdown table on standard output (MiB = 2^20 bytes). Python 3 standard library only.
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
SRC = BENCH_DIR / "c" / "mem_scale.c"
COLUMNS = [
    ("pte_total_init", "page tables after init"),
    ("pte_total_alltoall", "page tables after alltoall"),
    ("pte_max_alltoall", "largest PE's page tables"),
    ("pss_total_alltoall", "Pss after alltoall"),
    ("rss_total_alltoall", "Rss after alltoall"),
]


def mem_available_kib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    return 0


def run(oshrun, np, exe, timeout, min_available_kib):
    """(results, lowest MemAvailable drop in MiB, wall seconds, note) of one job."""
    start_avail = lowest = mem_available_kib()
    t0 = time.monotonic()
    p = subprocess.Popen([str(oshrun), "-np", str(np), str(exe)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    note = ""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        pumps = [threading.Thread(target=lambda s=s, d=d: d.write(s.read()))
                 for s, d in ((p.stdout, out), (p.stderr, err))]
        for t in pumps:
            t.start()
        while p.poll() is None:
            avail = mem_available_kib()
            lowest = min(lowest, avail)
            if avail < min_available_kib or time.monotonic() - t0 > timeout:
                note = ("ended: MemAvailable under the limit" if avail < min_available_kib
                        else "ended: timeout")
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                break
            time.sleep(0.2)
        p.wait()
        for t in pumps:
            t.join()
        out.seek(0)
        err.seek(0)
        text, errors = out.read(), err.read()
    wall = time.monotonic() - t0
    results = {}
    for m in re.finditer(r"^RESULT (\S+) \S+ \d+ (\S+) (\S+)$", text, re.M):
        results[m.group(1)] = float(m.group(2))
    if p.returncode != 0 and not note:
        last = errors.strip().splitlines()[-1:]
        note = f"exit status {p.returncode}" + (f": {last[0]}" if last else "")
    return results, (start_avail - lowest) / 1024.0, wall, note


def fmt(v):
    return "-" if v is None else (f"{v:,.0f}" if v >= 100 else f"{v:.3g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rshmem-bin", default=str(REPO / "target" / "release"),
                    help="directory with this build's oshcc and oshrun (default: target/release)")
    ap.add_argument("--baseline-bin", help="another rshmem build's oshcc/oshrun, run first as 'baseline'")
    ap.add_argument("--np", type=int, nargs="+", default=[64, 128, 256, 512, 1024])
    ap.add_argument("--min-available", type=float, default=4.0,
                    help="GiB of MemAvailable under which a job is ended (default 4)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per job (default 600)")
    args = ap.parse_args()
    builds = ([("baseline", Path(args.baseline_bin))] if args.baseline_bin else []) + \
        [("rshmem", Path(args.rshmem_bin))]
    with tempfile.TemporaryDirectory() as tmp:
        exes = {}
        for name, bindir in builds:
            exe = Path(tmp) / f"mem_scale_{name}"
            subprocess.run([str(bindir / "oshcc"), "-O2", "-o", str(exe), str(SRC)], check=True)
            exes[name] = exe
        print("| PEs | build | " + " | ".join(h + " (MiB)" for _, h in COLUMNS) +
              " | MemAvailable drop (MiB) | alltoall (s) | job (s) |")
        print("|---:|---|" + "---:|" * (len(COLUMNS) + 3))
        for np in args.np:
            for name, bindir in builds:
                res, drop, wall, note = run(bindir / "oshrun", np, exes[name], args.timeout,
                                            args.min_available * 1024 * 1024)
                cells = [fmt(res.get(k)) for k, _ in COLUMNS]
                label = name + (f" ({note})" if note else "")
                print(f"| {np} | {label} | " + " | ".join(cells) +
                      f" | {drop:,.0f} | {fmt(res.get('alltoall_time'))} | {wall:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
