//! The halo benchmark's tools (issue 21), without timing anything that matters:
//!
//! - `benches/halo.py --self-test`: its parsers of the halo program's and
//!   notify_cost's lines and its tables and targets, on embedded samples;
//! - `benches/report.py`, rewriting `docs/performance.md`, keeps the sections
//!   that come from runs of their own (`## Across nodes`, `## NAS FT`,
//!   `## Halo exchange`), in that order, before `## Machine floor`;
//! - `benches/c/notify_cost.c` compiles warning-free (`-Wpedantic -Werror`)
//!   and, with a tiny budget, prints a positive `ns` for every case (thread
//!   cases at 1 PE, PE cases at 2): a ping-pong that loses a notification
//!   would hang (oshrun's timeout ends it), one that skips the API would print
//!   an `NA` line. Only the cross-core cases may be `NA`, and only when this
//!   process has fewer than 2 CPUs.
//!
//! Also `benches/ft.py --self-test` (NAS FT's benchmark, issue 20), which no
//! other test ran.
//!
//! The Python ones need `python3`; without it they pass with a note (the
//! scripts are Python 3 tools, not part of the library).

mod common;

use std::path::Path;
use std::process::Command;

/// notify_cost's cases at 1 PE (two threads) and at 2 PEs.
const THREAD_CASES: [&str; 6] = [
    "atomic_cross_core",
    "atomic_same_core",
    "api_cross_core",
    "api_same_core",
    "api_wait_cross_core",
    "api_wait_same_core",
];
const PE_CASES: [&str; 2] = ["put_cross_core", "put_same_core"];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `python3 args...` in the repository: (exit status, stdout + stderr), or
/// None when there is no python3.
fn python(args: &[&str]) -> Option<(i32, String)> {
    let out = match Command::new("python3").args(args).current_dir(repo()).output() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("note: python3 cannot run ({e}); test skipped");
            return None;
        }
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some((out.status.code().unwrap_or(-1), text))
}

#[test]
fn halo_py_self_test() {
    let Some((code, text)) = python(&["benches/halo.py", "--self-test"]) else {
        return;
    };
    assert_eq!(code, 0, "halo.py --self-test failed:\n{text}");
    assert!(text.contains("halo.py self-test: ok"), "{text}");
}

#[test]
fn ft_py_self_test() {
    let Some((code, text)) = python(&["benches/ft.py", "--self-test"]) else {
        return;
    };
    assert_eq!(code, 0, "ft.py --self-test failed:\n{text}");
    assert!(text.contains("ft.py self-test: ok"), "{text}");
}

#[test]
fn report_keeps_sections_of_their_own() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("halo_bench");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("performance.md");
    let old = "# Old report\n\n## Latency\n\nold latency\n\n\
               ## Across nodes\n\nacross text\n\n\
               ## NAS FT\n\nft text\n\n\
               ## Halo exchange\n\nhalo table\n\n### Reading the halo tables\n\nhalo words\n\n\
               ## Machine floor\n\nold floor\n";
    std::fs::write(&out, old).unwrap();
    let out_arg = out.to_str().unwrap();
    let Some((code, text)) = python(&["benches/report.py", "docs/performance.csv", "--out", out_arg]) else {
        return;
    };
    assert_eq!(code, 0, "report.py failed:\n{text}");
    let new = std::fs::read_to_string(&out).unwrap();
    assert!(
        !new.contains("old latency"),
        "the one-node part was not rewritten:\n{new}"
    );
    let at = |s: &str| {
        assert_eq!(
            new.matches(s).count(),
            1,
            "`{s}` is not in the new report exactly once:\n{new}"
        );
        new.find(s).unwrap()
    };
    let order = [
        at("## Across nodes\n\nacross text"),
        at("## NAS FT\n\nft text"),
        at("## Halo exchange\n\nhalo table\n\n### Reading the halo tables\n\nhalo words"),
        at("## Machine floor"),
    ];
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "sections out of order: {order:?}\n{new}"
    );
}

#[test]
fn notify_cost_prints_every_case() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("halo_bench");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("notify_cost");
    let out = Command::new(env!("CARGO_BIN_EXE_oshcc"))
        .args(["-O2", "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"])
        .arg(repo().join("benches/c/notify_cost.c"))
        .arg("-o")
        .arg(&exe)
        .arg("-lpthread")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "notify_cost.c does not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let two_cpus = common::own_cpus().len() >= 2;
    for (np, cases) in [("1", &THREAD_CASES[..]), ("2", &PE_CASES[..])] {
        // The program pins its threads itself; 0.01 s per case.
        let exe = exe.to_str().unwrap();
        let run = common::oshrun(&["--bind-to", "none", "--timeout", "50", "-np", np, exe, "0.01"]);
        assert_eq!(
            run.code,
            Some(0),
            "notify_cost at {np} PEs:\n{}{}",
            run.stdout,
            run.stderr
        );
        for case in cases {
            let tag = format!("case={case} ");
            let lines: Vec<&str> = run.stdout.lines().filter(|l| l.contains(&tag)).collect();
            assert_eq!(lines.len(), 1, "{np} PEs: not one line for {case}:\n{}", run.stdout);
            let fields: Vec<&str> = lines[0].split_whitespace().collect();
            if fields[0] == "NA" && case.ends_with("_cross_core") && !two_cpus {
                continue;
            }
            let ns = fields
                .iter()
                .find_map(|f| f.strip_prefix("ns="))
                .and_then(|v| v.parse::<f64>().ok());
            assert!(
                fields[0] == "RESULT" && ns.is_some_and(|ns| ns > 0.0),
                "{np} PEs: {case}: {}",
                lines[0]
            );
        }
    }
}
