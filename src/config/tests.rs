//! Tests of the configuration table and its parsing.
use super::parse::parse_size;
use super::*;
use std::collections::HashMap;

#[test]
fn sizes_follow_the_spec() {
    assert_eq!(parse_size("3.1M"), Ok(3250586));
    assert_eq!(parse_size(".5m"), parse_size("0.5m"));
    assert_eq!(parse_size(".5m"), Ok(1 << 19));
    assert_eq!(parse_size("20k"), Ok(20 * 1024));
    assert_eq!(parse_size("1G"), Ok(1 << 30));
    assert_eq!(parse_size("2t"), Ok(2 << 40));
    assert_eq!(parse_size("65536"), Ok(65536));
    assert_eq!(parse_size(" 1.5K "), Ok(1536));
    assert_eq!(parse_size("0.0001k"), Ok(1)); // rounded up to a whole byte
}

#[test]
fn malformed_sizes_are_rejected() {
    for bad in ["", "20kk", "k", "1.2.3M", "-5M", "5X", "1e6", "abc", ".", "1 M"] {
        assert!(parse_size(bad).is_err(), "{bad:?} should be rejected");
    }
    assert!(parse_size("99999999999999999999T").is_err());
}

fn cfg(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let m: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Config::from_lookup(|k| m.get(k).cloned())
}

#[test]
fn shmem_prefix_wins_over_sma_alias() {
    let c = cfg(&[("SMA_SYMMETRIC_SIZE", "1M"), ("SHMEM_SYMMETRIC_SIZE", "2M")]).unwrap();
    assert_eq!(c.symmetric_size, 2 << 20);
    let c = cfg(&[("SMA_SYMMETRIC_SIZE", "1M")]).unwrap();
    assert_eq!(c.symmetric_size, 1 << 20);
    assert!(cfg(&[("SMA_DEBUG", "")]).unwrap().debug);
}

#[test]
fn errors_name_the_variable_and_value() {
    let e = cfg(&[("SHMEM_SYMMETRIC_SIZE", "12Q")]).unwrap_err();
    assert_eq!(e.var, "SHMEM_SYMMETRIC_SIZE");
    assert_eq!(e.value, "12Q");
    assert!(e.to_string().contains("12Q"));
    assert!(cfg(&[("SHMEM_SYMMETRIC_SIZE", "0")]).is_err());
    assert!(cfg(&[("SHMEM_WAIT_SPIN", "lots")]).is_err());
    assert_eq!(
        cfg(&[("SHMEM_PEER_TABLES", "some")]).unwrap_err().var,
        "SHMEM_PEER_TABLES"
    );
    assert!(cfg(&[("SHMEM_PEER_TABLES", "1048577")]).is_err());
    assert!(cfg(&[("SHMEM_HANG_WARN", "-1")]).is_err());
}

#[test]
fn defaults() {
    let c = cfg(&[]).unwrap();
    assert_eq!(c.symmetric_size, 512 << 20);
    assert!(!c.debug && !c.info && !c.version);
    assert_eq!((c.wait_spin, c.peer_tables), (None, None));
    assert_eq!(cfg(&[("SHMEM_PEER_TABLES", "auto")]).unwrap().peer_tables, None);
    assert_eq!(cfg(&[("SHMEM_PEER_TABLES", "0")]).unwrap().peer_tables, Some(0));
    assert_eq!(cfg(&[("SHMEM_PEER_TABLES", " 24 ")]).unwrap().peer_tables, Some(24));
    assert!(c.info_text().contains("SHMEM_SYMMETRIC_SIZE"));
}

