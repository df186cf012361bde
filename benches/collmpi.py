#!/usr/bin/env python3
"""The MPI column of the collectives benchmark and issue 22's targets, shared by
compare.py and report.py.

benches/c/mpi_coll.c measures the MPI collectives a program would call instead of coll.c's
team collectives, with coll.c's method. compare.py builds it with `mpicc`, runs it with
`mpirun` as the implementation `MPI` (same PE counts, interleaved with the others) and files
each of its rows under the coll.c team row it stands for (MPI_TWIN), so that the MPI figure
sits next to rshmem's figure of the same operation. report.py then checks the targets:
every team collective against MPI (at most MPI_LIMIT_2 x MPI's time at 2 PEs, MPI_LIMIT_N x
at more) and against its active-set twin (ACTIVE_TWIN: no slower).

    python3 benches/collmpi.py --self-test   # the parsing, the CSV and the targets on samples

Python 3 standard library only.
"""

import shutil
import sys
from pathlib import Path

MPI_SOURCE = "mpi_coll.c"  # in benches/c/, built instead of coll.c for the MPI column
MPI_KEY, MPI_LABEL = "mpi", "MPI"  # compare.py's implementation key (CSV column) and label

# mpi_coll.c's benchmark -> (coll.c's team row it is compared with, the sizes of both).
MPI_TWIN = {
    "mpi_barrier": ("team_sync", [0]),
    "mpi_bcast": ("broadcastmem", [8, 64 << 10, 1 << 20]),
    "mpi_allgather": ("fcollectmem", [8]),
    "mpi_alltoall": ("alltoallmem", [8, 64 << 10]),
    "mpi_allreduce_double_sum": ("double_sum_reduce", [8, 32 << 10, 1 << 20]),
}
# The (coll.c benchmark, size) rows with an MPI figure: what mpi_coll must print.
TWIN_ROWS = [(team, s) for team, sizes in MPI_TWIN.values() for s in sizes]

# coll.c's team row -> its active-set twin (OpenSHMEM 1.4's routine for the same operation).
ACTIVE_TWIN = {
    "team_sync": "barrier_activeset",
    "broadcastmem": "broadcast64",
    "fcollectmem": "fcollect64",
    "alltoallmem": "alltoall64",
    "long_sum_reduce": "long_sum_to_all",
    "double_sum_reduce": "double_sum_to_all",
}

MPI_LIMIT_2, MPI_LIMIT_N = 1.1, 0.8  # team / MPI at 2 PEs, at 4 and more


def mpi_limit(npes):
    return MPI_LIMIT_2 if (npes or 0) <= 2 else MPI_LIMIT_N


def as_twins(rows):
    """compare.parse()'s tuples of an mpi_coll run -> the same tuples under the coll.c team
    row each one stands for; rows mpi_coll should not print are dropped."""
    out = []
    for bench, size, npes, value, unit in rows:
        team, sizes = MPI_TWIN.get(bench, (None, []))
        if team and size in sizes:
            out.append((team, size, npes, value, unit))
    return out


def find_mpi():
    """(mpicc, mpirun) paths from PATH, or (None, why not)."""
    cc, run = shutil.which("mpicc"), shutil.which("mpirun")
    if cc and run:
        return (cc, run)
    return (None, " and ".join(n for n, p in (("mpicc", cc), ("mpirun", run)) if not p) + " not on PATH")


