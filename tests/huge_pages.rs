//! The symmetric heap on huge pages (`SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES`,
//! `src/heap/huge.rs`), checked from inside the PEs (`tests/c/huge_pages.c`
//! reads `/proc/self/smaps`) on whatever this machine has: the expected
//! outcome is decided from the kernel's counts of 2 MiB pages and its
//! `shmem_enabled`, never by changing them.
//!
//! - pages reserved and enough free: every heap (own and peers', by
//!   `shmem_ptr`) is on 2048 kB pages, and `SHMEM_INFO` says so;
//! - pages reserved, too few free: `shmem_init` stops with the line that
//!   says how many are needed and free and how to reserve them;
//! - none reserved, transparent huge pages allowed for shared memory: the
//!   heaps are in a mapping eligible for them (`THPeligible: 1`);
//! - none reserved, none allowed: the same stop, which also says that
//!   transparent huge pages are off.
//!
//! Without the variable the heaps are on small pages. Under `mpirun` (when
//! installed), a 4-PE job of two virtual nodes (`RSHMEM_NODE_SIZE=2`), each
//! node's first PE making its node's heap file, the same.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const OSHCC: &str = env!("CARGO_BIN_EXE_oshcc");
const OSHRUN: &str = env!("CARGO_BIN_EXE_oshrun");
const POOL: &str = "/sys/kernel/mm/hugepages/hugepages-2048kB";

/// Held by each test while it runs: both count the free pages and then take
/// some, so they must not run at once.
static POOL_USERS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The program, compiled once for both tests.
fn build() -> PathBuf {
    static EXE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    EXE.get_or_init(compile).clone()
}

fn compile() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("huge_pages");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("huge_pages");
    let st = Command::new(OSHCC)
        .args(["-O1", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-o"])
        .arg(&exe)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/huge_pages.c"))
        .status()
        .unwrap();
    assert!(st.success(), "tests/c/huge_pages.c does not compile");
    exe
}

fn run(exe: &Path, np: usize, env: &[(&str, &str)], arg: &str) -> Output {
    let mut cmd = Command::new(OSHRUN);
    cmd.args(["--timeout", "60", "-np", &np.to_string()]);
    for (k, v) in env {
        cmd.arg("-x").arg(format!("{k}={v}"));
    }
    cmd.arg(exe).arg(arg);
    cmd.output().unwrap()
}

fn count(file: &str) -> usize {
    std::fs::read_to_string(format!("{POOL}/{file}"))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0)
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_heap_is_on_the_pages_the_kernel_has() {
    let _one_at_a_time = POOL_USERS.lock().unwrap_or_else(|e| e.into_inner());
    let exe = build();
    // Small pages without the variable.
    let out = run(&exe, 2, &[("SHMEM_INFO", "1"), ("SHMEM_SYMMETRIC_SIZE", "4M")], "4");
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(
            "rshmem symmetric heap: 4 MiB per PE on 4 KiB pages (SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES is not set)"
        ),
        "{stderr}"
    );

    let huge = [
        ("SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES", "1"),
        ("SHMEM_SYMMETRIC_SIZE", "4M"),
        ("SHMEM_INFO", "1"),
    ];
    for np in [1, 3] {
        // Counted just before the run: another job may take pages meanwhile,
        // which this test cannot help.
        let need = np * 2;
        let (arg, nr, avail) = expected(need);
        let expect = arg.unwrap_or("stop");
        let out = run(&exe, np, &huge, if expect == "stop" { "2048" } else { expect });
        let (stdout, stderr) = text(&out);
        let what = format!("np {np}, {nr} reserved, {avail} free: {stdout}\n{stderr}");
        if expect == "stop" {
            assert_eq!(out.status.code(), Some(1), "{what}");
            let line = format!(
                "rshmem: shmem_init (PE 0 of {np}): SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES: the heaps of this node's {np} PE{} \
                 (4 MiB each) need {need} huge pages of 2 MiB, but the kernel has {avail} free of {nr} reserved",
                if np == 1 { "" } else { "s" }
            );
            assert!(stderr.contains(&line), "{what}");
            assert!(
                stderr.contains(&format!(
                    "reserve them as root with `echo {} > /proc/sys/vm/nr_hugepages`",
                    nr + need - avail
                )),
                "{what}"
            );
            if nr == 0 {
                assert!(
                    stderr.contains("transparent huge pages for shared memory are off too"),
                    "{what}"
                );
            }
            assert!(
                !stderr.contains("SIGBUS") && !stdout.contains("heap pages ok"),
                "{what}"
            );
        } else {
            assert!(out.status.success() && stdout.contains("heap pages ok"), "{what}");
            let info = match expect {
                "thp" => "on 2 MiB transparent huge pages",
                _ => "on 2 MiB huge pages (explicit",
            };
            assert!(stderr.contains(info), "{what}");
        }
    }
}

/// What the machine's 2 MiB pages let a job of `need` pages do: the
/// program's argument, or None when `shmem_init` must stop.
fn expected(need: usize) -> (Option<&'static str>, usize, usize) {
    let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/shmem_enabled").unwrap_or_default();
    let thp_on = ["[always]", "[within_size]", "[advise]", "[force]"]
        .iter()
        .any(|w| thp.contains(w));
    let (nr, avail) = (
        count("nr_hugepages"),
        count("free_hugepages").saturating_sub(count("resv_hugepages")),
    );
    let arg = match nr {
        0 if thp_on => Some("thp"),
        0 => None,
        _ if avail >= need => Some("2048"),
        _ => None,
    };
    (arg, nr, avail)
}

#[test]
fn each_node_of_an_mpi_job_puts_its_heaps_on_huge_pages() {
    if common::mpi::on_path("mpirun").is_none() {
        println!("each_node_of_an_mpi_job_puts_its_heaps_on_huge_pages: skipped, no mpirun");
        return;
    }
    let _one_at_a_time = POOL_USERS.lock().unwrap_or_else(|e| e.into_inner());
    let exe = build();
    // Two nodes of 2 PEs with 4 MiB heaps: 4 pages each, 8 in all.
    let (arg, nr, avail) = expected(8);
    let mut cmd = common::mpi::mpirun();
    cmd.args(["-np", "4", "--timeout", "60"])
        .args(common::mpi::one_host_flags());
    for (k, v) in [
        ("RSHMEM_NODE_SIZE", "2"),
        ("SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES", "1"),
        ("SHMEM_SYMMETRIC_SIZE", "4M"),
        ("SHMEM_INFO", "1"),
    ] {
        cmd.arg("-x").arg(format!("{k}={v}"));
    }
    let out = cmd
        .arg(&exe)
        .arg(arg.unwrap_or("2048"))
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    let what = format!("{nr} reserved, {avail} free: {stdout}\n{stderr}");
    match arg {
        Some(arg) => {
            assert!(
                out.status.success() && stdout.contains(&format!("heap pages ok: {arg}")),
                "{what}"
            );
            assert!(
                stderr.contains("rshmem symmetric heap: 4 MiB per PE on 2 MiB"),
                "{what}"
            );
        }
        None => {
            // A node's first PE stops (with 4 to 7 pages free, one node gets them).
            assert!(!out.status.success(), "{what}");
            assert!(
                stderr.contains("): SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES: the heaps of this node's 2 PEs (4 MiB each) need 4 huge pages of 2 MiB, but the kernel has "),
                "{what}"
            );
        }
    }
}