#[test]
fn sizes_near_2_pow_64_are_exact_or_named_errors() {
    let too_large = Err("too large: a size is at most 2^64 - 1 bytes".to_string());
    assert_eq!(parse_size("18446744073709551615"), Ok(usize::MAX));
    assert_eq!(parse_size("18446744073709551616"), too_large);
    assert_eq!(parse_size("16777216T"), too_large);
    assert_eq!(parse_size("16777215.9999999999999T"), too_large); // ceil gives 2^64
    assert_eq!(parse_size("16777215.99999999999999T"), too_large);
    assert_eq!(parse_size("16777215.5T"), Ok(usize::MAX - (1 << 39) + 1));
    assert_eq!(parse_size("00000000000000000000000001k"), Ok(1024));
    assert_eq!(parse_size("123456789012345678901234567890"), too_large);
    // Long fractions: exact ceiling, no overflow, digits past the 24th count.
    assert_eq!(parse_size("0.999999999999999999999999999999T"), Ok(1 << 40));
    assert_eq!(parse_size("1.0000000000000000000000000001"), Ok(2));
    assert_eq!(parse_size("1.000000000000000000000000000000"), Ok(1));
}

#[test]
fn sizes_must_survive_rounding() {
    // Within 2 MiB of 2^64: rounding up to the layout granule would wrap.
    for v in ["18446744073709551615", "18446744073709550000", "16777215.9999999999T"] {
        for var in [
            "SHMEM_SYMMETRIC_SIZE",
            "SHMEM_SPACE_ARENA_SIZE",
            "SHMEM_TEAM_SCRATCH_SIZE",
        ] {
            let e = cfg(&[(var, v)]).unwrap_err();
            assert_eq!(e.var, var);
            assert_eq!(
                e.to_string(),
                format!(
                    "environment variable {var}=\"{v}\" is invalid: too large: rounded up to a multiple of 2 MiB \
                     (as memory is laid out) it exceeds 2^64 - 1 bytes"
                )
            );
        }
    }
    // The largest size that rounds is accepted here (start-up then finds it
    // too large for the machine or a memory file).
    let top = (usize::MAX - (2 << 20) + 1).to_string();
    assert_eq!(
        cfg(&[("SHMEM_SYMMETRIC_SIZE", &top)]).unwrap().symmetric_size,
        usize::MAX - (2 << 20) + 1
    );
    let e = cfg(&[("SHMEM_SYMMETRIC_SIZE", "0k")]).unwrap_err();
    assert_eq!((e.value.as_str(), e.why.as_str()), ("0k", "the heap must not be empty"));
    // A team's scratch lives in the space arena.
    let e = cfg(&[("SHMEM_TEAM_SCRATCH_SIZE", "2G")]).unwrap_err();
    assert_eq!(e.var, "SHMEM_TEAM_SCRATCH_SIZE");
    assert!(
        e.why
            .contains("must fit in the space arena (SHMEM_SPACE_ARENA_SIZE, 1073741824 bytes)"),
        "{e}"
    );
    let e = cfg(&[("SHMEM_SPACE_ARENA_SIZE", "1M"), ("SHMEM_TEAM_SCRATCH_SIZE", "0")]).unwrap_err();
    assert!(e.why.contains("at least 1024 bytes"), "{e}");
    let e = cfg(&[("SHMEM_SPACE_ARENA_SIZE", "1M")]);
    assert!(e.is_ok());
}

#[test]
fn counts_are_bounded() {
    for (var, v, why) in [
        ("SHMEM_PSYNC_POOL", "65537", "too large: at most 65536"),
        (
            "SHMEM_PSYNC_POOL_MAX",
            "4611686018427387904",
            "too large: at most 65536",
        ),
        (
            "SHMEM_PSYNC_POOL_MAX",
            "99999999999999999999999",
            "too large: at most 65536",
        ),
        ("SHMEM_PSYNC_POOL", "-1", "expected a whole number"),
        (
            "SHMEM_WAIT_SPIN",
            "4294967296",
            "too large: at most 1073741824 (or 'auto')",
        ),
        (
            "SHMEM_WAIT_SPIN",
            "4294967295",
            "too large: at most 1073741824 (or 'auto')",
        ),
        ("SHMEM_WAIT_SPIN", "lots", "expected a whole number (or 'auto')"),
    ] {
        let e = cfg(&[(var, v)]).unwrap_err();
        assert_eq!((e.var.as_str(), e.value.as_str(), e.why.as_str()), (var, v, why));
    }
    let c = cfg(&[("SHMEM_PSYNC_POOL_MAX", "65536"), ("SHMEM_WAIT_SPIN", "1073741824")]).unwrap();
    assert_eq!((c.psync_pool_max, c.wait_spin), (65536, Some(1 << 30)));
}