def evaluate(rows):
    """Issue 22's targets over report.py's rows (objects with bench, size, npes, r: rshmem's
    median, m: MPI's median). Returns (vs_mpi, vs_active): lists of
    (team row, reference row or None, ratio or None, limit, status), one per team row with
    an MPI twin (vs_mpi) or an active-set twin (vs_active) that the CSV has at all;
    status is "met", "NOT met" or "not measured"."""
    by_key = {(r.bench, r.size, r.npes): r for r in rows}

    def status(ratio, limit):
        return "not measured" if ratio is None else "met" if ratio <= limit else "NOT met"

    vs_mpi, vs_active = [], []
    teams = sorted((r for r in rows if r.bench in ACTIVE_TWIN or (r.bench, r.size) in TWIN_ROWS),
                   key=lambda r: (list(ACTIVE_TWIN).index(r.bench) if r.bench in ACTIVE_TWIN else 99,
                                  r.size or 0, r.npes or 0))
    for t in teams:
        if (t.bench, t.size) in TWIN_ROWS:
            ratio = t.r / t.m if t.r is not None and t.m else None
            vs_mpi.append((t, t, ratio, mpi_limit(t.npes), status(ratio, mpi_limit(t.npes))))
        a = by_key.get((ACTIVE_TWIN.get(t.bench), t.size, t.npes))
        if t.bench in ACTIVE_TWIN:
            ratio = t.r / a.r if a is not None and t.r is not None and a.r else None
            vs_active.append((t, a, ratio, 1.0, status(ratio, 1.0)))
    return vs_mpi, vs_active


# ---------------------------------------------------------------- why a target is missed

# What limits a team collective against its reference beyond the run's measurements, per
# (team row, reference kind, size or None for any): the cause, as measured in the sessions
# that built the collective (docs/psync.md, "Team collectives in one round").
CAUSES = {
    ("broadcastmem", "twin", None): (
        "The team routine also writes the root's own `dest` (OpenSHMEM 1.5's team broadcast "
        "updates it; the active-set routine leaves it alone), a copy of the whole message on "
        "the root, overlapped with the receivers' reads from 64 KiB on."),
    ("broadcastmem", "MPI", 8): (
        "An eager broadcast's root pushes one ring cell per receiver and returns; each side then "
        "pays one `SeqCst` fence per call for the wake-up protocol (a PE about to sleep must see "
        "the other's stores, and the other must see the sleeper), and a profile of the loop at 2 "
        "PEs on two CPUs (`perf record`) put most of the call in those fences, which wait for the "
        "cell's line to move between the CPUs."),
    ("team_sync", "MPI", None): (
        "A team sync runs the team's barrier on its sync array (dissemination up to 4 PEs, two "
        "rounds; a flat tree above, two hops), each round a hand-over when the partner shares the "
        "CPU; `shmem_barrier_all`'s one counter needs fewer, but a word that every member updates "
        "is not something the pairwise strategies' memory provides."),
    ("alltoallmem", "twin", 65536): (
        "Blocks too large for the team's inbox are pulled between two barriers: the active-set "
        "twin pushes after one barrier and ends with one round of signals on a pSync its caller "
        "keeps idle, a guarantee the team's own sync memory lacks (a fast member may already be "
        "in the next call), and under the pairwise strategies only graph partners may signal."),
}


