#!/usr/bin/env python3
"""How much of a non-blocking collective hides behind computation (benches/c/nbc_overlap.c):
for an alltoallmem of 1 KiB, 64 KiB and 512 KiB per PE pair and a double sum reduction of 8 B
and 128 KiB, the blocking collective alone (t_coll), a compute loop of about its duration that
makes no library calls (t_comp), and the non-blocking one started, the loop, then
shmem_req_wait (t_both); overlap = (t_coll + t_comp - t_both) / min(t_coll, t_comp), clamped
to [0, 1]. The program interleaves the three in every repetition and prints medians; this
driver runs it --jobs times per configuration, the configurations interleaved (reversed
every other round), and shows the medians over the jobs.

Configurations:
- one node (rshmem's oshrun) at 2 and 4 PEs, RSHMEM_NBC_THREAD=auto (a worker thread per
  team) and =off (the collective runs inside shmem_req_wait); with --sleep also with the
  computation replaced by a nanosleep (the core left free for the worker);
- every peer remote (one host, mpirun, MPI and UCX over TCP, RSHMEM_NODE_SIZE=1) under each
  engine (RSHMEM_REMOTE=ucx, mpi), with auto (no worker across nodes unless the engine is
  thread-safe), off, SHMEM_PROGRESS_THREAD=1 (auto then has a worker), RSHMEM_NBC_THREAD=on;
- with --netns (root) the same across the two network namespaces of tests/netns/ (half
  the PEs in each).

    cargo build --release && python3 benches/nbc_overlap.py [--jobs 3] [--reps 9] [--netns] [--md FILE]

Python 3 standard library only.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
import multinode  # noqa: E402  (MPI flags over TCP, Netns)
from benchlib import log, md_table  # noqa: E402

REPO = benchlib.REPO
CASES = ["alltoall-1KiB", "alltoall-64KiB", "alltoall-512KiB", "reduce-8B", "reduce-128KiB"]
# mode: variables
MODES = {"auto": {}, "off": {"RSHMEM_NBC_THREAD": "off"}, "pt": {"SHMEM_PROGRESS_THREAD": "1"},
         "on": {"RSHMEM_NBC_THREAD": "on"}}
MODE_NAMES = {"auto": "RSHMEM_NBC_THREAD=auto", "off": "RSHMEM_NBC_THREAD=off",
              "pt": "SHMEM_PROGRESS_THREAD=1", "on": "RSHMEM_NBC_THREAD=on"}


def parse(stdout):
    """The program's RESULT lines -> {case: fields}."""
    out = {}
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            d = benchlib.parse_kv(line)
            out[d.get("case")] = d
    return out


def overlap(tc, tp, tb):
    lo = min(tc, tp)
    return 0.0 if lo <= 0 else max(0.0, min(1.0, (tc + tp - tb) / lo))


def configs(a):
    """(setup, engine, np, mode, compute) to run, in order."""
    out = []
    for np in a.np:
        for mode in ("auto", "off"):
            out.append(("one node", "-", np, mode, "busy"))
            if a.sleep:
                out.append(("one node", "-", np, mode, "sleep"))
    for setup in ["remote"] + (["netns"] if a.netns else []):
        for engine in a.engines:
            for np in a.np:
                for mode in a.remote_modes:
                    out.append((setup, engine, np, mode, "busy"))
    return out


