#!/usr/bin/env python3
"""The halo exchange (examples/halo/) per mode, and the cost of one notification (issue 21).

Builds the halo example (every examples/halo/*.c, rshmem's `oshcc -O3 ... -lpthread -lm`)
and benches/c/notify_cost.c, then runs, --reps times:

  - notify_cost: one notification (the seed's Table 1: a write seen by a polling party and
    its answer, half a pinned ping-pong round trip) between two threads of one PE (C11
    atomics, the floor; shmemx_notify_set + test or wait) and between two PEs
    (shmemx_notify_put of 0 bytes, polled with shmemx_notify_test), across cores and on one;
  - halo in each mode (bulk, notify, threads) at each PE count (2 4 8) and cube (-c 200 and
    -c 400: the seed's small and mid cubes, a 50^3 or 100^3 sub-cube per PE), modes
    interleaved (the order reversed on every other rep).

The tables show medians over the reps of the program's own per-iteration times (halo_us:
the exchange, the slowest PE; iter_us: exchange and stencil), PE 0's split, each mode
against bulk, the targets of issue 21 (notify faster than bulk per iteration at 4 and 8 PEs
on the mid cube; one notification below 200 ns across cores) and notify_cost next to the
seed's CPU column (134, 311, 1760 ns). With --netns (root) the same across the two network
namespaces of tests/netns/ (2 and 4 PEs, half in each); with --virtual across two virtual
nodes of this host (RSHMEM_NODE_SIZE = PEs/2 under mpirun). rshmem only: Open MPI's OSHMEM
4.1 has neither put-with-signal nor the notification API.

    cargo build --release
    python3 benches/halo.py [--reps 3] [--np 2 4 8] [--cubes 200 400] [--modes ...]
                            [--halo-args "-s 0"] [--netns] [--md target/bench/halo.md]
    python3 benches/halo.py --self-test     # the parsers and the tables on embedded samples

Python 3 standard library only; shares its helpers with compare.py, multinode.py and benchlib.py.
"""

import argparse
import glob
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402  (benches/compare.py: run, cell, fmt)
import multinode  # noqa: E402  (benches/multinode.py: MPI flags over TCP)
import benchlib  # noqa: E402  (benches/benchlib.py: what ft.py and halo.py share)
from benchlib import log, md_table, median_of, parse_kv  # noqa: E402

REPO = compare.REPO
MODES = ["bulk", "notify", "threads"]
CUBES = {200: 50, 400: 100, 800: 200}  # -c: the seed's cube over 64 ranks -> side per PE
SMALL, MID = 200, 400
# The seed's Table 1, CPU column: one notification (a read then a write), ns.
SEED_CPU_NS = (("IBM Power9", 134), ("Intel Icelake", 311), ("AMD Rome", 1760))
TARGET_NS = 200  # issue 21: one notification below 200 ns with the poller on another core
TARGET_NP = (4, 8)  # issue 21: notify faster than bulk per iteration at 4 and 8 PEs, mid cube
# Faster means by more than this (relative): the run-to-run spread of iter_us here is a few %.
TIE = compare.TIE
NETNS_HOSTS = ("10.77.0.1", "10.77.0.2")
# notify_cost's cases: (name, parties, what), in the table's order.
COST_CASES = [
    ("atomic_cross_core", "2 threads, 2 cores", "C11 atomic store, polled with loads (the floor)"),
    ("api_cross_core", "2 threads, 2 cores", "`shmemx_notify_set`, polled with `shmemx_notify_test`"),
    ("api_wait_cross_core", "2 threads, 2 cores", "`shmemx_notify_set`, `shmemx_notify_wait`"),
    ("put_cross_core", "2 PEs, 2 cores", "`shmemx_notify_put` of 0 bytes, polled with `shmemx_notify_test`"),
    ("atomic_same_core", "2 threads, 1 core", "C11 atomics, the poller yields after each failed poll"),
    ("api_same_core", "2 threads, 1 core", "`shmemx_notify_set` / `test`, yielding"),
    ("api_wait_same_core", "2 threads, 1 core", "`shmemx_notify_set` / `wait`"),
    ("put_same_core", "2 PEs, 1 core", "`shmemx_notify_put` / `test`, yielding"),
]
TARGET_CASE = "api_cross_core"
SETUP_TITLES = {
    "one node": "One node",
    "virtual": "Across virtual nodes: one host, RSHMEM_NODE_SIZE = PEs/2 under mpirun (TCP)",
    "netns": "Across nodes: two network namespaces (tests/netns/, veth, TCP)",
}


