//! `cargo xtask install` end to end: install into a temporary prefix from a
//! throw-away copy of this build (a "build tree" of its own, so the real
//! target directory, which concurrent tests use, is never touched), delete
//! that copy, then compile and run programs with the installed tools only.
//! The install code is xtask's own, compiled here as well.

#[path = "../xtask/src/install.rs"]
#[allow(dead_code)] // option parsing is for xtask's command line
mod install;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const OSHCC: &str = env!("CARGO_BIN_EXE_oshcc");
const OSHCXX: &str = env!("CARGO_BIN_EXE_oshcxx");
const OSHRUN: &str = env!("CARGO_BIN_EXE_oshrun");

/// Links (or copies) `from` to `to`: the copy of the build costs no space.
fn place(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    if std::fs::hard_link(from, to).is_err() {
        std::fs::copy(from, to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
    }
}

/// Every file under `dir`, relative to it.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// Runs an installed tool with nothing from cargo's environment that could
/// reach the build tree (cargo test puts it on LD_LIBRARY_PATH).
fn run(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(exe);
    cmd.args(args).env_remove("LD_LIBRARY_PATH").env_remove("RSHMEM_STATIC");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    assert!(
        out.status.success(),
        "{} {args:?}: {}\n{}{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The ELF file's DT_RPATH and DT_RUNPATH entries (none for a file that finds
/// nothing through them).
fn search_paths(file: &Path) -> usize {
    use object::elf;
    use object::read::elf::{Dyn, ElfFile64};
    let data = std::fs::read(file).unwrap();
    let elf = ElfFile64::<object::Endianness>::parse(&*data).unwrap();
    let endian = elf.endian();
    let table = elf.elf_section_table();
    let Some((dynamic, _)) = table.dynamic(endian, &*data).unwrap() else {
        return 0;
    };
    dynamic
        .iter()
        .filter(|d| matches!(d.d_tag(endian) as u32, elf::DT_RPATH | elf::DT_RUNPATH))
        .count()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const RING: &str = r#"#define _GNU_SOURCE
#include <dlfcn.h>
#include <shmem.h>
#include <stdio.h>

static long got = -1;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_long_p(&got, me, (me + 1) % n);
    shmem_barrier_all();
    Dl_info info;
    void (*init)(void) = shmem_init;
    if (!dladdr(*(void **)&init, &info) || !info.dli_fname) {
        fprintf(stderr, "dladdr failed\n");
        return 1;
    }
    if (got != (me + n - 1) % n) {
        fprintf(stderr, "PE %d got %ld\n", me, got);
        return 1;
    }
    printf("PE %d of %d ok, library %s\n", me, n, info.dli_fname);
    shmem_finalize();
    return 0;
}
"#;

/// A profiling wrapper: needs the weak-symbol archive in a static link.
const PROFILED: &str = r#"#include <shmem.h>
#include <pshmem.h>
#include <stdio.h>

static int calls;
void shmem_barrier_all(void) { calls++; pshmem_barrier_all(); }

int main(void) {
    shmem_init();
    shmem_barrier_all();
    shmem_finalize();
    printf("wrapped barriers: %d\n", calls);
    return calls == 1 ? 0 : 1;
}
"#;

#[test]
fn installed_tools_build_and_run_programs_without_the_build_tree() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("install-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (tree, prefix) = (root.join("tree"), root.join("prefix"));

    // The throw-away build tree: this build's tools and library, the sources'
    // headers and documents.
    let build_dir = tree.join("target/release");
    let lib_dir = rshmem::wrapper::find_layout(Path::new(OSHCC)).unwrap().lib_dir;
    for (from, name) in [
        (PathBuf::from(OSHCC), "oshcc"),
        (PathBuf::from(OSHCXX), "oshcxx"),
        (PathBuf::from(OSHRUN), "oshrun"),
        (lib_dir.join("librshmem.so"), "librshmem.so"),
        (lib_dir.join("librshmem.a"), "librshmem.a"),
        (
            rshmem::launcher::trace::layer_for(Path::new(OSHRUN)).unwrap(),
            "librshmem_trace.so",
        ),
    ] {
        place(&from, &build_dir.join(name));
    }
    // The MPI shim exists where the build found an MPI, the UCX one where
    // it found UCX.
    let built: Vec<(&str, bool)> = ["librshmem_mpi.so", "librshmem_ucx.so"]
        .into_iter()
        .map(|name| {
            let shim = lib_dir.join(name);
            if shim.is_file() {
                place(&shim, &build_dir.join(name));
            }
            (name, shim.is_file())
        })
        .collect();
    let sources = Path::new(env!("CARGO_MANIFEST_DIR"));
    for f in files(&sources.join("include")) {
        place(&sources.join("include").join(&f), &tree.join("include").join(&f));
    }
    for f in files(&sources.join("docs")) {
        place(&sources.join("docs").join(&f), &tree.join("docs").join(&f));
    }
    place(&sources.join("README.md"), &tree.join("README.md"));

    let src = install::Sources {
        build_dir,
        source_dir: tree.clone(),
    };
    let done = install::install(&src, &prefix).unwrap();
    std::fs::remove_dir_all(&tree).unwrap();

    // The layout.
    for f in [
        "bin/oshcc",
        "bin/shmemcc",
        "bin/oshcxx",
        "bin/oshc++",
        "bin/shmemc++",
        "bin/shmemcxx",
        "bin/oshrun",
        "bin/shmemrun",
        "lib/librshmem.so",
        "lib/librshmem.a",
        "lib/librshmem-profiling.a",
        "lib/librshmem_trace.so",
        "lib/pkgconfig/rshmem.pc",
        "share/doc/rshmem/README.md",
        "share/doc/rshmem/docs/architecture.md",
    ] {
        assert!(prefix.join(f).is_file(), "{f} not installed");
        assert!(done.contains(&prefix.join(f)), "{f} not reported");
    }
    for (name, was_built) in &built {
        let shim = prefix.join("lib").join(name);
        assert_eq!(shim.is_file(), *was_built, "{name} is installed if it was built");
        assert_eq!(done.contains(&shim), *was_built, "{name} is reported if installed");
    }
    let headers = files(&sources.join("include"));
    assert_eq!(files(&prefix.join("include")), headers, "every file under include/");
    for h in &headers {
        assert_eq!(
            std::fs::read(prefix.join("include").join(h)).unwrap(),
            std::fs::read(sources.join("include").join(h)).unwrap(),
            "{}",
            h.display()
        );
    }
    let pc = std::fs::read_to_string(prefix.join("lib/pkgconfig/rshmem.pc")).unwrap();
    assert!(
        pc.starts_with(&format!(
            "prefix={}\nincludedir=${{prefix}}/include\nlibdir=${{prefix}}/lib\n",
            prefix.display()
        )),
        "{pc}"
    );

    // The installed binaries and library have no search path of their own
    // (into the build tree or anywhere).
    for f in [
        "bin/oshcc",
        "bin/oshcxx",
        "bin/oshrun",
        "lib/librshmem.so",
        "lib/librshmem_trace.so",
    ] {
        assert_eq!(search_paths(&prefix.join(f)), 0, "{f} has an rpath");
    }

    // The wrappers name the prefix only.
    let bin = prefix.join("bin");
    let p = prefix.canonicalize().unwrap();
    let (inc, lib) = (
        p.join("include").display().to_string(),
        p.join("lib").display().to_string(),
    );
    for cc in ["oshcc", "shmemcc", "oshc++", "shmemcxx"] {
        assert_eq!(
            stdout(&run(&bin.join(cc), &["--showme:incdirs"], &[])),
            format!("{inc}\n"),
            "{cc}"
        );
        assert_eq!(
            stdout(&run(&bin.join(cc), &["--showme:link"], &[])),
            format!("-L{lib} -Wl,-rpath,{lib} -lrshmem\n"),
            "{cc}"
        );
    }
    assert!(stdout(&run(&bin.join("oshc++"), &["--showme:version"], &[])).ends_with("(Language: C++)\n"));

    // A program built and run with the installed tools uses the installed library.
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("ring.c"), RING).unwrap();
    let ring = work.join("ring");
    let (ring_c, ring_s) = (work.join("ring.c").display().to_string(), ring.display().to_string());
    run(&bin.join("oshcc"), &[&ring_c, "-o", &ring_s], &[]);
    assert_eq!(
        search_paths(&ring),
        1,
        "the program's RUNPATH (and the check above sees one)"
    );
    let out = stdout(&run(&bin.join("oshrun"), &["-np", "2", &ring_s], &[]));
    let installed = format!("library {lib}/librshmem.so\n");
    assert_eq!(
        out.matches(&installed).count(),
        2,
        "both PEs use {lib}/librshmem.so:\n{out}"
    );

    // Traced, the installed oshrun preloads the installed trace layer.
    let traced = work.join("ring.json");
    let traced_s = traced.display().to_string();
    run(
        &bin.join("oshrun"),
        &["-np", "2", &ring_s],
        &[("SHMEM_TRACE", &traced_s)],
    );
    let json = std::fs::read_to_string(&traced).unwrap_or_else(|e| panic!("{traced_s}: {e}"));
    assert!(json.contains("\"PE 1\"") && json.contains("\"shmem_long_p\""), "{json}");

    // C++, through the alias, and run through shmemrun.
    std::fs::write(work.join("ring.cpp"), RING.replace("#define _GNU_SOURCE\n", "")).unwrap();
    let ring_cpp = work.join("ring.cpp").display().to_string();
    run(&bin.join("oshc++"), &[&ring_cpp, "-o", &ring_s], &[]);
    let out = stdout(&run(&bin.join("shmemrun"), &["-np", "2", &ring_s], &[]));
    assert_eq!(out.matches(&installed).count(), 2, "{out}");

    // A static link with a profiling wrapper uses the installed weak archive.
    let link = stdout(&run(&bin.join("oshcc"), &["--showme:link"], &[("RSHMEM_STATIC", "1")]));
    assert!(link.starts_with(&format!("{lib}/librshmem-profiling.a ")), "{link}");
    std::fs::write(work.join("prof.c"), PROFILED).unwrap();
    let prof = work.join("prof").display().to_string();
    let prof_c = work.join("prof.c").display().to_string();
    run(&bin.join("oshcc"), &[&prof_c, "-o", &prof], &[("RSHMEM_STATIC", "1")]);
    let out = stdout(&run(&bin.join("oshrun"), &[&prof], &[]));
    assert_eq!(out, "wrapped barriers: 1\n");

    std::fs::remove_dir_all(&root).unwrap();
}
