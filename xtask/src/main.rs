//! Project tasks: `cargo xtask <task>`.
//!
//! - `demo [--n POINTS] [--np LIST] [--strategies LIST] [--ft-class CLASS]
//!   [--ft-np LIST] [--no-ft]`: builds everything (release), compiles the
//!   examples and runs the QTC demo: one run per pSync strategy at 2, 4, 8 and
//!   16 PEs, one table, and the simulated footprint plot for 2..4096 PEs
//!   (`target/demo/`); then NAS FT (class A by default) with each variant at
//!   2 and 4 PEs, one table and a figure of the times. See `demo.rs`, `ft.rs`.
//! - `install [--prefix DIR] [--from BUILD_DIR]`: builds (release) and
//!   installs the tools, libraries, headers, `rshmem.pc` and the docs under
//!   `DIR` (default `/usr/local`); `--from` installs an existing build
//!   directory instead. See `install.rs`.
//! - `gen-header`: writes the files generated from the crate's tables (headers
//!   from the type table, `docs/env.md` from the configuration table).
//! - `bench [compare.py options] [--no-report]`: builds (release), runs
//!   `benches/compare.py`, counts the hot paths' instructions
//!   (`benches/icount.py`) and writes `docs/performance.md` and
//!   `docs/performance.csv` (`benches/report.py`).
//! - `bench --multinode [multinode.py options]`: builds (release) and runs
//!   `benches/multinode.py` (rshmem across virtual nodes under `mpirun`, and
//!   with `--netns`, as root, across two network namespaces; Open MPI's
//!   OSHMEM over the same path), writing the Markdown table the multi-node
//!   section of `docs/performance.md` takes to `target/bench/multinode.md`.
//! - `bench --ft [ft.py options]`: builds (release) and runs `benches/ft.py`
//!   (NAS FT, `examples/ft/`, with rshmem, Open MPI's OSHMEM and, when given,
//!   the NAS MPI reference; `--virtual` and `--netns` add runs across nodes),
//!   writing the `## NAS FT` section of `docs/performance.md` to
//!   `target/bench/ft.md`.
//! - `bench --halo [halo.py options]`: builds (release) and runs
//!   `benches/halo.py` (the halo exchange, `examples/halo/`, in each mode, and
//!   the cost of one notification, `benches/c/notify_cost.c`; `--netns` adds
//!   runs across the namespaces), writing the `## Halo exchange` section of
//!   `docs/performance.md` to `target/bench/halo.md`.
//! - `psync-footprint [--seq NAME]... [--pes LIST] [--out DIR] [--pool N]
//!   [--pool-max N] [--scratch BYTES]`: runs the pSync strategies' virtual
//!   jobs (`rshmem::sim`) for every sequence and PE count (2..4096 by
//!   default) in a release build, prints the bytes per PE and the extra
//!   messages per collective, and writes `target/psync-footprint/` (a CSV file
//!   and an SVG plot per sequence). See `psync_footprint.rs`.
//! - `trace-svg FILE.json [--out FILE.svg] [--title TEXT]`: draws a timeline
//!   written with `SHMEM_TRACE` as an SVG (one row per PE, a box per call
//!   coloured by category), by default beside the JSON. See `trace_svg.rs`.

