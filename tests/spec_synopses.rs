//! `include/shmem.h` compiles every synopsis of the OpenSHMEM 1.6
//! specification. `tests/spec/synopses-1.6.c`, generated from the
//! specification's TeX by `scripts/spec-synopses.py` and committed (CI has no
//! copy of the specification), takes the address of each C/C++ routine as a
//! pointer of exactly the synopsis's type (a missing or different declaration
//! is an error), declares it again (conflicting types are an error) and calls
//! it, and calls each C11 generic for every TYPE the specification lists, each
//! call with arguments of exactly the synopsis's parameter types and a result
//! of exactly its return type. It is compiled as C11 and C17 (generics), C99
//! (the deprecated names the C11 generics take over) and C++11 and C++17 (the
//! overloads), with strict warnings as errors, and to an object file so that
//! `-Wreturn-type` checks `_Noreturn`. The same file checks the profiling
//! interface: every `shmem_` routine of a C/C++ synopsis as `pshmem_`,
//! declared by `pshmem.h`.

use std::path::{Path, PathBuf};
use std::process::Command;

const SYNOPSES: &str = "tests/spec/synopses-1.6.c";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn compile(compiler: &str, args: &[&str]) {
    static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir: PathBuf = std::env::temp_dir().join(format!("rshmem-synopses-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(compiler)
        .args(args)
        .args(["-Wall", "-Wextra", "-Werror", "-c", "-o"])
        .arg(dir.join("synopses.o"))
        .arg("-I")
        .arg(root().join("include"))
        .arg(root().join(SYNOPSES))
        .output()
        .unwrap_or_else(|e| panic!("run {compiler}: {e}"));
    let _ = std::fs::remove_dir_all(&dir);
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let errors = stderr.lines().filter(|l| l.contains("error")).count();
        let shown: Vec<&str> = stderr.lines().take(200).collect();
        panic!(
            "{compiler} {} {SYNOPSES}: shmem.h disagrees with the OpenSHMEM 1.6 synopses \
             ({errors} error lines; the file's comments name each synopsis's TeX file and line):\n{}",
            args.join(" "),
            shown.join("\n")
        );
    }
}

#[test]
fn synopses_compile_as_c11_and_c17() {
    compile("cc", &["-std=c11", "-Wpedantic"]);
    compile("cc", &["-std=c17", "-Wpedantic"]);
}

#[test]
fn synopses_compile_as_c99() {
    compile("cc", &["-std=c99", "-Wpedantic"]);
}

#[test]
fn synopses_compile_as_cxx11_and_cxx17() {
    compile("c++", &["-x", "c++", "-std=c++11"]);
    compile("c++", &["-x", "c++", "-std=c++17"]);
}

/// The counts in the file's header comment are what its body holds, and at
/// least what the 1.6 document has: a regeneration that lost synopses fails.
#[test]
fn synopses_file_is_whole() {
    let text = std::fs::read_to_string(root().join(SYNOPSES)).unwrap();
    let number_before = |word: &str| -> usize {
        let at = text
            .find(word)
            .unwrap_or_else(|| panic!("no {word:?} in the header comment"));
        let head = text[..at].trim_end();
        let digits: String = head
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        digits.parse().unwrap()
    };
    let protos = number_before(" prototypes, ") + number_before(" more from TYPE");
    let calls = number_before(" calls, one per TYPE");
    let profiled = number_before(" shmem_ routines as pshmem_");
    let pointers = text.matches("(*syn_p)(").count();
    let redeclared = text
        .lines()
        .filter(|l| !l.starts_with(' ') && l.contains(")(") && l.ends_with(");"))
        .count();
    let made = text
        .lines()
        .filter(|l| l.trim_start().starts_with("{ ") && (l.contains("SYN_RET(") || l.contains("SYN_VOID(")))
        .count();
    assert_eq!(
        pointers,
        protos + profiled,
        "typed pointers in the file vs its header comment"
    );
    assert_eq!(
        redeclared,
        protos + profiled,
        "redeclarations in the file vs its header comment"
    );
    // The C11 calls, and a call of every C/C++ prototype.
    assert_eq!(made, calls + protos, "checked calls in the file vs its header comment");
    assert!(protos >= 1782, "only {protos} C prototypes: OpenSHMEM 1.6 has 1782");
    assert!(calls >= 1554, "only {calls} C11 calls: OpenSHMEM 1.6 has 1554");
    assert!(
        profiled >= 1781,
        "only {profiled} pshmem_ prototypes: OpenSHMEM 1.6 has 1781"
    );
}

/// With `RSHMEM_SPEC_REPO` naming a clone of the specification (bare or not),
/// the committed file is what the script makes from its v1.6 tag now.
#[test]
fn synopses_file_is_fresh() {
    let Some(repo) = std::env::var_os("RSHMEM_SPEC_REPO").filter(|s| !s.is_empty()) else {
        println!("RSHMEM_SPEC_REPO not set: freshness not checked");
        return;
    };
    let out = Command::new("python3")
        .arg(root().join("scripts/spec-synopses.py"))
        .arg(&repo)
        .args(["--tag", "v1.6"])
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "scripts/spec-synopses.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let committed = std::fs::read_to_string(root().join(SYNOPSES)).unwrap();
    assert!(
        committed == String::from_utf8_lossy(&out.stdout),
        "{SYNOPSES} is stale: python3 scripts/spec-synopses.py SPEC --tag v1.6 -o {SYNOPSES}"
    );
}
