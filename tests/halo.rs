//! The halo-exchange example (`examples/halo/`) in `cargo test`. Its sources
//! are compiled once with this build's `oshcc` (`-std=c11 -Wall -Wextra
//! -Wpedantic -Werror -O3`, as the example promises to build) and every job
//! runs with its `oshrun`, one at a time (each is timed and CPU-bound).
//!
//! - Each mode (bulk, notify, threads) at 1, 2, 4 and 8 PEs on the global
//!   24^3 cube (`-G 24 -i 4 -w 1`): verified against PE 0's serial run, the
//!   PE grid and sub-cube as MPI_Dims_create would split it, the bytes of the
//!   26 messages that sub-cube gives, and a checksum identical to the one of
//!   bulk at 1 PE: every mode and PE count computes the same domain.
//! - Without the stencil (`-s 0`) each mode verifies too, and all print one
//!   checksum: then the ghost cells are compared and summed, so this checks
//!   what the exchange itself delivered. The same on a domain too large to
//!   verify (`-n 52` at 2 PEs: `verified=skipped`), where the checksum is the
//!   only check.
//! - threads mode with 1 and 3 worker threads: verified, same checksum.
//! - A perturbed initial cell (`-p 100`) fails verification in every mode:
//!   exit status 1, `verified=no` and the first differing cell named.
//! - A grid whose product is not the PE count (`-g 3x1x1` at 2 PEs) and a
//!   global side the grid does not divide (`-G 25` at 2 PEs) are refused:
//!   exit status 2, no RESULT, an error naming the grid or the side.
//! - The seed's smallest cube (`-c 200`, notify, 2 PEs): a 50^3 sub-cube per
//!   PE, whose 26 messages are the seed's Table 2 sizes (6 faces of 60000
//!   bytes, 12 edges of 1200, 8 corners of 24: 374592 bytes).
//! - Across virtual nodes: each mode at 4 PEs started by Open MPI's `mpirun`
//!   with `RSHMEM_NODE_SIZE=2` (two nodes of two PEs: every PE has one
//!   neighbour in shared memory and one through MPI), verified, with the
//!   same checksum. Ignored when `mpirun` or `mpicc` is missing.
//!
//! The program's command line and output are described in
//! examples/halo/README.md.

mod common;

use common::c_programs::compile;
use common::example_job::{ExampleJob, example_sources};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

const MODES: [&str; 3] = ["bulk", "notify", "threads"];

/// Ends a job that hangs; each takes well under a second.
const TIMEOUT_S: u32 = 30;

/// The run every check uses unless it says otherwise.
const SMALL: [&str; 6] = ["-G", "24", "-i", "4", "-w", "1"];

/// The example, compiled on first use.
fn binary() -> Result<PathBuf, Failed> {
    static EXE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let r = EXE.get_or_init(|| {
        let (sources, dir) = example_sources("halo")?;
        let exe = dir.join("halo");
        let mut cc = Command::new(env!("CARGO_BIN_EXE_oshcc"));
        cc.args(["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O3"])
            .args(&sources)
            .args(["-lpthread", "-lm"]);
        compile(cc, &exe)?;
        Ok(exe)
    });
    r.clone().map_err(Failed::from)
}

type Run = ExampleJob;

impl Run {
    /// Checks the exit status, the verdict and the RESULT fields in `want`,
    /// that the times are numbers and that the job left nothing in /dev/shm.
    /// Returns the checksum.
    fn expect(&self, code: i32, verdict: &str, want: &[(&str, String)]) -> Result<String, Failed> {
        let mut want = want.to_vec();
        want.extend([("verified", verdict.to_string()), ("messages", "26".to_string())]);
        let numbers = ["halo_us", "pack_us", "wait_us", "unpack_us", "stencil_us", "iter_us"];
        let r = self.check(code, &want, &numbers)?;
        let sum = r.get("checksum").copied().unwrap_or_default();
        if !(sum.len() == 18 && sum.starts_with("0x") && sum[2..].chars().all(|c| c.is_ascii_hexdigit())) {
            return Err(self.fail(format!("RESULT's checksum is {sum:?}, not 16 hex digits")));
        }
        Ok(sum.to_string())
    }
}