def command(a, exe, cfg, netns):
    setup, engine, np, mode, compute = cfg
    prog = [str(exe), str(a.reps), str(a.batch_ms), compute]
    env = dict(MODES[mode])
    if setup == "one node":
        return [str(Path(a.rshmem_bin) / "oshrun"), "-np", str(np), *prog], env
    cmd = ["mpirun", "-np", str(np), *multinode.MPI_FLAGS, *multinode.RSHMEM_FLAGS,
           "-x", f"RSHMEM_REMOTE={engine}"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    for k, v in env.items():
        cmd += ["-x", f"{k}={v}"]
    if setup == "remote":
        cmd += ["-x", "RSHMEM_NODE_SIZE=1"]
        return cmd + prog, env
    per = np // 2
    cmd += ["--host", ",".join(f"{h}:{per}" for h in ("10.77.0.1", "10.77.0.2")), "--bind-to", "none"]
    return netns.wrap(cmd + prog), env


def cell(runs, case):
    """overlap (t_coll / t_comp / t_both µs), medians over the jobs."""
    rows = [r[case] for r in runs if case in r]
    if not rows:
        return "-"
    tc, tp, tb = (statistics.median(x[k] for x in rows) for k in ("t_coll_us", "t_comp_us", "t_both_us"))
    return f"{overlap(tc, tp, tb):.2f} ({fmt(tc)} / {fmt(tp)} / {fmt(tb)})"


def fmt(us):
    return f"{us:.0f}" if us >= 100 else f"{us:.1f}"


def report(a, res, meta, failures):
    md = ["## Overlap of non-blocking collectives (`nbc_overlap.py`)", "",
          benchlib.started_line(meta, a.jobs) + f" Each job: {a.reps} interleaved repetitions of "
          f"t_coll, t_comp, t_both (batches of about {a.batch_ms} ms), medians, maximum over the PEs. "
          "Cells: overlap (t_coll / t_comp / t_both, µs per operation); overlap = (t_coll + t_comp - "
          "t_both) / min(t_coll, t_comp), clamped to [0, 1]: 1 hidden, 0 none.", ""]
    heads = ["setup", "engine", "PEs", "mode", "compute", *CASES]
    for setup in ("one node", "remote", "netns"):
        rows = []
        for cfg in configs(a):
            if cfg[0] != setup:
                continue
            runs = res.get(cfg, [])
            s, engine, np, mode, compute = cfg
            rows.append([s, engine, str(np), MODE_NAMES[mode], compute, *(cell(runs, c) for c in CASES)])
        if rows:
            md += md_table(heads, rows, {2}) + [""]
    for f in failures:
        md.append(f"FAILED: {f}")
    return "\n".join(md).rstrip() + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rshmem-bin", default=str(REPO / "target" / "release"))
    ap.add_argument("--jobs", type=int, default=3, help="jobs per configuration (median over them)")
    ap.add_argument("--reps", type=int, default=9, help="interleaved repetitions inside a job")
    ap.add_argument("--batch-ms", type=float, default=4.0, help="milliseconds per measured batch")
    ap.add_argument("--np", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--engines", nargs="+", choices=["ucx", "mpi"], default=["ucx", "mpi"])
    ap.add_argument("--remote-modes", nargs="+", choices=list(MODES), default=["auto", "off", "pt", "on"])
    ap.add_argument("--sleep", action="store_true", help="one node: also with a sleeping computation")
    ap.add_argument("--netns", action="store_true", help="also across the namespaces of tests/netns/ (root)")
    ap.add_argument("--netns-dir", default=str(REPO / "tests" / "netns"))
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--md", help="write the Markdown here")
    ap.add_argument("-v", action="store_true", help="print every command and its output")
    a = ap.parse_args()
    if a.netns and os.geteuid() != 0:
        sys.exit("nbc_overlap.py: --netns needs root (ip netns, unshare)")
    if not shutil.which("mpirun"):
        sys.exit("nbc_overlap.py: no mpirun on PATH")
    t0, env0 = benchlib.start()
    failures = []
    res = {}
    with tempfile.TemporaryDirectory(prefix="rshmem-nbc-") as tmp:
        exe = Path(tmp) / "nbc_overlap"
        err = benchlib.build(Path(a.rshmem_bin) / "oshcc", [REPO / "benches" / "c" / "nbc_overlap.c"], exe,
                             ["-std=c11"])
        if err:
            sys.exit(f"nbc_overlap.py: {err}")
        benchlib.log_library(exe, env0, "nbc_overlap")
        netns = None
        try:
            if a.netns:
                netns = multinode.Netns(a.netns_dir)
            cfgs = configs(a)
            for job in range(a.jobs):
                for cfg in (cfgs if job % 2 == 0 else cfgs[::-1]):
                    cmd, extra = command(a, exe, cfg, netns)
                    env = {**env0, **extra, **(netns.env() if netns and cfg[0] == "netns" else {})}
                    try:
                        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=a.timeout)
                        rc, out, errs = p.returncode, p.stdout, p.stderr
                    except subprocess.TimeoutExpired:
                        rc, out, errs = None, "", "timed out"
                    if a.v:
                        log(f"$ {' '.join(cmd)}\n{out}{errs}")
                    r = parse(out)
                    if rc != 0 or len(r) != len(CASES):
                        tail = "\n".join(errs.strip().splitlines()[-6:])
                        failures.append(f"{cfg} job {job + 1}: exit {rc}, {len(r)} results:\n{tail}")
                        log(f"job {job + 1} {cfg}: FAILED (exit {rc})")
                        continue
                    res.setdefault(cfg, []).append(r)
                    log(f"job {job + 1}/{a.jobs} {cfg}: " + ", ".join(
                        f"{c.split('-', 1)[1] if c.startswith('alltoall') else c} {r[c]['overlap']:.2f}"
                        for c in CASES))
        finally:
            if netns:
                netns.close()
    meta = benchlib.meta(t0, benchlib.shown_command("benches/nbc_overlap.py"))
    return benchlib.finish(report(a, res, meta, failures), failures, a.md, meta["wall"])


if __name__ == "__main__":
    sys.exit(main())
