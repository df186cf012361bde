#!/usr/bin/env python3
"""Side-by-side benchmark of rshmem against Open MPI's OSHMEM, plus the machine floor.

Builds the C programs of benches/c/ with each implementation's `oshcc`, runs them with
its `oshrun`, interleaved (rshmem, Open MPI, Open MPI, rshmem, ... so that slow drifts of
the machine hit both alike), `--reps` times each, and prints the median of every metric
in one table. See benches/README.md for what is measured and how to read the table.
With --psync-strategies, rshmem runs once per pSync strategy (SHMEM_PSYNC_STRATEGY), each
one a column of its own (rshmem/<strategy>), interleaved with the others the same way.
With `mpicc` and `mpirun` on PATH, coll's rows also get an MPI column: c/mpi_coll.c, the
MPI collectives in their place, run as one more implementation (benches/collmpi.py).

    cargo build --release
    python3 benches/compare.py [--reps 3] [--np 2 4 8] [--only coll] [--csv out.csv]
    python3 benches/compare.py --only coll --no-ompi --psync-strategies all --reps 5

Python 3 standard library only.
"""

import argparse
import csv
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # its modules (collmpi, texttable) leave no benches/__pycache__
sys.path.insert(0, str(BENCH_DIR))
import collmpi  # noqa: E402  (benches/collmpi.py: mpi_coll.c's rows and their coll.c twins)
from texttable import cell, fmt, fmt_size, lower_is_better, runs, spread, table  # noqa: E402,F401

C_DIR = BENCH_DIR / "c"
REPO = BENCH_DIR.parent

CFLAGS = ["-O2", "-Wall", "-Wextra"]

# Every implementation gets the same symmetric heap: bandwidth.c allocates two 64 MiB
# buffers, which needs >= 160 MiB with allocator overhead.
COMMON_ENV = {"SHMEM_SYMMETRIC_SIZE": "256M"}
# Except these programs, which measure start-up time and memory with each implementation's
# DEFAULT heap size: their runs have these variables removed (COMMON_ENV's and the caller's).
DEFAULT_HEAP_PROGRAMS = ("hello", "mem")
HEAP_VARS = ("SHMEM_SYMMETRIC_SIZE", "SMA_SYMMETRIC_SIZE")

# Open MPI 4.1.4 (Debian 12, UCX 1.13.1) settings, found on this machine (see README.md).
# It always runs as `oshrun [--allow-run-as-root] --oversubscribe -np N`.
#  - OMPI_MCA_opal_common_ucx_opal_mem_hooks=0: without it every job segfaults in
#    shmem_finalize. spml/ucx registers a memory-release hook with OPAL
#    (opal_mem_hooks_register_release; the callback is in libmca_common_ucx.so.40) and
#    never unregisters it; that library is unloaded during finalize, and the next free()
#    (in osc/rdma's finalize) calls the dangling hook. With the parameter at 0 the hook
#    is never installed (UCX uses its own memory hooks instead, irrelevant to
#    shared-memory transports). Same bug as https://github.com/open-mpi/ompi/issues/11604.
#    OMPI_MCA_osc=^rdma also works (it removes the free() that trips over the hook) but
#    leaves the dangling pointer. The results are parsed from stdout anyway and a
#    non-zero exit after complete RESULT lines is not a failure.
#  - Collectives, binding: defaults (scoll/mpi; bound to cores at <= 2 PEs, unbound
#    when oversubscribed); the alternatives measured the same or worse (README.md).
#  - UCX_TLS=self,sm: the only spml is ucx; with the symmetric heap allocated by UCX
#    (sshmem/ucx, the default) UCX maps the peers' heaps through its sysv/posix
#    shared-memory transports and put/get are plain loads/stores: the fastest path here
#    (sshmem/mmap or sysv: 2-10x slower; tcp: 100x; cma alone: cannot start). Listing
#    only shared-memory transports keeps UCX from ever falling back to tcp silently.
OMPI_ENV = {
    "OMPI_MCA_opal_common_ucx_opal_mem_hooks": "0",
    "UCX_TLS": "self,sm",
}

