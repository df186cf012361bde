//! Python users: shmem4py (the mpi4py project's OpenSHMEM binding) builds
//! against rshmem with its `oshcc` unchanged, and its own test suite passes
//! at 1, 2 and 4 PEs under `oshrun`, as a user would run it
//! (`oshrun -n N python -m unittest discover -s test`).
//!
//! The test makes a virtual environment under the target directory, installs
//! shmem4py's build and run dependencies and its pinned source release from
//! PyPI, and builds it with `OSHCC` set to this build's `oshcc`. shmem4py
//! 1.0.0 predates NumPy 2 (it calls `np.array(..., copy=False)`), so NumPy
//! stays below 2. Without Python's venv module, its headers or the network,
//! the test says why and passes, unless `RSHMEM_REQUIRE_SHMEM4PY=1` (set by
//! `.ci/run`, which installs what it needs).

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

const SHMEM4PY: &str = "shmem4py==1.0.0";
const OSHCC: &str = env!("CARGO_BIN_EXE_oshcc");

/// Runs `cmd`; its combined output on failure.
fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    match out.status.success() {
        true => Ok(text),
        false => Err(format!("{cmd:?} failed ({}):\n{text}", out.status)),
    }
}

/// The environment with shmem4py installed, and its unpacked source (for
/// its tests); an error saying what was missing.
fn install(dir: &Path) -> Result<(PathBuf, PathBuf), String> {
    let venv = dir.join("venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    }
    let pip = |args: &[&str]| {
        run(Command::new(&python)
            .args(["-m", "pip", "--disable-pip-version-check", "-q"])
            .args(args))
    };
    pip(&["install", "numpy<2", "cffi", "setuptools", "wheel"])?;
    let sdist = dir.join("sdist");
    pip(&[
        "download",
        "--no-deps",
        "--no-binary",
        ":all:",
        "-d",
        sdist.to_str().unwrap(),
        SHMEM4PY,
    ])?;
    let tarball = std::fs::read_dir(&sdist)
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".tar.gz"))
        .ok_or("no shmem4py source archive downloaded")?;
    let src = dir.join("src");
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
    run(Command::new("tar").arg("xzf").arg(&tarball).arg("-C").arg(&src))?;
    let tree = std::fs::read_dir(&src)
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.is_dir())
        .ok_or("the shmem4py archive holds no directory")?;
    Ok((python, tree))
}

#[test]
fn shmem4py_builds_and_its_suite_passes() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shmem4py");
    let required = std::env::var("RSHMEM_REQUIRE_SHMEM4PY").is_ok_and(|v| v == "1");
    let (python, tree) = match install(&dir) {
        Ok(found) => found,
        Err(why) if !required => {
            eprintln!("shmem4py test skipped (RSHMEM_REQUIRE_SHMEM4PY=1 makes this a failure): {why}");
            return;
        }
        Err(why) => panic!("RSHMEM_REQUIRE_SHMEM4PY=1 but shmem4py's prerequisites failed: {why}"),
    };
    // The build: what fails here is rshmem's (its headers as shmem4py reads them).
    let built = run(Command::new(&python)
        .args([
            "-m",
            "pip",
            "--disable-pip-version-check",
            "install",
            "--force-reinstall",
            "--no-deps",
        ])
        .args(["--no-build-isolation", "--no-cache-dir", "."])
        .current_dir(&tree)
        .env("OSHCC", OSHCC));
    if let Err(why) = built {
        panic!("shmem4py does not build with rshmem's oshcc: {why}");
    }
    for np in ["1", "2", "4"] {
        let out = run(Command::new(common::OSHRUN)
            .args(["--allow-run-as-root", "-np", np])
            .arg(&python)
            .args(["-m", "unittest", "discover", "-s", "test"])
            .current_dir(&tree))
        .unwrap_or_else(|why| panic!("shmem4py's suite at {np} PEs: {why}"));
        let n: usize = np.parse().unwrap();
        let passed = out.lines().filter(|l| *l == "OK").count();
        let ran = out.lines().filter(|l| l.starts_with("Ran 110 tests")).count();
        assert!(
            passed == n && ran == n,
            "shmem4py's suite at {np} PEs: {n} PEs should each say 'Ran 110 tests' and OK:\n{out}"
        );
    }
}
