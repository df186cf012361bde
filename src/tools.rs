//! Names and files of the command-line tools, shared by `build.rs` (which
//! reads this file through `#[path]`, so it uses `std` only), the wrapper and
//! `cargo xtask install`: one definition of the alias names and of the
//! pkg-config file for the build tree and for an installed tree.

use std::path::{Path, PathBuf};

/// Names of the C++ wrapper that cargo cannot give a binary (`+` is not
/// allowed in a bin name): links to `oshcxx`, which is C++ whatever it is
/// called.
pub const CXX_ALIASES: [&str; 3] = ["oshc++", "shmemc++", "shmemcxx"];

/// The cargo profile directory (`target/<profile>`, or
/// `target/<triple>/<profile>`) that holds the binaries, from the build
/// script's `OUT_DIR` (`<profile>/build/<package>-<hash>/out`). `None` when
/// `OUT_DIR` does not have that shape (a `build-dir` configured apart from the
/// target directory): the build script cannot see the binaries' directory then.
pub fn profile_dir(out_dir: &Path) -> Option<PathBuf> {
    let build = out_dir.parent()?.parent()?;
    if build.file_name()? != "build" {
        return None;
    }
    build.parent().map(Path::to_path_buf)
}

/// The version of the library and its tools.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Makes `dir/<alias>` a relative symbolic link to `oshcxx` for every C++
/// alias, replacing what is there. The link may dangle until cargo links
/// `oshcxx` (the build script runs before the binaries are built).
pub fn link_cxx_aliases(dir: &Path) -> std::io::Result<()> {
    CXX_ALIASES
        .iter()
        .try_for_each(|alias| link_alias(dir, alias, "oshcxx"))
}

/// Makes `dir/alias` a relative symbolic link to `target` (a file of `dir`),
/// replacing what is there in one rename, so a concurrent user of the old
/// name never finds it missing.
pub fn link_alias(dir: &Path, alias: &str, target: &str) -> std::io::Result<()> {
    let tmp = dir.join(format!(".{alias}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)?;
    std::fs::rename(&tmp, dir.join(alias)).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// `rshmem.pc` for pkg-config. With a `prefix` (an installed tree) the
/// directories are written relative to it, as pkg-config users expect
/// (`pkg-config --define-variable=prefix=...` then relocates them).
pub fn pkg_config(prefix: Option<&Path>, include_dir: &Path, lib_dir: &Path, version: &str) -> String {
    let rel = |d: &Path| match prefix.and_then(|p| d.strip_prefix(p).ok()) {
        Some(r) => format!("${{prefix}}/{}", r.display()),
        None => d.display().to_string(),
    };
    let head = prefix.map_or(String::new(), |p| format!("prefix={}\n", p.display()));
    format!(
        "{head}includedir={}\nlibdir={}\n\nName: rshmem\nDescription: OpenSHMEM 1.6, in Rust\n\
         Version: {version}\nCflags: -I${{includedir}}\nLibs: -L${{libdir}} -Wl,-rpath,${{libdir}} -lrshmem\n",
        rel(include_dir),
        rel(lib_dir)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_dir_comes_from_out_dir() {
        let out = Path::new("/t/target/release/build/rshmem-0123abcd/out");
        assert_eq!(profile_dir(out), Some(PathBuf::from("/t/target/release")));
        let cross = Path::new("/t/target/x86_64-unknown-linux-gnu/debug/build/rshmem-1/out");
        assert_eq!(
            profile_dir(cross),
            Some(PathBuf::from("/t/target/x86_64-unknown-linux-gnu/debug"))
        );
        assert_eq!(profile_dir(Path::new("/elsewhere/out")), None);
    }

    #[test]
    fn pkg_config_is_relative_to_an_installed_prefix() {
        let p = Path::new("/opt/r");
        let pc = pkg_config(Some(p), &p.join("include"), &p.join("lib"), "1.2.3");
        assert!(pc.starts_with("prefix=/opt/r\nincludedir=${prefix}/include\nlibdir=${prefix}/lib\n"));
        assert!(pc.contains("Version: 1.2.3\n"));
        assert!(pc.contains("Libs: -L${libdir} -Wl,-rpath,${libdir} -lrshmem\n"));
        let tree = pkg_config(None, Path::new("/src/include"), Path::new("/src/target/release"), "1");
        assert!(tree.starts_with("includedir=/src/include\nlibdir=/src/target/release\n"));
    }

    #[test]
    fn aliases_link_to_oshcxx_and_replace_old_files() {
        let dir = std::env::temp_dir().join(format!("rshmem-aliases-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("oshc++"), "stale").unwrap();
        link_cxx_aliases(&dir).unwrap();
        link_cxx_aliases(&dir).unwrap(); // idempotent
        for a in CXX_ALIASES {
            assert_eq!(std::fs::read_link(dir.join(a)).unwrap(), Path::new("oshcxx"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
