//! The C test programs under `c_tests/`: their directive blocks (see
//! docs/test-directives.md), compiling them with a build's `oshcc`/`oshcxx`
//! and running them with its `oshrun`. Shared by `tests/c_suite.rs` (every
//! program, default build) and `tests/check_transport.rs` (a representative
//! set, built with the checking transport); `tests/ft.rs` uses its pieces
//! ([`compile`], [`clip`], [`shm_leftovers`]) for the multi-file FT example.

use libtest_mimic::Failed;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

#[derive(Debug, Clone)]
pub struct Spec {
    pub np: Vec<usize>,
    pub exit: Option<i32>, // None: any non-zero
    pub stdout: Vec<String>,
    pub stdout_not: Vec<String>,
    pub stderr: Vec<String>,
    pub env: Vec<(String, String)>,
    /// Extra runs, each with one more variable set: (name, value).
    pub variants: Vec<(String, String)>,
    pub args: Vec<String>,
    pub timeout: u32,
    /// Arguments of one more run per np and variant, ignored unless asked for
    /// (`cargo test -- --ignored`), and its timeout (default 10x `timeout`).
    pub ignored_args: Option<Vec<String>>,
    pub ignored_timeout: Option<u32>,
    pub cflags: Vec<String>,
    pub oshrun: Vec<String>,
    /// Run the program itself, without oshrun (a 1-PE job).
    pub direct: bool,
    /// Link librshmem.a instead of the shared library.
    pub static_link: bool,
}

pub fn parse_spec(path: &Path, text: &str) -> Spec {
    let mut s = Spec {
        np: vec![1, 2, 4, 8],
        exit: Some(0),
        stdout: vec![],
        stdout_not: vec![],
        stderr: vec![],
        env: vec![],
        variants: vec![],
        args: vec![],
        timeout: 60,
        ignored_args: None,
        ignored_timeout: None,
        cflags: vec![],
        oshrun: vec![],
        direct: false,
        static_link: false,
    };
    let start = text
        .find("/* rshmem-test")
        .unwrap_or_else(|| panic!("{}: no /* rshmem-test directive block", path.display()));
    let block = &text[start..start + text[start..].find("*/").expect("directive block is closed")];
    for line in block.lines().skip(1) {
        let line = line.trim().trim_start_matches('*').trim();
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim().to_string();
        let words = || value.split_whitespace().map(String::from).collect::<Vec<_>>();
        match key.trim() {
            "np" => {
                s.np = value
                    .split_whitespace()
                    .map(|w| w.parse().expect("np is a list of numbers"))
                    .collect()
            }
            "exit" => {
                s.exit = if value == "nonzero" {
                    None
                } else {
                    Some(value.parse().expect("exit is a number or nonzero"))
                }
            }
            "stdout" => s.stdout.push(value),
            "stdout-not" => s.stdout_not.push(value),
            "stderr" => s.stderr.push(value),
            "variant" => {
                let (k, vs) = value.split_once('=').expect("variant is NAME=value value ...");
                // `SHMEM_PSYNC_STRATEGY=all`: every strategy the library
                // names, so that a new one needs no test file edited.
                let all: Vec<&str> = match (k, vs.trim()) {
                    ("SHMEM_PSYNC_STRATEGY", "all") => rshmem::psync::STRATEGIES.to_vec(),
                    _ => vs.split_whitespace().collect(),
                };
                for v in all {
                    s.variants.push((k.to_string(), v.to_string()));
                }
            }
            "env" => {
                let (k, v) = value.split_once('=').expect("env is NAME=value");
                s.env.push((k.to_string(), v.to_string()));
            }
            "args" => s.args = words(),
            "timeout" => s.timeout = value.parse().expect("timeout is a number"),
            "ignored-args" => s.ignored_args = Some(words()),
            "ignored-timeout" => s.ignored_timeout = Some(value.parse().expect("ignored-timeout is a number")),
            "cflags" => s.cflags = words(),
            "oshrun" => s.oshrun = words(),
            "launch" if value == "direct" => s.direct = true,
            "link" if value == "static" => s.static_link = true,
            other => panic!("{}: unknown directive {other:?}", path.display()),
        }
    }
    s
}

/// The tools of one build of the library, and where programs built with them go.
pub struct Tools {
    pub oshcc: PathBuf,
    pub oshcxx: PathBuf,
    pub oshrun: PathBuf,
    pub out_dir: PathBuf,
}

