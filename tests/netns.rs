//! Two real nodes on one machine: two network namespaces joined by a veth pair
//! (`tests/netns/netns.sh`), each with its own hostname (`nodea`, `nodeb`),
//! and Open MPI's `mpirun` starting the far node's daemon through
//! `tests/netns/fake-ssh`. First an MPI hello checks the setup itself; then
//! rshmem's `oshrun --host 10.77.0.1:2,10.77.0.2:2 -np 4` runs C programs
//! built with rshmem's `oshcc`: the smoke job (RMA, atomics, barriers, team
//! collectives), QTC, NAS FT class S with each transpose (verified against the
//! official checksums), and a PE killing itself.
//!
//! Needs root, `ip netns`, `unshare` and Open MPI; without them each test
//! prints one line saying why it skipped, unless `RSHMEM_REQUIRE_MPI=1` (CI),
//! which makes that a failure. The namespaces, and every process in them, are
//! removed when a test ends, passed or not.

mod common;

use std::path::Path;
use std::time::Duration;

use common::netns::{
    HOSTS, Nodes, OSHCC, OSHRUN, can_run, cannot_run, compile, dir, rshmem_env, without_finalize_noise,
};

#[test]
fn mpi_hello_on_two_nodes() {
    if !can_run() {
        return;
    }
    let hello = compile("mpicc", &dir().join("mpi_hello.c"), &[]);
    let nodes = Nodes::up('h');
    let agent = dir().join("fake-ssh");
    let mut args = vec![
        "--mca",
        "plm_rsh_agent",
        agent.to_str().unwrap(),
        "--host",
        HOSTS,
        "-np",
        "4",
    ];
    args.extend(common::mpi::TCP_MCA);
    args.extend(["-x", "UCX_TLS=tcp", &hello]);
    let (code, stdout, stderr) = nodes.run("mpirun", &args, &[]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let stdout = without_finalize_noise(&stdout);
    let mut lines: Vec<&str> = stdout.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "rank 0 of 4 on nodea with 2 on the node",
            "rank 1 of 4 on nodea with 2 on the node",
            "rank 2 of 4 on nodeb with 2 on the node",
            "rank 3 of 4 on nodeb with 2 on the node",
        ],
        "{stderr}"
    );
    assert_eq!(nodes.leftovers(Duration::from_secs(5)), Vec::<String>::new());
}

