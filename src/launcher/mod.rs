//! `oshrun` (alias `shmemrun`): starts the PEs of a job on this machine and
//! watches them, or hands a multi-node job to the MPI's launcher.
//!
//! - [`options`]: the command line.
//! - [`remote`]: multi-node jobs, through `mpirun`, `mpiexec` or `srun`.
//! - [`spawn`]: the job's memory file (see [`crate::job`]) and the PE processes.
//! - [`supervise`]: the loop that forwards output, reaps PEs and ends the job;
//!   [`classify`] decides what a PE's end means.
//! - [`forward`], [`sink`]: line-by-line forwarding of the PEs' output.
//! - [`signals`]: signals to oshrun as events of the loop.
//! - [`status`]: `oshrun --status`; the supervision loop also prints hang
//!   reports ([`crate::stuck`]) after `SHMEM_HANG_TIMEOUT` and on SIGQUIT.
//! - [`trace`]: the trace layer preloaded into the PEs when `SHMEM_TRACE` is set.

pub(crate) mod classify;
pub(crate) mod forward;
pub(crate) mod hosts;
pub(crate) mod mapping;
pub(crate) mod options;
pub(crate) mod remote;
pub(crate) mod signals;
pub(crate) mod sink;
pub(crate) mod spawn;
pub(crate) mod status;
pub(crate) mod supervise;
pub mod trace;

use options::Action;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Exit status for a command line that cannot be run.
const EXIT_USAGE: i32 = 2;
/// Exit status when the program cannot be executed (as in shells).
const EXIT_NOEXEC: i32 = 127;
/// How long a job cut short waits for its last output to be written.
const FLUSH_LIMIT: Duration = Duration::from_secs(2);
/// How long a PE may stay stopped before oshrun says so, unless
/// `--stopped-grace` or this variable says otherwise.
const STOPPED_GRACE: &str = "3";
use remote::ENV_STOPPED_GRACE;

/// Runs the launcher with the process arguments; returns its exit status.
pub fn main() -> i32 {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    match options::parse(&args) {
        Err(e) => {
            eprintln!("oshrun: {e}\n{}", options::SYNOPSIS);
            EXIT_USAGE
        }
        Ok(Action::Help) => {
            print!("{}", options::HELP);
            0
        }
        Ok(Action::Version) => {
            println!("oshrun (rshmem) {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Ok(Action::Run(opts)) => run(&opts),
        Ok(Action::Remote(job)) => remote::run(&job),
        Ok(Action::Status(pid)) => status::run(pid),
    }
}

/// Runs one job.
fn run(opts: &options::Options) -> i32 {
    let stopped_grace = match stopped_grace(opts) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("oshrun: {e}\n{}", options::SYNOPSIS);
            return EXIT_USAGE;
        }
    };
    let hang_timeout = match crate::stuck::timeout::timeout(&opts.env) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("oshrun: {e}");
            return EXIT_USAGE;
        }
    };
    let program = match spawn::resolve_program(&opts.program) {
        Ok(p) => p,
        Err(why) => {
            eprintln!("oshrun: cannot execute '{}': {why}", options::show(&opts.program));
            return EXIT_NOEXEC;
        }
    };
    let nofile = spawn::raise_nofile(opts.npes);
    let job_id = job_id();
    let mem = match spawn::JobMem::create(opts.npes, &job_id) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("oshrun: cannot create the job's memory file: {e}");
            return 1;
        }
    };
    // Before any PE exists, so that no SIGCHLD or Ctrl-C is missed.
    let wake = match signals::SelfPipe::install() {
        Ok(w) => w,
        Err(e) => {
            eprintln!("oshrun: cannot set up signal handling: {e}");
            return 1;
        }
    };
    let start = Instant::now();
    let cpus = spawn::allowed_cpus();
    let (env, trace_note) = trace::job_env(&opts.env);
    let plan = spawn::Plan {
        program: &program,
        argv0: &opts.program,
        args: &opts.args,
        env: &env,
        npes: opts.npes,
        job_id,
        job_fd: mem.fd(),
        nofile,
        cpus: &cpus,
        pin: spawn::pins(opts.bind, opts.npes, opts.cpus_per_pe, cpus.len()),
        cpus_per_pe: opts.cpus_per_pe,
    };
    for note in opts.notes.iter().chain(&trace_note) {
        eprintln!("{note}");
    }

    // Started on this thread: see spawn_pe. A PE that cannot be started ends
    // the job, but those already running still go through the loop. So does
    // a Ctrl-C while starting many PEs: the loop reports it first thing.
    let mut spawned = Vec::with_capacity(opts.npes);
    let mut spawn_error = None;
    for pe in 0..opts.npes {
        if signals::ending_pending() {
            break;
        }
        match spawn::spawn_pe(&plan, pe) {
            Ok(s) => spawned.push(s),
            Err(e) => {
                let why = e.raw_os_error().map_or_else(|| e.to_string(), spawn::reason);
                let hint = if e.raw_os_error() == Some(libc::EMFILE) {
                    " (raise the limit: ulimit -n)"
                } else {
                    ""
                };
                spawn_error = Some(format!("cannot start PE {pe}: {why}{hint}; ending the job"));
                break;
            }
        }
    }

    if opts.report_bindings {
        report_bindings(&spawned, &cpus);
    }

    let (sinks, writers) = match (
        sink::Sink::start(1, wake.write_fd()),
        sink::Sink::start(2, wake.write_fd()),
    ) {
        (Ok((out, wo)), Ok((err, we))) => ([out, err], [wo, we]),
        (Err(e), _) | (_, Err(e)) => {
            // Without writer threads the output cannot be forwarded: end the job.
            eprintln!("oshrun: cannot start the output threads: {e}; ending the job");
            kill_and_reap(&spawned);
            return 1;
        }
    };
    let timeout = opts.timeout.as_ref().map(|(d, text)| (start + *d, text.clone()));
    let mut sup = supervise::Supervisor::new(
        spawned,
        opts.tag_output,
        mem.control(),
        &wake,
        sinks.clone(),
        supervise::Limits {
            timeout,
            stopped_grace,
            hang: hang_timeout,
            hang_abort: opts.hang_abort,
        },
    );
    if let Some(msg) = spawn_error {
        sup.fail_internally(&msg);
    }
    let (status, cut_short) = sup.run();

    // Every PE is reaped; let the writers finish. A job cut short by a signal or
    // the timeout does not wait forever on a stuck output.
    let deadline = cut_short.then(|| Instant::now() + FLUSH_LIMIT);
    for s in &sinks {
        s.close();
    }
    if sinks.iter().all(|s| s.wait_done(deadline)) {
        for w in writers {
            let _ = w.join();
        }
    }
    drop(mem);
    status
}

