//! The header and the shared library agree: every routine declared in
//! `include/shmem.h` / `shmemx.h` / `pshmem.h` / `pshmemx.h` is exported by
//! `librshmem.so`, and every exported `shmem_`/`shmemx_` symbol (and
//! deprecated name) is declared. The headers also compile as C11, C99 and C++
//! with strict warnings, and C++ has an overload set for every C11 generic.

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
    let n = n.strip_prefix('p').filter(|r| r.starts_with("shmem")).unwrap_or(n);
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
    let profiling = declared("pshmem.h", "c99");
    let profiling_x = declared("pshmemx.h", "c99");
    let mut declared = declared("shmem.h", "c99");
    declared.extend(declared_shmemx());
    declared.extend(profiling);
    declared.extend(profiling_x);
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
    assert!(exported.len() >= 2 * 452, "only {} symbols found", exported.len());
    println!("{} routines declared and exported", exported.len());
}

/// Every `shmem_` routine has its `pshmem_` profiling twin, and no twin lacks
/// its routine.
#[test]
fn every_routine_has_a_profiling_twin() {
    let exported = exported();
    let routine = |n: &str| n.starts_with("shmem_") || n.starts_with("shmemx_");
    let plain: BTreeSet<&str> = exported.iter().map(String::as_str).filter(|n| routine(n)).collect();
    let twins: BTreeSet<&str> = exported
        .iter()
        .filter_map(|n| n.strip_prefix('p').filter(|r| routine(r)))
        .collect();
    let missing: Vec<_> = plain.difference(&twins).collect();
    let orphans: Vec<_> = twins.difference(&plain).collect();
    assert!(missing.is_empty(), "routines without a pshmem_ twin: {missing:?}");
    assert!(orphans.is_empty(), "pshmem_ names without a routine: {orphans:?}");
    println!("{} routines, each with its pshmem_ twin", plain.len());
}

// The OpenSHMEM 1.5 inventory, enumerated from the specification's tables
// (reference: docs of the API inventory, section 1), independently of
// src/ffi/table.rs, so that a type or routine the table lacks is caught.
const RMA: &[&str] = &[
    "float",
    "double",
    "longdouble",
    "char",
    "schar",
    "short",
    "int",
    "long",
    "longlong",
    "uchar",
    "ushort",
    "uint",
    "ulong",
    "ulonglong",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "size",
    "ptrdiff",
];
const STD: &[&str] = &[
    "int",
    "long",
    "longlong",
    "uint",
    "ulong",
    "ulonglong",
    "int32",
    "int64",
    "uint32",
    "uint64",
    "size",
    "ptrdiff",
];
const EXT: &[&str] = &[
    "float",
    "double",
    "int",
    "long",
    "longlong",
    "uint",
    "ulong",
    "ulonglong",
    "int32",
    "int64",
    "uint32",
    "uint64",
    "size",
    "ptrdiff",
];
const BIT: &[&str] = &["uint", "ulong", "ulonglong", "int32", "int64", "uint32", "uint64"];
const BITS: &[u32] = &[8, 16, 32, 64, 128];

fn with_ctx(out: &mut Vec<String>, name: String) {
    out.push(name.replacen("shmem_", "shmem_ctx_", 1));
    out.push(name);
}

