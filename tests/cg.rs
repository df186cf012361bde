//! The conjugate-gradient example (`examples/cg/`) in `cargo test`: the
//! dot products' reduction of each iteration done blocking
//! (`shmem_double_sum_reduce`) or non-blocking (`shmem_double_sum_reduce_nb`,
//! overlapped with the halo exchange and the matrix-vector product, then
//! `shmem_req_wait`). It is compiled once with this build's `oshcc`
//! (`-std=c11 -Wall -Wextra -Wpedantic -Werror -O3`) and every job runs with
//! its `oshrun`, one at a time.
//!
//! - At 1, 2 and 4 PEs (32^3 cells) both variants converge, their true
//!   residual is within 10 times the tolerance (`verified=yes`), and they
//!   print the same iteration count, sum of x and checksum (a hash of every
//!   bit of x): the same operations in the same order, whoever runs the
//!   reduction.
//! - The same with the non-blocking collectives run by the waiting thread
//!   (`RSHMEM_NBC_THREAD=off`) instead of the team's worker.
//! - A fixed iteration count (`-t 0 -i 20`): `verified=skipped`, exit
//!   status 0, 20 iterations, the two variants' checksums equal.
//! - Too few iterations to converge (`-i 5`): exit status 1, `verified=no`.
//! - A side the PE count does not divide (`-n 30` at 4 PEs): exit status 2,
//!   no RESULT, an error naming the side.
//! - Every peer remote (2 PEs under `mpirun`, `RSHMEM_NODE_SIZE=1`), with
//!   each engine to other nodes, and with `SHMEM_PROGRESS_THREAD=1` (which
//!   gives the non-blocking collectives a worker across nodes): both variants
//!   verify with the checksum of the one-node run at 2 PEs. Ignored when
//!   `mpirun` or `mpicc` is missing.

mod common;

use common::c_programs::compile;
use common::example_job::{ExampleJob, example_sources};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

const VARIANTS: [&str; 2] = ["blocking", "nb"];

/// Ends a job that hangs; each takes well under a second.
const TIMEOUT_S: u32 = 60;

/// The grid every check uses unless it says otherwise.
const SMALL: [&str; 2] = ["-n", "32"];

/// The example, compiled on first use.
fn binary() -> Result<PathBuf, Failed> {
    static EXE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let r = EXE.get_or_init(|| {
        let (sources, dir) = example_sources("cg")?;
        let exe = dir.join("cg");
        let mut cc = Command::new(env!("CARGO_BIN_EXE_oshcc"));
        cc.args(["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O3"])
            .args(&sources)
            .arg("-lm");
        compile(cc, &exe)?;
        Ok(exe)
    });
    r.clone().map_err(Failed::from)
}

type Run = ExampleJob;

/// What two runs must share: iterations, the sum of x and the checksum.
type Answer = [String; 3];

impl Run {
    /// Checks the exit status, the verdict and the RESULT fields in `want`
    /// and that the times are numbers; returns the answer.
    fn expect(&self, code: i32, verdict: &str, want: &[(&str, String)]) -> Result<Answer, Failed> {
        let mut want = want.to_vec();
        want.push(("verified", verdict.to_string()));
        let numbers = ["time", "iter_us", "reduce_us", "product_us", "update_us", "true_resid"];
        let r = self.check(code, &want, &numbers)?;
        let sum = r.get("checksum").copied().unwrap_or_default();
        if !(sum.len() == 18 && sum.starts_with("0x") && sum[2..].chars().all(|c| c.is_ascii_hexdigit())) {
            return Err(self.fail(format!("RESULT's checksum is {sum:?}, not 16 hex digits")));
        }
        let field = |k: &str| r.get(k).copied().unwrap_or_default().to_string();
        Ok([field("iter"), field("xsum"), sum.to_string()])
    }
}

/// Runs the example at `np` PEs with `args` and the variables `env`.
fn cg(np: usize, args: &[&str], env: &[(&str, &str)]) -> Result<Run, Failed> {
    let exe = binary()?;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_oshrun"));
    cmd.args(["-np", &np.to_string(), "--timeout", &TIMEOUT_S.to_string()])
        .arg(&exe)
        .args(args)
        .envs(env.iter().copied());
    let shown: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
    let command = format!("{}oshrun -np {np} cg {}", shown.concat(), args.join(" "));
    Run::run(cmd, command)
}

