//! `oshrun` accepts the options users paste from Open MPI and Hydra command lines,
//! and hands a multi-node job to the MPI launcher.

mod common;

use common::*;
use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Runs oshrun with only the variables `vars` in its environment.
fn run_env(args: &[&str], vars: &[(&str, &str)]) -> Run {
    let t = Instant::now();
    let child = Command::new(OSHRUN)
        .args(args)
        .env_clear()
        .envs(vars.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child, t)
}

#[test]
fn open_mpi_and_hydra_options_are_accepted() {
    let npes = "echo $RSHMEM_NPES";
    // Host lists naming this machine: their slots give the PE count.
    for opts in [
        &["-H", "localhost:2"][..],
        &["--host", "localhost,127.0.0.1"],
        &["-hosts", "localhost", "-ppn", "2"],
        &["-N", "2"],
        &["-npernode", "2", "-np", "2"],
        &["--map-by", "ppr:2:node"],
    ] {
        let mut args = opts.to_vec();
        args.extend_from_slice(&["/bin/sh", "-c", npes]);
        let r = oshrun(&args);
        assert_eq!(r.code, Some(0), "{opts:?}: {}", r.stderr);
        assert_eq!(r.stdout, "2\n2\n", "{opts:?}");
        assert_eq!(r.stderr, "", "{opts:?}");
    }
    // This machine by its own name, in a hostfile with comments.
    let dir = scratch("hostfile");
    let hf = dir.join("hosts");
    let host = String::from_utf8(Command::new("hostname").output().unwrap().stdout).unwrap();
    std::fs::write(&hf, format!("# this machine\n{} slots=3\n", host.trim())).unwrap();
    let r = oshrun(&["--hostfile", hf.to_str().unwrap(), "/bin/sh", "-c", npes]);
    assert_eq!((r.code, r.stdout.as_str()), (Some(0), "3\n3\n3\n"), "{}", r.stderr);

    // Another machine without an MPI launcher: a clear error, nothing started
    // (the launcher itself: multi_node_jobs_run_the_mpi_launcher).
    let empty = scratch("no-launcher");
    let r = run_env(
        &[
            "-H",
            "localhost,elsewhere.invalid:2",
            "-np",
            "2",
            "/bin/sh",
            "-c",
            "echo ran",
        ],
        &[("PATH", empty.to_str().unwrap())],
    );
    assert_eq!(r.code, Some(127), "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "oshrun: host 'elsewhere.invalid' (-H) asks for a multi-node job, which runs through an MPI launcher, \
         but none of mpirun, mpiexec, srun is on PATH (install an MPI, or set RSHMEM_LAUNCHER)\n"
    );
    assert_eq!(r.stdout, "");
    // -N and -np that disagree.
    let r = oshrun(&["-np", "4", "-N", "2", "/bin/true"]);
    assert_eq!(r.code, Some(2));
    assert!(
        r.stderr
            .contains("'-N 2' asks for 2 PEs on this machine (the only node), but '-np 4' for 4"),
        "{}",
        r.stderr
    );

    // --mca: ignored with one note line; so is a mapping rshmem does not model.
    let r = oshrun(&[
        "--mca",
        "btl",
        "self,vader",
        "-mca",
        "pml",
        "ob1",
        "-np",
        "2",
        "/bin/sh",
        "-c",
        "echo ok",
    ]);
    assert_eq!((r.code, r.stdout.as_str()), (Some(0), "ok\nok\n"), "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "oshrun: note: ignoring --mca btl self,vader, -mca pml ob1 (Open MPI's MCA parameters do not apply to rshmem)\n"
    );
    let r = oshrun(&["--map-by", "socket", "-np", "2", "/bin/sh", "-c", "echo ok"]);
    assert_eq!((r.code, r.stdout.as_str()), (Some(0), "ok\nok\n"), "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.starts_with("oshrun: note: --map-by socket: "), "{}", r.stderr);
}

#[test]
fn report_bindings_says_where_each_pe_runs() {
    let cpus = own_cpus();
    let n = cpus.len();
    let np = 2 * n;
    // Each PE prints its pid; oshrun's lines must name the same pids.
    let script = "echo \"$RSHMEM_PE $$\"";
    let pids_of = |stdout: &str| -> HashMap<String, String> {
        stdout
            .lines()
            .filter_map(|l| l.split_once(' ').map(|(a, b)| (a.to_string(), b.to_string())))
            .collect()
    };
    let r = sh(np, &["--report-bindings", "--bind-to", "core"], script);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let pids = pids_of(&r.stdout);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), np, "{}", r.stderr);
    for pe in 0..np {
        // Pinned to the only CPU there is would be reported as not bound.
        let place = if n > 1 {
            format!("bound to CPU {}", cpus[pe % n])
        } else {
            "not bound".into()
        };
        assert_eq!(
            lines[pe],
            format!("oshrun: PE {pe} (pid {}) {place}", pids[&pe.to_string()])
        );
    }
    let r = sh(2, &["--report-bindings", "--bind-to", "none"], script);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let pids = pids_of(&r.stdout);
    assert_eq!(
        r.stderr,
        format!(
            "oshrun: PE 0 (pid {}) not bound\noshrun: PE 1 (pid {}) not bound\n",
            pids["0"], pids["1"]
        )
    );
    // --map-by ...:PE=2 pins each PE to two CPUs (all of them on a 2-CPU machine).
    if n >= 4 {
        let r = sh(1, &["--report-bindings", "--map-by", "slot:PE=2"], script);
        assert!(r.stderr.contains(") bound to CPUs "), "{}", r.stderr);
    }
    let r = sh(
        1,
        &["--map-by", "core:PE=2", "--bind-to", "core"],
        "grep Cpus_allowed_list /proc/self/status",
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    if n >= 2 {
        let want: Vec<String> = cpus[..2].iter().map(|c| c.to_string()).collect();
        let got = r.stdout.split_whitespace().last().unwrap_or("").to_string();
        assert!(
            got == want.join(",") || got == format!("{}-{}", cpus[0], cpus[1]),
            "PE 0 on {got}"
        );
    }
}

/// A fake `mpirun` that says it is Open MPI's, prints its pid, arguments and
/// rshmem's variables, and exits with 7.
const FAKE_MPIRUN: &str = r#"#!/bin/sh
if [ "$1" = --version ]; then echo "mpirun (Open MPI) 4.1.4"; exit 0; fi
echo "pid $$"
for a in "$@"; do echo "arg $a"; done
env | grep -E '^(RSHMEM|SHMEM|UCX|OTHER)' | sort | sed 's/^/env /'
exit 7
"#;

#[test]
fn multi_node_jobs_run_the_mpi_launcher() {
    let dir = scratch("fake-mpirun");
    let fake = dir.join("mpirun");
    std::fs::write(&fake, FAKE_MPIRUN).unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", dir.display());
    let vars = [
        ("PATH", path.as_str()),
        ("RSHMEM_NODE_SIZE", "1"),
        ("UCX_TLS", "tcp"),
        ("OTHER", "x"),
        // oshrun's job variables (oshrun run from a PE) must not reach the PEs.
        ("RSHMEM_JOB_FD", "5"),
    ];
    let args = [
        "-v",
        "-H",
        "10.77.0.1:2,nodeb.invalid:2",
        "-np",
        "4",
        "-x",
        "A=1",
        "prog",
        "a 1",
    ];
    let child = Command::new(OSHRUN)
        .args(args)
        .env_clear()
        .envs(vars)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let r = finish(child, Instant::now());
    // exec: the launcher is oshrun's process, its status oshrun's.
    assert_eq!(r.code, Some(7), "{}", r.stderr);
    // -v also has PE 0 say which engine joins the nodes (RSHMEM_VERBOSE).
    let want_args =
        "-np 4 --host 10.77.0.1:2,nodeb.invalid:2 -x A=1 -x RSHMEM_NODE_SIZE -x RSHMEM_VERBOSE -x UCX_TLS prog";
    let mut want: Vec<String> = vec![format!("pid {pid}")];
    want.extend(want_args.split(' ').map(|a| format!("arg {a}")));
    want.extend(
        [
            "arg a 1",
            "env OTHER=x",
            "env RSHMEM_NODE_SIZE=1",
            "env RSHMEM_VERBOSE=1",
            "env UCX_TLS=tcp",
        ]
        .map(String::from),
    );
    assert_eq!(r.stdout.lines().collect::<Vec<_>>(), want, "{}", r.stdout);
    assert_eq!(
        r.stderr,
        format!("oshrun: running {} {want_args} 'a 1'\n", fake.display())
    );

    // RSHMEM_LAUNCHER takes a job on this machine too, and oshrun passes only
    // the options the user gave.
    let mut vars = vars.to_vec();
    vars.push(("RSHMEM_LAUNCHER", "mpirun"));
    let r = run_env(&["-N", "2", "--oversubscribe", "prog"], &vars);
    assert_eq!(r.code, Some(7), "{}", r.stderr);
    let got: Vec<&str> = r.stdout.lines().filter_map(|l| l.strip_prefix("arg ")).collect();
    assert_eq!(
        got,
        [
            "-N",
            "2",
            "--oversubscribe",
            "-x",
            "RSHMEM_NODE_SIZE",
            "-x",
            "UCX_TLS",
            "prog"
        ]
    );
    assert_eq!(r.stderr, "");
    vars.pop();
    vars.push(("RSHMEM_LAUNCHER", "nompirun"));
    let r = run_env(&["-np", "2", "prog"], &vars);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (Some(127), "oshrun: RSHMEM_LAUNCHER=nompirun: not found on PATH\n")
    );
}