/// Runs the example at `np` PEs with `args`.
fn halo(np: usize, args: &[&str]) -> Result<Run, Failed> {
    let exe = binary()?;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_oshrun"));
    cmd.args(["-np", &np.to_string(), "--timeout", &TIMEOUT_S.to_string()])
        .arg(&exe)
        .args(args);
    let command = format!("oshrun -np {np} halo {}", args.join(" "));
    Run::run(cmd, command)
}

/// Runs the example at `np` PEs under `mpirun`, on virtual nodes of
/// `node_size` PEs, with MPI kept off shared memory (tests/common/mpi.rs).
fn halo_mpi(np: usize, node_size: usize, args: &[&str]) -> Result<Run, Failed> {
    let exe = binary()?;
    let mut cmd = common::mpi::mpirun();
    cmd.args(["-np", &np.to_string(), "--timeout", &TIMEOUT_S.to_string()])
        .args(common::mpi::one_host_flags())
        .args(["-x", &format!("RSHMEM_NODE_SIZE={node_size}")])
        .arg(&exe)
        .args(args);
    let command = format!(
        "mpirun -np {np} -x RSHMEM_NODE_SIZE={node_size} halo {}",
        args.join(" ")
    );
    Run::run(cmd, command)
}

/// Whether `mpirun` and `mpicc` are there (without `mpicc` the library has
/// no MPI part).
fn have_mpi() -> bool {
    ["mpirun", "mpicc"].iter().all(|t| common::mpi::on_path(t).is_some())
}

/// The PE grid of MPI_Dims_create for the PE counts tested.
fn grid(np: usize) -> [usize; 3] {
    match np {
        1 => [1, 1, 1],
        2 => [2, 1, 1],
        4 => [2, 2, 1],
        8 => [2, 2, 2],
        _ => unreachable!("no grid listed for {np} PEs"),
    }
}

/// Bytes of a PE's 26 messages for a sub-cube of a x b x c cells, 24 bytes
/// each: 6 faces, 12 edges (4 along each axis), 8 corners.
fn message_bytes([a, b, c]: [usize; 3]) -> usize {
    24 * (2 * (a * b + b * c + a * c) + 4 * (a + b + c) + 8)
}

fn dims(d: [usize; 3]) -> String {
    format!("{}x{}x{}", d[0], d[1], d[2])
}

/// The checksum of bulk at 1 PE on the small cube, which every other run of
/// that cube must print.
fn reference() -> Result<String, Failed> {
    static SUM: OnceLock<Result<String, String>> = OnceLock::new();
    let r = SUM.get_or_init(|| {
        let args = [&["-m", "bulk"][..], &SMALL].concat();
        let text = |e: Failed| e.message().unwrap_or("failed").to_string();
        let run = halo(1, &args).map_err(text)?;
        run.expect(0, "yes", &[]).map_err(text)
    });
    r.clone().map_err(Failed::from)
}

/// The same checksum as the reference, or a failure naming both.
fn same_sum(run: &Run, sum: &str) -> Result<(), Failed> {
    let want = reference()?;
    if sum != want {
        return Err(run.fail(format!("checksum {sum}, but bulk at 1 PE printed {want}")));
    }
    Ok(())
}

/// Every mode at `np` PEs verifies, splits the cube as expected, sends the
/// bytes its sub-cube gives, and prints the reference checksum.
fn modes(np: usize) -> Result<(), Failed> {
    let g = grid(np);
    let sub = [24 / g[0], 24 / g[1], 24 / g[2]];
    for m in MODES {
        let run = halo(np, &[&["-m", m][..], &SMALL].concat())?;
        let threads = if m == "threads" { "2" } else { "1" };
        let want = [
            ("mode", m.to_string()),
            ("pes", np.to_string()),
            ("grid", dims(g)),
            ("sub", dims(sub)),
            ("iters", "4".to_string()),
            ("threads", threads.to_string()),
            ("bytes", message_bytes(sub).to_string()),
        ];
        let sum = run.expect(0, "yes", &want)?;
        same_sum(&run, &sum)?;
    }
    Ok(())
}

