//! Runs every C program under `c_tests/` with `oshrun`, once per PE count its
//! directives ask for (see docs/test-directives.md), and checks its exit status
//! and output. Programs are compiled once, with `oshcc`/`oshcxx` and strict
//! warnings, into cargo's per-target temporary directory.

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

const OSHCC: &str = env!("CARGO_BIN_EXE_oshcc");
const OSHCXX: &str = env!("CARGO_BIN_EXE_oshcxx");
const OSHRUN: &str = env!("CARGO_BIN_EXE_oshrun");

#[derive(Debug, Clone)]
struct Spec {
    np: Vec<usize>,
    exit: Option<i32>, // None: any non-zero
    stdout: Vec<String>,
    stdout_not: Vec<String>,
    stderr: Vec<String>,
    env: Vec<(String, String)>,
    /// Extra runs, each with one more variable set: (name, value).
    variants: Vec<(String, String)>,
    args: Vec<String>,
    timeout: u32,
    /// Arguments of one more run per np and variant, ignored unless asked for
    /// (`cargo test -- --ignored`), and its timeout (default 10x `timeout`).
    ignored_args: Option<Vec<String>>,
    ignored_timeout: Option<u32>,
    cflags: Vec<String>,
    oshrun: Vec<String>,
    /// Run the program itself, without oshrun (a 1-PE job).
    direct: bool,
    /// Link librshmem.a instead of the shared library.
    static_link: bool,
}

fn parse_spec(path: &Path, text: &str) -> Spec {
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
                for v in vs.split_whitespace() {
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

struct Program {
    name: String,
    source: PathBuf,
    spec: Spec,
    binary: OnceLock<Result<PathBuf, String>>,
}

fn build(p: &Program) -> Result<PathBuf, String> {
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_tests");
    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    let exe = out_dir.join(p.name.replace('/', "__"));
    let cxx = p.source.extension().is_some_and(|e| e == "cpp");
    let mut cc = Command::new(if cxx { OSHCXX } else { OSHCC });
    if p.spec.static_link {
        cc.env("RSHMEM_STATIC", "1");
    }
    let out = cc
        .args(["-O1", "-g", "-Wall", "-Wextra", "-Wpedantic", "-Werror"])
        .args(&p.spec.cflags)
        .arg(&p.source)
        .arg("-o")
        .arg(&exe)
        .output()
        .map_err(|e| format!("cannot run oshcc: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "compilation failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(exe)
}

fn shm_leftovers() -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains("rshmem"))
                .collect()
        })
        .unwrap_or_default()
}

/// Runs the program once; `long`: with the arguments of `ignored-args` and its timeout.
fn run(p: &Program, np: usize, variant: Option<&(String, String)>, long: bool) -> Result<(), Failed> {
    let exe = p.binary.get_or_init(|| build(p)).clone()?;
    let subst = |s: &str| s.replace("{np}", &np.to_string());
    let (args, timeout) = match (&p.spec.ignored_args, long) {
        (Some(a), true) => (a, p.spec.ignored_timeout.unwrap_or(p.spec.timeout * 10)),
        _ => (&p.spec.args, p.spec.timeout),
    };
    let mut cmd = if p.spec.direct {
        assert_eq!(np, 1, "{}: a program run without oshrun is a 1-PE job", p.name);
        Command::new(&exe)
    } else {
        let mut c = Command::new(OSHRUN);
        c.args(["-np", &np.to_string(), "--timeout", &timeout.to_string()])
            .args(&p.spec.oshrun)
            .arg(&exe);
        c
    };
    cmd.args(args.iter().map(|a| subst(a)));
    // cargo test puts target/<profile> on LD_LIBRARY_PATH, which beats the rpath
    // oshcc sets and may hold a stale librshmem.so from an earlier `cargo build`:
    // run the programs as a user would.
    cmd.env_remove("LD_LIBRARY_PATH");
    for (k, v) in p.spec.env.iter().chain(variant) {
        cmd.env(k, v);
    }
    let out = cmd.output().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code().unwrap_or(-1);
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
    let clip = |s: &str| {
        if s.len() > 4000 {
            format!("{}\n... ({} bytes more)", &s[..4000], s.len() - 4000)
        } else {
            s.to_string()
        }
    };
    Err(format!(
        "{}\n--- command: {cmd:?}\n--- stdout:\n{}\n--- stderr:\n{}",
        problems.join("\n"),
        clip(&stdout),
        clip(&stderr)
    )
    .into())
}

fn discover() -> Vec<Arc<Program>> {
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

fn main() {
    let args = Arguments::from_args();
    let programs = discover();
    assert!(!programs.is_empty(), "no C test programs found under c_tests/");
    let mut trials = Vec::new();
    for p in &programs {
        for &np in &p.spec.np {
            let p = p.clone();
            for v in std::iter::once(None).chain(p.spec.variants.iter().map(Some)) {
                let name = match v {
                    None => format!("{} np={np}", p.name),
                    Some((k, v)) => format!("{} np={np} {k}={v}", p.name),
                };
                let variant = v.cloned();
                if p.spec.ignored_args.is_some() {
                    let (p, variant) = (p.clone(), variant.clone());
                    let long = Trial::test(format!("{name}::long"), move || run(&p, np, variant.as_ref(), true));
                    trials.push(long.with_ignored_flag(true));
                }
                let p = p.clone();
                trials.push(Trial::test(name, move || run(&p, np, variant.as_ref(), false)));
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
