"""What ft.py and halo.py share: one example program, built with rshmem's oshcc, run in
each setup (one node, two virtual nodes, two network namespaces) --reps times, its
`RESULT k=v ...` lines parsed and the medians written as Markdown.

Kept here, once, so that the two scripts check their arguments, describe the run and treat
a failed run alike; what differs (the programs, their launch, the tables) stays in each.
Python 3 standard library only.
"""

import datetime
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402  (benches/compare.py: run environment, loaded library, CPU model)
import multinode  # noqa: E402  (benches/multinode.py: Netns)

REPO = compare.REPO


def log(msg=""):
    """print, flushed: the progress lines appear as the runs end, also through a pipe."""
    print(msg, flush=True)


def parse_kv(line):
    """`RESULT k=v k=v ...` (or `NA ...`) -> dict, numbers converted: the examples'
    machine lines all have this form; the first word is skipped."""
    d = {}
    for kv in line.split()[1:]:
        k, sep, v = kv.partition("=")
        if not sep:
            continue
        for conv in (int, float):
            try:
                d[k] = conv(v)
                break
            except ValueError:
                pass
        else:
            d[k] = v
    return d


def median_of(runs, key):
    """The median of runs' numeric values of key (None when none has one): a run that
    failed to report a field does not turn the table's cell into an error."""
    vals = [r[key] for r in runs if isinstance(r.get(key), (int, float))]
    return statistics.median(vals) if vals else None


def md_table(headers, rows, right):
    """A Markdown table as lines; the columns whose index is in right are right-aligned."""
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def add_across_args(ap):
    """The options that choose the setups across (virtual) nodes, the same in every script."""
    ap.add_argument("--netns", action="store_true", help="also across the namespaces of tests/netns/ (root)")
    ap.add_argument("--virtual", action="store_true", help="also across two virtual nodes on this host")
    ap.add_argument("--only-across", action="store_true", help="skip the one-node runs")
    ap.add_argument("--across-np", type=int, nargs="+", default=[2, 4], help="PE counts across nodes (even)")


def add_output_args(ap, timeout, self_test_help):
    """The last options of every script: the run's timeout, the Markdown file, the
    self-test and -v."""
    ap.add_argument("--timeout", type=float, default=timeout, help="seconds before a run is killed")
    ap.add_argument("--md", help="write the Markdown section here")
    ap.add_argument("--self-test", action="store_true", help=self_test_help)
    ap.add_argument("-v", action="store_true", help="print every command and its output")


def setups_of(ap, a, script):
    """The setups to run, in order (one node, virtual, netns), after checking the counts:
    an argument error (ap.error) or exit before anything is built."""
    if a.reps < 1 or any(n < 1 for n in a.np) or any(n < 2 or n % 2 for n in a.across_np):
        ap.error("--reps and --np must be >= 1, --across-np even")
    setups = ([] if a.only_across else ["one node"]) + (["virtual"] if a.virtual else []) \
        + (["netns"] if a.netns else [])
    if not setups:
        ap.error("nothing to run (--only-across without --virtual or --netns)")
    if a.netns and os.geteuid() != 0:
        sys.exit(f"{script}: --netns needs root (ip netns, unshare)")
    return setups