def parse_halo(stdout):
    """The halo program's one machine line (halo-contract) -> dict, or None."""
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            d = parse_kv(line)
            if all(k in d for k in ("mode", "pes", "halo_us", "iter_us", "verified")):
                return d
    return None


def parse_cost(stdout):
    """notify_cost's lines -> ({case: dict}, {case: reason of an NA line})."""
    got, na = {}, {}
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            d = parse_kv(line)
            if "case" in d and isinstance(d.get("ns"), (int, float)):
                got[d["case"]] = d
        elif line.startswith("NA "):
            d = parse_kv(line)
            if "case" in d:
                na[d["case"]] = str(d.get("reason", "not measured")).replace("_", " ")
    return got, na


def heap_hint(stderr):
    """The heap size the halo program's usage error asks for (`SHMEM_SYMMETRIC_SIZE=...`)."""
    m = re.search(r"SHMEM_SYMMETRIC_SIZE=([0-9.]+[kKmMgGtT]?)", stderr)
    return m.group(1) if m else None


class Runner:
    """The launcher commands of one setup (one node, virtual, netns)."""

    def __init__(self, a, netns):
        self.a, self.netns = a, netns
        self.root = ["--allow-run-as-root"] if os.geteuid() == 0 else []

    def command(self, setup, np, prog, unbound=False):
        a = self.a
        oshrun = str(Path(a.rshmem_bin) / "oshrun")
        env = {}
        if setup == "one node":
            args = a.rshmem_run_args.split()
            if unbound and "--bind-to" not in args:
                args += ["--bind-to", "none"]
            return [oshrun, *args, "-np", str(np), *prog], env
        per_node = np // 2
        cmd = [oshrun, "-np", str(np), *multinode.MPI_FLAGS, *multinode.RSHMEM_FLAGS, *self.root]
        if setup == "netns":
            # As ft.py: each namespace's daemon binds its ranks from core 0 up as if it had
            # the machine to itself; unbound, the kernel spreads them over the cores.
            cmd += ["--host", ",".join(f"{h}:{per_node}" for h in NETNS_HOSTS), "--bind-to", "none"]
            return self.netns.wrap(cmd + prog), env
        env["RSHMEM_LAUNCHER"] = "mpirun"
        cmd += ["-x", f"RSHMEM_NODE_SIZE={per_node}"]
        if unbound:
            cmd += ["--bind-to", "none"]
        return cmd + prog, env


def num(v):
    """compare.fmt, with 0 as 0 (threads mode's PE 0 unpacks nothing itself)."""
    return "-" if v is None else "0" if v == 0 else compare.fmt(v)


def verified_cell(runs):
    words = [str(r.get("verified")) for r in runs]
    if not words:
        return "-"
    if len(set(words)) == 1:
        return words[0]
    return ", ".join(f"{w} {words.count(w)}/{len(words)}" for w in sorted(set(words)))


def checksums_agree(res, setup, np, cube, modes):
    """None when every run of every mode of (setup, np, cube) has the same checksum, else
    the checksums seen (the modes must compute the same domain)."""
    seen = {r.get("checksum") for m in modes for r in res.get((setup, np, cube, m), [])}
    return None if len(seen) <= 1 else sorted(map(str, seen))


