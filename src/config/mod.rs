//! Environment configuration: one table of variables drives parsing, the
//! `SHMEM_INFO` printout and `docs/env.md`.
//!
//! Every variable is read as `SHMEM_<NAME>` first and then through its deprecated
//! `SMA_<NAME>` alias where the spec defines one. A malformed value is an error at
//! `shmem_init`, never silently replaced by the default.

pub mod names;

pub use names::{BarrierAlgorithm, BcastAlgorithm, CollectAlgorithm, Graph, ReduceAlgorithm, STRATEGIES, Strategy};
use std::fmt;

/// How a variable's value is interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
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
}

/// One row of the table.
pub struct Var {
    /// Name after the `SHMEM_` prefix.
    pub name: &'static str,
    /// Whether the deprecated `SMA_` spelling is honoured too.
    pub sma_alias: bool,
    /// Other implementations' names of the same setting, read as well; when
    /// one of them and the variable are both set they must agree.
    pub also: &'static [&'static str],
    pub kind: Kind,
    /// Default, as the user would write it ("" for flags that are off).
    pub default: &'static str,
    pub help: &'static str,
}

/// Every variable the library reads. Keep this the only list.
pub const VARS: &[Var] = &[
    Var {
        name: "SYMMETRIC_SIZE",
        sma_alias: true,
        also: &["SHMEM_SYMMETRIC_HEAP_SIZE"],
        kind: Kind::Size,
        default: "512M",
        help: "Bytes of symmetric heap per PE (suffixes k, m, g, t; fractions allowed, e.g. 1.5G). Unset, it is 512M, lowered if all PEs' heaps would exceed half the machine's memory. Open MPI's name `SHMEM_SYMMETRIC_HEAP_SIZE` is read too; set with `SHMEM_SYMMETRIC_SIZE` (or `SMA_SYMMETRIC_SIZE`) to a different size, it is an error.",
    },
    Var {
        name: "DEBUG",
        sma_alias: true,
        also: &[],
        kind: Kind::Flag,
        default: "",
        help: "Print debugging messages, e.g. why an allocation returned NULL. Also turns on SHMEM_CHECK_COLLECTIVES and SHMEM_CHECK_BOUNDS unless they are set to 0.",
    },
    Var {
        name: "CHECK_COLLECTIVES",
        sma_alias: false,
        also: &[],
        kind: Kind::Switch,
        default: "",
        help: "1: before every collective (barriers, broadcast, collect, fcollect, alltoall(s), reductions, scans, shmem_malloc and the other allocation routines, team splits) the team's members exchange their arguments, and a disagreement ends the job with one message naming the first PE that differs and both values (see docs/debugging.md; the deprecated active-set routines too, among the set's members). 0: off. Unset: on when SHMEM_DEBUG is set, else off. Costs one small exchange among the team's members per collective. Off, a small team broadcast's root, an allocation's arguments and a team split's are still compared on one node, where that costs nothing measurable (docs/debugging.md, \"Agreement checked always\").",
    },
    Var {
        name: "CHECK_BOUNDS",
        sma_alias: false,
        also: &[],
        kind: Kind::Switch,
        default: "",
        help: "1: a put, get, strided or block-strided transfer or put-with-signal whose symmetric address lies in a block of the symmetric heap or in a global variable of the program (found in its symbol table) must stay inside that object, or the job ends with a message naming the argument, the object and both lengths, before any byte moves; a local buffer that is itself symmetric is checked too (see docs/debugging.md). 0: off. Unset: on when SHMEM_DEBUG is set, else off. Costs a lookup of the heap block (under the heap's lock) or of the symbol per transfer.",
    },
    Var {
        name: "INFO",
        sma_alias: true,
        also: &[],
        kind: Kind::Flag,
        default: "",
        help: "PE 0 prints this table with the values in effect at start-up.",
    },
    Var {
        name: "VERSION",
        sma_alias: true,
        also: &[],
        kind: Kind::Flag,
        default: "",
        help: "PE 0 prints the library name and version at start-up.",
    },
    Var {
        name: "WAIT_SPIN",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "auto",
        help: "Polls a waiting PE spins before it yields the core (auto: short when PEs outnumber cores); at most 1073741824.",
    },
    Var {
        name: "HANG_WARN",
        sma_alias: false,
        also: &[],
        kind: Kind::Seconds,
        default: "0",
        help: "If non-zero, a wait that lasts this many seconds prints what it waits for, once.",
    },
    Var {
        name: "HANG_TIMEOUT",
        sma_alias: false,
        also: &[],
        kind: Kind::Seconds,
        default: "30",
        help: "Seconds every PE may stay blocked in the library (or stopped) before a hang report says where each one is; 0 turns it off. Read by `oshrun` (which watches the PEs) and, in a job across nodes, by each node's first PE for its node (docs/debugging.md).",
    },
    Var {
        name: "PROGRESS_THREAD",
        sma_alias: false,
        also: &[],
        kind: Kind::Flag,
        default: "",
        help: "In a job that spans nodes, each PE runs a thread that lets MPI move requests along every SHMEM_PROGRESS_INTERVAL microseconds, so puts to a PE that computes for long without calling the library still land (see docs/multinode.md, Progress). Costs CPU; ignored on one node.",
    },
    Var {
        name: "PROGRESS_INTERVAL",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "50",
        help: "Microseconds the progress thread (SHMEM_PROGRESS_THREAD) sleeps between polls; 1 to 1000000.",
    },
    Var {
        name: "NETWORK_TIMEOUT",
        sma_alias: false,
        also: &[],
        kind: Kind::Seconds,
        default: "120",
        help: "In a job that spans nodes, seconds another node may stay unreachable (its kernel answers no TCP keepalive probe of the network watch) before the job ends with a message naming it; outages shorter than this are ridden out. 0: wait for ever; otherwise 1 to 86400. Set it the same on every node (see docs/debugging.md, Network faults).",
    },
    Var {
        name: "PSYNC_STRATEGY",
        sma_alias: false,
        also: &[],
        kind: Kind::Choice(STRATEGIES),
        default: "traditional",
        help: "How collective synchronisation memory is managed and reused (see docs/psync.md).",
    },
    Var {
        name: "PSYNC_STATS",
        sma_alias: false,
        also: &[],
        kind: Kind::Flag,
        default: "",
        help: "Every PE prints its synchronisation-memory footprint (current and peak bytes) at shmem_finalize.",
    },
    Var {
        name: "PSYNC_POOL",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "2",
        help: "Sync arrays a team starts with under the pool strategies (extra-sync, barrier-unlock); 1 to 65536.",
    },
    Var {
        name: "PSYNC_POOL_MAX",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "16",
        help: "Sync arrays a team's pool may grow to under the pool strategies; at least 2 and at least SHMEM_PSYNC_POOL, at most 65536.",
    },
    Var {
        name: "SPACE_ARENA_SIZE",
        sma_alias: false,
        also: &[],
        kind: Kind::Size,
        default: "1G",
        help: "Bytes per PE of address space for spaces: those created with shmemx_space_create and every team's own synchronisation memory (pages are used only when touched); at least 1M.",
    },
    Var {
        name: "PEER_TABLES",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "auto",
        help: "Other PEs whose memory a PE's collectives may reach before it drops its page tables for every other PE's memory (rebuilt by a page fault at the next access; the data stays), so that the page tables of a job do not grow with the square of its PEs; 0: never drop them; auto: the job's page tables for other PEs' memory stay within 1/128 of the machine's memory, at least 16 PEs each.",
    },
    Var {
        name: "TEAM_SCRATCH_SIZE",
        sma_alias: false,
        also: &[],
        kind: Kind::Size,
        default: "64K",
        help: "Bytes of collective scratch each team gets per PE (reductions move data through it in chunks of this size); at least 1K, at most SHMEM_SPACE_ARENA_SIZE, where it lives.",
    },
    Var {
        name: "BARRIER_ALGORITHM",
        sma_alias: false,
        also: &[],
        kind: Kind::Choice(BarrierAlgorithm::NAMES),
        default: "auto",
        help: "Barrier and sync algorithm of teams and active sets.",
    },
    Var {
        name: "BCAST_ALGORITHM",
        sma_alias: false,
        also: &[],
        kind: Kind::Choice(BcastAlgorithm::NAMES),
        default: "auto",
        help: "Broadcast algorithm.",
    },
    Var {
        name: "REDUCE_ALGORITHM",
        sma_alias: false,
        also: &[],
        kind: Kind::Choice(ReduceAlgorithm::NAMES),
        default: "auto",
        help: "Reduction algorithm (team reductions and `_to_all`).",
    },
    Var {
        name: "COLLECT_ALGORITHM",
        sma_alias: false,
        also: &[],
        kind: Kind::Choice(CollectAlgorithm::NAMES),
        default: "auto",
        help: "Algorithm of collect and fcollect.",
    },
    Var {
        name: "TRACE",
        sma_alias: false,
        also: &[],
        kind: Kind::Path,
        default: "",
        help: "Write a timeline of every PE's communicating calls (RMA, atomics, signals, waits, collectives) to this file at shmem_finalize, as one Chrome/Perfetto trace JSON; `oshrun` preloads the trace layer `librshmem_trace.so` that records them (see docs/debugging.md, Timeline traces).",
    },
    Var {
        name: "TRACE_BUFFER",
        sma_alias: false,
        also: &[],
        kind: Kind::Count,
        default: "1048576",
        help: "Events each PE keeps when SHMEM_TRACE is set (32 bytes each, memory used only as they arrive); later events are counted and reported as dropped. 1 to 268435456.",
    },
];

