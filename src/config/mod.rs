//! Environment configuration: one table of variables ([`Config`]'s
//! declaration below) drives each variable's field, its parsing, the grouped
//! `SHMEM_INFO` printout and `docs/env.md`; only rules between variables are
//! written by hand ([`Config::cross_rules`]). The variables the tools read
//! (`oshcc`, `oshrun`, the build) are listed in [`TOOL_VARS`] for the docs.
//!
//! Every variable is read as its name first and then through its deprecated
//! `SMA_<NAME>` alias where the spec defines one. A malformed value is an error at
//! `shmem_init`, never silently replaced by the default.

mod doc;
pub(crate) mod huge;
pub(crate) mod names;
mod parse;
mod read;

pub(crate) use doc::env_markdown;
pub(crate) use names::{BarrierAlgorithm, BcastAlgorithm, CollectAlgorithm, NbcThread, ReduceAlgorithm, RemoteEngine};
pub use names::{Graph, STRATEGIES, Strategy};
pub(crate) use parse::{SIZE_ALIGN, human_bytes, parse_seconds};
use parse::{checked_size, parse_count, parse_network_timeout};
pub(crate) use read::Reader;
use read::Show;
use std::fmt;

/// How a variable's value is interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Presence switches it on, whatever the value.
    Flag,
    /// `0` (off) or `1` (on); unset, the default the help text gives.
    Switch,
    /// A size in bytes with the spec's k/m/g/t suffixes.
    Size,
    /// A non-negative number of seconds (fractions allowed).
    Seconds,
    /// A non-negative integer.
    Count,
    /// One of a fixed list of names.
    Choice(&'static [&'static str]),
    /// A file name (empty is the same as unset).
    Path,
    /// A command or program name (tools only).
    Command,
}

/// What a variable is about: `SHMEM_INFO` and `docs/env.md` print the
/// variables by group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Group {
    Memory,
    Checks,
    Waits,
    Nodes,
    Collectives,
    Tracing,
    Tools,
}

impl Group {
    /// In the order printed.
    pub(crate) const ALL: [Group; 7] = [
        Group::Memory,
        Group::Checks,
        Group::Waits,
        Group::Nodes,
        Group::Collectives,
        Group::Tracing,
        Group::Tools,
    ];

    /// The group's heading.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Group::Memory => "Memory",
            Group::Checks => "Checks, debugging and information",
            Group::Waits => "Waits and hangs",
            Group::Nodes => "Across nodes",
            Group::Collectives => "Collectives and synchronisation memory",
            Group::Tracing => "Timeline traces",
            Group::Tools => "Tools (read by oshcc, oshrun and the build, not by the library)",
        }
    }
}

/// One row of the table.
pub(crate) struct Var {
    /// The variable's name (`SHMEM_...` or `RSHMEM_...`).
    pub name: &'static str,
    /// Whether the deprecated `SMA_` spelling is honoured too.
    pub sma_alias: bool,
    /// Other implementations' names of the same setting, read as well; when
    /// one of them and the variable are both set they must agree.
    pub also: &'static [&'static str],
    pub kind: Kind,
    /// Default, as the user would write it ("" for flags that are off).
    pub default: &'static str,
    pub group: Group,
    pub help: &'static str,
}

impl Var {
    /// The `SMA_` alias, if the row has one.
    pub(crate) fn sma_name(&self) -> Option<String> {
        self.sma_alias
            .then(|| self.name.strip_prefix("SHMEM_").map(|n| format!("SMA_{n}")))
            .flatten()
    }
}

