//! `oshcc` / `shmemcc` / `oshcxx` (and its links `oshc++`, `shmemc++`,
//! `shmemcxx`): compiler wrappers.
//!
//! They run the system C (or C++) compiler with the include path of `shmem.h`, and,
//! when linking, `-lrshmem` plus an rpath to the library's directory, so programs
//! run from any directory without `LD_LIBRARY_PATH`.
//!
//! The compiler is `$RSHMEM_CC` (C) or `$RSHMEM_CXX` (C++), else `cc` / `c++`.
//! `--showme` (Open MPI) or `-show` (MPICH, Sandia) print the command instead of
//! running it; `--showme:compile`, `:link`, `:command`, `:incdirs`, `:libdirs`,
//! `:libs` and `:version` print what Open MPI's wrappers print for them.
//! `RSHMEM_STATIC=1` links `librshmem.a` instead of the shared library.
//!
//! A wrapper in the cargo profile directory it was built in uses the sources'
//! `include/` and that build's library; anywhere else it is installed
//! (`bin/`, `include/`, `lib/` under one prefix) and uses only its prefix, so an
//! installed program never depends on the build tree.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Which language a wrapper compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// C (`oshcc`).
    C,
    /// C++ (`oshcxx`, `oshc++`).
    Cxx,
}

impl Lang {
    /// As Open MPI's `--showme:version` names it.
    pub fn name(self) -> &'static str {
        match self {
            Lang::C => "C",
            Lang::Cxx => "C++",
        }
    }
}

/// Where the headers and the library were found.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The directory holding `shmem.h` and the other headers.
    pub include_dir: PathBuf,
    /// The directory holding the rshmem library.
    pub lib_dir: PathBuf,
}

/// The cargo profile directory this wrapper was built into (set by build.rs;
/// empty if the build script could not tell).
const PROFILE_DIR: &str = env!("RSHMEM_PROFILE_DIR");

/// The system libraries a Rust staticlib needs (see `rustc --print
/// native-static-libs`), by name.
const STATIC_SYSTEM_LIBS: [&str; 7] = ["gcc_s", "util", "rt", "pthread", "m", "dl", "c"];

/// Picks the language: C++ when the name the wrapper was invoked as says so
/// (`oshc++`, `shmemcxx`, `oshCC`), else the binary's own language.
pub fn lang_from_argv0(argv0: &str, default: Lang) -> Lang {
    let base = Path::new(argv0).file_name().and_then(|s| s.to_str()).unwrap_or(argv0);
    if base.contains("++") || base.contains("cxx") || base.ends_with("CC") {
        Lang::Cxx
    } else {
        default
    }
}

fn canon(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// Whether a tool in `exe_dir` (canonical) runs from the cargo profile
/// directory it was built into, rather than from an installed `PREFIX/bin`.
pub fn in_build_tree(exe_dir: &Path) -> bool {
    !PROFILE_DIR.is_empty() && Path::new(PROFILE_DIR).canonicalize().is_ok_and(|d| d == exe_dir)
}

/// The build tree's directories that may hold a built library:
/// `target/<profile>/` and its `deps/` (`cargo build` refreshes the first,
/// `cargo test` only the second).
pub fn build_lib_dirs(exe_dir: &Path) -> [PathBuf; 2] {
    [exe_dir.to_path_buf(), exe_dir.join("deps")]
}

/// The one of `dirs` whose `file` is the newest, if any holds it.
pub fn newest_holding(dirs: &[PathBuf], file: &str) -> Option<PathBuf> {
    let modified = |d: &PathBuf| std::fs::metadata(d.join(file)).and_then(|m| m.modified()).ok();
    dirs.iter()
        .filter_map(|d| modified(d).map(|t| (t, d)))
        .max_by_key(|(t, _)| *t)
        .map(|(_, d)| d.clone())
}

/// Finds `shmem.h` and `librshmem.so` for the wrapper at `exe`: the build tree
/// if `exe` is in the profile directory it was built into, else the installed
/// tree around it (`exe` in `PREFIX/bin`).
pub fn find_layout(exe: &Path) -> Result<Layout, String> {
    let exe_dir = canon(exe.parent().ok_or("cannot locate the wrapper's directory")?);
    if in_build_tree(&exe_dir) {
        build_tree_layout(&exe_dir)
    } else {
        installed_layout(&exe_dir)
    }
}

/// `target/<profile>/` with the sources' `include/`.
fn build_tree_layout(exe_dir: &Path) -> Result<Layout, String> {
    let include_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    if !include_dir.join("shmem.h").is_file() {
        return Err(format!("shmem.h not found in {}", include_dir.display()));
    }
    let lib_dir = newest_holding(&build_lib_dirs(exe_dir), "librshmem.so").ok_or_else(|| {
        format!(
            "librshmem.so not found in {} (build the library with cargo build)",
            exe_dir.display()
        )
    })?;
    Ok(Layout {
        include_dir: canon(&include_dir),
        lib_dir: canon(&lib_dir),
    })
}

/// `PREFIX/bin/` with `PREFIX/include/` and `PREFIX/lib/`, and nothing else.
fn installed_layout(exe_dir: &Path) -> Result<Layout, String> {
    let prefix = exe_dir.parent().unwrap_or(exe_dir);
    let (include_dir, lib_dir) = (prefix.join("include"), prefix.join("lib"));
    for (dir, file) in [(&include_dir, "shmem.h"), (&lib_dir, "librshmem.so")] {
        if !dir.join(file).is_file() {
            return Err(format!(
                "{file} not found in {}: this wrapper is neither installed (bin/, include/, lib/ under one prefix) \
                 nor in the build directory it was built in ({})",
                dir.display(),
                if PROFILE_DIR.is_empty() { "unknown" } else { PROFILE_DIR }
            ));
        }
    }
    Ok(Layout {
        include_dir: canon(&include_dir),
        lib_dir: canon(&lib_dir),
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
        v.extend(STATIC_SYSTEM_LIBS.iter().map(|lib| format!("-l{lib}").into()));
        v
    } else {
        vec![
            format!("-L{}", l.lib_dir.display()).into(),
            format!("-Wl,-rpath,{}", l.lib_dir.display()).into(),
            "-lrshmem".into(),
        ]
    }
}

/// The libraries a link uses, by name (`--showme:libs`): the static archive
/// is passed by its path, but it is rshmem all the same.
pub fn libs(static_link: bool) -> Vec<&'static str> {
    let mut v = vec!["rshmem"];
    if static_link {
        v.extend(STATIC_SYSTEM_LIBS);
    }
    v
}

/// The archive to link statically: `librshmem-profiling.a` if it is at least as
/// new as `librshmem.a`, else made now (see `make_profiling_archive`). Falls
/// back to `librshmem.a` itself if `objcopy` is missing or the directory is
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
    if make_profiling_archive(&plain, &weak).is_ok() {
        weak
    } else {
        plain
    }
}