/// (section, names) of the point-to-point part of OpenSHMEM 1.5 plus the 1.6
/// point-to-point additions.
fn inventory() -> Vec<(&'static str, Vec<String>)> {
    let mut rma = Vec::new();
    for op in ["put", "get", "put_nbi", "get_nbi", "p", "g", "iput", "iget"] {
        for t in RMA {
            with_ctx(&mut rma, format!("shmem_{t}_{op}"));
        }
    }
    for op in ["put{}", "get{}", "put{}_nbi", "get{}_nbi", "iput{}", "iget{}"] {
        for n in BITS {
            with_ctx(&mut rma, format!("shmem_{}", op.replace("{}", &n.to_string())));
        }
    }
    for m in ["putmem", "getmem", "putmem_nbi", "getmem_nbi"] {
        with_ctx(&mut rma, format!("shmem_{m}"));
    }
    let mut amo = Vec::new();
    let families: [(&[&str], &[&str]); 3] = [
        (
            STD,
            &[
                "compare_swap",
                "fetch_inc",
                "inc",
                "fetch_add",
                "add",
                "compare_swap_nbi",
                "fetch_inc_nbi",
                "fetch_add_nbi",
            ],
        ),
        (EXT, &["fetch", "set", "swap", "fetch_nbi", "swap_nbi"]),
        (
            BIT,
            &[
                "fetch_and",
                "and",
                "fetch_or",
                "or",
                "fetch_xor",
                "xor",
                "fetch_and_nbi",
                "fetch_or_nbi",
                "fetch_xor_nbi",
            ],
        ),
    ];
    for (types, ops) in families {
        for op in ops {
            for t in types {
                with_ctx(&mut amo, format!("shmem_{t}_atomic_{op}"));
            }
        }
    }
    for t in ["float", "double", "int", "long", "longlong"] {
        for op in ["fetch", "set", "swap"] {
            amo.push(format!("shmem_{t}_{op}"));
        }
    }
    for t in ["int", "long", "longlong"] {
        for op in ["cswap", "finc", "inc", "fadd", "add"] {
            amo.push(format!("shmem_{t}_{op}"));
        }
    }
    let mut signal = vec!["shmem_signal_fetch".to_string(), "shmem_signal_wait_until".to_string()];
    for op in ["put_signal", "put_signal_nbi"] {
        for t in RMA {
            with_ctx(&mut signal, format!("shmem_{t}_{op}"));
        }
        for n in BITS {
            with_ctx(&mut signal, format!("shmem_put{n}_{}", op.trim_start_matches("put_")));
        }
        with_ctx(&mut signal, format!("shmem_putmem_{}", op.trim_start_matches("put_")));
    }
    let mut p2p = Vec::new();
    for op in [
        "wait_until",
        "test",
        "wait_until_all",
        "wait_until_any",
        "wait_until_some",
        "wait_until_all_vector",
        "wait_until_any_vector",
        "wait_until_some_vector",
        "test_all",
        "test_any",
        "test_some",
        "test_all_vector",
        "test_any_vector",
        "test_some_vector",
    ] {
        // short and ushort: the 1.4 point-to-point types, which Sandia
        // OpenSHMEM and Open MPI still declare for every form.
        for t in STD.iter().chain(&["short", "ushort"]) {
            p2p.push(format!("shmem_{t}_{op}"));
        }
    }
    for t in ["short", "int", "long", "longlong"] {
        p2p.push(format!("shmem_{t}_wait"));
    }
    p2p.extend(["shmem_wait".to_string(), "shmem_wait_until".to_string()]);
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let rest = names(&[
        "shmem_init",
        "shmem_my_pe",
        "shmem_n_pes",
        "shmem_finalize",
        "shmem_global_exit",
        "shmem_pe_accessible",
        "shmem_addr_accessible",
        "shmem_ptr",
        "shmem_info_get_version",
        "shmem_info_get_name",
        "start_pes",
        "_my_pe",
        "_num_pes",
        "shmem_init_thread",
        "shmem_query_thread",
        "shmem_malloc",
        "shmem_free",
        "shmem_realloc",
        "shmem_align",
        "shmem_malloc_with_hints",
        "shmem_calloc",
        "shmalloc",
        "shfree",
        "shrealloc",
        "shmemalign",
        "shmem_ctx_create",
        "shmem_ctx_destroy",
        "shmem_ctx_get_team",
        "shmem_fence",
        "shmem_ctx_fence",
        "shmem_quiet",
        "shmem_ctx_quiet",
        "shmem_set_lock",
        "shmem_clear_lock",
        "shmem_test_lock",
        "shmem_pcontrol",
        "shmem_barrier_all",
        "shmem_sync_all",
    ]);
    let mut v16 = Vec::new();
    for op in ["ibput", "ibget"] {
        for t in RMA {
            with_ctx(&mut v16, format!("shmem_{t}_{op}"));
        }
        for n in BITS {
            with_ctx(&mut v16, format!("shmem_{op}{n}"));
        }
    }
    with_ctx(&mut v16, "shmem_signal_set".into());
    with_ctx(&mut v16, "shmem_signal_add".into());
    with_ctx(&mut v16, "shmem_pe_quiet".into());
    v16.push("shmem_query_initialized".into());
    let mut teams = names(&[
        "shmem_team_my_pe",
        "shmem_team_n_pes",
        "shmem_team_get_config",
        "shmem_team_translate_pe",
        "shmem_team_split_strided",
        "shmem_team_split_2d",
        "shmem_team_destroy",
        "shmem_team_create_ctx",
        "shmem_team_sync",
        "shmem_barrier",
        "shmem_sync",
    ]);
    for op in ["broadcast", "collect", "fcollect", "alltoall", "alltoalls"] {
        for t in RMA {
            teams.push(format!("shmem_{t}_{op}"));
        }
        teams.push(format!("shmem_{op}mem"));
        for n in [32, 64] {
            teams.push(format!("shmem_{op}{n}"));
        }
    }
    // OpenSHMEM 1.5 Table "teamreducetypes" and "asetreducetypes".
    let bitwise = [
        "uchar",
        "ushort",
        "uint",
        "ulong",
        "ulonglong",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "size",
    ];
    let signed = ["char", "schar", "short", "int", "long", "longlong", "ptrdiff"];
    let floats = ["float", "double", "longdouble"];
    let complex = ["complexd", "complexf"];
    let minmax: Vec<&str> = signed.iter().chain(&bitwise).chain(&floats).copied().collect();
    let arith: Vec<&str> = minmax.iter().chain(&complex).copied().collect();
    let sets: [(&[&str], &[&str]); 3] = [
        (&bitwise, &["and", "or", "xor"]),
        (&minmax, &["max", "min"]),
        (&arith, &["sum", "prod"]),
    ];
    for (types, ops) in sets {
        for op in ops {
            for t in types {
                teams.push(format!("shmem_{t}_{op}_reduce"));
            }
        }
    }
    let aset_bit = ["short", "int", "long", "longlong"];
    let aset_minmax: Vec<&str> = aset_bit.iter().chain(&floats).copied().collect();
    let aset_arith: Vec<&str> = aset_minmax.iter().chain(&complex).copied().collect();
    let sets: [(&[&str], &[&str]); 3] = [
        (&aset_bit, &["and", "or", "xor"]),
        (&aset_minmax, &["max", "min"]),
        (&aset_arith, &["sum", "prod"]),
    ];
    for (types, ops) in sets {
        for op in ops {
            for t in types {
                teams.push(format!("shmem_{t}_{op}_to_all"));
            }
        }
    }
    let mut teams16 = vec!["shmem_team_ptr".to_string()];
    for op in ["sum_inscan", "sum_exscan"] {
        for t in &arith {
            teams16.push(format!("shmem_{t}_{op}"));
        }
    }
    vec![
        ("RMA (1.5 section 9.6)", rma),
        ("AMO (9.7)", amo),
        ("signalling (9.8)", signal),
        ("point-to-point synchronisation (9.10)", p2p),
        ("setup, memory, contexts, ordering, locks, profiling", rest),
        ("OpenSHMEM 1.6 point-to-point additions", v16),
        ("teams and collectives (9.4, 9.9)", teams),
        ("OpenSHMEM 1.6 team additions", teams16),
    ]
}

