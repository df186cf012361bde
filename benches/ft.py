#!/usr/bin/env python3
"""NAS FT (examples/ft/) side by side: rshmem, Open MPI's OSHMEM, and the NAS MPI reference.

The same C sources (examples/ft/*.c) are built with rshmem's oshcc and with Open MPI's
(-O3 -lm) and run with each one's oshrun: FT of one class (default A), every variant
(exchange, nbexchange, slabs, pencils), at 1, 2 and 4 PEs. The official NPB FT MPI binary (ft.A.x of
NPB3.x, Fortran; --npb-ft PATH or the variable NPB_FT) is run with mpirun at the same
process counts when given. Runs are interleaved (rshmem, Open MPI, NAS, then the other way
round on the next rep), --reps times; nbexchange (non-blocking collectives, rshmem's
shmem.h only) is not built by Open MPI's header and runs with rshmem alone. A variant
`nbexchange@MODE` runs nbexchange with MODE's variables (NB_MODES: off = RSHMEM_NBC_THREAD=off,
on = RSHMEM_NBC_THREAD=on, pt = SHMEM_PROGRESS_THREAD=1), interleaved with the others; the table shows medians of the benchmark's own Mop/s,
rshmem / Open MPI, verification, rshmem's time split (compute, wait, transpose) and the
targets of issue 20.

With --netns (root) the same runs go between the two network namespaces of tests/netns/
(at 2 and 4 PEs, half the PEs in each); with --virtual between two virtual nodes on this
host (RSHMEM_NODE_SIZE = PEs/2 under mpirun, every other peer through MPI over TCP); with
--remote every peer remote (RSHMEM_NODE_SIZE=1 under mpirun, RSHMEM_REMOTE=--remote-engine,
UCX over TCP or MPI RMA). Those tables show each variant against exchange, with the time split.

    cargo build --release
    python3 benches/ft.py [--reps 3] [--np 1 2 4] [--variants ...] [--class A] [--no-ompi]
                          [--npb-ft PATH] [--virtual] [--remote] [--netns] [--md target/bench/ft.md]
    python3 benches/ft.py --self-test     # the output parsers on embedded samples

Python 3 standard library only; shares its helpers with compare.py, multinode.py and benchlib.py.
"""

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402  (benches/compare.py: run, cell, fmt)
import multinode  # noqa: E402  (benches/multinode.py: MPI flags over TCP)
import benchlib  # noqa: E402  (benches/benchlib.py: what ft.py and halo.py share)
from benchlib import log, md_table, median_of  # noqa: E402

REPO = compare.REPO
VARIANTS = ["exchange", "nbexchange", "slabs", "pencils"]
# nbexchange@MODE: nbexchange run with these variables (rshmem only).
NB_MODES = {"off": {"RSHMEM_NBC_THREAD": "off"}, "on": {"RSHMEM_NBC_THREAD": "on"},
            "pt": {"SHMEM_PROGRESS_THREAD": "1"}}
# The variants only rshmem's shmem.h builds (the draft's non-blocking collectives).
RSHMEM_ONLY = ("nbexchange",)
# class: (nx, ny, nz, iterations), NPB's definition (docs/ft.md)
CLASSES = {"S": (64, 64, 64, 6), "W": (128, 128, 32, 6), "A": (256, 256, 128, 6),
           "B": (512, 256, 256, 20), "C": (512, 512, 512, 20)}
IMPLS = {"rshmem": "rshmem", "ompi": "Open MPI", "nas": "NAS MPI ref"}
TARGET_RATIO = 1.1  # issue 20: rshmem >= 1.1x Open MPI at 2 and 4 PEs, class A, every variant
TARGET_NAS = 0.9  # issue 20: best variant at 1 PE within 10% of the NAS reference
HEAP_VARS = ("SHMEM_SYMMETRIC_SIZE", "SMA_SYMMETRIC_SIZE")
# Hosts of tests/netns/netns.sh's two namespaces.
NETNS_HOSTS = ("10.77.0.1", "10.77.0.2")


def split_variant(v):
    """`nbexchange@off` -> ("nbexchange", {"RSHMEM_NBC_THREAD": "off"}); `slabs` -> ("slabs", {})."""
    name, _, mode = v.partition("@")
    return name, dict(NB_MODES[mode]) if mode else {}


