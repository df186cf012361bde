//! `cargo xtask demo`: builds everything (release), then runs the QTC
//! clustering example (`examples/qtc/qtc.c`) once per pSync strategy at
//! 2, 4, 8 and 16 PEs, prints one table of what each strategy's
//! synchronisation memory cost, and writes the simulated footprint plot for
//! 2..4096 PEs next to it (`target/demo/`). Then, unless `--no-ft`, the NAS
//! FT example's variants at a few PE counts (`ft.rs`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

pub const USAGE: &str =
    "demo [--n POINTS] [--np LIST] [--strategies LIST] [--ft-class S|W|A|B|C] [--ft-np LIST] [--no-ft]";

/// Points of the demo's input: SHOC's default size (4096); the 24 runs take
/// about 20 s on 2 cores.
const DEFAULT_N: usize = 4096;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub n: usize,
    pub np: Vec<usize>,
    pub strategies: Vec<String>,
    /// The FT part; `None` with `--no-ft`.
    pub ft: Option<crate::ft::Options>,
}

impl Options {
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options {
            n: DEFAULT_N,
            np: vec![2, 4, 8, 16],
            strategies: rshmem::psync::STRATEGIES.iter().map(|s| s.to_string()).collect(),
            ft: None, // set after the loop, unless --no-ft
        };
        let mut ft = crate::ft::Options::default();
        let mut no_ft = false;
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            if flag == "--no-ft" {
                no_ft = true;
                continue;
            }
            let value = it
                .next()
                .ok_or_else(|| format!("{flag} needs a value\nusage: cargo xtask {USAGE}"))?;
            let list = |v: &str| -> Result<Vec<usize>, String> {
                v.split(',')
                    .map(|x| {
                        x.trim()
                            .parse::<usize>()
                            .map_err(|_| format!("{flag}: `{x}` is not a number"))
                    })
                    .collect()
            };
            match flag.as_str() {
                "--n" => o.n = value.parse().map_err(|_| format!("--n: `{value}` is not a number"))?,
                "--np" => o.np = list(value)?,
                "--strategies" => {
                    o.strategies = value.split(',').map(|s| s.trim().to_string()).collect();
                    if let Some(bad) = o
                        .strategies
                        .iter()
                        .find(|s| !rshmem::psync::STRATEGIES.contains(&s.as_str()))
                    {
                        return Err(format!(
                            "--strategies: `{bad}` is not one of {}",
                            rshmem::psync::STRATEGIES.join(", ")
                        ));
                    }
                }
                _ if ft.set(flag, value)? => {}
                _ => return Err(format!("unknown option {flag}\nusage: cargo xtask {USAGE}")),
            }
        }
        if o.np.is_empty() || o.np.contains(&0) || o.n == 0 {
            return Err("--np needs PE counts of at least 1, --n at least 1 point".into());
        }
        ft.check()?;
        o.ft = (!no_ft).then_some(ft);
        Ok(o)
    }
}

/// The `RESULT key=value ...` line QTC's PE 0 prints.
pub fn parse_result(stdout: &str) -> Option<BTreeMap<String, String>> {
    let line = stdout.lines().find_map(|l| l.strip_prefix("RESULT "))?;
    Some(
        line.split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

/// The value of `k` in a RESULT line's fields, `?` when absent.
pub fn get<'a>(r: &'a BTreeMap<String, String>, k: &str) -> &'a str {
    r.get(k).map_or("?", String::as_str)
}

/// One table of the runs, in the order given.
pub fn table(runs: &[BTreeMap<String, String>]) -> String {
    let header = [
        "strategy",
        "PEs",
        "teams",
        "clusters",
        "verify",
        "flags B/PE cur",
        "flags peak",
        "scratch peak",
        "trad. peak",
        "trad. never freed",
        "sync msg/coll",
        "extra msg/coll",
        "time s",
    ];
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                get(r, "strategy").to_string(),
                get(r, "npes").to_string(),
                get(r, "teams").to_string(),
                format!("{}+{}", get(r, "clusters"), get(r, "singletons")),
                get(r, "verify").to_string(),
                get(r, "flags_cur").to_string(),
                get(r, "flags_peak").to_string(),
                get(r, "scratch_peak").to_string(),
                get(r, "base_peak").to_string(),
                get(r, "base_never").to_string(),
                get(r, "sync_msgs").to_string(),
                get(r, "extra_msgs").to_string(),
                get(r, "seconds").to_string(),
            ]
        })
        .collect();
    text_table(&header, &rows)
}