#[test]
fn open_mpi_heap_size_name() {
    let c = cfg(&[("SHMEM_SYMMETRIC_HEAP_SIZE", "3M")]).unwrap();
    assert_eq!(c.symmetric_size, 3 << 20);
    let from = c.symmetric_size_set_by.as_ref().unwrap();
    assert_eq!(
        (from.var.as_str(), from.text.as_str()),
        ("SHMEM_SYMMETRIC_HEAP_SIZE", "3M")
    );
    assert!(c.info_text().contains("value 3145728 (from SHMEM_SYMMETRIC_HEAP_SIZE)"));
    // A choice lists what it accepts (benches/compare.py reads the strategies there).
    let all = format!(
        "default traditional; one of: {}\n",
        crate::config::names::STRATEGIES.join(", ")
    );
    assert!(c.info_text().contains(&all), "{all}");
    assert!(
        c.info_text()
            .contains("SHMEM_SYMMETRIC_SIZE (alias SMA_SYMMETRIC_SIZE) (also SHMEM_SYMMETRIC_HEAP_SIZE)\n")
    );
    assert!(c.info_text().contains("  SHMEM_DEBUG (alias SMA_DEBUG)\n"));
    // Both names, same size (however written): fine, the SHMEM_ name is the source.
    let c = cfg(&[("SHMEM_SYMMETRIC_SIZE", "3145728"), ("SHMEM_SYMMETRIC_HEAP_SIZE", "3M")]).unwrap();
    assert_eq!(c.symmetric_size, 3 << 20);
    assert_eq!(c.symmetric_size_set_by.unwrap().var, "SHMEM_SYMMETRIC_SIZE");
    // Different sizes: an error naming both.
    let e = cfg(&[("SHMEM_SYMMETRIC_SIZE", "1M"), ("SHMEM_SYMMETRIC_HEAP_SIZE", "2M")]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "environment variable SHMEM_SYMMETRIC_HEAP_SIZE=\"2M\" is invalid: it names the same setting as \
         SHMEM_SYMMETRIC_SIZE, which is \"1M\", a different size: set only one of them, or both to the same size"
    );
    let e = cfg(&[("SMA_SYMMETRIC_SIZE", "1M"), ("SHMEM_SYMMETRIC_HEAP_SIZE", "2M")]).unwrap_err();
    assert!(e.why.contains("same setting as SMA_SYMMETRIC_SIZE"), "{e}");
    // Each name's own errors come first, under its own name.
    let e = cfg(&[("SHMEM_SYMMETRIC_SIZE", "1M"), ("SHMEM_SYMMETRIC_HEAP_SIZE", "2Q")]).unwrap_err();
    assert_eq!((e.var.as_str(), e.value.as_str()), ("SHMEM_SYMMETRIC_HEAP_SIZE", "2Q"));
    let e = cfg(&[("SHMEM_SYMMETRIC_HEAP_SIZE", "0")]).unwrap_err();
    assert_eq!(
        (e.var.as_str(), e.why.as_str()),
        ("SHMEM_SYMMETRIC_HEAP_SIZE", "the heap must not be empty")
    );
    assert!(env_markdown().contains("| `SHMEM_SYMMETRIC_SIZE` | `SMA_SYMMETRIC_SIZE`, `SHMEM_SYMMETRIC_HEAP_SIZE` |"));
}

