#!/usr/bin/env python3
"""Multi-node benchmark of rshmem against Open MPI's OSHMEM, over the same network path.

Runs benches/c/multinode.c (8-byte put+quiet, get, fetch_add, p/wait_until and
put-with-signal round trips, putmem bandwidth at 64 KiB and 4 MiB, barrier_all) and times
the start-up of benches/c/hello.c, in these setups:

  remote-2x1   one host, 2 PEs, every peer on another (virtual) node: rshmem with
               RSHMEM_NODE_SIZE=1 under Open MPI's mpirun, MPI kept off shared memory
  hybrid-2x2   one host, 4 PEs in two virtual nodes of 2 (RSHMEM_NODE_SIZE=2)
  netns-2x1    two network namespaces joined by a veth pair (tests/netns/), 1 PE each
  netns-2x2    the same, 2 PEs each                            (netns-*: root only, --netns)

Open MPI's OSHMEM runs the same programs with its own oshrun, spml ucx over TCP
(UCX_TLS=tcp) and the same MPI flags; on one host it cannot split a host into nodes, so in
hybrid-2x2 all its traffic is TCP. Runs are interleaved (rshmem, OSHMEM, OSHMEM, rshmem, ...)
--reps times; the tables show medians and rshmem / OSHMEM against the targets of issue 19
(latency and barrier at most 0.5x OSHMEM, bandwidth at least 1.0x).

    cargo build --release
    python3 benches/multinode.py [--reps 3] [--setups remote-2x1 hybrid-2x2] [--netns] [--md out.md]

Python 3 standard library only; shares its helpers with compare.py.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402  (benches/compare.py: run, parse, build, table, fmt)

BENCH_DIR = compare.BENCH_DIR
REPO = compare.REPO

# Open MPI kept off shared memory on one host: messages over TCP, one-sided over UCX over
# TCP, polling ranks that yield (fewer cores than PEs). Both implementations get them.
MPI_FLAGS = ["--oversubscribe", "--mca", "pml", "ob1", "--mca", "btl", "tcp,self",
             "--mca", "mpi_yield_when_idle", "1", "-x", "UCX_TLS=tcp"]
RSHMEM_FLAGS = ["--mca", "osc", "ucx"]
# spml ucx over TCP; opal_mem_hooks=0 avoids OSHMEM's segfault in shmem_finalize (compare.py)
OMPI_FLAGS = ["--mca", "spml", "ucx", "-x", "OMPI_MCA_opal_common_ucx_opal_mem_hooks=0"]

SETUPS = {  # name: (PEs, PEs per node, across namespaces)
    "remote-2x1": (2, 1, False),
    "hybrid-2x2": (4, 2, False),
    "netns-2x1": (2, 1, True),
    "netns-2x2": (4, 2, True),
}

EXPECTED = [("put_latency", 8), ("get_latency", 8), ("atomic_fetch_add_latency", 8),
            ("pingpong_roundtrip", 8), ("put_signal_roundtrip", 8), ("put_bw", 64 << 10),
            ("put_bw", 4 << 20), ("barrier_all", 0)]
ROWS = EXPECTED + [("startup", 0)]
UNITS = {"put_bw": "MB/s", "startup": "s"}


def log(msg=""):
    print(msg, flush=True)


class Netns:
    """The two namespaces of tests/netns/netns.sh, torn down by close() (and on exit)."""

    def __init__(self, netns_dir):
        self.dir = Path(netns_dir).resolve()
        self.tag = f"b{os.getpid() % 10**7}"
        p = subprocess.run(["sh", str(self.dir / "netns.sh"), "up", self.tag], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"netns.sh up {self.tag} failed: {p.stderr.strip()}")

    def wrap(self, cmd):
        """cmd run on nodea, with Open MPI starting nodeb's daemon through fake-ssh."""
        script = "hostname nodea && exec \"$0\" \"$@\""
        return ["ip", "netns", "exec", f"rshmem_a_{self.tag}", "unshare", "--uts", "sh", "-c", script, *cmd]

    def env(self):
        return {"RSHMEM_NETNS_TAG": self.tag, "OMPI_MCA_plm_rsh_agent": str(self.dir / "fake-ssh")}

    def close(self):
        subprocess.run(["sh", str(self.dir / "netns.sh"), "down", self.tag], capture_output=True)


