//! The MPI shim (`src/transport/mpi/shim.c`), compiled with the MPI's own
//! `mpicc` into `librshmem_mpi.so` beside the library in the profile
//! directory, when an MPI is installed. The library never links it: it
//! dlopens it for jobs started by an MPI launcher (`src/transport/mpi/shim.rs`).
//!
//! The compiler is `RSHMEM_MPICC` if set (empty: build without MPI), else
//! `mpicc` on `PATH`. Without one this emits nothing and warns of nothing:
//! the build never needs MPI. A compiler that fails is a `cargo:warning`,
//! and the library is built without the shim.

use std::path::{Path, PathBuf};
use std::process::Command;

const SOURCE: &str = "src/transport/mpi/shim.c";
const NAME: &str = "librshmem_mpi.so";

/// Builds the shim into `dir` (the profile directory, else `out`) and tells
/// the library where it is (`RSHMEM_MPI_SHIM_BUILT`); whether it did.
pub fn build(profile_dir: Option<&Path>, out: &Path) -> bool {
    println!("cargo:rerun-if-changed={SOURCE}");
    println!("cargo:rerun-if-changed=src/transport/mpi/shim.h");
    println!("cargo:rerun-if-env-changed=RSHMEM_MPICC");
    println!("cargo:rerun-if-env-changed=PATH");
    // mpicc makes code for this machine only.
    if std::env::var("TARGET").ok() != std::env::var("HOST").ok() {
        return false;
    }
    let dir = profile_dir.unwrap_or(out);
    let dest = dir.join(NAME);
    let Some(mpicc) = compiler() else {
        // A shim left by an earlier build with MPI would still be loaded.
        let _ = std::fs::remove_file(&dest);
        return false;
    };
    // Built under a temporary name and renamed, so a test running against
    // the previous shim never sees a half-written file.
    let tmp = dir.join(format!(".{NAME}.{}.tmp", std::process::id()));
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let result = Command::new(&mpicc)
        .args(["-shared", "-fPIC", "-O2", "-std=gnu11", "-Wall"])
        .arg(format!("-Wl,-soname,{NAME}"))
        .arg("-o")
        .arg(&tmp)
        .arg(manifest.join(SOURCE))
        .output();
    let failure = match result {
        Ok(o) if o.status.success() => match std::fs::rename(&tmp, &dest) {
            Ok(()) => {
                println!("cargo:rustc-env=RSHMEM_MPI_SHIM_BUILT={}", dest.display());
                return true;
            }
            Err(e) => format!("cannot move it to {}: {e}", dest.display()),
        },
        Ok(o) => format!("{}: {}", o.status, String::from_utf8_lossy(&o.stderr).trim()),
        Err(e) => e.to_string(),
    };
    let _ = std::fs::remove_file(&tmp);
    let _ = std::fs::remove_file(&dest);
    for line in format!(
        "{} failed to compile {SOURCE}; rshmem is built without MPI: {failure}",
        mpicc.display()
    )
    .lines()
    {
        println!("cargo:warning={line}");
    }
    false
}

/// `RSHMEM_MPICC`, or `mpicc` found on `PATH`.
fn compiler() -> Option<PathBuf> {
    if let Some(cc) = std::env::var_os("RSHMEM_MPICC") {
        return (!cc.is_empty()).then(|| PathBuf::from(cc));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("mpicc"))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