#[test]
fn human_sizes() {
    assert_eq!(human_bytes(1 << 63), "8 EiB");
    assert_eq!(human_bytes(512 << 20), "512 MiB");
    assert_eq!(human_bytes(1536 << 20), "1.5 GiB");
    assert_eq!(human_bytes(100), "100 B");
}

#[test]
fn argument_and_bounds_checks_follow_debug_unless_set() {
    assert!(!cfg(&[]).unwrap().check_collectives);
    assert!(cfg(&[("SHMEM_CHECK_COLLECTIVES", "1")]).unwrap().check_collectives);
    assert!(cfg(&[("SHMEM_DEBUG", "")]).unwrap().check_collectives);
    assert!(cfg(&[("SMA_DEBUG", "1")]).unwrap().check_collectives);
    let off = cfg(&[("SHMEM_DEBUG", "1"), ("SHMEM_CHECK_COLLECTIVES", "0")]).unwrap();
    assert!(off.debug && !off.check_collectives);
    let e = cfg(&[("SHMEM_CHECK_COLLECTIVES", "yes")]).unwrap_err();
    assert_eq!((e.var.as_str(), e.value.as_str()), ("SHMEM_CHECK_COLLECTIVES", "yes"));
    assert!(!cfg(&[]).unwrap().check_bounds);
    assert!(cfg(&[("SHMEM_CHECK_BOUNDS", "1")]).unwrap().check_bounds);
    assert!(cfg(&[("SHMEM_DEBUG", "")]).unwrap().check_bounds);
    let off = cfg(&[("SHMEM_DEBUG", "1"), ("SHMEM_CHECK_BOUNDS", "0")]).unwrap();
    assert!(off.debug && !off.check_bounds && off.check_collectives);
    let e = cfg(&[("SHMEM_CHECK_BOUNDS", "2")]).unwrap_err();
    assert_eq!(
        (e.var.as_str(), e.why.as_str()),
        ("SHMEM_CHECK_BOUNDS", "expected 0 or 1")
    );
    assert!(e.to_string().contains("expected 0 or 1"));
}

#[test]
fn trace_settings() {
    let c = cfg(&[]).unwrap();
    assert_eq!((c.trace.as_deref(), c.trace_buffer), (None, 1 << 20));
    assert!(c.info_text().contains("SHMEM_TRACE\n      value unset"));
    assert_eq!(cfg(&[("SHMEM_TRACE", "")]).unwrap().trace, None);
    let c = cfg(&[("SHMEM_TRACE", "t.json"), ("SHMEM_TRACE_BUFFER", "16")]).unwrap();
    assert_eq!((c.trace.as_deref(), c.trace_buffer), (Some("t.json"), 16));
    for bad in ["0", "1k", "lots", "268435457"] {
        let e = cfg(&[("SHMEM_TRACE_BUFFER", bad)]).unwrap_err();
        assert_eq!((e.var.as_str(), e.value.as_str()), ("SHMEM_TRACE_BUFFER", bad));
    }
}

#[test]
fn network_timeout() {
    assert_eq!(cfg(&[]).unwrap().network_timeout_secs, 120.0);
    assert_eq!(
        cfg(&[("SHMEM_NETWORK_TIMEOUT", "0")]).unwrap().network_timeout_secs,
        0.0
    );
    assert_eq!(
        cfg(&[("SHMEM_NETWORK_TIMEOUT", "10")]).unwrap().network_timeout_secs,
        10.0
    );
    assert_eq!(
        cfg(&[("SHMEM_NETWORK_TIMEOUT", " 2.5 ")]).unwrap().network_timeout_secs,
        2.5
    );
    for bad in ["", "ten", "-1", "0.5", "86401", "inf", "nan"] {
        let e = cfg(&[("SHMEM_NETWORK_TIMEOUT", bad)]).unwrap_err();
        assert_eq!((e.var.as_str(), e.value.as_str()), ("SHMEM_NETWORK_TIMEOUT", bad));
    }
    let e = cfg(&[("SHMEM_NETWORK_TIMEOUT", "0.5")]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "environment variable SHMEM_NETWORK_TIMEOUT=\"0.5\" is invalid: expected 0 (no bound) or 1 to 86400 seconds"
    );
}

