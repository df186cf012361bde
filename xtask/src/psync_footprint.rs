//! `cargo xtask psync-footprint`: the synchronisation-memory footprint of
//! every pSync strategy, from the library's virtual-job simulator
//! (`rshmem::sim`), over sequences of team operations and PE counts.
//!
//! Every number comes from the simulated jobs' per-PE ledgers; this module
//! only takes maxima and means over the PEs, prints tables, and writes a CSV
//! file and SVG plots. The simulation runs in a release build: the
//! `psync-footprint` subcommand re-invokes xtask through
//! `cargo run --release` with the hidden subcommand `psync-footprint-run`,
//! which does the work.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use rshmem::psync::{self, Ledger, Strategy};
use rshmem::sim;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

pub const USAGE: &str = "psync-footprint [--seq NAME]... [--pes LIST] [--out DIR] [--pool N] [--pool-max N] [--scratch BYTES] [--hypothetical-concurrent]";

/// What to simulate and where to write the results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Sequence names (`sim::SEQUENCES` by default).
    pub seqs: Vec<String>,
    /// PE counts, ascending and distinct (2, 4, ..., 4096 by default).
    pub pes: Vec<usize>,
    pub out: PathBuf,
    /// Overrides of `sim::Config::new`'s defaults.
    pub pool: Option<usize>,
    pub pool_max: Option<usize>,
    pub scratch: Option<usize>,
    /// The simulator's HYPOTHETICAL design in which outstanding
    /// non-blocking collectives run at once (`sim::nb`), not rshmem's queues.
    pub concurrent: bool,
}

impl Options {
    /// Parses the subcommand's arguments; `default_out` is used without `--out`.
    pub fn parse(args: &[String], default_out: &Path) -> Result<Options, String> {
        let mut o = Options {
            seqs: vec![],
            pes: (1..=12).map(|k| 1 << k).collect(),
            out: default_out.to_path_buf(),
            pool: None,
            pool_max: None,
            scratch: None,
            concurrent: false,
        };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let mut value = || {
                it.next()
                    .ok_or_else(|| format!("{flag} needs a value\nusage: cargo xtask {USAGE}"))
            };
            let number = |v: &str| v.parse::<usize>().map_err(|_| format!("{flag}: `{v}` is not a number"));
            match flag.as_str() {
                "--seq" => {
                    let v = value()?;
                    if sim::sequence(v, 1).is_none() {
                        return Err(format!(
                            "unknown sequence `{v}` (known: {}; nb-world-K, nb-split-K and their blocking- twins for any K)",
                            sim::SEQUENCES.join(", ")
                        ));
                    }
                    if !o.seqs.contains(v) {
                        o.seqs.push(v.clone());
                    }
                }
                "--pes" => {
                    let v = value()?;
                    let mut pes = v.split(',').map(|s| number(s.trim())).collect::<Result<Vec<_>, _>>()?;
                    if pes.contains(&0) {
                        return Err("--pes: a job has at least one PE".into());
                    }
                    pes.sort_unstable();
                    pes.dedup();
                    o.pes = pes;
                }
                "--out" => o.out = PathBuf::from(value()?),
                "--pool" => o.pool = Some(number(value()?)?),
                "--pool-max" => o.pool_max = Some(number(value()?)?),
                "--scratch" => o.scratch = Some(number(value()?)?),
                "--hypothetical-concurrent" => o.concurrent = true,
                _ => return Err(format!("unknown argument `{flag}`\nusage: cargo xtask {USAGE}")),
            }
        }
        if o.seqs.is_empty() {
            o.seqs = sim::SEQUENCES.iter().map(|s| s.to_string()).collect();
        }
        Ok(o)
    }

    /// Arguments that [`Options::parse`] turns back into `self`.
    pub fn to_args(&self) -> Vec<String> {
        let mut a = vec![];
        for s in &self.seqs {
            a.extend(["--seq".to_string(), s.clone()]);
        }
        let pes: Vec<String> = self.pes.iter().map(|n| n.to_string()).collect();
        a.extend(["--pes".to_string(), pes.join(",")]);
        a.extend(["--out".to_string(), self.out.display().to_string()]);
        if self.concurrent {
            a.push("--hypothetical-concurrent".to_string());
        }
        for (flag, v) in [
            ("--pool", self.pool),
            ("--pool-max", self.pool_max),
            ("--scratch", self.scratch),
        ] {
            if let Some(v) = v {
                a.extend([flag.to_string(), v.to_string()]);
            }
        }
        a
    }

    /// The simulator's configuration for one job.
    pub fn config(&self, strategy: Strategy, npes: usize) -> sim::Config {
        let mut c = sim::Config::new(strategy, npes);
        if let Some(v) = self.scratch {
            c.scratch = v;
        }
        if let Some(v) = self.pool {
            c.pool = v;
        }
        if let Some(v) = self.pool_max {
            c.pool_max = v;
        }
        c.concurrent = self.concurrent;
        c
    }
}