def variant_arg(v):
    """argparse's check of --variants: a known variant, with a known @MODE if any."""
    name, _, mode = v.partition("@")
    if name not in VARIANTS or (mode and mode not in NB_MODES):
        raise argparse.ArgumentTypeError(f"{v!r}: a variant is one of {', '.join(VARIANTS)}, "
                                         f"optionally @{'|@'.join(NB_MODES)}")
    return v


def runs_with(impl, v):
    """Whether impl runs variant v: the NAS reference has none, Open MPI lacks the nb ones."""
    return impl == "nas" or impl == "rshmem" or split_variant(v)[0] not in RSHMEM_ONLY


def heap_size(cls, np):
    """SHMEM_SYMMETRIC_SIZE per PE: twice the program's 4 arrays of N/P complex doubles
    (ft-contract: ~540 MB / P for class A), so 1G for class A at 1 PE; at least 64M."""
    nx, ny, nz, _ = CLASSES[cls]
    need = 4 * 16 * nx * ny * nz // np
    return f"{max(64, -(-2 * need // (1 << 20)))}M"


def parse_result(stdout):
    """The FT program's `RESULT key=value ...` line -> dict (numbers converted), or None."""
    for line in stdout.splitlines():
        f = line.split()
        if not f or f[0] != "RESULT":
            continue
        d = benchlib.parse_kv(line)
        if "mops" in d and "verified" in d:
            return d
    return None


def parse_npb(stdout):
    """NPB's closing report (print_results.f90) -> dict with mops, verified, time, class,
    pes, active, version, or None when it has no `Mop/s total` line (a crash before the end)."""
    d = {}
    for line in stdout.splitlines():
        key, sep, val = line.partition("=")
        if not sep:
            continue
        key, val = key.strip(), val.strip()
        try:
            if key == "Mop/s total":
                d["mops"] = float(val)
            elif key == "Time in seconds":
                d["time"] = float(val)
            elif key == "Total processes":
                d["pes"] = int(val)
            elif key == "Class":
                d["class"] = val
            elif key == "Active processes":
                d["active"] = int(val)
            elif key == "Verification":
                d["verified"] = val
            elif key == "Version":
                d["version"] = val
        except ValueError:
            pass
    if "mops" not in d:
        return None
    d.setdefault("verified", "UNVERIFIED")
    return d


def fft_flags(choice):
    """Extra build flags for FFTW (ft-contract: -DFT_FFTW and pkg-config's flags)."""
    if choice == "stockham":
        return []
    p = subprocess.run(["pkg-config", "--cflags", "--libs", "fftw3"], capture_output=True, text=True) \
        if shutil.which("pkg-config") else None
    if p is None or p.returncode != 0:
        if choice == "fftw":
            sys.exit("ft.py: --fft fftw, but `pkg-config fftw3` does not find FFTW (apt-get install libfftw3-dev)")
        return []
    return ["-DFT_FFTW", *p.stdout.split()]


class Runner:
    """Builds the commands of one implementation in one setup (one node, virtual, netns)."""

    def __init__(self, a, exes, netns):
        self.a, self.exes, self.netns = a, exes, netns
        self.root = ["--allow-run-as-root"] if os.geteuid() == 0 else []

    def command(self, impl, setup, np, variant):
        a, exe = self.a, self.exes[impl]
        variant, mode_env = split_variant(variant)
        prog = [str(exe)] if impl == "nas" else [str(exe), "-c", a.cls, "-v", variant]
        heap = heap_size(a.cls, np)
        # Open MPI 4.1's OSHMEM reads SMA_SYMMETRIC_SIZE only (with SHMEM_SYMMETRIC_SIZE=1G
        # alone its heap stays at its 256M default); rshmem reads both (equal: no conflict).
        env = {v: heap for v in HEAP_VARS}
        env.update(mode_env)
        if setup == "one node":
            if impl == "rshmem":
                cmd = [str(Path(a.rshmem_bin) / "oshrun"), *a.rshmem_run_args.split(), "-np", str(np)]
            elif impl == "ompi":
                cmd = [str(Path(a.ompi_bin) / "oshrun"), *self.root, "--oversubscribe",
                       *a.ompi_run_args.split(), "-np", str(np)]
                env.update(compare.OMPI_ENV)
            else:
                cmd = ["mpirun", *self.root, "--oversubscribe", "-np", str(np)]
            return cmd + prog, env
        # Across (virtual) nodes: MPI off shared memory, over TCP, as multinode.py.
        per_node = 1 if setup == "remote" else np // 2
        hosts = []
        if setup == "netns":
            # Each namespace's daemon binds its ranks from core 0 up as if it had the machine
            # to itself: both namespaces' PEs would share the same cores (1 PE per node: both
            # on core 0, compute time doubled). Unbound, the kernel spreads them.
            hosts = ["--host", ",".join(f"{h}:{per_node}" for h in NETNS_HOSTS), "--bind-to", "none"]
        if impl == "rshmem":
            # rshmem's oshrun execs mpirun (the host list names another machine, or
            # RSHMEM_LAUNCHER is set), passing --mca, -x and rshmem's variables on.
            cmd = [str(Path(a.rshmem_bin) / "oshrun"), "-np", str(np), *multinode.MPI_FLAGS,
                   *multinode.RSHMEM_FLAGS, *self.root, *hosts]
            if setup in ("virtual", "remote"):
                env["RSHMEM_LAUNCHER"] = "mpirun"
                cmd += ["-x", f"RSHMEM_NODE_SIZE={per_node}"]
            if setup == "remote":
                cmd += ["-x", f"RSHMEM_REMOTE={a.remote_engine}"]
            for k, x in mode_env.items():
                cmd += ["-x", f"{k}={x}"]
        elif impl == "ompi":
            cmd = [str(Path(a.ompi_bin) / "oshrun"), "-np", str(np), *multinode.MPI_FLAGS,
                   *multinode.OMPI_FLAGS, *self.root, *hosts, *(x for v in HEAP_VARS for x in ("-x", v))]
        else:
            cmd = ["mpirun", "-np", str(np), *multinode.MPI_FLAGS, *self.root, *hosts]
        cmd += prog
        return (self.netns.wrap(cmd) if setup == "netns" else cmd), env