/// Most events `SHMEM_TRACE_BUFFER` may ask for (8 GiB of records per PE);
/// the trace layer has the same bound.
pub const MAX_TRACE_BUFFER: usize = 1 << 28;

/// A configuration error: the variable, the value and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
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
pub struct Setting {
    pub var: String,
    pub text: String,
}

/// Most sync arrays a team's pool may hold (`SHMEM_PSYNC_POOL`, `_MAX`): far
/// more than any program needs, small enough that a region's size cannot
/// overflow.
pub const MAX_POOL: usize = 1 << 16;

/// Most polls `SHMEM_WAIT_SPIN` may ask for (seconds of spinning): the wait
/// counts spins and yields together in 32 bits.
pub const MAX_WAIT_SPIN: u32 = 1 << 30;

/// Largest `SHMEM_PEER_TABLES` (the most PEs `oshrun` starts).
pub const MAX_PEER_TABLES: u64 = 1 << 20;

/// The typed configuration, read once at `shmem_init`.
#[derive(Clone, Debug)]
pub struct Config {
    pub symmetric_size: usize,
    /// The variable that set the size, if any (else it is the default, which
    /// start-up may lower to fit the machine).
    pub symmetric_size_set_by: Option<Setting>,
    pub debug: bool,
    /// `SHMEM_CHECK_COLLECTIVES` (or `SHMEM_DEBUG`): collectives first agree
    /// on their arguments (`coll::check`).
    pub check_collectives: bool,
    /// `SHMEM_CHECK_BOUNDS` (or `SHMEM_DEBUG`): transfers stay inside the
    /// objects their symmetric addresses point into (`ffi::bounds`).
    pub check_bounds: bool,
    pub info: bool,
    pub version: bool,
    /// `None` means automatic.
    pub wait_spin: Option<u32>,
    /// Zero means off.
    pub hang_warn_secs: f64,
    /// `SHMEM_HANG_TIMEOUT`; zero means off.
    pub hang_timeout_secs: f64,
    /// `SHMEM_PROGRESS_THREAD`: run a progress thread in multi-node jobs.
    pub progress_thread: bool,
    /// `SHMEM_PROGRESS_INTERVAL`, in microseconds.
    pub progress_interval_us: u64,
    /// `SHMEM_NETWORK_TIMEOUT`; zero means no bound.
    pub network_timeout_secs: f64,
    pub psync_strategy: Strategy,
    pub psync_stats: bool,
    pub psync_pool: usize,
    pub psync_pool_max: usize,
    pub space_arena_size: usize,
    /// `SHMEM_PEER_TABLES`: None for auto, Some(0) for never.
    pub peer_tables: Option<usize>,
    pub team_scratch_size: usize,
    pub barrier_algorithm: BarrierAlgorithm,
    pub bcast_algorithm: BcastAlgorithm,
    pub reduce_algorithm: ReduceAlgorithm,
    pub collect_algorithm: CollectAlgorithm,
    /// `SHMEM_TRACE`: the trace file, if tracing is asked for (written by the
    /// trace layer; the library only checks that the layer is there).
    pub trace: Option<String>,
    /// `SHMEM_TRACE_BUFFER`, in events.
    pub trace_buffer: usize,
}

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Config, ConfigError> {
        Config::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads through `get`, so tests can supply their own environment.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let find = |name: &str| VARS.iter().find(|v| v.name == name).expect("variable is in VARS");
        let raw = |name: &str| -> (String, Option<String>) {
            let var = find(name);
            let primary = format!("SHMEM_{name}");
            if let Some(v) = get(&primary) {
                return (primary, Some(v));
            }
            if var.sma_alias {
                let alias = format!("SMA_{name}");
                if let Some(v) = get(&alias) {
                    return (alias, Some(v));
                }
            }
            (primary, None)
        };
        let err = |var: String, value: &str, why: String| ConfigError {
            var,
            value: value.to_string(),
            why,
        };

        // A size, at least `min` bytes, that the library can round up to a
        // multiple of `align` without overflow. Read under its names (the
        // variable or its SMA_ alias, and other implementations' names), which
        // must agree; returns the size and where it came from.
        let size = |name: &str, min: usize, align: usize| -> Result<(usize, Option<Setting>), ConfigError> {
            let var = find(name);
            let (n, v) = raw(name);
            let mut set: Vec<Setting> = v.map(|text| Setting { var: n, text }).into_iter().collect();
            set.extend(var.also.iter().filter_map(|&other| {
                get(other).map(|text| Setting {
                    var: other.to_string(),
                    text,
                })
            }));
            let mut values = Vec::with_capacity(set.len());
            for s in &set {
                values.push(checked_size(&s.text, min, align).map_err(|why| err(s.var.clone(), &s.text, why))?);
            }
            if let (Some(first), Some((i, _))) =
                (set.first(), values.iter().enumerate().find(|(_, b)| **b != values[0]))
            {
                let other = &set[i];
                return Err(err(
                    other.var.clone(),
                    &other.text,
                    format!(
                        "it names the same setting as {}, which is {:?}, a different size: set only one of them, or both to the same size",
                        first.var, first.text
                    ),
                ));
            }
            match set.into_iter().next() {
                Some(s) => Ok((values[0], Some(s))),
                None => Ok((checked_size(var.default, min, align).expect("default is valid"), None)),
            }
        };
        let count = |name: &str, min: usize, max: usize| -> Result<usize, ConfigError> {
            let var = find(name);
            let (n, v) = raw(name);
            let text = v.unwrap_or_else(|| var.default.to_string());
            let c = parse_count(&text, max as u64).map_err(|why| err(n.clone(), &text, why))? as usize;
            if c < min {
                return Err(err(n, &text, format!("must be at least {min}")));
            }
            Ok(c)
        };

        let (symmetric_size, symmetric_size_set_by) = size("SYMMETRIC_SIZE", 0, SIZE_ALIGN)?;
        if let (0, Some(s)) = (symmetric_size, &symmetric_size_set_by) {
            return Err(err(s.var.clone(), &s.text, "the heap must not be empty".into()));
        }
        let (n, v) = raw("WAIT_SPIN");
        let wait_spin = match v {
            Some(s) if s.trim() == "auto" => None,
            Some(s) => Some(
                parse_count(&s, MAX_WAIT_SPIN as u64).map_err(|why| err(n, &s, format!("{why} (or 'auto')")))? as u32,
            ),
            None => None,
        };
        let (n, v) = raw("PEER_TABLES");
        let peer_tables = match v {
            Some(s) if s.trim() == "auto" => None,
            Some(s) => {
                Some(parse_count(&s, MAX_PEER_TABLES).map_err(|why| err(n, &s, format!("{why} (or 'auto')")))? as usize)
            }
            None => None,
        };
        let (n, v) = raw("HANG_WARN");
        let hang_warn_secs = match v {
            Some(s) => parse_seconds(&s).map_err(|why| err(n, &s, why))?,
            None => 0.0,
        };
        let (n, v) = raw("HANG_TIMEOUT");
        let hang_timeout_secs = match v {
            Some(s) => parse_seconds(&s).map_err(|why| err(n, &s, why))?,
            None => HANG_TIMEOUT_DEFAULT,
        };
        let (n, v) = raw("NETWORK_TIMEOUT");
        let network_timeout_secs = match v {
            Some(s) => parse_network_timeout(&s).map_err(|why| err(n, &s, why))?,
            None => NETWORK_TIMEOUT_DEFAULT,
        };
        // One of the names of a choice variable, parsed by `parse` (which
        // accepts exactly the variable's list, see `names`).
        fn choice<T>(
            name: &str,
            raw: &dyn Fn(&str) -> (String, Option<String>),
            parse: fn(&str) -> Option<T>,
        ) -> Result<T, ConfigError> {
            let var = VARS.iter().find(|v| v.name == name).expect("variable is in VARS");
            let Kind::Choice(names) = var.kind else {
                unreachable!("{name} is a choice")
            };
            let (n, v) = raw(name);
            match v {
                None => Ok(parse(var.default).expect("default is a choice")),
                Some(s) => parse(s.trim()).ok_or_else(|| ConfigError {
                    var: n,
                    value: s.clone(),
                    why: format!("expected one of: {}", names.join(", ")),
                }),
            }
        }
        let psync_pool = count("PSYNC_POOL", 1, MAX_POOL)?;
        let psync_pool_max = count("PSYNC_POOL_MAX", psync_pool.max(2), MAX_POOL)?;
        let (space_arena_size, _) = size("SPACE_ARENA_SIZE", 1 << 20, SIZE_ALIGN)?;
        let (team_scratch_size, scratch_set_by) = size("TEAM_SCRATCH_SIZE", 1024, SIZE_ALIGN)?;
        // Every team's scratch lives in the space arena.
        if team_scratch_size > space_arena_size {
            let s = scratch_set_by.unwrap_or_else(|| Setting {
                var: "SHMEM_TEAM_SCRATCH_SIZE".into(),
                text: find("TEAM_SCRATCH_SIZE").default.into(),
            });
            return Err(err(
                s.var,
                &s.text,
                format!(
                    "a team's scratch must fit in the space arena (SHMEM_SPACE_ARENA_SIZE, {} bytes)",
                    space_arena_size
                ),
            ));
        }
        let progress_interval_us = count("PROGRESS_INTERVAL", 1, 1_000_000)? as u64;
        let debug = raw("DEBUG").1.is_some();
        // A `Switch` that SHMEM_DEBUG turns on when it is unset.
        let switch = |name: &str| -> Result<bool, ConfigError> {
            let (n, v) = raw(name);
            match v.as_deref().map(str::trim) {
                None => Ok(debug),
                Some("0") => Ok(false),
                Some("1") => Ok(true),
                Some(_) => Err(err(n, v.as_deref().unwrap_or(""), "expected 0 or 1".into())),
            }
        };
        let check_collectives = switch("CHECK_COLLECTIVES")?;
        let check_bounds = switch("CHECK_BOUNDS")?;
        let trace = raw("TRACE").1.filter(|f| !f.is_empty());
        let trace_buffer = count("TRACE_BUFFER", 1, MAX_TRACE_BUFFER)?;
        Ok(Config {
            trace,
            trace_buffer,
            progress_thread: raw("PROGRESS_THREAD").1.is_some(),
            progress_interval_us,
            network_timeout_secs,
            psync_pool,
            psync_pool_max,
            psync_strategy: choice("PSYNC_STRATEGY", &raw, Strategy::from_name)?,
            psync_stats: raw("PSYNC_STATS").1.is_some(),
            space_arena_size,
            peer_tables,
            team_scratch_size,
            barrier_algorithm: choice("BARRIER_ALGORITHM", &raw, BarrierAlgorithm::from_name)?,
            bcast_algorithm: choice("BCAST_ALGORITHM", &raw, BcastAlgorithm::from_name)?,
            reduce_algorithm: choice("REDUCE_ALGORITHM", &raw, ReduceAlgorithm::from_name)?,
            collect_algorithm: choice("COLLECT_ALGORITHM", &raw, CollectAlgorithm::from_name)?,
            symmetric_size,
            symmetric_size_set_by,
            debug,
            check_collectives,
            check_bounds,
            info: raw("INFO").1.is_some(),
            version: raw("VERSION").1.is_some(),
            wait_spin,
            hang_warn_secs,
            hang_timeout_secs,
        })
    }

    /// The `SHMEM_INFO` text: every variable, its default, help and value in effect.
    pub fn info_text(&self) -> String {
        let mut s = String::from("rshmem environment variables (SHMEM_INFO):\n");
        for v in VARS {
            let current = match v.name {
                "SYMMETRIC_SIZE" => match &self.symmetric_size_set_by {
                    Some(from) => format!("{} (from {})", self.symmetric_size, from.var),
                    None => self.symmetric_size.to_string(),
                },
                "DEBUG" => self.debug.to_string(),
                "CHECK_COLLECTIVES" => self.check_collectives.to_string(),
                "CHECK_BOUNDS" => self.check_bounds.to_string(),
                "INFO" => self.info.to_string(),
                "VERSION" => self.version.to_string(),
                "WAIT_SPIN" => self.wait_spin.map_or("auto".into(), |n| n.to_string()),
                "HANG_WARN" => self.hang_warn_secs.to_string(),
                "HANG_TIMEOUT" => self.hang_timeout_secs.to_string(),
                "PROGRESS_THREAD" => self.progress_thread.to_string(),
                "PROGRESS_INTERVAL" => self.progress_interval_us.to_string(),
                "NETWORK_TIMEOUT" => self.network_timeout_secs.to_string(),
                "PSYNC_STRATEGY" => self.psync_strategy.name().to_string(),
                "PSYNC_STATS" => self.psync_stats.to_string(),
                "PSYNC_POOL" => self.psync_pool.to_string(),
                "PSYNC_POOL_MAX" => self.psync_pool_max.to_string(),
                "SPACE_ARENA_SIZE" => self.space_arena_size.to_string(),
                "PEER_TABLES" => self.peer_tables.map_or("auto".into(), |n| n.to_string()),
                "TEAM_SCRATCH_SIZE" => self.team_scratch_size.to_string(),
                "BARRIER_ALGORITHM" => self.barrier_algorithm.name().to_string(),
                "BCAST_ALGORITHM" => self.bcast_algorithm.name().to_string(),
                "REDUCE_ALGORITHM" => self.reduce_algorithm.name().to_string(),
                "COLLECT_ALGORITHM" => self.collect_algorithm.name().to_string(),
                "TRACE" => self.trace.clone().unwrap_or_else(|| "unset".into()),
                "TRACE_BUFFER" => self.trace_buffer.to_string(),
                _ => String::new(),
            };
            let mut alias = if v.sma_alias {
                format!(" (alias SMA_{})", v.name)
            } else {
                String::new()
            };
            if !v.also.is_empty() {
                alias.push_str(&format!(" (also {})", v.also.join(", ")));
            }
            let default = if v.default.is_empty() { "unset" } else { v.default };
            s.push_str(&format!(
                "  SHMEM_{}{}\n      value {}, default {}\n      {}\n",
                v.name, alias, current, default, v.help
            ));
        }
        s
    }
}

