//! The FT part of `cargo xtask demo`: compiles the NAS FT example
//! (`examples/ft/*.c`) with the release `oshcc` (`-O3`), runs one class
//! (A by default) with each communication variant at each PE count (2 and 4
//! by default), prints one table, and draws the time per variant, grouped by
//! PE count, to `target/demo/ft-time.svg`. A run that does not verify fails
//! the demo, with its output.

use crate::demo::get;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The program's communication variants, in the order they are run and drawn.
pub const VARIANTS: [&str; 4] = ["exchange", "nbexchange", "slabs", "pencils"];

/// The NAS classes the program knows: name and grid (nx, ny, nz).
const CLASSES: [(&str, [usize; 3]); 5] = [
    ("S", [64, 64, 64]),
    ("W", [128, 128, 32]),
    ("A", [256, 256, 128]),
    ("B", [512, 256, 256]),
    ("C", [512, 512, 512]),
];

/// rshmem's default symmetric heap per PE (docs/env.md); larger runs set
/// `SHMEM_SYMMETRIC_SIZE` themselves.
const DEFAULT_HEAP: usize = 512 << 20;

/// What the demo's FT part runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub class: String,
    pub np: Vec<usize>,
}

impl Default for Options {
    /// Class A, the first class larger than a cache's worth of data: a run
    /// (warm-up included) takes about 2 s at 2 or 4 PEs on 2 cores (release
    /// build, FFTW or the example's own FFT alike), well under the minute
    /// that would make the demo wait for it.
    fn default() -> Options {
        Options {
            class: "A".into(),
            np: vec![2, 4],
        }
    }
}

