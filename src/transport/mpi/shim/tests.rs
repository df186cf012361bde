//! The loader's choices and messages, and every wrapper over MPI: the last
//! test runs itself under `mpirun`.

use super::super::super::shimlib::library_dir;
use super::*;

#[test]
fn a_missing_shim_named_by_the_environment_is_reported_with_its_path() {
    let c = [Candidate {
        path: PathBuf::from("/nonexistent/librshmem_mpi.so"),
        why: ENV_SHIM,
    }];
    let e = open_first(&c).err().expect("no shim there");
    assert!(
        e.starts_with("cannot load the MPI shim named by RSHMEM_MPI_SHIM: /nonexistent/librshmem_mpi.so: "),
        "{e}"
    );
}

#[test]
fn every_place_tried_is_named() {
    let c = [
        Candidate {
            path: PathBuf::from("/nonexistent/a/librshmem_mpi.so"),
            why: "beside librshmem",
        },
        Candidate {
            path: PathBuf::from("/nonexistent/b/librshmem_mpi.so"),
            why: "where rshmem was built",
        },
    ];
    let e = open_first(&c).err().expect("no shim there");
    assert!(
        e.contains("/nonexistent/a/librshmem_mpi.so (beside librshmem): no such file"),
        "{e}"
    );
    assert!(
        e.contains("/nonexistent/b/librshmem_mpi.so (where rshmem was built): no such file"),
        "{e}"
    );
    if option_env!("RSHMEM_MPI_SHIM_BUILT").is_none() {
        assert!(
            e.starts_with("rshmem was built without MPI (no mpicc at build time)"),
            "{e}"
        );
    }
}

#[test]
fn linked_into_the_executable_there_is_no_library_directory() {
    // This test binary holds rshmem itself (the rlib), as a program linked
    // with librshmem.a does: the executable's directory is not rshmem's.
    assert_eq!(library_dir(), None);
    assert!(candidates().iter().all(|c| c.why != "beside librshmem"));
}

#[test]
fn a_library_that_is_not_the_shim_is_refused() {
    // libc has none of the shim's symbols.
    let e = open(Path::new("libc.so.6")).err().expect("libc is no shim");
    assert!(e.contains("no symbol rsm_abi_version"), "{e}");
}

/// With an MPI at build time: the shim built beside the library loads,
/// and reports its errors (no MPI call is made before `init`).
#[test]
fn the_built_shim_loads_and_reports_errors() {
    let Some(built) = option_env!("RSHMEM_MPI_SHIM_BUILT") else {
        return;
    };
    let shim = open(Path::new(built)).expect("the built shim loads");
    shim.progress();
    let e = shim.flush_all().expect_err("no window yet");
    assert_eq!(e, "rsm_flush_all: no window (rsm_win_create was not called)");
    let e = shim.split_nodes(0, 2).expect_err("not initialised");
    assert!(e.contains("not 2"), "{e}");
}

/// Set in the ranks that `every_wrapper_works_under_mpirun` starts.
const IN_MPIRUN: &str = "RSHMEM_SHIM_TEST_IN_MPIRUN";
const RANKS: usize = 2;

