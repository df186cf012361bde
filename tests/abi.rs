//! The header and the shared library agree: every routine declared in
//! `include/shmem.h` / `shmemx.h` is exported by `librshmem.so`, and every
//! exported `shmem_`/`shmemx_` symbol (and deprecated name) is declared. The
//! headers also compile as C11, C99 and C++ with strict warnings.

use object::{Object, ObjectSymbol};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const DEPRECATED_NAMES: &[&str] = &[
    "start_pes",
    "_my_pe",
    "_num_pes",
    "shmalloc",
    "shfree",
    "shrealloc",
    "shmemalign",
];

fn is_api_name(n: &str) -> bool {
    n.starts_with("shmem_") || n.starts_with("shmemx_") || DEPRECATED_NAMES.contains(&n)
}

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("include")
}

/// The cdylib next to this test binary (target/<profile>/deps or its parent).
fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    [deps.join("librshmem.so"), deps.parent().unwrap().join("librshmem.so")]
        .into_iter()
        .find(|p| p.is_file())
        .expect("librshmem.so is built with the tests")
}

fn exported() -> BTreeSet<String> {
    let data = std::fs::read(library()).unwrap();
    let file = object::File::parse(&*data).unwrap();
    file.dynamic_symbols()
        .filter(|s| !s.is_undefined() && s.is_global())
        .filter_map(|s| s.name().ok().map(str::to_string))
        .filter(|n| is_api_name(n))
        .collect()
}

/// Names of the functions declared by `header`, read from the C preprocessor's
/// output: in each declaration the declarator is the identifier before the last
/// parenthesised parameter list.
fn declared(header: &str, std: &str) -> BTreeSet<String> {
    let out = Command::new("cc")
        .args(["-E", "-P", &format!("-std={std}"), "-I"])
        .arg(include_dir())
        .arg(include_dir().join(header))
        .output()
        .expect("run the C preprocessor");
    assert!(
        out.status.success(),
        "cc -E failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut names = BTreeSet::new();
    for decl in text.split(';') {
        let d = decl.trim_end();
        if !d.ends_with(')') {
            continue;
        }
        // Find the '(' matching the final ')'.
        let bytes = d.as_bytes();
        let mut depth = 0;
        let mut open = None;
        for i in (0..bytes.len()).rev() {
            match bytes[i] {
                b')' => depth += 1,
                b'(' => {
                    depth -= 1;
                    if depth == 0 {
                        open = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let before = d[..open].trim_end();
        let ident: String = before
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if is_api_name(&ident) {
            names.insert(ident);
        }
    }
    names
}

#[test]
fn every_declared_routine_is_exported_and_every_export_declared() {
    let exported = exported();
    let mut declared = declared("shmem.h", "c99");
    declared.extend(declared_shmemx());
    let missing: Vec<_> = declared.difference(&exported).collect();
    let undeclared: Vec<_> = exported.difference(&declared).collect();
    assert!(
        missing.is_empty(),
        "declared in the headers but not exported by librshmem.so: {missing:?}"
    );
    assert!(
        undeclared.is_empty(),
        "exported by librshmem.so but not declared in the headers: {undeclared:?}"
    );
    // The typed RMA families alone are 452 symbols in OpenSHMEM 1.5: a parse
    // that finds fewer is broken, not a pass.
    assert!(exported.len() >= 452, "only {} symbols found", exported.len());
    println!("{} routines declared and exported", exported.len());
}

fn declared_shmemx() -> BTreeSet<String> {
    declared("shmemx.h", "c99")
}

/// The C11 view hides nothing that C99 declares except names that become
/// generic macros, and declares no routine C99 lacks.
#[test]
fn c11_declarations_are_a_subset_of_c99() {
    let c99 = declared("shmem.h", "c99");
    let c11 = declared("shmem.h", "c11");
    assert!(
        c11.is_subset(&c99),
        "C11-only declarations: {:?}",
        c11.difference(&c99).collect::<Vec<_>>()
    );
}

fn compiles(compiler: &str, args: &[&str], source: &str, ext: &str) {
    static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("rshmem-abi-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!("t.{ext}"));
    std::fs::write(&src, source).unwrap();
    let out = Command::new(compiler)
        .args(args)
        .args(["-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fsyntax-only", "-I"])
        .arg(include_dir())
        .arg(&src)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{compiler} {args:?} rejects the header:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const USE_HEADER: &str = "#include <shmem.h>\n#include <shmemx.h>\nint main(void) { long x = 0; shmem_long_p(&x, 1, 0); return (int) shmem_long_g(&x, 0); }\n";

#[test]
fn header_compiles_as_c11_c99_and_cxx() {
    compiles("cc", &["-std=c11"], USE_HEADER, "c");
    compiles("cc", &["-std=c99"], USE_HEADER, "c");
    compiles("cc", &["-std=gnu17"], USE_HEADER, "c");
    compiles("c++", &["-std=c++11"], USE_HEADER, "cpp");
    compiles("c++", &["-std=c++17"], USE_HEADER, "cpp");
}

#[test]
fn c11_generics_select_every_type_with_and_without_a_context() {
    let mut s = String::from("#include <shmem.h>\nint main(void) {\n");
    for t in [
        "float",
        "double",
        "long double",
        "char",
        "signed char",
        "short",
        "int",
        "long",
        "long long",
        "unsigned char",
        "unsigned short",
        "unsigned int",
        "unsigned long",
        "unsigned long long",
    ] {
        let v = t.replace(' ', "_");
        s.push_str(&format!(
            "  {{ static {t} a_{v}[4]; {t} b[4] = {{0}}; shmem_put(a_{v}, b, 4, 0); shmem_put(SHMEM_CTX_DEFAULT, a_{v}, b, 4, 0); shmem_get(b, a_{v}, 4, 0); \
             shmem_p(a_{v}, b[0], 0); shmem_p(SHMEM_CTX_DEFAULT, a_{v}, b[0], 0); b[1] = shmem_g(a_{v}, 0); b[2] = shmem_g(SHMEM_CTX_DEFAULT, a_{v}, 0); \
             shmem_iput(a_{v}, b, 1, 1, 2, 0); shmem_iget(b, a_{v}, 1, 1, 2, 0); shmem_put_nbi(a_{v}, b, 4, 0); shmem_get_nbi(SHMEM_CTX_DEFAULT, b, a_{v}, 4, 0); }}\n"
        ));
    }
    for t in [
        "int",
        "long",
        "long long",
        "unsigned int",
        "unsigned long",
        "unsigned long long",
    ] {
        let v = t.replace(' ', "_");
        s.push_str(&format!("  {{ static {t} w_{v}; shmem_wait_until(&w_{v}, SHMEM_CMP_EQ, 0); (void) shmem_test(&w_{v}, SHMEM_CMP_NE, 1); }}\n"));
    }
    s.push_str("  return 0;\n}\n");
    compiles("cc", &["-std=c11"], &s, "c");
}