/// A plain-text table: the first column left-aligned, the others right-aligned,
/// a rule of dashes under the header.
pub fn text_table<S: AsRef<str>>(header: &[&str], rows: &[Vec<S>]) -> String {
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].as_ref().len())
                .chain([header[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut s = String::new();
        for (c, cell) in cells.enumerate() {
            if c == 0 {
                s += &format!("{cell:<w$}", w = widths[c]);
            } else {
                s += &format!("  {cell:>w$}", w = widths[c]);
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&mut header.iter().copied());
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out += &line(&mut rule.iter().map(String::as_str));
    for r in rows {
        out += &line(&mut r.iter().map(AsRef::as_ref));
    }
    out
}

/// Every run must have verified and found the same clusters: the algorithm
/// does not depend on the PE count or the strategy.
pub fn agree(runs: &[BTreeMap<String, String>]) -> Result<String, String> {
    let key = |r: &BTreeMap<String, String>| {
        (
            get(r, "clusters").to_string(),
            get(r, "singletons").to_string(),
            get(r, "hash").to_string(),
        )
    };
    let first = runs.first().ok_or("no runs")?;
    for r in runs {
        if get(r, "verify") != "OK" {
            return Err(format!(
                "{} at {} PEs did not verify ({})",
                get(r, "strategy"),
                get(r, "npes"),
                get(r, "verify")
            ));
        }
        if key(r) != key(first) {
            return Err(format!(
                "{} at {} PEs found {:?}, {} at {} PEs {:?}",
                get(r, "strategy"),
                get(r, "npes"),
                key(r),
                get(first, "strategy"),
                get(first, "npes"),
                key(first)
            ));
        }
    }
    let (c, s, h) = key(first);
    Ok(format!(
        "all {} runs verified and found the same {c} clusters (+{s} singletons, sequence hash {h})",
        runs.len()
    ))
}

pub fn main(args: &[String], bin: &Path, root: &Path, cargo: Command) -> Result<(), String> {
    let o = Options::parse(args)?;
    let out = root.join("target/demo");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let exe = bin.join("examples/qtc");
    std::fs::create_dir_all(bin.join("examples")).map_err(|e| e.to_string())?;
    println!("==> compiling examples/qtc/qtc.c with oshcc");
    crate::run(
        Command::new(bin.join("oshcc"))
            .args(["-O2", "-Wall", "-Wextra", "-o"])
            .arg(&exe)
            .arg(root.join("examples/qtc/qtc.c"))
            .arg("-lm"),
    )?;
    let total = o.strategies.len() * o.np.len();
    println!(
        "==> QTC clustering of {} points, once per pSync strategy at {:?} PEs ({total} runs)",
        o.n, o.np
    );
    let started = Instant::now();
    let mut runs = Vec::new();
    let mut raw = String::new();
    for s in &o.strategies {
        for &np in &o.np {
            let t = Instant::now();
            let output = Command::new(bin.join("oshrun"))
                // A program built by oshcc finds the release library through
                // its RUNPATH; `cargo run` would put the debug one first.
                .env_remove("LD_LIBRARY_PATH")
                .env("SHMEM_PSYNC_STRATEGY", s)
                .args(["-np", &np.to_string()])
                .arg(&exe)
                .args(["-n", &o.n.to_string()])
                .output()
                .map_err(|e| format!("cannot run oshrun: {e}"))?;
            let stdout = String::from_utf8_lossy(&output.stdout);
            raw += &format!(
                "### SHMEM_PSYNC_STRATEGY={s} oshrun -np {np} qtc -n {}\n{stdout}\n",
                o.n
            );
            if !output.status.success() {
                eprint!("{stdout}{}", String::from_utf8_lossy(&output.stderr));
                return Err(format!("QTC failed under {s} at {np} PEs ({})", output.status));
            }
            let r = parse_result(&stdout).ok_or_else(|| format!("no RESULT line from QTC under {s} at {np} PEs"))?;
            println!(
                "  [{:>2}/{total}] {s:<20} {np:>2} PEs: {} clusters, verify {}, {:.1} s",
                runs.len() + 1,
                get(&r, "clusters"),
                get(&r, "verify"),
                t.elapsed().as_secs_f64()
            );
            runs.push(r);
        }
    }
    let summary = agree(&runs)?;
    let text = format!(
        "QTC, {} points: pSync bytes per PE (max over PEs) by strategy. \"trad.\" = what one traditional array per\nlive team would hold (peak) and per team ever created (never freed); messages per collective are sums over PEs.\n\n{}\n{summary}\n",
        o.n,
        table(&runs)
    );
    println!();
    print!("{text}");
    let table_path = out.join("qtc-demo.txt");
    std::fs::write(&table_path, &text).map_err(|e| e.to_string())?;
    std::fs::write(out.join("qtc-demo-runs.txt"), raw).map_err(|e| e.to_string())?;
    println!("QTC runs took {:.1} s", started.elapsed().as_secs_f64());
    println!();
    println!("==> the simulated footprint of the same QTC sequence for 2..4096 PEs");
    let args: Vec<String> = ["--seq", "qtc", "--seq", "qtc-keep", "--out"]
        .iter()
        .map(|s| s.to_string())
        .chain([out.display().to_string()])
        .collect();
    crate::psync_footprint::main(&args, &out, root, cargo)?;
    println!();
    println!("==> wrote");
    for p in [
        table_path,
        out.join("psync-footprint-qtc.svg"),
        out.join("psync-footprint-qtc-vs-qtc-keep.svg"),
        out.join("psync-footprint.csv"),
    ] {
        println!("  {}", p.display());
    }
    println!("    (docs/qtc.md explains the table and the plot)");
    if let Some(ft) = &o.ft {
        println!();
        crate::ft::main(ft, bin, root, &out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "QTC N=64 t=1 PEs=2\nRESULT strategy=traditional npes=2 n=64 t=1 k=32 clusters=9 singletons=3 teams=2 sizes=2,1 verify=OK hash=0xab flags_cur=128 flags_peak=256 scratch_cur=1 scratch_peak=2 base_peak=256 base_never=256 sync_msgs=1.25 extra_msgs=0.50 collectives=8 seconds=0.010\n";

    #[test]
    fn results_parse_tabulate_and_agree() {
        let r = parse_result(SAMPLE).unwrap();
        assert_eq!(get(&r, "clusters"), "9");
        assert_eq!(get(&r, "sizes"), "2,1");
        let mut other = r.clone();
        other.insert("strategy".into(), "pairwise-rd".into());
        let t = table(&[r.clone(), other.clone()]);
        assert!(t.contains("traditional") && t.contains("pairwise-rd") && t.contains("0.50") && t.contains("1.25"));
        assert!(agree(&[r.clone(), other.clone()]).unwrap().contains("same 9 clusters"));
        other.insert("hash".into(), "0xcd".into());
        assert!(agree(&[r.clone(), other]).is_err(), "different sequences");
        let mut bad = r.clone();
        bad.insert("verify".into(), "FAILED".into());
        assert!(agree(&[bad]).is_err());
        assert!(parse_result("no result here").is_none());
    }

    #[test]
    fn options_parse() {
        assert_eq!(Options::parse(&[]).unwrap().np, vec![2, 4, 8, 16]);
        let a: Vec<String> = ["--n", "512", "--np", "1,3", "--strategies", "pairwise-rd"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let o = Options::parse(&a).unwrap();
        assert_eq!(
            (o.n, o.np, o.strategies),
            (512, vec![1, 3], vec!["pairwise-rd".to_string()])
        );
        assert!(Options::parse(&["--strategies".into(), "nope".into()]).is_err());
        assert!(Options::parse(&["--np".into(), "0".into()]).is_err());
    }

    #[test]
    fn ft_options_parse() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(Options::parse(&[]).unwrap().ft, Some(crate::ft::Options::default()));
        let o = Options::parse(&args(&["--ft-class", "S", "--n", "64", "--ft-np", "1,8"])).unwrap();
        assert_eq!(o.n, 64);
        assert_eq!(
            o.ft,
            Some(crate::ft::Options {
                class: "S".into(),
                np: vec![1, 8]
            })
        );
        // A flag without a value, anywhere among the others.
        let o = Options::parse(&args(&["--no-ft", "--np", "2", "--ft-class", "A"])).unwrap();
        assert_eq!((o.np, o.ft), (vec![2], None));
        assert!(Options::parse(&args(&["--ft-class"])).is_err(), "needs a value");
        assert!(Options::parse(&args(&["--ft-class", "Z"])).is_err());
        assert!(Options::parse(&args(&["--ft-np", "3"])).unwrap_err().contains("3 PEs"));
        assert!(Options::parse(&args(&["--ft"])).is_err());
    }
}