/// Both variants at `np` PEs verify with one answer, which is returned.
fn variants(np: usize, env: &[(&str, &str)]) -> Result<Answer, Failed> {
    let mut first: Option<Answer> = None;
    for v in VARIANTS {
        let run = cg(np, &[&["-v", v][..], &SMALL].concat(), env)?;
        let got = run.expect(
            0,
            "yes",
            &[
                ("variant", v.into()),
                ("pes", np.to_string()),
                ("converged", "1".into()),
            ],
        )?;
        match &first {
            None => first = Some(got),
            Some(f) if *f != got => {
                return Err(run.fail(format!("{v} answers {got:?}, {} answered {f:?}", VARIANTS[0])));
            }
            Some(_) => {}
        }
    }
    Ok(first.expect("two variants ran"))
}

fn fixed_count() -> Result<(), Failed> {
    let mut answers = Vec::new();
    for v in VARIANTS {
        let run = cg(2, &["-v", v, "-n", "32", "-t", "0", "-i", "20"], &[])?;
        answers.push(run.expect(0, "skipped", &[("iter", "20".into()), ("converged", "0".into())])?);
    }
    if answers[0] != answers[1] {
        return Err(format!(
            "blocking {:?} and nb {:?} differ after 20 iterations",
            answers[0], answers[1]
        )
        .into());
    }
    Ok(())
}

fn not_converged() -> Result<(), Failed> {
    let run = cg(2, &["-v", "nb", "-n", "32", "-i", "5"], &[])?;
    run.expect(1, "no", &[("iter", "5".into()), ("converged", "0".into())])?;
    Ok(())
}

fn refused() -> Result<(), Failed> {
    let run = cg(4, &["-n", "30"], &[])?;
    if run.code != 2 || run.stdout.contains("RESULT ") || !run.stderr.contains("side 30") {
        return Err(run.fail("expected exit status 2, no RESULT and an error naming side 30"));
    }
    Ok(())
}

/// Whether `mpirun` and `mpicc` are there (without `mpicc` the library has
/// no MPI part).
fn have_mpi() -> bool {
    ["mpirun", "mpicc"].iter().all(|t| common::mpi::on_path(t).is_some())
}

/// Every peer remote: both variants under each engine, with and without the
/// progress thread, give the one-node answer at 2 PEs.
fn remote() -> Result<(), Failed> {
    let want = variants(2, &[])?;
    let exe = binary()?;
    let engines = common::mpi::engines("cg")?;
    for engine in engines {
        for progress in ["0", "1"] {
            for v in VARIANTS {
                let mut cmd = common::mpi::mpirun();
                let vars = [
                    format!("RSHMEM_REMOTE={engine}"),
                    format!("SHMEM_PROGRESS_THREAD={progress}"),
                ];
                cmd.args(["-np", "2", "--timeout", &TIMEOUT_S.to_string()])
                    .args(common::mpi::one_host_flags())
                    .args(["-x", "RSHMEM_NODE_SIZE=1", "-x", &vars[0], "-x", &vars[1]])
                    .arg(&exe)
                    .args([&["-v", v][..], &SMALL].concat());
                let command = format!(
                    "mpirun -np 2 -x RSHMEM_NODE_SIZE=1 -x {} -x {} cg -v {v} -n 32",
                    vars[0], vars[1]
                );
                let run = Run::run(cmd, command)?;
                let got = run.expect(0, "yes", &[("variant", v.into()), ("pes", "2".into())])?;
                if got != want {
                    return Err(run.fail(format!("answers {got:?}, the one-node run {want:?}")));
                }
            }
        }
    }
    Ok(())
}

fn main() {
    let mut args = Arguments::from_args();
    // One job at a time: each is timed and CPU-bound.
    args.test_threads = Some(1);
    let mut trials = Vec::new();
    for np in [1, 2, 4] {
        trials.push(Trial::test(format!("variants np={np}"), move || {
            variants(np, &[]).map(|_| ())
        }));
    }
    trials.push(Trial::test("variants np=2 RSHMEM_NBC_THREAD=off", || {
        let off = variants(2, &[("RSHMEM_NBC_THREAD", "off")])?;
        let auto = variants(2, &[])?;
        if off != auto {
            return Err(format!("RSHMEM_NBC_THREAD=off answers {off:?}, auto {auto:?}").into());
        }
        Ok(())
    }));
    trials.push(Trial::test("fixed count (-t 0 -i 20) np=2", fixed_count));
    trials.push(Trial::test("not converged (-i 5) np=2", not_converged));
    trials.push(Trial::test("refused -n 30 np=4", refused));
    let mpi = Trial::test("every peer remote (mpirun) np=2", remote);
    trials.push(mpi.with_ignored_flag(!have_mpi()));
    libtest_mimic::run(&args, trials).exit();
}