/// One job summarised over its PEs (bytes are per PE).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub seq: String,
    pub strategy: &'static str,
    pub pes: usize,
    pub flags_current_max: usize,
    pub flags_peak_max: usize,
    /// The lowest PE whose flags peak is the maximum.
    pub flags_peak_max_pe: usize,
    pub flags_current_mean: f64,
    pub flags_peak_mean: f64,
    pub scratch_peak_max: usize,
    pub baseline_peak_max: usize,
    pub baseline_never_freed_max: usize,
    /// Max over PEs of the PE's extra messages per collective.
    pub extra_per_collective_max: f64,
}

impl Row {
    fn from_ledgers(seq: &str, strategy: &'static str, pes: usize, ledgers: &[Ledger]) -> Row {
        let max = |f: fn(&Ledger) -> usize| ledgers.iter().map(f).max().unwrap_or(0);
        let mean = |f: fn(&Ledger) -> usize| ledgers.iter().map(|l| f(l) as f64).sum::<f64>() / ledgers.len() as f64;
        let flags_peak_max = max(|l| l.flags_peak);
        Row {
            seq: seq.to_string(),
            strategy,
            pes,
            flags_current_max: max(|l| l.flags),
            flags_peak_max,
            flags_peak_max_pe: ledgers.iter().position(|l| l.flags_peak == flags_peak_max).unwrap_or(0),
            flags_current_mean: mean(|l| l.flags),
            flags_peak_mean: mean(|l| l.flags_peak),
            scratch_peak_max: max(|l| l.scratch_peak),
            baseline_peak_max: max(|l| l.baseline_peak),
            baseline_never_freed_max: max(|l| l.baseline_never_freed),
            extra_per_collective_max: ledgers
                .iter()
                .map(|l| {
                    if l.collectives == 0 {
                        0.0
                    } else {
                        l.extra_messages as f64 / l.collectives as f64
                    }
                })
                .fold(0.0, f64::max),
        }
    }
}

/// Runs every (sequence, PE count) of `o` under every strategy, on as many
/// threads as the machine has; `progress` receives a line as each starts.
/// Rows come out ordered by sequence (as in `o.seqs`), PEs, then strategy
/// (as in `psync::STRATEGIES`).
pub fn compute(o: &Options, progress: &(dyn Fn(String) + Sync)) -> Result<Vec<Row>, String> {
    let strategies: Vec<(&'static str, Strategy)> = psync::STRATEGIES
        .iter()
        .map(|s| (*s, Strategy::from_name(s).expect("every listed strategy has a name")))
        .collect();
    for s in &o.seqs {
        if sim::sequence(s, 1).is_none() {
            return Err(format!("the simulator does not know sequence `{s}`"));
        }
    }
    // A unit of work per job, so that the few large jobs spread over the
    // threads; the progress line of a (sequence, PEs) comes with its first job.
    let groups: Vec<(&str, usize)> = o
        .seqs
        .iter()
        .flat_map(|s| o.pes.iter().map(move |&n| (s.as_str(), n)))
        .collect();
    let units: Vec<(usize, usize)> = (0..groups.len())
        .flat_map(|g| (0..strategies.len()).map(move |si| (g, si)))
        .collect();
    let results: Mutex<Vec<Option<Row>>> = Mutex::new(vec![None; units.len()]);
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(units.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(g, si)) = units.get(i) else { break };
                    let (seq, n) = groups[g];
                    if si == 0 {
                        progress(format!("[{:>3}/{}] {seq}, {n} PEs", g + 1, groups.len()));
                    }
                    let steps = sim::sequence(seq, n).expect("checked above");
                    let (name, st) = strategies[si];
                    let job = sim::Job::run(o.config(st, n), &steps);
                    let row = Row::from_ledgers(seq, name, n, &job.ledgers);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(row);
                }
            });
        }
    });
    Ok(results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect())
}

