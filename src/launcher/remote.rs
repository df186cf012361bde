//! Multi-node jobs: `oshrun` hands the job to the MPI's launcher.
//!
//! rshmem has no remote launcher of its own. When the command line names a
//! host other than this machine, or `RSHMEM_LAUNCHER` is set, `oshrun`
//! translates its options for the launcher and `exec`s it, so signals and the
//! exit status are the launcher's. The PEs then find themselves started by an
//! MPI launcher and bootstrap through MPI in `shmem_init`.
//!
//! Which launcher: `RSHMEM_LAUNCHER` (a name on `PATH` or a path), else the
//! first of `mpirun`, `mpiexec`, `srun` on `PATH`. Its kind decides the
//! spelling ([`Kind`]): `srun` by name, the others by what `--version` says.
//! rshmem's environment (`SHMEM_*`, `SMA_*`, `RSHMEM_*`, `UCX_*`, and the
//! names given with `-x`) is passed explicitly where the launcher does not
//! pass everything (Open MPI's `-x`, Hydra's `-genvlist`); `srun` exports the
//! whole environment by default.

use super::hosts::Host;
use crate::job;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Names (or a path) of the launcher to run instead of oshrun's own.
pub(crate) const ENV_LAUNCHER: &str = "RSHMEM_LAUNCHER";
/// `--stopped-grace`, passed to the PEs of a job under another launcher
/// (their node watchers report stopped PEs after it).
pub(crate) const ENV_STOPPED_GRACE: &str = "RSHMEM_STOPPED_GRACE";
/// `--hang-abort`, passed to the PEs of a job under another launcher ("1":
/// a node watcher that prints a hang report ends the job, status 124).
pub(crate) const ENV_HANG_ABORT: &str = "RSHMEM_HANG_ABORT";
/// Set by `-v` for the PEs: PE 0 says how they reach each other.
const ENV_VERBOSE: &str = "RSHMEM_VERBOSE";
/// Launchers looked for on `PATH`, in this order.
pub(crate) const CANDIDATES: [&str; 3] = ["mpirun", "mpiexec", "srun"];
/// Prefixes of the variables passed to every PE.
const FORWARDED: [&str; 4] = ["SHMEM_", "SMA_", "RSHMEM_", "UCX_"];

/// A job for the MPI launcher, as the command line gave it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Job {
    /// What asked for the MPI launcher ("-H nodeb:2", "RSHMEM_LAUNCHER=srun"),
    /// for messages.
    pub reason: String,
    /// `RSHMEM_LAUNCHER`, when set.
    pub launcher: Option<OsString>,
    pub np: Option<usize>,
    /// `-N`/`--npernode`/`-ppn`.
    pub per_node: Option<usize>,
    /// `-H` lists, every entry with its slot count.
    pub hosts: Vec<Host>,
    pub hostfiles: Vec<String>,
    pub map_by: Option<String>,
    /// `--bind-to` as given (core, none, auto, or any value the launcher takes).
    pub bind: Option<String>,
    /// `--mca NAME VALUE` pairs.
    pub mca: Vec<(String, String)>,
    /// `-x NAME=VALUE`.
    pub env: Vec<(OsString, OsString)>,
    /// `-x NAME`: pass this variable of oshrun's environment.
    pub env_names: Vec<String>,
    pub tag_output: bool,
    pub report_bindings: bool,
    pub oversubscribe: bool,
    pub allow_run_as_root: bool,
    pub timeout: Option<(Duration, String)>,
    /// `-v`/`--verbose`: print the command before running it.
    pub verbose: bool,
    pub program: OsString,
    pub args: Vec<OsString>,
}

/// How a launcher spells its options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Open MPI's `mpirun` (ORTE in 4.x, PRRTE in 5.x).
    OpenMpi,
    /// MPICH's (and Intel MPI's) Hydra `mpiexec`.
    Hydra,
    /// Slurm's `srun`.
    Slurm,
    /// Anything else: the MPI standard's `mpiexec -n N -host H`.
    Standard,
}

/// The command to `exec`, with the changes to its environment.
#[derive(Debug, PartialEq)]
pub(crate) struct Cmd {
    pub args: Vec<OsString>,
    pub set_env: Vec<(OsString, OsString)>,
    /// Lines for the user (options the launcher has no equivalent for).
    pub notes: Vec<String>,
}