def paired_cell(runs, base):
    """The median over the reps of runs' Mop/s / base's Mop/s in the same rep (the runs of one
    rep are neighbours in time, so the ratio shrugs off load that changes between reps)."""
    by_rep = {r.get("rep"): r["mops"] for r in base if r.get("mops")}
    ratios = sorted(r["mops"] / by_rep[r.get("rep")] for r in runs if r.get("rep") in by_rep and r.get("mops"))
    if not ratios:
        return "-"
    return f"{statistics.median(ratios):.2f} ({ratios[0]:.2f}-{ratios[-1]:.2f})"


def split_cell(runs):
    """compute / wait / transpose (s), medians over the runs."""
    parts = [median_of(runs, k) for k in ("compute", "wait", "transpose")]
    if all(p is None for p in parts):
        return "-"
    return " / ".join("-" if p is None else f"{p:.2f}" for p in parts)


def verified_cell(results, keys):
    """SUCCESSFUL when every run of every implementation was; otherwise what each got."""
    words = {}
    for impl, runs in keys:
        if runs:
            words[impl] = [r.get("verified", "?") for r in runs]
    if words and all(w == "SUCCESSFUL" for ws in words.values() for w in ws):
        return "SUCCESSFUL"
    if not words:
        return "-"
    out = []
    for impl, ws in words.items():
        bad = sorted({w for w in ws if w != "SUCCESSFUL"})
        ok = sum(w == "SUCCESSFUL" for w in ws)
        out.append(f"{IMPLS[impl]} {ok}/{len(ws)}" + (f" ({', '.join(bad)})" if bad else ""))
    return "; ".join(out)


def mops_cell(runs, status):
    if runs:
        return compare.cell([r["mops"] for r in runs])
    return status or "-"