# What each program must print: (benchmark, size) pairs; npes must be the job's.
# latency.c's sizes: 8 * 4^k bytes up to 512 KiB, then 1 MiB.
LATENCY_SIZES = [8 << (2 * k) for k in range(9)] + [1 << 20]
EXPECTED = {
    "latency": [(b, s) for b in ("put_latency", "get_latency", "put_nbi_latency") for s in LATENCY_SIZES]
    + [("p_latency", 8), ("g_latency", 8), ("pingpong_latency", 8)],
    "global": [(f"{op}_{kind}", 8) for op in ("put_latency", "get_latency", "p_latency", "g_latency",
                                              "atomic_fetch_add_latency", "pingpong_latency")
               for kind in ("global", "heap_twin")],
    "msgrate": [("put_nbi_rate", 8)],
    "msgrate_all": [("put_nbi_rate_allpeers", 8)],
    "atomic": [("atomic_fetch_add_latency", 8), ("atomic_add_rate", 8), ("atomic_add_latency", 8),
               ("atomic_compare_swap_latency", 8), ("atomic_fetch_latency", 8)],
    "atomic_contended": [("atomic_fetch_add_contended_rate", 8)],
    "put_signal": [("put_signal_latency", 8), ("put_signal_latency", 64 << 10)],
    "semaphore": [("sem_memput_signal_latency", 8), ("sem_memput_signal_latency", 64 << 10),
                  ("put_signal_add_latency", 8), ("put_signal_add_latency", 64 << 10),
                  ("sem_post_latency", 0)],
    "barrier": [("barrier", 0)],
    "coll": [("barrier_all", 0), ("barrier_activeset", 0), ("team_sync", 0),
             *((b, s) for b in ("broadcast64", "broadcastmem") for s in (8, 64 << 10, 1 << 20)),
             ("fcollect64", 8), ("fcollectmem", 8), ("alltoall64", 8), ("alltoall64", 64 << 10),
             ("alltoallmem", 8), ("alltoallmem", 64 << 10),
             *((b, s) for b in ("long_sum_to_all", "long_sum_reduce", "double_sum_to_all", "double_sum_reduce")
               for s in (8, 32 << 10, 1 << 20))],
    "bandwidth": [("put_bw", 1 << 20), ("put_bw", 64 << 20), ("get_bw", 1 << 20), ("get_bw", 64 << 20)],
    "floor": [("memcpy_bw", 1 << 20), ("memcpy_bw", 64 << 20), ("cacheline_pingpong", 8), ("yield_handoff", 0)],
    "mem": [("rss_after_init_max", 0), ("rss_after_init_mean", 0)],
    # hello.c prints no RESULT line: compare.py times the whole `oshrun -np N hello` (see STARTUP).
    "hello": [("startup", 0)],
}
SHMEM_PROGRAMS = ["latency", "global", "msgrate", "msgrate_all", "atomic", "atomic_contended", "put_signal",
                  "semaphore", "barrier", "coll", "bandwidth", "mem", "hello"]
# Programs run at every --np PE count (all PEs work); hello at every --startup-np; the others
# at every --p2p-np.
NP_PROGRAMS = ("msgrate_all", "atomic_contended", "barrier", "coll", "mem")
# hello.c: shmem_init + shmem_finalize only. Its benchmark `startup` is the wall time (s) of
# the whole launcher command, timed here; PE 0 prints `STARTED <npes>` so that a job that
# failed to start is not timed. Run --startup-runs times per rep and PE count.
STARTUP = "hello"

# Programs that use routines an implementation may lack (newer than OpenSHMEM 1.4): when
# one does not build because of undeclared or undefined routines, its rows say "n/a" for
# that implementation instead of counting as an error. Open MPI 4.1 (OpenSHMEM 1.4) has no
# shmem_putmem_signal / shmem_signal_wait_until (`nm -D liboshmem.so | grep signal`).
OPTIONAL = {"put_signal": "shmem_putmem_signal / shmem_signal_wait_until (OpenSHMEM 1.5)",
            "semaphore": "shmemx_sem_* / shmemx_memput_signal (rshmem extensions)"}
MISSING_ROUTINE = ("undefined reference", "implicit declaration", "undeclared", "unknown type name")
# OPTIONAL programs that only rshmem can build (its shmemx.h extensions): they are built for
# rshmem's columns only, and the other implementations' rows say "n/a" without a build
# attempt. Should one be built anyway with another oshcc (--rshmem-bin pointing at another
# implementation, as in the A/A run of README.md), OPTIONAL turns its failure into "n/a" too.
RSHMEM_ONLY = {"semaphore"}
# Rows left out at compile time: a program that builds against an older shmem.h but leaves
# some routines out prints `NA <benchmark> <size_bytes> <npes> <unit> <reason>` instead of their
# RESULT lines (coll.c: the team-based collectives of OpenSHMEM 1.5 against Open MPI 4.1's
# 1.4 header); those rows say "n/a" for that implementation and are not missing.

# Floor metric to show next to a benchmark: (benchmark, size) -> (floor benchmark, size).
FLOOR_FOR = {
    ("pingpong_latency", 8): ("cacheline_pingpong", 8),
    ("pingpong_latency_global", 8): ("cacheline_pingpong", 8),
    ("put_signal_latency", 8): ("cacheline_pingpong", 8),
    ("sem_memput_signal_latency", 8): ("cacheline_pingpong", 8),
    ("put_signal_add_latency", 8): ("cacheline_pingpong", 8),
    ("sem_post_latency", 0): ("cacheline_pingpong", 8),
    ("put_bw", 1 << 20): ("memcpy_bw", 1 << 20),
    ("put_bw", 64 << 20): ("memcpy_bw", 64 << 20),
    ("get_bw", 1 << 20): ("memcpy_bw", 1 << 20),
    ("get_bw", 64 << 20): ("memcpy_bw", 64 << 20),
}

ORDER = ["put_latency", "get_latency", "put_nbi_latency", "p_latency", "g_latency", "pingpong_latency",
         "put_latency_global", "get_latency_global", "p_latency_global", "g_latency_global",
         "pingpong_latency_global", "atomic_fetch_add_latency_global",
         "put_nbi_rate", "put_nbi_rate_allpeers", "put_signal_latency",
         "sem_memput_signal_latency", "put_signal_add_latency", "sem_post_latency",
         "atomic_fetch_add_latency", "atomic_add_latency", "atomic_compare_swap_latency", "atomic_fetch_latency",
         "atomic_add_rate", "atomic_fetch_add_contended_rate", "barrier",
         "barrier_all", "barrier_activeset", "team_sync", "broadcast64", "broadcastmem",
         "fcollect64", "fcollectmem", "alltoall64", "alltoallmem", "long_sum_to_all", "long_sum_reduce",
         "double_sum_to_all", "double_sum_reduce",
         "put_bw", "get_bw", "startup", "rss_after_init_max", "rss_after_init_mean",
         "memcpy_bw", "cacheline_pingpong"]

