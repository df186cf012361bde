#!/usr/bin/env python3
"""Instructions per call of rshmem's (and Open MPI's) short paths, with valgrind's callgrind.

    cargo build --release
    python3 benches/icount.py [--n 10000] [--out icount.md] [--no-ompi]
    python3 benches/report.py b.csv --icount icount.md --out docs/performance.md

Builds benches/c/icount.c with each implementation's oshcc and runs it as a 1-PE job
without a launcher (a 1-PE program runs standalone: rshmem's as it is, Open MPI's as an MPI
singleton), every operation targeting PE 0, i.e. the PE itself. For every operation it runs

    valgrind --tool=callgrind --toggle-collect=run_<op> ./icount <op> N     (and 2N)

so that only the function with the loop of N calls (and what it calls) is counted, and takes
(I(2N) - I(N)) / N: whatever happens once (warm-up call, lazy set-up) cancels out. The
`empty` loop's count per iteration is subtracted, leaving the instructions of one call.
The counts are exact and do not depend on the machine's load (only on the code paths, the
compiler and the C library).

Output: a Markdown table (operation, instructions per call) on standard output or --out.
Python 3 standard library only.

--coll adds rshmem's collective entry paths (benches/c/icount_coll.c, OpenSHMEM 1.5, rshmem
only): shmem_malloc + shmem_free and a team split + destroy as 1-PE jobs, and an 8-byte
shmem_broadcastmem through the team's inbox as a 2-PE job under oshrun (every PE under
callgrind; PE 0 roots all its calls before PE 1 takes them, so that neither waits inside the
counted loop and both counts are exact: the root's path and the receiver's).
"""

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
SRC = BENCH_DIR / "c" / "icount.c"

# (operation in icount.c, what is shown)
OPS = [
    ("put_quiet", "`shmem_putmem` 8 B + `shmem_quiet`"),
    ("putmem", "`shmem_putmem` 8 B alone"),
    ("quiet", "`shmem_quiet` alone"),
    ("long_p", "`shmem_long_p`"),
    ("getmem", "`shmem_getmem` 8 B"),
    ("fetch_add", "`shmem_long_atomic_fetch_add`"),
    ("wait_until", "`shmem_long_wait_until`, already true"),
]
BASELINE = "empty"

COLL_SRC = BENCH_DIR / "c" / "icount_coll.c"
# (operation in icount_coll.c, PEs, what is shown per PE counted)
COLL_OPS = [
    ("malloc_free", 1, ["`shmem_malloc` 64 B + `shmem_free`, 1 PE"]),
    ("split_destroy", 1, ["`shmem_team_split_strided` (whole world) + `shmem_team_destroy`, 1 PE"]),
    ("bcast", 2, ["`shmem_broadcastmem` 8 B on the world, 2 PEs: the root (PE 0)",
                  "`shmem_broadcastmem` 8 B on the world, 2 PEs: the receiver (PE 1)"]),
]
# Calls per run of the broadcast: 1 + 2N messages must fit the inbox's 511 cells at 2 PEs.
COLL_BCAST_N = 200

COMMON_ENV = {"SHMEM_SYMMETRIC_SIZE": "256M"}
# As compare.py's OMPI_ENV (see benches/README.md, "Open MPI settings").
OMPI_ENV = {"OMPI_MCA_opal_common_ucx_opal_mem_hooks": "0", "UCX_TLS": "self,sm"}


def log(msg):
    print(f"icount.py: {msg}", file=sys.stderr, flush=True)


def run_environment():
    """os.environ without LD_LIBRARY_PATH entries inside target/ (cargo's; see compare.py)."""
    env = dict(os.environ)
    target = (REPO / "target").resolve()
    kept = []
    for e in env.get("LD_LIBRARY_PATH", "").split(os.pathsep):
        try:
            if e and Path(e).resolve().is_relative_to(target):
                continue
        except (OSError, ValueError):
            pass
        if e:
            kept.append(e)
    if kept:
        env["LD_LIBRARY_PATH"] = os.pathsep.join(kept)
    else:
        env.pop("LD_LIBRARY_PATH", None)
    return env


def build(oshcc, out, src=SRC):
    cmd = [str(oshcc), "-O2", "-g", "-Wall", "-Wextra", "-o", str(out), str(src)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}{p.stderr}"
    return None