def one_node_section(a, res, status):
    """The one-node table and the targets of issue 20."""
    heads = ["class", "variant", "PEs", "rshmem Mop/s", "Open MPI Mop/s", "rshmem / Open MPI",
             "NAS MPI ref Mop/s", "verified", "rshmem compute / wait / transpose (s)",
             "Open MPI compute / wait / transpose (s)", "rshmem messages", "rshmem paired vs exchange"]
    rows = []
    ratios = {}  # (np, variant) -> rshmem / Open MPI
    for np in a.np:
        nas = res.get(("one node", "nas", np, "-"), [])
        nas_cell = mops_cell(nas, status.get(("one node", "nas", np)) or status.get("nas"))
        for v in a.variants:
            r = res.get(("one node", "rshmem", np, v), [])
            o = res.get(("one node", "ompi", np, v), [])
            mr, mo = median_of(r, "mops"), median_of(o, "mops")
            ratio = "-"
            if mr and mo:
                ratios[np, v] = mr / mo
                ratio = f"{mr / mo:.2f}x"
            msgs = median_of(r, "messages")
            rows.append([a.cls, v, str(np), mops_cell(r, status.get(("one node", "rshmem", np))),
                         mops_cell(o, status.get(("one node", "ompi", np)) if runs_with("ompi", v) else "n/a"),
                         ratio, nas_cell,
                         verified_cell(res, [("rshmem", r), ("ompi", o), ("nas", nas)]), split_cell(r),
                         split_cell(o), "-" if msgs is None else f"{msgs:.0f}",
                         paired_cell(r, res.get(("one node", "rshmem", np, "exchange"), []))])
    lines = ["### One node", ""] + md_table(heads, rows, {2, 3, 4, 5, 6, 10, 11}) + [""]

    # Targets (issue 20, "Performance targets"), as rows with met / NOT met.
    note = "" if a.cls == "A" else f" (measured with class {a.cls}; the target is for class A)"
    trows = []
    for np in (2, 4):
        for v in (v for v in a.variants if runs_with("ompi", v)):
            name = f"rshmem >= {TARGET_RATIO}x Open MPI, {v}, {np} PEs"
            if (np, v) in ratios:
                x = ratios[np, v]
                trows.append([name, f"{x:.2f}x", ("met" if x >= TARGET_RATIO else "NOT met") + note])
            else:
                trows.append([name, "-", "not measured"])
    nas_missing = f"not measured (NAS MPI ref {status['nas']})" if status.get("nas") else "not measured"
    for np, what in ((1, "best variant within 10% of the NAS MPI ref"),):
        best = max((median_of(res.get(("one node", "rshmem", np, v), []), "mops") or 0, v) for v in a.variants)
        ref = median_of(res.get(("one node", "nas", np, "-"), []), "mops")
        name = f"rshmem {what}, 1 PE"
        if best[0] and ref:
            x = best[0] / ref
            trows.append([name, f"{best[1]}: {x:.2f}x", ("met" if x >= TARGET_NAS else "NOT met") + note])
        else:
            trows.append([name, "-", nas_missing if not ref else "not measured"])
    for np in (2, 4):
        best = max((median_of(res.get(("one node", "rshmem", np, v), []), "mops") or 0, v) for v in a.variants)
        ref = median_of(res.get(("one node", "nas", np, "-"), []), "mops")
        name = f"rshmem best variant ahead of the NAS MPI ref, {np} PEs"
        if best[0] and ref:
            x = best[0] / ref
            trows.append([name, f"{best[1]}: {x:.2f}x", ("met" if x > 1.0 else "NOT met") + note])
        else:
            trows.append([name, "-", nas_missing if not ref else "not measured"])
    lines += ["### Targets", ""] + md_table(["target", "measured", "status"], trows, {1}) + [""]
    # What a library can change at all: the time outside the FFTs and the twiddle.
    shares = []
    for np in a.np:
        for impl in ("rshmem", "ompi"):
            fr = [median_of(res.get(("one node", impl, np, v), []), "compute") /
                  median_of(res.get(("one node", impl, np, v), []), "time")
                  for v in a.variants if median_of(res.get(("one node", impl, np, v), []), "time")
                  and median_of(res.get(("one node", impl, np, v), []), "compute") is not None]
            if fr:
                shares.append(f"{IMPLS[impl]} {np} PE{'s' if np > 1 else ''} "
                              f"{100 * min(fr):.0f}-{100 * max(fr):.0f}%")
    if shares:
        lines += ["Share of the timed run spent in compute (the same C code under both libraries; "
                  "only the rest can differ between them): " + ", ".join(shares) + ".", ""]
    return lines


