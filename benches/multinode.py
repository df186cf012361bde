#!/usr/bin/env python3
"""Multi-node benchmark of rshmem's two remote engines against Open MPI's OSHMEM and UCX's own
floor, over the same network path.

Runs benches/c/multinode.c (8-byte put+quiet, get, fetch_add, p/wait_until and
put-with-signal round trips, putmem bandwidth at 64 KiB and 4 MiB, barrier_all, 8-byte
broadcast, fcollect and alltoall over all PEs) and times
the start-up of benches/c/hello.c, in these setups:

  remote-2x1   one host, 2 PEs, every peer on another (virtual) node: rshmem with
               RSHMEM_NODE_SIZE=1 under Open MPI's mpirun, MPI kept off shared memory
  hybrid-2x2   one host, 4 PEs in two virtual nodes of 2 (RSHMEM_NODE_SIZE=2)
  netns-2x1    two network namespaces joined by a veth pair (tests/netns/), 1 PE each
  netns-2x2    the same, 2 PEs each                            (netns-*: root only, --netns)

Columns:
  rshmem-ucx   rshmem with RSHMEM_REMOTE=ucx (UCX's UCP API between nodes)
  rshmem-mpi   rshmem with RSHMEM_REMOTE=mpi (MPI-3 RMA between nodes)
               (both: -x RSHMEM_REMOTE=... to mpirun; the multinode.c runs also get
               SHMEM_INFO=1, and a run whose "rshmem transport: ..." line names the other
               engine is dropped with a note)
  OSHMEM       Open MPI's OSHMEM, with its own oshrun, spml ucx over TCP (UCX_TLS=tcp) and
               the same MPI flags; on one host it cannot split a host into nodes, so in
               hybrid-2x2 all its traffic is TCP
  floor        UCX's ucx_perftest (package ucx-utils) between two processes over the same
               path, UCX_TLS=tcp: on one host a server and a client on 127.0.0.1; in the
               netns setups the server in the first namespace (10.77.0.1) and the client in
               the second. Two processes only, also in the 2x2 setups (the PE pair measured).
               Without ucx_perftest the column is left out (a printed skip).

How each floor is made comparable with its row. ucx_perftest 1.13's final line gives the
median ("typical") latency of its last 2048 iterations (multinode.c gives means: the floor
is the stricter of the two) and MB/s as 2^20 bytes per second; its iterations are fixed
(FLOOR_TESTS), not set by --time.
  put_latency, pingpong_roundtrip   ucp_put_lat -s 8 is a ping-pong (each side puts 8 B to
               the other and polls its own buffer for the answer); ucx_perftest halves every
               ping-pong test's time and reports the ONE-WAY latency. The floor is twice it:
               one whole round trip, which is what a p/wait_until round trip is, and what
               put+quiet needs at least (the data there, the completion back).
  atomic_fetch_add_latency  ucp_fadd -s 8: one fetch-add at a time, each completed by its
               reply (a stream test, not halved): a round trip, taken as reported. ucp_add is
               not used: it has no reply to wait for and measures the issue rate only.
  get_latency  ucp_get -s 8, as fadd (a stream test, not halved): a round trip. But UCX's
               tcp transport has no get and no atomics (ucx_info -d: am and put_zcopy only),
               so UCP does both in software, answered by the target's worker progress; in
               ucp_get (unlike ucp_fadd and ucp_put_*) the target only runs its own -n
               progress calls, far shorter than the client's -n gets, and then waits in
               ucx_perftest's barrier, which polls its socket for 1 ms between progress
               calls (UCX 1.13 perftest.c, sock_io; ucp_tests.cc, use_psn), so nearly
               every get takes ~1 ms. When ucp_get's latency is above 5x ucp_fadd's of the
               same rep, the get floor is ucp_fadd's round trip instead (the same 8-byte
               request and 8-byte reply through the same software path), and its cell says
               "(ucp_fadd)"; ucp_get's own figure is printed with each floor rep.
  put_bw       ucp_put_bw -s 65536 / -s 4194304 -O 1: one put outstanding at a time, each
               completed locally (UCP's request), one flush at the end, where multinode.c
               quiets after every put; with the default window of 32, 4 MiB puts over tcp ran
               at a tenth of -O 1's rate on the 2-core test machine. "overall" bandwidth, times
               1.048576 for multinode.c's MB/s (10^6 bytes per second).

Runs are interleaved (rshmem-ucx, rshmem-mpi, OSHMEM, floor, then the reverse, ...) --reps
times; the tables show medians (± half the min-max range), rshmem-ucx / OSHMEM,
rshmem-ucx / floor, and the targets of issue 34, met or missed, for rshmem-ucx:
  get, fetch-add, put+quiet, p/wait_until round trip   <= 1.0x OSHMEM and <= 1.2x floor
  put-with-signal round trip                           <= 1.2x the p/wait_until round trip
                                                          (rshmem-ucx both)
  barrier_all at 2x2 (hybrid-2x2, netns-2x2)           <= 0.8x OSHMEM
  broadcast, fcollect, alltoall of 8 B at 2x2          <= 0.8x OSHMEM (its active-set forms:
                                                          it has no teams)
  put bandwidth 64 KiB and 4 MiB                       >= 1.0x OSHMEM and >= 0.9x floor

    cargo build --release
    python3 benches/multinode.py [--reps 3] [--setups remote-2x1 hybrid-2x2] [--netns] [--md out.md]
    python3 benches/multinode.py --rshmem-bin "$CARGO_TARGET_DIR/release" ...   # another target dir

Python 3 standard library only; shares its helpers with compare.py.
"""

