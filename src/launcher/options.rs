//! Command line of `oshrun`: options come first, the first other argument is the
//! program, and everything after it belongs to the program.

use super::hosts::{self, Host, ThisMachine};
use super::mapping::{self, MapBy};
use super::remote;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::time::Duration;

/// Most PEs one job may have.
pub(crate) const MAX_NPES: usize = 4096;

/// The synopsis printed after a usage error.
pub(crate) const SYNOPSIS: &str = "Usage: oshrun [options] program [args...]  (try 'oshrun --help')";

/// The text of `--help`.
pub(crate) const HELP: &str = "\
Usage: oshrun [options] program [args...]
       shmemrun [options] program [args...]

Starts N processes (PEs) of one OpenSHMEM job on this machine and watches them:
when a PE fails, or calls shmem_global_exit, the other PEs are ended.
A job on other machines (a host list naming one, or RSHMEM_LAUNCHER set) runs
through the MPI's launcher instead: see \"Multi-node jobs\" below.

Options (before the program; '--' ends them):
  -np N, -n N, --np N    number of PEs, 1 to 4096 (default 1)
  --tag-output           prefix every output line with \"[PE i] \"
  --timeout SECONDS      end the job after SECONDS (fractions allowed)
  --stopped-grace SECONDS
                         say which PE is stopped (SIGSTOP, ^Z of one PE) once it
                         has been for SECONDS (default 3; environment variable
                         RSHMEM_STOPPED_GRACE when the option is not given)
  --hang-abort           end the job (status 124) after a hang report
  --status [PID]         print where every PE of this user's running jobs is
                         (or of the job of oshrun PID), then exit
  -x NAME[=VALUE]        set NAME=VALUE in the PEs' environment
  --bind-to WHAT         core: pin PE i to the i-th CPU oshrun may use (round
                         robin); none: let the kernel place PEs; auto (default):
                         core when the PEs divide evenly among those CPUs
                         (NAME alone is accepted: the environment is inherited)
  --report-bindings      print, per PE, the CPUs it is pinned to (or 'not bound')
  --oversubscribe, --allow-run-as-root
                         accepted (Open MPI habits; passed on to Open MPI)
  -v, --verbose          print the MPI launcher's command before running it, and
                         have PE 0 say which engine joins the nodes

Accepted from Open MPI and Hydra command lines:
  -H, --host, -host, -hosts LIST
                         hosts as 'a,b:2'; naming only this machine (localhost,
                         127.0.0.1, ::1, its name or address), without -np, the
                         slots (1 per entry unless ':N') give the PE count
  -hostfile, --hostfile, -machinefile, --machinefile, -f FILE
                         the same, one host a line ('host slots=N' or 'host:N';
                         a line without a count is one slot per CPU)
  -N N, -npernode N, --npernode N, -ppn N
                         N PEs per node: N PEs (must agree with -np if both)
  --map-by WHAT          slot, node: as usual; core, hwthread: pinned;
                         ppr:N:node is -N N, ppr:N:core N PEs per CPU; :PE=n
                         pins each PE to n CPUs; socket, numa, l3cache, ...:
                         accepted with a note, placement follows --bind-to
  --mca NAME VALUE, -mca NAME VALUE
                         Open MPI parameters: ignored on this machine
  -h, --help             show this help
  --version              show the version

Multi-node jobs: when -H or a hostfile names another machine, or the
environment variable RSHMEM_LAUNCHER is set (mpirun, mpiexec, srun or a path),
oshrun runs RSHMEM_LAUNCHER, else the first of mpirun, mpiexec, srun on PATH,
with these options translated for it and rshmem's variables (SHMEM_*, SMA_*,
RSHMEM_*, UCX_* and those of -x) passed to every PE. The launcher then
supervises the job: its exit status is oshrun's.

Hang reports: when no PE has moved for SHMEM_HANG_TIMEOUT seconds (default 30;
0 turns them off) while every PE is blocked in rshmem or stopped, and on
kill -QUIT of oshrun, oshrun prints where every PE is (docs/debugging.md).