mod demo;
mod ft;
mod install;
mod psync_footprint;
mod trace_svg;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let status = cmd.status().map_err(|e| format!("cannot run {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// Builds the library, the trace layer and the tools (release). The build script adds what
/// cargo cannot make (the `oshc++` links, `pkgconfig/rshmem.pc`).
fn build_release() -> Result<PathBuf, String> {
    println!("==> building rshmem (release): library, trace layer, oshcc, oshrun");
    run(cargo()
        .current_dir(root())
        .args(["build", "--release", "-p", "rshmem", "-p", "rshmem-trace"]))?;
    Ok(root().join("target/release"))
}

/// Installs under `--prefix` (default `/usr/local`) what `--from` holds, or
/// else a release build made now. See `install.rs`.
fn install(args: &[String]) -> Result<(), String> {
    let o = install::Options::parse(args)?;
    let build_dir = match o.from {
        Some(d) => d,
        None => build_release()?,
    };
    let src = install::Sources {
        build_dir,
        source_dir: root(),
    };
    println!("==> installing into {}", o.prefix.display());
    let done = install::install(&src, &o.prefix)?;
    for p in &done {
        println!("  {}", p.display());
    }
    println!(
        "==> installed {} files; compile with {}, run with {}",
        done.len(),
        o.prefix.join("bin/oshcc").display(),
        o.prefix.join("bin/oshrun").display()
    );
    Ok(())
}

/// Builds everything, compiles every example, then runs the QTC demo and
/// the FT one.
fn demo(args: &[String]) -> Result<(), String> {
    demo::Options::parse(args)?;
    let bin = build_release()?;
    let out = bin.join("examples");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    for (name, src) in [
        ("ring_sum", "examples/ring_sum.c"),
        ("pipeline", "examples/pipeline/pipeline.c"),
    ] {
        println!("==> compiling {src} with oshcc");
        run(Command::new(bin.join("oshcc"))
            .args(["-O2", "-Wall", "-Wextra", "-o"])
            .arg(out.join(name))
            .arg(root().join(src)))?;
    }
    demo::main(args, &bin, &root(), cargo())
}

fn gen_header() -> Result<(), String> {
    for (name, text) in rshmem::generated_files() {
        let path = root().join(name);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// Builds (release), runs `benches/compare.py` with `args` (rshmem and, when
/// installed, Open MPI, interleaved), counts the instructions of the hot
/// paths (`benches/icount.py`) and writes the report: `docs/performance.md`
/// and `docs/performance.csv` (`benches/report.py`). With `--no-report`, only
/// compare.py runs (its table on the terminal).
fn bench(args: &[String]) -> Result<(), String> {
    for (flag, script, md) in [
        ("--multinode", "benches/multinode.py", "multinode.md"),
        ("--ft", "benches/ft.py", "ft.md"),
        ("--halo", "benches/halo.py", "halo.md"),
    ] {
        if args.iter().any(|a| a == flag) {
            return bench_section(script, md, args.iter().filter(|a| *a != flag));
        }
    }
    let report = !args.iter().any(|a| a == "--no-report");
    let args: Vec<&String> = args.iter().filter(|a| *a != "--no-report").collect();
    let bin = build_release()?;
    let out = root().join("target/bench");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let csv = out.join("bench.csv");
    // `cargo run` puts target/debug into LD_LIBRARY_PATH, which would override
    // the release library's rpath in the benchmark programs.
    let python = || {
        let mut c = Command::new("python3");
        c.env_remove("LD_LIBRARY_PATH");
        c
    };
    let mut compare = python();
    compare
        .arg(root().join("benches/compare.py"))
        .arg("--rshmem-bin")
        .arg(&bin);
    // The report's medians: 5 runs unless asked otherwise. On a virtual machine
    // some latencies are bimodal from one run to the next (the floor itself is),
    // and the median of 3 is then a coin toss.
    if report && !args.iter().any(|a| a.starts_with("--reps")) {
        compare.args(["--reps", "5"]);
    }
    compare.args(&args);
    if report {
        compare.arg("--csv").arg(&csv);
    }
    run(&mut compare)?;
    if !report {
        return Ok(());
    }
    let icount = out.join("icount.md");
    println!("==> counting instructions of the 8-byte put, p and fetch_add paths (callgrind)");
    let counted = run(python()
        .arg(root().join("benches/icount.py"))
        .arg("--rshmem-bin")
        .arg(&bin)
        .arg("--out")
        .arg(&icount));
    if let Err(e) = &counted {
        eprintln!("xtask: instruction counts skipped: {e}");
    }
    let command = format!(
        "cargo xtask bench {}",
        args.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(" ")
    );
    let mut rep = python();
    rep.arg(root().join("benches/report.py"))
        .arg(&csv)
        .arg("--out")
        .arg(root().join("docs/performance.md"))
        .arg("--csv-out")
        .arg(root().join("docs/performance.csv"))
        .arg("--command")
        .arg(command.trim_end());
    if counted.is_ok() {
        rep.arg("--icount").arg(&icount);
    }
    run(&mut rep)?;
    println!("==> wrote docs/performance.md and docs/performance.csv");
    Ok(())
}

/// Builds (release) and runs `script` (`benches/multinode.py`,
/// `benches/ft.py` or `benches/halo.py`) with `args`; its Markdown goes to `target/bench/<md>`
/// for the lead to paste into `docs/performance.md` (the single-node report
/// is left alone, and `report.py` keeps those sections when it rewrites it).
fn bench_section<'a>(script: &str, md: &str, args: impl Iterator<Item = &'a String>) -> Result<(), String> {
    let args: Vec<&String> = args.collect();
    // A self-test checks the script's parsers and writes no Markdown.
    let writes = !args.iter().any(|a| *a == "--self-test");
    let bin = build_release()?;
    let out = root().join("target/bench");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let md = out.join(md);
    let mut cmd = Command::new("python3");
    // As in bench(): target/debug on LD_LIBRARY_PATH would beat the release rpath.
    cmd.env_remove("LD_LIBRARY_PATH")
        .arg(root().join(script))
        .arg("--rshmem-bin")
        .arg(&bin)
        .arg("--md")
        .arg(&md)
        .args(args);
    run(&mut cmd)?;
    if writes {
        println!("==> wrote {}", md.display());
    }
    Ok(())
}

fn footprint_out() -> PathBuf {
    root().join("target/psync-footprint")
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("demo") => demo(&args[1..]),
        Some("gen-header") => gen_header(),
        Some("bench") => bench(&args[1..]),
        Some("install") => install(&args[1..]),
        Some("psync-footprint") => psync_footprint::main(&args[1..], &footprint_out(), &root(), cargo()),
        // Hidden: what `psync-footprint` runs in a release build.
        Some("psync-footprint-run") => psync_footprint::run(&args[1..], &footprint_out()),
        Some("trace-svg") => trace_svg::main(&args[1..]),
        _ => Err(format!(
            "usage: cargo xtask <{} | gen-header | bench [compare.py options] | bench --multinode [multinode.py options] | bench --ft [ft.py options] | bench --halo [halo.py options] | {} | {} | {}>",
            demo::USAGE,
            install::USAGE,
            psync_footprint::USAGE,
            trace_svg::USAGE
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}
