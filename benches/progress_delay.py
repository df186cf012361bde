#!/usr/bin/env python3
"""The progress thread measured: how long PE 0's 8-byte put + quiet waits for a PE that
computes (or sleeps) without library calls, with and without SHMEM_PROGRESS_THREAD, and
what the thread costs an idle PE in CPU time (benches/c/progress_delay.c). The sleeping
target shows the thread's own latency; the computing one adds the wait for a CPU, which
on a machine with more runnable threads than cores is the scheduler's time slice.

Runs under one-host `mpirun` with Open MPI kept off shared memory (TCP, osc ucx) and
RSHMEM_NODE_SIZE=1, so the two PEs are on different virtual nodes, under each remote
engine (`--engines`, RSHMEM_REMOTE: UCX's UCP API and MPI-3 RMA). Prints a Markdown
table. Python 3 standard library only.

    cargo build --release && python3 benches/progress_delay.py
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPI_FLAGS = ["--oversubscribe", "--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "osc", "ucx",
             "--mca", "mpi_yield_when_idle", "1", "-x", "UCX_TLS=tcp", "-x", "RSHMEM_NODE_SIZE=1"]


def run(exe, args, interval, timeout, engine):
    """One job; returns the RESULT fields of both PEs as a dict of floats."""
    cmd = ["mpirun"] + (["--allow-run-as-root"] if os.getuid() == 0 else []) + MPI_FLAGS
    cmd += ["-x", f"RSHMEM_REMOTE={engine}"]
    if interval is not None:
        cmd += ["-x", "SHMEM_PROGRESS_THREAD=1", "-x", f"SHMEM_PROGRESS_INTERVAL={interval}"]
    cmd += ["-np", "2", exe] + [str(a) for a in args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    fields = {}
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            words = line.split()[1:]
            fields.update({k: float(v) for k, v in zip(words[::2], words[1::2])})
    if p.returncode != 0 or "delay_us" not in fields:
        sys.exit(f"progress_delay: {' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return fields


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rshmem-bin", default=os.path.join(ROOT, "target", "release"),
                    help="where rshmem's oshcc is (default target/release)")
    ap.add_argument("--compute-ms", type=int, default=500, help="how long the target computes per round")
    ap.add_argument("--rounds", type=int, default=5, help="rounds per job (the table shows the median)")
    ap.add_argument("--idle-ms", type=int, default=2000, help="idle period over which the target's CPU is measured")
    ap.add_argument("--intervals", type=int, nargs="+", default=[10, 50, 200],
                    help="SHMEM_PROGRESS_INTERVAL values in µs")
    ap.add_argument("--jobs", type=int, default=3, help="jobs per row (the CPU column shows the median)")
    ap.add_argument("--engines", nargs="+", choices=["ucx", "mpi"], default=["ucx", "mpi"],
                    help="remote engines (RSHMEM_REMOTE), a block of rows each")
    args = ap.parse_args()
    for tool in ("mpirun",):
        if not shutil.which(tool):
            sys.exit(f"progress_delay: no {tool} on PATH (install an MPI, e.g. openmpi-bin libopenmpi-dev)")
    oshcc = os.path.join(args.rshmem_bin, "oshcc")
    if not os.path.isfile(os.path.join(args.rshmem_bin, "librshmem_mpi.so")):
        sys.exit(f"progress_delay: {args.rshmem_bin}/librshmem_mpi.so was not built (no mpicc at build time?)")
    # Programs find librshmem.so through their RUNPATH; a debug one on LD_LIBRARY_PATH would win.
    env_path = os.environ.get("LD_LIBRARY_PATH", "")
    os.environ["LD_LIBRARY_PATH"] = ":".join(p for p in env_path.split(":") if p and not p.startswith(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "progress_delay")
        subprocess.run([oshcc, "-std=c11", "-O2", "-o", exe, os.path.join(ROOT, "benches", "c", "progress_delay.c")],
                       check=True)
        print(f"{args.rounds} rounds × {args.jobs} jobs per row, target computes {args.compute_ms} ms, "
              f"CPU over {args.idle_ms} ms idle; rshmem from {args.rshmem_bin}\n")
        print("| engine | progress thread | interval | put + quiet, computing target (median / max) "
              "| put + quiet, sleeping target (median / max) | idle target CPU |")
        print("|---|---|---:|---:|---:|---:|")
        timeout = 60 + args.rounds * args.compute_ms / 1000 * 2 + args.idle_ms / 1000
        for engine in args.engines:
            for interval in [None] + args.intervals:
                cells, cpus = [], []
                for mode in ("busy", "sleep"):
                    delays, maxes = [], []
                    for _ in range(args.jobs):
                        idle = args.idle_ms if mode == "busy" else 0
                        f = run(exe, [args.compute_ms, args.rounds, idle, mode], interval, timeout, engine)
                        delays.append(f["delay_us"])
                        maxes.append(f["delay_max_us"])
                        if mode == "busy":
                            cpus.append(f["idle_cpu_pct"])
                    cells.append(f"{fmt(statistics.median(delays))} / {fmt(max(maxes))}")
                name = "off" if interval is None else "on"
                iv = "" if interval is None else f"{interval} µs"
                print(f"| {engine} | {name} | {iv} | {cells[0]} | {cells[1]} | {statistics.median(cpus):.1f} % |",
                      flush=True)


def fmt(us):
    return f"{us / 1000:.1f} ms" if us >= 1000 else f"{us:.0f} µs"


if __name__ == "__main__":
    main()