def halo_section(a, res, status, setup, nps):
    """One table of every cube, PE count and mode, with the ratios against bulk."""
    heads = ["cube (-c)", "PEs", "grid", "sub-cube", "mode", "halo us", "iter us",
             "PE 0 pack / wait / unpack / stencil (us)", "halo / bulk", "iter / bulk", "verified"]
    rows = []
    for cube in a.cubes:
        for np in nps:
            bulk = res.get((setup, np, cube, "bulk"), [])
            for m in a.modes:
                runs = res.get((setup, np, cube, m), [])
                if not runs:
                    rows.append([str(cube), str(np), "-", "-", m, status.get((setup, np, cube, m), "-"),
                                 "-", "-", "-", "-", "-"])
                    continue
                ratios = []
                for key in ("halo_us", "iter_us"):
                    b, x = median_of(bulk, key), median_of(runs, key)
                    ratios.append(f"{x / b:.2f}x" if b and x and m != "bulk" else "-")
                split = " / ".join(num(median_of(runs, k)) for k in ("pack_us", "wait_us", "unpack_us", "stencil_us"))
                rows.append([str(cube), str(np), str(runs[0].get("grid", "-")), str(runs[0].get("sub", "-")), m,
                             compare.cell([r["halo_us"] for r in runs]), compare.cell([r["iter_us"] for r in runs]),
                             split, *ratios, verified_cell(runs)])
    return [f"### {SETUP_TITLES[setup]}", ""] + md_table(heads, rows, {1, 5, 6, 8, 9}) + [""]


def target_rows(a, res, cost):
    """Issue 21's targets: (target, measured, status) rows."""
    rows = []
    for np in TARGET_NP:
        name = f"notify faster than bulk per iteration, {np} PEs, -c {MID}"
        b, n = res.get(("one node", np, MID, "bulk"), []), res.get(("one node", np, MID, "notify"), [])
        if median_of(b, "iter_us") and median_of(n, "iter_us"):
            x = median_of(n, "iter_us") / median_of(b, "iter_us")
            h = median_of(n, "halo_us") / median_of(b, "halo_us")
            rows.append([name, f"notify / bulk {x:.2f}x (halo only {h:.2f}x)",
                         "met" if x < 1 - TIE else f"NOT met (within {TIE:.0%})" if x <= 1 + TIE else "NOT met"])
        else:
            rows.append([name, "-", "not measured"])
    runs = cost.get(("one node", TARGET_CASE), [])
    name = f"one notification below {TARGET_NS} ns, polling thread on another core ({TARGET_CASE})"
    if runs:
        ns = median_of(runs, "ns")
        rows.append([name, f"{ns:.0f} ns", "met" if ns < TARGET_NS else "NOT met"])
    else:
        rows.append([name, "-", "not measured"])
    return rows


def cost_section(cost, cost_na, setup):
    """notify_cost's cases next to the seed's CPU column (one node; across nodes the PE
    cases alone, in us: the seed's figures are for one node)."""
    one = setup == "one node"
    heads = ["case", "parties", "notification", "ns (median ± half range)" if one else "us (median ± half range)",
             "best batch (ns)" if one else "best batch (us)",
             *((f"vs {name} {ns} ns" for name, ns in SEED_CPU_NS) if one else ())]
    scale = 1.0 if one else 1e-3
    rows = []
    for case, parties, what in COST_CASES:
        if not one and not case.startswith("put_"):
            continue
        if not one:
            parties = parties.replace("2 PEs, ", "2 PEs (one per node), ")
        runs = cost.get((setup, case), [])
        if not runs:
            if (setup, case) in cost_na:
                rows.append([f"`{case}`", parties, what, f"n/a ({cost_na[setup, case]})", "-",
                             *("-" for _ in (SEED_CPU_NS if one else ()))])
            continue
        ns = median_of(runs, "ns")
        best = [r["min_ns"] for r in runs if isinstance(r.get("min_ns"), (int, float))]
        rows.append([f"`{case}`", parties, what, compare.cell([scale * r["ns"] for r in runs]),
                     num(scale * min(best) if best else None),
                     *((f"{ns / seed:.2f}x" for _, seed in SEED_CPU_NS) if one else ())])
    if not rows:
        return []
    title = "One notification (the seed's Table 1, CPU side)" if one else \
        f"One notification, {SETUP_TITLES[setup][0].lower()}{SETUP_TITLES[setup][1:]}"
    return [f"### {title}", ""] + md_table(heads, rows, set(range(3, len(heads)))) + [""]