import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
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
# --rshmem-env NAME=VALUE: more variables for rshmem's runs (e.g. SHMEM_WAIT_SPIN).
RSHMEM_ENV = []
# spml ucx over TCP; opal_mem_hooks=0 avoids OSHMEM's segfault in shmem_finalize (compare.py)
OMPI_FLAGS = ["--mca", "spml", "ucx", "-x", "OMPI_MCA_opal_common_ucx_opal_mem_hooks=0"]

SETUPS = {  # name: (PEs, PEs per node, across namespaces)
    "remote-2x1": (2, 1, False),
    "hybrid-2x2": (4, 2, False),
    "netns-2x1": (2, 1, True),
    "netns-2x2": (4, 2, True),
}
NETNS_A, NETNS_B = "10.77.0.1", "10.77.0.2"  # tests/netns/netns.sh

# rshmem's engines between nodes: column -> RSHMEM_REMOTE, and what SHMEM_INFO says of it
ENGINES = {"ucx": "UCX between nodes", "mpi": "MPI-3 RMA between nodes"}
LABELS = {"rshmem-ucx": "rshmem-ucx", "rshmem-mpi": "rshmem-mpi", "ompi": "OSHMEM", "floor": "floor"}

EXPECTED = [("put_latency", 8), ("get_latency", 8), ("atomic_fetch_add_latency", 8),
            ("pingpong_roundtrip", 8), ("put_signal_roundtrip", 8), ("put_bw", 64 << 10),
            ("put_bw", 4 << 20), ("barrier_all", 0), ("broadcast", 8), ("fcollect", 8),
            ("alltoall", 8)]
ROWS = EXPECTED + [("startup", 0)]
UNITS = {"put_bw": "MB/s", "startup": "s"}

# The floor: ucx_perftest runs (name, test, message size, extra options, warm-up and measured
# iterations) and how each row's floor is made of their final lines (see the docstring).
MIB_PER_MB = (1 << 20) / 1e6
FLOOR_TESTS = [
    ("put_lat", "ucp_put_lat", 8, [], 1000, 20000),
    ("get", "ucp_get", 8, [], 100, 2000),  # 1 ms an iteration when its responder sleeps (below)
    ("fadd", "ucp_fadd", 8, [], 1000, 20000),
    ("put_bw_64k", "ucp_put_bw", 64 << 10, ["-O", "1"], 200, 4000),
    ("put_bw_4m", "ucp_put_bw", 4 << 20, ["-O", "1"], 10, 200),
]
FLOOR_ROWS = {  # row -> (run, field of its final line, factor)
    ("put_latency", 8): ("put_lat", "lat", 2.0),
    ("pingpong_roundtrip", 8): ("put_lat", "lat", 2.0),
    ("get_latency", 8): ("get", "lat", 1.0),
    ("atomic_fetch_add_latency", 8): ("fadd", "lat", 1.0),
    ("put_bw", 64 << 10): ("put_bw_64k", "bw", MIB_PER_MB),
    ("put_bw", 4 << 20): ("put_bw_4m", "bw", MIB_PER_MB),
}
# ucp_get's latency above this many times ucp_fadd's (same rep) is its responder asleep, not
# a get: the get floor is then ucp_fadd's round trip (see the docstring).
GET_SLEEPING = 5.0