#[test]
fn the_specification_inventory_is_declared_and_exported() {
    let exported = exported();
    let declared = declared("shmem.h", "c99");
    let mut total = 0;
    for (section, names) in inventory() {
        let unique: BTreeSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{section}: the inventory lists a name twice");
        let missing: Vec<_> = names
            .iter()
            .filter(|n| !exported.contains(*n) || !declared.contains(*n))
            .collect();
        assert!(missing.is_empty(), "{section}: not declared and exported: {missing:?}");
        let twins: Vec<_> = names
            .iter()
            .filter(|n| n.starts_with("shmem_") && !exported.contains(&format!("p{n}")))
            .collect();
        assert!(twins.is_empty(), "{section}: no pshmem_ twin: {twins:?}");
        println!("{section}: {} routines", names.len());
        total += names.len();
    }
    // The 1,610 names of OpenSHMEM 1.5 (1,278 point-to-point, 7 team routines,
    // shmem_team_create_ctx and 324 collectives), plus the OpenSHMEM 1.6
    // additions: 123 point-to-point routines, shmem_team_ptr and 52 scans; and
    // the set forms (_all/_any/_some, _vector) for short and ushort, which
    // Sandia OpenSHMEM and Open MPI declare: 12 forms x 2 types.
    assert_eq!(total, 1610 + 123 + 53 + 24);
    println!("{total} routines present, each with its pshmem_ twin");
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

const USE_HEADER: &str = "#include <shmem.h>\n#include <shmemx.h>\n#include <pshmem.h>\n#include <pshmemx.h>\n#include <mpp/shmem.h>\n#include <mpp/shmemx.h>\n#include <mpp/pshmem.h>\nint main(void) { long x = 0; shmem_long_p(&x, 1, 0); return (int) shmem_long_g(&x, 0); }\n";

#[test]
fn header_compiles_as_c11_c99_and_cxx() {
    compiles("cc", &["-std=c11"], USE_HEADER, "c");
    compiles("cc", &["-std=c99"], USE_HEADER, "c");
    compiles("cc", &["-std=gnu17"], USE_HEADER, "c");
    compiles("c++", &["-std=c++11"], USE_HEADER, "cpp");
    compiles("c++", &["-std=c++17"], USE_HEADER, "cpp");
}

/// The C types the RMA generics select among, spelled as a program does.
const GENERIC_C_TYPES: [&str; 14] = [
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
];

#[test]
fn c11_generics_select_every_type_with_and_without_a_context() {
    let mut s = String::from("#include <shmem.h>\nint main(void) {\n");
    for t in GENERIC_C_TYPES {
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

/// Sandia OpenSHMEM's `shmemx_` names for what OpenSHMEM 1.6 made standard
/// (its `shmemx_c_func.h4`), enumerated here independently of the table: each
/// is declared in `shmemx.h` and exported, with its `pshmemx_` twin declared
/// in `pshmemx.h` and exported.
#[test]
fn sos_shmemx_aliases_are_declared_and_exported() {
    let arith = [
        "char",
        "schar",
        "short",
        "int",
        "long",
        "longlong",
        "ptrdiff",
        "uchar",
        "ushort",
        "uint",
        "ulong",
        "ulonglong",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "size",
        "float",
        "double",
        "longdouble",
        "complexd",
        "complexf",
    ];
    let mut names = Vec::new();
    for op in ["ibput", "ibget"] {
        for t in RMA {
            with_ctx(&mut names, format!("shmem_{t}_{op}"));
        }
        for n in BITS {
            with_ctx(&mut names, format!("shmem_{op}{n}"));
        }
    }
    for op in ["sum_inscan", "sum_exscan"] {
        names.extend(arith.iter().map(|t| format!("shmem_{t}_{op}")));
    }
    with_ctx(&mut names, "shmem_signal_set".into());
    with_ctx(&mut names, "shmem_signal_add".into());
    names.push("shmem_query_initialized".into());
    let names: Vec<String> = names.iter().map(|n| n.replacen("shmem_", "shmemx_", 1)).collect();
    assert_eq!(names.len(), 4 * 24 + 4 * 5 + 2 * 26 + 5);
    let exported = exported();
    let profiling = declared("pshmemx.h", "c99");
    let in_shmemx = declared_shmemx();
    let missing: Vec<_> = names
        .iter()
        .filter(|n| !exported.contains(*n) || !in_shmemx.contains(*n))
        .collect();
    assert!(missing.is_empty(), "not declared in shmemx.h and exported: {missing:?}");
    let twins: Vec<_> = names
        .iter()
        .map(|n| format!("p{n}"))
        .filter(|p| !exported.contains(p) || !profiling.contains(p))
        .collect();
    assert!(twins.is_empty(), "not declared in pshmemx.h and exported: {twins:?}");
    // The predefined team handle is a data symbol, declared in shmemx.h.
    let data = std::fs::read(library()).unwrap();
    let file = object::File::parse(&*data).unwrap();
    assert!(
        file.dynamic_symbols()
            .any(|s| !s.is_undefined() && s.name() == Ok("SHMEMX_TEAM_NODE")),
        "SHMEMX_TEAM_NODE is not exported"
    );
    let shmemx = std::fs::read_to_string(include_dir().join("shmemx.h")).unwrap();
    assert!(shmemx.contains("extern shmem_team_t SHMEMX_TEAM_NODE;"));
}

/// Names `#define`d as C11 generic macros (`#define NAME(...)`) and names of
/// C++ overloads (`static inline ... NAME(`) in a header.
fn generic_names(header: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let text = std::fs::read_to_string(include_dir().join(header)).unwrap();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut c11 = BTreeSet::new();
    let mut cxx = BTreeSet::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("#define ")
            && rest.contains("(...)")
            && !rest.starts_with("RSHMEM_")
        {
            c11.insert(ident(rest));
        }
        if let Some(rest) = line.strip_prefix("static inline ") {
            let name = &rest[..rest.find('(').unwrap()];
            cxx.insert(name.rsplit(' ').next().unwrap().to_string());
        }
    }
    (c11, cxx)
}

/// C++ has an overload set for every C11 generic name and no other.
#[test]
fn cxx_overloads_cover_every_c11_generic() {
    for header in ["shmem.h", "shmemx.h"] {
        let (c11, cxx) = generic_names(header);
        assert!(c11.len() >= 4, "{header}: only {} generic macros found", c11.len());
        assert_eq!(
            c11, cxx,
            "{header}: C11 generics (left) and C++ overloads (right) differ"
        );
        println!("{header}: {} generic names in C11 and C++", c11.len());
    }
}

#[test]
fn cxx_overloads_select_every_type_with_and_without_a_context() {
    let mut s = String::from("#include <shmem.h>\n#include <shmemx.h>\nint main() {\n");
    for t in GENERIC_C_TYPES {
        let v = t.replace(' ', "_");
        s.push_str(&format!(
            "  {{ static {t} a_{v}[4]; {t} b[4] = {{0}}; shmem_put(a_{v}, b, 4, 0); shmem_put(SHMEM_CTX_DEFAULT, a_{v}, b, 4, 0); shmem_get(b, a_{v}, 4, 0); \
             shmem_p(a_{v}, b[0], 0); shmem_p(SHMEM_CTX_DEFAULT, a_{v}, b[0], 0); b[1] = shmem_g(a_{v}, 0); b[2] = shmem_g(SHMEM_CTX_DEFAULT, a_{v}, 0); \
             shmem_iput(a_{v}, b, 1, 1, 2, 0); shmem_iget(b, a_{v}, 1, 1, 2, 0); shmem_put_nbi(a_{v}, b, 4, 0); shmem_get_nbi(SHMEM_CTX_DEFAULT, b, a_{v}, 4, 0); \
             shmem_ibput(a_{v}, b, 2, 2, 1, 2, 0); shmemx_ibget(SHMEM_CTX_DEFAULT, b, a_{v}, 2, 2, 1, 2, 0); \
             (void) shmem_max_reduce(SHMEM_TEAM_WORLD, a_{v}, b, 4); (void) shmem_broadcast(SHMEM_TEAM_WORLD, a_{v}, b, 4, 0); }}\n"
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
        s.push_str(&format!(
            "  {{ static {t} w_{v}; shmem_wait_until(&w_{v}, SHMEM_CMP_EQ, 0); (void) shmem_test(&w_{v}, SHMEM_CMP_NE, 1); \
             (void) shmem_atomic_fetch_add(&w_{v}, 1, 0); shmem_atomic_inc(SHMEM_CTX_DEFAULT, &w_{v}, 0); \
             (void) shmem_atomic_compare_swap(&w_{v}, 0, 1, 0); (void) shmemx_sum_inscan(SHMEM_TEAM_WORLD, &w_{v}, &w_{v}, 1); }}\n"
        ));
    }
    s.push_str("  (void) shmem_sync(SHMEM_TEAM_WORLD);\n  return 0;\n}\n");
    compiles("c++", &["-std=c++11"], &s, "cpp");
}