/// `docs/env.md`: the variables as a Markdown table (written by
/// `cargo xtask gen-header`, checked by `tests/header_fresh.rs`).
pub fn env_markdown() -> String {
    let mut s = String::from(
        "# Environment variables\n\nGenerated from the table in `src/config/mod.rs`; do not edit. Each variable is read as \
         `SHMEM_<NAME>`, then under its other names where listed: the deprecated `SMA_<NAME>` (the `SHMEM_` \
         name wins when both are set), and other implementations' names (Open MPI's), which must agree with \
         the `SHMEM_` name when both are set. A malformed value stops `shmem_init` with a message naming the \
         variable and the value; so does a size too large to lay out (within 2 MiB of 2^64), and two names \
         of one setting set to different values.\n\n| variable | other names | kind | default | meaning |\n|---|---|---|---|---|\n",
    );
    for v in VARS {
        let kind = match v.kind {
            Kind::Flag => "flag (set = on)".to_string(),
            Kind::Switch => "`0` or `1`".to_string(),
            Kind::Size => "size".to_string(),
            Kind::Seconds => "seconds".to_string(),
            Kind::Count => "count".to_string(),
            Kind::Choice(names) => format!("one of `{}`", names.join("`, `")),
            Kind::Path => "file name".to_string(),
        };
        let default = if v.default.is_empty() { "unset" } else { v.default };
        let others = other_names(v);
        let others = if others.is_empty() {
            "".to_string()
        } else {
            format!("`{}`", others.join("`, `"))
        };
        s.push_str(&format!(
            "| `SHMEM_{}` | {others} | {kind} | `{default}` | {} |\n",
            v.name, v.help
        ));
    }
    s
}