/// Declares the configuration: each row gives the field (name, type, doc),
/// the variable (name, aliases, kind, default, group, help) and how it is
/// read (a [`Reader`] method with the row's bounds); from it come the
/// [`Config`] struct, [`VARS`], the reading of every field and its
/// `SHMEM_INFO` value.
macro_rules! config_table {
    ($(
        $field:ident: $ty:ty {
            name: $name:literal,
            sma_alias: $sma:literal,
            also: $also:expr,
            kind: $kind:expr,
            default: $default:literal,
            group: $group:ident,
            read: $read:expr,
            help: $help:literal $(,)?
        },
    )*) => {
        /// Every variable the library reads, in the order read.
        pub(crate) const VARS: &[Var] = &[$(
            Var {
                name: $name,
                sma_alias: $sma,
                also: $also,
                kind: $kind,
                default: $default,
                group: Group::$group,
                help: $help,
            },
        )*];

        /// The typed configuration, read once at `shmem_init`: one field per
        /// row of the table (its help text says what it does), and what the
        /// rules between rows derive.
        #[derive(Clone, Debug)]
        pub(crate) struct Config {
            $(
                #[doc = $help]
                pub $field: $ty,
            )*
            /// The variable that set the heap size, if any (else it is the
            /// default, which start-up may lower to fit the machine).
            pub symmetric_size_set_by: Option<Setting>,
            /// Every variable that was set, by row: the name it was read
            /// under and its text.
            pub set: Vec<(&'static str, Setting)>,
        }

        impl Config {
            /// Reads every row, in the table's order.
            fn read_rows(r: &Reader<'_>) -> Result<Config, ConfigError> {
                let mut row = VARS.iter();
                $(
                    let $field: $ty = {
                        let v = row.next().expect("one row per field");
                        let read: fn(&Reader<'_>, &Var) -> Result<$ty, ConfigError> = $read;
                        read(r, v)?
                    };
                )*
                Ok(Config {
                    $($field,)*
                    symmetric_size_set_by: None,
                    set: r.set.borrow().clone(),
                })
            }

            /// The value of row `name` as `SHMEM_INFO` prints it.
            fn shown(&self, name: &str) -> String {
                match name {
                    $($name => self.$field.show(),)*
                    _ => unreachable!("{name} is a row"),
                }
            }
        }
    };
}

config_table! {
    symmetric_size: usize {
        name: "SHMEM_SYMMETRIC_SIZE",
        sma_alias: true,
        also: &["SHMEM_SYMMETRIC_HEAP_SIZE"],
        kind: Kind::Size,
        default: "512M",
        group: Memory,
        read: |r, v| heap_size(r, v),
        help: "Bytes of symmetric heap per PE (suffixes k, m, g, t; fractions allowed, e.g. 1.5G). Unset, it is 512M, lowered if all PEs' heaps would exceed half the machine's memory. Open MPI's name `SHMEM_SYMMETRIC_HEAP_SIZE` is read too; set with `SHMEM_SYMMETRIC_SIZE` (or `SMA_SYMMETRIC_SIZE`) to a different size, it is an error.",
    },
    space_arena_size: usize {
        name: "SHMEM_SPACE_ARENA_SIZE",
        sma_alias: false,
        also: &[],
        kind: Kind::Size,
        default: "1G",
        group: Memory,
        read: |r, v| r.size(v, 1 << 20, SIZE_ALIGN),
        help: "Bytes per PE of address space for spaces: those created with shmemx_space_create and every team's own synchronisation memory (pages are used only when touched); at least 1M.",
    },
    team_scratch_size: usize {
        name: "SHMEM_TEAM_SCRATCH_SIZE",
        sma_alias: false,
        also: &[],
        kind: Kind::Size,
        default: "64K",
        group: Memory,
        read: |r, v| r.size(v, 1024, SIZE_ALIGN),
        help: "Bytes of collective scratch each team gets per PE (reductions move data through it in chunks of this size); at least 1K, at most SHMEM_SPACE_ARENA_SIZE, where it lives.",
    },
    huge_pages: bool {
        name: "SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES",
        sma_alias: true,
        also: &[],
        kind: Kind::Flag,
        default: "",
        group: Memory,
        read: |r, v| r.flag(v),
        help: "Put the symmetric heap on huge pages of SHMEM_SYMMETRIC_HEAP_PAGE_SIZE (as Sandia OpenSHMEM, set = on, whatever the value). Where the kernel has huge pages of that size reserved (nr_hugepages), each node's heaps take them from a memory file of their own (memfd_create with MFD_HUGETLB), and shmem_init stops, saying how many are needed, how many are free and how to reserve them, when too few are free. Where none are reserved and the kernel allows transparent huge pages for shared memory (/sys/kernel/mm/transparent_hugepage/shmem_enabled advise, always or within_size; the page size must be the transparent one, 2M on x86-64), the heaps stay in the job file, aligned for them, and are advised (MADV_HUGEPAGE); where neither, shmem_init stops. SHMEM_INFO says which page size the heap uses. The globals and the space arena stay on small pages.",
    },
    huge_page_size: usize {
        name: "SHMEM_SYMMETRIC_HEAP_PAGE_SIZE",
        sma_alias: true,
        also: &[],
        kind: Kind::Size,
        default: "2M",
        group: Memory,
        read: |r, v| r.size(v, 1, 1),
        help: "Huge page size for SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES (suffixes as SHMEM_SYMMETRIC_SIZE), ignored without it; it must be a huge page size of the kernel (one with a directory in /sys/kernel/mm/hugepages, e.g. hugepages-2048kB for 2M; x86-64 has 2M and 1G). Each PE's heap takes whole pages of it (a 64M heap on 1G pages takes 1 GiB).",
    },
    peer_tables: Option<usize> {
        name: "SHMEM_PEER_TABLES",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "auto",
        group: Memory,
        read: |r, v| Ok(r.count_or_auto(v, MAX_PEER_TABLES)?.map(|n| n as usize)),
        help: "Other PEs whose memory a PE's collectives may reach before it drops its page tables for every other PE's memory (rebuilt by a page fault at the next access; the data stays), so that the page tables of a job do not grow with the square of its PEs; 0: never drop them; auto: the job's page tables for other PEs' memory stay within 1/128 of the machine's memory, at least 16 PEs each.",
    },
    debug: bool {
        name: "SHMEM_DEBUG",
        sma_alias: true,
        also: &[],
        kind: Kind::Flag,
        default: "",
        group: Checks,
        read: |r, v| r.flag(v),
        help: "Print debugging messages, e.g. why an allocation returned NULL. Also turns on SHMEM_CHECK_COLLECTIVES and SHMEM_CHECK_BOUNDS unless they are set to 0.",
    },
    check_collectives: bool {
        name: "SHMEM_CHECK_COLLECTIVES",
        sma_alias: false,
        also: &[],
        kind: Kind::Switch,
        default: "",
        group: Checks,
        read: |r, v| r.switch(v),
        help: "1: before every collective (barriers, broadcast, collect, fcollect, alltoall(s), reductions, scans, shmem_malloc and the other allocation routines, team splits) the team's members exchange their arguments, and a disagreement ends the job with one message naming the first PE that differs and both values (see docs/debugging.md; the deprecated active-set routines too, among the set's members). 0: off. Unset: on when SHMEM_DEBUG is set, else off. Costs one small exchange among the team's members per collective. Off, a small team broadcast's root, an allocation's arguments and a team split's are still compared on one node, where that costs nothing measurable (docs/debugging.md, \"Agreement checked always\").",
    },
    check_bounds: bool {
        name: "SHMEM_CHECK_BOUNDS",
        sma_alias: false,
        also: &[],
        kind: Kind::Switch,
        default: "",
        group: Checks,
        read: |r, v| r.switch(v),
        help: "1: a put, get, strided or block-strided transfer or put-with-signal whose symmetric address lies in a block of the symmetric heap or in a global variable of the program (found in its symbol table) must stay inside that object, or the job ends with a message naming the argument, the object and both lengths, before any byte moves; a local buffer that is itself symmetric is checked too (see docs/debugging.md). 0: off. Unset: on when SHMEM_DEBUG is set, else off. Costs a lookup of the heap block (under the heap's lock) or of the symbol per transfer.",
    },
    info: bool {
        name: "SHMEM_INFO",
        sma_alias: true,
        also: &[],
        kind: Kind::Flag,
        default: "",
        group: Checks,
        read: |r, v| r.flag(v),
        help: "PE 0 prints this table with the values in effect at start-up.",
    },
    version: bool {
        name: "SHMEM_VERSION",
        sma_alias: true,
        also: &[],
        kind: Kind::Flag,
        default: "",
        group: Checks,
        read: |r, v| r.flag(v),
        help: "PE 0 prints the library name and version at start-up.",
    },
    wait_spin: Option<u32> {
        name: "SHMEM_WAIT_SPIN",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "auto",
        group: Waits,
        read: |r, v| Ok(r.count_or_auto(v, MAX_WAIT_SPIN as u64)?.map(|n| n as u32)),
        help: "Polls a waiting PE spins before it yields the core (auto: short when PEs outnumber cores); at most 1073741824.",
    },
    hang_warn_secs: f64 {
        name: "SHMEM_HANG_WARN",
        sma_alias: false,
        also: &[],
        kind: Kind::Seconds,
        default: "0",
        group: Waits,
        read: |r, v| r.seconds(v, parse_seconds),
        help: "If non-zero, a wait that lasts this many seconds prints what it waits for, once.",
    },
    hang_timeout_secs: f64 {
        name: "SHMEM_HANG_TIMEOUT",
        sma_alias: false,
        also: &[],
        kind: Kind::Seconds,
        default: "30",
        group: Waits,
        read: |r, v| r.seconds(v, parse_seconds),
        help: "Seconds every PE may stay blocked in the library (or stopped) before a hang report says where each one is; 0 turns it off. Read by `oshrun` (which watches the PEs) and, in a job across nodes, by each node's first PE for its node (docs/debugging.md).",
    },
    stopped_grace_secs: f64 {
        name: "RSHMEM_STOPPED_GRACE",
        sma_alias: false,
        also: &[],
        kind: Kind::Seconds,
        default: "3",
        group: Waits,
        read: |r, v| r.seconds(v, parse_stopped_grace),
        help: "Seconds a PE may stay stopped (SIGSTOP, ^Z of one PE) before it is named; 0: never. oshrun's --stopped-grace sets it; under an MPI launcher the first PEs of each node report.",
    },
    hang_abort: bool {
        name: "RSHMEM_HANG_ABORT",
        sma_alias: false,
        also: &[],
        kind: Kind::Switch,
        default: "0",
        group: Waits,
        read: |r, v| r.zero_one(v),
        help: "1: end the job (exit status 124) after a hang report; oshrun's --hang-abort sets it. 0: report and go on.",
    },
    progress_thread: bool {
        name: "SHMEM_PROGRESS_THREAD",
        sma_alias: false,
        also: &[],
        kind: Kind::Flag,
        default: "",
        group: Nodes,
        read: |r, v| r.flag(v),
        help: "In a job that spans nodes, each PE runs a thread that lets MPI move requests along every SHMEM_PROGRESS_INTERVAL microseconds, so puts to a PE that computes for long without calling the library still land (see docs/multinode.md, Progress). Costs CPU; ignored on one node.",
    },
    progress_interval_us: u64 {
        name: "SHMEM_PROGRESS_INTERVAL",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "50",
        group: Nodes,
        read: |r, v| Ok(r.count(v, 1, 1_000_000)? as u64),
        help: "Microseconds the progress thread (SHMEM_PROGRESS_THREAD) sleeps between polls; 1 to 1000000.",
    },
    network_timeout_secs: f64 {
        name: "SHMEM_NETWORK_TIMEOUT",
        sma_alias: false,
        also: &[],
        kind: Kind::Seconds,
        default: "120",
        group: Nodes,
        read: |r, v| r.seconds(v, parse_network_timeout),
        help: "In a job that spans nodes, seconds another node may stay unreachable (its kernel answers no TCP keepalive probe of the network watch) before the job ends with a message naming it; outages shorter than this are ridden out. 0: wait for ever; otherwise 1 to 86400. Set it the same on every node (see docs/debugging.md, Network faults).",
    },
    node_size: Option<usize> {
        name: "RSHMEM_NODE_SIZE",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "auto",
        group: Nodes,
        read: |r, v| node_size(r, v),
        help: "Under an MPI launcher, cut the job into virtual nodes of this many consecutive PEs (at least 1), so that PEs on one machine reach each other through MPI as if on other nodes: for testing the multi-node paths on one machine (the waits then count every PE of the job as sharing this machine's CPUs). auto: PEs share memory with the PEs of their host.",
    },
    verbose: bool {
        name: "RSHMEM_VERBOSE",
        sma_alias: false,
        also: &[],
        kind: Kind::Switch,
        default: "0",
        group: Nodes,
        read: |r, v| r.switch(v),
        help: "1: PE 0 prints one line at start-up saying how the PEs reach each other: shared memory alone, or the engine to other nodes (UCX with its version, or MPI-3 RMA, and why not UCX). `oshrun -v` sets it for the PEs it starts through an MPI launcher.",
    },
    remote: RemoteEngine {
        name: "RSHMEM_REMOTE",
        sma_alias: false,
        also: &[],
        kind: Kind::Choice(RemoteEngine::NAMES),
        default: "auto",
        group: Nodes,
        read: |r, v| r.choice(v, RemoteEngine::from_name),
        help: "In a job that spans nodes, the engine to the PEs of other nodes: ucx (UCX's UCP API, librshmem_ucx.so), mpi (MPI-3 RMA through the MPI that launched the job), or auto: UCX when its shim loads on every PE, else MPI. Set it the same on every PE.",
    },
    nbc_thread: NbcThread {
        name: "RSHMEM_NBC_THREAD",
        sma_alias: false,
        also: &[],
        kind: Kind::Choice(NbcThread::NAMES),
        default: "auto",
        group: Collectives,
        read: |r, v| r.choice(v, NbcThread::from_name),
        help: "Who runs the non-blocking collectives (shmem_*_nb): auto, a thread per team that runs them while the program computes, where the transport allows one (one node; across nodes, with SHMEM_PROGRESS_THREAD or SHMEM_THREAD_MULTIPLE); on, that thread on every node (asks the engine to other nodes for thread safety at start-up); off, no thread: they run in shmem_req_test and shmem_req_wait (see docs/nonblocking-collectives.md).",
    },
    nbc_max: usize {
        name: "RSHMEM_NBC_MAX",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "1024",
        group: Collectives,
        read: |r, v| r.count(v, 1, 1 << 20),
        help: "Non-blocking collectives a PE may have outstanding (initiated, not yet completed by shmem_req_test or shmem_req_wait); one more is a named error. 1 to 1048576; read at the first shmem_init.",
    },
    psync_strategy: Strategy {
        name: "SHMEM_PSYNC_STRATEGY",
        sma_alias: false,
        also: &[],
        kind: Kind::Choice(STRATEGIES),
        default: "traditional",
        group: Collectives,
        read: |r, v| r.choice(v, Strategy::from_name),
        help: "How collective synchronisation memory is managed and reused (see docs/psync.md).",
    },
    psync_stats: bool {
        name: "SHMEM_PSYNC_STATS",
        sma_alias: false,
        also: &[],
        kind: Kind::Flag,
        default: "",
        group: Collectives,
        read: |r, v| r.flag(v),
        help: "Every PE prints its synchronisation-memory footprint (current and peak bytes) at shmem_finalize.",
    },
    psync_pool: usize {
        name: "SHMEM_PSYNC_POOL",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "2",
        group: Collectives,
        read: |r, v| r.count(v, 1, MAX_POOL),
        help: "Sync arrays a team starts with under the pool strategies (extra-sync, barrier-unlock); 1 to 65536.",
    },
    psync_pool_max: usize {
        name: "SHMEM_PSYNC_POOL_MAX",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "16",
        group: Collectives,
        read: |r, v| r.count(v, 2, MAX_POOL),
        help: "Sync arrays a team's pool may grow to under the pool strategies; at least 2 and at least SHMEM_PSYNC_POOL, at most 65536.",
    },
    barrier_algorithm: BarrierAlgorithm {
        name: "SHMEM_BARRIER_ALGORITHM",
        sma_alias: false,
        also: &[],
        kind: Kind::Choice(BarrierAlgorithm::NAMES),
        default: "auto",
        group: Collectives,
        read: |r, v| r.choice(v, BarrierAlgorithm::from_name),
        help: "Barrier and sync algorithm of teams and active sets.",
    },
    bcast_algorithm: BcastAlgorithm {
        name: "SHMEM_BCAST_ALGORITHM",
        sma_alias: false,
        also: &[],
        kind: Kind::Choice(BcastAlgorithm::NAMES),
        default: "auto",
        group: Collectives,
        read: |r, v| r.choice(v, BcastAlgorithm::from_name),
        help: "Broadcast algorithm.",
    },
    reduce_algorithm: ReduceAlgorithm {
        name: "SHMEM_REDUCE_ALGORITHM",
        sma_alias: false,
        also: &[],
        kind: Kind::Choice(ReduceAlgorithm::NAMES),
        default: "auto",
        group: Collectives,
        read: |r, v| r.choice(v, ReduceAlgorithm::from_name),
        help: "Reduction algorithm (team reductions and `_to_all`).",
    },
    collect_algorithm: CollectAlgorithm {
        name: "SHMEM_COLLECT_ALGORITHM",
        sma_alias: false,
        also: &[],
        kind: Kind::Choice(CollectAlgorithm::NAMES),
        default: "auto",
        group: Collectives,
        read: |r, v| r.choice(v, CollectAlgorithm::from_name),
        help: "Algorithm of collect and fcollect.",
    },
    trace: Option<String> {
        name: "SHMEM_TRACE",
        sma_alias: false,
        also: &[],
        kind: Kind::Path,
        default: "",
        group: Tracing,
        read: |r, v| r.path(v),
        help: "Write a timeline of every PE's communicating calls (RMA, atomics, signals, waits, collectives) to this file at shmem_finalize, as one Chrome/Perfetto trace JSON; `oshrun` preloads the trace layer `librshmem_trace.so` that records them (see docs/debugging.md, Timeline traces).",
    },
    pcntr: bool {
        name: "RSHMEM_PCNTR",
        sma_alias: false,
        also: &[],
        kind: Kind::Switch,
        default: "0",
        group: Tracing,
        read: |r, v| r.zero_one(v),
        help: "1: count every context's RMA, atomic and signal calls for Sandia OpenSHMEM's shmemx_pcntr_* routines (issued and completed writes and reads, and the operations other PEs issued on this PE's memory; set it on every PE). 0: no counting and no cost; the routines answer 0 (see docs/compatibility.md, Sandia OpenSHMEM).",
    },
    trace_buffer: usize {
        name: "SHMEM_TRACE_BUFFER",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "1048576",
        group: Tracing,
        read: |r, v| r.count(v, 1, MAX_TRACE_BUFFER),
        help: "Events each PE keeps when SHMEM_TRACE is set (32 bytes each, memory used only as they arrive); later events are counted and reported as dropped. 1 to 268435456.",
    },
}

/// The variables the tools read (not the library): listed here so that
/// `docs/env.md` has them all.
pub(crate) const TOOL_VARS: &[Var] = &[
    Var {
        name: "RSHMEM_CC",
        sma_alias: false,
        also: &[],
        kind: Kind::Command,
        default: "cc",
        group: Group::Tools,
        help: "The C compiler `oshcc` runs.",
    },
    Var {
        name: "RSHMEM_CXX",
        sma_alias: false,
        also: &[],
        kind: Kind::Command,
        default: "c++",
        group: Group::Tools,
        help: "The C++ compiler `oshc++` runs.",
    },
    Var {
        name: "RSHMEM_STATIC",
        sma_alias: false,
        also: &[],
        kind: Kind::Flag,
        default: "",
        group: Group::Tools,
        help: "Set (and not 0): `oshcc` links `librshmem.a` instead of the shared library.",
    },
    Var {
        name: "RSHMEM_LAUNCHER",
        sma_alias: false,
        also: &[],
        kind: Kind::Command,
        default: "",
        group: Group::Tools,
        help: "`mpirun`, `mpiexec`, `srun` or a path: `oshrun` runs that launcher instead of its own (a host list naming another machine does the same with the first of them on PATH). See docs/multinode.md.",
    },
    Var {
        name: "RSHMEM_MPI_SHIM",
        sma_alias: false,
        also: &[],
        kind: Kind::Path,
        default: "",
        group: Group::Tools,
        help: "The `librshmem_mpi.so` a PE started by an MPI launcher loads, instead of the one beside `librshmem` (read by the library at start-up under MPI).",
    },
    Var {
        name: "RSHMEM_MPICC",
        sma_alias: false,
        also: &[],
        kind: Kind::Command,
        default: "mpicc",
        group: Group::Tools,
        help: "The MPI compiler `cargo build` builds `librshmem_mpi.so` with (when on PATH); empty: build without MPI.",
    },
    Var {
        name: "RSHMEM_UCX_SHIM",
        sma_alias: false,
        also: &[],
        kind: Kind::Path,
        default: "",
        group: Group::Tools,
        help: "The `librshmem_ucx.so` a PE of a job across nodes loads, instead of the one beside `librshmem` (read by the library at start-up; see RSHMEM_REMOTE).",
    },
    Var {
        name: "RSHMEM_UCX",
        sma_alias: false,
        also: &[],
        kind: Kind::Switch,
        default: "1",
        group: Group::Tools,
        help: "0: `cargo build` builds without `librshmem_ucx.so` (the UCX engine) even where UCX's headers (Debian `libucx-dev`) are installed.",
    },
];

/// A configuration error: the variable, the value and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfigError {
    pub var: String,
    pub value: String,
    pub why: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "environment variable {}={:?} is invalid: {}",
            self.var, self.value, self.why
        )
    }
}