#[test]
fn rshmem_rows_parse_and_print() {
    let c = cfg(&[]).unwrap();
    assert_eq!((c.node_size, c.stopped_grace_secs, c.hang_abort), (None, 3.0, false));
    let c = cfg(&[
        ("RSHMEM_NODE_SIZE", "2"),
        ("RSHMEM_STOPPED_GRACE", "0"),
        ("RSHMEM_HANG_ABORT", "1"),
    ])
    .unwrap();
    assert_eq!((c.node_size, c.stopped_grace_secs, c.hang_abort), (Some(2), 0.0, true));
    for (var, v, why) in [
        ("RSHMEM_NODE_SIZE", "0", "expected a positive number of PEs per node"),
        ("RSHMEM_NODE_SIZE", "two", "expected a positive number of PEs per node"),
        (
            "RSHMEM_STOPPED_GRACE",
            "-1",
            "use a number of seconds (0: never report)",
        ),
        (
            "RSHMEM_STOPPED_GRACE",
            "1e10",
            "use a number of seconds (0: never report)",
        ),
        ("RSHMEM_HANG_ABORT", "yes", "expected 0 or 1"),
    ] {
        let e = cfg(&[(var, v)]).unwrap_err();
        assert_eq!((e.var.as_str(), e.value.as_str(), e.why.as_str()), (var, v, why));
    }
    // SHMEM_DEBUG turns the checks on, not --hang-abort.
    let c = cfg(&[("SHMEM_DEBUG", "")]).unwrap();
    assert!(c.check_collectives && c.check_bounds && !c.hang_abort);
    let info = c.info_text();
    let at = |s: &str| info.find(s).unwrap_or_else(|| panic!("{s} in {info}"));
    assert!(at(" Memory:\n") < at("  SHMEM_SYMMETRIC_SIZE"));
    assert!(at(" Waits and hangs:\n") < at("  RSHMEM_HANG_ABORT\n      value false, default 0"));
    assert!(at(" Across nodes:\n") < at("  RSHMEM_NODE_SIZE\n      value auto"));
    assert!(
        !info.contains("RSHMEM_CC"),
        "the tools' variables are not the library's"
    );
}

/// Every `RSHMEM_` variable the sources read is a row of the table, except
/// the ones that are not settings.
#[test]
fn every_rshmem_variable_is_a_row() {
    const NOT_SETTINGS: &[&str] = &[
        // oshrun's hand-off to its PEs (job.rs; docs/using.md lists them).
        "RSHMEM_PE",
        "RSHMEM_NPES",
        "RSHMEM_JOB_ID",
        "RSHMEM_JOB_FD",
        "RSHMEM_JOB_CPUS",
        // Set by build.rs for the crate's own compilation.
        "RSHMEM_PROFILE_DIR",
        "RSHMEM_MPI_SHIM_BUILT",
        "RSHMEM_UCX_SHIM_BUILT",
        // Test knobs of the MPI shim's own tests.
        "RSHMEM_REQUIRE_MPI",
        "RSHMEM_REQUIRE_UCX",
        "RSHMEM_SHIM_TEST_IN_MPIRUN",
        "RSHMEM_MPI_CHUNK",
        // Debug builds' delay of PE 0's fatal report, for its test.
        "RSHMEM_TEST_PE0_REPORT_DELAY_MS",
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("build.rs")];
    let mut dirs = vec![root.join("src"), root.join("build")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs" || x == "c") {
                files.push(p);
            }
        }
    }
    let mut missing = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for piece in text.split('"').skip(1).step_by(2) {
            let name = piece.trim_end_matches('=');
            if name.len() > "RSHMEM_".len()
                && name.starts_with("RSHMEM_")
                && name[7..]
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                && !NOT_SETTINGS.contains(&name)
                && !VARS.iter().chain(TOOL_VARS).any(|v| v.name == name)
            {
                missing.push(format!("{name} ({})", f.strip_prefix(root).unwrap().display()));
            }
        }
    }
    assert!(missing.is_empty(), "not in config's table: {missing:?}");
}

