//! The halo benchmark's tools (issue 21), without timing anything that matters:
//!
//! - `benches/halo.py --self-test`: its parsers of the halo program's and
//!   notify_cost's lines and its tables and targets, on embedded samples;
//! - `benches/report.py`, rewriting `docs/performance.md`, keeps the sections
//!   that come from runs of their own (`## Across nodes`, `## NAS FT`,
//!   `## Halo exchange`), in that order, before `## Machine floor`.
//!
//! Both need `python3`; without it they pass with a note (the scripts are
//! Python 3 tools, not part of the library).

use std::path::Path;
use std::process::Command;

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
