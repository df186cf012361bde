//! Environment configuration: one table of variables drives parsing, the
//! `SHMEM_INFO` printout and `docs/env.md`.
//!
//! Every variable is read as `SHMEM_<NAME>` first and then through its deprecated
//! `SMA_<NAME>` alias where the spec defines one. A malformed value is an error at
//! `shmem_init`, never silently replaced by the default.

use std::fmt;

/// How a variable's value is interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Presence switches it on, whatever the value.
    Flag,
    /// A size in bytes with the spec's k/m/g/t suffixes.
    Size,
    /// A non-negative number of seconds (fractions allowed).
    Seconds,
    /// A non-negative integer.
    Count,
    /// One of a fixed list of names.
    Choice(&'static [&'static str]),
}

/// One row of the table.
pub struct Var {
    /// Name after the `SHMEM_` prefix.
    pub name: &'static str,
    /// Whether the deprecated `SMA_` spelling is honoured too.
    pub sma_alias: bool,
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
        kind: Kind::Size,
        default: "512M",
        help: "Bytes of symmetric heap per PE (suffixes k, m, g, t; fractions allowed, e.g. 1.5G). Unset, it is 512M, lowered if all PEs' heaps would exceed half the machine's memory.",
    },
    Var {
        name: "DEBUG",
        sma_alias: true,
        kind: Kind::Flag,
        default: "",
        help: "Print debugging messages, e.g. why an allocation returned NULL.",
    },
    Var {
        name: "INFO",
        sma_alias: true,
        kind: Kind::Flag,
        default: "",
        help: "PE 0 prints this table with the values in effect at start-up.",
    },
    Var {
        name: "VERSION",
        sma_alias: true,
        kind: Kind::Flag,
        default: "",
        help: "PE 0 prints the library name and version at start-up.",
    },
    Var {
        name: "WAIT_SPIN",
        sma_alias: false,
        kind: Kind::Count,
        default: "auto",
        help: "Polls a waiting PE spins before it yields the core (auto: short when PEs outnumber cores).",
    },
    Var {
        name: "HANG_WARN",
        sma_alias: false,
        kind: Kind::Seconds,
        default: "0",
        help: "If non-zero, a wait that lasts this many seconds prints what it waits for, once.",
    },
    Var {
        name: "PSYNC_STRATEGY",
        sma_alias: false,
        kind: Kind::Choice(crate::psync::STRATEGIES),
        default: "traditional",
        help: "How collective synchronisation memory is managed and reused (see docs/psync.md).",
    },
    Var {
        name: "PSYNC_STATS",
        sma_alias: false,
        kind: Kind::Flag,
        default: "",
        help: "Every PE prints its synchronisation-memory footprint (current and peak bytes) at shmem_finalize.",
    },
    Var {
        name: "PSYNC_POOL",
        sma_alias: false,
        kind: Kind::Count,
        default: "2",
        help: "Sync arrays a team starts with under the pool strategies (extra-sync, barrier-unlock); at least 1.",
    },
    Var {
        name: "PSYNC_POOL_MAX",
        sma_alias: false,
        kind: Kind::Count,
        default: "16",
        help: "Sync arrays a team's pool may grow to under the pool strategies; at least 2 and at least SHMEM_PSYNC_POOL.",
    },
    Var {
        name: "SPACE_ARENA_SIZE",
        sma_alias: false,
        kind: Kind::Size,
        default: "1G",
        help: "Bytes per PE of address space for spaces: those created with shmemx_space_create and every team's own synchronisation memory (pages are used only when touched).",
    },
    Var {
        name: "TEAM_SCRATCH_SIZE",
        sma_alias: false,
        kind: Kind::Size,
        default: "64K",
        help: "Bytes of collective scratch each team gets per PE (reductions move data through it in chunks of this size).",
    },
    Var {
        name: "BARRIER_ALGORITHM",
        sma_alias: false,
        kind: Kind::Choice(crate::coll::registry::BARRIER),
        default: "auto",
        help: "Barrier and sync algorithm of teams and active sets.",
    },
    Var {
        name: "BCAST_ALGORITHM",
        sma_alias: false,
        kind: Kind::Choice(crate::coll::registry::BCAST),
        default: "auto",
        help: "Broadcast algorithm.",
    },
    Var {
        name: "REDUCE_ALGORITHM",
        sma_alias: false,
        kind: Kind::Choice(crate::coll::registry::REDUCE),
        default: "auto",
        help: "Reduction algorithm (team reductions and `_to_all`).",
    },
    Var {
        name: "COLLECT_ALGORITHM",
        sma_alias: false,
        kind: Kind::Choice(crate::coll::registry::COLLECT),
        default: "auto",
        help: "Algorithm of collect and fcollect.",
    },
];

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