def across_section(a, res, status, setup):
    """One table per across-nodes setup: every variant against exchange, with the split."""
    title = {"netns": "Across nodes: two network namespaces (tests/netns/, veth, TCP)",
             "virtual": "Across virtual nodes: one host, RSHMEM_NODE_SIZE = PEs/2 under mpirun (TCP)",
             "remote": f"Every peer remote: one host, RSHMEM_NODE_SIZE=1, RSHMEM_REMOTE={a.remote_engine} "
                       f"under mpirun (TCP)"}[setup]
    heads = ["class", "variant", "PEs", "rshmem Mop/s", "rshmem vs exchange", "rshmem paired vs exchange",
             "rshmem compute / wait / transpose (s)", "OSHMEM Mop/s", "OSHMEM vs exchange",
             "OSHMEM compute / wait / transpose (s)", "rshmem / OSHMEM", "NAS MPI ref Mop/s", "verified"]
    rows = []
    for np in a.across_np:
        nas = res.get((setup, "nas", np, "-"), [])
        ex = {i: median_of(res.get((setup, i, np, "exchange"), []), "mops") for i in ("rshmem", "ompi")}
        for v in a.variants:
            runs = {i: res.get((setup, i, np, v), []) for i in ("rshmem", "ompi")}
            med = {i: median_of(runs[i], "mops") for i in runs}
            vs = {i: (f"{med[i] / ex[i]:.2f}x" if med[i] and ex[i] else "-") for i in runs}
            ratio = f"{med['rshmem'] / med['ompi']:.2f}x" if med["rshmem"] and med["ompi"] else "-"
            rows.append([a.across_cls, v, str(np), mops_cell(runs["rshmem"], status.get((setup, "rshmem", np))),
                         vs["rshmem"], paired_cell(runs["rshmem"], res.get((setup, "rshmem", np, "exchange"), [])),
                         split_cell(runs["rshmem"]),
                         mops_cell(runs["ompi"], status.get((setup, "ompi", np)) if runs_with("ompi", v) else "n/a"),
                         vs["ompi"],
                         split_cell(runs["ompi"]), ratio,
                         mops_cell(nas, status.get((setup, "nas", np)) or status.get("nas")),
                         verified_cell(res, [("rshmem", runs["rshmem"]), ("ompi", runs["ompi"]), ("nas", nas)])])
    lines = [f"### {title}", ""] + md_table(heads, rows, {2, 3, 4, 5, 7, 8, 10, 11}) + [""]
    # In words: does spreading the transpose through the computation beat the bulk exchange?
    said = []
    for impl in ("rshmem", "ompi"):
        for np in a.across_np:
            ex = res.get((setup, impl, np, "exchange"), [])
            mex = median_of(ex, "mops")
            others = [(median_of(res.get((setup, impl, np, v), []), "mops") or 0, v)
                      for v in a.variants if v != "exchange"]
            if not mex or not others or not max(others)[0]:
                continue
            best, v = max(others)
            run = res[(setup, impl, np, v)]
            said.append(f"{IMPLS[impl]}, {np} PEs: {v} {best / mex:.2f}x exchange "
                        f"({'faster' if best > 1.05 * mex else 'slower' if best < 0.95 * mex else 'within 5%'}; compute / wait / transpose "
                        f"{split_cell(run)} s against {split_cell(ex)} s)")
    if said:
        lines += ["Best overlapping variant against exchange: " + "; ".join(said) + ".", ""]
    # The seed's claim is against the MPI reference (up to 1.9x across nodes).
    vs_nas = []
    for np in a.across_np:
        ref = median_of(res.get((setup, "nas", np, "-"), []), "mops")
        best = max((median_of(res.get((setup, "rshmem", np, v), []), "mops") or 0, v) for v in a.variants)
        if ref and best[0]:
            vs_nas.append(f"{np} PEs: {best[1]} {best[0] / ref:.2f}x")
    if vs_nas:
        lines += ["rshmem's best variant against the NAS MPI ref: " + "; ".join(vs_nas) + ".", ""]
    return lines


def report(a, res, status, setups, meta):
    md = ["## NAS FT", ""]
    md += [benchlib.started_line(meta, a.reps) + f" FFT: {meta['fft']}. Built with each "
           f"implementation's own `oshcc -O3 examples/ft/*.c -lm{meta['flags']}`; symmetric heap "
           f"(SHMEM_ and SMA_SYMMETRIC_SIZE) {heap_size(a.cls, 1)} at 1 PE, divided by the PE count. Mop/s is the benchmark's own "
           f"figure (higher is better); compute / wait / transpose are the program's time split of "
           f"the timed run (medians, seconds).", ""]
    if "one node" in setups:
        md += one_node_section(a, res, status)
    for s in setups:
        if s != "one node":
            md += across_section(a, res, status, s)
    if status.get("nas") == "not installed":
        md += ["NAS MPI ref: not installed on this machine (give the NPB FT MPI binary with "
               "`--npb-ft PATH` or `NPB_FT`; benches/README.md says how to build it).", ""]
    elif status.get("nas"):
        md += [f"NAS MPI ref: {status['nas']}.", ""]
    elif meta.get("npb"):
        md += [f"NAS MPI ref: {meta['npb']}, run with `mpirun -np N` (one node: Open MPI's defaults, "
               f"shared memory; across nodes: the TCP flags above).", ""]
    return "\n".join(md).rstrip() + "\n"


