//! The NAS FT example (`examples/ft/`) in `cargo test`. Its sources are
//! compiled once with this build's `oshcc` (`-O2`) and every job runs with its
//! `oshrun`, one at a time: each is a timed, CPU-bound program, and on a small
//! machine concurrent jobs would only slow each other down.
//!
//! - Classes S (1, 2, 4, 8 PEs) and W (1, 2, 4 PEs): each variant (exchange,
//!   nbexchange, slabs, pencils) verifies against the official checksums, and
//!   the four print the same checksum lines, digit for digit. Lest a variant flag that
//!   changed nothing pass that comparison, the variants' message counts must
//!   differ as their granularity does (more PEs than one).
//! - The same for class S at 2 PEs built with FFTW (`-DFT_FFTW`), when
//!   `pkg-config` finds `fftw3` (ignored otherwise); every other run uses the
//!   program's own FFT.
//! - A one-element perturbation of the initial condition (on the last PE)
//!   fails verification: exit status 1.
//! - A non-standard iteration count is UNVERIFIED (exit status 0), with the
//!   official values for the iterations it ran.
//! - A PE count that does not divide the grid is refused: exit status 2 and
//!   an error naming the PE count.
//!
//! Runs skip the untimed warm-up (`-w 0`). The program's command line and
//! output are described in docs/ft.md.

mod common;

use common::c_programs::compile;
use common::example_job::{ExampleJob, example_sources};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// In the order of their message counts (see `verify`).
const VARIANTS: [&str; 4] = ["exchange", "nbexchange", "slabs", "pencils"];

/// Ends a job that hangs; the largest (class W at 4 PEs) takes seconds.
const TIMEOUT_S: u32 = 120;

/// A class's grid and official iteration count.
struct Class {
    name: &'static str,
    grid: [usize; 3],
    iterations: usize,
}

const S: Class = Class {
    name: "S",
    grid: [64, 64, 64],
    iterations: 6,
};
const W: Class = Class {
    name: "W",
    grid: [128, 128, 32],
    iterations: 6,
};

/// Class S's official checksums of iterations 1 and 2 (NPB): a run of 2
/// iterations is UNVERIFIED, but its numbers are these.
const S_FIRST: [(f64, f64); 2] = [
    (5.546087004964e+02, 4.845363331978e+02),
    (5.546385409189e+02, 4.865304269511e+02),
];

/// Which FFT the program is built with.
#[derive(Clone, Copy, PartialEq)]
enum Fft {
    Stockham,
    Fftw,
}

impl Fft {
    /// As the RESULT line's `fft=` names it.
    fn name(self) -> &'static str {
        match self {
            Fft::Stockham => "stockham",
            Fft::Fftw => "fftw",
        }
    }
}

/// `pkg-config --cflags --libs fftw3`, if it finds FFTW.
fn fftw_flags() -> Option<Vec<String>> {
    let out = Command::new("pkg-config")
        .args(["--cflags", "--libs", "fftw3"])
        .output()
        .ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .map(String::from)
            .collect()
    })
}

/// The FT program, compiled on first use.
fn binary(fft: Fft) -> Result<PathBuf, Failed> {
    static EXE: [OnceLock<Result<PathBuf, String>>; 2] = [OnceLock::new(), OnceLock::new()];
    let r = EXE[fft as usize].get_or_init(|| {
        let (sources, dir) = example_sources("ft")?;
        let exe = dir.join(format!("ft-{}", fft.name()));
        let mut cc = Command::new(env!("CARGO_BIN_EXE_oshcc"));
        cc.arg("-O2").args(&sources).arg("-lm");
        if fft == Fft::Fftw {
            cc.arg("-DFT_FFTW")
                .args(fftw_flags().ok_or("pkg-config does not find fftw3")?);
        }
        compile(cc, &exe)?;
        Ok(exe)
    });
    r.clone().map_err(Failed::from)
}

type Run = ExampleJob;

impl Run {
    /// The per-iteration ` T = <t>  Checksum = <re> <im>` lines, trimmed.
    fn checksums(&self) -> Vec<&str> {
        self.stdout
            .lines()
            .filter(|l| l.contains("Checksum ="))
            .map(str::trim)
            .collect()
    }

    /// Checks the exit status, the verification verdict (in the RESULT line
    /// and the human line), the RESULT fields in `want` and the number of
    /// checksum lines; and that the job left nothing in /dev/shm.
    fn expect(&self, code: i32, verdict: &str, want: &[(&str, String)], iterations: usize) -> Result<(), Failed> {
        let mut want = want.to_vec();
        want.push(("verified", verdict.to_string()));
        let numbers = ["time", "mops", "compute", "wait", "transpose", "messages"];
        self.check(code, &want, &numbers)?;
        // NAS style: `Verification    =    SUCCESSFUL`, padded.
        let human = |l: &str| l.split_whitespace().eq(["Verification", "=", verdict]);
        if !self.stdout.lines().any(human) {
            return Err(self.fail(format!("no line `Verification = {verdict}`")));
        }
        if self.checksums().len() != iterations {
            return Err(self.fail(format!(
                "{} checksum lines, expected {iterations}",
                self.checksums().len()
            )));
        }
        Ok(())
    }
}