def count(valgrind, exe, op, n, env, workdir, timeout):
    """Instructions (Ir) callgrind collects inside run_<op> for `exe op n`."""
    out = Path(workdir) / f"cg.{exe.name}.{op}.{n}"
    cmd = [valgrind, "--tool=callgrind", f"--toggle-collect=run_{op}", f"--callgrind-out-file={out}",
           str(exe), op, str(n)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                           start_new_session=True)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{' '.join(cmd)}: timed out after {timeout} s")
    # A non-zero exit after the program's OK line (a crash in finalize) leaves the count valid.
    if f"OK {op} {n}" not in p.stdout:
        tail = "\n".join((p.stderr or "").strip().splitlines()[-10:])
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}, no OK line\n{tail}")
    try:
        text = out.read_text()
    except OSError as e:
        raise RuntimeError(f"{' '.join(cmd)}: no callgrind output ({e})")
    m = re.search(r"^(?:summary|totals):\s*(\d+)", text, re.M)
    if not m:
        raise RuntimeError(f"{out}: no summary line")
    return int(m.group(1))


def count_job(valgrind, oshrun, exe, op, n, npes, env, workdir, timeout):
    """[Ir of PE 0, Ir of PE 1, ...] inside run_<op> for `oshrun -np npes valgrind ... exe op n`."""
    out = Path(workdir) / f"cg.{exe.name}.{op}.{n}"
    cmd = [str(oshrun), "-np", str(npes), valgrind, "--tool=callgrind", f"--toggle-collect=run_{op}",
           f"--callgrind-out-file={out}.%q{{RSHMEM_PE}}", str(exe), op, str(n)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                           start_new_session=True)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{' '.join(cmd)}: timed out after {timeout} s")
    if f"OK {op} {n}" not in p.stdout:
        tail = "\n".join((p.stderr or "").strip().splitlines()[-10:])
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}, no OK line\n{tail}")
    counts = []
    for pe in range(npes):
        f = Path(f"{out}.{pe}")
        try:
            text = f.read_text()
        except OSError as e:
            raise RuntimeError(f"{' '.join(cmd)}: no callgrind output for PE {pe} ({e})")
        m = re.search(r"^(?:summary|totals):\s*(\d+)", text, re.M)
        if not m:
            raise RuntimeError(f"{f}: no summary line")
        counts.append(int(m.group(1)))
    return counts


def measure_coll(valgrind, oshrun, exe, n, env, workdir, timeout):
    """{(op, pe): instructions per call (loop excluded)} of COLL_OPS."""
    log(f"rshmem: counting the collective paths ({len(COLL_OPS) + 1} operations x 2 runs under callgrind) ...")
    base = per_call(valgrind, exe, BASELINE, n, env, workdir, timeout)
    res = {}
    for op, npes, _ in COLL_OPS:
        if npes == 1:
            res[(op, 0)] = per_call(valgrind, exe, op, n, env, workdir, timeout) - base
            continue
        k = COLL_BCAST_N
        a = count_job(valgrind, oshrun, exe, op, k, npes, env, workdir, timeout)
        b = count_job(valgrind, oshrun, exe, op, 2 * k, npes, env, workdir, timeout)
        for pe in range(npes):
            res[(op, pe)] = (b[pe] - a[pe]) / k - base
    return res, base


def per_call(valgrind, exe, op, n, env, workdir, timeout):
    a = count(valgrind, exe, op, n, env, workdir, timeout)
    b = count(valgrind, exe, op, 2 * n, env, workdir, timeout)
    return (b - a) / n