#[test]
fn pcntr_is_off_unless_set_to_1() {
    assert!(!cfg(&[]).unwrap().pcntr);
    // SHMEM_DEBUG turns the checks on, not counting (it changes the fast paths).
    assert!(!cfg(&[("SHMEM_DEBUG", "")]).unwrap().pcntr);
    assert!(cfg(&[("RSHMEM_PCNTR", "1")]).unwrap().pcntr);
    assert!(!cfg(&[("RSHMEM_PCNTR", "0")]).unwrap().pcntr);
    let e = cfg(&[("RSHMEM_PCNTR", "on")]).unwrap_err();
    assert_eq!(
        (e.var.as_str(), e.value.as_str(), e.why.as_str()),
        ("RSHMEM_PCNTR", "on", "expected 0 or 1")
    );
}

#[test]
fn huge_pages_are_sos_variables() {
    // As in Sandia OpenSHMEM: set is on, whatever the value; SMA_ aliases.
    let c = cfg(&[]).unwrap();
    assert!(!c.huge_pages);
    assert_eq!(c.huge_page_size, 2 << 20);
    for on in [
        ("SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES", "1"),
        ("SMA_SYMMETRIC_HEAP_USE_HUGE_PAGES", ""),
    ] {
        // A page size the kernel has not is an error only with huge pages on.
        let c = cfg(&[("SHMEM_SYMMETRIC_HEAP_PAGE_SIZE", "3M")]).unwrap();
        assert_eq!(c.huge_page_size, 3 << 20);
        let e = cfg(&[on, ("SHMEM_SYMMETRIC_HEAP_PAGE_SIZE", "3M")]).unwrap_err();
        assert_eq!(
            (e.var.as_str(), e.value.as_str()),
            ("SHMEM_SYMMETRIC_HEAP_PAGE_SIZE", "3M")
        );
        assert!(e.why.contains("3 MiB is not a huge page size of this kernel"), "{e}");
    }
    let e = cfg(&[("SMA_SYMMETRIC_HEAP_PAGE_SIZE", "2Q")]).unwrap_err();
    assert_eq!(e.var, "SMA_SYMMETRIC_HEAP_PAGE_SIZE");
    assert_eq!(
        cfg(&[("SHMEM_SYMMETRIC_HEAP_PAGE_SIZE", "1G")]).unwrap().huge_page_size,
        1 << 30
    );
    assert!(cfg(&[("SHMEM_SYMMETRIC_HEAP_PAGE_SIZE", "0")]).is_err());
}

#[test]
fn huge_page_sizes_are_the_kernels() {
    use super::huge::{check_page_size, size_of_dir};
    assert_eq!(size_of_dir("hugepages-2048kB"), Some(2 << 20));
    assert_eq!(size_of_dir("hugepages-1048576kB"), Some(1 << 30));
    assert_eq!(size_of_dir("hugepages-x"), None);
    assert_eq!(size_of_dir("other"), None);
    let x86 = [2 << 20, 1 << 30];
    assert_eq!(check_page_size(2 << 20, &x86), Ok(()));
    assert_eq!(check_page_size(1 << 30, &x86), Ok(()));
    assert_eq!(
        check_page_size(3 << 20, &x86),
        Err("3 MiB is not a huge page size of this kernel (it has 2 MiB, 1 GiB; /sys/kernel/mm/hugepages)".into())
    );
    assert!(check_page_size(4096, &x86).is_err());
    assert!(check_page_size(2 << 20, &[]).unwrap_err().contains("no huge pages"));
}