/// Runs the job through the launcher; returns only when it cannot be started.
pub(crate) fn run(job: &Job) -> i32 {
    // The trace layer's path is this machine's: the other nodes need the
    // same installation (or build tree) at the same place.
    let (traced_env, trace_note) = super::trace::job_env(&job.env);
    let job = &Job {
        env: traced_env,
        ..job.clone()
    };
    if let Some(note) = trace_note {
        eprintln!("{note}");
    }
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    if job.verbose && !env.iter().any(|(k, _)| k == ENV_VERBOSE) {
        // The PEs say which engine joins the nodes (PE 0, one line).
        env.push((ENV_VERBOSE.into(), "1".into()));
    }
    let path = std::env::var_os("PATH");
    let launcher = match find(job, path.as_deref()) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("oshrun: {e}");
            return super::EXIT_NOEXEC;
        }
    };
    let kind = kind_of(&launcher);
    let cmd = match command(kind, job, &env) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("oshrun: {e}\n{}", super::options::SYNOPSIS);
            return super::EXIT_USAGE;
        }
    };
    for note in &cmd.notes {
        eprintln!("{note}");
    }
    let debug = ["SHMEM_DEBUG", "SMA_DEBUG"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    if job.verbose || debug {
        eprintln!("oshrun: running {}", shell_words(launcher.as_os_str(), &cmd.args));
    }
    let mut c = std::process::Command::new(&launcher);
    c.args(&cmd.args).envs(cmd.set_env.iter().map(|(k, v)| (k, v)));
    if job.verbose {
        c.env(ENV_VERBOSE, "1");
    }
    // oshrun's own job variables (an oshrun run inside a PE) must not reach
    // the new PEs: they would take them for a single-node job.
    for v in job::ENV_ALL {
        c.env_remove(v);
    }
    let e = c.exec();
    eprintln!("oshrun: cannot execute {} ({}): {e}", launcher.display(), job.reason);
    super::EXIT_NOEXEC
}

/// The launcher: `RSHMEM_LAUNCHER`, else the first candidate on `path`.
pub(crate) fn find(job: &Job, path: Option<&OsStr>) -> Result<PathBuf, String> {
    let dirs: Vec<PathBuf> = path.map(|p| std::env::split_paths(p).collect()).unwrap_or_default();
    let on_path = |name: &OsStr| {
        dirs.iter()
            .map(|d| d.join(name))
            .find(|f| super::spawn::resolve_program(f.as_os_str()).is_ok())
    };
    if let Some(l) = &job.launcher {
        if l.as_bytes().contains(&b'/') {
            return match super::spawn::resolve_program(l) {
                Ok(_) => Ok(PathBuf::from(l)),
                Err(why) => Err(format!(
                    "{ENV_LAUNCHER}={}: cannot execute it: {why}",
                    l.to_string_lossy()
                )),
            };
        }
        return on_path(l).ok_or_else(|| format!("{ENV_LAUNCHER}={}: not found on PATH", l.to_string_lossy()));
    }
    CANDIDATES.iter().find_map(|c| on_path(OsStr::new(c))).ok_or_else(|| {
        format!(
            "{} asks for a multi-node job, which runs through an MPI launcher, but none of {} is on PATH \
             (install an MPI, or set {ENV_LAUNCHER})",
            job.reason,
            CANDIDATES.join(", ")
        )
    })
}

/// The launcher's kind: `srun` by its name, the others by `--version`.
pub(crate) fn kind_of(launcher: &Path) -> Kind {
    if launcher.file_name().is_some_and(|n| n == "srun") {
        return Kind::Slurm;
    }
    let out = std::process::Command::new(launcher)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output();
    match out {
        Ok(o) => kind_from_version(&format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )),
        Err(_) => Kind::Standard,
    }
}

/// The kind a launcher's `--version` text names.
pub(crate) fn kind_from_version(text: &str) -> Kind {
    let t = text.to_ascii_lowercase();
    if ["open mpi", "openrte", "prrte", "prterun"]
        .iter()
        .any(|w| t.contains(w))
    {
        Kind::OpenMpi
    } else if ["hydra", "mpich", "intel(r) mpi"].iter().any(|w| t.contains(w)) {
        Kind::Hydra
    } else if t.contains("slurm") {
        Kind::Slurm
    } else {
        Kind::Standard
    }
}