def measure(label, valgrind, exe, n, env, workdir, timeout):
    """{op: instructions per call (loop excluded)}, plus the loop's own per iteration."""
    log(f"{label}: counting ({len(OPS) + 1} operations x 2 runs under callgrind) ...")
    base = per_call(valgrind, exe, BASELINE, n, env, workdir, timeout)
    res = {BASELINE: base}
    for op, _ in OPS:
        res[op] = per_call(valgrind, exe, op, n, env, workdir, timeout) - base
    return res


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.0f}" if abs(v - round(v)) < 0.005 else f"{v:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rshmem-bin", default=str(REPO / "target" / "release"),
                    help="directory with rshmem's oshcc (default: target/release)")
    ap.add_argument("--ompi-bin", default="/usr/bin", help="directory with Open MPI's oshcc (default: /usr/bin)")
    ap.add_argument("--no-ompi", action="store_true", help="count rshmem only")
    ap.add_argument("--n", type=int, default=10000, help="calls per run; the second run makes 2N (default 10000)")
    ap.add_argument("--valgrind", default="valgrind", help="valgrind executable (default: valgrind)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per valgrind run (default 300)")
    ap.add_argument("--out", help="write the Markdown here (default: standard output)")
    ap.add_argument("--coll", action="store_true",
                    help="also count rshmem's collective entry paths (benches/c/icount_coll.c)")
    ap.add_argument("--coll-n", type=int, default=1000,
                    help=f"calls per run of the 1-PE collective paths (default 1000; the broadcast makes {COLL_BCAST_N})")
    args = ap.parse_args()
    if args.n < 1:
        ap.error("--n must be >= 1")
    valgrind = shutil.which(args.valgrind)
    if not valgrind:
        log(f"{args.valgrind} not found (apt-get install valgrind)")
        return 1
    vg_version = subprocess.run([valgrind, "--version"], capture_output=True, text=True).stdout.strip()

    impls = [("rshmem", Path(args.rshmem_bin) / "oshcc", dict(COMMON_ENV))]
    if not args.no_ompi:
        impls.append(("Open MPI", Path(args.ompi_bin) / "oshcc", {**COMMON_ENV, **OMPI_ENV}))
    results, notes, errors = {}, [], []
    coll = None
    base_env = run_environment()
    with tempfile.TemporaryDirectory(prefix="rshmem-icount-") as tmp:
        if args.coll:
            oshcc, oshrun = Path(args.rshmem_bin) / "oshcc", Path(args.rshmem_bin) / "oshrun"
            exe = Path(tmp) / "icount_coll"
            err = build(oshcc, exe, COLL_SRC) if os.access(oshcc, os.X_OK) else f"{oshcc} not found"
            if err:
                log(err)
                errors.append("rshmem: build of icount_coll.c failed")
                notes.append(errors[-1])
            else:
                try:
                    coll = measure_coll(valgrind, oshrun, exe, args.coll_n, dict(base_env, **COMMON_ENV), tmp,
                                        args.timeout)
                except (RuntimeError, OSError) as e:
                    log(str(e))
                    errors.append(f"rshmem collective paths: {str(e).splitlines()[0]}")
                    notes.append(f"rshmem collective paths: not counted ({str(e).splitlines()[0]})")
        for label, oshcc, extra in impls:
            if not os.access(oshcc, os.X_OK):
                msg = f"{label}: {oshcc} not found" + (" (cargo build --release)" if label == "rshmem" else "")
                log(msg)
                notes.append(msg)
                if label == "rshmem":
                    errors.append(msg)
                continue
            exe = Path(tmp) / ("icount_" + label.replace(" ", "_").lower())
            err = build(oshcc, exe)
            if err:
                log(err)
                errors.append(f"{label}: build of icount.c failed")
                notes.append(errors[-1])
                continue
            try:
                results[label] = measure(label, valgrind, exe, args.n, dict(base_env, **extra), tmp, args.timeout)
            except (RuntimeError, OSError) as e:
                log(str(e))
                errors.append(f"{label}: {str(e).splitlines()[0]}")
                notes.append(f"{label}: not counted ({str(e).splitlines()[0]})")

    labels = list(results)
    md = [f"Instructions per call (x86 instructions retired, callgrind `Ir`), 1-PE job, every call on "
          f"the PE itself (PE 0), (I(2N) - I(N)) / N with N = {args.n}, minus the loop's own "
          f"{' / '.join(fmt(results[l][BASELINE]) + ' (' + l + ')' for l in labels) or '-'} instructions per "
          f"iteration; {vg_version}, {platform.machine()}. Built by each implementation's `oshcc -O2` from "
          "`benches/c/icount.c`, run without a launcher (Open MPI as an MPI singleton); produced by "
          "`python3 benches/icount.py`.", ""]
    head = ["operation"] + [f"{l} instructions" for l in labels]
    if "rshmem" in results and "Open MPI" in results:
        head.append("rshmem/OMPI")
    md.append("| " + " | ".join(head) + " |")
    md.append("|---" + "|---:" * (len(head) - 1) + "|")
    for op, desc in OPS:
        cells = [fmt(results[l].get(op)) for l in labels]
        if len(head) > len(labels) + 1:
            r, o = results["rshmem"].get(op), results["Open MPI"].get(op)
            cells.append(f"{r / o:.2f}" if r is not None and o else "-")
        md.append(f"| {desc} | " + " | ".join(cells) + " |")
    md.append("")
    md.append("Counts are a property of the code path, not of timing: they include everything the call "
              "executes in user space (library, PLT stubs, libc), not the cost of the instructions "
              "(a locked instruction or a fence counts as one) nor anything in the kernel.")
    if coll:
        res, base = coll
        md.append("")
        md.append(f"rshmem's collective entry paths (`benches/c/icount_coll.c`, `--coll`): (I(2N) - I(N)) / N "
                  f"with N = {args.coll_n} (1-PE jobs) or {COLL_BCAST_N} (the broadcast, every PE under callgrind "
                  f"through `oshrun`), minus the loop's own {fmt(base)} instructions per iteration.")
        md.append("")
        md.append("| operation | rshmem instructions |")
        md.append("|---|---:|")
        for op, _, descs in COLL_OPS:
            for pe, desc in enumerate(descs):
                md.append(f"| {desc} | {fmt(res.get((op, pe)))} |")
    for n in notes:
        md.append(f"\nNote: {n}.")
    text = "\n".join(md) + "\n"
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)
        log(f"written to {args.out}")
    else:
        sys.stdout.write(text)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