PE 0 reads oshrun's standard input; the other PEs read /dev/null.

Exit status: the first non-zero status of a PE that was not ended by oshrun
(128+N for a PE killed by signal N); the status passed to shmem_global_exit;
124 on timeout (or a hang with --hang-abort); 128+N when oshrun receives signal N; 2 for a usage error;
127 when the program cannot be executed.
";

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub(crate) enum Action {
    Run(Options),
    /// A multi-node job, for the MPI launcher.
    Remote(remote::Job),
    Help,
    Version,
    /// `--status [PID]`.
    Status(Option<i32>),
}

/// How PEs are placed on CPUs (`--bind-to`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bind {
    /// Each PE pinned to one CPU, round robin over the CPUs oshrun may use.
    Core,
    /// No pinning.
    None,
    /// `Core` when the PE count is a multiple of the CPU count, else `None`:
    /// every CPU then holds the same number of PEs. Without pinning, the
    /// kernel's balancer sometimes leaves 3 PEs on one CPU and 1 on the other,
    /// and every barrier pays for the extra hand-overs (docs/performance.md);
    /// with an uneven count, pinning would instead fix an imbalance the
    /// kernel could smooth over time.
    Auto,
}

/// A job to run.
#[derive(Debug, PartialEq)]
pub(crate) struct Options {
    pub npes: usize,
    pub bind: Bind,
    pub tag_output: bool,
    /// The limit, and the text the user gave for it (repeated in the message).
    pub timeout: Option<(Duration, String)>,
    /// `--stopped-grace`, with its text.
    pub stopped_grace: Option<(Duration, String)>,
    /// `-x NAME=VALUE` settings, in command-line order.
    pub env: Vec<(OsString, OsString)>,
    /// CPUs each pinned PE gets (`--map-by ...:PE=n`).
    pub cpus_per_pe: usize,
    /// `--report-bindings`.
    pub report_bindings: bool,
    /// `--hang-abort`.
    pub hang_abort: bool,
    /// Lines to print before the job starts (options accepted but ignored).
    pub notes: Vec<String>,
    pub program: OsString,
    pub args: Vec<OsString>,
}

/// A command line that cannot be run; the text says why.
#[derive(Debug, PartialEq)]
pub(crate) struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, UsageError> {
    Err(UsageError(msg.into()))
}

/// Parses the arguments that follow the command name.
pub(crate) fn parse(args: &[OsString]) -> Result<Action, UsageError> {
    let launcher = std::env::var_os(remote::ENV_LAUNCHER).filter(|l| !l.is_empty());
    parse_on(args, super::spawn::allowed_cpus().len(), &ThisMachine::detect, launcher)
}