def command(impl, bindir, exe, setup, args, netns):
    np, per_node, across = SETUPS[setup]
    if impl == "rshmem":
        cmd = ["mpirun", "-np", str(np), *MPI_FLAGS, *RSHMEM_FLAGS]
        if not across:
            cmd += ["-x", f"RSHMEM_NODE_SIZE={per_node}"]
    else:
        cmd = [str(Path(bindir) / "oshrun"), "-np", str(np), *MPI_FLAGS, *OMPI_FLAGS]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    if across:
        # Each namespace's daemon binds its ranks from core 0 up as if it had the machine to
        # itself: bound, both namespaces' PEs would share the same cores.
        cmd += ["--host", f"10.77.0.1:{per_node},10.77.0.2:{per_node}", "--bind-to", "none"]
    cmd += [str(exe), *args]
    return netns.wrap(cmd) if across else cmd


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rshmem-bin", default=str(REPO / "target" / "release"))
    ap.add_argument("--ompi-bin", default="/usr/bin")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--time", type=float, default=0.2, help="seconds per measurement")
    ap.add_argument("--startup-runs", type=int, default=3)
    ap.add_argument("--setups", nargs="+", choices=list(SETUPS), default=["remote-2x1", "hybrid-2x2"])
    ap.add_argument("--netns", action="store_true", help="add netns-2x1 and netns-2x2 (root)")
    ap.add_argument("--netns-dir", default=str(REPO / "tests" / "netns"), help="netns.sh and fake-ssh")
    ap.add_argument("--no-ompi", action="store_true")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--md", help="write the Markdown table here")
    ap.add_argument("-v", action="store_true", help="print every command and its output")
    a = ap.parse_args()
    setups = list(a.setups) + (["netns-2x1", "netns-2x2"] if a.netns else [])
    env, removed = compare.run_environment()
    if removed:
        log(f"LD_LIBRARY_PATH: left out {os.pathsep.join(removed)} (cargo's)")
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})

    impls = {"rshmem": Path(a.rshmem_bin)}
    if not a.no_ompi:
        impls["ompi"] = Path(a.ompi_bin)
    build = Path(tempfile.mkdtemp(prefix="rshmem-multinode-"))
    exes = {}
    for impl, bindir in impls.items():
        for prog in ("multinode", "hello"):
            out = build / f"{prog}.{impl}"
            err = compare.build(bindir / "oshcc", BENCH_DIR / "c" / f"{prog}.c", out)
            if err:
                sys.exit(f"multinode.py: {err}")
            exes[impl, prog] = out

    netns = None
    if any(SETUPS[s][2] for s in setups):
        if os.geteuid() != 0:
            sys.exit("multinode.py: the netns setups need root (ip netns, unshare)")
        netns = Netns(a.netns_dir)
        env.update(netns.env())
    results = {}  # (setup, impl, bench, size) -> [values]
    notes = []
    nas = set()  # (setup, impl, bench, size) the program says it cannot measure
    try:
        for rep in range(a.reps):
            order = list(impls) if rep % 2 == 0 else list(reversed(impls))
            for setup in setups:
                np = SETUPS[setup][0]
                for impl in order:
                    cmd = command(impl, impls[impl], exes[impl, "multinode"], setup, [str(a.time)], netns)
                    rc, out, err, secs = compare.run(cmd, env, a.timeout)
                    if a.v:
                        log(f"$ {' '.join(cmd)}\n{out}{err}")
                    got = {(b, s): v for b, s, n, v, _ in compare.parse(out) if n == np}
                    na = compare.parse_na(out)
                    missing = [k for k in EXPECTED if k not in got and k not in na]
                    tail = "\n".join(err.strip().splitlines()[-6:])
                    if missing:
                        notes.append(f"{setup} {impl} rep {rep + 1}: exit {rc}, lacks {missing}:\n{tail}")
                    elif rc != 0:
                        notes.append(f"{setup} {impl} rep {rep + 1}: exit {rc} after all results (kept)")
                    for k in na:
                        results.setdefault((setup, impl, *k), [])
                        nas.add((setup, impl, *k))
                    for k, v in got.items():
                        results.setdefault((setup, impl, *k), []).append(v)
                    for _ in range(a.startup_runs):
                        cmd = command(impl, impls[impl], exes[impl, "hello"], setup, [], netns)
                        rc, out, err, secs = compare.run(cmd, env, a.timeout)
                        if rc == 0 and f"STARTED {np}" in out:
                            results.setdefault((setup, impl, "startup", 0), []).append(secs)
                log(f"rep {rep + 1}/{a.reps} {setup} done")
    finally:
        if netns:
            netns.close()

    md = report(results, nas, setups, list(impls))
    log("\n" + md)
    for n in notes:
        log(f"note: {n}")
    if a.md:
        Path(a.md).write_text(md + "\n")
        log(f"wrote {a.md}")
    return 0


def report(results, nas, setups, impls):
    head = "| setup | benchmark | size | rshmem | Open MPI OSHMEM | rshmem / OSHMEM | target |"
    lines = [head, "|---|---|---:|---:|---:|---:|---|"]
    for setup in setups:
        for bench, size in ROWS:
            unit = UNITS.get(bench, "us")
            vals = {i: results.get((setup, i, bench, size), []) for i in impls}
            if not any(vals.values()) and not any((setup, i, bench, size) in nas for i in impls):
                continue
            med = {i: statistics.median(v) if v else None for i, v in vals.items()}
            r, o = med.get("rshmem"), med.get("ompi")
            ratio, target = "-", "-"
            if r and o:
                ratio = f"{r / o:.2f}x"
                if bench == "put_bw":
                    target = "met" if r / o >= 1.0 else "missed (>= 1.0x)"
                elif bench != "startup":
                    target = "met" if r / o <= 0.5 else "missed (<= 0.5x)"
            cells = ["n/a" if (setup, i, bench, size) in nas else compare.cell(vals.get(i, []))
                     for i in ("rshmem", "ompi")]
            lines.append(f"| {setup} | {bench} ({unit}) | {compare.fmt_size(size)} | {cells[0]} | {cells[1]} "
                         f"| {ratio} | {target} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