/// Where a setting came from: the variable it was read from and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Setting {
    pub var: String,
    pub text: String,
}

/// Most sync arrays a team's pool may hold (`SHMEM_PSYNC_POOL`, `_MAX`): far
/// more than any program needs, small enough that a region's size cannot
/// overflow.
pub(crate) const MAX_POOL: usize = 1 << 16;

/// Most polls `SHMEM_WAIT_SPIN` may ask for (seconds of spinning): the wait
/// counts spins and yields together in 32 bits.
pub(crate) const MAX_WAIT_SPIN: u32 = 1 << 30;

/// Most events `SHMEM_TRACE_BUFFER` may ask for (8 GiB of records per PE);
/// the trace layer has the same bound.
pub(crate) const MAX_TRACE_BUFFER: usize = 1 << 28;

/// Largest `SHMEM_PEER_TABLES` (the most PEs `oshrun` starts).
pub(crate) const MAX_PEER_TABLES: u64 = 1 << 20;

impl Config {
    /// Reads the process environment.
    pub(crate) fn from_env() -> Result<Config, ConfigError> {
        Config::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads through `get`, so tests can supply their own environment.
    pub(crate) fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let r = Reader::new(&get);
        let mut c = Config::read_rows(&r)?;
        c.cross_rules(&r)?;
        Ok(c)
    }

