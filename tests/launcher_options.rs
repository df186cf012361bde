//! `oshrun` accepts the options users paste from Open MPI and Hydra command lines.

mod common;

use common::*;
use std::collections::HashMap;
use std::process::Command;

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

    // Another machine: a clear error, nothing started.
    let r = oshrun(&[
        "-H",
        "localhost,elsewhere.invalid:2",
        "-np",
        "2",
        "/bin/sh",
        "-c",
        "echo ran",
    ]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with("oshrun: host 'elsewhere.invalid' (-H) is not this machine ("),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("multi-node jobs are not supported yet"),
        "{}",
        r.stderr
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