# Issue 34's targets for rshmem-ucx: row -> [(against, bound, "<=" or ">=")]; "pingpong" is
# rshmem-ucx's own p/wait_until round trip. barrier_all's applies at 2x2 only.
LAT_TARGET = [("ompi", 1.0, "<="), ("floor", 1.2, "<=")]
BW_TARGET = [("ompi", 1.0, ">="), ("floor", 0.9, ">=")]
TARGETS = {
    ("get_latency", 8): LAT_TARGET,
    ("atomic_fetch_add_latency", 8): LAT_TARGET,
    ("put_latency", 8): LAT_TARGET,
    ("pingpong_roundtrip", 8): LAT_TARGET,
    ("put_signal_roundtrip", 8): [("pingpong", 1.2, "<=")],
    ("barrier_all", 0): [("ompi", 0.8, "<=")],
    ("broadcast", 8): [("ompi", 0.8, "<=")],
    ("fcollect", 8): [("ompi", 0.8, "<=")],
    ("alltoall", 8): [("ompi", 0.8, "<=")],
    ("put_bw", 64 << 10): BW_TARGET,
    ("put_bw", 4 << 20): BW_TARGET,
}
COLLECTIVES = ("barrier_all", "broadcast", "fcollect", "alltoall")
AGAINST = {"ompi": "OSHMEM", "floor": "floor", "pingpong": "p/wait_until"}

UCX_ALERT = re.compile(r"UCX\s+(ERROR|WARN)")  # UCX's own complaints in a run's stderr


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

    def inside(self, node, cmd):
        """cmd run in namespace node ("a": 10.77.0.1, "b": 10.77.0.2)."""
        return ["ip", "netns", "exec", f"rshmem_{node}_{self.tag}", *cmd]

    def env(self):
        return {"RSHMEM_NETNS_TAG": self.tag, "OMPI_MCA_plm_rsh_agent": str(self.dir / "fake-ssh")}

    def close(self):
        subprocess.run(["sh", str(self.dir / "netns.sh"), "down", self.tag], capture_output=True)


def command(impl, bindir, exe, setup, args, netns, info=False):
    """The launcher command of column impl (rshmem-ucx, rshmem-mpi, ompi) running exe."""
    np, per_node, across = SETUPS[setup]
    if impl.startswith("rshmem"):
        cmd = ["mpirun", "-np", str(np), *MPI_FLAGS, *RSHMEM_FLAGS]
        if impl != "rshmem":  # rshmem-ucx, rshmem-mpi: the engine between nodes
            cmd += ["-x", f"RSHMEM_REMOTE={impl.split('-', 1)[1]}"]
        if info:
            cmd += ["-x", "SHMEM_INFO=1"]
        if not across:
            cmd += ["-x", f"RSHMEM_NODE_SIZE={per_node}"]
        for kv in RSHMEM_ENV:
            cmd += ["-x", kv]
    else:
        cmd = [str(Path(bindir) / "oshrun"), "-np", str(np), *MPI_FLAGS, *OMPI_FLAGS]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    if across:
        # Each namespace's daemon binds its ranks from core 0 up as if it had the machine to
        # itself: bound, both namespaces' PEs would share the same cores.
        cmd += ["--host", f"{NETNS_A}:{per_node},{NETNS_B}:{per_node}", "--bind-to", "none"]
    cmd += [str(exe), *args]
    return netns.wrap(cmd) if across else cmd


def engine_line(err):
    """rshmem's SHMEM_INFO line naming its engine between nodes, or None."""
    for line in err.splitlines():
        if line.startswith("rshmem transport:"):
            return line.strip()
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def parse_perftest(out):
    """ucx_perftest's `Final:` line -> {"lat": typical latency (us), "bw": overall
    bandwidth (MiB/s)}, or None. Fields: iterations, latency typical / average / overall,
    bandwidth average / overall, message rate average / overall."""
    for line in reversed(out.splitlines()):
        f = line.split()
        if f and f[0] == "Final:" and len(f) >= 9:
            try:
                return {"lat": float(f[2]), "bw": float(f[6])}
            except ValueError:
                return None
    return None