def explain(rows, floors, cpus):
    """Markdown bullets for every missed target of coll_targets: the limit, measured in this run
    (the PEs' hand-overs of a CPU, the runs' own spread) and the known cause of the gap."""
    vs_mpi, vs_active = evaluate(rows)
    handoff = next((f.floor for f in floors if f.bench == "yield_handoff" and f.floor), None)
    missed = [(t, ref, ratio, lim, "MPI") for t, ref, ratio, lim, st in vs_mpi if st == "NOT met"]
    missed += [(t, ref, ratio, lim, "twin") for t, ref, ratio, lim, st in vs_active if st == "NOT met"]
    if not missed:
        return []
    out = ["#### Why these targets are missed", "",
           "Each team collective above that misses a goal, with what limits it, measured in this run.", ""]
    for t, ref, ratio, lim, kind in missed:
        size = f" {t.size} B" if t.size else ""
        who = "MPI" if kind == "MPI" else f"its active-set twin `{ref.bench}`"
        runs = t.r_runs
        ref_runs = t.m_runs if kind == "MPI" else ref.r_runs
        why = []
        # The implementations run interleaved, rep by rep: noise only if the team collective
        # met the goal against its reference in at least one rep.
        paired = list(zip(runs or [], ref_runs or []))
        listed = (f"(team: {'; '.join(f'{v:.3g}' for v in runs or [])} µs; {who}: "
                  f"{'; '.join(f'{v:.3g}' for v in ref_runs or [])} µs, rep by rep)")
        if paired and any(a <= lim * b for a, b in paired):
            why.append(f"In some reps the goal was met {listed}: the gap is within this machine's "
                       "run-to-run spread.")
        elif paired:
            why.append(f"Missed in every rep {listed}.")
        if t.npes and t.npes > cpus and handoff:
            per = -(-t.npes // cpus)
            why.append(f"{t.npes} PEs share {cpus} CPUs: every member must run for the call to "
                       f"complete, at least {per - 1} hand-over(s) of each CPU per call at "
                       f"{handoff:.3g} µs each (`yield_handoff`, this run).")
        cause = CAUSES.get((t.bench, kind, t.size)) or CAUSES.get((t.bench, kind, None))
        if cause:
            why.append(cause)
        if not why:
            why.append("No cause measured yet.")
        out.append(f"- **{t.bench}{size}, {t.npes} PEs, against {who}** ({ratio:.2f}x): " + " ".join(why))
    return out + [""]


# ---------------------------------------------------------------- self-test

SAMPLE_MPI_OUT = """\
RESULT mpi_barrier 0 4 3.8 us
RESULT mpi_bcast 8 4 0.38 us
RESULT mpi_bcast 65536 4 15.3 us
RESULT mpi_bcast 12345 4 1.0 us
RESULT mpi_allreduce_double_sum 1048576 4 653.7 us
RESULT something_else 8 4 1.0 us
"""

SAMPLE_CSV = """\
benchmark,size_bytes,npes,unit,rshmem,openmpi,ratio_rshmem_openmpi,better,floor,rshmem_runs,openmpi_runs,floor_runs,mpi,ratio_rshmem_mpi,mpi_runs
barrier_activeset,0,2,us,0.3,0.7,0.43,rshmem,,0.3;0.31,0.7;0.72,,,,
team_sync,0,2,us,0.33,n/a,,-,,0.33;0.35,,,0.32,1.03,0.32;0.4
team_sync,0,4,us,5.4,n/a,,-,,5.4,,,3.8,1.42,3.8
broadcast64,8,4,us,0.28,0.79,0.36,rshmem,,0.28,0.79,,,,
broadcastmem,8,4,us,0.25,n/a,,-,,0.25,,,0.38,0.66,0.38
broadcastmem,65536,4,us,7.3,n/a,,-,,7.3,,,n/a,,
double_sum_reduce,1048576,8,us,1500,n/a,,-,,1500,,,,,
"""

OLD_CSV = """\
benchmark,size_bytes,npes,unit,rshmem,openmpi,ratio_rshmem_openmpi,better,floor,rshmem_runs,openmpi_runs,floor_runs
put_latency,8,2,us,0.016,0.062,0.26,rshmem,,0.016,0.062,
team_sync,0,2,us,9.9,n/a,,-,,9.9,,
floor:memcpy_bw,1048576,1,MB/s,,,,,32524,,,32524
"""


def self_test():
    import csv
    import io
    import tempfile
    sys.dont_write_bytecode = True
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import compare  # noqa: E402
    import report  # noqa: E402

    def check(cond, what):
        if not cond:
            raise AssertionError(what)

    # compare.py: mpi_coll's lines filed under their team rows, unknown names and sizes dropped.
    got = as_twins(compare.parse(SAMPLE_MPI_OUT))
    check(got == [("team_sync", 0, 4, 3.8, "us"), ("broadcastmem", 8, 4, 0.38, "us"),
                  ("broadcastmem", 65536, 4, 15.3, "us"), ("double_sum_reduce", 1048576, 4, 653.7, "us")],
          f"as_twins: {got}")
    check(set(TWIN_ROWS) <= set(compare.EXPECTED["coll"]), "every MPI twin is a row coll.c prints")
    check(all((a, s) in compare.EXPECTED["coll"] for t, a in ACTIVE_TWIN.items()
              for tt, s in compare.EXPECTED["coll"] if tt == t), "every team row has its active-set twin")

    with tempfile.TemporaryDirectory() as d:
        new, old = Path(d) / "new.csv", Path(d) / "old.csv"
        new.write_text(SAMPLE_CSV)
        old.write_text(OLD_CSV)
        # report.py: the MPI column (a number, n/a, or absent), old CSVs without it.
        rows, floors, _rcol, ocol, header = report.read_csv(new)
        by = {(r.bench, r.size, r.npes): r for r in rows}
        check(by[("team_sync", 0, 4)].m == 3.8 and by[("team_sync", 0, 2)].m_runs == [0.32, 0.4],
              "MPI median and runs read")
        check(by[("broadcastmem", 65536, 4)].m is None and by[("broadcastmem", 65536, 4)].m_raw == "n/a",
              "MPI n/a kept")
        rows_old, _f, _r, _o, _h = report.read_csv(old)
        check(all(r.m is None and r.m_raw == "" for r in rows_old), "a CSV without the MPI column")
        vs_mpi, vs_active = evaluate(rows)
        st = {(t.bench, t.size, t.npes): s for t, _ref, _ratio, _lim, s in vs_mpi}
        check(st == {("team_sync", 0, 2): "met", ("team_sync", 0, 4): "NOT met",
                     ("broadcastmem", 8, 4): "met", ("broadcastmem", 65536, 4): "not measured",
                     ("double_sum_reduce", 1048576, 8): "not measured"}, f"vs MPI: {st}")
        lim = {(t.bench, t.npes): lim_ for t, _ref, _ratio, lim_, _s in vs_mpi}
        check(lim[("team_sync", 2)] == 1.1 and lim[("team_sync", 4)] == 0.8, f"limits: {lim}")
        st = {(t.bench, t.size, t.npes): s for t, _ref, _ratio, _lim, s in vs_active}
        check(st[("team_sync", 0, 2)] == "NOT met" and st[("broadcastmem", 8, 4)] == "met"
              and st[("team_sync", 0, 4)] == "not measured", f"vs active set: {st}")
        text = "\n".join(report.coll_targets(rows))
        check("team_sync | - | 4 | 5.40 us | 3.80 us | 1.42 | ≤ 0.8 | **NOT met**" in text, text)
        check("2 met, 1 not met, 2 not measured" in text, text)
        from types import SimpleNamespace
        why = "\n".join(explain(rows, [SimpleNamespace(bench="yield_handoff", floor=2.0)], 2))
        check("team_sync, 4 PEs, against MPI** (1.42x)" in why and "hand-over" in why, why)
        check("team_sync, 2 PEs, against its active-set twin" in why and "runs overlap" not in why, why)
        # report.py: the rows of programs this run left out come from the previous CSV.
        out = Path(d) / "merged.csv"
        carried = report.carry_over(new, old, out)
        check(carried == ["latency", "floor"], f"carried: {carried}")
        merged = list(csv.DictReader(io.StringIO(out.read_text())))
        names = [(m["benchmark"], m["npes"]) for m in merged]
        check(("put_latency", "2") in names and ("floor:memcpy_bw", "1") in names
              and names.count(("team_sync", "2")) == 1, f"merged: {names}")
        check(next(m for m in merged if m["benchmark"] == "team_sync" and m["npes"] == "2")["rshmem"] == "0.33",
              "the new run's row wins")
        check(report.carry_over(new, Path(d) / "none.csv", out) == [], "no previous CSV")
    print("collmpi.py self-test: ok")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    print(__doc__)
    sys.exit(2)
