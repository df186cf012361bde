//! `oshcc` / `shmemcc` / `oshcxx`: compiler wrappers.
//!
//! They run the system C (or C++) compiler with the include path of `shmem.h`, and,
//! when linking, `-lrshmem` plus an rpath to the library's directory, so programs
//! run from any directory without `LD_LIBRARY_PATH`.
//!
//! The compiler is `$RSHMEM_CC` (C) or `$RSHMEM_CXX` (C++), else `cc` / `c++`.
//! `--showme` (Open MPI) or `-show` (MPICH, Sandia) print the command instead of
//! running it; `--showme:compile` and `--showme:link` print only those flags.
//! `RSHMEM_STATIC=1` links `librshmem.a` instead of the shared library.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Which language a wrapper compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    C,
    Cxx,
}

/// Where the headers and the library were found.
#[derive(Clone, Debug)]
pub struct Layout {
    pub include_dir: PathBuf,
    pub lib_dir: PathBuf,
}

/// Picks the language from the name the wrapper was invoked as.
pub fn lang_from_argv0(argv0: &str) -> Lang {
    let base = Path::new(argv0).file_name().and_then(|s| s.to_str()).unwrap_or(argv0);
    if base.contains("++") || base.contains("cxx") || base.ends_with("CC") {
        Lang::Cxx
    } else {
        Lang::C
    }
}

/// Finds `include/shmem.h` and `librshmem.so` relative to the wrapper binary:
/// an installed tree (`bin/`, `include/`, `lib/`) or the cargo build tree
/// (`target/<profile>/` with the sources' `include/`).
pub fn find_layout(exe: &Path) -> Result<Layout, String> {
    let exe_dir = exe.parent().ok_or("cannot locate the wrapper's directory")?;
    let include_candidates = [
        exe_dir.join("../include"),
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include"),
    ];
    let include_dir = include_candidates
        .iter()
        .find(|d| d.join("shmem.h").is_file())
        .ok_or_else(|| {
            format!(
                "shmem.h not found in {}",
                include_candidates
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" or ")
            )
        })?;
    // In a cargo build tree, `cargo build` refreshes target/<profile>/librshmem.so
    // but `cargo test` only target/<profile>/deps/librshmem.so: take the newer.
    let modified = |d: &PathBuf| {
        std::fs::metadata(d.join("librshmem.so"))
            .and_then(|m| m.modified())
            .ok()
    };
    let build_tree = [exe_dir.to_path_buf(), exe_dir.join("deps")]
        .into_iter()
        .filter_map(|d| modified(&d).map(|t| (t, d)))
        .max_by_key(|(t, _)| *t)
        .map(|(_, d)| d);
    let lib_candidates = [
        build_tree.unwrap_or_else(|| exe_dir.to_path_buf()),
        exe_dir.join("../lib"),
    ];
    let lib_dir = lib_candidates
        .iter()
        .find(|d| d.join("librshmem.so").is_file())
        .ok_or_else(|| {
            format!(
                "librshmem.so not found next to {} (build the library with cargo build)",
                exe.display()
            )
        })?;
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    Ok(Layout {
        include_dir: canon(include_dir),
        lib_dir: canon(lib_dir),
    })
}

/// True when the arguments ask only to compile, preprocess or assemble.
pub fn compile_only(args: &[OsString]) -> bool {
    args.iter()
        .any(|a| matches!(a.to_str(), Some("-c" | "-S" | "-E" | "-M" | "-MM")))
}

/// The flags added before the user's arguments.
pub fn compile_flags(l: &Layout) -> Vec<OsString> {
    vec![format!("-I{}", l.include_dir.display()).into()]
}

/// The flags added after the user's arguments when linking.
pub fn link_flags(l: &Layout, static_link: bool) -> Vec<OsString> {
    if static_link {
        let mut v: Vec<OsString> = vec![static_archive(&l.lib_dir).into_os_string()];
        // What a Rust staticlib needs from the system (see `rustc --print native-static-libs`).
        for lib in ["-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl", "-lc"] {
            v.push(lib.into());
        }
        v
    } else {
        vec![
            format!("-L{}", l.lib_dir.display()).into(),
            format!("-Wl,-rpath,{}", l.lib_dir.display()).into(),
            "-lrshmem".into(),
        ]
    }
}

