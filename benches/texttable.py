"""The text table of benches/compare.py and the formatting of its cells (numbers, sizes,
the median of a row's runs with their spread), shared with the scripts that import compare.py
(ft.py, halo.py, multinode.py use them as compare.fmt, compare.cell, ...).

Python 3 standard library only.
"""

import statistics


def fmt(v):
    if v is None:
        return "-"
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:#.3g}" if v >= 0.01 else f"{v:.2e}"


def fmt_size(n):
    if n == 0:
        return "-"
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def spread(values):
    """Half the min-max range relative to the median, in percent (0 for one value)."""
    if len(values) < 2:
        return 0.0
    m = statistics.median(values)
    return 0.0 if m == 0 else 50.0 * (max(values) - min(values)) / m


def cell(values):
    if not values:
        return "-"
    if len(values) == 1:
        return fmt(values[0])
    sp = spread(values)
    return f"{fmt(statistics.median(values))} " + (f"±{sp:.0f}%" if sp < 1000 else ">±999%")


def runs(values):
    return ";".join(f"{v:g}" for v in values)


def lower_is_better(unit):
    return unit in ("us", "ms", "s", "ns", "MB")


def table(rows, headers, aligns):
    """Text table; a header with a newline takes several lines (aligned at the bottom)."""
    head = [h.split("\n") for h in headers]
    depth = max(len(h) for h in head)
    head = [[""] * (depth - len(h)) + h for h in head]
    widths = [max(*(len(x) for x in h), *(len(r[i]) for r in rows), 0) for i, h in enumerate(head)]

    def line(vals):
        return "  ".join(v.rjust(w) if a == "r" else v.ljust(w) for v, w, a in zip(vals, widths, aligns)).rstrip()

    out = [line([h[k] for h in head]) for k in range(depth)] + ["  ".join("-" * w for w in widths)]
    out += [line(r) for r in rows]
    return "\n".join(out)
