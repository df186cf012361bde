#!/usr/bin/env python3
"""Markdown report of a benches/compare.py CSV (rshmem against Open MPI, plus the floor).

    cargo build --release
    python3 benches/compare.py --csv /tmp/b.csv
    python3 benches/report.py /tmp/b.csv --out docs/performance.md --csv-out docs/performance.csv \\
        [--icount ICOUNT.md] [--command "python3 benches/compare.py --csv /tmp/b.csv"]

The report is data-driven: every row of the CSV appears, grouped into families by the
benchmark's name (FAMILIES below, first match wins; then the program compare.py lists it
under; then "other"). A "Targets" table checks the goals in TARGETS below against the rows
that exist (a goal whose rows are missing says "not measured"), and every other row against
Open MPI (ratio <= 1, or >= 1 where higher is better). The collectives add an MPI column
(benches/c/mpi_coll.c) and issue 22's targets: team collectives against MPI and against their
active-set twins (benches/collmpi.py). With --csv-out, the rows of programs a run left out
(`--only coll`) are carried over from the CSV being replaced, and the report says so.

Lower is better for times (us, ms, ns, s) and sizes (B, KB, MB, KiB, MiB, ...: the memory
rows); higher is better for every rate (a unit ending in "/s": MB/s, Mop/s, ...).

Python 3 standard library only.
"""

import argparse
import csv
import datetime
import os
import platform
import re
import statistics
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # its modules (collmpi, texttable) leave no benches/__pycache__
sys.path.insert(0, str(BENCH_DIR))
import collmpi  # noqa: E402  (benches/collmpi.py: the MPI twins and issue 22's targets)

TIE = 0.05  # relative difference below which "better" says "~" (as compare.py)

# (family, predicate on (benchmark, unit)), first match wins. Names follow compare.py's rows.
FAMILIES = [
    ("floor", lambda b, u: b in ("memcpy_bw", "cacheline_pingpong")),
    ("start-up", lambda b, u: "startup" in b or "start_up" in b or b.startswith("init")),
    ("memory", lambda b, u: "rss" in b or "memory" in b or "footprint" in b),
    ("signals", lambda b, u: "signal" in b or b.startswith("sem_") or "semaphore" in b),
    ("atomics", lambda b, u: b.startswith("atomic") or "_atomic" in b or b.startswith(("fetch_", "amo"))),
    ("collectives", lambda b, u: re.match(r"(barrier|team_sync|sync|broadcast|fcollect|collect|alltoall|"
                                          r"reduce|.*_to_all|.*_reduce)", b) is not None),
    ("bandwidth", lambda b, u: b.endswith("_bw") or "bandwidth" in b or "_bw_" in b),
    ("message rate", lambda b, u: "rate" in b or "msgrate" in b),
    ("latency", lambda b, u: "latency" in b or "pingpong" in b),
]
FAMILY_ORDER = ["latency", "message rate", "signals", "atomics", "collectives", "bandwidth", "start-up",
                "memory", "floor", "other"]
# Program (compare.py's EXPECTED) -> family, for names no pattern above knows.
PROGRAM_FAMILY = {"latency": "latency", "global": "latency", "atomic": "atomics", "put_signal": "signals",
                  "semaphore": "signals", "barrier": "collectives", "coll": "collectives",
                  "bandwidth": "bandwidth", "msgrate": "message rate", "msgrate_all": "message rate",
                  "atomic_contended": "atomics", "floor": "floor", "hello": "start-up", "startup": "start-up",
                  "mem": "memory", "rss": "memory", "memory": "memory"}

FLOOR_NOTE = {
    "memcpy_bw": "glibc memcpy between two private buffers, one core",
    "cacheline_pingpong": "one-way latency of an 8-byte store between two pinned processes (half the round trip)",
    "yield_handoff": "one hand-over of a CPU between two processes pinned to it (sched_yield, a context switch)",
}

MIB = 1 << 20
GLOBAL_TOKENS = ("global", "static")  # put_latency_global <-> put_latency (the heap row)


def lower_is_better(unit):
    """Times and sizes: lower is better; rates (anything per second): higher is better."""
    u = (unit or "").strip()
    if u.endswith("/s") or "rate" in u.lower():
        return False
    return True


def compare_module():
    """benches/compare.py as a module (its main() only runs as a script), or None."""
    dont_write = sys.dont_write_bytecode
    try:
        sys.dont_write_bytecode = True  # no benches/__pycache__
        sys.path.insert(0, str(BENCH_DIR))
        import compare  # noqa: E402
        return compare
    except Exception:  # a half-edited compare.py must not break the report
        return None
    finally:
        sys.dont_write_bytecode = dont_write
        if sys.path and sys.path[0] == str(BENCH_DIR):
            sys.path.pop(0)