/// Writes `weak`: `plain` (`librshmem.a`) with its `shmem_*` and `shmemx_*`
/// definitions made weak, so that a program may define its own `shmem_X` and
/// call `pshmem_X` (the profiling interface) without a duplicate-symbol error,
/// as with C libraries that use `#pragma weak`. Rust cannot declare weak
/// symbols on stable, hence the post-processing with `objcopy` (`$OBJCOPY`).
pub fn make_profiling_archive(plain: &Path, weak: &Path) -> Result<(), String> {
    // A unique temporary name, renamed into place: parallel builds each make
    // a complete archive and the last rename wins.
    let dir = weak.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(".librshmem-profiling.{}.a", std::process::id()));
    let objcopy = std::env::var_os("OBJCOPY").unwrap_or_else(|| "objcopy".into());
    let status = Command::new(&objcopy)
        .args(["--wildcard", "--weaken-symbol=shmem_*", "--weaken-symbol=shmemx_*"])
        .arg(plain)
        .arg(&tmp)
        .status();
    let made = match status {
        Ok(s) if s.success() => {
            std::fs::rename(&tmp, weak).map_err(|e| format!("cannot write {}: {e}", weak.display()))
        }
        Ok(s) => Err(format!(
            "{} failed on {} ({s})",
            objcopy.to_string_lossy(),
            plain.display()
        )),
        Err(e) => Err(format!("cannot run {}: {e}", objcopy.to_string_lossy())),
    };
    let _ = std::fs::remove_file(&tmp);
    made
}

/// What `--showme[:...]` asks to print instead of compiling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// The whole command.
    All,
    /// The flags added before the user's arguments ([`compile_flags`]).
    Compile,
    /// The flags added after them when linking ([`link_flags`]).
    Link,
    /// The compiler itself (one or more words).
    Command,
    /// The include directory.
    Incdirs,
    /// The library directory.
    Libdirs,
    /// The libraries a link uses, by name ([`libs`]).
    Libs,
    /// One version line ([`version_line`]).
    Version,
}

/// Recognises `--showme`, `-show` and `--showme:<what>` (one dash or two, as
/// Open MPI); `Ok(None)` for any other argument, `Err` for an unknown
/// `--showme:` variant.
pub fn parse_show(arg: &str) -> Result<Option<Show>, String> {
    let Some(word) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
        return Ok(None);
    };
    let show = match word {
        "showme" | "show" => Show::All,
        "showme:compile" => Show::Compile,
        "showme:link" => Show::Link,
        "showme:command" => Show::Command,
        "showme:incdirs" => Show::Incdirs,
        "showme:libdirs" => Show::Libdirs,
        "showme:libs" => Show::Libs,
        "showme:version" => Show::Version,
        w if w.starts_with("showme:") => {
            return Err(format!(
                "unknown option {arg} (use --showme, or --showme: compile, link, command, incdirs, libdirs, libs, version)"
            ));
        }
        _ => return Ok(None),
    };
    Ok(Some(show))
}

