//! Runs every C program under `c_tests/` with `oshrun`, once per PE count its
//! directives ask for (see docs/test-directives.md), and checks its exit status
//! and output. Programs are compiled once, with `oshcc`/`oshcxx` and strict
//! warnings, into cargo's per-target temporary directory.

mod common;

use common::c_programs::{Tools, discover, run};
use libtest_mimic::{Arguments, Trial};
use std::path::Path;
use std::sync::Arc;

fn main() {
    let args = Arguments::from_args();
    let programs = discover();
    let tools = Arc::new(Tools {
        oshcc: env!("CARGO_BIN_EXE_oshcc").into(),
        oshcxx: env!("CARGO_BIN_EXE_oshcxx").into(),
        oshrun: env!("CARGO_BIN_EXE_oshrun").into(),
        out_dir: Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_tests"),
    });
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
                    let (p, tools, variant) = (p.clone(), tools.clone(), variant.clone());
                    let long = Trial::test(format!("{name}::long"), move || {
                        run(&p, &tools, np, variant.as_ref(), true)
                    });
                    trials.push(long.with_ignored_flag(true));
                }
                let (p, tools) = (p.clone(), tools.clone());
                trials.push(Trial::test(name, move || run(&p, &tools, np, variant.as_ref(), false)));
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