/// A variable's other names: its `SMA_` alias, then other implementations'.
fn other_names(v: &Var) -> Vec<String> {
    let sma = v.sma_alias.then(|| format!("SMA_{}", v.name));
    sma.into_iter().chain(v.also.iter().map(|a| a.to_string())).collect()
}

/// The granule sizes are rounded up to when memory is laid out (a segment's
/// parts start at multiples of it, `heap::SEGMENT_ALIGN`, checked equal in
/// `runtime`): every size must survive that rounding.
pub const SIZE_ALIGN: usize = 2 << 20;

/// Parses a size and checks it: at least `min`, and still representable
/// once rounded up to a multiple of `align` (a power of two).
fn checked_size(text: &str, min: usize, align: usize) -> Result<usize, String> {
    let b = parse_size(text)?;
    if b < min {
        return Err(format!("must be at least {min} bytes"));
    }
    if b.checked_next_multiple_of(align).is_none() {
        return Err(format!(
            "too large: rounded up to a multiple of {} (as memory is laid out) it exceeds 2^64 - 1 bytes",
            human_bytes(align as u128)
        ));
    }
    Ok(b)
}

/// Parses a whole number from 0 to `max`.
fn parse_count(text: &str, max: u64) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err("expected a whole number".into());
    }
    match t.parse::<u64>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!("too large: at most {max}")),
    }
}