    /// The rules between variables, checked once every row is read.
    fn cross_rules(&mut self, r: &Reader<'_>) -> Result<(), ConfigError> {
        let row = |name: &str| VARS.iter().find(|v| v.name == name).expect("variable is in VARS");
        let set_or_default = |v: &Var| {
            r.setting(v).unwrap_or_else(|| Setting {
                var: v.name.into(),
                text: v.default.into(),
            })
        };
        self.symmetric_size_set_by = r.setting(row("SHMEM_SYMMETRIC_SIZE"));
        let max = row("SHMEM_PSYNC_POOL_MAX");
        if self.psync_pool_max < self.psync_pool {
            let s = set_or_default(max);
            return Err(r.err(s.var, &s.text, format!("must be at least {}", self.psync_pool)));
        }
        if self.huge_pages
            && let Err(why) = huge::check_page_size(self.huge_page_size, &huge::kernel_sizes())
        {
            let s = set_or_default(row("SHMEM_SYMMETRIC_HEAP_PAGE_SIZE"));
            return Err(r.err(s.var, &s.text, why));
        }
        // Every team's scratch lives in the space arena.
        if self.team_scratch_size > self.space_arena_size {
            let s = set_or_default(row("SHMEM_TEAM_SCRATCH_SIZE"));
            return Err(r.err(
                s.var,
                &s.text,
                format!(
                    "a team's scratch must fit in the space arena (SHMEM_SPACE_ARENA_SIZE, {} bytes)",
                    self.space_arena_size
                ),
            ));
        }
        Ok(())
    }