#[test]
fn rshmem_jobs_on_two_nodes() {
    if !can_run() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let hello = compile(OSHCC, &root.join("c_tests/unit/hello.c"), &[]);
    let smoke = compile(OSHCC, &dir().join("smoke.c"), &[]);
    let qtc = compile(
        OSHCC,
        &root.join("c_tests/apps/qtc_check.c"),
        &["-Wl,--no-as-needed", "-lm"],
    );
    let ft_dir = root.join("examples/ft");
    let (fft, transpose) = (ft_dir.join("fft.c"), ft_dir.join("transpose.c"));
    let ft = compile(
        OSHCC,
        &ft_dir.join("ft.c"),
        &[
            "-Wl,--no-as-needed",
            "-lm",
            fft.to_str().unwrap(),
            transpose.to_str().unwrap(),
        ],
    );
    let halo_dir = root.join("examples/halo");
    let mut halo_flags: Vec<String> = ["-Wl,--no-as-needed", "-lpthread", "-lm"].map(String::from).to_vec();
    for f in ["exchange.c", "grid.c", "stencil.c", "threads.c", "verify.c"] {
        halo_flags.push(halo_dir.join(f).to_str().unwrap().to_string());
    }
    let halo_flags: Vec<&str> = halo_flags.iter().map(String::as_str).collect();
    let halo = compile(OSHCC, &halo_dir.join("halo.c"), &halo_flags);
    let kill9 = compile(OSHCC, &root.join("c_tests/errors/kill9.c"), &[]);
    let nbc = compile(OSHCC, &root.join("c_tests/apps/nbc_stress.c"), &[]);
    let nodes = Nodes::up('r');
    let agent = dir().join("fake-ssh");
    let engines = common::mpi::engines("netns").unwrap_or_else(|why| panic!("{why}"));
    for engine in engines {
        let mut env = rshmem_env(agent.to_str().unwrap());
        env.push(("RSHMEM_REMOTE", engine));
        let oshrun = |program: &str, args: &[&str]| {
            let mut a = vec!["--host", HOSTS, "-np", "4", program];
            a.extend_from_slice(args);
            let started = std::time::Instant::now();
            let (code, stdout, stderr) = nodes.run(OSHRUN, &a, &env);
            eprintln!(
                "netns: {program} {args:?} remote={engine}: exit {code:?} in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            // A successful run under UCX prints nothing of UCX's own.
            if engine == "ucx" && code == Some(0) {
                let noise: Vec<&str> = stderr.lines().filter(|l| l.contains(" UCX ")).collect();
                assert!(
                    noise.is_empty(),
                    "{program} {args:?} under UCX:\n{}\n{stderr}",
                    noise.join("\n")
                );
            }
            (code, stdout, stderr)
        };
        jobs_on_two_nodes(
            engine,
            &nodes,
            &oshrun,
            [&hello, &smoke, &qtc, &ft, &halo, &nbc, &kill9],
        );
    }
}

/// A job's exit status, standard output and standard error.
type Ran = (Option<i32>, String, String);

/// The programs of [`rshmem_jobs_on_two_nodes`] under one engine to the
/// other node (`RSHMEM_REMOTE=engine`): hello, smoke, QTC, every FT
/// variant, every halo mode, random non-blocking collectives, and a PE
/// killed on the other node.
fn jobs_on_two_nodes(
    engine: &str,
    nodes: &Nodes,
    oshrun: &dyn Fn(&str, &[&str]) -> Ran,
    [hello, smoke, qtc, ft, halo, nbc, kill9]: [&str; 7],
) {
    let (code, stdout, stderr) = oshrun(hello, &[]);
    if stdout.contains("hello from PE 0 of 1") && !cannot_run("this build of rshmem does not start PEs under mpirun") {
        return;
    }
    assert_eq!(code, Some(0), "hello remote={engine}:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("hello from PE 0 of 4"),
        "hello remote={engine}:\n{stdout}\n{stderr}"
    );

    let (code, stdout, stderr) = oshrun(smoke, &[]);
    assert_eq!(
        (code, without_finalize_noise(&stdout).as_str()),
        (Some(0), "smoke ok\n"),
        "smoke remote={engine}:\n{stdout}\n{stderr}"
    );

    // QTC as the demo runs it, with every team member checking the broadcast
    // clusters (c_tests/apps/qtc_check.c).
    let (code, stdout, stderr) = oshrun(qtc, &["-n", "2048", "--check"]);
    assert_eq!(code, Some(0), "qtc remote={engine}:\n{stdout}\n{stderr}");
    for want in [
        "clusters: 276 (+59 singletons), teams: 4 (",
        "verify: OK (hash 0x39ae21c6d1a60955, identical to the serial reference)",
    ] {
        assert!(stdout.contains(want), "qtc lacks {want:?}:\n{stdout}\n{stderr}");
    }
    assert_eq!(nodes.leftovers(Duration::from_secs(5)), Vec::<String>::new());

    // NAS FT: every transpose puts across the nodes (puts with signals, the
    // all-to-all, the non-blocking all-to-alls); the four give the official
    // checksums, bit for bit alike.
    let mut checksums = Vec::new();
    for variant in ["exchange", "nbexchange", "slabs", "pencils"] {
        let (code, stdout, stderr) = oshrun(ft, &["-c", "S", "-v", variant, "-w", "0"]);
        assert_eq!(code, Some(0), "ft {variant} remote={engine}:\n{stdout}\n{stderr}");
        assert!(
            stdout.contains(&format!("variant={variant} pes=4 ")) && stdout.contains("verified=SUCCESSFUL"),
            "ft {variant} remote={engine}:\n{stdout}\n{stderr}"
        );
        let sums: Vec<&str> = stdout.lines().filter(|l| l.contains("Checksum =")).collect();
        assert_eq!(sums.len(), 6, "ft {variant} remote={engine}:\n{stdout}");
        checksums.push(sums.join("\n"));
    }
    assert!(checksums.iter().all(|c| *c == checksums[0]), "{checksums:#?}");
    assert_eq!(nodes.leftovers(Duration::from_secs(5)), Vec::<String>::new());

    // The halo exchange: half of each PE's 26 neighbours are on the other
    // node; every mode (threads: SHMEM_THREAD_MULTIPLE over MPI) verifies
    // against PE 0's serial run, with one checksum.
    let mut checksums = Vec::new();
    for mode in ["bulk", "notify", "threads"] {
        let (code, stdout, stderr) = oshrun(halo, &["-m", mode, "-G", "24", "-i", "4", "-w", "1"]);
        assert_eq!(code, Some(0), "halo {mode} remote={engine}:\n{stdout}\n{stderr}");
        let result = stdout.lines().find(|l| l.starts_with("RESULT ")).unwrap_or_default();
        assert!(
            result.contains(&format!("mode={mode} pes=4 ")) && result.contains("verified=yes"),
            "halo {mode} remote={engine}:\n{stdout}\n{stderr}"
        );
        checksums.push(result.split(' ').find(|w| w.starts_with("checksum=")).map(String::from));
    }
    assert!(
        checksums[0].is_some() && checksums.iter().all(|c| *c == checksums[0]),
        "{checksums:#?}"
    );
    assert_eq!(nodes.leftovers(Duration::from_secs(5)), Vec::<String>::new());

    // Random interleavings of non-blocking collectives on overlapping teams
    // (c_tests/apps/nbc_stress.c), each result checked: across nodes without
    // a progress thread they run inside the waits, in initiation order.
    let (code, stdout, stderr) = oshrun(nbc, &["--steps", "300"]);
    assert!(
        code == Some(0) && stdout.contains("nbc_stress: OK"),
        "nbc_stress remote={engine} exited {code:?}:\n{stdout}\n{stderr}"
    );
    assert_eq!(nodes.leftovers(Duration::from_secs(5)), Vec::<String>::new());

    // PE 2 (on nodeb) kills itself in a barrier: the job ends non-zero, the
    // report names it, and nothing is left running on either node.
    let (code, stdout, stderr) = oshrun(kill9, &[]);
    assert!(
        code.is_some_and(|c| c != 0),
        "kill9 remote={engine} exited {code:?}:\n{stdout}\n{stderr}"
    );
    assert!(
        stderr.contains("rank 2") || stderr.contains("PE 2"),
        "the report does not name PE 2:\n{stderr}"
    );
    assert!(!stdout.contains("left a barrier"), "{stdout}");
    assert_eq!(nodes.leftovers(Duration::from_secs(10)), Vec::<String>::new());
}

#[test]
fn finalize_noise_is_dropped() {
    let out = "smoke ok\n[1795617100.033703] [nodea:20488:0]           flush.c:26   UCX  ERROR req 0x55985902e400: \
               error during flush: Endpoint timeout, flush comp 0x55985902e498 count reduced to 0\n\
               [1795617100.033727] [nodea:20488:0]          ucp_ep.c:1667 UCX  WARN  disconnect failed: Endpoint \
               timeout\nPE 1: FAILED x\n[1] [n:1:0] a.c:1 UCX  ERROR something else\n";
    assert_eq!(
        without_finalize_noise(out),
        "smoke ok\nPE 1: FAILED x\n[1] [n:1:0] a.c:1 UCX  ERROR something else\n"
    );
}