/// `-s 0`: every mode verifies its ghost cells (on the small cube) or is too
/// large to verify (`-n 52`), reports no stencil time, and prints the same
/// checksum as the other modes.
fn exchange_only(size: &[&str], verdict: &str) -> Result<(), Failed> {
    let mut first: Option<(String, Run)> = None;
    for m in MODES {
        let run = halo(2, &[&["-m", m, "-s", "0", "-i", "2", "-w", "1"][..], size].concat())?;
        let sum = run.expect(
            0,
            verdict,
            &[("mode", m.to_string()), ("stencil_us", "0.0".to_string())],
        )?;
        match &first {
            None => first = Some((sum, run)),
            Some((want, _)) if *want != sum => {
                return Err(run.fail(format!("checksum {sum}, but {} printed {want}", MODES[0])));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// threads mode with `t` worker threads.
fn threads(t: usize) -> Result<(), Failed> {
    let ts = t.to_string();
    let run = halo(2, &[&["-m", "threads", "-t", &ts][..], &SMALL].concat())?;
    let sum = run.expect(0, "yes", &[("threads", ts.clone())])?;
    same_sum(&run, &sum)
}

/// `-p 100`: every mode fails verification and names the first difference.
fn perturbed() -> Result<(), Failed> {
    for m in MODES {
        let run = halo(2, &[&["-m", m, "-p", "100"][..], &SMALL].concat())?;
        run.expect(1, "no", &[("mode", m.to_string())])?;
        if !run.stdout.contains("first difference") {
            return Err(run.fail("no line names the first difference"));
        }
    }
    Ok(())
}

/// A refused run: exit status 2, no RESULT line, one error line with every
/// string of `names`.
fn refused(np: usize, args: &[&str], names: &[&str]) -> Result<(), Failed> {
    let run = halo(np, args)?;
    if run.code != 2 {
        return Err(run.fail(format!("exit status {}, expected 2", run.code)));
    }
    if run.stdout.contains("RESULT ") {
        return Err(run.fail("a RESULT line from a refused run"));
    }
    let errors: Vec<&str> = run.stderr.lines().filter(|l| l.starts_with("halo: ")).collect();
    match errors[..] {
        [line] if names.iter().all(|n| line.contains(n)) => Ok(()),
        _ => Err(run.fail(format!("expected one `halo: ` error line with {names:?}"))),
    }
}

/// The seed's 200^3 cube at 2 PEs: a 50^3 sub-cube and Table 2's sizes.
fn seed_size() -> Result<(), Failed> {
    let run = halo(2, &["-m", "notify", "-c", "200", "-i", "2", "-w", "0"])?;
    let table2 = 6 * 60000 + 12 * 1200 + 8 * 24;
    let want = [
        ("sub", "50x50x50".to_string()),
        ("grid", "2x1x1".to_string()),
        ("bytes", table2.to_string()),
    ];
    run.expect(0, "yes", &want)?;
    Ok(())
}

/// Every mode at 4 PEs on two virtual nodes of 2 PEs.
fn across_nodes() -> Result<(), Failed> {
    for m in MODES {
        let run = halo_mpi(4, 2, &[&["-m", m][..], &SMALL].concat())?;
        let sum = run.expect(0, "yes", &[("mode", m.to_string()), ("pes", "4".to_string())])?;
        same_sum(&run, &sum)?;
    }
    Ok(())
}

fn main() {
    let mut args = Arguments::from_args();
    // One job at a time (see the module's comment).
    args.test_threads = Some(1);
    let mut trials = Vec::new();
    for np in [1, 2, 4, 8] {
        trials.push(Trial::test(format!("modes np={np}"), move || modes(np)));
    }
    trials.push(Trial::test("exchange only (-s 0) np=2", || {
        exchange_only(&["-G", "24"], "yes")
    }));
    trials.push(Trial::test("exchange only (-s 0) np=2 unverified", || {
        exchange_only(&["-n", "52"], "skipped")
    }));
    for t in [1, 3] {
        trials.push(Trial::test(format!("threads -t {t} np=2"), move || threads(t)));
    }
    trials.push(Trial::test("perturbed (-p 100) np=2", perturbed));
    trials.push(Trial::test("refused -g 3x1x1 np=2", || {
        refused(2, &["-g", "3x1x1"], &["-g 3x1x1", "the job has 2"])
    }));
    trials.push(Trial::test("refused -G 25 np=2", || {
        refused(2, &["-G", "25"], &["does not divide", "side 25"])
    }));
    trials.push(Trial::test("seed size (-c 200) np=2", seed_size));
    let mpi = Trial::test("across virtual nodes (mpirun) np=4 node=2", across_nodes);
    trials.push(mpi.with_ignored_flag(!have_mpi()));
    libtest_mimic::run(&args, trials).exit();
}
