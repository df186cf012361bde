//! A finished run of an example program that ends its output with one
//! `RESULT key=value ...` line (examples/ft, examples/halo), for the tests
//! that check those fields.

use super::c_programs::{clip, shm_leftovers};
use libtest_mimic::Failed;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The C sources of `examples/<name>/`, sorted, and a directory under the
/// test target's scratch space for the binaries built from them.
pub fn example_sources(name: &str) -> Result<(Vec<PathBuf>, PathBuf), String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(name);
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&src)
        .map_err(|e| format!("cannot list {}: {e}", src.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    sources.sort();
    if sources.is_empty() {
        return Err(format!("no C sources in {}", src.display()));
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    Ok((sources, dir))
}

pub struct ExampleJob {
    /// The command as a user would type it, for failure reports.
    pub command: String,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl ExampleJob {
    /// Runs `cmd` (described as `command`) as a user would: cargo test puts
    /// target/debug on LD_LIBRARY_PATH, which would beat oshcc's rpath.
    pub fn run(mut cmd: Command, command: String) -> Result<ExampleJob, Failed> {
        cmd.env_remove("LD_LIBRARY_PATH");
        let out = cmd.output().map_err(|e| format!("cannot run {command}: {e}"))?;
        Ok(ExampleJob {
            command,
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }

    /// A failure that shows `why` and the job's command and output.
    pub fn fail(&self, why: impl std::fmt::Display) -> Failed {
        format!(
            "{why}\n--- command: {}\n--- exit status: {}\n--- stdout:\n{}\n--- stderr:\n{}",
            self.command,
            self.code,
            clip(&self.stdout),
            clip(&self.stderr)
        )
        .into()
    }

    /// The fields of PE 0's `RESULT key=value ...` line.
    pub fn result(&self) -> Result<BTreeMap<&str, &str>, Failed> {
        let lines: Vec<&str> = self.stdout.lines().filter_map(|l| l.strip_prefix("RESULT ")).collect();
        match lines[..] {
            [line] => Ok(line.split_whitespace().filter_map(|kv| kv.split_once('=')).collect()),
            _ => Err(self.fail(format!("{} RESULT lines, expected 1", lines.len()))),
        }
    }

    /// Checks the exit status, the RESULT fields in `want`, that the fields
    /// `numbers` are non-negative numbers and that the job left nothing in
    /// /dev/shm. Returns the RESULT fields.
    pub fn check(&self, code: i32, want: &[(&str, String)], numbers: &[&str]) -> Result<BTreeMap<&str, &str>, Failed> {
        if self.code != code {
            return Err(self.fail(format!("exit status {}, expected {code}", self.code)));
        }
        let r = self.result()?;
        for (k, v) in want {
            if r.get(k) != Some(&v.as_str()) {
                return Err(self.fail(format!("RESULT has {k}={:?}, expected {v}", r.get(k))));
            }
        }
        for k in numbers {
            if !r.get(k).and_then(|v| v.parse::<f64>().ok()).is_some_and(|v| v >= 0.0) {
                return Err(self.fail(format!("RESULT's {k} is {:?}, not a number", r.get(k))));
            }
        }
        let left = shm_leftovers();
        if !left.is_empty() {
            return Err(self.fail(format!("files left in /dev/shm: {left:?}")));
        }
        Ok(r)
    }
}