def program_of_bench():
    """benchmark -> program, from compare.py's EXPECTED if it can be imported (else {})."""
    return {b: prog for prog, benches in getattr(compare_module(), "EXPECTED", {}).items() for b, _s in benches}


def family(bench, unit, prog_of):
    for name, pred in FAMILIES:
        if pred(bench, unit):
            return name
    prog = prog_of.get(bench) or prog_of.get(strip_global(bench) or "")
    return PROGRAM_FAMILY.get(prog, "other")


# ---------------------------------------------------------------- formatting

def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    if a == 0:
        return "0"
    return f"{v:#.3g}" if a >= 1e-4 else f"{v:.2e}"


def fmt_size(n):
    if n is None:
        return "?"
    if n == 0:
        return "-"
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}"


def md_table(headers, rows, aligns=None):
    aligns = aligns or ["l"] * len(headers)

    def esc(x):
        return str(x).replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(esc(h) for h in headers) + " |",
           "|" + "|".join("---:" if a == "r" else "---" for a in aligns) + "|"]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


# ---------------------------------------------------------------- CSV

def num(s):
    """A CSV cell -> float, or None for '', '-', 'n/a' and anything else non-numeric."""
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def runs_of(s):
    return [v for v in (num(x) for x in (s or "").split(";")) if v is not None]


class Row:
    def __init__(self, bench, size, npes, unit, r, o, r_raw, o_raw, floor, r_runs, o_runs, floor_runs,
                 m_raw="", m_runs=()):
        self.bench, self.size, self.npes, self.unit = bench, size, npes, unit
        self.r, self.o = r, o              # medians (None: not measured / n/a)
        self.r_raw, self.o_raw = r_raw, o_raw  # the CSV cells ('n/a', '', number)
        self.floor = floor
        self.r_runs, self.o_runs, self.floor_runs = r_runs, o_runs, floor_runs
        self.m, self.m_raw, self.m_runs = num(m_raw), m_raw, list(m_runs)  # the MPI column (collectives)

    @property
    def lower(self):
        return lower_is_better(self.unit)

    @property
    def ratio(self):
        return self.r / self.o if self.r is not None and self.o else None

    def key(self):
        return (self.bench, self.size, self.npes)


def read_csv(path):
    """Returns (rows, floor_rows, rshmem column, ompi column, header)."""
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        header = rd.fieldnames or []
        data = list(rd)
    # Ordinary CSV: rshmem, openmpi. --psync-strategies: rshmem/<strategy>..., openmpi (take the first).
    rcol = "rshmem" if "rshmem" in header else next((h for h in header if h.startswith("rshmem/")
                                                     and not h.endswith("_runs")), None)
    ocol = "openmpi" if "openmpi" in header else None
    mcol = collmpi.MPI_KEY if collmpi.MPI_KEY in header else None
    rows, floors = [], []
    for d in data:
        bench = (d.get("benchmark") or "").strip()
        if not bench:
            continue
        try:
            size = int(float(d.get("size_bytes") or 0))
        except ValueError:
            size = None
        try:
            npes = int(float(d.get("npes") or 0))
        except ValueError:
            npes = None
        unit = (d.get("unit") or "").strip()
        r_raw = (d.get(rcol) or "").strip() if rcol else ""
        o_raw = (d.get(ocol) or "").strip() if ocol else ""
        row = Row(bench, size, npes, unit, num(r_raw), num(o_raw), r_raw, o_raw, num(d.get("floor")),
                  runs_of(d.get(f"{rcol}_runs") if rcol else ""), runs_of(d.get(f"{ocol}_runs") if ocol else ""),
                  runs_of(d.get("floor_runs")), (d.get(mcol) or "").strip() if mcol else "",
                  runs_of(d.get(f"{mcol}_runs")) if mcol else [])
        if bench.startswith("floor:"):
            row.bench = bench[len("floor:"):].strip()
            floors.append(row)
        else:
            rows.append(row)
    return rows, floors, rcol, ocol, header


def spread(values):
    if len(values) < 2:
        return None
    m = statistics.median(values)
    return None if m == 0 else 50.0 * (max(values) - min(values)) / abs(m)


def cell(v, raw, runs):
    if v is None:
        return "n/a" if raw == "n/a" else "-"
    sp = spread(runs)
    return fmt(v) if sp is None else f"{fmt(v)} ±{sp:.0f}%"