/// Runs this very test in `RANKS` ranks under one-host `mpirun` (Open MPI
/// off shared memory: TCP, `osc ucx`), where each rank calls every wrapper
/// of [`Shim`] through the real loader: a Rust type that disagrees with
/// `shim.h` shows as a wrong value or a crash. Without an MPI or the shim
/// it passes doing nothing, unless `RSHMEM_REQUIRE_MPI=1`.
#[test]
fn every_wrapper_works_under_mpirun() {
    if std::env::var_os(IN_MPIRUN).is_some() {
        return rank_body();
    }
    let required = std::env::var("RSHMEM_REQUIRE_MPI").is_ok_and(|v| v == "1");
    let mpirun = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("mpirun"))
            .find(|p| p.is_file())
    });
    let (Some(mpirun), Some(_)) = (mpirun, option_env!("RSHMEM_MPI_SHIM_BUILT")) else {
        assert!(
            !required,
            "RSHMEM_REQUIRE_MPI=1 but there is no mpirun or no shim was built"
        );
        return;
    };
    let mut cmd = std::process::Command::new(mpirun);
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } == 0 {
        cmd.arg("--allow-run-as-root");
    }
    cmd.args(["--oversubscribe", "-np", &RANKS.to_string()])
        .args(["--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "osc", "ucx"])
        .args(["--mca", "mpi_yield_when_idle", "1", "-x", "UCX_TLS=tcp"])
        .args(["-x", &format!("{IN_MPIRUN}=1")])
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "transport::mpi::shim::tests::every_wrapper_works_under_mpirun",
        ])
        .args(["--nocapture", "--test-threads=1"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().expect("run mpirun");
    let pid = child.id() as libc::pid_t;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let Ok(out) = rx.recv_timeout(std::time::Duration::from_secs(120)) else {
        // SAFETY: pid is our mpirun, which ends its ranks on SIGTERM.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        panic!("mpirun did not end within 120 s");
    };
    let out = out.expect("wait for mpirun");
    // Only the status counts: Open MPI may report UCX errors at finalize.
    assert!(
        out.status.success(),
        "a rank failed: {}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One rank of `every_wrapper_works_under_mpirun`.
fn rank_body() {
    let shim = Shim::load().expect("load");
    assert!(std::ptr::eq(Shim::load().expect("load again"), shim));
    let s = shim.init(false).expect("init");
    assert!(s.we_initialized && s.size == RANKS && !s.library.is_empty(), "{s:?}");
    let (me, n) = (s.rank, s.size);
    let (right, left) = ((me + 1) % n, (me + n - 1) % n);
    assert_eq!(shim.split_nodes(1, n).unwrap(), (0..n).collect::<Vec<_>>());
    let all = shim.allgather(&[me as u8 + 10, 7], n).unwrap();
    assert_eq!(all, (0..n).flat_map(|r| [r as u8 + 10, 7]).collect::<Vec<_>>());
    let mut b = [me as u8; 3];
    shim.node_bcast(&mut b).unwrap();
    assert_eq!(b, [me as u8; 3], "nodes of one PE");
    shim.node_barrier().unwrap();
    let agree = |comm, values: [i64; 2]| {
        shim.iagree_start(comm, values).unwrap();
        loop {
            if let Some(max) = shim.iagree_test::<2>(comm).unwrap() {
                break max;
            }
            shim.progress();
        }
    };
    let barrier = |comm| {
        agree(comm, [0, 0]);
    };
    assert_eq!(
        agree(Comm::Leaders, [me as i64, -(me as i64)]),
        [n as i64 - 1, 0],
        "maxima of rank and -rank"
    );

    // Layout of the window: [0, 8) put, [8, 40) strided, [40, 44) and
    // [48, 56) atomics of 4 and 8 bytes.
    let mut seg = vec![0u8; 64];
    let base = seg.as_mut_ptr();
    // SAFETY: seg lives until win_free below and is not reallocated.
    unsafe { shim.win_create(base, seg.len() as u64) }.unwrap();
    let read = |at: usize, len: usize| {
        shim.win_sync().unwrap();
        // SAFETY: within seg; MPI has completed the writes (barrier, sync).
        unsafe { std::slice::from_raw_parts(base.add(at), len) }.to_vec()
    };
    let word = [me as u8 + 1; 8];
    let strided: [u16; 4] = [me as u16, 100, me as u16 + 1, 101];
    // SAFETY: every source is a live local, and flush below completes them.
    unsafe {
        shim.put(right, 0, word.as_ptr(), 8).unwrap();
        // Elements 0 and 2 of `strided`, to bytes 8 and 24.
        shim.put_strided(right, 8, 16, strided.as_ptr().cast(), 4, 2, 2)
            .unwrap();
    }
    shim.flush(right).unwrap();
    shim.flush_all().unwrap();
    barrier(Comm::World);
    assert_eq!(read(0, 8), [left as u8 + 1; 8]);
    assert_eq!(read(8, 2), (left as u16).to_ne_bytes());
    assert_eq!(read(10, 14), [0; 14]);
    assert_eq!(read(24, 2), (left as u16 + 1).to_ne_bytes());
    let mut got = [0u8; 8];
    let mut got_strided = [0u16; 3];
    // SAFETY: the destinations are live locals, completed by flush_local.
    unsafe {
        shim.get(right, 0, got.as_mut_ptr(), 8).unwrap();
        shim.get_strided(right, 8, 16, got_strided.as_mut_ptr().cast(), 4, 2, 2)
            .unwrap();
    }
    shim.flush_local(right).unwrap();
    assert_eq!(got, [me as u8 + 1; 8]);
    assert_eq!(got_strided, [me as u16, 0, me as u16 + 1]);

    // Atomics on the right neighbour's words: every argument position.
    let amo = |op: RsmOp, size: usize, operand: u64, compare: u64, fetch: bool| -> u64 {
        let mut result = 0u64;
        let r: *mut u8 = if fetch {
            (&raw mut result).cast()
        } else {
            std::ptr::null_mut()
        };
        let at = if size == 4 { 40 } else { 48 };
        // SAFETY: the operands and result are live locals (little-endian:
        // the low bytes hold a 4-byte value), completed by the flush.
        unsafe {
            shim.amo(
                right,
                at,
                op,
                size,
                (&raw const operand).cast(),
                (&raw const compare).cast(),
                r,
            )
            .unwrap()
        };
        shim.flush(right).unwrap();
        result
    };
    for size in [4, 8] {
        let high = if size == 8 { 1 << 40 } else { 0 };
        amo(RsmOp::Set, size, high | 5, 0, false);
        assert_eq!(amo(RsmOp::Swap, size, high | 6, 0, true), high | 5);
        assert_eq!(amo(RsmOp::CompareSwap, size, 9, 1, true), high | 6, "fails");
        assert_eq!(amo(RsmOp::CompareSwap, size, 9, high | 6, true), high | 6);
        assert_eq!(amo(RsmOp::Add, size, 3, 0, true), 9);
        amo(RsmOp::And, size, 0b1010, 0, false);
        amo(RsmOp::Or, size, 0b0001, 0, false);
        amo(RsmOp::Xor, size, 0b1000, 0, false);
        assert_eq!(amo(RsmOp::Fetch, size, 0, 0, true), 0b0001, "12 & 0b1010 | 1 ^ 0b1000");
    }
    assert!(shim.amo_size_is_checked(right));
    barrier(Comm::World);
    shim.win_free().unwrap();
    drop(seg);
    // The shim's own MPI_Finalize must not call the program-finalize hook
    // (rshmem would re-enter its finalize); the C suite of mpi_mixed checks
    // that a program's MPI_Finalize does.
    static CALLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    extern "C" fn hook() {
        CALLED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    shim.on_mpi_finalize(hook).unwrap();
    shim.finalize().unwrap();
    assert!(
        !CALLED.load(std::sync::atomic::Ordering::Relaxed),
        "rsm_finalize called the hook"
    );
}

impl Shim {
    /// A size other than 4 or 8 is refused before MPI sees it.
    fn amo_size_is_checked(&self, pe: usize) -> bool {
        let v = 0u64;
        // SAFETY: refused before any pointer is used.
        let e = unsafe {
            self.amo(
                pe,
                40,
                RsmOp::Add,
                2,
                (&raw const v).cast(),
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        };
        e.is_err_and(|e| e == "rsm_amo: size 2 is not 4 or 8")
    }
}