/// Parses for a machine whose PEs may use `ncpus` CPUs and that `this`
/// describes (asked only when a host list needs checking); `launcher` is
/// `RSHMEM_LAUNCHER`, which makes every job a job for that launcher.
pub(super) fn parse_on(
    args: &[OsString],
    ncpus: usize,
    this: &dyn Fn() -> ThisMachine,
    launcher: Option<OsString>,
) -> Result<Action, UsageError> {
    // -np, and -N or its equivalents, with the spelling used (for messages).
    let mut np: Option<(usize, String)> = None;
    let mut per_node: Option<(usize, String)> = None;
    let mut hosts: Vec<Host> = Vec::new();
    let mut hostfiles: Vec<String> = Vec::new();
    // As written (for the note), name, value.
    let mut mca: Vec<(String, String, String)> = Vec::new();
    let mut map_by: Option<String> = None;
    let mut env_names = Vec::new();
    let (mut oversubscribe, mut allow_run_as_root, mut verbose) = (false, false, false);
    let mut report_bindings = false;
    let mut hang_abort = false;
    let mut tag_output = false;
    let mut timeout = None;
    let mut stopped_grace = None;
    let mut bind_to: Option<String> = None;
    let mut env = Vec::new();
    let mut rest = args.iter();

    let program = loop {
        let Some(arg) = rest.next() else {
            return err("missing program to run");
        };
        let bytes = arg.as_encoded_bytes();
        if bytes.first() != Some(&b'-') {
            break arg.clone();
        }
        // Options are ASCII; a non-UTF-8 word starting with '-' cannot be one.
        let Some(text) = arg.to_str() else {
            return err(format!("unknown option '{}'", arg.to_string_lossy()));
        };
        // `--name=value` and `-np=N` carry their value inline.
        let (name, inline) = match text.split_once('=') {
            Some((n, v)) if n.len() > 1 => (n, Some(v)),
            _ => (text, None),
        };
        match name {
            "--" if inline.is_none() => {
                let Some(p) = rest.next() else {
                    return err("missing program to run after '--'");
                };
                break p.clone();
            }
            "-np" | "-n" | "--np" => {
                let v = value(name, inline, &mut rest)?;
                np = Some((parse_npes(name, &v)?, format!("{name} {v}")));
            }
            "-N" | "-npernode" | "--npernode" | "-ppn" => {
                let v = value(name, inline, &mut rest)?;
                per_node = Some((parse_npes(name, &v)?, format!("{name} {v}")));
            }
            "-H" | "--host" | "-host" | "-hosts" => {
                hosts.extend(hosts::parse_list(&value(name, inline, &mut rest)?, name).map_err(UsageError)?)
            }
            "-hostfile" | "--hostfile" | "-machinefile" | "--machinefile" | "-f" => {
                let path = value(name, inline, &mut rest)?;
                hosts.extend(hosts::read_hostfile(&path).map_err(UsageError)?);
                hostfiles.push(path);
            }
            // Checked once it is known whether the job runs here.
            "--map-by" => map_by = Some(value(name, inline, &mut rest)?),
            "--mca" | "-mca" | "--gmca" | "-gmca" if inline.is_none() => {
                let key = value(name, None, &mut rest)?;
                let Some(Some(val)) = rest.next().map(|v| v.to_str()) else {
                    return err(format!("option '{name}' needs a name and a value"));
                };
                mca.push((format!("{name} {key} {val}"), key, val.to_owned()));
            }
            "--timeout" => {
                let v = value(name, inline, &mut rest)?;
                timeout = Some((parse_timeout(&v)?, v));
            }
            "--stopped-grace" => {
                let v = value(name, inline, &mut rest)?;
                stopped_grace = Some((parse_grace(&format!("option '{name}'"), &v)?, v));
            }
            // Checked once it is known whether the job runs here.
            "--bind-to" => bind_to = Some(value(name, inline, &mut rest)?),
            "-x" if inline.is_none() => {
                let v = value(name, None, &mut rest)?;
                match v.split_once('=') {
                    _ if v.is_empty() || v.starts_with('=') => {
                        return err(format!("option '-x' needs NAME or NAME=VALUE, not '{v}'"));
                    }
                    Some((n, val)) => env.push((n.into(), val.into())),
                    // NAME alone exports the current value, which PEs on this
                    // machine inherit anyway.
                    None => env_names.push(v),
                }
            }
            "--status" => {
                let pid = match inline
                    .map(str::to_owned)
                    .or_else(|| rest.next().map(|a| a.to_string_lossy().into()))
                {
                    None => None,
                    Some(v) => Some(
                        v.parse()
                            .map_err(|_| UsageError(format!("option '--status' needs a pid, not '{v}'")))?,
                    ),
                };
                return Ok(Action::Status(pid));
            }
            "--tag-output"
            | "--hang-abort"
            | "--report-bindings"
            | "--oversubscribe"
            | "--allow-run-as-root"
            | "-v"
            | "--verbose"
            | "-h"
            | "--help"
            | "--version"
                if inline.is_some() =>
            {
                return err(format!("option '{name}' takes no value"));
            }
            "--tag-output" => tag_output = true,
            "--report-bindings" => report_bindings = true,
            "--hang-abort" => hang_abort = true,
            "--oversubscribe" => oversubscribe = true,
            "--allow-run-as-root" => allow_run_as_root = true,
            "-v" | "--verbose" => verbose = true,
            "-h" | "--help" => return Ok(Action::Help),
            "--version" => return Ok(Action::Version),
            _ => return err(format!("unknown option '{text}'")),
        }
    };

    // Another machine, or RSHMEM_LAUNCHER: the MPI launcher runs the job.
    let far = if hosts.is_empty() {
        None
    } else {
        let this = this();
        hosts.iter().find(|h| !this.is(&h.name)).cloned()
    };
    let reason = match (&launcher, far) {
        (Some(l), _) => Some(format!("{}={}", remote::ENV_LAUNCHER, l.to_string_lossy())),
        (None, Some(h)) => Some(format!("host '{}' ({})", h.name, h.origin)),
        (None, None) => None,
    };
    if let Some(reason) = reason {
        // The node watchers in the PEs act on these (runtime::node_watch):
        // under another launcher no oshrun watches the PEs.
        let mut env = env;
        if let Some((_, text)) = &stopped_grace {
            env.push((remote::ENV_STOPPED_GRACE.into(), text.into()));
        }
        if hang_abort {
            env.push((remote::ENV_HANG_ABORT.into(), "1".into()));
        }
        return Ok(Action::Remote(remote::Job {
            reason,
            launcher,
            np: np.map(|n| n.0),
            per_node: per_node.map(|n| n.0),
            // Hostfile entries stay in their files.
            hosts: hosts.into_iter().filter(|h| h.origin.starts_with('-')).collect(),
            hostfiles,
            map_by,
            bind: bind_to,
            mca: mca.iter().map(|(_, k, v)| (k.clone(), v.clone())).collect(),
            env,
            env_names,
            tag_output,
            report_bindings,
            oversubscribe,
            allow_run_as_root,
            timeout,
            verbose,
            program,
            args: rest.cloned().collect(),
        }));
    }
    let bind = match bind_to.as_deref() {
        None => None,
        Some("core") => Some(Bind::Core),
        Some("none") => Some(Bind::None),
        Some("auto") => Some(Bind::Auto),
        Some(v) => return err(format!("option '--bind-to' needs core, none or auto, not '{v}'")),
    };
    let map: Option<MapBy> = match &map_by {
        None => None,
        Some(v) => {
            let m = mapping::parse(v, ncpus).map_err(UsageError)?;
            if let Some(n) = m.per_node {
                per_node = Some((n, format!("--map-by {v}")));
            }
            Some(m)
        }
    };
    let npes = match (np, per_node) {
        (Some((n, np_text)), Some((k, per_text))) if n != k => {
            return err(format!(
                "'{per_text}' asks for {k} PEs on this machine (the only node), but '{np_text}' for {n}"
            ));
        }
        (Some((n, _)), _) | (None, Some((n, _))) => n,
        (None, None) if !hosts.is_empty() => {
            let slots: usize = hosts.iter().map(|h| h.slots.unwrap_or(ncpus)).sum();
            if slots > MAX_NPES {
                return err(format!(
                    "the hosts give {slots} slots, more than {MAX_NPES} PEs: use -np"
                ));
            }
            slots
        }
        (None, None) => 1,
    };
    let mut notes: Vec<String> = map.as_ref().and_then(|m| m.note.clone()).into_iter().collect();
    if !mca.is_empty() {
        notes.push(format!(
            "oshrun: note: ignoring {} (Open MPI's MCA parameters do not apply to rshmem)",
            mca.iter().map(|m| m.0.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    let pin_by_map = map.as_ref().is_some_and(|m| m.pin);
    Ok(Action::Run(Options {
        npes,
        bind: bind.unwrap_or(if pin_by_map { Bind::Core } else { Bind::Auto }),
        tag_output,
        timeout,
        stopped_grace,
        env,
        cpus_per_pe: map.map_or(1, |m| m.cpus_per_pe),
        report_bindings,
        hang_abort,
        notes,
        program,
        args: rest.cloned().collect(),
    }))
}

/// The value of option `name`: inline (`--np=4`) or the next argument.
fn value<'a>(
    name: &str,
    inline: Option<&str>,
    rest: &mut impl Iterator<Item = &'a OsString>,
) -> Result<String, UsageError> {
    if let Some(v) = inline {
        return Ok(v.to_owned());
    }
    match rest.next().map(|v| v.to_str()) {
        Some(Some(v)) => Ok(v.to_owned()),
        Some(None) => err(format!("option '{name}' has a value that is not valid text")),
        None => err(format!("option '{name}' needs a value")),
    }
}

fn parse_npes(name: &str, v: &str) -> Result<usize, UsageError> {
    match v.parse::<usize>() {
        Ok(n) if (1..=MAX_NPES).contains(&n) => Ok(n),
        _ => err(format!(
            "option '{name}' needs a number of PEs from 1 to {MAX_NPES}, not '{v}'"
        )),
    }
}

fn parse_timeout(v: &str) -> Result<Duration, UsageError> {
    match v.parse::<f64>() {
        // try_from rejects infinities, NaN and values too large for a Duration.
        Ok(s) if s > 0.0 => match Duration::try_from_secs_f64(s) {
            Ok(d) if !d.is_zero() => Ok(d),
            _ => err(format!(
                "option '--timeout' needs a positive number of seconds, not '{v}'"
            )),
        },
        _ => err(format!(
            "option '--timeout' needs a positive number of seconds, not '{v}'"
        )),
    }
}

/// A delay of zero or more seconds (`--stopped-grace`, `RSHMEM_STOPPED_GRACE`).
/// `what` names it in the error ("option '--stopped-grace'").
pub(crate) fn parse_grace(what: &str, v: &str) -> Result<Duration, UsageError> {
    match v.parse::<f64>().ok().and_then(|s| Duration::try_from_secs_f64(s).ok()) {
        Some(d) => Ok(d),
        None => err(format!("{what} needs a number of seconds (0 or more), not '{v}'")),
    }
}

/// Displays a program name for messages.
pub(crate) fn show(p: &OsStr) -> String {
    p.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses on this machine, whatever RSHMEM_LAUNCHER the tests run with.
    fn p(args: &[&str]) -> Result<Action, UsageError> {
        let args: Vec<_> = args.iter().map(OsString::from).collect();
        parse_on(
            &args,
            super::super::spawn::allowed_cpus().len(),
            &ThisMachine::detect,
            None,
        )
    }

    fn run(args: &[&str]) -> Options {
        match p(args) {
            Ok(Action::Run(o)) => o,
            other => panic!("{args:?} gave {other:?}"),
        }
    }

    fn fails(args: &[&str], needle: &str) {
        match p(args) {
            Err(UsageError(m)) => assert!(m.contains(needle), "{args:?}: '{m}' lacks '{needle}'"),
            other => panic!("{args:?} gave {other:?}"),
        }
    }

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn defaults() {
        let o = run(&["prog"]);
        assert_eq!(
            o,
            Options {
                npes: 1,
                bind: Bind::Auto,
                tag_output: false,
                timeout: None,
                stopped_grace: None,
                env: vec![],
                cpus_per_pe: 1,
                report_bindings: false,
                hang_abort: false,
                notes: vec![],
                program: "prog".into(),
                args: vec![]
            }
        );
    }

    #[test]
    fn every_npes_spelling() {
        for args in [
            &["-np", "4", "a"][..],
            &["-n", "4", "a"],
            &["--np", "4", "a"],
            &["-np=4", "a"],
            &["--np=4", "a"],
            &["-n=4", "a"],
        ] {
            assert_eq!(run(args).npes, 4, "{args:?}");
        }
        assert_eq!(run(&["-np", "1", "a"]).npes, 1);
        assert_eq!(run(&["-np", "4096", "a"]).npes, 4096);
        assert_eq!(run(&["-np", "2", "-np", "3", "a"]).npes, 3, "the last one wins");
    }

    #[test]
    fn bad_npes() {
        for v in ["0", "4097", "-1", "two", "", "1.5", "99999999999999999999999"] {
            fails(&["-np", v, "a"], "number of PEs");
        }
        fails(&["--np=x", "a"], "'x'");
        fails(&["-np"], "needs a value");
        fails(&["-n"], "needs a value");
    }

    #[test]
    fn flags() {
        let o = run(&["--tag-output", "--oversubscribe", "--allow-run-as-root", "a"]);
        assert!(o.tag_output);
        assert_eq!(o.npes, 1);
        fails(&["--tag-output=1", "a"], "takes no value");
        assert_eq!(p(&["-h"]), Ok(Action::Help));
        assert_eq!(p(&["--help", "prog"]), Ok(Action::Help));
        assert_eq!(p(&["-np", "2", "--version"]), Ok(Action::Version));
    }

    #[test]
    fn bind_to() {
        assert_eq!(run(&["--bind-to", "core", "a"]).bind, Bind::Core);
        assert_eq!(run(&["--bind-to=none", "a"]).bind, Bind::None);
        assert_eq!(run(&["--bind-to", "core", "--bind-to", "auto", "a"]).bind, Bind::Auto);
        fails(&["--bind-to", "socket", "a"], "core, none or auto, not 'socket'");
        fails(&["--bind-to"], "needs a value");
    }

    #[test]
    fn timeout() {
        let o = run(&["--timeout", "2.5", "a"]);
        assert_eq!(o.timeout, Some((Duration::from_millis(2500), "2.5".into())));
        assert_eq!(
            run(&["--timeout=10", "a"]).timeout.map(|t| t.0),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            run(&["--timeout", "0.001", "a"]).timeout.map(|t| t.0),
            Some(Duration::from_millis(1))
        );
        for v in ["0", "-1", "abc", "inf", "NaN", "1e300", "", "1e-10"] {
            fails(&["--timeout", v, "a"], "positive number of seconds");
        }
        fails(&["--timeout"], "needs a value");
    }

    #[test]
    fn stopped_grace() {
        assert_eq!(
            run(&["--stopped-grace", "0.5", "a"]).stopped_grace,
            Some((Duration::from_millis(500), "0.5".into()))
        );
        assert_eq!(
            run(&["--stopped-grace=0", "a"]).stopped_grace.map(|g| g.0),
            Some(Duration::ZERO)
        );
        for v in ["-1", "x", "inf", ""] {
            fails(&["--stopped-grace", v, "a"], "number of seconds (0 or more)");
        }
        fails(&["--stopped-grace"], "needs a value");
    }

    #[test]
    fn exports() {
        let o = run(&["-x", "A=1", "-x", "PATH", "-x", "B=x=y", "-x", "C=", "a"]);
        assert_eq!(
            o.env,
            vec![
                ("A".into(), "1".into()),
                ("B".into(), "x=y".into()),
                ("C".into(), "".into())
            ]
        );
        fails(&["-x"], "needs a value");
        fails(&["-x", "=1", "a"], "NAME");
        fails(&["-x", "", "a"], "NAME");
    }

    #[test]
    fn program_and_its_arguments() {
        let o = run(&["-np", "2", "/bin/sh", "-c", "echo hi", "-np", "7", "--help", "--"]);
        assert_eq!(o.npes, 2);
        assert_eq!(o.program, "/bin/sh");
        assert_eq!(o.args, os(&["-c", "echo hi", "-np", "7", "--help", "--"]));
    }

    #[test]
    fn double_dash() {
        let o = run(&["-np", "3", "--", "-weird-name", "--tag-output"]);
        assert_eq!(o.npes, 3);
        assert_eq!(o.program, "-weird-name");
        assert_eq!(o.args, os(&["--tag-output"]));
        assert!(!o.tag_output);
        fails(&["--"], "missing program");
        fails(&["--=x", "a"], "unknown option");
    }

    #[test]
    fn usage_errors() {
        fails(&[], "missing program");
        fails(&["-np", "2"], "missing program");
        fails(&["--bogus", "a"], "unknown option '--bogus'");
        fails(&["-", "a"], "unknown option '-'");
        fails(&["-np2", "a"], "unknown option");
        fails(&["--np-x=3", "a"], "unknown option");
    }

    /// Parses as on a 4-CPU machine called node1 with address 10.0.0.7.
    fn p4(args: &[&str]) -> Result<Action, UsageError> {
        let this = || ThisMachine::with("node1.example.org", vec!["10.0.0.7".parse().unwrap()]);
        parse_on(&args.iter().map(OsString::from).collect::<Vec<_>>(), 4, &this, None)
    }

    fn run4(args: &[&str]) -> Options {
        match p4(args) {
            Ok(Action::Run(o)) => o,
            other => panic!("{args:?} gave {other:?}"),
        }
    }

    fn fails4(args: &[&str], needle: &str) {
        match p4(args) {
            Err(UsageError(m)) => assert!(m.contains(needle), "{args:?}: '{m}' lacks '{needle}'"),
            other => panic!("{args:?} gave {other:?}"),
        }
    }

    #[test]
    fn hosts_of_this_machine() {
        // Slots give the PE count when -np is absent: 1 per entry unless ':N'.
        assert_eq!(run4(&["-H", "localhost", "a"]).npes, 1);
        assert_eq!(run4(&["-H", "localhost:3", "a"]).npes, 3);
        assert_eq!(run4(&["--host", "localhost,node1:2,127.0.0.1", "a"]).npes, 4);
        assert_eq!(run4(&["-host=node1.example.org,10.0.0.7", "a"]).npes, 2);
        assert_eq!(run4(&["-hosts", "[::1]:2,::1", "a"]).npes, 3);
        assert_eq!(run4(&["-H", "localhost:8", "-np", "2", "a"]).npes, 2, "-np wins");
        // Another machine: a job for the MPI launcher (see remote.rs's tests).
        assert!(matches!(p4(&["-H", "localhost,node2:2", "a"]), Ok(Action::Remote(_))));
        assert!(matches!(
            p4(&["-H", "10.0.0.8", "-np", "2", "a"]),
            Ok(Action::Remote(_))
        ));
        fails4(
            &["-H", "a:0", "prog"],
            "option '-H': 'a:0': a slot count is 1 to 4096, not '0'",
        );
        fails4(&["-H"], "needs a value");
    }

    #[test]
    fn hostfiles() {
        let dir = std::env::temp_dir().join(format!("rshmem-hostfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("hosts");
        std::fs::write(&f, "# mine\nlocalhost slots=3 max_slots=4\nnode1:2\n").unwrap();
        let f = f.to_str().unwrap();
        for opt in ["-hostfile", "--hostfile", "-machinefile", "--machinefile", "-f"] {
            assert_eq!(run4(&[opt, f, "a"]).npes, 5, "{opt}");
        }
        // A line without a count: one slot per CPU, as Open MPI counts cores.
        let g = dir.join("plain");
        std::fs::write(&g, "localhost\n").unwrap();
        assert_eq!(run4(&["--hostfile", g.to_str().unwrap(), "a"]).npes, 4);
        let h = dir.join("far");
        std::fs::write(&h, "localhost\nfar.away slots=2\n").unwrap();
        let hp = h.to_str().unwrap();
        match p4(&["--hostfile", hp, "a"]) {
            Ok(Action::Remote(j)) => {
                assert_eq!(j.reason, format!("host 'far.away' (hostfile {hp} line 2)"));
                assert_eq!((j.hostfiles, j.hosts), (vec![hp.to_string()], vec![]));
            }
            other => panic!("{other:?}"),
        }
        fails4(
            &["--hostfile", "/nonexistent/hf", "a"],
            "cannot read hostfile /nonexistent/hf: No such file",
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pes_per_node() {
        for opt in ["-N", "-npernode", "--npernode", "-ppn"] {
            assert_eq!(run4(&[opt, "3", "a"]).npes, 3, "{opt}");
            assert_eq!(run4(&[opt, "3", "-np", "3", "a"]).npes, 3, "{opt}");
        }
        assert_eq!(run4(&["-N=2", "a"]).npes, 2);
        fails4(
            &["-np", "4", "-N", "2", "a"],
            "'-N 2' asks for 2 PEs on this machine (the only node), but '-np 4' for 4",
        );
        fails4(&["-ppn", "0", "a"], "option '-ppn' needs a number of PEs");
        assert_eq!(
            run4(&["-N", "2", "-H", "localhost:5", "a"]).npes,
            2,
            "-N wins over slots"
        );
    }

    #[test]
    fn map_by() {
        let o = run4(&["--map-by", "core", "a"]);
        assert_eq!((o.bind, o.cpus_per_pe, o.notes.len()), (Bind::Core, 1, 0));
        assert_eq!(run4(&["--map-by", "core", "--bind-to", "none", "a"]).bind, Bind::None);
        assert_eq!(run4(&["--map-by", "slot", "a"]).bind, Bind::Auto);
        let o = run4(&["--map-by", "ppr:2:node", "a"]);
        assert_eq!((o.npes, o.bind), (2, Bind::Auto));
        assert_eq!(run4(&["--map-by=ppr:1:core", "a"]).npes, 4);
        fails4(
            &["-np", "3", "--map-by", "ppr:2:node", "a"],
            "'--map-by ppr:2:node' asks for 2 PEs",
        );
        let o = run4(&["--map-by", "slot:PE=2", "-np", "2", "a"]);
        assert_eq!((o.bind, o.cpus_per_pe), (Bind::Core, 2));
        let o = run4(&["--map-by", "socket", "-np", "2", "a"]);
        assert_eq!((o.npes, o.bind), (2, Bind::Auto));
        assert_eq!(o.notes.len(), 1);
        assert!(
            o.notes[0].starts_with("oshrun: note: --map-by socket:"),
            "{:?}",
            o.notes
        );
        fails4(&["--map-by", "cores", "a"], "option '--map-by' needs one of");
        fails4(
            &["--map-by", "core:PE=8", "a"],
            "asks for 8 CPUs per PE, but oshrun may use only 4",
        );
    }

    #[test]
    fn mca_and_report_bindings() {
        let o = run4(&[
            "--mca",
            "btl",
            "self,vader",
            "-mca",
            "pml",
            "ob1",
            "--report-bindings",
            "a",
            "--mca",
        ]);
        assert!(o.report_bindings);
        assert_eq!(
            o.notes,
            [
                "oshrun: note: ignoring --mca btl self,vader, -mca pml ob1 (Open MPI's MCA parameters do not apply to rshmem)"
            ]
        );
        assert_eq!(o.args, os(&["--mca"]));
        fails4(&["--mca", "btl"], "option '--mca' needs a name and a value");
        fails4(&["--mca"], "option '--mca' needs a value");
        fails4(&["--report-bindings=yes", "a"], "takes no value");
        assert!(run4(&["a"]).notes.is_empty());
    }

    #[test]
    fn non_utf8_program() {
        use std::os::unix::ffi::OsStringExt;
        let prog = OsString::from_vec(vec![b'p', 0xff]);
        match parse(&[prog.clone(), OsString::from_vec(vec![0xfe])]) {
            Ok(Action::Run(o)) => {
                assert_eq!(o.program, prog);
                assert_eq!(o.args.len(), 1);
            }
            other => panic!("{other:?}"),
        }
        assert!(parse(&[OsString::from_vec(vec![b'-', 0xff])]).is_err());
    }
}