def better(row):
    ratio = row.ratio
    if ratio is None:
        return "-"
    if abs(ratio - 1.0) < TIE:
        return "~"
    name = "rshmem" if (ratio < 1.0) == row.lower else "Open MPI"
    rv, ov = row.r_runs, row.o_runs
    if len(rv) > 1 and len(ov) > 1 and min(rv) <= max(ov) and min(ov) <= max(rv):
        name = f"({name})"  # ranges of runs overlap: a tendency, not a result
    return name


# ---------------------------------------------------------------- machine

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def physical_cores():
    try:
        seen = set()
        phys = core = None
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                k = k.strip()
                if k == "physical id":
                    phys = v.strip()
                elif k == "core id":
                    core = v.strip()
                elif not line.strip():
                    if core is not None:
                        seen.add((phys, core))
                    phys = core = None
        return len(seen) or None
    except OSError:
        return None


def mem_total():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


# ---------------------------------------------------------------- targets

def strip_global(bench):
    toks = bench.split("_")
    if not any(t in GLOBAL_TOKENS for t in toks):
        return None
    return "_".join(t for t in toks if t not in GLOBAL_TOKENS)


def is_global(bench):
    return strip_global(bench) is not None


def where_of(r):
    size = f" {fmt_size(r.size)}" if r.size else ""
    return f"{r.bench}{size}, {r.npes} PE{'s' if r.npes != 1 else ''}"


def evaluate_targets(rows, floors):
    """Returns (named-target table rows, other rows against Open MPI, rows without both figures)."""
    by_key = {r.key(): r for r in rows}
    by_bench = {}
    for r in rows:
        by_bench.setdefault(r.bench, []).append(r)
    out, covered = [], set()

    def memcpy_floor(row):
        for f in floors:
            if f.bench == "memcpy_bw" and f.size == row.size and f.floor is not None:
                return f.floor
        return row.floor

    def line(goal, row, value, ref, ref_name, ratio, limit, higher):
        if row is None or value is None:
            status = "not measured"
        elif ref is None:
            status = f"no {ref_name} figure"
        else:
            ok = ratio >= limit if higher else ratio <= limit
            status = "met" if ok else "**NOT met**"
        where = where_of(row) if row else "-"
        unit = f" {row.unit}" if row and row.unit else ""
        out.append([goal, where, (fmt(value) + unit) if value is not None else "-",
                    (f"{fmt(ref)}{unit} ({ref_name})" if ref is not None else "-"),
                    fmt_ratio(ratio), ("≥ " if higher else "≤ ") + f"{limit:g}", status])

    def vs_ompi(goal, bench, size, limit, npes_filter=None):
        hits = [r for r in by_bench.get(bench, []) if r.size == size and (npes_filter is None or npes_filter(r.npes))]
        if not hits:
            line(goal, None, None, None, "Open MPI", None, limit, False)
        for r in sorted(hits, key=lambda r: r.npes or 0):
            covered.add(r.key())
            line(goal, r, r.r, r.o, "Open MPI", r.ratio, limit, not r.lower)

    # Point-to-point 8-byte operations on the heap: within 1.1x of Open MPI.
    vs_ompi("heap put 8 B + quiet ≤ 1.1× Open MPI", "put_latency", 8, 1.1)
    vs_ompi("heap get 8 B ≤ 1.1× Open MPI", "get_latency", 8, 1.1)
    vs_ompi("heap ping-pong 8 B ≤ 1.1× Open MPI", "pingpong_latency", 8, 1.1)
    vs_ompi("heap fetch_add ≤ 1.1× Open MPI", "atomic_fetch_add_latency", 8, 1.1)

    # putmem bandwidth: >= 95% of memcpy of the same size.
    for size in (MIB, 64 * MIB):
        hits = [r for r in by_bench.get("put_bw", []) if r.size == size]
        goal = f"putmem {fmt_size(size)} ≥ 95% of memcpy"
        if not hits:
            line(goal, None, None, None, "memcpy", None, 0.95, True)
        for r in hits:
            covered.add(r.key())
            fl = memcpy_floor(r)
            line(goal, r, r.r, fl, "memcpy", r.r / fl if r.r is not None and fl else None, 0.95, True)

    # Global (static) variables: within 1.2x of the same operation on the heap (rshmem).
    globs = [r for r in rows if is_global(r.bench)]
    if not globs:
        line("global variables ≤ 1.2× heap (rshmem)", None, None, None, "heap", None, 1.2, False)
    for g in sorted(globs, key=lambda r: (r.bench, r.size or 0, r.npes or 0)):
        covered.add(g.key())
        # The heap twin measured in the same program, in alternating batches
        # (global.c), else the heap row of latency.c / atomic.c.
        heap = (by_key.get((strip_global(g.bench) + "_heap_twin", g.size, g.npes))
                or by_key.get((strip_global(g.bench), g.size, g.npes)))
        goal = "global ≤ 1.2× heap (rshmem)" if g.lower else "global ≥ heap / 1.2 (rshmem)"
        if heap is None or heap.r is None:
            line(goal, g, g.r, None, "heap", None, 1.2, False)
            continue
        if g.lower:
            ratio = g.r / heap.r if g.r is not None and heap.r else None
            line(goal, g, g.r, heap.r, f"heap {heap.bench}", ratio, 1.2, False)
        else:
            ratio = g.r / heap.r if g.r is not None and heap.r else None
            line(goal, g, g.r, heap.r, f"heap {heap.bench}", ratio, round(1 / 1.2, 3), True)

    # barrier_all: <= 1.1x Open MPI at 2 PEs, <= 0.5x at 4 and 8 PEs (and more).
    hits = by_bench.get("barrier_all", [])
    for np_ in sorted({2, 4, 8} | {r.npes or 0 for r in hits}):
        limit = 1.1 if np_ <= 2 else 0.5
        goal = f"barrier_all at {np_} PEs ≤ {limit:g}× Open MPI"
        at = [r for r in hits if (r.npes or 0) == np_]
        if not at:
            line(goal, None, None, None, "Open MPI", None, limit, False)
        for r in at:
            covered.add(r.key())
            line(goal, r, r.r, r.o, "Open MPI", r.ratio, limit, False)

    # Start-up of an 8-PE job: <= 0.25x Open MPI.
    starts = [r for r in rows if "startup" in r.bench and ("np8" in r.bench or r.npes == 8)]
    if not starts:
        line("startup np8 ≤ 0.25× Open MPI", None, None, None, "Open MPI", None, 0.25, False)
    for r in starts:
        covered.add(r.key())
        line("startup np8 ≤ 0.25× Open MPI", r, r.r, r.o, "Open MPI", r.ratio, 0.25, False)

    # Every other row: no worse than Open MPI.
    others, uncomparable = [], []
    for r in rows:
        if r.key() in covered:
            continue
        if r.r is None or r.o is None:
            why = "rshmem " + (r.r_raw or "-") if r.r is None else "Open MPI " + (r.o_raw or "-")
            uncomparable.append(f"{where_of(r)} ({why})")
            continue
        ok = r.ratio <= 1.0 if r.lower else r.ratio >= 1.0
        unit = f" {r.unit}" if r.unit else ""
        others.append([where_of(r), fmt(r.r) + unit, fmt(r.o) + unit, fmt_ratio(r.ratio),
                       "≤ 1" if r.lower else "≥ 1", "met" if ok else "**NOT met**"])
    return out, others, uncomparable