    /// The `SHMEM_INFO` text: every variable by group, its default, help and
    /// value in effect (and the name it was read under, when another).
    pub(crate) fn info_text(&self) -> String {
        let mut s = String::from("rshmem environment variables (SHMEM_INFO):\n");
        for g in Group::ALL {
            let mut rows = VARS.iter().filter(|v| v.group == g).peekable();
            if rows.peek().is_none() {
                continue;
            }
            s.push_str(&format!(" {}:\n", g.title()));
            for v in rows {
                let mut current = self.shown(v.name);
                if let Some((_, from)) = self.set.iter().find(|(row, _)| *row == v.name)
                    && !v.also.is_empty()
                {
                    current.push_str(&format!(" (from {})", from.var));
                }
                let mut alias = v.sma_name().map(|a| format!(" (alias {a})")).unwrap_or_default();
                if !v.also.is_empty() {
                    alias.push_str(&format!(" (also {})", v.also.join(", ")));
                }
                let default = if v.default.is_empty() { "unset" } else { v.default };
                let choices = match v.kind {
                    Kind::Choice(names) => format!("; one of: {}", names.join(", ")),
                    _ => String::new(),
                };
                s.push_str(&format!(
                    "  {}{}\n      value {}, default {}{}\n      {}\n",
                    v.name, alias, current, default, choices, v.help
                ));
            }
        }
        s
    }
}