TIE = 0.05  # relative difference below which the "better" column says "~"

# rshmem's pSync strategies (SHMEM_PSYNC_STRATEGY; src/psync/mod.rs, STRATEGIES): how the
# team collectives (coll.c's team_sync, broadcastmem, fcollectmem, alltoallmem,
# long_sum_reduce) synchronise. --psync-strategies runs rshmem once per strategy named, the
# variable set for those runs only; `all` is this list, in this order.
PSYNC_VAR = "SHMEM_PSYNC_STRATEGY"
def library_strategies(bin_dir):
    """The pSync strategies the rshmem build in bin_dir accepts, as its SHMEM_INFO lists them
    ("value X, default Y; one of: a, b, ..."), so that a new strategy needs no edit here."""
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "hello")
        err = build(Path(bin_dir) / "oshcc", C_DIR / "hello.c", exe)
        if err:
            sys.exit(f"compare.py: {err}")
        root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
        out = subprocess.run([os.path.join(bin_dir, "oshrun"), *root, "-np", "1", exe], capture_output=True,
                             text=True, env=dict(os.environ, SHMEM_INFO="1"), timeout=60)
    out = out.stdout + out.stderr  # SHMEM_INFO prints on standard error
    m = re.search(r"SHMEM_PSYNC_STRATEGY\n.*; one of: (.*)", out)
    if not m:
        sys.exit(f"compare.py: {bin_dir}/oshrun's SHMEM_INFO lists no pSync strategies")
    return [n.strip() for n in m.group(1).split(",")]


class Impl:
    def __init__(self, key, label, bindir, run_prefix, env, build_key=None, build_label=None, shown_env=None,
                 sources=None):
        self.key = key
        self.label = label
        # Columns that run the same binaries under another environment (rshmem's pSync
        # strategies) share one build: its directory and the label of its messages.
        self.build_key = build_key or key
        self.build_label = build_label or label
        self.shown_env = shown_env or {}  # the variables that set this column apart, shown in commands
        self.bindir = Path(bindir)
        self.oshcc = self.bindir / "oshcc"
        self.oshrun = self.bindir / "oshrun"
        self.run_prefix = run_prefix  # launcher options before -np
        self.env = env
        self.exes = {}  # program -> built executable
        self.unsupported = set()  # OPTIONAL programs that do not build: rows "n/a"
        self.sources = sources  # program -> the source built for it (MPI: coll -> mpi_coll.c); None: all, as named

    def missing(self):
        return [str(p) for p in (self.oshcc, self.oshrun) if not os.access(p, os.X_OK)]

    def command(self, exe, np, budget):
        return [str(self.oshrun), *self.run_prefix, "-np", str(np), str(exe), f"{budget:g}"]

    def shown(self, cmd):
        """cmd as printed: preceded by the variables that set this column apart (VAR=value)."""
        return [f"{k}={v}" for k, v in self.shown_env.items()] + list(cmd)


def log(msg=""):
    print(msg, flush=True)


def warn(msg):
    print(f"compare.py: {msg}", file=sys.stderr, flush=True)


def run_environment():
    """os.environ without LD_LIBRARY_PATH entries inside this repository's target/.

    `cargo xtask bench` runs this script from `cargo run`, which puts target/debug/deps
    (where the debug librshmem.so is) in LD_LIBRARY_PATH; that would take precedence over
    the RUNPATH (target/release/deps) that rshmem's oshcc writes into the programs, and
    every rshmem PE would run the debug library. Returns (environment, removed entries)."""
    env = dict(os.environ)
    entries = env.get("LD_LIBRARY_PATH", "").split(os.pathsep)
    target = (REPO / "target").resolve()

    def ours(e):
        try:
            return e and Path(e).resolve().is_relative_to(target)
        except (OSError, ValueError):
            return False

    removed = [e for e in entries if ours(e)]
    if removed:
        kept = [e for e in entries if e and not ours(e)]
        if kept:
            env["LD_LIBRARY_PATH"] = os.pathsep.join(kept)
        else:
            del env["LD_LIBRARY_PATH"]
    return env, removed


def loaded_library(exe, env, name):
    """The path of the shared library `name` that exe loads under env (ldd), or None."""
    try:
        p = subprocess.run(["ldd", str(exe)], capture_output=True, text=True, env=env, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in p.stdout.splitlines():
        f = line.split()
        if f and f[0].startswith(name) and "=>" in f and len(f) > f.index("=>") + 1:
            return f[f.index("=>") + 1]
    return None


def build(compiler, src, out, extra_env=None):
    """Compiles src to out; returns an error string or None. Warnings are shown."""
    cmd = [str(compiler), *CFLAGS, "-o", str(out), str(src)]
    env = dict(os.environ, **(extra_env or {}))
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{' '.join(cmd)}: {e}"
    if p.returncode != 0:
        return f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}{p.stderr}"
    if p.stderr.strip() or p.stdout.strip():
        warn(f"warnings from {' '.join(cmd)}:\n{p.stdout}{p.stderr}")
    return None


