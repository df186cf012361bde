//! `--map-by`, as Open MPI spells it, on one machine.
//!
//! rshmem places PE i on the i-th CPU `oshrun` may use, round robin, when it
//! pins (`--bind-to`). Open MPI's mappings translate as follows:
//!
//! - `slot`, `node`: that same order; nothing changes.
//! - `core`, `hwthread`: that order, and pinned (Open MPI binds to what it maps
//!   by), unless `--bind-to` says otherwise.
//! - `ppr:N:node` is `-N N`; `ppr:N:core` / `ppr:N:hwthread` is N PEs per CPU
//!   (and pinned).
//! - `socket`, `package`, `numa`, `l1cache`..`l3cache`, `board`, `seq`, `dist`,
//!   and `ppr:N:` any of them: rshmem does not model the machine's topology, so
//!   they are accepted with one note and placement follows `--bind-to`.
//! - The modifier `PE=n` gives each PE n consecutive CPUs (pinned), for
//!   programs whose PEs run threads; the other modifiers (`SPAN`,
//!   `OVERSUBSCRIBE`, `DISPLAY`, ...) do not apply to one machine and are
//!   ignored.

/// What a `--map-by` value asks of rshmem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MapBy {
    /// PEs on this machine (the only node), from `ppr:N:node|core|hwthread`.
    pub per_node: Option<usize>,
    /// CPUs each PE is pinned to (`PE=n`).
    pub cpus_per_pe: usize,
    /// Pin the PEs unless `--bind-to` says otherwise.
    pub pin: bool,
    /// One line to tell the user, when the mapping is only accepted.
    pub note: Option<String>,
}

const OBJECTS: &[&str] = &[
    "slot", "hwthread", "core", "l1cache", "l2cache", "l3cache", "package", "socket", "numa", "node", "board", "seq",
    "dist", "ppr",
];
const MODIFIERS: &[&str] = &[
    "span",
    "oversubscribe",
    "nooversubscribe",
    "nolocal",
    "display",
    "displayalloc",
    "displaydevel",
    "inherit",
    "noinherit",
    "hwtcpus",
    "corecpus",
    "ordered",
];

/// Parses `--map-by VALUE` for a machine whose PEs may use `ncpus` CPUs.
pub(crate) fn parse(value: &str, ncpus: usize) -> Result<MapBy, String> {
    let bad = |why: String| format!("option '--map-by' {why}");
    let mut words = value.split([':', ',']);
    let object = words.next().unwrap_or("").to_ascii_lowercase();
    if !OBJECTS.contains(&object.as_str()) {
        return Err(bad(format!(
            "needs one of {} (with :PE=n etc.), not '{value}'",
            OBJECTS.join(", ")
        )));
    }
    let mut m = MapBy {
        per_node: None,
        cpus_per_pe: 1,
        pin: matches!(object.as_str(), "core" | "hwthread"),
        note: None,
    };
    let mut unmodelled = !matches!(object.as_str(), "slot" | "node" | "core" | "hwthread");
    let mut noun = object.clone();
    if object == "ppr" {
        // ppr:N:resource
        let n = words.next().unwrap_or("");
        let n: usize = n
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| bad(format!("'{value}': ppr needs a count of PEs, as in ppr:2:node")))?;
        let resource = words.next().unwrap_or("").to_ascii_lowercase();
        match resource.as_str() {
            "node" => (m.per_node, unmodelled) = (Some(n), false),
            "core" | "hwthread" => (m.per_node, m.pin, unmodelled) = (Some(n * ncpus), true, false),
            r if OBJECTS.contains(&r) && !matches!(r, "ppr" | "slot" | "seq" | "dist") => noun = resource.clone(),
            _ => return Err(bad(format!("'{value}': ppr needs a resource, as in ppr:2:node"))),
        }
    }
    for w in words {
        let lower = w.to_ascii_lowercase();
        if let Some(n) = lower.strip_prefix("pe=") {
            m.cpus_per_pe = n
                .parse()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| bad(format!("'{value}': PE= needs a number of CPUs, not '{n}'")))?;
            m.pin = true;
        } else if !MODIFIERS.contains(&lower.as_str()) {
            return Err(bad(format!("'{value}': unknown modifier '{w}'")));
        }
    }
    if m.cpus_per_pe > ncpus {
        return Err(bad(format!(
            "'{value}' asks for {} CPUs per PE, but oshrun may use only {ncpus}",
            m.cpus_per_pe
        )));
    }
    if unmodelled {
        m.note = Some(format!(
            "oshrun: note: --map-by {value}: rshmem does not model {noun}s; PEs are placed as --bind-to says \
             (PE i on the i-th CPU when pinned)"
        ));
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(v: &str) -> MapBy {
        parse(v, 4).unwrap()
    }

    #[test]
    fn objects() {
        let plain = MapBy {
            per_node: None,
            cpus_per_pe: 1,
            pin: false,
            note: None,
        };
        assert_eq!(ok("slot"), plain);
        assert_eq!(ok("node"), plain);
        assert_eq!(
            ok("core"),
            MapBy {
                pin: true,
                ..plain.clone()
            }
        );
        assert_eq!(
            ok("HWTHREAD"),
            MapBy {
                pin: true,
                ..plain.clone()
            }
        );
        let s = ok("socket");
        assert_eq!((s.per_node, s.pin), (None, false));
        assert!(
            s.note
                .unwrap()
                .contains("--map-by socket: rshmem does not model sockets")
        );
        assert!(ok("numa:SPAN").note.is_some());
        assert!(
            parse("bogus", 4)
                .unwrap_err()
                .contains("needs one of slot, hwthread, core")
        );
        assert!(parse("", 4).unwrap_err().contains("not ''"));
    }

    #[test]
    fn ppr_and_modifiers() {
        assert_eq!(ok("ppr:3:node").per_node, Some(3));
        assert_eq!(ok("ppr:3:node").note, None);
        let c = ok("ppr:2:core");
        assert_eq!((c.per_node, c.pin), (Some(8), true));
        let s = ok("ppr:2:socket");
        assert_eq!(s.per_node, None);
        assert!(s.note.unwrap().contains("does not model sockets"), "per socket");
        assert!(parse("ppr:x:node", 4).unwrap_err().contains("ppr needs a count"));
        assert!(parse("ppr:2", 4).unwrap_err().contains("ppr needs a resource"));
        let p = ok("core:PE=2");
        assert_eq!((p.cpus_per_pe, p.pin, p.note), (2, true, None));
        assert_eq!(ok("slot:pe=4,oversubscribe").cpus_per_pe, 4);
        assert_eq!(ok("ppr:1:node:PE=2").per_node, Some(1));
        assert!(
            parse("core:PE=5", 4)
                .unwrap_err()
                .contains("asks for 5 CPUs per PE, but oshrun may use only 4")
        );
        assert!(
            parse("core:PE=0", 4)
                .unwrap_err()
                .contains("PE= needs a number of CPUs")
        );
        assert!(parse("core:FOO", 4).unwrap_err().contains("unknown modifier 'FOO'"));
    }
}