pub struct Program {
    /// `group/stem`, e.g. `unit/put_get`.
    pub name: String,
    pub source: PathBuf,
    pub spec: Spec,
    binary: OnceLock<Result<PathBuf, String>>,
}

fn build(p: &Program, tools: &Tools) -> Result<PathBuf, String> {
    std::fs::create_dir_all(&tools.out_dir).map_err(|e| e.to_string())?;
    let exe = tools.out_dir.join(p.name.replace('/', "__"));
    let cxx = p.source.extension().is_some_and(|e| e == "cpp");
    let mut cc = Command::new(if cxx { &tools.oshcxx } else { &tools.oshcc });
    if p.spec.static_link {
        cc.env("RSHMEM_STATIC", "1");
    }
    cc.args(["-O1", "-g", "-Wall", "-Wextra", "-Wpedantic", "-Werror"])
        .args(&p.spec.cflags)
        .arg(&p.source);
    compile(cc, &exe)?;
    Ok(exe)
}

/// Runs the compiler command `cc` (flags and sources given) with `-o exe`;
/// on failure, the error holds the compiler's output.
pub fn compile(mut cc: Command, exe: &Path) -> Result<(), String> {
    let out = cc
        .arg("-o")
        .arg(exe)
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", cc.get_program()))?;
    if !out.status.success() {
        return Err(format!(
            "compilation failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// The files of rshmem jobs in /dev/shm: none should outlive its job.
pub fn shm_leftovers() -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains("rshmem"))
                .collect()
        })
        .unwrap_or_default()
}

/// How a job is started when not by the build's own `oshrun`: by an MPI
/// launcher, say (tests/mpi_suite.rs).
pub struct Launch<'a> {
    /// The command that runs the program `exe` at `np` PEs and ends the job
    /// after `timeout` seconds; the program's arguments and environment are
    /// added to it.
    pub command: &'a dyn Fn(&Path, usize, u32) -> Command,
    /// How the command passes the variable `name=value` to every PE (`None`:
    /// set it in the command's own environment).
    pub env_args: Option<fn(&str, &str) -> Vec<String>>,
    /// Standard-error lines that the launcher may print even when the job
    /// succeeds; dropped before the checks when the exit status is 0.
    pub noise: fn(&str) -> bool,
}

/// Runs the program once (compiling it on first use); `long`: with the
/// arguments of `ignored-args` and its timeout.
pub fn run(
    p: &Program,
    tools: &Tools,
    np: usize,
    variant: Option<&(String, String)>,
    long: bool,
) -> Result<(), Failed> {
    let exe = p.binary.get_or_init(|| build(p, tools)).clone()?;
    let (_, timeout) = args_timeout(p, long);
    let mut cmd = if p.spec.direct {
        assert_eq!(np, 1, "{}: a program run without oshrun is a 1-PE job", p.name);
        Command::new(&exe)
    } else {
        let mut c = Command::new(&tools.oshrun);
        c.args(["-np", &np.to_string(), "--timeout", &timeout.to_string()])
            .args(&p.spec.oshrun)
            .arg(&exe);
        c
    };
    for (k, v) in p.spec.env.iter().chain(variant) {
        cmd.env(k, v);
    }
    run_command(p, cmd, np, long, |_| false)
}

/// Runs the program once with `launch` instead of `oshrun`, with the
/// variables `extra` set besides those of its directives.
pub fn run_launched(
    p: &Program,
    tools: &Tools,
    np: usize,
    variant: Option<&(String, String)>,
    extra: &[(String, String)],
    launch: &Launch,
) -> Result<(), Failed> {
    assert!(
        !p.spec.direct && p.spec.oshrun.is_empty(),
        "{}: its directives ask for oshrun or no launcher",
        p.name
    );
    let exe = p.binary.get_or_init(|| build(p, tools)).clone()?;
    let (_, timeout) = args_timeout(p, false);
    let mut cmd = (launch.command)(&exe, np, timeout);
    for (k, v) in p.spec.env.iter().chain(variant).chain(extra) {
        match launch.env_args {
            Some(f) => {
                cmd.args(f(k, v));
            }
            None => {
                cmd.env(k, v);
            }
        }
    }
    cmd.arg(&exe);
    run_command(p, cmd, np, false, launch.noise)
}