/// `--showme:version`: one line, as Open MPI's `mpicc: Open MPI 4.1.4 (Language: C)`.
pub fn version_line(name: &str, lang: Lang) -> String {
    format!("{name}: rshmem {} (Language: {})", crate::tools::VERSION, lang.name())
}

fn join(v: &[OsString]) -> String {
    v.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs the wrapper for a binary compiling `default` (the name it is invoked
/// as may say C++); returns an exit status only when it did not exec.
pub fn main(default: Lang) -> i32 {
    let mut argv = std::env::args_os();
    let argv0 = argv
        .next()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_else(|| "oshcc".into());
    let name = Path::new(&argv0)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "oshcc".into());
    let lang = lang_from_argv0(&argv0, default);
    let mut args: Vec<OsString> = Vec::new();
    let mut show: Option<Show> = None;
    for a in argv {
        match a.to_str().map(parse_show).unwrap_or(Ok(None)) {
            Ok(Some(s)) => show = Some(s),
            Ok(None) => args.push(a),
            Err(e) => {
                eprintln!("{name}: {e}");
                return 2;
            }
        }
    }

    let (var, default_cc) = match lang {
        Lang::C => ("RSHMEM_CC", "cc"),
        Lang::Cxx => ("RSHMEM_CXX", "c++"),
    };
    let cc = std::env::var(var)
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| default_cc.to_string());
    let cc_words: Vec<OsString> = cc.split_whitespace().map(OsString::from).collect();
    match show {
        Some(Show::Version) => {
            println!("{}", version_line(&name, lang));
            return 0;
        }
        Some(Show::Command) => {
            println!("{}", join(&cc_words));
            return 0;
        }
        _ => {}
    }

    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from(&argv0));
    let layout = match find_layout(&exe) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{name}: {e}");
            return 2;
        }
    };
    let static_link = std::env::var_os("RSHMEM_STATIC").is_some_and(|v| !v.is_empty() && v != "0");
    let linking = !compile_only(&args) && !args.is_empty();

    let (program, extra) = cc_words.split_first().expect("the compiler has at least one word");
    let mut full: Vec<OsString> = extra.to_vec();
    full.extend(compile_flags(&layout));
    full.extend(args);
    if linking {
        full.extend(link_flags(&layout, static_link));
    }

    let shown = match show {
        Some(Show::Compile) => join(&compile_flags(&layout)),
        Some(Show::Link) => join(&link_flags(&layout, static_link)),
        Some(Show::Incdirs) => layout.include_dir.display().to_string(),
        Some(Show::Libdirs) => layout.lib_dir.display().to_string(),
        Some(Show::Libs) => libs(static_link).join(" "),
        Some(_) => format!("{} {}", program.to_string_lossy(), join(&full)),
        None => {
            let err = Command::new(program).args(&full).exec();
            eprintln!("{name}: cannot run {}: {err}", program.to_string_lossy());
            return 127;
        }
    };
    println!("{shown}");
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_follows_the_invoked_name() {
        assert_eq!(lang_from_argv0("/usr/bin/oshcc", Lang::C), Lang::C);
        assert_eq!(lang_from_argv0("shmemcc", Lang::C), Lang::C);
        assert_eq!(lang_from_argv0("oshc++", Lang::C), Lang::Cxx);
        assert_eq!(lang_from_argv0("target/debug/oshcxx", Lang::C), Lang::Cxx);
        assert_eq!(lang_from_argv0("oshCC", Lang::C), Lang::Cxx);
        // The C++ binary stays C++ under a name that does not say so.
        assert_eq!(lang_from_argv0("/usr/bin/mycompiler", Lang::Cxx), Lang::Cxx);
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

    #[test]
    fn showme_variants_parse_with_one_or_two_dashes() {
        for (arg, want) in [
            ("--showme", Show::All),
            ("-show", Show::All),
            ("--showme:compile", Show::Compile),
            ("-showme:link", Show::Link),
            ("--showme:command", Show::Command),
            ("--showme:incdirs", Show::Incdirs),
            ("-showme:libdirs", Show::Libdirs),
            ("--showme:libs", Show::Libs),
            ("--showme:version", Show::Version),
        ] {
            assert_eq!(parse_show(arg), Ok(Some(want)), "{arg}");
        }
        for other in ["-c", "x.c", "-showmelibs", "-I/x", "showme:libs"] {
            assert_eq!(parse_show(other), Ok(None), "{other}");
        }
        let e = parse_show("--showme:nope").unwrap_err();
        assert!(e.contains("--showme:nope"), "{e}");
    }

    #[test]
    fn libs_and_version_are_undecorated() {
        assert_eq!(libs(false), ["rshmem"]);
        let s = libs(true);
        assert_eq!(s[0], "rshmem");
        assert!(s.contains(&"pthread") && s.iter().all(|l| !l.starts_with("-l")));
        assert_eq!(
            version_line("oshc++", Lang::Cxx),
            format!("oshc++: rshmem {} (Language: C++)", env!("CARGO_PKG_VERSION"))
        );
    }
}