/// Parses a size as the OpenSHMEM spec defines for `SHMEM_SYMMETRIC_SIZE`: a
/// non-negative decimal number, optionally with a fraction, followed by at most
/// one of k/K (2^10), m/M (2^20), g/G (2^30) or t/T (2^40). The result is rounded
/// up to a whole byte ("3.1M" is 3250586).
pub fn parse_size(s: &str) -> Result<usize, String> {
    const TOO_LARGE: &str = "too large: a size is at most 2^64 - 1 bytes";
    let t = s.trim();
    if t.is_empty() {
        return Err("empty size".into());
    }
    let (num, mult) = match t.chars().last() {
        Some(c) if c.is_ascii_alphabetic() => {
            let m: u64 = match c {
                'k' | 'K' => 1 << 10,
                'm' | 'M' => 1 << 20,
                'g' | 'G' => 1 << 30,
                't' | 'T' => 1 << 40,
                _ => return Err(format!("unknown size suffix '{c}' (use k, m, g or t)")),
            };
            (&t[..t.len() - 1], m)
        }
        _ => (t, 1),
    };
    if num.is_empty() {
        return Err("a suffix needs a number before it".into());
    }
    let mut parts = num.splitn(2, '.');
    let int_part = parts.next().unwrap_or("");
    let frac_part = parts.next();
    let digits_ok = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if !digits_ok(int_part)
        || !frac_part.is_none_or(digits_ok)
        || (int_part.is_empty() && frac_part.is_none_or(str::is_empty))
    {
        return Err("expected a number such as 512M, 1.5G or 65536".into());
    }
    // Exact arithmetic: value = int * mult + ceil(0.frac * mult), in u128 with
    // every step checked.
    let int_digits = int_part.trim_start_matches('0');
    if int_digits.len() > 20 {
        return Err(TOO_LARGE.into());
    }
    let int: u128 = int_digits.parse::<u128>().unwrap_or(0);
    let mut total = int.checked_mul(mult as u128).ok_or(TOO_LARGE)?;
    if let Some(f) = frac_part.filter(|f| !f.is_empty()) {
        // 24 digits times 2^40 stays far below 2^128; a non-zero digit after
        // them can only push the ceiling up by one byte.
        let (head, tail) = f.split_at(f.len().min(24));
        let num: u128 = head.parse().map_err(|_| "bad fraction".to_string())?;
        let scaled = num * mult as u128;
        let den = 10u128.pow(head.len() as u32);
        let mut frac = scaled / den;
        if !scaled.is_multiple_of(den) || tail.bytes().any(|b| b != b'0') {
            frac += 1;
        }
        total = total.checked_add(frac).ok_or(TOO_LARGE)?;
    }
    usize::try_from(total).map_err(|_| TOO_LARGE.into())
}