/// The archive to link statically: `librshmem.a` with its `shmem_*` and
/// `shmemx_*` definitions made weak (`librshmem-profiling.a`, made once per
/// build of the library with `objcopy`), so that a program may define its own
/// `shmem_X` and call `pshmem_X` (the profiling interface) without a
/// duplicate-symbol error, as with C libraries that use `#pragma weak`. Rust
/// cannot declare weak symbols on stable, hence the post-processing. Falls back
/// to `librshmem.a` itself if `objcopy` is missing or the directory is
/// read-only.
fn static_archive(lib_dir: &Path) -> PathBuf {
    let plain = lib_dir.join("librshmem.a");
    let weak = lib_dir.join("librshmem-profiling.a");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(&plain), modified(&weak)) {
        (Some(p), Some(w)) if w >= p => return weak,
        (None, _) => return plain,
        _ => {}
    }
    // A unique temporary name, renamed into place: parallel builds each make
    // a complete archive and the last rename wins.
    let tmp = lib_dir.join(format!(".librshmem-profiling.{}.a", std::process::id()));
    let objcopy = std::env::var_os("OBJCOPY").unwrap_or_else(|| "objcopy".into());
    let made = Command::new(objcopy)
        .args(["--wildcard", "--weaken-symbol=shmem_*", "--weaken-symbol=shmemx_*"])
        .arg(&plain)
        .arg(&tmp)
        .status()
        .is_ok_and(|s| s.success())
        && std::fs::rename(&tmp, &weak).is_ok();
    let _ = std::fs::remove_file(&tmp);
    if made { weak } else { plain }
}

/// Runs the wrapper; returns an exit status only when it could not exec.
pub fn main() -> i32 {
    let mut argv = std::env::args_os();
    let argv0 = argv
        .next()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_else(|| "oshcc".into());
    let name = Path::new(&argv0)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "oshcc".into());
    let lang = lang_from_argv0(&argv0);
    let mut args: Vec<OsString> = argv.collect();

    let mut show: Option<&'static str> = None;
    args.retain(|a| match a.to_str() {
        Some("--showme" | "-show" | "--show" | "-showme") => {
            show = Some("all");
            false
        }
        Some("--showme:compile") => {
            show = Some("compile");
            false
        }
        Some("--showme:link") => {
            show = Some("link");
            false
        }
        _ => true,
    });

    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from(&argv0));
    let layout = match find_layout(&exe) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{name}: {e}");
            return 2;
        }
    };
    let static_link = std::env::var_os("RSHMEM_STATIC").is_some_and(|v| !v.is_empty() && v != "0");
    let (var, default_cc) = match lang {
        Lang::C => ("RSHMEM_CC", "cc"),
        Lang::Cxx => ("RSHMEM_CXX", "c++"),
    };
    let cc = std::env::var(var)
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| default_cc.to_string());
    let mut cc_words = cc.split_whitespace().map(OsString::from);
    let program = cc_words.next().unwrap_or_else(|| default_cc.into());
    let linking = !compile_only(&args) && !args.is_empty();

    let mut full: Vec<OsString> = cc_words.collect();
    full.extend(compile_flags(&layout));
    full.extend(args);
    if linking {
        full.extend(link_flags(&layout, static_link));
    }

    let join = |v: &[OsString]| {
        v.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    };
    match show {
        Some("compile") => {
            println!("{}", join(&compile_flags(&layout)));
            return 0;
        }
        Some("link") => {
            println!("{}", join(&link_flags(&layout, static_link)));
            return 0;
        }
        Some(_) => {
            println!("{} {}", program.to_string_lossy(), join(&full));
            return 0;
        }
        None => {}
    }
    let err = Command::new(&program).args(&full).exec();
    eprintln!("{name}: cannot run {}: {err}", program.to_string_lossy());
    127
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_follows_the_invoked_name() {
        assert_eq!(lang_from_argv0("/usr/bin/oshcc"), Lang::C);
        assert_eq!(lang_from_argv0("shmemcc"), Lang::C);
        assert_eq!(lang_from_argv0("oshc++"), Lang::Cxx);
        assert_eq!(lang_from_argv0("target/debug/oshcxx"), Lang::Cxx);
        assert_eq!(lang_from_argv0("oshCC"), Lang::Cxx);
    }

    #[test]
    fn compile_only_is_detected() {
        let a = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert!(compile_only(&a(&["-c", "x.c"])));
        assert!(compile_only(&a(&["-E", "x.c"])));
        assert!(!compile_only(&a(&["x.c", "-o", "x"])));
        assert!(!compile_only(&a(&["-MD", "x.c"])));
    }

    #[test]
    fn link_flags_set_an_rpath() {
        let l = Layout {
            include_dir: "/p/include".into(),
            lib_dir: "/p/lib".into(),
        };
        let f: Vec<String> = link_flags(&l, false)
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        assert_eq!(f, ["-L/p/lib", "-Wl,-rpath,/p/lib", "-lrshmem"]);
        assert!(link_flags(&l, true)[0].to_string_lossy().ends_with("librshmem.a"));
    }
}