def npb_seen(res, exes):
    """What the NAS column ran: `ft.A.x (NPB 3.4.2)`, from the binary's own report."""
    if "nas" not in exes:
        return None
    versions = sorted({str(r.get("version")) for k, runs in res.items() if k[1] == "nas" for r in runs
                       if r.get("version")})
    return f"`{exes['nas'].name}`" + (f" (NPB {', '.join(versions)})" if versions else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rshmem-bin", default=str(REPO / "target" / "release"))
    ap.add_argument("--ompi-bin", default="/usr/bin")
    ap.add_argument("--src", default=str(REPO / "examples" / "ft"), help="FT's sources (every *.c is built)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--np", type=int, nargs="+", default=[1, 2, 4], help="PE counts on one node")
    ap.add_argument("--variants", nargs="+", type=variant_arg, default=VARIANTS,
                    help=f"of {', '.join(VARIANTS)}; nbexchange@MODE with MODE in {', '.join(NB_MODES)}")
    ap.add_argument("--class", dest="cls", choices=list(CLASSES), default="A")
    ap.add_argument("--no-ompi", action="store_true", help="leave Open MPI's OSHMEM out")
    ap.add_argument("--npb-ft", default=os.environ.get("NPB_FT"),
                    help="NPB3.x FT MPI binary of the same class (ft.A.x); default: $NPB_FT")
    ap.add_argument("--fft", choices=["auto", "stockham", "fftw"], default="auto",
                    help="auto: FFTW when pkg-config finds it (default)")
    benchlib.add_across_args(ap)
    ap.add_argument("--remote", action="store_true",
                    help="also with every peer remote on this host (RSHMEM_NODE_SIZE=1 under mpirun)")
    ap.add_argument("--remote-engine", choices=["ucx", "mpi"], default="ucx",
                    help="RSHMEM_REMOTE of the --remote runs (default ucx)")
    ap.add_argument("--across-class", choices=list(CLASSES), help="class across nodes (default: --class)")
    ap.add_argument("--netns-dir", default=str(REPO / "tests" / "netns"), help="netns.sh and fake-ssh")
    ap.add_argument("--rshmem-run-args", default="", help="extra options for rshmem's oshrun (one node)")
    ap.add_argument("--ompi-run-args", default="", help="extra options for Open MPI's oshrun (one node)")
    benchlib.add_output_args(ap, 600, "check the parsers on embedded samples, exit")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    a.across_cls = a.across_class or a.cls
    # setups_of knows one node, virtual and netns; --remote goes before netns.
    remote_only = a.remote and a.only_across and not (a.virtual or a.netns)
    a.only_across = a.only_across and not remote_only
    setups = benchlib.setups_of(ap, a, "ft.py")
    if remote_only:
        setups.remove("one node")
    if a.remote:
        setups.insert(len(setups) - (1 if a.netns else 0), "remote")
    t0, env0 = benchlib.start()

    sources = sorted(glob.glob(str(Path(a.src) / "*.c")))
    if not sources:
        sys.exit(f"ft.py: no FT sources in {a.src} (examples/ft/*.c)")
    flags = fft_flags(a.fft)
    status = {}  # (setup, impl, np) -> why there is no number; "nas" -> why no NAS column
    impls = {"rshmem": Path(a.rshmem_bin)}
    if not a.no_ompi:
        impls["ompi"] = Path(a.ompi_bin)
    build_dir = Path(tempfile.mkdtemp(prefix="rshmem-ft-"))
    exes, failures = {}, []
    for impl, bindir in impls.items():
        out = build_dir / f"ft.{impl}"
        log(f"==> building FT with {bindir / 'oshcc'}")
        err = benchlib.build(bindir / "oshcc", sources, out, ["-lm", *flags])
        if err:
            failures.append(f"{IMPLS[impl]} build: {err}")
            log(f"ft.py: {err}")
        else:
            exes[impl] = out
    if "rshmem" in exes:
        benchlib.log_library(exes["rshmem"], env0, "rshmem programs")
    if a.npb_ft:
        if os.access(a.npb_ft, os.X_OK):
            exes["nas"] = Path(a.npb_ft).resolve()
        else:
            status["nas"] = f"{a.npb_ft} is not an executable"
    else:
        status["nas"] = "not installed"
    if "nas" in exes and not shutil.which("mpirun"):
        del exes["nas"]
        status["nas"] = "no mpirun on PATH"
    order0 = [i for i in ("rshmem", "ompi", "nas") if i in exes]
    log(f"implementations: {', '.join(IMPLS[i] for i in order0)}; setups: {', '.join(setups)}")

    res = {}  # (setup, impl, np, variant) -> [parsed RESULT dicts]
    fft_seen = set()
    try:
        for setup, env, netns in benchlib.each_setup(setups, env0, a.netns_dir, failures, "ft.py"):
            nps = a.np if setup == "one node" else a.across_np
            cls = a.cls if setup == "one node" else a.across_cls
            runner = Runner(argparse.Namespace(**{**vars(a), "cls": cls}), exes, netns)
            dead = set()  # (impl, np, variant) that timed out or failed to start: not run again
            for rep in range(a.reps):
                order = order0 if rep % 2 == 0 else order0[::-1]
                for np in nps:
                    for v in a.variants:
                        for impl in order:
                            if not runs_with(impl, v):
                                continue
                            if impl == "nas" and (v != a.variants[0] or np & (np - 1)):
                                # One variant only; NPB FT stops at a count not a power of two.
                                if np & (np - 1):
                                    status[setup, "nas", np] = "n/a (NPB: power of two only)"
                                continue
                            vkey = "-" if impl == "nas" else v
                            if (impl, np, vkey) in dead:
                                continue
                            cmd, extra = runner.command(impl, setup, np, v)
                            rc, out, err, secs = compare.run(cmd, {**env, **extra}, a.timeout)
                            if a.v:
                                log(f"$ {' '.join(f'{k}={x}' for k, x in extra.items())} {' '.join(cmd)}\n{out}{err}")
                            d = parse_npb(out) if impl == "nas" else parse_result(out)
                            tag = f"{setup} {IMPLS[impl]} -np {np}" + ("" if impl == "nas" else f" {v}")
                            if d is None:
                                status[setup, impl, np] = benchlib.no_result(failures, tag, rep, a.reps, rc, err, secs)
                                dead.add((impl, np, vkey))
                                continue
                            if impl == "nas" and d.get("class") not in (None, cls):
                                status["nas"] = f"{a.npb_ft} is class {d['class']}, not {cls}"
                                dead.add((impl, np, vkey))
                                continue
                            if d.get("verified") == "UNSUCCESSFUL":
                                failures.append(f"{tag} rep {rep + 1}: verification UNSUCCESSFUL")
                            elif rc != 0:
                                # e.g. Open MPI's UCX segfault in shmem_finalize (compare.py)
                                log(f"note: {tag} rep {rep + 1}: exit {rc} after a complete RESULT (kept)")
                            if "fft" in d:
                                fft_seen.add(str(d["fft"]))
                            d["rep"] = rep
                            res.setdefault((setup, impl, np, vkey), []).append(d)
                            log(f"rep {rep + 1}/{a.reps} {tag}: {d['mops']:.1f} Mop/s {d['verified']} "
                                f"({secs:.1f} s)")
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)

    meta = benchlib.meta(t0, benchlib.shown_command("benches/ft.py"),
                         fft=", ".join(sorted(fft_seen)) or "not reported",
                         flags=" -DFT_FFTW $(pkg-config --cflags --libs fftw3)" if flags else "",
                         npb=npb_seen(res, exes))
    md = report(a, res, status, setups, meta)
    return benchlib.finish(md, failures, a.md, meta["wall"])