/// `SHMEM_HANG_TIMEOUT` when unset (`hang::DEFAULT_TIMEOUT` says why).
pub const HANG_TIMEOUT_DEFAULT: f64 = 30.0;

/// `SHMEM_NETWORK_TIMEOUT` when unset (`runtime::net_watch` says why).
pub const NETWORK_TIMEOUT_DEFAULT: f64 = 120.0;

/// Longest `SHMEM_NETWORK_TIMEOUT`: a day (the kernel counts it in
/// milliseconds in 32 bits).
pub const NETWORK_TIMEOUT_MAX: f64 = 86400.0;

/// `SHMEM_NETWORK_TIMEOUT`: 0 (no bound), or 1 to a day: the kernel's
/// keepalive probes that measure it go at most once a second.
fn parse_network_timeout(s: &str) -> Result<f64, String> {
    let v = parse_seconds(s)?;
    if v != 0.0 && !(1.0..=NETWORK_TIMEOUT_MAX).contains(&v) {
        return Err(format!("expected 0 (no bound) or 1 to {NETWORK_TIMEOUT_MAX} seconds"));
    }
    Ok(v)
}

/// A number of seconds, 0 or more (fractions allowed).
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err("expected a non-negative number of seconds".into()),
    }
}

/// Formats a byte count for people ("512 MiB", "1.5 GiB").
pub fn human_bytes(n: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 || v.fract() == 0.0 {
        format!("{} {}", v as u128, UNITS[u])
    } else {
        format!("{:.1} {}", v, UNITS[u])
    }
}

#[cfg(test)]
mod tests;