/// `--report-bindings`: one line per started PE saying where it may run, as
/// the kernel reports it (all of oshrun's CPUs: not bound).
fn report_bindings(spawned: &[spawn::Spawned], all: &[usize]) {
    for (pe, s) in spawned.iter().enumerate() {
        let place = match spawn::affinity_of(s.pid) {
            Some(set) if set.as_slice() != all => match set.as_slice() {
                [one] => format!("bound to CPU {one}"),
                many => format!("bound to CPUs {}", cpu_list(many)),
            },
            Some(_) => "not bound".to_string(),
            None => "gone before its binding could be read".to_string(),
        };
        eprintln!("oshrun: PE {pe} (pid {}) {place}", s.pid);
    }
}

/// "0-3,6" for CPUs 0, 1, 2, 3 and 6 (sorted input).
fn cpu_list(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if j == i {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// `--stopped-grace`, else `RSHMEM_STOPPED_GRACE`, else the default; with its text.
fn stopped_grace(opts: &options::Options) -> Result<(Duration, String), options::UsageError> {
    if let Some(g) = &opts.stopped_grace {
        return Ok(g.clone());
    }
    let text = std::env::var(ENV_STOPPED_GRACE).unwrap_or_else(|_| STOPPED_GRACE.into());
    let what = format!("environment variable {ENV_STOPPED_GRACE}");
    Ok((options::parse_grace(&what, &text)?, text))
}

/// Unique per run: oshrun's pid and start time.
fn job_id() -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{:x}-{:x}", std::process::id(), nanos)
}

/// Ends and reaps PEs outside the loop (only when it cannot run).
fn kill_and_reap(spawned: &[spawn::Spawned]) {
    for s in spawned {
        // SAFETY: the PE is our child and not reaped yet, so the pid is its own.
        unsafe { libc::kill(s.pid, libc::SIGKILL) };
    }
    for s in spawned {
        let mut st = 0;
        // SAFETY: st is a valid out-parameter.
        unsafe { libc::waitpid(s.pid, &mut st, 0) };
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn oshrun_and_the_library_share_the_stopped_grace() {
        let row = crate::config::VARS
            .iter()
            .find(|v| v.name == super::ENV_STOPPED_GRACE)
            .unwrap();
        assert_eq!(row.default, super::STOPPED_GRACE);
    }
}