/// The program's arguments and timeout: with `long`, those of `ignored-args`.
fn args_timeout(p: &Program, long: bool) -> (&[String], u32) {
    match (&p.spec.ignored_args, long) {
        (Some(a), true) => (a, p.spec.ignored_timeout.unwrap_or(p.spec.timeout * 10)),
        _ => (&p.spec.args, p.spec.timeout),
    }
}

/// A test's limit must hold with a margin of 3x its time on a loaded 2-core
/// machine: a run that takes more than a third of its limit says so on
/// standard error (shown with `--nocapture`, and in CI's log when the test
/// fails), so that a limit drifting towards failure is seen before it fails.
fn note_if_slow(p: &Program, np: usize, took: std::time::Duration, limit: u32) {
    if took.as_secs_f64() * 3.0 > f64::from(limit) {
        eprintln!(
            "note: {} at {np} PEs took {:.1} s, more than a third of its {limit} s limit",
            p.name,
            took.as_secs_f64()
        );
    }
}

/// Adds the program's arguments to `cmd` (which starts the job), runs it and
/// checks the outcome against the directives.
fn run_command(p: &Program, mut cmd: Command, np: usize, long: bool, noise: fn(&str) -> bool) -> Result<(), Failed> {
    let subst = |s: &str| s.replace("{np}", &np.to_string());
    let (args, limit) = args_timeout(p, long);
    cmd.args(args.iter().map(|a| subst(a)));
    // cargo test puts target/<profile> on LD_LIBRARY_PATH, which beats the rpath
    // oshcc sets and may hold a stale librshmem.so from an earlier `cargo build`:
    // run the programs as a user would.
    cmd.env_remove("LD_LIBRARY_PATH");
    let started = std::time::Instant::now();
    let out = cmd.output().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    note_if_slow(p, np, started.elapsed(), limit);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let code = out.status.code().unwrap_or(-1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stderr = if code == 0 {
        stderr
            .lines()
            .filter(|l| !noise(l))
            .fold(String::new(), |s, l| s + l + "\n")
    } else {
        stderr.into_owned()
    };
    let mut problems = Vec::new();
    match p.spec.exit {
        Some(want) if code != want => problems.push(format!("exit status {code}, expected {want}")),
        None if code == 0 => problems.push("exit status 0, expected non-zero".into()),
        _ => {}
    }
    for want in &p.spec.stdout {
        if !stdout.contains(&subst(want)) {
            problems.push(format!("stdout lacks {:?}", subst(want)));
        }
    }
    for unwanted in &p.spec.stdout_not {
        if stdout.contains(&subst(unwanted)) {
            problems.push(format!("stdout has {:?}", subst(unwanted)));
        }
    }
    for want in &p.spec.stderr {
        if !stderr.contains(&subst(want)) {
            problems.push(format!("stderr lacks {:?}", subst(want)));
        }
    }
    let left = shm_leftovers();
    if !left.is_empty() {
        problems.push(format!("files left in /dev/shm: {left:?}"));
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{}\n--- command: {cmd:?}\n--- stdout:\n{}\n--- stderr:\n{}",
        problems.join("\n"),
        clip(&stdout),
        clip(&stderr)
    )
    .into())
}

/// Every program under `c_tests/`, in group then name order.
pub fn discover() -> Vec<Arc<Program>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("c_tests");
    let mut programs = Vec::new();
    for group in ["unit", "errors", "apps"] {
        let Ok(dir) = std::fs::read_dir(root.join(group)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = dir
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "c" || e == "cpp"))
            .collect();
        files.sort();
        for source in files {
            let text = std::fs::read_to_string(&source).expect("read test source");
            let spec = parse_spec(&source, &text);
            let stem = source.file_stem().unwrap().to_string_lossy().into_owned();
            programs.push(Arc::new(Program {
                name: format!("{group}/{stem}"),
                source,
                spec,
                binary: OnceLock::new(),
            }));
        }
    }
    programs
}

/// `s`, cut after its first 4000 bytes for a failure message.
pub fn clip(s: &str) -> String {
    if s.len() > 4000 {
        let mut end = 4000;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}\n... ({} bytes more)", &s[..end], s.len() - end)
    } else {
        s.to_string()
    }
}