/// The names of oshrun's environment to pass to the PEs: rshmem's, UCX's and
/// those given with `-x NAME` or `-x NAME=VALUE`, sorted, without oshrun's
/// job variables.
pub(crate) fn forwarded(job: &Job, env: &[(OsString, OsString)]) -> Vec<String> {
    let mut names: Vec<String> = env
        .iter()
        .filter_map(|(k, _)| k.to_str())
        .filter(|k| FORWARDED.iter().any(|p| k.starts_with(p)))
        .map(str::to_owned)
        .chain(job.env_names.iter().cloned())
        .chain(job.env.iter().filter_map(|(k, _)| k.to_str().map(str::to_owned)))
        .filter(|k| !job::ENV_ALL.contains(&k.as_str()) && k != ENV_LAUNCHER)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The launcher's arguments for `job`, given oshrun's environment.
pub(crate) fn command(kind: Kind, job: &Job, env: &[(OsString, OsString)]) -> Result<Cmd, String> {
    let mut a: Vec<String> = Vec::new();
    let mut set_env = Vec::new();
    let mut notes = Vec::new();
    let mut ignored: Vec<String> = Vec::new();
    let names = forwarded(job, env);
    let host_list = |with_slots: bool| {
        job.hosts
            .iter()
            .map(|h| match h.slots {
                Some(n) if with_slots && n > 1 => format!("{}:{n}", h.name),
                _ => h.name.clone(),
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let unsupported = |what: &str| Err(format!("{what} has no equivalent for this launcher ({kind:?})"));
    match kind {
        Kind::OpenMpi => {
            push_opt(&mut a, "-np", job.np);
            push_opt(&mut a, "-N", job.per_node);
            if !job.hosts.is_empty() {
                a.extend(["--host".into(), host_list(true)]);
            }
            for f in &job.hostfiles {
                a.extend(["--hostfile".into(), f.clone()]);
            }
            if let Some(m) = &job.map_by {
                a.extend(["--map-by".into(), m.clone()]);
            }
            if let Some(b) = job.bind.as_deref().filter(|b| *b != "auto") {
                a.extend(["--bind-to".into(), b.into()]);
            }
            for (k, v) in &job.mca {
                a.extend(["--mca".into(), k.clone(), v.clone()]);
            }
            for (flag, on) in [
                ("--tag-output", job.tag_output),
                ("--report-bindings", job.report_bindings),
                ("--oversubscribe", job.oversubscribe),
                ("--allow-run-as-root", job.allow_run_as_root),
            ] {
                if on {
                    a.push(flag.into());
                }
            }
            if let Some((d, _)) = &job.timeout {
                // Whole seconds only; rounded up so the job gets at least its time.
                a.extend(["--timeout".into(), d.as_secs_f64().ceil().max(1.0).to_string()]);
            }
            for n in &names {
                match job.env.iter().rev().find(|(k, _)| k.to_str() == Some(n)) {
                    Some((k, v)) => a.extend(["-x".into(), format!("{}={}", k.to_string_lossy(), v.to_string_lossy())]),
                    None => a.extend(["-x".into(), n.clone()]),
                }
            }
        }
        Kind::Hydra => {
            push_opt(&mut a, "-n", job.np);
            push_opt(&mut a, "-ppn", job.per_node);
            if !job.hosts.is_empty() {
                a.extend(["-hosts".into(), host_list(true)]);
            }
            match job.hostfiles.as_slice() {
                [] => {}
                [f] => a.extend(["-f".into(), f.clone()]),
                _ => return Err("Hydra's mpiexec takes one hostfile".into()),
            }
            if let Some(m) = &job.map_by {
                a.extend(["-map-by".into(), m.clone()]);
            }
            if let Some(b) = job.bind.as_deref().filter(|b| *b != "auto") {
                a.extend(["-bind-to".into(), b.into()]);
            }
            if job.tag_output {
                a.push("-prepend-rank".into());
            }
            if let Some((d, _)) = &job.timeout {
                let secs = d.as_secs_f64().ceil().max(1.0).to_string();
                set_env.push(("MPIEXEC_TIMEOUT".into(), secs.into()));
            }
            set_env.extend(job.env.iter().cloned());
            if !names.is_empty() {
                a.extend(["-genvlist".into(), names.join(",")]);
            }
            ignored.extend(job.mca.iter().map(|(k, v)| format!("--mca {k} {v}")));
            if job.report_bindings {
                ignored.push("--report-bindings".into());
            }
        }
        Kind::Slurm => {
            let slots: Option<usize> = job.hosts.iter().map(|h| h.slots).sum();
            push_opt(
                &mut a,
                "-n",
                job.np.or(if job.per_node.is_none() { slots } else { None }),
            );
            if let Some(n) = job.per_node {
                a.push(format!("--ntasks-per-node={n}"));
            }
            if !job.hosts.is_empty() {
                a.push(format!("--nodelist={}", host_list(false)));
            }
            match job.hostfiles.as_slice() {
                [] => {}
                [f] => a.push(format!("--nodefile={f}")),
                _ => return Err("srun takes one hostfile (--nodefile)".into()),
            }
            match job.bind.as_deref() {
                Some("core") => a.push("--cpu-bind=cores".into()),
                Some("none") => a.push("--cpu-bind=none".into()),
                Some("auto") | None => {}
                Some(b) => ignored.push(format!("--bind-to {b}")),
            }
            if job.tag_output {
                a.push("--label".into());
            }
            // srun exports the whole environment unless told otherwise.
            set_env.extend(job.env.iter().cloned());
            ignored.extend(job.map_by.iter().map(|m| format!("--map-by {m}")));
            ignored.extend(job.mca.iter().map(|(k, v)| format!("--mca {k} {v}")));
            ignored.extend(job.timeout.iter().map(|(_, t)| format!("--timeout {t}")));
            if job.report_bindings {
                ignored.push("--report-bindings".into());
            }
        }
        Kind::Standard => {
            if job.per_node.is_some() {
                return unsupported("-N (PEs per node)");
            }
            if !job.hostfiles.is_empty() {
                return unsupported("--hostfile");
            }
            if job.map_by.is_some() {
                return unsupported("--map-by");
            }
            push_opt(&mut a, "-n", job.np);
            if !job.hosts.is_empty() {
                a.extend(["-host".into(), host_list(false)]);
            }
            // The variables reach the PEs only if the launcher passes its
            // environment on, as most do.
            set_env.extend(job.env.iter().cloned());
            ignored.extend(job.mca.iter().map(|(k, v)| format!("--mca {k} {v}")));
            for (flag, on) in [
                ("--tag-output", job.tag_output),
                ("--report-bindings", job.report_bindings),
            ] {
                if on {
                    ignored.push(flag.into());
                }
            }
            ignored.extend(job.timeout.iter().map(|(_, t)| format!("--timeout {t}")));
        }
    }
    if !ignored.is_empty() {
        notes.push(format!(
            "oshrun: note: ignoring {} (no equivalent for this launcher)",
            ignored.join(", ")
        ));
    }
    let mut args: Vec<OsString> = a.into_iter().map(OsString::from).collect();
    args.push(job.program.clone());
    args.extend(job.args.iter().cloned());
    Ok(Cmd { args, set_env, notes })
}

fn push_opt(a: &mut Vec<String>, flag: &str, v: Option<usize>) {
    if let Some(n) = v {
        a.extend([flag.to_string(), n.to_string()]);
    }
}

/// The command as a shell would read it back, for `--verbose`.
pub(crate) fn shell_words(program: &OsStr, args: &[OsString]) -> String {
    std::iter::once(program)
        .chain(args.iter().map(OsString::as_os_str))
        .map(|w| {
            let s = w.to_string_lossy();
            let plain = !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./:=,@%+".contains(&b));
            if plain {
                s.into_owned()
            } else {
                format!("'{}'", s.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::super::hosts::ThisMachine;
    use super::super::options::{Action, parse_on};
    use super::*;

    /// Parses on a machine called node1 (10.0.0.7), with `launcher` as RSHMEM_LAUNCHER.
    fn job(args: &[&str], launcher: Option<&str>) -> Job {
        let this = || ThisMachine::with("node1", vec!["10.0.0.7".parse().unwrap()]);
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        match parse_on(&args, 4, &this, launcher.map(OsString::from)) {
            Ok(Action::Remote(j)) => j,
            other => panic!("{args:?} gave {other:?}"),
        }
    }

    fn env(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs.iter().map(|(k, v)| (k.into(), v.into())).collect()
    }

    /// The launcher's arguments as text, one string.
    fn line(kind: Kind, j: &Job, e: &[(&str, &str)]) -> String {
        let c = command(kind, j, &env(e)).unwrap();
        shell_words(OsStr::new("L"), &c.args)
    }

    #[test]
    fn what_asks_for_the_launcher() {
        assert_eq!(job(&["-H", "localhost,nodeb:2", "a"], None).reason, "host 'nodeb' (-H)");
        assert_eq!(job(&["-np", "2", "a"], Some("srun")).reason, "RSHMEM_LAUNCHER=srun");
        // RSHMEM_LAUNCHER takes even a job on this machine, and options are
        // not checked against this machine's CPUs.
        let j = job(&["-np", "3", "-N", "2", "--map-by", "core:PE=8", "a"], Some("mpirun"));
        assert_eq!(
            (j.np, j.per_node, j.map_by.as_deref()),
            (Some(3), Some(2), Some("core:PE=8"))
        );
        let j = job(&["-H", "10.77.0.1:2,10.77.0.2:2", "-np", "4", "prog", "-x", "y"], None);
        assert_eq!(j.hosts.len(), 2);
        assert_eq!(j.hosts[1].slots, Some(2));
        assert_eq!((j.program.as_os_str(), j.args.len()), (OsStr::new("prog"), 2));
    }

    #[test]
    fn open_mpi() {
        let j = job(
            &[
                "-H",
                "nodea:2,nodeb:2",
                "-np",
                "4",
                "-x",
                "A=1",
                "-x",
                "HOME",
                "--mca",
                "btl",
                "tcp,self",
                "--tag-output",
                "--oversubscribe",
                "--bind-to",
                "none",
                "--timeout",
                "2.5",
                "prog",
                "arg",
            ],
            None,
        );
        let e = [
            ("SHMEM_DEBUG", "1"),
            ("UCX_TLS", "tcp"),
            ("RSHMEM_NODE_SIZE", "1"),
            ("PATH", "/bin"),
        ];
        assert_eq!(
            line(Kind::OpenMpi, &j, &e),
            "L -np 4 --host nodea:2,nodeb:2 --bind-to none --mca btl tcp,self --tag-output --oversubscribe \
             --timeout 3 -x A=1 -x HOME -x RSHMEM_NODE_SIZE -x SHMEM_DEBUG -x UCX_TLS prog arg"
        );
        // Only what the user gave: no --oversubscribe, --allow-run-as-root or -np of our own.
        let j = job(
            &[
                "-H",
                "nodeb",
                "--allow-run-as-root",
                "-N",
                "2",
                "--map-by",
                "ppr:2:node",
                "p",
            ],
            None,
        );
        assert_eq!(
            line(Kind::OpenMpi, &j, &[("OMPI_MCA_pml", "ob1")]),
            "L -N 2 --host nodeb --map-by ppr:2:node --allow-run-as-root p"
        );
        // Values for the launcher are its to check.
        let j = job(&["-H", "nodeb", "--bind-to", "socket", "p"], None);
        assert_eq!(line(Kind::OpenMpi, &j, &[]), "L --host nodeb --bind-to socket p");
    }

    #[test]
    fn job_variables_stay_behind() {
        let j = job(&["-H", "nodeb", "p"], Some("mpirun"));
        let e = env(&[
            ("RSHMEM_JOB_FD", "3"),
            ("RSHMEM_PE", "0"),
            ("RSHMEM_NPES", "2"),
            ("RSHMEM_JOB_ID", "x"),
            ("RSHMEM_JOB_CPUS", "2"),
            ("RSHMEM_LAUNCHER", "mpirun"),
            ("SMA_DEBUG", ""),
            ("SHMEMX", "no"),
        ]);
        assert_eq!(forwarded(&j, &e), ["SMA_DEBUG"]);
    }

    #[test]
    fn hydra() {
        let j = job(
            &[
                "-hosts",
                "a:2,b",
                "-n",
                "3",
                "-ppn",
                "2",
                "-x",
                "A=1",
                "--mca",
                "x",
                "y",
                "--tag-output",
                "p",
            ],
            None,
        );
        let c = command(Kind::Hydra, &j, &env(&[("SHMEM_X", "1")])).unwrap();
        assert_eq!(
            shell_words(OsStr::new("L"), &c.args),
            "L -n 3 -ppn 2 -hosts a:2,b -prepend-rank -genvlist A,SHMEM_X p"
        );
        assert_eq!(c.set_env, env(&[("A", "1")]));
        assert_eq!(
            c.notes,
            ["oshrun: note: ignoring --mca x y (no equivalent for this launcher)"]
        );
        let j = Job {
            hostfiles: vec!["h1".into(), "h2".into()],
            ..Job::default()
        };
        assert!(command(Kind::Hydra, &j, &[]).unwrap_err().contains("one hostfile"));
    }

    #[test]
    fn slurm() {
        let j = job(&["-H", "a:2,b:3", "--bind-to", "core", "--map-by", "node", "p"], None);
        let c = command(Kind::Slurm, &j, &env(&[("SHMEM_X", "1")])).unwrap();
        // No -np: the slots give the task count, as they would for mpirun.
        assert_eq!(
            shell_words(OsStr::new("srun"), &c.args),
            "srun -n 5 --nodelist=a,b --cpu-bind=cores p"
        );
        assert_eq!(
            c.notes,
            ["oshrun: note: ignoring --map-by node (no equivalent for this launcher)"]
        );
        let j = job(&["-N", "2", "-x", "B=2", "p"], Some("srun"));
        let c = command(Kind::Slurm, &j, &[]).unwrap();
        assert_eq!(shell_words(OsStr::new("srun"), &c.args), "srun --ntasks-per-node=2 p");
        assert_eq!(c.set_env, env(&[("B", "2")]));
    }

    #[test]
    fn standard_mpiexec() {
        let j = job(&["-H", "a:2,b", "-np", "2", "p"], None);
        assert_eq!(line(Kind::Standard, &j, &[]), "L -n 2 -host a,b p");
        let j = job(&["-N", "2", "p"], Some("x"));
        assert!(
            command(Kind::Standard, &j, &[])
                .unwrap_err()
                .contains("-N (PEs per node) has no equivalent")
        );
    }

    #[test]
    fn kinds_from_version_text() {
        assert_eq!(
            kind_from_version("mpirun (Open MPI) 4.1.4\n\nReport bugs"),
            Kind::OpenMpi
        );
        assert_eq!(kind_from_version("prterun (PRRTE) 3.0.0"), Kind::OpenMpi);
        assert_eq!(
            kind_from_version("HYDRA build details:\n    Version: 4.0.2"),
            Kind::Hydra
        );
        assert_eq!(kind_from_version("Intel(R) MPI Library for Linux* OS"), Kind::Hydra);
        assert_eq!(kind_from_version("slurm 23.02.6"), Kind::Slurm);
        assert_eq!(kind_from_version(""), Kind::Standard);
        assert_eq!(kind_of(Path::new("/nonexistent/srun")), Kind::Slurm);
        assert_eq!(kind_of(Path::new("/nonexistent/mpirun")), Kind::Standard);
    }

    #[test]
    fn finding_the_launcher() {
        let dir = std::env::temp_dir().join(format!("rshmem-remote-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = |name: &str| {
            let f = dir.join(name);
            std::fs::write(&f, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&f, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
            f
        };
        let path = dir.as_os_str();
        let mut j = job(&["-H", "nodeb:2", "p"], None);
        let e = find(&j, Some(path)).unwrap_err();
        assert_eq!(
            e,
            "host 'nodeb' (-H) asks for a multi-node job, which runs through an MPI launcher, but none of \
             mpirun, mpiexec, srun is on PATH (install an MPI, or set RSHMEM_LAUNCHER)"
        );
        let srun = exe("srun");
        assert_eq!(find(&j, Some(path)).unwrap(), srun);
        let mpiexec = exe("mpiexec");
        assert_eq!(find(&j, Some(path)).unwrap(), mpiexec, "mpiexec before srun");
        j.launcher = Some("srun".into());
        assert_eq!(find(&j, Some(path)).unwrap(), srun);
        j.launcher = Some("mpirun".into());
        assert_eq!(
            find(&j, Some(path)).unwrap_err(),
            "RSHMEM_LAUNCHER=mpirun: not found on PATH"
        );
        j.launcher = Some(srun.clone().into());
        assert_eq!(find(&j, None).unwrap(), srun);
        j.launcher = Some("/nonexistent/l".into());
        assert!(
            find(&j, None)
                .unwrap_err()
                .starts_with("RSHMEM_LAUNCHER=/nonexistent/l: cannot execute it")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn quoting() {
        let args: Vec<OsString> = ["-x", "A=b c", "it's", ""].iter().map(OsString::from).collect();
        assert_eq!(
            shell_words(OsStr::new("/usr/bin/mpirun"), &args),
            r"/usr/bin/mpirun -x 'A=b c' 'it'\''s' ''"
        );
    }
}