fn rows_of<'a>(rows: &'a [Row], seq: &'a str, pes: usize) -> impl Iterator<Item = &'a Row> {
    rows.iter().filter(move |r| r.seq == seq && r.pes == pes)
}

/// Plain-text columns under two header lines: a group name over the
/// sub-columns of its group.
struct Table {
    groups: Vec<(String, Vec<String>)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn render(&self) -> String {
        let mut widths: Vec<usize> = self
            .groups
            .iter()
            .flat_map(|(_, subs)| subs.iter().map(|s| s.len()))
            .collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.len());
            }
        }
        // Widen each group's last column if the group's name is longer.
        let mut group_widths = vec![];
        let mut col = 0;
        for (name, subs) in &self.groups {
            let span = &mut widths[col..col + subs.len()];
            let w = span.iter().sum::<usize>() + 2 * (subs.len() - 1);
            if name.len() > w {
                *span.last_mut().expect("a group has columns") += name.len() - w;
            }
            group_widths.push(w.max(name.len()));
            col += subs.len();
        }
        let line = |cells: &mut dyn Iterator<Item = String>| -> String {
            let mut s = String::new();
            let mut col = 0;
            for (gi, (_, subs)) in self.groups.iter().enumerate() {
                if gi > 0 {
                    s.push_str(" | ");
                }
                for k in 0..subs.len() {
                    if k > 0 {
                        s.push_str("  ");
                    }
                    let _ = write!(s, "{:>w$}", cells.next().unwrap_or_default(), w = widths[col]);
                    col += 1;
                }
            }
            s.trim_end().to_string() + "\n"
        };
        let mut out = String::new();
        for (gi, ((name, _), w)) in self.groups.iter().zip(&group_widths).enumerate() {
            if gi > 0 {
                out.push_str(" | ");
            }
            let _ = write!(out, "{name:^w$}");
        }
        out = out.trim_end().to_string() + "\n";
        if self.groups.iter().any(|(_, subs)| subs.iter().any(|s| !s.is_empty())) {
            out += &line(&mut self.groups.iter().flat_map(|(_, subs)| subs.iter().cloned()));
        }
        let total = out.lines().map(str::len).max().unwrap_or(0);
        out += &"-".repeat(total);
        out.push('\n');
        for row in &self.rows {
            out += &line(&mut row.iter().cloned());
        }
        out
    }
}

/// QTC's teams are prefixes of the world: PE 0 is in all of them.
fn pe0_in_every_team(seq: &str) -> bool {
    seq.starts_with("qtc")
}

/// The two tables of one sequence.
pub fn tables(o: &Options, rows: &[Row], seq: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "== {seq}: synchronisation memory in bytes per PE, max over PEs{}\n   flags: held at the end of the sequence (now) and at the high-water mark (peak), per strategy;\n   traditional baseline: one array per live team (peak, freed at destroy) and one per team ever created (never freed);\n   scratch: peak (the same under every strategy)",
        if pe0_in_every_team(seq) {
            " (PE 0 is in every team of this sequence)"
        } else {
            ""
        }
    );
    let cfg = o.config(Strategy::Traditional, 1);
    if o.concurrent {
        let _ = writeln!(
            out,
            "   HYPOTHETICAL design (--hypothetical-concurrent), not rshmem's: outstanding collectives run at once, each holding its memory until its wait"
        );
    }
    let _ = writeln!(
        out,
        "   (scratch {} B per team, pool {}, pool max {})",
        cfg.scratch, cfg.pool, cfg.pool_max
    );
    let mut groups = vec![("PEs".to_string(), vec![String::new()])];
    for s in psync::STRATEGIES {
        groups.push((s.to_string(), vec!["now".into(), "peak".into()]));
    }
    groups.push(("traditional baseline".into(), vec!["peak".into(), "never freed".into()]));
    groups.push(("scratch".into(), vec!["peak".into()]));
    let mut mem = Table { groups, rows: vec![] };
    let mut extra = Table {
        groups: std::iter::once(("PEs".to_string(), vec![String::new()]))
            .chain(psync::STRATEGIES.iter().map(|s| (s.to_string(), vec![String::new()])))
            .collect(),
        rows: vec![],
    };
    let mut differ = vec![];
    let mut not_pe0: Vec<String> = vec![];
    for &n in &o.pes {
        let rs: Vec<&Row> = rows_of(rows, seq, n).collect();
        let Some(first) = rs.first() else { continue };
        let mut cells = vec![n.to_string()];
        let mut ecells = vec![n.to_string()];
        for r in &rs {
            cells.push(r.flags_current_max.to_string());
            cells.push(r.flags_peak_max.to_string());
            ecells.push(format!("{:.2}", r.extra_per_collective_max));
            if r.flags_peak_max_pe != 0 && !not_pe0.iter().any(|s| s.starts_with(r.strategy)) {
                not_pe0.push(format!("{} (e.g. PE {} at {n} PEs)", r.strategy, r.flags_peak_max_pe));
            }
            let same = (r.baseline_peak_max, r.baseline_never_freed_max, r.scratch_peak_max);
            if same
                != (
                    first.baseline_peak_max,
                    first.baseline_never_freed_max,
                    first.scratch_peak_max,
                )
            {
                differ.push(format!("{} at {n} PEs", r.strategy));
            }
        }
        cells.push(first.baseline_peak_max.to_string());
        cells.push(first.baseline_never_freed_max.to_string());
        cells.push(first.scratch_peak_max.to_string());
        mem.rows.push(cells);
        extra.rows.push(ecells);
    }
    out += &mem.render();
    if pe0_in_every_team(seq) && !not_pe0.is_empty() {
        let _ = writeln!(
            out,
            "note: the flags peak max is PE 0's except under {} (CSV column flags_peak_max_pe)",
            not_pe0.join(", ")
        );
    }
    if !differ.is_empty() {
        let _ = writeln!(
            out,
            "note: baseline or scratch figures differ from {}'s under: {}",
            psync::STRATEGIES[0],
            differ.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "\n   {seq}: extra messages per collective (max over PEs of the PE's extra messages / its collectives)"
    );
    out += &extra.render();
    out
}