def summary(a, res, setup, nps):
    """In words, per cube and PE count: notify and threads against bulk."""
    said = []
    for cube in a.cubes:
        for np in nps:
            b = median_of(res.get((setup, np, cube, "bulk"), []), "iter_us")
            if not b:
                continue
            parts = []
            for m in a.modes:
                x = median_of(res.get((setup, np, cube, m), []), "iter_us")
                if m != "bulk" and x:
                    how = "faster" if x < (1 - TIE) * b else "slower" if x > (1 + TIE) * b else f"within {TIE:.0%}"
                    parts.append(f"{m} {x / b:.2f}x ({how})")
            if parts:
                said.append(f"-c {cube}, {np} PEs: " + ", ".join(parts))
    return ["Per iteration against bulk: " + "; ".join(said) + ".", ""] if said else []


def report(a, res, status, cost, cost_na, setups, meta):
    md = ["## Halo exchange", ""]
    halo_args = f" {a.halo_args}" if a.halo_args else ""
    md += [benchlib.started_line(meta, a.reps) + f" A mode is faster than another when its median is lower by "
           f"more than {TIE:.0%}. Built with rshmem's "
           f"`oshcc -O3 examples/halo/*.c -lpthread -lm`; every run is `halo -m MODE -c CUBE -i {a.iters} "
           f"-w {a.warmup}{halo_args}` (threads mode: `-t {a.threads}`, launched with `--bind-to none`, "
           f"its worker threads need more than the PE's one core). halo us: mean exchange time per "
           f"iteration (start of packing to the last unpack), the slowest PE; iter us: the whole "
           f"iteration (exchange and stencil); the split is PE 0's; `x / bulk` below 1.00x is faster "
           f"than bulk.", ""]
    for setup in setups:
        nps = a.np if setup == "one node" else a.across_np
        md += halo_section(a, res, status, setup, nps)
        md += summary(a, res, setup, nps)
        if setup == "one node":
            md += ["### Targets", ""] + md_table(["target", "measured", "status"], target_rows(a, res, cost),
                                                 set()) + [""]
        md += cost_section(cost, cost_na, setup)
    if any(k[0] == "one node" for k in cost):
        md += ["One notification is half a round trip of a ping-pong between two parties pinned to "
               "two CPUs (or one), the median of batches (`benches/c/notify_cost.c`, "
               f"`oshrun --bind-to none -np 1|2 notify_cost {a.cost_time}`); `vs` divides it by the seed's "
               "CPU figure for a single read followed by a single write (Table 1: IBM Power9 134 ns, "
               "Intel Icelake 311 ns, AMD Rome 1760 ns); below 1.00x is faster.", ""]
    return "\n".join(md).rstrip() + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rshmem-bin", default=str(REPO / "target" / "release"))
    ap.add_argument("--src", default=str(REPO / "examples" / "halo"), help="the halo sources (every *.c)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--np", type=int, nargs="+", default=[2, 4, 8], help="PE counts on one node")
    ap.add_argument("--cubes", type=int, nargs="+", choices=sorted(CUBES), default=[SMALL, MID],
                    help="the seed's cubes (-c): 200 small, 400 mid, 800 large")
    ap.add_argument("--modes", nargs="+", choices=MODES, default=MODES)
    ap.add_argument("--iters", type=int, default=20, help="timed iterations per run (-i)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed iterations first (-w)")
    ap.add_argument("--threads", type=int, default=2, help="worker threads per PE in threads mode (-t)")
    ap.add_argument("--halo-args", default="", help="more halo options for every run, e.g. \"-s 0\"")
    ap.add_argument("--cost-time", type=float, default=0.25, help="seconds per notify_cost case")
    ap.add_argument("--no-cost", action="store_true", help="leave notify_cost out")
    ap.add_argument("--no-halo", action="store_true", help="run notify_cost only")
    benchlib.add_across_args(ap)
    ap.add_argument("--netns-dir", default=str(REPO / "tests" / "netns"), help="netns.sh and fake-ssh")
    ap.add_argument("--rshmem-run-args", default="", help="extra options for oshrun (one node)")
    benchlib.add_output_args(ap, 300, "check the parsers and tables on samples, exit")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    setups = benchlib.setups_of(ap, a, "halo.py")
    t0, env0 = benchlib.start()

    oshcc = Path(a.rshmem_bin) / "oshcc"
    build_dir = Path(tempfile.mkdtemp(prefix="rshmem-halo-"))
    failures = []
    exes = {}
    todo = [] if a.no_halo else [("halo", sorted(glob.glob(str(Path(a.src) / "*.c"))), ["-lpthread", "-lm"])]
    if not a.no_cost:
        todo.append(("notify_cost", [compare.C_DIR / "notify_cost.c"], ["-lpthread"]))
    for name, sources, libs in todo:
        if not sources:
            sys.exit(f"halo.py: no halo sources in {a.src} (examples/halo/*.c)")
        log(f"==> building {name} with {oshcc}")
        err = benchlib.build(oshcc, sources, build_dir / name, libs)
        if err:
            failures.append(f"{name} build: {err}")
            log(f"halo.py: {err}")
        else:
            exes[name] = build_dir / name
    if exes:
        benchlib.log_library(next(iter(exes.values())), env0, "programs")

    res = {}  # (setup, np, cube, mode) -> [halo RESULT dicts]
    cost, cost_na = {}, {}  # (setup, case) -> [notify_cost RESULT dicts] / reason
    status = {}  # (setup, np, cube, mode) -> why there is no number
    heap = {}  # (setup, np, cube) -> SHMEM_SYMMETRIC_SIZE the program asked for
    try:
        for setup, env, netns in benchlib.each_setup(setups, env0, a.netns_dir, failures, "halo.py"):
            runner = Runner(a, netns)
            nps = a.np if setup == "one node" else a.across_np
            dead = set()
            for rep in range(a.reps):
                if "notify_cost" in exes:
                    # Threads of one PE only make sense on one node; across, the PE cases.
                    for np in ([1, 2] if setup == "one node" else [2]):
                        if ("cost", np) in dead:
                            continue
                        # Unbound: the program pins its threads (or PEs) itself.
                        cmd, extra = runner.command(setup, np, [str(exes["notify_cost"]), str(a.cost_time)],
                                                    unbound=True)
                        rc, out, err, secs = compare.run(cmd, {**env, **extra}, a.timeout)
                        if a.v:
                            log(f"$ {' '.join(cmd)}\n{out}{err}")
                        got, na = parse_cost(out)
                        if rc != 0 or not (got or na):
                            tail = "\n".join(err.strip().splitlines()[-6:])
                            failures.append(f"{setup} notify_cost -np {np} rep {rep + 1}: exit {rc}:\n{tail}")
                            dead.add(("cost", np))
                        for case, d in got.items():
                            cost.setdefault((setup, case), []).append(d)
                        for case, why in na.items():
                            cost_na[setup, case] = why
                        log(f"rep {rep + 1}/{a.reps} {setup} notify_cost -np {np}: "
                            + ", ".join(f"{c} {d['ns']:.0f} ns" for c, d in got.items()))
                if "halo" not in exes:
                    continue
                order = a.modes if rep % 2 == 0 else a.modes[::-1]
                for np in nps:
                    for cube in a.cubes:
                        for m in order:
                            if (np, cube, m) in dead:
                                continue
                            prog = [str(exes["halo"]), "-m", m, "-c", str(cube), "-i", str(a.iters),
                                    "-w", str(a.warmup), *(["-t", str(a.threads)] if m == "threads" else []),
                                    *a.halo_args.split()]
                            tag = f"{setup} -np {np} -c {cube} {m}"
                            for attempt in range(2):
                                cmd, extra = runner.command(setup, np, prog, unbound=(m == "threads"))
                                if (setup, np, cube) in heap:
                                    extra["SHMEM_SYMMETRIC_SIZE"] = heap[setup, np, cube]
                                rc, out, err, secs = compare.run(cmd, {**env, **extra}, a.timeout)
                                if a.v:
                                    log(f"$ {' '.join(f'{k}={x}' for k, x in extra.items())} {' '.join(cmd)}\n"
                                        f"{out}{err}")
                                hint = heap_hint(err) if rc == 2 else None
                                if attempt or not hint or (setup, np, cube) in heap:
                                    break
                                heap[setup, np, cube] = hint  # the program said how much it needs
                                log(f"{tag}: asks for SHMEM_SYMMETRIC_SIZE={hint}; again with it")
                            d = parse_halo(out)
                            if d is None:
                                status[setup, np, cube, m] = benchlib.no_result(failures, tag, rep, a.reps, rc, err,
                                                                                secs)
                                dead.add((np, cube, m))
                                continue
                            if d.get("verified") == "no" or rc != 0:
                                failures.append(f"{tag} rep {rep + 1}: verified={d.get('verified')}, exit {rc}")
                            res.setdefault((setup, np, cube, m), []).append(d)
                            log(f"rep {rep + 1}/{a.reps} {tag}: halo {d['halo_us']:.1f} us, iter "
                                f"{d['iter_us']:.1f} us, verified={d['verified']} ({secs:.1f} s)")
            for np in nps:
                for cube in a.cubes:
                    seen = checksums_agree(res, setup, np, cube, a.modes)
                    if seen:
                        failures.append(f"{setup} -np {np} -c {cube}: the modes' checksums differ: {seen}")
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)

    meta = benchlib.meta(t0, benchlib.shown_command("benches/halo.py", quote=True))
    md = report(a, res, status, cost, cost_na, setups, meta)
    return benchlib.finish(md, failures, a.md, meta["wall"])