# The output of NPB 3.4.2's MPI FT, class A at 2 processes (print_results.f90's layout;
# the Fortran writes start with two empty lines and one line ends in a space).
NPB_SAMPLE = """

 NAS Parallel Benchmarks 3.4 -- FT Benchmark

 No input file inputft.data. Using compiled defaults
 Size                :  256x 256x 128  (class A)
 Iterations          :              6
 Number of processes :              2
 Processor array     :         1x   2
 Layout type         :             1D

 Initialization time =      1.5503

 T =    1     Checksum =    5.046735008193D+02    5.114047905510D+02
 T =    2     Checksum =    5.059412319734D+02    5.098809666433D+02
 T =    3     Checksum =    5.069376896287D+02    5.098144042213D+02
 T =    4     Checksum =    5.077892868474D+02    5.101336130759D+02
 T =    5     Checksum =    5.085233095391D+02    5.104914655194D+02
 T =    6     Checksum =    5.091487099959D+02    5.107917842803D+02
 Result verification successful


 FT Benchmark Completed.
 Class           =                        A
 Size            =            256x 256x 128
 Iterations      =                        6
 Time in seconds =                     5.07
 Total processes =                        2
 Active processes=                        2
 Mop/s total     =                  1407.53
 Mop/s/process   =                   703.76
 Operation type  =           floating point
 Verification    =               SUCCESSFUL
 Version         =                    3.4.2
 Compile date    =              25 Nov 2026

 Compile options:
    MPIFC        = mpif90
    FLINK        = mpif90
    FMPI_LIB     = (none)
    FMPI_INC     = (none)
    FFLAGS       = -O3 -fallow-argument-mismatch
    FLINKFLAGS   = $(FFLAGS)
    RAND         = randdp


 Please send feedbacks and/or the results of this run to:

 NPB Development Team 
 Internet: npb@nas.nasa.gov


"""