def run(cmd, env, timeout):
    """Runs cmd in its own process group; returns (returncode, stdout, stderr, seconds)."""
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)

    def kill():
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the launcher and the PEs it started
        except ProcessLookupError:
            pass

    try:
        out, err = proc.communicate(timeout=timeout)
    except KeyboardInterrupt:
        kill()
        raise
    except subprocess.TimeoutExpired:
        kill()
        out, err = proc.communicate()
        err += f"\n[timed out after {timeout} s]"
        return None, out, err, time.monotonic() - t0
    return proc.returncode, out, err, time.monotonic() - t0


def parse(stdout):
    """RESULT <benchmark> <size_bytes> <npes> <value> <unit> lines -> list of tuples."""
    rows = []
    for line in stdout.splitlines():
        f = line.split()
        if len(f) == 6 and f[0] == "RESULT":
            try:
                rows.append((f[1], int(f[2]), int(f[3]), float(f[4]), f[5]))
            except ValueError:
                pass
    return rows


def parse_na(stdout):
    """NA <benchmark> <size_bytes> <npes> <unit> <reason...> lines
    -> {(benchmark, size): (npes, unit, reason)}."""
    rows = {}
    for line in stdout.splitlines():
        f = line.split()
        if len(f) >= 5 and f[0] == "NA":
            try:
                rows[(f[1], int(f[2]))] = (int(f[3]), f[4], " ".join(f[5:]) or "no reason given")
            except ValueError:
                pass
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rshmem-bin", default=str(REPO / "target" / "release"),
                    help="directory with rshmem's oshcc and oshrun (default: target/release)")
    ap.add_argument("--ompi-bin", default="/usr/bin",
                    help="directory with Open MPI's oshcc and oshrun (default: /usr/bin)")
    ap.add_argument("--reps", type=int, default=3, help="runs of every benchmark per implementation (default 3)")
    ap.add_argument("--np", type=int, nargs="+", default=[2, 4, 8],
                    help="PE counts for msgrate_all, atomic_contended, barrier, coll and mem, where all "
                         "PEs work (default: 2 4 8)")
    ap.add_argument("--p2p-np", type=int, nargs="+", default=[2],
                    help="PE counts for latency, global, msgrate, atomic, put_signal, semaphore and "
                         "bandwidth, which use PEs 0 and 1 only (default: 2)")
    ap.add_argument("--startup-np", type=int, nargs="+", default=[8],
                    help="PE counts for hello (startup: wall time of oshrun -np N hello; default: 8)")
    ap.add_argument("--startup-runs", type=int, default=3,
                    help="runs of hello per rep, PE count and implementation (default 3)")
    ap.add_argument("--time", type=float, default=0.2,
                    help="seconds per measurement inside a program (default 0.2)")
    ap.add_argument("--only", nargs="+", choices=SHMEM_PROGRAMS + ["floor"],
                    help="run only these programs")
    ap.add_argument("--no-ompi", action="store_true", help="do not run Open MPI")
    ap.add_argument("--baseline-bin", metavar="DIR",
                    help="another rshmem build's oshcc and oshrun (e.g. the commit before a change), "
                         "run as the first column, rshmem/baseline, interleaved with the others; every "
                         "later column's median is compared with it (the xR after its value)")
    ap.add_argument("--no-rshmem", action="store_true", help="do not run rshmem")
    ap.add_argument("--no-mpi", action="store_true",
                    help="no MPI column for coll (default: c/mpi_coll.c, when mpicc and mpirun are on PATH)")
    ap.add_argument("--psync-strategies", nargs="+", metavar="NAME",
                    help="run rshmem once per pSync strategy (SHMEM_PSYNC_STRATEGY=NAME for those runs "
                         "only), one column rshmem/NAME each; all: every strategy the build's SHMEM_INFO "
                         "lists. Every "
                         "column's median is then compared with the first one's (the ×R after its value)")
    ap.add_argument("--rshmem-run-args", default="",
                    help="extra options for rshmem's oshrun, before -np (split on spaces)")
    ap.add_argument("--ompi-run-args", default="",
                    help="extra options for Open MPI's oshrun, before -np (split on spaces)")
    ap.add_argument("--timeout", type=float, default=60,
                    help="seconds before a run is killed; it is not run again in later reps (default 60)")
    ap.add_argument("--csv", metavar="FILE", help="also write the table (and every raw value) as CSV")
    ap.add_argument("--build-dir", help="where to build the programs (default: a temporary directory)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every command and its output")
    args = ap.parse_args()
    if args.reps < 1 or any(n < 2 for n in args.p2p_np) or any(n < 1 for n in args.np + args.startup_np) \
            or args.startup_runs < 1:
        ap.error("--reps and --startup-runs must be >= 1, --p2p-np >= 2, --np and --startup-np >= 1")
    strategies = []  # --psync-strategies, `all` expanded, each once, in the order given
    known = library_strategies(args.rshmem_bin) if args.psync_strategies else []
    for name in args.psync_strategies or []:
        if name != "all" and name not in known:
            ap.error(f"--psync-strategies: {name} is not one of {', '.join(known)} (or all)")
        for s in known if name == "all" else [name]:
            if s not in strategies:
                strategies.append(s)
    if strategies and args.no_rshmem:
        ap.error("--psync-strategies runs rshmem: it cannot go with --no-rshmem")

    errors = []
    programs = args.only or SHMEM_PROGRAMS + ["floor"]
    shmem_programs = [p for p in SHMEM_PROGRAMS if p in programs]
    root_opts = ["--allow-run-as-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []

    impls = []
    if not args.no_rshmem:
        if strategies:
            rs = [Impl(f"rshmem/{s}", f"rshmem/{s}", args.rshmem_bin, args.rshmem_run_args.split(),
                       {**COMMON_ENV, PSYNC_VAR: s}, build_key="rshmem", build_label="rshmem",
                       shown_env={PSYNC_VAR: s}) for s in strategies]
        else:
            rs = [Impl("rshmem", "rshmem", args.rshmem_bin, args.rshmem_run_args.split(), COMMON_ENV)]
        if args.baseline_bin:
            rs.insert(0, Impl("rshmem/baseline", "rshmem/baseline", args.baseline_bin,
                              args.rshmem_run_args.split(), COMMON_ENV, build_key="baseline",
                              build_label="rshmem/baseline"))
        miss = [m for r in rs for m in r.missing()]
        if miss:
            log(f"rshmem: {', '.join(miss)} not found: build it with `cargo build --release` "
                f"(or pass --rshmem-bin DIR); leaving rshmem out.")
        else:
            impls.extend(rs)
    # One column per pSync strategy: the table compares every column with the first one.
    multi = any(i.shown_env for i in impls) or len([i for i in impls if i.key != "ompi"]) > 1
    if not args.no_ompi:
        o = Impl("ompi", "Open MPI", args.ompi_bin, [*root_opts, "--oversubscribe", *args.ompi_run_args.split()],
                 {**COMMON_ENV, **OMPI_ENV})
        miss = o.missing()
        if miss:
            log(f"Open MPI: {', '.join(miss)} not found (pass --ompi-bin DIR); leaving Open MPI out.")
        else:
            impls.append(o)
    # coll's MPI column: the MPI collectives in place of the team ones, run like Open MPI's OSHMEM.
    mpi_col = "coll" in shmem_programs
    if mpi_col and not args.no_mpi:
        cc, run_or_why = collmpi.find_mpi()
        if cc:
            m = Impl(collmpi.MPI_KEY, collmpi.MPI_LABEL, Path(cc).parent,
                     [*root_opts, "--oversubscribe", *args.ompi_run_args.split()], {**COMMON_ENV, **OMPI_ENV},
                     sources={"coll": collmpi.MPI_SOURCE})
            m.oshcc, m.oshrun = Path(cc), Path(run_or_why)
            impls.append(m)
        else:
            log(f"MPI: {run_or_why}: coll's MPI column says n/a")
    has_mpi = any(i.key == collmpi.MPI_KEY for i in impls)

    tmp = None
    if args.build_dir:
        build_dir = Path(args.build_dir)
        build_dir.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="rshmem-bench-")
        build_dir = Path(tmp.name)

    # ---- build ----
    built = {}  # build key -> the Impl whose programs the others of that key share
    for impl in impls:
        if impl.build_key in built:
            impl.exes = built[impl.build_key].exes
            impl.unsupported = built[impl.build_key].unsupported
            continue
        built[impl.build_key] = impl
        d = build_dir / impl.build_key
        d.mkdir(exist_ok=True)
        for prog in shmem_programs:
            if impl.sources is not None and prog not in impl.sources:
                continue
            if prog in RSHMEM_ONLY and impl.build_key not in ("rshmem", "baseline"):
                impl.unsupported.add(prog)
                log(f"{impl.build_label}: {prog}.c not built, {OPTIONAL[prog]}: its rows are n/a")
                continue
            exe = d / prog
            err = build(impl.oshcc, C_DIR / (impl.sources or {}).get(prog, f"{prog}.c"), exe)
            if err and prog in OPTIONAL and any(m in err for m in MISSING_ROUTINE):
                impl.unsupported.add(prog)
                log(f"{impl.build_label}: {prog}.c does not build, {OPTIONAL[prog]} missing: its rows are n/a"
                    + ("" if args.verbose else " (-v for the compiler output)"))
                if args.verbose:
                    log(err)
            elif err:
                errors.append(f"{impl.build_label}: build of {prog}.c: {err}")
                warn(errors[-1])
            else:
                impl.exes[prog] = exe
    floor_exe = None
    if "floor" in programs:
        cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or "cc"
        floor_exe = build_dir / "floor"
        err = build(cc, C_DIR / "floor.c", floor_exe)
        if err:
            errors.append(f"floor: build of floor.c: {err}")
            warn(errors[-1])
            floor_exe = None

    # ---- run, interleaved ----
    base_env, removed = run_environment()
    if removed:
        log(f"LD_LIBRARY_PATH: left out {os.pathsep.join(removed)} for the runs (cargo's; the "
            "programs must load the library their RUNPATH names)")
    for impl in built.values():
        if impl.build_key == "rshmem" and impl.exes:
            lib = loaded_library(next(iter(impl.exes.values())), dict(base_env, **impl.env), "librshmem")
            log(f"rshmem programs load {lib or 'librshmem statically or not at all (ldd found no librshmem.so)'}")
            if lib and "/debug/" in lib:
                warn(f"rshmem programs load a debug build of the library: {lib}")
    results = {}  # (impl key, benchmark, size, npes) -> [values]
    units = {}    # benchmark -> unit
    jobs = []
    if floor_exe:
        jobs.append(("floor", 1))
    for prog in shmem_programs:
        nps = args.np if prog in NP_PROGRAMS else args.startup_np if prog == STARTUP else args.p2p_np
        for np in nps:
            jobs.extend([(prog, np)] * (args.startup_runs if prog == STARTUP else 1))

    failures = {}    # (impl key, program, np) -> number of failed runs (details printed once)
    na_rows = {}     # impl key -> {(benchmark, size, npes)} reported as NA (not compiled in)
    label_of = {i.key: i.label for i in impls}
    timed_out = set()  # (impl key, program, np) not run again after a timeout
    notes = []

    def record(impl_key, prog, np, rc, out, err, secs, cmd):
        rows = parse(out)
        expected = EXPECTED[prog]
        if impl_key == collmpi.MPI_KEY:  # mpi_coll's rows, filed under the coll rows they stand for
            rows, expected = collmpi.as_twins(rows), collmpi.TWIN_ROWS
        if args.verbose:
            log(f"$ {' '.join(cmd)}  [exit {rc}, {secs:.1f} s]\n{out}{err}")
        if prog == STARTUP:
            # No RESULT line: the value is the wall time of the launcher command, if PE 0 started.
            started = any(l.split() == ["STARTED", str(np)] for l in out.splitlines())
            rows = [("startup", 0, np, secs, "s")] if started and rc is not None else []
        got = {(b, s): (n, v, u) for b, s, n, v, u in rows}
        na_got = parse_na(out)
        missing = []
        for bench, size in expected:
            hit = got.get((bench, size))
            na_hit = na_got.get((bench, size))
            if hit is None and na_hit is not None and na_hit[0] == np:
                seen = na_rows.setdefault(impl_key, set())
                if not any(b == bench for b, _s, _n in seen):
                    log(f"{label_of[impl_key]}: {bench} not compiled in ({na_hit[2]}): its rows are n/a")
                seen.add((bench, size, np))
                units.setdefault(bench, na_hit[1])
                continue
            # The floor reports its own process count; a SHMEM program must report the job's.
            if hit is None or (prog != "floor" and hit[0] != np):
                missing.append(f"{bench} {size}")
                continue
            results.setdefault((impl_key, bench, size, hit[0]), []).append(hit[1])
            units[bench] = hit[2]
        key = (impl_key, prog, np)
        if rc is None:
            timed_out.add(key)
        if missing:
            failures[key] = failures.get(key, 0) + 1
            if failures[key] == 1:  # the details once; the summary counts the rest
                tail = "\n".join("    " + l for l in (err or "").strip().splitlines()[-15:])
                status = "timed out" if rc is None else f"exit {rc}"
                warn(f"{impl_key}: {' '.join(cmd)} ({status}): missing RESULT lines for "
                     f"{', '.join(missing)}\n{tail}")
        elif rc != 0:
            # A crash after the last RESULT line (e.g. in finalize) does not spoil the data.
            note = f"{impl_key}: {prog} np={np}: exit status {rc} ignored, RESULT lines complete"
            if note not in notes:
                notes.append(note)

    log(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {cpu_model()}, "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    log(f"implementations: {', '.join(i.label for i in impls) or 'none'}; reps {args.reps}; "
        f"{args.time:g} s per measurement; env {' '.join(f'{k}={v}' for k, v in COMMON_ENV.items())} "
        f"(not for {', '.join(DEFAULT_HEAP_PROGRAMS)}: default heap)")
    if any(i.shown_env for i in impls):
        log(f"rshmem/NAME: {PSYNC_VAR}=NAME for that column's runs only")
    if any(i.key in ("ompi", collmpi.MPI_KEY) for i in impls):
        log(f"Open MPI env (OSHMEM and MPI): {' '.join(f'{k}={v}' for k, v in OMPI_ENV.items())}")
    t_start = time.monotonic()
    for rep in range(args.reps):
        order = impls if rep % 2 == 0 else list(reversed(impls))
        log(f"rep {rep + 1}/{args.reps} ...")
        for prog, np in jobs:
            if prog == "floor":
                cmd = [str(floor_exe), f"{args.time:g}"]
                rc, out, err, secs = run(cmd, dict(base_env), args.timeout)
                record("floor", prog, np, rc, out, err, secs, cmd)
                continue
            for impl in order:
                exe = impl.exes.get(prog)
                if exe is None or (impl.key, prog, np) in timed_out:
                    continue
                cmd = impl.command(exe, np, args.time)
                env = dict(base_env, **impl.env)
                if prog in DEFAULT_HEAP_PROGRAMS:
                    for var in HEAP_VARS:
                        env.pop(var, None)
                rc, out, err, secs = run(cmd, env, args.timeout)
                record(impl.key, prog, np, rc, out, err, secs, impl.shown(cmd))
    for (impl_key, prog, np), n in failures.items():
        total = args.reps * (args.startup_runs if prog == STARTUP else 1)
        how = "timed out, not run again" if (impl_key, prog, np) in timed_out else f"{n} of {total} runs"
        errors.append(f"{impl_key}: {prog} np={np}: RESULT lines missing ({how})")
    log(f"done in {time.monotonic() - t_start:.0f} s; load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")

    # ---- table ----
    metrics = sorted({(b, s, n) for (k, b, s, n) in results if k != "floor"}
                     | {m for rows_na in na_rows.values() for m in rows_na},
                     key=lambda m: (ORDER.index(m[0]) if m[0] in ORDER else 99, m[1], m[2]))
    floor_metrics = sorted({(b, s, n) for (k, b, s, n) in results if k == "floor"},
                           key=lambda m: (ORDER.index(m[0]) if m[0] in ORDER else 99, m[1]))

    def floor_value(bench, size):
        fb = FLOOR_FOR.get((bench, size))
        if not fb:
            return None
        for (k, b, s, _n), vals in results.items():
            if k == "floor" and (b, s) == fb:
                return statistics.median(vals)
        return None

    prog_of = {b: prog for prog, benches in EXPECTED.items() for b, _s in benches}
    unsupported = {i.key: i.unsupported for i in impls}

    def na(impl_key, bench, size, npes):
        return (prog_of.get(bench) in unsupported.get(impl_key, ())
                or (bench, size, npes) in na_rows.get(impl_key, ()))

    if multi:
        rows, csv_rows, csv_header, legend = multi_table(impls, metrics, floor_metrics, results, units,
                                                         na, floor_value)
        aligns = ["l", "r", "r", "l"] + ["r"] * len(impls) + ["l", "r"]
        headers = ["benchmark", "size", "npes", "unit"] + [i.label.replace("/", "/\n", 1) for i in impls] \
            + ["better", "floor"]
    else:
        rows, csv_rows = [], []
        headers = ["benchmark", "size", "npes", "unit", "rshmem", "Open MPI", "rshmem/OMPI", "better", "floor"]
        aligns = ["l", "r", "r", "l", "r", "r", "r", "l", "r"]
        csv_header = ["benchmark", "size_bytes", "npes", "unit", "rshmem", "openmpi", "ratio_rshmem_openmpi",
                      "better", "floor", "rshmem_runs", "openmpi_runs", "floor_runs"]
        if mpi_col:  # MPI: c/mpi_coll.c's figure of the row's operation
            headers[-1:-1], aligns[-1:-1] = ["MPI", "rshmem/MPI"], ["r", "r"]
            csv_header += [collmpi.MPI_KEY, f"ratio_rshmem_{collmpi.MPI_KEY}", f"{collmpi.MPI_KEY}_runs"]
        legend = ("median of the runs, ± half the min-max range across runs; us, s, MB (10^6 B of "
                  "memory): lower is better, "
                  f"MB/s (10^6 B/s), Mop/s (10^6 operations/s): higher is better; n/a: the implementation "
                  f"lacks the routine; better: '~' within {TIE:.0%}, (name) when the "
                  "ranges of runs overlap; floor: the machine's own (memcpy on one core, cache-line "
                  "ping-pong between two pinned processes)")
        if mpi_col:
            legend += ("; MPI: coll only, Open MPI's MPI collective for the row's team collective (c/mpi_coll.c: "
                       "barrier, bcast, allgather, alltoall, allreduce of doubles), n/a without mpicc and mpirun")
    for bench, size, npes in ([] if multi else metrics):
        unit = units.get(bench, "")
        rv = results.get(("rshmem", bench, size, npes), [])
        ov = results.get(("ompi", bench, size, npes), [])
        rm = statistics.median(rv) if rv else None
        om = statistics.median(ov) if ov else None
        ratio = rm / om if rm is not None and om else None
        better = "-"
        if ratio is not None:
            if abs(ratio - 1.0) < TIE:
                better = "~"
            else:
                better = "rshmem" if (ratio < 1.0) == lower_is_better(unit) else "Open MPI"
                # Overlapping ranges of runs: a tendency, not a result.
                if min(rv) <= max(ov) and min(ov) <= max(rv):
                    better = f"({better})"
        fv = floor_value(bench, size)
        rc = "n/a" if not rv and na("rshmem", bench, size, npes) else cell(rv)
        oc = "n/a" if not ov and na("ompi", bench, size, npes) else cell(ov)
        rows.append([bench, fmt_size(size), str(npes), unit, rc, oc,
                     f"{ratio:.2f}" if ratio is not None else "-", better, fmt(fv)])
        csv_rows.append([bench, size, npes, unit, rm if rv else (rc if rc == "n/a" else None),
                         om if ov else (oc if oc == "n/a" else None), ratio, better, fv,
                         runs(rv), runs(ov), ""])
        if mpi_col:
            mv = results.get((collmpi.MPI_KEY, bench, size, npes), [])
            mm = statistics.median(mv) if mv else None
            mc = cell(mv) if mv else "n/a" if not has_mpi and (bench, size) in collmpi.TWIN_ROWS else "-"
            mratio = rm / mm if rm is not None and mm else None
            rows[-1][-1:-1] = [mc, f"{mratio:.2f}" if mratio is not None else "-"]
            csv_rows[-1] += [mm if mv else (mc if mc == "n/a" else None), mratio, runs(mv)]
    for bench, size, npes in ([] if multi else floor_metrics):
        unit = units.get(bench, "")
        fv = results[("floor", bench, size, npes)]
        rows.append([f"floor: {bench}", fmt_size(size), str(npes), unit, "", "", "", "", cell(fv)])
        csv_rows.append([f"floor:{bench}", size, npes, unit, None, None, None, None,
                         statistics.median(fv), "", "", runs(fv)] + ([None, None, ""] if mpi_col else []))
        if mpi_col:
            rows[-1][-1:-1] = ["", ""]

    log(table(rows, headers, aligns))
    log("\n" + legend)
    for n in notes:
        log(f"note: {n}")

    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(csv_header)
            for r in csv_rows:
                w.writerow(["" if v is None else (f"{v:.6g}" if isinstance(v, float) else v) for v in r])
        log(f"CSV written to {args.csv}")

    if tmp:
        tmp.cleanup()
    if errors:
        warn(f"{len(errors)} error(s):")
        for e in errors:
            warn("  " + e.splitlines()[0])
        warn("(missing RESULT lines: the program or its launcher failed; details above, -v for everything)")
        return 1
    return 0