HALO_SAMPLE = """halo: mode notify, 4 PEs, grid 2x2x1, sub-cube 50x50x50
RESULT mode=notify pes=4 grid=2x2x1 sub=50x50x50 iters=10 threads=1 halo_us=123.4 pack_us=1.0 wait_us=2.0 \
unpack_us=3.0 stencil_us=456.7 iter_us=580.1 bytes=123456 messages=26 checksum=0x0123456789abcdef verified=yes
"""
COST_SAMPLE = """RESULT case=atomic_cross_core ns=61.5 min_ns=58.0 pes=1 cpus=0,1 rounds=37522 batches=18
RESULT case=api_cross_core ns=150.2 min_ns=140.0 pes=1 cpus=0,1 rounds=9000 batches=20
NA case=put_cross_core reason=no_notification_api_in_shmemx.h
"""


def self_test():
    """The parsers, the heap hint and the tables on embedded samples; exit status 0 or 1."""
    bad, check = benchlib.checks()
    d = parse_halo(HALO_SAMPLE)
    check("halo RESULT", d and (d["mode"], d["pes"], d["grid"], d["halo_us"], d["iter_us"], d["checksum"],
                                d["verified"]), ("notify", 4, "2x2x1", 123.4, 580.1, "0x0123456789abcdef", "yes"))
    check("no RESULT", parse_halo("halo: usage\n"), None)
    check("cut RESULT", parse_halo("RESULT mode=bulk pes=2 halo_us=1.0\n"), None)
    got, na = parse_cost(COST_SAMPLE)
    check("cost cases", sorted(got), ["api_cross_core", "atomic_cross_core"])
    check("cost ns", got["api_cross_core"]["ns"], 150.2)
    check("cost NA", na, {"put_cross_core": "no notification api in shmemx.h"})
    check("heap hint", heap_hint("halo: not enough symmetric heap: set SHMEM_SYMMETRIC_SIZE=96M\n"), "96M")
    check("no heap hint", heap_hint("halo: -g 3x1x1: 3 PEs, not 4\n"), None)

    # Tables on a synthetic run: notify beats bulk at 4 PEs, not at 8; 150 ns across cores.
    a = argparse.Namespace(cubes=[MID], np=[4, 8], modes=["bulk", "notify"], reps=2, iters=10, warmup=2,
                           threads=2, halo_args="", cost_time=0.25, across_np=[2])
    r = parse_halo(HALO_SAMPLE)
    res = {("one node", 4, MID, "bulk"): [dict(r, mode="bulk", iter_us=1000.0, halo_us=400.0)] * 2,
           ("one node", 4, MID, "notify"): [dict(r, iter_us=900.0, halo_us=300.0)] * 2,
           ("one node", 8, MID, "bulk"): [dict(r, mode="bulk", iter_us=1000.0, halo_us=400.0)],
           ("one node", 8, MID, "notify"): [dict(r, iter_us=1100.0, halo_us=500.0)],
           ("one node", 2, MID, "bulk"): [dict(r, mode="bulk", iter_us=1000.0, halo_us=400.0)],
           ("one node", 2, MID, "notify"): [dict(r, iter_us=980.0, halo_us=380.0)]}
    cost = {("one node", c): [v] for c, v in got.items()}
    meta = {"command": "python3 benches/halo.py", "cpu": "a CPU", "cpus": 2, "date": "today", "load0": "0.0",
            "load1": "0.0", "wall": 60.0}
    text = report(a, res, {}, cost, {("one node", "put_cross_core"): "no notification api"}, ["one node"], meta)
    for want in ("## Halo exchange",
                 "| 400 | 4 | 2x2x1 | 50x50x50 | notify | 300 ±0% | 900 ±0% | 1.00 / 2.00 / 3.00 / 457 | 0.75x | 0.90x | yes |",
                 "| notify faster than bulk per iteration, 4 PEs, -c 400 | notify / bulk 0.90x (halo only 0.75x) | met |",
                 "| notify faster than bulk per iteration, 8 PEs, -c 400 | notify / bulk 1.10x (halo only 1.25x) | NOT met |",
                 "| one notification below 200 ns, polling thread on another core (api_cross_core) | 150 ns | met |",
                 "| `api_cross_core` | 2 threads, 2 cores | `shmemx_notify_set`, polled with `shmemx_notify_test` "
                 "| 150 | 140 | 1.12x | 0.48x | 0.09x |",
                 "| `put_cross_core` | 2 PEs, 2 cores | `shmemx_notify_put` of 0 bytes, polled with "
                 "`shmemx_notify_test` | n/a (no notification api) | - | - | - | - |",
                 "-c 400, 4 PEs: notify 0.90x (faster); -c 400, 8 PEs: notify 1.10x (slower)."):
        if want not in text:
            bad.append(f"report: no line {want!r} in\n{text}")
    a.np = [2, 4, 8]
    text = report(a, res, {}, cost, {}, ["one node"], meta)
    for want in ("-c 400, 2 PEs: notify 0.98x (within 5%); -c 400, 4 PEs", ):
        if want not in text:
            bad.append(f"report: no line {want!r} in\n{text}")
    nothing = report(a, {}, {("one node", 4, MID, "notify"): "timed out"}, {}, {}, ["one node"], meta)
    for want in ("| 400 | 4 | - | - | notify | timed out |", "| notify faster than bulk per iteration, 4 PEs, "
                 "-c 400 | - | not measured |"):
        if want not in nothing:
            bad.append(f"empty report: no line {want!r} in\n{nothing}")
    across = "\n".join(cost_section({("netns", "put_cross_core"): [{"ns": 84228.0, "min_ns": 39233.0}]}, {}, "netns"))
    want = ("| `put_cross_core` | 2 PEs (one per node), 2 cores | `shmemx_notify_put` of 0 bytes, polled with "
            "`shmemx_notify_test` | 84.2 | 39.2 |")
    if want not in across or "api_cross_core" in across:
        bad.append(f"across cost table: no line {want!r} (or a thread case) in\n{across}")
    res3 = {("one node", 4, MID, "bulk"): [dict(r, mode="bulk", iter_us=1000.0, halo_us=400.0)],
            ("one node", 4, MID, "notify"): [dict(r, iter_us=980.0, halo_us=380.0)]}
    check("target within 5%", target_rows(a, res3, {})[0],
          ["notify faster than bulk per iteration, 4 PEs, -c 400", "notify / bulk 0.98x (halo only 0.95x)",
           "NOT met (within 5%)"])
    res2 = {("one node", 4, MID, "bulk"): [dict(r, checksum="0x1")], ("one node", 4, MID, "notify"): [r]}
    check("checksums differ", checksums_agree(res2, "one node", 4, MID, MODES), ["0x0123456789abcdef", "0x1"])
    check("checksums agree", checksums_agree(res, "one node", 4, MID, MODES), None)
    return benchlib.verdict("halo.py", bad)


if __name__ == "__main__":
    sys.exit(main())