RESULT_SAMPLE = (" Verification = SUCCESSFUL\n"
                 "RESULT class=A variant=pencils pes=2 nx=256 ny=256 nz=128 iter=6 time=5.4321 mops=1313.7 "
                 "verified=SUCCESSFUL compute=4.10 wait=0.52 transpose=0.81 fft=stockham messages=65536\n")


def self_test():
    """Checks the two parsers and the targets on embedded samples; exit status 0 or 1."""
    bad, check = benchlib.checks()
    d = parse_npb(NPB_SAMPLE)
    check("NPB sample", d, {"class": "A", "time": 5.07, "pes": 2, "mops": 1407.53, "verified": "SUCCESSFUL",
                            "version": "3.4.2", "active": 2})
    failed = NPB_SAMPLE.replace("=               SUCCESSFUL", "=             UNSUCCESSFUL")
    check("NPB unsuccessful", (parse_npb(failed) or {}).get("verified"), "UNSUCCESSFUL")
    cut = NPB_SAMPLE[:NPB_SAMPLE.index(" Mop/s total")]
    check("NPB cut short", parse_npb(cut), None)
    r = parse_result(RESULT_SAMPLE)
    check("RESULT", r and (r["class"], r["variant"], r["pes"], r["mops"], r["verified"], r["wait"],
                           r["fft"], r["messages"]),
          ("A", "pencils", 2, 1313.7, "SUCCESSFUL", 0.52, "stockham", 65536))
    check("no RESULT", parse_result(" Verification = SUCCESSFUL\n"), None)
    check("variant with a mode", split_variant("nbexchange@off"), ("nbexchange", {"RSHMEM_NBC_THREAD": "off"}))
    check("plain variant", split_variant("slabs"), ("slabs", {}))
    check("Open MPI skips nbexchange", [runs_with("ompi", v) for v in ("exchange", "nbexchange@pt")], [True, False])
    ex, nb = [dict(r, rep=i, mops=m) for i, m in enumerate((100.0, 50.0, 80.0))], \
        [dict(r, rep=i, mops=m) for i, m in enumerate((110.0, 60.0, 80.0))]
    check("paired ratios", paired_cell(nb, ex), "1.10 (1.00-1.20)")
    check("heap, class A, 1 PE", heap_size("A", 1), "1024M")
    check("heap, class S, 4 PEs", heap_size("S", 4), "64M")
    # The targets on a synthetic run: 2 PEs met, 4 PEs not, NAS ref absent.
    a = argparse.Namespace(cls="A", np=[1, 2, 4], variants=["slabs"], reps=1)
    res = {("one node", "rshmem", 1, "slabs"): [r], ("one node", "rshmem", 2, "slabs"): [dict(r, mops=120.0)],
           ("one node", "ompi", 2, "slabs"): [dict(r, mops=100.0)],
           ("one node", "rshmem", 4, "slabs"): [dict(r, mops=100.0)],
           ("one node", "ompi", 4, "slabs"): [dict(r, mops=100.0)]}
    text = "\n".join(one_node_section(a, res, {"nas": "not installed"}))
    for want in ("| rshmem >= 1.1x Open MPI, slabs, 2 PEs | 1.20x | met |",
                 "| rshmem >= 1.1x Open MPI, slabs, 4 PEs | 1.00x | NOT met |",
                 "| rshmem best variant within 10% of the NAS MPI ref, 1 PE | - | not measured (NAS MPI ref not installed) |"):
        if want not in text:
            bad.append(f"targets: no line {want!r} in\n{text}")
    return benchlib.verdict("ft.py", bad)


if __name__ == "__main__":
    sys.exit(main())
