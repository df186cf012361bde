#!/usr/bin/env python3
"""The CG example (examples/cg/) blocking against non-blocking: the dot products' reduction
with shmem_double_sum_reduce, or started with shmem_double_sum_reduce_nb and overlapped with
the halo exchange and the matrix-vector product. Paired, interleaved jobs (blocking then nb,
the other way round on the next rep), --reps times per configuration, at each PE count, on
one node (RSHMEM_NBC_THREAD=auto and =off) and with every peer remote (one host, mpirun over
TCP, RSHMEM_NODE_SIZE=1, each engine, with and without SHMEM_PROGRESS_THREAD=1). Every job
must verify, and the two variants of a configuration must print one checksum. The table
shows medians of the time per iteration and its split, and nb / blocking.

    cargo build --release && python3 benches/cg.py [--reps 5] [--n 64] [--np 2 4] [--md FILE]

Python 3 standard library only.
"""
import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
import compare  # noqa: E402  (run)
import multinode  # noqa: E402  (MPI flags over TCP)
from benchlib import log, md_table  # noqa: E402

REPO = benchlib.REPO
VARIANTS = ["blocking", "nb"]


def configs(a):
    out = [("one node", "-", np, mode) for np in a.np for mode in ("auto", "off")]
    if not a.no_remote:
        out += [("remote", e, np, pt) for e in a.engines for np in a.np for pt in ("auto", "pt")]
    return out


def command(a, exe, cfg, variant):
    setup, engine, np, mode = cfg
    prog = [str(exe), "-v", variant, "-n", str(a.n)]
    if setup == "one node":
        return [str(Path(a.rshmem_bin) / "oshrun"), "-np", str(np), *prog], \
            ({"RSHMEM_NBC_THREAD": "off"} if mode == "off" else {})
    cmd = ["mpirun", "-np", str(np), *multinode.MPI_FLAGS, *multinode.RSHMEM_FLAGS,
           "-x", f"RSHMEM_REMOTE={engine}", "-x", "RSHMEM_NODE_SIZE=1"]
    if mode == "pt":
        cmd += ["-x", "SHMEM_PROGRESS_THREAD=1"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd + prog, {}


def med(runs, key):
    vals = [r[key] for r in runs if isinstance(r.get(key), (int, float))]
    return statistics.median(vals) if vals else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rshmem-bin", default=str(REPO / "target" / "release"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--n", type=int, default=64, help="grid side (cg -n)")
    ap.add_argument("--np", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--engines", nargs="+", choices=["ucx", "mpi"], default=["ucx", "mpi"])
    ap.add_argument("--no-remote", action="store_true")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--md")
    a = ap.parse_args()
    t0, env0 = benchlib.start()
    failures, res, sums = [], {}, {}
    with tempfile.TemporaryDirectory(prefix="rshmem-cg-") as tmp:
        exe = Path(tmp) / "cg"
        err = benchlib.build(Path(a.rshmem_bin) / "oshcc", [REPO / "examples" / "cg" / "cg.c"], exe,
                             ["-std=c11", "-lm"])
        if err:
            sys.exit(f"cg.py: {err}")
        for rep in range(a.reps):
            for cfg in configs(a):
                for v in (VARIANTS if rep % 2 == 0 else VARIANTS[::-1]):
                    cmd, extra = command(a, exe, cfg, v)
                    rc, out, errs, secs = compare.run(cmd, {**env0, **extra}, a.timeout)
                    d = next((benchlib.parse_kv(line) for line in out.splitlines() if line.startswith("RESULT ")),
                             None)
                    if rc != 0 or not d or d.get("verified") != "yes":
                        failures.append(f"{cfg} {v} rep {rep + 1}: exit {rc}:\n{errs[-600:]}")
                        continue
                    res.setdefault((cfg, v), []).append(d)
                    sums.setdefault(cfg, set()).add(str(d["checksum"]))
                    log(f"rep {rep + 1} {cfg} {v}: {d['iter_us']:.1f} us/iteration, {d['checksum']}")
    heads = ["setup", "engine", "PEs", "mode", "iterations", "blocking µs/it", "nb µs/it", "nb / blocking",
             "blocking reduce / product / update µs", "nb reduce wait / product / update µs", "checksums"]
    rows = []
    names = {"auto": "RSHMEM_NBC_THREAD=auto", "off": "RSHMEM_NBC_THREAD=off", "pt": "SHMEM_PROGRESS_THREAD=1"}
    for cfg in configs(a):
        b, n = res.get((cfg, "blocking"), []), res.get((cfg, "nb"), [])
        mb, mn = med(b, "iter_us"), med(n, "iter_us")
        split = [" / ".join("-" if med(r, k) is None else f"{med(r, k):.0f}"
                            for k in ("reduce_us", "product_us", "update_us")) for r in (b, n)]
        same = sums.get(cfg, set())
        rows.append([cfg[0], cfg[1], str(cfg[2]), names[cfg[3]], f"{med(b + n, 'iter') or 0:.0f}",
                     "-" if mb is None else f"{mb:.0f}", "-" if mn is None else f"{mn:.0f}",
                     f"{mn / mb:.3f}" if mb and mn else "-", split[0], split[1],
                     "one" if len(same) == 1 else f"{len(same)} DIFFERENT"])
        if len(same) > 1:
            failures.append(f"{cfg}: blocking and nb checksums differ: {sorted(same)}")
    meta = benchlib.meta(t0, benchlib.shown_command("benches/cg.py"))
    md = ["## CG: blocking against non-blocking reduction (`cg.py`)", "",
          benchlib.started_line(meta, a.reps) + f" Grid {a.n}^3, until ||r|| <= 1e-8 ||b||; "
          "paired jobs, blocking and nb in alternating order.", ""] + \
        md_table(heads, rows, {2, 4, 5, 6, 7}) + [""]
    return benchlib.finish("\n".join(md), failures, a.md, meta["wall"])


if __name__ == "__main__":
    sys.exit(main())