def multi_table(impls, metrics, floor_metrics, results, units, na, floor_value):
    """The table and CSV rows with one column per implementation (--psync-strategies: one per
    rshmem strategy, then Open MPI if it runs). Every column after the first shows, after
    its median and spread, `×R`: its median divided by the first column's (the first
    strategy given), and the CSV has that ratio as ratio_<column>_<first column>. `better`
    names the best median of the row; in parentheses when the runner-up's runs overlap its
    runs or its median is within TIE: a tendency, not a result.
    Returns (rows, csv_rows, csv_header, legend)."""
    first = impls[0]
    short = {i.key: i.label.split("/", 1)[1] if i.shown_env else i.label for i in impls}
    csv_name = {i.key: {"ompi": "openmpi", collmpi.MPI_KEY: collmpi.MPI_KEY}.get(i.key, i.label) for i in impls}

    def best(unit, have, names):
        """have: [(impl, runs, median)] of the implementations with values."""
        if len(have) < 2:
            return "-"
        ranked = sorted(have, key=lambda t: t[2] if lower_is_better(unit) else -t[2])
        (bi, bv, bm), (_si, sv, sm) = ranked[0], ranked[1]
        name = names[bi.key]
        if abs(sm - bm) <= TIE * abs(bm) or (min(bv) <= max(sv) and min(sv) <= max(bv)):
            name = f"({name})"
        return name

    rows, csv_rows = [], []
    for bench, size, npes in metrics:
        unit = units.get(bench, "")
        vals = {i.key: results.get((i.key, bench, size, npes), []) for i in impls}
        med = {k: statistics.median(v) if v else None for k, v in vals.items()}
        m0 = med[first.key]
        cells, csv_meds, ratios = [], [], []
        for i in impls:
            v, m = vals[i.key], med[i.key]
            if not v:
                c = "n/a" if na(i.key, bench, size, npes) else "-"
                csv_meds.append("n/a" if c == "n/a" else None)
            else:
                c = cell(v)
                csv_meds.append(m)
            ratio = m / m0 if i is not first and m is not None and m0 else None
            if i is not first:
                ratios.append(ratio)
                if ratio is not None:
                    c += f" ×{ratio:.2f}"
            cells.append(c)
        have = [(i, vals[i.key], med[i.key]) for i in impls if vals[i.key]]
        fv = floor_value(bench, size)
        rows.append([bench, fmt_size(size), str(npes), unit, *cells, best(unit, have, short), fmt(fv)])
        csv_rows.append([bench, size, npes, unit, *csv_meds, *ratios, best(unit, have, csv_name), fv,
                         *(runs(vals[i.key]) for i in impls), ""])
    for bench, size, npes in floor_metrics:
        unit = units.get(bench, "")
        fv = results[("floor", bench, size, npes)]
        rows.append([f"floor: {bench}", fmt_size(size), str(npes), unit, *([""] * len(impls)), "", cell(fv)])
        csv_rows.append([f"floor:{bench}", size, npes, unit, *([None] * (2 * len(impls) - 1)), None,
                         statistics.median(fv), *([""] * len(impls)), runs(fv)])
    csv_header = (["benchmark", "size_bytes", "npes", "unit", *(csv_name[i.key] for i in impls),
                   *(f"ratio_{csv_name[i.key]}_{csv_name[first.key]}" for i in impls[1:]),
                   "better", "floor", *(f"{csv_name[i.key]}_runs" for i in impls), "floor_runs"])
    names = []
    if any(i.shown_env for i in impls):
        names.append(f"rshmem/NAME: rshmem with {PSYNC_VAR}=NAME. ")
    if any(i.key == "rshmem/baseline" for i in impls):
        names.append("rshmem/baseline: the build given by --baseline-bin. ")
    legend = (f"{''.join(names)}Median of the runs, ± half the min-max "
              f"range across runs; ×R: that median / {first.label}'s (us: < 1 is faster); us: lower "
              "is better, MB/s (10^6 B/s), Mop/s (10^6 operations/s): higher is better; n/a: the "
              "implementation lacks the routine; better: the best median of the row, (name) when the "
              f"runner-up's runs overlap its runs or its median is within {TIE:.0%}; floor: the "
              "machine's own (memcpy on one core, cache-line ping-pong between two pinned processes)")
    return rows, csv_rows, csv_header, legend


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    sys.exit(main())