impl Options {
    /// Takes `--ft-class` and `--ft-np` (with their value); `Ok(false)`: not
    /// an FT option.
    pub fn set(&mut self, flag: &str, value: &str) -> Result<bool, String> {
        match flag {
            "--ft-class" => {
                if grid(value).is_none() {
                    let names: Vec<&str> = CLASSES.iter().map(|c| c.0).collect();
                    return Err(format!("--ft-class: `{value}` is not one of {}", names.join(", ")));
                }
                self.class = value.to_string();
            }
            "--ft-np" => {
                self.np = value
                    .split(',')
                    .map(|x| {
                        x.trim()
                            .parse::<usize>()
                            .map_err(|_| format!("--ft-np: `{x}` is not a number"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Every PE count must be at least 1 and divide the class's ny and nz
    /// (the program's slabs and pencils).
    pub fn check(&self) -> Result<(), String> {
        let [_, ny, nz] = grid(&self.class).expect("set() accepts known classes only");
        if self.np.is_empty() {
            return Err("--ft-np needs at least one PE count".into());
        }
        match self.np.iter().find(|&&p| p == 0 || ny % p != 0 || nz % p != 0) {
            Some(p) => Err(format!(
                "--ft-np: {p} PEs do not divide class {}'s ny={ny} and nz={nz}",
                self.class
            )),
            None => Ok(()),
        }
    }
}

fn grid(class: &str) -> Option<[usize; 3]> {
    CLASSES.iter().find(|c| c.0 == class).map(|c| c.1)
}

/// Symmetric heap per PE for the class at `np` PEs, when the default is too
/// small: the program needs about 4 complex arrays of N/P points; a quarter
/// more and 64 MiB leave room for the library's own use.
pub fn heap_size(class: &str, np: usize) -> Option<String> {
    let n: usize = grid(class)?.iter().product();
    let need = 4 * 16 * n / np.max(1);
    let want = need + need / 4 + (64 << 20);
    (want > DEFAULT_HEAP).then(|| format!("{}M", want.div_ceil(1 << 20)))
}

/// The fields of the `RESULT key=value ...` line PE 0 prints.
pub fn parse_result(stdout: &str) -> Option<BTreeMap<String, String>> {
    crate::demo::parse_result(stdout)
}

/// One table of the runs, in the order given (right-aligned numbers).
pub fn table(runs: &[BTreeMap<String, String>]) -> String {
    let header = [
        "variant",
        "PEs",
        "time s",
        "Mop/s",
        "verified",
        "messages",
        "compute s",
        "wait s",
        "transpose s",
    ];
    let keys = [
        "variant",
        "pes",
        "time",
        "mops",
        "verified",
        "messages",
        "compute",
        "wait",
        "transpose",
    ];
    let rows: Vec<Vec<&str>> = runs.iter().map(|r| keys.iter().map(|k| get(r, k)).collect()).collect();
    crate::demo::text_table(&header, &rows)
}

/// The verdict of one run: `Err` (with the run's output) unless it exited 0
/// and its RESULT line says `verified=SUCCESSFUL`.
pub fn check_run(what: &str, success: bool, stdout: &str, stderr: &str) -> Result<BTreeMap<String, String>, String> {
    let fail = |why: String| format!("{why}\n--- stdout:\n{stdout}--- stderr:\n{stderr}");
    let r = parse_result(stdout).ok_or_else(|| fail(format!("FT {what}: no RESULT line")))?;
    if !success || get(&r, "verified") != "SUCCESSFUL" {
        return Err(fail(format!(
            "FT {what} did not verify (verified={}, {})",
            get(&r, "verified"),
            if success { "exit status 0" } else { "failed" }
        )));
    }
    Ok(r)
}

const COLORS: [RGBColor; 4] = [
    RGBColor(31, 119, 180),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
];

/// Bars of the time per variant, grouped by PE count (groups in the order
/// the runs came, variants in [`VARIANTS`] order).
pub fn svg(title: &str, runs: &[BTreeMap<String, String>]) -> Result<String, String> {
    let mut pes: Vec<String> = vec![];
    for r in runs {
        if !pes.iter().any(|p| p == get(r, "pes")) {
            pes.push(get(r, "pes").to_string());
        }
    }
    let time = |r: &BTreeMap<String, String>| get(r, "time").parse::<f64>().unwrap_or(0.0);
    // Room above the tallest bar for the legend.
    let ymax = runs.iter().map(time).fold(0.0, f64::max).max(1e-3) * 1.4;
    // Each group: one unit per variant, then one unit of gap.
    let slot = VARIANTS.len() as f64 + 1.0;
    let e = |e: DrawingAreaErrorKind<_>| format!("plotting {title}: {e}");
    let mut text = String::new();
    {
        let area: DrawingArea<SVGBackend, Shift> = SVGBackend::with_string(&mut text, (800, 520)).into_drawing_area();
        area.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(&area)
            .caption(title, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(-0.5..(pes.len() as f64 * slot - 0.5), 0.0..ymax)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc("time of the timed run, s")
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(e)?;
        for (vi, v) in VARIANTS.iter().enumerate() {
            let color = COLORS[vi];
            let bars: Vec<(f64, f64)> = runs
                .iter()
                .filter(|r| get(r, "variant") == *v)
                .filter_map(|r| {
                    let g = pes.iter().position(|p| p == get(r, "pes"))?;
                    Some((g as f64 * slot + vi as f64, time(r)))
                })
                .collect();
            chart
                .draw_series(
                    bars.iter()
                        .map(|&(x, t)| Rectangle::new([(x, 0.0), (x + 0.9, t)], color.filled())),
                )
                .map_err(e)?
                .label(*v)
                .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
            // Each bar's time above it.
            let above = TextStyle::from(("sans-serif", 12)).pos(Pos::new(HPos::Center, VPos::Bottom));
            chart
                .draw_series(
                    bars.iter()
                        .map(|&(x, t)| Text::new(format!("{t:.3}"), (x + 0.45, t + ymax * 0.01), above.clone())),
                )
                .map_err(e)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()
            .map_err(e)?;
        // The group names under the x axis, centred on each group's bars.
        for (g, p) in pes.iter().enumerate() {
            let centre = g as f64 * slot + (VARIANTS.len() as f64 - 0.1) / 2.0;
            let (x, y) = chart.backend_coord(&(centre, 0.0));
            let style = TextStyle::from(("sans-serif", 15)).pos(Pos::new(HPos::Center, VPos::Top));
            area.draw(&Text::new(format!("{p} PEs"), (x, y + 6), style))
                .map_err(e)?;
        }
        area.present().map_err(e)?;
    }
    Ok(text)
}

/// `pkg-config --cflags --libs fftw3`, if it finds FFTW.
fn fftw_flags() -> Option<Vec<String>> {
    let out = Command::new("pkg-config")
        .args(["--cflags", "--libs", "fftw3"])
        .output()
        .ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .map(String::from)
            .collect()
    })
}

/// Compiles the example with the release `oshcc` in `bin`, with FFTW for
/// the 1-D FFTs when `pkg-config` finds it (as the seed's runs had), else
/// with the example's own FFT.
fn compile(bin: &Path, root: &Path) -> Result<PathBuf, String> {
    let dir = root.join("examples/ft");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    sources.sort();
    let exe = bin.join("examples/ft");
    std::fs::create_dir_all(bin.join("examples")).map_err(|e| e.to_string())?;
    let fftw = fftw_flags();
    println!(
        "==> compiling examples/ft/*.c with oshcc -O3, {}",
        match fftw {
            Some(_) => "with FFTW (-DFT_FFTW)",
            None => "with its own FFT (pkg-config finds no fftw3)",
        }
    );
    let mut cc = Command::new(bin.join("oshcc"));
    cc.args(["-O3", "-o"]).arg(&exe).args(&sources).arg("-lm");
    if let Some(flags) = fftw {
        cc.arg("-DFT_FFTW").args(flags);
    }
    crate::run(&mut cc)?;
    Ok(exe)
}

/// The FT part of the demo; writes into `out` (`target/demo`).
pub fn main(o: &Options, bin: &Path, root: &Path, out: &Path) -> Result<(), String> {
    let exe = compile(bin, root)?;
    let total = VARIANTS.len() * o.np.len();
    println!(
        "==> NAS FT class {}, each variant at {:?} PEs ({total} runs, each after an untimed warm-up)",
        o.class, o.np
    );
    let started = Instant::now();
    let mut runs = Vec::new();
    let mut raw = String::new();
    for &np in &o.np {
        for v in VARIANTS {
            let mut cmd = Command::new(bin.join("oshrun"));
            // A program built by oshcc finds the release library through its
            // RUNPATH; `cargo run` would put the debug one first.
            cmd.env_remove("LD_LIBRARY_PATH");
            if let Some(size) = heap_size(&o.class, np).filter(|_| std::env::var_os("SHMEM_SYMMETRIC_SIZE").is_none()) {
                cmd.env("SHMEM_SYMMETRIC_SIZE", size);
            }
            cmd.args(["-np", &np.to_string()])
                .arg(&exe)
                .args(["-c", &o.class, "-v", v]);
            let output = cmd.output().map_err(|e| format!("cannot run oshrun: {e}"))?;
            let stdout = String::from_utf8_lossy(&output.stdout);
            let stderr = String::from_utf8_lossy(&output.stderr);
            raw += &format!("### oshrun -np {np} ft -c {} -v {v}\n{stdout}\n", o.class);
            let what = format!("class {} {v} at {np} PEs", o.class);
            let r = check_run(&what, output.status.success(), &stdout, &stderr)?;
            println!(
                "  [{}/{total}] {v:<8} {np:>2} PEs: {} s, {} Mop/s, {}",
                runs.len() + 1,
                get(&r, "time"),
                get(&r, "mops"),
                get(&r, "verified")
            );
            runs.push(r);
        }
    }
    let fft = runs.first().map_or("?", |r| get(r, "fft"));
    let text = format!(
        "NAS FT class {} ({fft} FFT): the timed run of each variant; messages = puts (or all-to-alls) PE 0 issued.\n\n{}",
        o.class,
        table(&runs)
    );
    println!();
    print!("{text}");
    println!("FT runs took {:.1} s", started.elapsed().as_secs_f64());
    let table_path = out.join("ft-demo.txt");
    std::fs::write(&table_path, &text).map_err(|e| e.to_string())?;
    std::fs::write(out.join("ft-demo-runs.txt"), raw).map_err(|e| e.to_string())?;
    let svg_path = out.join("ft-time.svg");
    let figure = svg(
        &format!("NAS FT class {} ({fft} FFT): time per variant", o.class),
        &runs,
    )?;
    std::fs::write(&svg_path, figure).map_err(|e| e.to_string())?;
    println!("==> wrote");
    for p in [table_path, svg_path, out.join("ft-demo-runs.txt")] {
        println!("  {}", p.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(variant: &str, pes: usize, time: &str, verified: &str) -> String {
        format!(
            " T =     1     Checksum =     5.673612178944e+02     5.293246849175e+02\n Verification = {verified}\n\
             RESULT class=W variant={variant} pes={pes} nx=128 ny=128 nz=32 iter=6 time={time} mops=1234.5 \
             verified={verified} compute=0.10 wait=0.01 transpose=0.02 fft=stockham messages=128\n"
        )
    }

    #[test]
    fn options_parse_and_check() {
        let mut o = Options::default();
        assert_eq!((o.class.as_str(), o.np.clone()), ("A", vec![2, 4]));
        assert!(o.check().is_ok());
        assert!(o.set("--ft-class", "W").unwrap());
        assert!(o.set("--ft-np", "1, 2,8").unwrap());
        assert_eq!(
            o,
            Options {
                class: "W".into(),
                np: vec![1, 2, 8]
            }
        );
        assert!(o.check().is_ok());
        assert!(!o.set("--np", "2").unwrap(), "not an FT option");
        assert!(o.set("--ft-class", "D").is_err());
        assert!(o.set("--ft-np", "2,x").is_err());
        o.np = vec![3];
        assert!(o.check().unwrap_err().contains("3 PEs"));
        o.np = vec![0];
        assert!(o.check().is_err());
        o.np = vec![];
        assert!(o.check().is_err());
        // Class W's nz is 32: 64 PEs have no slab each.
        let w = Options {
            class: "W".into(),
            np: vec![64],
        };
        assert!(w.check().is_err());
    }

    #[test]
    fn runs_check_tabulate_and_draw() {
        let a = check_run("a", true, &sample("exchange", 2, "0.4321", "SUCCESSFUL"), "").unwrap();
        let b = check_run("b", true, &sample("pencils", 4, "0.25", "SUCCESSFUL"), "").unwrap();
        let t = table(&[a.clone(), b.clone()]);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("variant") && lines[0].contains("Mop/s") && lines[0].contains("messages"));
        assert!(lines[2].starts_with("exchange") && lines[2].contains("0.4321") && lines[2].contains("SUCCESSFUL"));
        assert!(lines[3].starts_with("pencils ") && lines[3].contains("  4  ") && lines[3].contains("128"));
        let svg = svg("FT", &[a, b]).unwrap();
        for want in ["<svg", "exchange", "pencils", "2 PEs", "4 PEs", "0.432", "0.250"] {
            assert!(svg.contains(want), "the figure lacks {want}");
        }
        let bad = check_run("c", false, &sample("slabs", 2, "0.3", "UNSUCCESSFUL"), "oops").unwrap_err();
        assert!(bad.contains("did not verify") && bad.contains("Checksum =") && bad.contains("oops"));
        assert!(check_run("d", true, &sample("slabs", 2, "0.3", "UNVERIFIED"), "").is_err());
        assert!(check_run("e", false, &sample("slabs", 2, "0.3", "SUCCESSFUL"), "").is_err());
        assert!(check_run("f", true, "no result", "").unwrap_err().contains("no RESULT"));
    }

    #[test]
    fn heap_grows_only_for_large_classes() {
        assert_eq!(heap_size("W", 1), None);
        // Class A at 1 PE: 4 arrays of 8M points of 16 bytes = 512 MiB.
        assert_eq!(heap_size("A", 1), Some(format!("{}M", 640 + 64)));
        assert_eq!(heap_size("A", 4), None);
    }
}