/// The typed configuration, read once at `shmem_init`.
#[derive(Clone, Debug)]
pub struct Config {
    pub symmetric_size: usize,
    /// Whether the size came from the environment (else it is the default,
    /// which start-up may lower to fit the machine).
    pub symmetric_size_explicit: bool,
    pub debug: bool,
    pub info: bool,
    pub version: bool,
    /// `None` means automatic.
    pub wait_spin: Option<u32>,
    /// Zero means off.
    pub hang_warn_secs: f64,
    pub psync_strategy: &'static str,
    pub psync_stats: bool,
    pub psync_pool: usize,
    pub psync_pool_max: usize,
    pub space_arena_size: usize,
    pub team_scratch_size: usize,
    pub barrier_algorithm: &'static str,
    pub bcast_algorithm: &'static str,
    pub reduce_algorithm: &'static str,
    pub collect_algorithm: &'static str,
}

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Config, ConfigError> {
        Config::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads through `get`, so tests can supply their own environment.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let raw = |name: &str| -> (String, Option<String>) {
            let var = VARS.iter().find(|v| v.name == name).expect("variable is in VARS");
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

        let (n, v) = raw("SYMMETRIC_SIZE");
        let symmetric_size_explicit = v.is_some();
        let symmetric_size = match v {
            Some(s) => parse_size(&s).map_err(|why| err(n, &s, why))?,
            None => parse_size("512M").expect("default parses"),
        };
        if symmetric_size == 0 {
            return Err(err(
                "SHMEM_SYMMETRIC_SIZE".into(),
                "0",
                "the heap must not be empty".into(),
            ));
        }
        let (n, v) = raw("WAIT_SPIN");
        let wait_spin = match v {
            Some(s) if s.trim() == "auto" => None,
            Some(s) => Some(
                s.trim()
                    .parse::<u32>()
                    .map_err(|_| err(n, &s, "expected a whole number or 'auto'".into()))?,
            ),
            None => None,
        };
        let (n, v) = raw("HANG_WARN");
        let hang_warn_secs = match v {
            Some(s) => parse_seconds(&s).map_err(|why| err(n, &s, why))?,
            None => 0.0,
        };
        let choice = |name: &str| -> Result<&'static str, ConfigError> {
            let var = VARS.iter().find(|v| v.name == name).expect("variable is in VARS");
            let Kind::Choice(names) = var.kind else {
                unreachable!("{name} is a choice")
            };
            let (n, v) = raw(name);
            match v {
                None => Ok(names.iter().find(|c| **c == var.default).expect("default is a choice")),
                Some(s) => names
                    .iter()
                    .find(|c| **c == s.trim())
                    .copied()
                    .ok_or_else(|| err(n, &s, format!("expected one of: {}", names.join(", ")))),
            }
        };
        let size = |name: &str, min: usize| -> Result<usize, ConfigError> {
            let var = VARS.iter().find(|v| v.name == name).expect("variable is in VARS");
            let (n, v) = raw(name);
            let text = v.unwrap_or_else(|| var.default.to_string());
            let b = parse_size(&text).map_err(|why| err(n.clone(), &text, why))?;
            if b < min {
                return Err(err(n, &text, format!("must be at least {min} bytes")));
            }
            Ok(b)
        };
        let count = |name: &str, min: usize| -> Result<usize, ConfigError> {
            let var = VARS.iter().find(|v| v.name == name).expect("variable is in VARS");
            let (n, v) = raw(name);
            let text = v.unwrap_or_else(|| var.default.to_string());
            let c = text
                .trim()
                .parse::<usize>()
                .map_err(|_| err(n.clone(), &text, "expected a whole number".into()))?;
            if c < min {
                return Err(err(n, &text, format!("must be at least {min}")));
            }
            Ok(c)
        };
        let psync_pool = count("PSYNC_POOL", 1)?;
        let psync_pool_max = count("PSYNC_POOL_MAX", psync_pool.max(2))?;
        Ok(Config {
            psync_pool,
            psync_pool_max,
            psync_strategy: choice("PSYNC_STRATEGY")?,
            psync_stats: raw("PSYNC_STATS").1.is_some(),
            space_arena_size: size("SPACE_ARENA_SIZE", 1 << 20)?,
            team_scratch_size: size("TEAM_SCRATCH_SIZE", 1024)?,
            barrier_algorithm: choice("BARRIER_ALGORITHM")?,
            bcast_algorithm: choice("BCAST_ALGORITHM")?,
            reduce_algorithm: choice("REDUCE_ALGORITHM")?,
            collect_algorithm: choice("COLLECT_ALGORITHM")?,
            symmetric_size,
            symmetric_size_explicit,
            debug: raw("DEBUG").1.is_some(),
            info: raw("INFO").1.is_some(),
            version: raw("VERSION").1.is_some(),
            wait_spin,
            hang_warn_secs,
        })
    }

    /// The `SHMEM_INFO` text: every variable, its default, help and value in effect.
    pub fn info_text(&self) -> String {
        let mut s = String::from("rshmem environment variables (SHMEM_INFO):\n");
        for v in VARS {
            let current = match v.name {
                "SYMMETRIC_SIZE" => self.symmetric_size.to_string(),
                "DEBUG" => self.debug.to_string(),
                "INFO" => self.info.to_string(),
                "VERSION" => self.version.to_string(),
                "WAIT_SPIN" => self.wait_spin.map_or("auto".into(), |n| n.to_string()),
                "HANG_WARN" => self.hang_warn_secs.to_string(),
                "PSYNC_STRATEGY" => self.psync_strategy.to_string(),
                "PSYNC_STATS" => self.psync_stats.to_string(),
                "PSYNC_POOL" => self.psync_pool.to_string(),
                "PSYNC_POOL_MAX" => self.psync_pool_max.to_string(),
                "SPACE_ARENA_SIZE" => self.space_arena_size.to_string(),
                "TEAM_SCRATCH_SIZE" => self.team_scratch_size.to_string(),
                "BARRIER_ALGORITHM" => self.barrier_algorithm.to_string(),
                "BCAST_ALGORITHM" => self.bcast_algorithm.to_string(),
                "REDUCE_ALGORITHM" => self.reduce_algorithm.to_string(),
                "COLLECT_ALGORITHM" => self.collect_algorithm.to_string(),
                _ => String::new(),
            };
            let alias = if v.sma_alias {
                format!(" (alias SMA_{})", v.name)
            } else {
                String::new()
            };
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
        "# Environment variables\n\nGenerated from the table in `src/config.rs`; do not edit. Each variable is read as \
         `SHMEM_<NAME>`, then as the deprecated `SMA_<NAME>` where marked. A malformed value stops `shmem_init` \
         with a message naming the variable and the value.\n\n| variable | `SMA_` alias | kind | default | meaning |\n|---|---|---|---|---|\n",
    );
    for v in VARS {
        let kind = match v.kind {
            Kind::Flag => "flag (set = on)".to_string(),
            Kind::Size => "size".to_string(),
            Kind::Seconds => "seconds".to_string(),
            Kind::Count => "count".to_string(),
            Kind::Choice(names) => format!("one of `{}`", names.join("`, `")),
        };
        let default = if v.default.is_empty() { "unset" } else { v.default };
        let alias = if v.sma_alias { "yes" } else { "no" };
        s.push_str(&format!(
            "| `SHMEM_{}` | {alias} | {kind} | `{default}` | {} |\n",
            v.name, v.help
        ));
    }
    s
}

