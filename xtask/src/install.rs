//! `cargo xtask install [--prefix DIR] [--from BUILD_DIR]`: installs the
//! tools, libraries, headers, pkg-config file and documentation under one
//! prefix (default `/usr/local`):
//!
//! ```text
//! bin/      oshcc shmemcc oshcxx oshc++ shmemc++ shmemcxx oshrun shmemrun
//! lib/      librshmem.so librshmem.a librshmem-profiling.a pkgconfig/rshmem.pc
//!           librshmem_trace.so (the SHMEM_TRACE layer oshrun preloads)
//!           librshmem_mpi.so (if the build made it: an MPI was installed)
//!           librshmem_ucx.so (if the build made it: UCX was installed)
//! include/  every file under the sources' include/ (mpp/ and all)
//! share/doc/rshmem/  README.md docs/
//! ```
//!
//! Installed wrappers find `include/` and `lib/` beside their `bin/` and link
//! with an rpath into `PREFIX/lib` (see `rshmem::wrapper`), so nothing
//! installed refers to the build tree. This file uses `std` and `rshmem` only:
//! `tests/install.rs` compiles it too, and installs from a copy of the build.

use rshmem::tools;
use std::path::{Path, PathBuf};

pub const USAGE: &str = "install [--prefix DIR] [--from BUILD_DIR]";

/// Binaries copied from the build directory; every other command is a link.
const BINARIES: [&str; 3] = ["oshcc", "oshcxx", "oshrun"];
/// (alias, binary it links to) besides the C++ aliases.
const ALIASES: [(&str, &str); 2] = [("shmemcc", "oshcc"), ("shmemrun", "oshrun")];
/// Libraries copied from the build directory, with their mode.
/// `librshmem_trace.so` is the trace layer: the installed oshrun preloads it
/// from its `../lib` when `SHMEM_TRACE` is set.
const LIBRARIES: [(&str, u32); 3] = [
    ("librshmem.so", 0o755),
    ("librshmem.a", 0o644),
    ("librshmem_trace.so", 0o755),
];
/// The MPI shim, which a build makes only where it finds an MPI. librshmem.so
/// loads it from its own directory, so it goes beside it.
/// The engines' shims, installed when the build made them.
const SHIMS: [&str; 2] = ["librshmem_mpi.so", "librshmem_ucx.so"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Absolute: the wrappers' rpath is made from it.
    pub prefix: PathBuf,
    /// A build directory to install from instead of building release.
    pub from: Option<PathBuf>,
}

impl Options {
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut prefix = PathBuf::from("/usr/local");
        let mut from = None;
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = it
                .next()
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("{flag} needs a value\nusage: cargo xtask {USAGE}"))?;
            match flag.as_str() {
                "--prefix" => prefix = PathBuf::from(value),
                "--from" => from = Some(PathBuf::from(value)),
                _ => return Err(format!("unknown option {flag}\nusage: cargo xtask {USAGE}")),
            }
        }
        let prefix = std::path::absolute(&prefix).map_err(|e| format!("--prefix {}: {e}", prefix.display()))?;
        Ok(Options { prefix, from })
    }
}

/// What an install is made of: the build directory (binaries, libraries)
/// and the source tree (`include/`, `README.md`, `docs/`).
#[derive(Debug, Clone)]
pub struct Sources {
    pub build_dir: PathBuf,
    pub source_dir: PathBuf,
}

