//! Programs written for the peers, from their own public sources, compile
//! with this build's `oshcc` (`oshcxx` for C++) without an edit and pass under
//! `oshrun` at 2 and 4 PEs: Sandia OpenSHMEM's extension tests (every program
//! of `test/shmemx` in a checkout of the `tests-sos` repository: counting
//! puts, performance counters, `shmemx_register_gettid`, the no-barrier
//! allocation hint, `SHMEMX_TEAM_NODE`, the signal and scan names, the C11
//! and C++ `shmemx_` generics) and Open MPI's OSHMEM examples (`examples/`
//! of an Open MPI source tree: `hello_oshmem_c.c`, `ring_oshmem_c.c`,
//! `oshmem_*.c`, `hello_oshmem_cxx.cc`).
//!
//! Their code is not part of this repository, so the test runs where those
//! sources are: `RSHMEM_TESTS_SOS` names the `tests-sos` checkout (the
//! directory holding `test/`), `RSHMEM_OMPI_SOURCE` the Open MPI tree. Without
//! either it says so and passes; with one set, every program it finds must
//! build and pass. `scripts/sos-suite.sh` runs the whole SOS suite, across
//! nodes too.

use std::path::{Path, PathBuf};
use std::process::Command;

const OSHCC: &str = env!("CARGO_BIN_EXE_oshcc");
const OSHCXX: &str = env!("CARGO_BIN_EXE_oshcxx");
const OSHRUN: &str = env!("CARGO_BIN_EXE_oshrun");

/// A peer's program: its source, the extra compiler flags its suite builds
/// it with, and the PE counts it runs at.
struct Peer {
    source: PathBuf,
    flags: Vec<String>,
    nps: &'static [usize],
}

/// Every C and C++ source directly in `dir` whose name passes `keep`.
fn sources(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            ["c", "cpp", "cc"]
                .iter()
                .any(|x| p.extension().is_some_and(|e| e == *x))
                && keep(name)
        })
        .collect();
    found.sort();
    found
}

/// The programs of the trees named by the environment, and which were named.
fn peers() -> (Vec<Peer>, Vec<&'static str>) {
    let mut peers = Vec::new();
    let mut named = Vec::new();
    if let Some(sos) = std::env::var_os("RSHMEM_TESTS_SOS") {
        named.push("RSHMEM_TESTS_SOS");
        let sos = PathBuf::from(sos);
        let include = format!("-I{}", sos.join("test/include").display());
        for source in sources(&sos.join("test/shmemx"), |_| true) {
            peers.push(Peer {
                source,
                flags: vec![
                    "-DENABLE_SHMEMX_TESTS".into(),
                    include.clone(),
                    "-lpthread".into(),
                    "-lm".into(),
                ],
                nps: &[2, 4],
            });
        }
    }
    if let Some(ompi) = std::env::var_os("RSHMEM_OMPI_SOURCE") {
        named.push("RSHMEM_OMPI_SOURCE");
        let examples = PathBuf::from(ompi).join("examples");
        for source in sources(&examples, |n| n.contains("oshmem") && !n.ends_with("fh.f90")) {
            peers.push(Peer {
                source,
                flags: vec![],
                nps: &[2, 4],
            });
        }
    }
    (peers, named)
}

/// Builds and runs one program at each of its PE counts: what went wrong.
fn check(peer: &Peer, out: &Path) -> Result<(), String> {
    let name = peer.source.file_stem().and_then(|n| n.to_str()).unwrap_or("program");
    let exe = out.join(name);
    let cxx = peer.source.extension().is_some_and(|e| e != "c");
    let built = Command::new(if cxx { OSHCXX } else { OSHCC })
        .arg("-O1")
        .arg(&peer.source)
        .args(&peer.flags)
        .arg("-o")
        .arg(&exe)
        .output()
        .map_err(|e| format!("cannot run the compiler: {e}"))?;
    if !built.status.success() {
        return Err(format!("does not build:\n{}", String::from_utf8_lossy(&built.stderr)));
    }
    for &np in peer.nps {
        let ran = Command::new(OSHRUN)
            .args(["-np", &np.to_string(), "--timeout", "120"])
            .arg(&exe)
            .env_remove("LD_LIBRARY_PATH")
            .output()
            .map_err(|e| format!("cannot run oshrun: {e}"))?;
        if !ran.status.success() {
            return Err(format!(
                "fails at {np} PEs ({}):\n{}{}",
                ran.status,
                String::from_utf8_lossy(&ran.stdout),
                String::from_utf8_lossy(&ran.stderr)
            ));
        }
    }
    Ok(())
}

#[test]
fn peer_programs_build_unchanged_and_pass() {
    let (peers, named) = peers();
    if named.is_empty() {
        println!(
            "peer_programs: skipped: set RSHMEM_TESTS_SOS to a tests-sos checkout and/or RSHMEM_OMPI_SOURCE \
             to an Open MPI source tree to build and run their programs"
        );
        return;
    }
    assert!(!peers.is_empty(), "{} name no programs", named.join(" and "));
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("peer_programs");
    std::fs::create_dir_all(&out).unwrap();
    let mut failed = Vec::new();
    for peer in &peers {
        match check(peer, &out) {
            Ok(()) => println!("ok {}", peer.source.display()),
            Err(why) => failed.push(format!("{}: {why}", peer.source.display())),
        }
    }
    println!(
        "peer programs: {} passed, {} failed",
        peers.len() - failed.len(),
        failed.len()
    );
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}