/// The CSV file's text (long format: a line per sequence, strategy, PEs).
pub fn csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "sequence,strategy,pes,flags_current_max,flags_peak_max,scratch_peak_max,baseline_peak_max,baseline_never_freed_max,extra_per_collective_max,flags_current_mean,flags_peak_mean,flags_peak_max_pe\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{:.4},{:.2},{:.2},{}",
            r.seq,
            r.strategy,
            r.pes,
            r.flags_current_max,
            r.flags_peak_max,
            r.scratch_peak_max,
            r.baseline_peak_max,
            r.baseline_never_freed_max,
            r.extra_per_collective_max,
            r.flags_current_mean,
            r.flags_peak_mean,
            r.flags_peak_max_pe
        );
    }
    s
}

/// A line of a plot: its points (PEs, bytes) and how it is drawn.
struct Curve {
    label: String,
    color: RGBColor,
    dashed: bool,
    points: Vec<(f64, f64)>,
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

fn color(strategy_index: usize) -> RGBColor {
    COLORS[strategy_index % COLORS.len()]
}

fn strategy_curve(rows: &[Row], seq: &str, si: usize, label: String, dashed: bool) -> Curve {
    let s = psync::STRATEGIES[si];
    Curve {
        label,
        color: color(si),
        dashed,
        points: rows
            .iter()
            .filter(|r| r.seq == seq && r.strategy == s)
            .map(|r| (r.pes as f64, r.flags_peak_max as f64))
            .collect(),
    }
}

fn never_freed_curve(rows: &[Row], seq: &str) -> Curve {
    Curve {
        label: "traditional, never freed".into(),
        color: BLACK,
        dashed: true,
        points: rows
            .iter()
            .filter(|r| r.seq == seq && r.strategy == psync::STRATEGIES[0])
            .map(|r| (r.pes as f64, r.baseline_never_freed_max as f64))
            .collect(),
    }
}

fn fmt_pes(v: &f64) -> String {
    format!("{}", v.round() as u64)
}

fn fmt_bytes(v: &f64) -> String {
    format!("{}", v.round() as u64)
}

/// Draws `curves` (points with a zero coordinate are left out: log axes).
fn plot(title: &str, curves: &[Curve]) -> Result<String, String> {
    let curves: Vec<Curve> = curves
        .iter()
        .map(|c| Curve {
            label: c.label.clone(),
            color: c.color,
            dashed: c.dashed,
            points: c.points.iter().copied().filter(|&(x, y)| x > 0.0 && y > 0.0).collect(),
        })
        .collect();
    let all = || curves.iter().flat_map(|c| c.points.iter().copied());
    let (x0, x1) = all().fold((f64::MAX, f64::MIN), |(a, b), (x, _)| (a.min(x), b.max(x)));
    let (y0, y1) = all().fold((f64::MAX, f64::MIN), |(a, b), (_, y)| (a.min(y), b.max(y)));
    let (x0, x1) = if x0 > x1 { (1.0, 2.0) } else { (x0 / 1.15, x1 * 1.15) };
    let (y0, y1) = if y0 > y1 { (1.0, 10.0) } else { (y0 / 1.6, y1 * 1.6) };
    let e = |e: DrawingAreaErrorKind<_>| format!("plotting {title}: {e}");
    let mut svg = String::new();
    {
        let area: DrawingArea<SVGBackend, Shift> = SVGBackend::with_string(&mut svg, (960, 640)).into_drawing_area();
        area.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(&area)
            .caption(title, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(88)
            .build_cartesian_2d((x0..x1).log_scale().base(2.0), (y0..y1).log_scale())
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("PEs (log2 scale)")
            .y_desc("peak flags bytes per PE, max over PEs (log scale)")
            .x_labels(13)
            .y_labels(12)
            .x_label_formatter(&fmt_pes)
            .y_label_formatter(&fmt_bytes)
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(e)?;
        for c in &curves {
            let style = ShapeStyle::from(c.color).stroke_width(2);
            let color = c.color;
            let series = if c.dashed {
                chart
                    .draw_series(DashedLineSeries::new(c.points.clone(), 8, 5, style))
                    .map_err(e)?
            } else {
                chart
                    .draw_series(LineSeries::new(c.points.clone(), style).point_size(3))
                    .map_err(e)?
            };
            let dashed = c.dashed;
            series.label(c.label.as_str()).legend(move |(x, y)| {
                if dashed {
                    DashedPathElement::new(vec![(x, y), (x + 24, y)], 6, 3, style).into_dyn()
                } else {
                    PathElement::new(vec![(x, y), (x + 24, y)], ShapeStyle::from(color).stroke_width(2)).into_dyn()
                }
            });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()
            .map_err(e)?;
        area.present().map_err(e)?;
    }
    Ok(svg)
}

/// The plot of one sequence: peak flags per strategy and the never-freed
/// traditional baseline.
pub fn svg_for(rows: &[Row], seq: &str) -> Result<String, String> {
    let mut curves: Vec<Curve> = (0..psync::STRATEGIES.len())
        .map(|si| strategy_curve(rows, seq, si, psync::STRATEGIES[si].to_string(), false))
        .collect();
    curves.push(never_freed_curve(rows, seq));
    plot(
        &format!("psync footprint: sequence {seq} (peak flags bytes per PE, max over PEs)"),
        &curves,
    )
}

/// `qtc-keep` (solid) against `qtc` (dashed), strategy by strategy.
pub fn svg_qtc(rows: &[Row]) -> Result<String, String> {
    let mut curves = vec![];
    for si in 0..psync::STRATEGIES.len() {
        let s = psync::STRATEGIES[si];
        curves.push(strategy_curve(rows, "qtc-keep", si, format!("{s} (qtc-keep)"), false));
        curves.push(strategy_curve(rows, "qtc", si, format!("{s} (qtc)"), true));
    }
    let mut nf = never_freed_curve(rows, "qtc-keep");
    nf.color = RGBColor(110, 110, 110);
    curves.push(nf);
    plot(
        "psync footprint: qtc-keep (solid, teams kept) vs qtc (dashed, teams destroyed)",
        &curves,
    )
}

/// Writes the CSV file and the plots; returns the paths written.
pub fn write_outputs(o: &Options, rows: &[Row]) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(&o.out).map_err(|e| format!("cannot create {}: {e}", o.out.display()))?;
    let mut files = vec![(o.out.join("psync-footprint.csv"), csv(rows))];
    for seq in &o.seqs {
        files.push((o.out.join(format!("psync-footprint-{seq}.svg")), svg_for(rows, seq)?));
    }
    if ["qtc", "qtc-keep"].iter().all(|s| o.seqs.iter().any(|q| q == s)) {
        files.push((o.out.join("psync-footprint-qtc-vs-qtc-keep.svg"), svg_qtc(rows)?));
    }
    let mut written = vec![];
    for (path, text) in files {
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// `psync-footprint-run`: the work, in whatever build runs it.
pub fn run(args: &[String], default_out: &Path) -> Result<(), String> {
    let o = Options::parse(args, default_out)?;
    let t = Instant::now();
    let print = |line: String| println!("{line}");
    let rows = compute(&o, &print)?;
    let simulated = t.elapsed();
    for seq in &o.seqs {
        println!();
        print!("{}", tables(&o, &rows, seq));
    }
    let written = write_outputs(&o, &rows)?;
    println!();
    println!(
        "simulated {} jobs in {:.1} s; wrote:",
        rows.len(),
        simulated.as_secs_f64()
    );
    for p in written {
        println!("  {}", p.display());
    }
    Ok(())
}

/// `psync-footprint`: checks the arguments, then runs `psync-footprint-run`
/// in a release build of xtask (the debug simulator is too slow at 4096 PEs).
pub fn main(args: &[String], default_out: &Path, root: &Path, cargo: std::process::Command) -> Result<(), String> {
    let mut o = Options::parse(args, default_out)?;
    o.out = std::path::absolute(&o.out).map_err(|e| format!("{}: {e}", o.out.display()))?;
    let t = Instant::now();
    let mut cmd = cargo;
    cmd.current_dir(root)
        .args([
            "run",
            "--quiet",
            "--release",
            "-p",
            "xtask",
            "--",
            "psync-footprint-run",
        ])
        .args(o.to_args());
    println!("==> building xtask (release) and running the simulator");
    crate::run(&mut cmd)?;
    println!(
        "psync-footprint: {:.1} s in all (build included)",
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_round_trip() {
        let args: Vec<String> = [
            "--seq",
            "qtc",
            "--pes",
            "8,2,3,8",
            "--out",
            "/x",
            "--pool",
            "3",
            "--scratch",
            "4096",
            "--seq",
            "nb-world-4",
            "--hypothetical-concurrent",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let o = Options::parse(&args, Path::new("/d")).unwrap();
        assert_eq!(o.pes, [2, 3, 8]);
        assert_eq!(o.seqs, ["qtc", "nb-world-4"]);
        assert_eq!((o.pool, o.pool_max, o.scratch), (Some(3), None, Some(4096)));
        assert!(o.concurrent);
        assert_eq!(Options::parse(&o.to_args(), Path::new("/d")).unwrap(), o);
        let d = Options::parse(&[], Path::new("/d")).unwrap();
        assert_eq!(d.pes.first().zip(d.pes.last()), Some((&2, &4096)));
        assert_eq!(d.seqs.len(), sim::SEQUENCES.len());
        assert!(Options::parse(&["--seq".into(), "nope".into()], Path::new("/d")).is_err());
        assert!(Options::parse(&["--pes".into(), "0,2".into()], Path::new("/d")).is_err());
    }

    #[test]
    fn writes_a_row_per_job_and_the_plots() {
        let out = std::env::temp_dir().join(format!("xtask-psync-footprint-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let args: Vec<String> = ["--pes", "2,8,16", "--out"].iter().map(|s| s.to_string()).collect();
        let mut args = args;
        args.push(out.display().to_string());
        let o = Options::parse(&args, Path::new("/unused")).unwrap();
        let rows = compute(&o, &|_| {}).unwrap();
        let written = write_outputs(&o, &rows).unwrap();

        let text = std::fs::read_to_string(out.join("psync-footprint.csv")).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(&header[..3], ["sequence", "strategy", "pes"]);
        let keys: Vec<(String, String, usize)> = lines
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                assert_eq!(f.len(), header.len(), "{l}");
                (f[0].to_string(), f[1].to_string(), f[2].parse().unwrap())
            })
            .collect();
        let mut want = vec![];
        for q in sim::SEQUENCES {
            for n in [2, 8, 16] {
                for s in psync::STRATEGIES {
                    want.push((q.to_string(), s.to_string(), n));
                }
            }
        }
        assert_eq!(keys, want);

        for q in sim::SEQUENCES {
            let svg = std::fs::read_to_string(out.join(format!("psync-footprint-{q}.svg"))).unwrap();
            assert!(svg.contains("<svg"), "{q}");
            for s in psync::STRATEGIES {
                assert!(svg.contains(s), "{q}: legend names {s}");
            }
            assert!(svg.contains("never freed"));
            let t = tables(&o, &rows, q);
            assert!(t.contains("bytes per PE"));
        }
        assert!(written.contains(&out.join("psync-footprint-qtc-vs-qtc-keep.svg")));
        std::fs::remove_dir_all(&out).unwrap();
    }
}