# ---------------------------------------------------------------- why not ahead

COLLECTIVE = re.compile(r"(barrier|team_sync|broadcast|fcollect|collect|alltoall|.*_to_all|.*_reduce)")


def overlap(r):
    """True when the two implementations' runs overlap (the difference is within the noise)."""
    if not r.r_runs or not r.o_runs:
        return False
    return min(r.r_runs) <= max(r.o_runs) and min(r.o_runs) <= max(r.r_runs)


def explain_behind(rows, floors, trows, others):
    """A paragraph per row where rshmem is not ahead: the limit, measured, and what would move it."""
    handoff = next((f.floor for f in floors if f.bench == "yield_handoff" and f.floor), None)
    cpus = os.cpu_count() or 1
    by_where = {where_of(r): r for r in rows}
    behind = [t[1] for t in trows if "NOT met" in t[-1]] + [o[0] for o in others if "NOT met" in o[-1]]
    if not behind:
        return []
    out = ["### Why these rows are not ahead", "",
           "Each row that misses its goal above, with the limit behind it, measured in this run where "
           "the machine allows it.", ""]
    for where in behind:
        r = by_where.get(where)
        if r is None:
            continue
        why = []
        if r.npes and r.npes > cpus and COLLECTIVE.match(r.bench):
            per_core = -(-r.npes // cpus)
            if handoff:
                fl = (per_core - 1) * handoff
                why.append(f"{r.npes} PEs share {cpus} CPUs, {per_core} per CPU; every PE must run for the "
                           f"collective to complete, so each CPU hands itself over at least {per_core - 1} "
                           f"time(s) per call, at {fmt(handoff)} µs each (`yield_handoff`, this run): a floor "
                           f"of about {fmt(fl)} µs, against {fmt(r.r)} µs for rshmem and {fmt(r.o)} µs for "
                           "Open MPI.")
            if r.bench.endswith("_to_all"):
                why.append("An active-set reduction pushes (one round of signals) only while the n "
                           "contributions fit the 4 KiB inbox of its pSync; larger ones take two rounds "
                           "(a barrier so that every source is ready, one so that no source is still "
                           "being read), each a hand-over per CPU.")
            elif r.bench.startswith(("barrier_activeset", "team_sync", "barrier")) and r.bench != "barrier_all":
                why.append("Group barriers run on a sync array (dissemination up to 4 PEs: two rounds, each "
                           "a hand-over when the partner shares the CPU). What would fix it: the one-counter "
                           "barrier of `barrier_all` on the sync array, whose last arriver releases everyone.")
            elif r.bench == "barrier_all":
                why.append("`barrier_all` is one counter, and a waiter spins only while no missing PE "
                           "shares its CPU; what is left is the hand-over floor plus the time for both CPUs "
                           "to meet. Going lower means fewer processes per CPU (threads instead of "
                           "processes would cheapen the switch, which OpenSHMEM's process model rules out).")
        if "pingpong" in r.bench or r.unit == "MB/s":
            fname = "cacheline_pingpong" if "pingpong" in r.bench else "memcpy_bw"
            f = next((f for f in floors if f.bench == fname and (fname != "memcpy_bw" or f.size == r.size)), None)
            if f is not None and f.floor_runs and min(f.floor_runs) > 0 and max(f.floor_runs) / min(f.floor_runs) > 1.15:
                why.append(f"The machine itself varies: its own floor for this row (`{fname}`, no library) "
                           f"measured {', '.join(fmt(v) for v in f.floor_runs)} {f.unit} in the reps of this "
                           f"run, and the rows follow it (rshmem {', '.join(fmt(v) for v in r.r_runs)}, Open MPI "
                           f"{', '.join(fmt(v) for v in r.o_runs)}).")
        if r.unit == "MB/s" or (r.size or 0) >= 128 << 10:
            why.append("A copy of this size runs at the memcpy floor for both implementations (see the "
                       "bandwidth table); what separates them is the run-to-run spread of a virtual "
                       "machine's memory bandwidth.")
        if overlap(r):
            why.append("The two implementations' runs overlap: the difference is within the noise of "
                       "this machine.")
        if not why:
            why.append("No explanation recorded yet.")
        out.append(f"- **{where}**: " + " ".join(why))
    out.append("")
    return out


# ---------------------------------------------------------------- collectives against MPI

def coll_targets(rows):
    """Issue 22's targets as Markdown lines: every team collective against MPI's collective
    (benches/c/mpi_coll.c) and against its active-set twin, with met / NOT met per row."""
    vs_mpi, vs_active = collmpi.evaluate(rows)
    if not vs_mpi and not vs_active:
        return []

    def counts(tab):
        n = [sum(1 for t in tab if t[-1] == s) for s in ("met", "NOT met", "not measured")]
        return f"{n[0]} met, {n[1]} not met, {n[2]} not measured"

    def shown(v, raw, unit):  # the median with its unit, or the CSV's n/a or -
        return f"{fmt(v)} {unit}" if v is not None else (raw or "-")

    def status(s, ratio, lim):
        if s != "NOT met":
            return s
        # Missed by less than the run-to-run spread that "better" calls a tie: say so.
        return "**NOT met**" + (f" (within {TIE:.0%})" if ratio <= lim * (1 + TIE) else "")

    out = ["### Targets: team collectives against MPI and their active-set twins", "",
           f"Issue 22: every team collective at 2 PEs within {collmpi.MPI_LIMIT_2:g}x MPI's time for "
           f"the same operation (`benches/c/mpi_coll.c`: `MPI_Barrier`, `MPI_Bcast`, `MPI_Allgather`, "
           f"`MPI_Alltoall`, `MPI_Allreduce` of doubles), at 4 and 8 PEs at most {collmpi.MPI_LIMIT_N:g}x; "
           "and no slower than its active-set twin (OpenSHMEM 1.4's routine for the same operation, "
           "measured in the same program). Ratios of medians of the same run; a row missed by less "
           f"than {TIE:.0%} says so (the runs' own spread, `±`, is of that order).", "",
           f"Against MPI: {counts(vs_mpi)}.", ""]
    out += [md_table(["team collective", "size", "PEs", "rshmem", "MPI", "rshmem/MPI", "goal", "status"],
                     [[t.bench, fmt_size(t.size), t.npes, shown(t.r, t.r_raw, t.unit), shown(t.m, t.m_raw, t.unit),
                       fmt_ratio(ratio), f"≤ {lim:g}", status(st, ratio, lim)] for t, _m, ratio, lim, st in vs_mpi],
                     ["l", "r", "r", "r", "r", "r", "l", "l"]), "",
            f"Against the active-set twin: {counts(vs_active)}.", "",
            md_table(["team collective", "size", "PEs", "rshmem", "active-set twin", "twin", "team/twin",
                      "goal", "status"],
                     [[t.bench, fmt_size(t.size), t.npes, shown(t.r, t.r_raw, t.unit),
                       a.bench if a else collmpi.ACTIVE_TWIN[t.bench], shown(a.r, a.r_raw, a.unit) if a else "-",
                       fmt_ratio(ratio), f"≤ {lim:g}", status(st, ratio, lim)] for t, a, ratio, lim, st in vs_active],
                     ["l", "r", "r", "r", "l", "r", "r", "l", "l"]), ""]
    return out


def carry_over(new_csv, old_csv, out_csv):
    """Writes new_csv to out_csv, plus the rows of old_csv whose program (compare.py's
    EXPECTED; `floor` for the floor rows) has no row in new_csv: a run of some programs
    (`--only coll`) replaces their rows and keeps the others. Returns those programs, in the
    old CSV's order (empty when there is no old CSV or nothing to carry)."""
    prog_of = program_of_bench()

    def prog(bench):
        return "floor" if bench.startswith("floor:") else prog_of.get(bench, bench)

    with open(new_csv, newline="") as f:
        rd = csv.DictReader(f)
        header, new = list(rd.fieldnames or []), list(rd)
    try:
        with open(old_csv, newline="") as f:
            rd = csv.DictReader(f)
            old_header, old = list(rd.fieldnames or []), list(rd)
    except OSError:
        old_header, old = [], []
    have = {prog(d.get("benchmark") or "") for d in new}
    kept = [d for d in old if prog(d.get("benchmark") or "") not in have]
    carried = list(dict.fromkeys(prog(d["benchmark"]) for d in kept))
    header += [h for h in old_header if h not in header]
    order = getattr(compare_module(), "ORDER", [])

    def rank(d):  # compare.py's order: benchmark, size, PEs; the floor rows last
        b = d.get("benchmark") or ""
        floor, b = b.startswith("floor:"), b.removeprefix("floor:")
        return (floor, order.index(b) if b in order else len(order),
                num(d.get("size_bytes")) or 0, num(d.get("npes")) or 0)
    with open(out_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, restval="", extrasaction="ignore")
        w.writeheader()
        w.writerows(sorted(new + kept, key=rank) if kept else new)
    return carried


# ---------------------------------------------------------------- report

def report(args):
    rows, floors, rcol, ocol, header = read_csv(args.csv)
    prog_of = program_of_bench()
    now = datetime.datetime.now().astimezone()
    csv_time = datetime.datetime.fromtimestamp(os.path.getmtime(args.csv)).astimezone()
    md = ["# rshmem performance against Open MPI", ""]

    # ---- header
    cores = physical_cores()
    mem = mem_total()
    nruns = sorted({len(r.r_runs) for r in rows if r.r_runs} | {len(r.o_runs) for r in rows if r.o_runs})
    md += [f"- Report generated: {now:%Y-%m-%d %H:%M %Z}; CSV `{args.csv_name or args.csv}` written "
           f"{csv_time:%Y-%m-%d %H:%M %Z}.",
           f"- Machine (where this report was generated; the CSV does not record it): {cpu_model()}, "
           f"{os.cpu_count()} logical CPUs" + (f" ({cores} cores)" if cores else "")
           + (f", {mem / 2**30:.1f} GiB RAM" if mem else "")
           + f", Linux {platform.release()} ({platform.machine()}).",
           "- Command: " + (f"`{args.command}`" if args.command else "not recorded (pass `--command`)") + "."]
    if getattr(args, "carried", None):
        md.append(f"- Rows of programs this run left out ({', '.join(f'`{p}`' for p in args.carried)}) "
                  "are carried over from the CSV this one replaced: their figures are from an earlier run, "
                  "whose date and machine the CSV does not record.")
    if nruns:
        md.append(f"- Runs per row: {', '.join(str(n) for n in nruns)} (`--reps`; start-up rows: `--reps` × "
                  "`--startup-runs`); every figure is the median of the runs, `±` half the min-max range across runs relative to the median.")
    cols = [c for c in (rcol, ocol, collmpi.MPI_KEY if collmpi.MPI_KEY in header else None) if c]
    md.append(f"- Columns compared: {', '.join(f'`{c}`' for c in cols) or 'none found'}"
              + (" (first pSync strategy of a `--psync-strategies` CSV)" if rcol and rcol != "rshmem" else "")
              + f"; {len(rows)} benchmark rows, {len(floors)} floor rows.")
    md += ["", "Lower is better for times (µs, s) and memory (MB); higher is better for rates (MB/s = 10^6 B/s, "
           "Mop/s = 10^6 operations/s). ratio = rshmem median / Open MPI median; better: the winner, `~` "
           f"within {TIE:.0%}, in parentheses when the two implementations' runs overlap (a tendency, not a "
           "result); n/a: the implementation lacks the routine (Open MPI 4.1 is OpenSHMEM 1.4: no "
           "signals or team-based collectives; rshmem's `shmemx_` extensions are rshmem only). "
           "See [benches/README.md](../benches/README.md) for what each benchmark measures.", ""]
    md += ["Open MPI (4.1.4 with UCX) may print a UCX segmentation fault in `shmem_finalize` after its "
           "results are complete; `compare.py` keeps a run whose `RESULT` lines are complete (printed and "
           "flushed before finalize) and only notes the exit status, so those figures are used.", ""]

    # ---- targets
    md += ["## Targets", ""]
    trows, others, uncomparable = evaluate_targets(rows, floors)

    def count(tab):
        met = sum(1 for t in tab if t[-1] == "met")
        notmet = sum(1 for t in tab if "NOT met" in t[-1])
        return met, notmet, len(tab) - met - notmet

    met, notmet, rest = count(trows)
    md += [f"Named targets: {met} met, {notmet} not met, {rest} not measured.", "",
           md_table(["target", "row", "rshmem", "reference", "ratio", "goal", "status"], trows,
                    ["l", "l", "r", "r", "r", "l", "l"]), ""]
    met, notmet, _ = count(others)
    md += ["### Every other row against Open MPI", "",
           f"Goal: rshmem no worse than Open MPI (ratio ≤ 1 where lower is better, ≥ 1 where higher is "
           f"better): {met} met, {notmet} not met.", ""]
    if others:
        md += [md_table(["row", "rshmem", "Open MPI", "ratio", "goal", "status"], others,
                        ["l", "r", "r", "r", "l", "l"]), ""]
    if uncomparable:
        md += [f"Not comparable ({len(uncomparable)} rows without both figures): "
               + "; ".join(uncomparable) + ".", ""]

    # ---- explanations of what is not ahead
    md += explain_behind(rows, floors, trows, others)

    # ---- families
    fam = {}
    for r in rows:
        fam.setdefault(family(r.bench, r.unit, prog_of), []).append(r)
    memcpy = {f.size: f.floor for f in floors if f.bench == "memcpy_bw" and f.floor is not None}
    order = [f for f in FAMILY_ORDER if f in fam] + sorted(f for f in fam if f not in FAMILY_ORDER)
    for name in order:
        frows = fam[name]
        md += [f"## {name[0].upper() + name[1:]}", ""]
        show_floor = any(r.floor is not None for r in frows)
        is_bw = any(r.unit == "MB/s" for r in frows) and memcpy
        headers = ["benchmark", "size", "PEs", "unit", "rshmem", "Open MPI", "rshmem/OMPI", "better"]
        aligns = ["l", "r", "r", "l", "r", "r", "r", "l"]
        show_mpi = any(r.m_raw for r in frows)  # the collectives: mpi_coll.c's figures
        if show_mpi:
            headers += ["MPI", "rshmem/MPI"]
            aligns += ["r", "r"]
        if show_floor:
            headers.append("floor")
            aligns.append("r")
        if is_bw:
            headers += ["rshmem % of memcpy", "Open MPI % of memcpy"]
            aligns += ["r", "r"]
        trs = []
        for r in frows:  # compare.py's order (by benchmark, size, PEs)
            tr = [r.bench, fmt_size(r.size), r.npes, r.unit or "-", cell(r.r, r.r_raw, r.r_runs),
                  cell(r.o, r.o_raw, r.o_runs), fmt_ratio(r.ratio), better(r)]
            if show_mpi:
                tr += [cell(r.m, r.m_raw, r.m_runs), fmt_ratio(r.r / r.m if r.r is not None and r.m else None)]
            if show_floor:
                tr.append(fmt(r.floor))
            if is_bw:
                m = memcpy.get(r.size) if r.unit == "MB/s" else None
                tr += [f"{100 * r.r / m:.0f}%" if m and r.r is not None else "-",
                       f"{100 * r.o / m:.0f}%" if m and r.o is not None else "-"]
            trs.append(tr)
        md += [md_table(headers, trs, aligns), ""]
        if show_mpi:
            md += ["MPI: Open MPI's own collective for the same operation on `MPI_COMM_WORLD` "
                   "(`benches/c/mpi_coll.c`, built with `mpicc`, run with `mpirun` with Open MPI's settings, "
                   "interleaved with the other columns, the same method as `coll.c`), in the row of the team "
                   "collective it stands for; n/a: the run had no `mpicc`/`mpirun`.", ""]
        if name == "collectives":
            md += coll_targets(frows) + collmpi.explain(frows, floors, os.cpu_count() or 1)
        if show_floor:
            md += ["floor: the machine's own limit for that row, measured in the same run "
                   "(`cacheline_pingpong` for the one-way latencies, `memcpy_bw` of the same size for "
                   "the bandwidths).", ""]

    # ---- floor
    if floors:
        md += ["## Machine floor", "",
               "What the machine does without any library (`benches/c/floor.c`, run once per rep).", ""]
        md.append(md_table(["measurement", "size", "processes", "unit", "value", "what"],
                           [[f.bench, fmt_size(f.size), f.npes, f.unit or "-", cell(f.floor, "", f.floor_runs),
                             FLOOR_NOTE.get(f.bench, "")] for f in floors],
                           ["l", "r", "r", "l", "r", "l"]))
        md.append("")
    if not rows and not floors:
        md += ["The CSV holds no rows.", ""]

    # ---- instruction counts
    if args.icount:
        try:
            text = Path(args.icount).read_text()
        except OSError as e:
            text = f"(could not read {args.icount}: {e})"
        text = text.strip()
        # Demote the file's own headings below this section's.
        text = re.sub(r"^(#{1,5}) ", lambda m: "#" + m.group(1) + " ", text, flags=re.M)
        if text.startswith("## "):  # a leading title duplicates ours
            text = text.split("\n", 1)[1].lstrip("\n") if "\n" in text else ""
        md += ["## Instruction counts", "", text, ""]
    return "\n".join(md).rstrip() + "\n"


def repo_relative(path):
    """The path as the report prints it: relative to the repository (committed
    reports carry no absolute paths of the machine that wrote them)."""
    root = Path(__file__).resolve().parent.parent
    rel = os.path.relpath(os.path.abspath(path), root)
    return os.path.basename(path) if rel.startswith("..") else rel


# Sections that come from runs of their own, not from this report's CSV: "Across nodes"
# (`cargo xtask bench --multinode`, often as root for the namespaces), "NAS FT"
# (`cargo xtask bench --ft`), "Halo exchange" (`cargo xtask bench --halo`) and "Memory at
# scale" (`benches/mem_scale.py`, hundreds of PEs), "Non-blocking collectives" (issue 36's
# runs), each with the section it goes before. Regenerating the one-node report must not drop them.
KEPT_SECTIONS = (("## Across nodes", "## Machine floor"), ("## NAS FT", "## Machine floor"), ("## Halo exchange", "## Machine floor"),
                 ("## Memory at scale", "## Across nodes"), ("## Non-blocking collectives (2026-12-02)", "## Machine floor"))


def keep_section(text, out, heading, before="## Machine floor"):
    """The section `heading` of the report being replaced, if it has one, carried into
    `text` before the section `before` (or the machine floor, or at the end), unless `text`
    has that section itself."""
    try:
        old = Path(out).read_text()
    except OSError:
        return text
    start = old.find(heading + "\n")
    if start < 0 or heading + "\n" in text:
        return text
    end = old.find("\n## ", start + len(heading))
    section = old[start:] if end < 0 else old[start:end + 1]
    floor = text.find(before + "\n")
    if floor < 0:
        floor = text.find("## Machine floor\n")
    if floor < 0:
        return text.rstrip("\n") + "\n\n" + section
    return text[:floor] + section.rstrip("\n") + "\n\n" + text[floor:]


def keep_sections(text, out):
    """Every KEPT_SECTIONS section of the old report, in that order, before the floor."""
    for heading, before in KEPT_SECTIONS:
        text = keep_section(text, out, heading, before)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="CSV written by benches/compare.py --csv")
    ap.add_argument("--out", help="Markdown file to write (default: standard output)")
    ap.add_argument("--csv-out", help="also copy the CSV here (e.g. docs/performance.csv)")
    ap.add_argument("--icount", help="file whose content becomes the 'Instruction counts' section "
                                     "(benches/icount.py --out FILE)")
    ap.add_argument("--command", help="the compare.py command line that produced the CSV, to print")
    args = ap.parse_args()
    args.csv_name, args.carried = None, []
    if args.csv_out:
        Path(args.csv_out).parent.mkdir(parents=True, exist_ok=True)
        if os.path.abspath(args.csv_out) != os.path.abspath(args.csv):
            args.carried = carry_over(args.csv, args.csv_out, args.csv_out)
            args.csv = args.csv_out  # the report of the merged rows
        args.csv_name = repo_relative(args.csv_out)
    text = report(args)
    if args.out:
        text = keep_sections(text, args.out)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)
        print(f"report written to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