/// `SHMEM_SYMMETRIC_SIZE`: a size as [`Reader::size`] reads it, not 0 when set.
fn heap_size(r: &Reader<'_>, v: &Var) -> Result<usize, ConfigError> {
    let size = r.size(v, 0, SIZE_ALIGN)?;
    match (size, r.setting(v)) {
        (0, Some(s)) => Err(r.err(s.var, &s.text, "the heap must not be empty".into())),
        _ => Ok(size),
    }
}

/// `RSHMEM_NODE_SIZE`: a positive number of PEs, or auto (unset).
fn node_size(r: &Reader<'_>, v: &Var) -> Result<Option<usize>, ConfigError> {
    let (n, t) = r.raw(v);
    match t {
        None => Ok(None),
        Some(s) if s.trim() == "auto" => Ok(None),
        Some(s) => match s.trim().parse::<usize>() {
            Ok(k) if k > 0 => Ok(Some(k)),
            _ => Err(r.err(n, &s, "expected a positive number of PEs per node".into())),
        },
    }
}

/// `RSHMEM_STOPPED_GRACE`: 0 (never report) or a number of seconds below 1e9.
fn parse_stopped_grace(s: &str) -> Result<f64, String> {
    match parse_seconds(s) {
        Ok(v) if v < 1e9 => Ok(v),
        _ => Err("use a number of seconds (0: never report)".into()),
    }
}

#[cfg(test)]
mod tests;