def run_perftest(perftest, test, size, extra, warmup, iters, env, netns, timeout, verbose):
    """One ucx_perftest server/client pair; returns (final line's fields or None, why not,
    the two processes' stderr)."""
    port = str(free_port())
    args = ["-t", test, "-s", str(size), *extra, "-w", str(warmup), "-n", str(iters), "-p", port]
    server = [perftest, *args]
    client = [perftest, NETNS_A if netns else "127.0.0.1", *args]
    if netns:
        server, client = netns.inside("a", server), netns.inside("b", client)
    srv = subprocess.Popen(server, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                           start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        rc, out, err = None, "", ""
        # The server listens a moment after it starts; the client retries until it connects.
        for _ in range(50):
            time.sleep(0.2)
            rc, out, err, _secs = compare.run(client, env, max(1.0, deadline - time.monotonic()))
            if rc is not None and srv.poll() is None and "Final:" not in out and \
                    re.search(r"connect|refused", err, re.I) and time.monotonic() < deadline:
                continue  # not listening yet
            break
        try:
            sout, serr = srv.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            sout, serr = "", "[server killed]"
        if verbose:
            log(f"$ {' '.join(server)}\n{sout}{serr}$ {' '.join(client)}\n{out}{err}")
        got = parse_perftest(out)
        why = None if got else (f"exit {rc}, no Final line: " + " | ".join(err.strip().splitlines()[-3:]))
        return got, why, err + serr
    finally:
        if srv.poll() is None:
            try:
                os.killpg(srv.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            srv.communicate()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rshmem-bin", default=str(REPO / "target" / "release"),
                    help="rshmem's oshcc (default: target/release; with CARGO_TARGET_DIR set, "
                         "pass $CARGO_TARGET_DIR/release)")
    ap.add_argument("--ompi-bin", default="/usr/bin")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--time", type=float, default=0.2, help="seconds per measurement")
    ap.add_argument("--startup-runs", type=int, default=3)
    ap.add_argument("--setups", nargs="+", choices=list(SETUPS), default=["remote-2x1", "hybrid-2x2"])
    ap.add_argument("--netns", action="store_true", help="add netns-2x1 and netns-2x2 (root)")
    ap.add_argument("--netns-dir", default=str(REPO / "tests" / "netns"), help="netns.sh and fake-ssh")
    ap.add_argument("--engines", nargs="+", choices=list(ENGINES), default=list(ENGINES),
                    help="rshmem's engines between nodes, one column each (RSHMEM_REMOTE; default: ucx mpi)")
    ap.add_argument("--no-ompi", action="store_true")
    ap.add_argument("--no-floor", action="store_true", help="no ucx_perftest column")
    ap.add_argument("--ucx-perftest", default="ucx_perftest", help="the floor's program (default: on PATH)")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--md", help="write the Markdown table here")
    ap.add_argument("--raw", help="write every run's value here (tab-separated, one line per row and column)")
    ap.add_argument("--rshmem-env", action="append", default=[], metavar="NAME=VALUE",
                    help="a variable for rshmem's runs only, passed with -x (repeatable); stated in the output")
    ap.add_argument("-v", action="store_true", help="print every command and its output")
    a = ap.parse_args()
    if a.reps < 1 or a.startup_runs < 0:
        ap.error("--reps must be >= 1 and --startup-runs >= 0")
    for kv in a.rshmem_env:
        if "=" not in kv:
            ap.error(f"--rshmem-env {kv}: expected NAME=VALUE")
        RSHMEM_ENV.append(kv)
        log(f"rshmem's runs get {kv}")
    setups = list(dict.fromkeys(list(a.setups) + (["netns-2x1", "netns-2x2"] if a.netns else [])))
    env, removed = compare.run_environment()
    if removed:
        log(f"LD_LIBRARY_PATH: left out {os.pathsep.join(removed)} (cargo's)")
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})

    # column -> the directory of its oshcc; the rshmem columns share one build
    impls = {f"rshmem-{e}": Path(a.rshmem_bin) for e in a.engines}
    if not a.no_ompi:
        impls["ompi"] = Path(a.ompi_bin)
    perftest = None
    if not a.no_floor:
        perftest = shutil.which(a.ucx_perftest)
        if perftest is None:
            log(f"floor: skipped, {a.ucx_perftest} not found (Debian/Ubuntu package ucx-utils)")
    build = Path(tempfile.mkdtemp(prefix="rshmem-multinode-"))
    exes = {}
    for bindir in dict.fromkeys(impls.values()):
        tag = "rshmem" if bindir == Path(a.rshmem_bin) else "ompi"
        for prog in ("multinode", "hello"):
            out = build / f"{prog}.{tag}"
            err = compare.build(bindir / "oshcc", BENCH_DIR / "c" / f"{prog}.c", out)
            if err:
                sys.exit(f"multinode.py: {err}")
            for impl, d in impls.items():
                if d == bindir:
                    exes[impl, prog] = out
    columns = list(impls) + (["floor"] if perftest else [])

    netns = None
    if any(SETUPS[s][2] for s in setups):
        if os.geteuid() != 0:
            sys.exit("multinode.py: the netns setups need root (ip netns, unshare)")
        netns = Netns(a.netns_dir)
        env.update(netns.env())
    floor_env = dict(env, UCX_TLS="tcp")
    log(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    results = {}  # (setup, column, bench, size) -> [values]
    notes = []
    alerts = {}  # UCX's complaints: line -> [(setup, column, rep)]
    engines_seen = {}  # (setup, column) -> set of SHMEM_INFO engine lines
    nas = set()  # (setup, column, bench, size) the program says it cannot measure
    subst = set()  # setups whose get floor is ucp_fadd's (ucp_get's responder asleep)

    def alert(text, setup, col, rep):
        for line in text.splitlines():
            if UCX_ALERT.search(line):
                alerts.setdefault(line.strip()[:200], []).append((setup, col, rep + 1))

    try:
        for rep in range(a.reps):
            order = columns if rep % 2 == 0 else list(reversed(columns))
            for setup in setups:
                np = SETUPS[setup][0]
                for col in order:
                    if col == "floor":
                        got = {}  # run name -> its final line's fields
                        for name, test, size, extra, warm, iters in FLOOR_TESTS:
                            fields, why, err = run_perftest(perftest, test, size, extra, warm, iters, floor_env,
                                                            netns if SETUPS[setup][2] else None, a.timeout, a.v)
                            alert(err, setup, col, rep)
                            if fields is None:
                                notes.append(f"{setup} floor rep {rep + 1}: {test} -s {size}: {why}")
                            else:
                                got[name] = fields
                        log(f"floor {setup} rep {rep + 1}: " + ", ".join(
                            f"{test} -s {size}: " + ("failed" if name not in got else f"{got[name]['bw']:g} MiB/s"
                                                     if test == "ucp_put_bw" else f"{got[name]['lat']:g} us")
                            for name, test, size, *_ in FLOOR_TESTS))
                        if "get" in got and "fadd" in got and got["get"]["lat"] > GET_SLEEPING * got["fadd"]["lat"]:
                            subst.add(setup)
                            got["get"] = got["fadd"]
                        for row, (name, field, factor) in FLOOR_ROWS.items():
                            if name in got:
                                results.setdefault((setup, col, *row), []).append(got[name][field] * factor)
                        continue
                    want = col.split("-", 1)[1] if col.startswith("rshmem-") else None
                    cmd = command(col, impls[col], exes[col, "multinode"], setup, [str(a.time)], netns,
                                  info=want is not None)
                    rc, out, err, secs = compare.run(cmd, env, a.timeout)
                    if a.v:
                        log(f"$ {' '.join(cmd)}\n{out}{err}")
                    alert(err, setup, col, rep)
                    tail = "\n".join(err.strip().splitlines()[-6:])
                    if want:
                        line = engine_line(err)
                        engines_seen.setdefault((setup, col), set()).add(line)
                        if line is None or ENGINES[want] not in line:
                            notes.append(f"{setup} {col} rep {rep + 1}: exit {rc}, engine not {want} "
                                         f"({line or 'no SHMEM_INFO line'}): results dropped\n{tail}")
                            continue
                    got = {(b, s): v for b, s, n, v, _ in compare.parse(out) if n == np}
                    na = compare.parse_na(out)
                    missing = [k for k in EXPECTED if k not in got and k not in na]
                    if missing:
                        notes.append(f"{setup} {col} rep {rep + 1}: exit {rc}, lacks {missing}:\n{tail}")
                    elif rc != 0:
                        notes.append(f"{setup} {col} rep {rep + 1}: exit {rc} after all results (kept)")
                    for k in na:
                        results.setdefault((setup, col, *k), [])
                        nas.add((setup, col, *k))
                    for k, v in got.items():
                        results.setdefault((setup, col, *k), []).append(v)
                    for _ in range(a.startup_runs):
                        cmd = command(col, impls[col], exes[col, "hello"], setup, [], netns)
                        rc, out, err, secs = compare.run(cmd, env, a.timeout)
                        alert(err, setup, col, rep)
                        if rc == 0 and f"STARTED {np}" in out:
                            results.setdefault((setup, col, "startup", 0), []).append(secs)
                log(f"rep {rep + 1}/{a.reps} {setup} done")
    finally:
        if netns:
            netns.close()

    log(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    md = report(results, nas, setups, columns, subst)
    log("\n" + md)
    for (setup, col), lines in sorted(engines_seen.items(), key=lambda kv: str(kv[0])):
        log(f"engine: {setup} {col}: " + "; ".join(sorted(str(x) for x in lines)))
    for n in notes:
        log(f"note: {n}")
    for line, where in alerts.items():
        runs = ", ".join(f"{s} {c} rep {r}" for s, c, r in where[:6]) + (" ..." if len(where) > 6 else "")
        log(f"UCX said ({len(where)}x: {runs}): {line}")
    if a.md:
        Path(a.md).write_text(md + "\n")
        log(f"wrote {a.md}")
    if a.raw:
        rows = ["setup\tcolumn\tbenchmark\tsize\tvalues (in run order)"]
        rows += [f"{k[0]}\t{k[1]}\t{k[2]}\t{k[3]}\t" + " ".join(f"{v:g}" for v in vals)
                 for k, vals in results.items()]
        Path(a.raw).write_text("\n".join(rows) + "\n")
        log(f"wrote {a.raw}")
    return 0


def verdict(key, setup, med):
    """The target cell of rshmem-ucx's row key in setup (med: column -> median)."""
    goals = TARGETS.get(key)
    if key[0] in COLLECTIVES and SETUPS[setup][1] < 2:
        goals = None  # the collectives' targets are for 2x2 only
    mine = med.get("rshmem-ucx")
    if not goals or mine is None:
        return "-"
    missed, unknown = [], []
    for against, bound, op in goals:
        ref = med.get("pingpong_roundtrip" if against == "pingpong" else against)
        if not ref:
            unknown.append(f"no {AGAINST[against]}")
            continue
        r = mine / ref
        if not (r <= bound if op == "<=" else r >= bound):
            d = next((d for d in range(2, 6) if f"{r:.{d}f}" != f"{bound:.{d}f}"), 6)
            shown = f"{r:.{d}f}"  # as many decimals as it takes not to look like the bound: 0.8996x, not 0.90x
            missed.append(f"{shown}x {AGAINST[against]} ({op} {bound:.1f}x)")
    if missed:
        return "missed: " + "; ".join(missed + unknown)
    if unknown:
        return "? (" + "; ".join(unknown) + ")"
    if key == ("put_signal_roundtrip", 8):
        return f"met ({mine / med['pingpong_roundtrip']:.2f}x p/wait_until)"
    return "met"


def report(results, nas, setups, columns, subst=()):
    head = ("| setup | benchmark | size | " + " | ".join(LABELS[c] for c in columns)
            + " | rshmem-ucx / OSHMEM | rshmem-ucx / floor | target (issue 34) |")
    lines = [head, "|---|---|---:|" + "---:|" * (len(columns) + 2) + "---|"]
    for setup in setups:
        ucx_pingpong = results.get((setup, "rshmem-ucx", "pingpong_roundtrip", 8), [])
        for bench, size in ROWS:
            unit = UNITS.get(bench, "us")
            vals = {c: results.get((setup, c, bench, size), []) for c in columns}
            if not any(vals.values()) and not any((setup, c, bench, size) in nas for c in columns):
                continue
            med = {c: statistics.median(v) for c, v in vals.items() if v}
            if ucx_pingpong:
                med["pingpong_roundtrip"] = statistics.median(ucx_pingpong)
            r = med.get("rshmem-ucx")
            ratios = [f"{r / med[c]:.2f}x" if r and med.get(c) else "-" for c in ("ompi", "floor")]
            cells = ["n/a" if (setup, c, bench, size) in nas else compare.cell(vals.get(c, []))
                     for c in columns]
            if (bench, size) == ("get_latency", 8) and setup in subst and "floor" in columns:
                cells[columns.index("floor")] += " (ucp_fadd)"
            lines.append(f"| {setup} | {bench} ({unit}) | {compare.fmt_size(size)} | " + " | ".join(cells)
                         + f" | {ratios[0]} | {ratios[1]} | {verdict((bench, size), setup, med)} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