def load_average():
    """os.getloadavg() as the report prints it ("0.5 0.7 0.8")."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def start():
    """The start of a run: (what the report says of it: monotonic time, UTC date and load
    average; the runs' environment). The environment is compare.run_environment()'s (cargo's
    target/ entries of LD_LIBRARY_PATH left out, and said so, lest the PEs load the debug
    library) with Open MPI's mpirun allowed to run as root."""
    t0 = {"t_start": time.monotonic(),
          "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
          "load0": load_average()}
    env0, removed = compare.run_environment()
    if removed:
        log(f"LD_LIBRARY_PATH: left out {os.pathsep.join(removed)} (cargo's)")
    env0.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    return t0, env0


def meta(t0, command, **more):
    """The facts of the report's first paragraph (see started_line), at the end of the run;
    more adds a script's own."""
    return {"command": command, "cpu": compare.cpu_model(), "cpus": os.cpu_count(), "date": t0["date"],
            "load0": t0["load0"], "load1": load_average(), "wall": time.monotonic() - t0["t_start"], **more}


def started_line(m, reps):
    """The report's first sentences from meta m: the command, when and where it ran, the
    load before and after, the reps and the wall time (how much to trust the numbers)."""
    return (f"`{m['command']}`: started {m['date']}, {m['cpu']} ({m['cpus']} CPUs), load average "
            f"{m['load0']} before, {m['load1']} after; {reps} run{'s' if reps > 1 else ''} per row "
            f"(median, ± half the range); wall time {m['wall'] / 60:.1f} min.")


def shown_command(script, quote=False):
    """`python3 <script>` and this process's arguments, paths inside the repository made
    relative to it and other absolute paths cut to their file name (the Markdown goes into
    docs/, which names no paths of the machine that wrote it); quote: shell-quoted."""
    def rel(arg):
        p = Path(arg)
        if not p.is_absolute():
            return arg
        if p.resolve().is_relative_to(REPO.resolve()):
            return str(p.resolve().relative_to(REPO.resolve()))
        return f".../{p.name}"  # e.g. the NPB binary: its name, not this machine's layout
    args = [rel(x) for x in sys.argv[1:]]
    return " ".join([f"python3 {script}", *(map(shlex.quote, args) if quote else args)])


def build(oshcc, sources, out, args):
    """oshcc -O3 sources -o out args (libraries, flags); an error string or None."""
    cmd = [str(oshcc), "-O3", *map(str, sources), "-o", str(out), *args]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{' '.join(cmd)}: {e}"
    if p.returncode != 0:
        return f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}{p.stderr}"
    return None


def log_library(exe, env, who):
    """Says which librshmem.so exe loads under env (`<who> load ...`), with a warning when it
    is a debug build: its numbers would say nothing about the release library."""
    lib = compare.loaded_library(exe, env, "librshmem")
    log(f"{who} load {lib}" + ("  (WARNING: a debug build)" if lib and "/debug/" in lib else ""))


def each_setup(setups, env0, netns_dir, failures, script):
    """Yields (setup, environment, Netns or None) for every setup. For netns the two
    namespaces are set up first (when that fails: a failure, and the setup is skipped) and
    torn down when the loop moves on, or leaves (an error, ^C: the generator is closed)."""
    for setup in setups:
        env, netns = dict(env0), None
        if setup == "netns":
            try:
                netns = multinode.Netns(netns_dir)
            except RuntimeError as e:
                failures.append(str(e))
                log(f"{script}: {e}; no netns runs")
                continue
            env.update(netns.env())
        try:
            yield setup, env, netns
        finally:
            if netns:
                netns.close()


def no_result(failures, tag, rep, reps, rc, err, secs):
    """A run without its RESULT line: a failure with the last lines of its stderr, and the
    progress line; returns the table's word for it ("timed out" or "failed")."""
    why = "timed out" if rc is None else f"exit {rc}, no result"
    tail = "\n".join(err.strip().splitlines()[-6:])
    failures.append(f"{tag} rep {rep + 1}: {why}:\n{tail}")
    log(f"rep {rep + 1}/{reps} {tag}: {why} ({secs:.0f} s)")
    return "failed" if rc is not None else "timed out"


def finish(md, failures, md_path, wall):
    """The end of every script: the Markdown and the failures on stdout, the Markdown into
    md_path when given; the exit status (1 when anything failed)."""
    log("\n" + md)
    for f in failures:
        log(f"FAILED: {f}")
    if md_path:
        Path(md_path).parent.mkdir(parents=True, exist_ok=True)
        Path(md_path).write_text(md)
        log(f"wrote {md_path}")
    log(f"wall time {wall:.0f} s")
    return 1 if failures else 0


def checks():
    """A self-test's (problems, check): check(what, got, want) notes a problem when got !=
    want, so that a self-test reports every mismatch at once, not just the first."""
    bad = []

    def check(what, got, want):
        if got != want:
            bad.append(f"{what}: got {got!r}, want {want!r}")
    return bad, check


def verdict(script, bad):
    """A self-test's end: its problems on stderr, `<script> self-test: ok` (or FAILED) on
    stdout (tests/ look for that line); the exit status."""
    for b in bad:
        print(f"{script} self-test: {b}", file=sys.stderr)
    print(f"{script} self-test: {'FAILED' if bad else 'ok'} ({len(bad)} problems)")
    return 1 if bad else 0