/// Runs FT at `np` PEs with `args` (and `-w 0`).
fn ft(np: usize, args: &[&str]) -> Result<Run, Failed> {
    ft_with(Fft::Stockham, np, args)
}

fn ft_with(fft: Fft, np: usize, args: &[&str]) -> Result<Run, Failed> {
    let exe = binary(fft)?;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_oshrun"));
    cmd.args(["-np", &np.to_string(), "--timeout", &TIMEOUT_S.to_string()])
        .arg(&exe)
        .args(args)
        .args(["-w", "0"]);
    let command = format!("oshrun -np {np} ft-{} {} -w 0", fft.name(), args.join(" "));
    Run::run(cmd, command)
}

/// Every variant of `class` at `np` PEs verifies, and all print the same
/// checksum lines as the first. With more than one PE, each variant sends
/// more messages than the one before it (exchange: one all-to-all per
/// transpose; nbexchange: a non-blocking all-to-all per plane; slabs: a put
/// per destination block; pencils: a put per row),
/// so a variant that silently ran another's code would show.
fn verify(fft: Fft, class: &Class, np: usize) -> Result<(), Failed> {
    let mut first: Option<Run> = None;
    let mut messages = (String::new(), 0.0);
    for v in VARIANTS {
        let run = ft_with(fft, np, &["-c", class.name, "-v", v])?;
        let want = [
            ("class", class.name.to_string()),
            ("variant", v.to_string()),
            ("pes", np.to_string()),
            ("iter", class.iterations.to_string()),
            ("fft", fft.name().to_string()),
        ];
        run.expect(0, "SUCCESSFUL", &want, class.iterations)?;
        let m: f64 = run.result()?["messages"].parse().expect("expect() checked it");
        if np > 1 && v != VARIANTS[0] && m <= messages.1 {
            return Err(run.fail(format!(
                "{v} sent {m} messages, not more than {}'s {}",
                messages.0, messages.1
            )));
        }
        messages = (v.to_string(), m);
        match &first {
            None => first = Some(run),
            Some(f) => {
                for (a, b) in f.checksums().iter().zip(run.checksums()) {
                    if *a != b {
                        return Err(run.fail(format!(
                            "{v} and {} differ at {np} PEs:\n  {}: {a}\n  {v}: {b}",
                            VARIANTS[0], VARIANTS[0]
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Adding 1.0 to the last grid point (on the last PE) fails verification.
fn perturbed() -> Result<(), Failed> {
    let last = S.grid.iter().product::<usize>() - 1;
    let run = ft(2, &["-c", "S", "-v", "slabs", "-p", &last.to_string()])?;
    run.expect(1, "UNSUCCESSFUL", &[("pes", "2".into())], S.iterations)
}

/// Two iterations of class S: UNVERIFIED, exit status 0, and still the
/// official numbers of iterations 1 and 2 (to 1e-12).
fn unverified() -> Result<(), Failed> {
    let run = ft(2, &["-c", "S", "-v", "slabs", "-i", "2"])?;
    run.expect(0, "UNVERIFIED", &[("iter", "2".into())], 2)?;
    for (line, (re, im)) in run.checksums().iter().zip(S_FIRST) {
        let got: Vec<f64> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
        let close = |a: f64, b: f64| ((a - b) / b).abs() <= 1e-12;
        match got[..] {
            [_, a, b] if close(a, re) && close(b, im) => {}
            _ => return Err(run.fail(format!("checksum line `{line}`, expected {re:e} {im:e}"))),
        }
    }
    Ok(())
}

/// Three PEs do not divide class S's 64 planes: exit status 2, no RESULT,
/// and an error line that names the PE count.
fn refused() -> Result<(), Failed> {
    let run = ft(3, &["-c", "S"])?;
    if run.code != 2 {
        return Err(run.fail(format!("exit status {}, expected 2", run.code)));
    }
    if run.stdout.contains("RESULT ") {
        return Err(run.fail("a RESULT line from a refused run"));
    }
    let names_three = |l: &str| l.split(|c: char| !c.is_ascii_digit()).any(|w| w == "3");
    if !run.stdout.lines().chain(run.stderr.lines()).any(names_three) {
        return Err(run.fail("no line names the PE count 3"));
    }
    Ok(())
}

fn main() {
    let mut args = Arguments::from_args();
    // One job at a time (see the module's comment).
    args.test_threads = Some(1);
    let mut trials = Vec::new();
    for (class, pes) in [(&S, &[1, 2, 4, 8][..]), (&W, &[1, 2, 4][..])] {
        for &np in pes {
            trials.push(Trial::test(format!("verify class={} np={np}", class.name), move || {
                verify(Fft::Stockham, class, np)
            }));
        }
    }
    let fftw = Trial::test("verify class=S np=2 fft=fftw", || verify(Fft::Fftw, &S, 2));
    trials.push(fftw.with_ignored_flag(fftw_flags().is_none()));
    trials.push(Trial::test("perturbed class=S np=2 slabs", perturbed));
    trials.push(Trial::test("unverified class=S np=2 iter=2", unverified));
    trials.push(Trial::test("refused class=S np=3", refused));
    libtest_mimic::run(&args, trials).exit();
}
