//! The UCX shim (`src/transport/ucx/shim.c`), compiled with the system C
//! compiler into `librshmem_ucx.so` beside the library in the profile
//! directory, linked with UCX's `libucp` (flags from `pkg-config ucx`, else
//! `-lucp -lucs`). The library never links it: it dlopens it for jobs that
//! span nodes (`src/transport/ucx/shim.rs`).
//!
//! The compiler is `CC`, else `cc`. `RSHMEM_UCX=0` builds without it. A
//! machine without UCX's headers (Debian `libucx-dev`) builds without the
//! shim; where the MPI shim was built (so jobs across nodes can run), a
//! `cargo:warning` says why the UCX engine is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

const SOURCE: &str = "src/transport/ucx/shim.c";
const NAME: &str = "librshmem_ucx.so";

/// Builds the shim into `dir` (the profile directory, else `out`) and tells
/// the library where it is (`RSHMEM_UCX_SHIM_BUILT`). `mpi_built`: the MPI
/// shim exists, so a missing UCX deserves a word.
pub fn build(profile_dir: Option<&Path>, out: &Path, mpi_built: bool) {
    println!("cargo:rerun-if-changed={SOURCE}");
    println!("cargo:rerun-if-changed=src/transport/ucx/shim.h");
    println!("cargo:rerun-if-env-changed=RSHMEM_UCX");
    println!("cargo:rerun-if-env-changed=CC");
    if std::env::var("TARGET").ok() != std::env::var("HOST").ok() {
        return;
    }
    let dir = profile_dir.unwrap_or(out);
    let dest = dir.join(NAME);
    // A shim left by an earlier build would still be loaded.
    let _ = std::fs::remove_file(&dest);
    if std::env::var("RSHMEM_UCX").is_ok_and(|v| v == "0") {
        return;
    }
    let cc = std::env::var_os("CC").map_or_else(|| PathBuf::from("cc"), PathBuf::from);
    let (cflags, libs) = pkg_config();
    let tmp = dir.join(format!(".{NAME}.{}.tmp", std::process::id()));
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let result = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O2", "-std=gnu11", "-Wall"])
        .args(&cflags)
        .arg(format!("-Wl,-soname,{NAME}"))
        .arg("-o")
        .arg(&tmp)
        .arg(manifest.join(SOURCE))
        .args(&libs)
        .arg("-lpthread")
        .output();
    let failure = match result {
        Ok(o) if o.status.success() => match std::fs::rename(&tmp, &dest) {
            Ok(()) => {
                println!("cargo:rustc-env=RSHMEM_UCX_SHIM_BUILT={}", dest.display());
                return;
            }
            Err(e) => format!("cannot move it to {}: {e}", dest.display()),
        },
        Ok(o) => {
            let stderr = String::from_utf8_lossy(&o.stderr);
            if stderr.contains("ucp/api/ucp.h") {
                "UCX's headers are not installed (Debian: libucx-dev)".to_string()
            } else {
                format!("{}: {}", o.status, stderr.trim())
            }
        }
        Err(e) => e.to_string(),
    };
    let _ = std::fs::remove_file(&tmp);
    if mpi_built {
        for line in format!(
            "rshmem is built without its UCX engine (jobs across nodes use MPI-3 RMA): {} could not compile {SOURCE}: {failure}",
            cc.display()
        )
        .lines()
        {
            println!("cargo:warning={line}");
        }
    }
}

/// `pkg-config --cflags` and `--libs` of `ucx`, else the plain libraries.
fn pkg_config() -> (Vec<String>, Vec<String>) {
    let ask = |what: &str| -> Option<Vec<String>> {
        let o = Command::new("pkg-config").args([what, "ucx"]).output().ok()?;
        o.status.success().then(|| {
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .map(String::from)
                .collect()
        })
    };
    match (ask("--cflags"), ask("--libs")) {
        (Some(c), Some(l)) => (c, l),
        _ => (Vec::new(), vec!["-lucp".into(), "-lucs".into()]),
    }
}
