//! The compiler wrappers as a build system sees them: the C++ names beside
//! `oshcc` after a plain cargo build, the `--showme:` queries of Open MPI's
//! wrappers, and a wrapper outside the build tree using nothing from it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const OSHCC: &str = env!("CARGO_BIN_EXE_oshcc");

/// The cargo profile directory the tools were built into.
fn profile_dir() -> PathBuf {
    Path::new(OSHCC).parent().unwrap().to_path_buf()
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("tools-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs a wrapper with the environment a user without settings has.
fn wrapper(exe: &Path, args: &[&str]) -> Output {
    Command::new(exe)
        .args(args)
        .env_remove("RSHMEM_STATIC")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()))
}

/// Standard output of a wrapper that must succeed, without the newline.
fn stdout_of(exe: &Path, args: &[&str]) -> String {
    let out = wrapper(exe, args);
    assert!(
        out.status.success(),
        "{} {args:?}: {}\n{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .trim_end_matches('\n')
        .to_string()
}

fn compiler(var: &str, default: &str) -> String {
    std::env::var(var)
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| default.into())
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn cxx_names_and_pkg_config_exist_beside_oshcc() {
    let dir = profile_dir();
    let cxx = compiler("RSHMEM_CXX", "c++");
    for name in ["oshc++", "shmemc++", "shmemcxx", "oshcxx"] {
        let exe = dir.join(name);
        assert!(exe.is_file(), "{} is missing after cargo build", exe.display());
        assert_eq!(
            stdout_of(&exe, &["--showme:command"]),
            cxx,
            "{name} runs the C++ compiler"
        );
        assert!(
            stdout_of(&exe, &["--showme:version"]).ends_with("(Language: C++)"),
            "{name}"
        );
    }
    // One of them compiles and links a C++ program that runs.
    let d = scratch("cxx");
    let src = d.join("hello.cpp");
    std::fs::write(
        &src,
        "#include <shmem.h>\n#include <string>\n#include <cstdio>\n\
         int main() { shmem_init(); std::string s = \"PE \" + std::to_string(shmem_my_pe());\n\
         std::printf(\"%s of %d\\n\", s.c_str(), shmem_n_pes()); shmem_finalize(); return 0; }\n",
    )
    .unwrap();
    let exe = d.join("hello");
    let out = wrapper(
        &dir.join("oshc++"),
        &[src.to_str().unwrap(), "-o", exe.to_str().unwrap()],
    );
    assert!(out.status.success(), "oshc++: {}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).env_remove("LD_LIBRARY_PATH").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), "PE 0 of 1\n");
    let pc = std::fs::read_to_string(dir.join("pkgconfig/rshmem.pc")).expect("pkgconfig/rshmem.pc beside oshcc");
    assert!(pc.contains(&format!("libdir={}\n", dir.display())), "{pc}");
}

#[test]
fn showme_queries_print_what_open_mpi_prints() {
    let oshcc = Path::new(OSHCC);
    let version = stdout_of(oshcc, &["--showme:version"]);
    assert_eq!(
        version,
        format!("oshcc: rshmem {} (Language: C)", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(stdout_of(oshcc, &["-showme:version"]), version, "one dash works too");
    assert_eq!(stdout_of(oshcc, &["--showme:command"]), compiler("RSHMEM_CC", "cc"));
    assert_eq!(stdout_of(oshcc, &["--showme:libs"]), "rshmem");

    let incdirs = stdout_of(oshcc, &["--showme:incdirs"]);
    let include = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("include")
        .canonicalize()
        .unwrap();
    assert_eq!(Path::new(&incdirs), include, "undecorated, no -I");
    let libdirs = stdout_of(oshcc, &["--showme:libdirs"]);
    assert!(!libdirs.starts_with("-L") && !libdirs.contains(' '), "{libdirs}");
    assert!(Path::new(&libdirs).join("librshmem.so").is_file(), "{libdirs}");
    // The same directories as the flags the wrapper adds itself.
    assert_eq!(stdout_of(oshcc, &["--showme:compile"]), format!("-I{incdirs}"));
    assert!(stdout_of(oshcc, &["--showme:link"]).starts_with(&format!("-L{libdirs} ")));

    // A static link's libraries, by name too.
    let out = Command::new(oshcc)
        .arg("--showme:libs")
        .env("RSHMEM_STATIC", "1")
        .output()
        .unwrap();
    let libs = String::from_utf8(out.stdout).unwrap();
    assert!(
        libs.starts_with("rshmem ") && libs.contains(" pthread") && !libs.contains("-l"),
        "{libs}"
    );

    // An unknown query is an error that names it, not an argument for cc.
    let out = wrapper(oshcc, &["--showme:flags"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("oshcc: unknown option --showme:flags") && err.lines().count() == 1,
        "{err}"
    );
}

/// What a configure script does with the queries: build with the plain
/// compiler from the directories and names they print.
#[test]
fn showme_results_build_a_program_without_the_wrapper() {
    let oshcc = Path::new(OSHCC);
    let (inc, libdir, libs) = (
        stdout_of(oshcc, &["--showme:incdirs"]),
        stdout_of(oshcc, &["--showme:libdirs"]),
        stdout_of(oshcc, &["--showme:libs"]),
    );
    let d = scratch("configure");
    let src = d.join("p.c");
    std::fs::write(
        &src,
        "#include <shmem.h>\n#include <stdio.h>\n\
         int main(void) { shmem_init(); printf(\"%d\\n\", shmem_n_pes()); shmem_finalize(); return 0; }\n",
    )
    .unwrap();
    let exe = d.join("p");
    let cc = compiler("RSHMEM_CC", "cc");
    let mut words = cc.split(' ');
    let mut cmd = Command::new(words.next().unwrap());
    cmd.args(words)
        .arg(format!("-I{inc}"))
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{libdir}"))
        .arg(format!("-Wl,-rpath,{libdir}"));
    cmd.args(libs.split(' ').map(|l| format!("-l{l}")));
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).env_remove("LD_LIBRARY_PATH").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), "1\n");
}

/// A wrapper copied out of the build tree is an installed one: it looks only
/// beside its own `bin/`, and says so when something is missing there rather
/// than taking the sources' headers.
#[test]
fn a_wrapper_outside_the_build_tree_uses_only_its_prefix() {
    let prefix = scratch("prefix");
    for d in ["bin", "lib", "include"] {
        std::fs::create_dir_all(prefix.join(d)).unwrap();
    }
    let oshcc = prefix.join("bin/oshcc");
    std::fs::copy(OSHCC, &oshcc).unwrap();
    let libdir = rshmem::wrapper::find_layout(Path::new(OSHCC)).unwrap().lib_dir;
    std::fs::copy(libdir.join("librshmem.so"), prefix.join("lib/librshmem.so")).unwrap();

    let out = wrapper(&oshcc, &["--showme:compile"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "no shmem.h in the prefix: {err}");
    let want = format!("oshcc: shmem.h not found in {}", prefix.join("include").display());
    assert!(err.starts_with(&want) && err.lines().count() == 1, "{err}");

    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("include/shmem.h"),
        prefix.join("include/shmem.h"),
    )
    .unwrap();
    let canon = prefix.canonicalize().unwrap();
    assert_eq!(
        stdout_of(&oshcc, &["--showme:incdirs"]),
        canon.join("include").display().to_string()
    );
    assert_eq!(
        stdout_of(&oshcc, &["--showme:link"]),
        format!("-L{0} -Wl,-rpath,{0} -lrshmem", canon.join("lib").display())
    );
    std::fs::remove_dir_all(&prefix).unwrap();
}