/// Installs under `prefix`; returns the files and links written, in order.
pub fn install(src: &Sources, prefix: &Path) -> Result<Vec<PathBuf>, String> {
    let missing: Vec<String> = BINARIES
        .iter()
        .map(|b| src.build_dir.join(b))
        .chain(LIBRARIES.iter().map(|(l, _)| src.build_dir.join(l)))
        .chain([src.source_dir.join("include/shmem.h"), src.source_dir.join("README.md")])
        .filter(|p| !p.is_file())
        .map(|p| p.display().to_string())
        .collect();
    if !missing.is_empty() {
        return Err(format!("cannot install, missing: {}", missing.join(", ")));
    }
    let (bin, lib) = (prefix.join("bin"), prefix.join("lib"));
    let doc = prefix.join("share/doc/rshmem");
    for d in [&bin, &lib, &lib.join("pkgconfig"), &prefix.join("include"), &doc] {
        std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
    }
    let mut done = Vec::new();
    for b in BINARIES {
        done.push(copy_file(&src.build_dir.join(b), &bin.join(b), 0o755)?);
    }
    let links = ALIASES
        .iter()
        .copied()
        .chain(tools::CXX_ALIASES.iter().map(|a| (*a, "oshcxx")));
    for (alias, target) in links {
        tools::link_alias(&bin, alias, target)
            .map_err(|e| format!("cannot link {}: {e}", bin.join(alias).display()))?;
        done.push(bin.join(alias));
    }
    for (l, mode) in LIBRARIES {
        done.push(copy_file(&src.build_dir.join(l), &lib.join(l), mode)?);
    }
    for shim in SHIMS {
        if src.build_dir.join(shim).is_file() {
            done.push(copy_file(&src.build_dir.join(shim), &lib.join(shim), 0o755)?);
        } else if lib.join(shim).is_file() {
            // An earlier install's shim would be loaded by this library.
            std::fs::remove_file(lib.join(shim))
                .map_err(|e| format!("cannot remove the old {}: {e}", lib.join(shim).display()))?;
        }
    }
    // Made here, after librshmem.a, so it is the newer and the wrapper takes it.
    let weak = lib.join("librshmem-profiling.a");
    rshmem::wrapper::make_profiling_archive(&lib.join("librshmem.a"), &weak)
        .map_err(|e| format!("cannot make the profiling archive {}: {e}", weak.display()))?;
    done.push(weak);
    done.extend(copy_tree(&src.source_dir.join("include"), &prefix.join("include"))?);
    let pc = lib.join("pkgconfig/rshmem.pc");
    let text = tools::pkg_config(Some(prefix), &prefix.join("include"), &lib, tools::VERSION);
    std::fs::write(&pc, text).map_err(|e| format!("cannot write {}: {e}", pc.display()))?;
    done.push(pc);
    done.push(copy_file(
        &src.source_dir.join("README.md"),
        &doc.join("README.md"),
        0o644,
    )?);
    let docs = src.source_dir.join("docs");
    if docs.is_dir() {
        done.extend(copy_tree(&docs, &doc.join("docs"))?);
    }
    Ok(done)
}

/// Copies `from` to `to` through a temporary file renamed into place, so a
/// program running the old binary or library keeps its copy intact.
fn copy_file(from: &Path, to: &Path, mode: u32) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let name = to
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = to.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::copy(from, &tmp)
        .and_then(|_| std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode)))
        .and_then(|()| std::fs::rename(&tmp, to));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot install {} as {}: {e}", from.display(), to.display()));
    }
    Ok(to.to_path_buf())
}

/// Copies every file under `from` to the same place under `to`.
fn copy_tree(from: &Path, to: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    let mut names: Vec<_> = entries
        .map(|e| e.map(|e| e.file_name()))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    names.sort();
    std::fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let mut done = Vec::new();
    for name in names {
        let (f, t) = (from.join(&name), to.join(&name));
        if f.is_dir() {
            done.extend(copy_tree(&f, &t)?);
        } else {
            done.push(copy_file(&f, &t, 0o644)?);
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_default_to_usr_local_and_make_the_prefix_absolute() {
        assert_eq!(
            Options::parse(&[]).unwrap(),
            Options {
                prefix: "/usr/local".into(),
                from: None
            }
        );
        let o = Options::parse(&args(&["--prefix", "rel/dir", "--from", "/b"])).unwrap();
        assert!(o.prefix.is_absolute() && o.prefix.ends_with("rel/dir"), "{o:?}");
        assert_eq!(o.from, Some(PathBuf::from("/b")));
        assert!(Options::parse(&args(&["--prefix"])).is_err());
        assert!(Options::parse(&args(&["--prefix", ""])).is_err());
        assert!(
            Options::parse(&args(&["--destdir", "/x"]))
                .unwrap_err()
                .contains("--destdir")
        );
    }

    #[test]
    fn a_missing_build_is_reported_before_anything_is_written() {
        let prefix = std::env::temp_dir().join(format!("rshmem-install-missing-{}", std::process::id()));
        let src = Sources {
            build_dir: prefix.join("no-build"),
            source_dir: prefix.join("no-source"),
        };
        let e = install(&src, &prefix).unwrap_err();
        assert!(e.contains("no-build/oshcc") && e.contains("librshmem.so"), "{e}");
        assert!(!prefix.exists(), "nothing written");
    }
}