/// Parses a size as the OpenSHMEM spec defines for `SHMEM_SYMMETRIC_SIZE`: a
/// non-negative decimal number, optionally with a fraction, followed by at most
/// one of k/K (2^10), m/M (2^20), g/G (2^30) or t/T (2^40). The result is rounded
/// up to a whole byte ("3.1M" is 3250586).
pub fn parse_size(s: &str) -> Result<usize, String> {
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
    // Exact arithmetic: value = int * mult + ceil(frac_digits * mult / 10^len).
    let int: u128 = if int_part.is_empty() {
        0
    } else {
        int_part.parse::<u128>().map_err(|_| "number too large".to_string())?
    };
    let mut total = int.checked_mul(mult as u128).ok_or("number too large")?;
    if let Some(f) = frac_part.filter(|f| !f.is_empty()) {
        let f = &f[..f.len().min(30)];
        let num: u128 = f.parse().map_err(|_| "bad fraction".to_string())?;
        let den = 10u128.pow(f.len() as u32);
        total += (num * mult as u128).div_ceil(den);
    }
    usize::try_from(total).map_err(|_| "number too large".into())
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err("expected a non-negative number of seconds".into()),
    }
}

/// Formats a byte count for people ("512 MiB", "1.5 GiB").
pub fn human_bytes(n: u128) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
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
mod tests {
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
        assert!(cfg(&[("SHMEM_HANG_WARN", "-1")]).is_err());
    }

    #[test]
    fn defaults() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c.symmetric_size, 512 << 20);
        assert!(!c.debug && !c.info && !c.version);
        assert_eq!(c.wait_spin, None);
        assert!(c.info_text().contains("SHMEM_SYMMETRIC_SIZE"));
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(512 << 20), "512 MiB");
        assert_eq!(human_bytes(1536 << 20), "1.5 GiB");
        assert_eq!(human_bytes(100), "100 B");
    }
}
