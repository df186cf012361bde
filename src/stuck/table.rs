//! Hang reports: where every PE of a job is, in one table, with a diagnosis
//! when one is certain ([`super::diagnose`]). `oshrun` reads the slots
//! ([`read`]) without disturbing the PEs and prints the table ([`report`])
//! when its watch says the job stands still ([`super::timeout`]), on
//! `kill -QUIT`, and for `oshrun --status` (`launcher::status`); a node's
//! watcher does the same in a job across nodes (`runtime::node_watch`).

use super::threads;
use super::{Kind, SIGNED, diagnose};
use crate::job::{AWAITED_MAX, Control, PeState, Shape, TEAM_TAG_ACTIVE_SET, TEAM_TAGS};
use std::fmt::Write as _;
use std::sync::atomic::Ordering::SeqCst;

/// How a PE's process is, as the one watching it knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Life {
    Alive,
    /// Stopped by this signal (name).
    Stopped(String),
    /// Ended: how (e.g. "exited with status 0").
    Ended(String),
    /// On another node (a job across nodes): its slot is not in this file.
    Remote,
}

/// One PE's published place, as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PeView {
    pub pid: i32,
    pub life: Life,
    pub state: PeState,
    pub kind: u32,
    pub routine: String,
    pub episode: u32,
    /// Odd: caught while the PE rewrote its place.
    pub seq: u32,
    pub progress: u64,
    pub since_ns: u64,
    pub addr: u64,
    pub value: u64,
    pub cmp: u32,
    pub word: u32,
    pub count: u32,
    pub team: u32,
    pub group: (i32, i32, u32),
    pub awaited: Vec<u32>,
    pub n_awaited: u32,
    /// The world barrier episode it last arrived at, plus one.
    pub barrier_arrived: u32,
    pub finalize_arrived: u32,
}

/// Every PE at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct JobView {
    pub pes: Vec<PeView>,
    /// The places of threaded PEs' threads, by PE (only for the report: a
    /// PE is blocked or running by its own place).
    pub threads: Vec<ThreadView>,
    /// Threads of a PE in a wait with no place free: (PE, how many).
    pub unshown: Vec<(usize, u32)>,
    pub barrier_gen: u32,
    pub finalize_gen: u32,
    /// `CLOCK_MONOTONIC` when read, ns.
    pub now_ns: u64,
}

/// What a PE is doing, for the table and the judgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Doing {
    Running,
    Blocked,
    Stopped,
    Exited,
    /// On another node: not known here.
    Remote,
}

impl PeView {
    pub(crate) fn doing(&self) -> Doing {
        match self.life {
            Life::Stopped(_) => Doing::Stopped,
            Life::Ended(_) => Doing::Exited,
            Life::Remote => Doing::Remote,
            Life::Alive if self.kind != Kind::None as u32 && self.seq.is_multiple_of(2) => Doing::Blocked,
            Life::Alive => Doing::Running,
        }
    }

    /// The routine it is blocked in ("" if none).
    pub(crate) fn routine(&self) -> String {
        match self.kind {
            k if k == Kind::Finalize as u32 => "shmem_finalize".into(),
            k if k == Kind::FinalizeAtExit as u32 => "shmem_finalize (at exit)".into(),
            k if k == Kind::None as u32 => String::new(),
            _ => self.routine.clone(),
        }
    }

    fn is(&self, k: Kind) -> bool {
        self.doing() == Doing::Blocked && self.kind == k as u32
    }

    /// The team of a collective, as the table names it ("" if none).
    pub(crate) fn team(&self) -> String {
        if self.is(Kind::BarrierAll) {
            return "SHMEM_TEAM_WORLD".into();
        }
        if !self.is(Kind::Coll) {
            return String::new();
        }
        let (start, stride, size) = self.group;
        match self.team {
            t if t == TEAM_TAG_ACTIVE_SET => format!("active set {start}/{stride}/{size}"),
            t if (1..TEAM_TAG_ACTIVE_SET).contains(&t) && t != crate::job::TEAM_TAG_OTHER => {
                TEAM_TAGS[t as usize].into()
            }
            _ => format!("team {}", pe_set(start, stride, size)),
        }
    }
}

/// "PEs 0-3" for start 0 stride 1 size 4, "PEs 0,2,4" for stride 2...
fn pe_set(start: i32, stride: i32, size: u32) -> String {
    let pes: Vec<i64> = (0..size as i64).map(|i| start as i64 + i * stride as i64).collect();
    match pes.as_slice() {
        [] => "(empty)".into(),
        [one] => format!("PE {one}"),
        _ if stride == 1 => format!("PEs {}-{}", pes[0], pes[pes.len() - 1]),
        _ if pes.len() <= 6 => format!("PEs {}", join(pes.iter())),
        _ => format!("PEs {},{},...,{} (stride {stride})", pes[0], pes[1], pes[pes.len() - 1]),
    }
}

fn join<T: std::fmt::Display>(items: impl Iterator<Item = T>) -> String {
    items.map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

/// "PE 2", "PEs 0, 1, 3".
pub(crate) fn pes_list(pes: &[usize]) -> String {
    match pes {
        [one] => format!("PE {one}"),
        _ => format!(
            "PEs {}",
            pes.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// One thread's published place in a threaded PE ([`super::threads`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ThreadView {
    pub pe: usize,
    /// The place's index: "thread 1" is index 0.
    pub index: usize,
    /// The kernel thread id of the thread that claimed it.
    pub tid: u32,
    /// Its place; the rest as its PE's.
    pub view: PeView,
}

/// PE `pe`'s place in `w` (its own place, or one of its threads').
fn read_place(control: &Control, pe: usize, w: &crate::job::PlaceWords, life: Life) -> PeView {
    let slot = control.slot(pe);
    let (mut v, seq) = w.read_seq(|w| {
        let n_awaited = w.awaited_n.load(SeqCst);
        let shape = Shape::unpack(w.shape.load(SeqCst));
        PeView {
            pid: slot.info.pid.load(SeqCst),
            life,
            state: PeState::from_word(slot.info.state.load(SeqCst)),
            kind: w.kind.load(SeqCst),
            routine: crate::job::routine_text(&w.routine.each_ref().map(|a| a.load(SeqCst))),
            episode: w.episode.load(SeqCst),
            seq: 0,
            progress: w.progress.load(SeqCst),
            since_ns: w.since_ns.load(SeqCst),
            addr: w.addr.load(SeqCst),
            value: w.value.load(SeqCst),
            cmp: shape.cmp,
            word: shape.word,
            count: w.count.load(SeqCst),
            team: shape.team,
            group: (
                w.group_start.load(SeqCst),
                w.group_stride.load(SeqCst),
                w.group_size.load(SeqCst),
            ),
            awaited: w.awaited[..(n_awaited as usize).min(AWAITED_MAX)]
                .iter()
                .map(|a| a.load(SeqCst))
                .collect(),
            n_awaited,
            barrier_arrived: slot.whereabouts.arrived.load(SeqCst),
            finalize_arrived: slot.whereabouts.finalize_arrived.load(SeqCst),
        }
    });
    v.seq = seq;
    v
}

/// Reads every slot; `life(pe)` says how each process is.
pub(crate) fn read(control: &Control, life: impl Fn(usize) -> Life) -> JobView {
    let h = control.header();
    let pes: Vec<PeView> = (0..control.npes())
        .map(|pe| read_place(control, pe, &control.slot(pe).place, life(pe)))
        .collect();
    let mut threads = Vec::new();
    let mut unshown = Vec::new();
    for (pe, p) in pes.iter().enumerate().filter(|(_, p)| p.life != Life::Remote) {
        for (index, tid) in threads::claimed(control, pe) {
            let view = read_place(control, pe, control.thread_place(pe, index), p.life.clone());
            threads.push(ThreadView { pe, index, tid, view });
        }
        match threads::unshown(control, pe) {
            0 => {}
            n => unshown.push((pe, n)),
        }
    }
    JobView {
        pes,
        threads,
        unshown,
        barrier_gen: h.barrier_gen.number.load(SeqCst),
        finalize_gen: h.finalize_gen.number.load(SeqCst),
        now_ns: crate::job::monotonic_ns(),
    }
}

/// What the report may look up about a PE's memory: the name of the global
/// at an address, and the current value of a word.
pub(crate) trait Lookup {
    fn symbol(&self, pe: usize, addr: u64) -> Option<String>;
    fn word(&self, pe: usize, addr: u64, bytes: usize) -> Option<u64>;
}

/// A [`Lookup`] that knows nothing (the tests' reports).
#[cfg(test)]
pub(crate) struct NoLookup;

#[cfg(test)]
impl Lookup for NoLookup {
    fn symbol(&self, _: usize, _: u64) -> Option<String> {
        None
    }
    fn word(&self, _: usize, _: u64, _: usize) -> Option<u64> {
        None
    }
}

/// C's operator for a `SHMEM_CMP_*` value.
fn cmp_op(cmp: u32) -> &'static str {
    use crate::constants::*;
    match cmp as i64 {
        SHMEM_CMP_EQ => "==",
        SHMEM_CMP_NE => "!=",
        SHMEM_CMP_GT => ">",
        SHMEM_CMP_GE => ">=",
        SHMEM_CMP_LT => "<",
        SHMEM_CMP_LE => "<=",
        _ => "?",
    }
}

/// A word's bits as the C type would print.
fn show_value(bits: u64, word: u32) -> String {
    let bytes = word & 0xff;
    let shift = 64 - 8 * bytes.clamp(1, 8);
    if word & SIGNED != 0 {
        (((bits << shift) as i64) >> shift).to_string()
    } else {
        ((bits << shift) >> shift).to_string()
    }
}

impl JobView {
    /// PEs that have not arrived at the current world barrier episode (or
    /// finalize's, for `finalize`).
    pub(super) fn missing(&self, finalize: bool) -> Vec<usize> {
        self.pes
            .iter()
            .enumerate()
            .filter(|(_, p)| p.doing() != Doing::Remote)
            .filter(|(_, p)| {
                if finalize {
                    p.finalize_arrived != self.finalize_gen.wrapping_add(1)
                } else {
                    p.barrier_arrived != self.barrier_gen.wrapping_add(1)
                }
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The "address" column of PE `pe`'s place `p` (its own or a thread's).
    fn address(&self, pe: usize, p: &PeView, look: &dyn Lookup) -> String {
        if p.doing() != Doing::Blocked || p.addr == 0 {
            return String::new();
        }
        match look.symbol(pe, p.addr) {
            Some(s) => format!("{s} ({:#x})", p.addr),
            None => format!("{:#x}", p.addr),
        }
    }

    /// The "waiting for" column of PE `pe`.
    pub(crate) fn waiting_for(&self, pe: usize, look: &dyn Lookup) -> String {
        self.waiting_for_in(pe, &self.pes[pe], look)
    }

    /// The "waiting for" column of PE `pe`'s place `p`.
    fn waiting_for_in(&self, pe: usize, p: &PeView, look: &dyn Lookup) -> String {
        if p.doing() != Doing::Blocked {
            return String::new();
        }
        match p.kind {
            k if k == Kind::BarrierAll as u32 => self.or_other_nodes(&self.missing(false)),
            k if k == Kind::Finalize as u32 || k == Kind::FinalizeAtExit as u32 => {
                self.or_other_nodes(&self.missing(true))
            }
            k if k == Kind::Coll as u32 => {
                let mut s = others(&p.awaited.iter().map(|&a| a as usize).collect::<Vec<_>>());
                if p.n_awaited as usize > p.awaited.len() {
                    let _ = write!(s, " and {} more", p.n_awaited as usize - p.awaited.len());
                }
                s
            }
            k if k == Kind::Lock as u32 => "the lock".into(),
            _ if p.cmp == 0 => String::new(),
            _ => {
                let op = cmp_op(p.cmp);
                let r = p.routine.as_str();
                let quant = if p.count <= 1 {
                    String::new()
                } else if r.contains("_any") {
                    format!("any of {} ", p.count)
                } else if r.contains("_some") {
                    format!("some of {} ", p.count)
                } else {
                    format!("all of {} ", p.count)
                };
                let mut s = format!("{quant}{op} {}", show_value(p.value, p.word));
                if p.count <= 1
                    && let Some(now) = look.word(pe, p.addr, (p.word & 0xff) as usize)
                {
                    let _ = write!(s, " (now {})", show_value(now, p.word));
                }
                s
            }
        }
    }
}

impl JobView {
    /// A world rendezvous's missing PEs of this node, or "other nodes" when
    /// every PE here has arrived (the node's first PE then waits for them).
    fn or_other_nodes(&self, missing: &[usize]) -> String {
        if missing.is_empty() && self.pes.iter().any(|p| p.doing() == Doing::Remote) {
            "other nodes".into()
        } else {
            others(missing)
        }
    }
}

/// "PE 2" / "PEs 1, 3" / "" for none.
fn others(pes: &[usize]) -> String {
    if pes.is_empty() { String::new() } else { pes_list(pes) }
}

/// True when no live PE runs its own code: nothing can change any more
/// (unless a PE is continued).
pub(crate) fn all_still(v: &JobView) -> bool {
    v.pes.iter().all(|p| p.doing() != Doing::Running)
        && v.pes
            .iter()
            .any(|p| !matches!(p.doing(), Doing::Exited | Doing::Remote))
}

/// The table and the diagnoses, one string per line (without a prefix).
/// `why` is the headline ("no PE has made progress for 30 s").
pub(crate) fn report(v: &JobView, why: &str, look: &dyn Lookup) -> Vec<String> {
    let mut rows: Vec<[String; 7]> = vec![[
        "PE".into(),
        "state".into(),
        "routine".into(),
        "team".into(),
        "address".into(),
        "waiting for".into(),
        "blocked".into(),
    ]];
    for (i, p) in v.pes.iter().enumerate().filter(|(_, p)| p.life != Life::Remote) {
        rows.push(row(v, i, i.to_string(), p, None, look));
        for t in v
            .threads
            .iter()
            .filter(|t| t.pe == i && t.view.doing() == Doing::Blocked)
        {
            let who = format!("{i} thread {}", t.index + 1);
            rows.push(row(v, i, who, &t.view, Some(t.tid), look));
        }
    }
    let widths: Vec<usize> = (0..7)
        .map(|c| rows.iter().map(|r| r[c].len()).max().unwrap_or(0))
        .collect();
    let mut lines = vec![format!("hang report: {why}")];
    for r in &rows {
        let mut line = format!("  {:>w$}", r[0], w = widths[0]);
        for (c, cell) in r.iter().enumerate().skip(1) {
            let _ = write!(line, "  {cell:<w$}", w = widths[c]);
        }
        lines.push(line.trim_end().to_string());
    }
    for &(pe, n) in &v.unshown {
        let threads = if n == 1 { "thread" } else { "threads" };
        lines.push(format!(
            "PE {pe}: {n} more {threads} in a wait not shown (each PE shows {} threads)",
            crate::job::THREAD_SLOTS
        ));
    }
    let found = diagnose::diagnose(v, look);
    if found.is_empty() && all_still(v) {
        lines.push("diagnosis: every live PE is blocked or stopped; see the table".into());
    }
    lines.extend(found.into_iter().map(|d| format!("diagnosis: {d}")));
    lines
}

/// The table row of PE `pe`'s place `p` (its own, or that of thread `tid`),
/// named `who`.
fn row(v: &JobView, pe: usize, who: String, p: &PeView, tid: Option<u32>, look: &dyn Lookup) -> [String; 7] {
    let state = match (&p.life, p.doing()) {
        (Life::Stopped(sig), _) => format!("stopped ({sig})"),
        (Life::Ended(how), _) => format!("exited ({how})"),
        (Life::Remote, _) => "on another node".into(),
        (_, Doing::Blocked) => "blocked".into(),
        _ => match p.state {
            PeState::Absent | PeState::Arrived => "starting".into(),
            PeState::Finalized => "finalized".into(),
            PeState::Failed => "failed".into(),
            PeState::GlobalExit => "global_exit".into(),
            PeState::Running => "running".into(),
        },
    };
    let blocked = if p.doing() == Doing::Blocked && p.since_ns > 0 {
        format!("{:.1} s", v.now_ns.saturating_sub(p.since_ns) as f64 / 1e9)
    } else {
        String::new()
    };
    let routine = if p.doing() == Doing::Blocked {
        p.routine()
    } else {
        String::new()
    };
    let state = match tid {
        Some(tid) => format!("{state} (tid {tid})"),
        None => state,
    };
    [
        who,
        state,
        routine,
        p.team(),
        v.address(pe, p, look),
        v.waiting_for_in(pe, p, look),
        blocked,
    ]
}

/// A PE of another node as this node heard from it (a job across nodes:
/// `transport::mpi::status`, read by `runtime::node_watch`).
#[derive(Clone, Debug)]
pub(crate) struct Heard {
    pub pe: usize,
    /// Its host ("?" if unknown).
    pub host: String,
    /// Its own place, if it said where it is recently.
    pub place: Option<Told>,
    /// Its threads' places said recently: (place index, place).
    pub threads: Vec<(usize, Told)>,
}

/// A place told across nodes.
#[derive(Clone, Debug)]
pub(crate) struct Told {
    pub routine: String,
    /// How long it has been blocked there, now.
    pub blocked_secs: f64,
}

/// The lines a node's report ends with in a job across nodes: what it heard
/// from the other nodes' PEs, one line per host and state, then one per
/// thread of a threaded PE (as in the table), and last, the PEs nobody heard
/// from, which are the ones to look at when every PE heard from waits.
pub(crate) fn other_nodes(heard: &[Heard]) -> Vec<String> {
    // (host, what, PEs), in order of first PE.
    let mut groups: Vec<(&str, String, Vec<usize>)> = Vec::new();
    let mut silent: Vec<&Heard> = Vec::new();
    for h in heard {
        let Some(t) = &h.place else {
            silent.push(h);
            continue;
        };
        let what = format!("blocked in {} (for {:.0} s)", t.routine, t.blocked_secs);
        match groups.iter_mut().find(|g| g.0 == h.host && g.1 == what) {
            Some(g) => g.2.push(h.pe),
            None => groups.push((&h.host, what, vec![h.pe])),
        }
    }
    let mut lines: Vec<String> = groups
        .iter()
        .map(|(host, what, pes)| format!("other nodes: {} on {host}: {what}", pes_list(pes)))
        .collect();
    for h in heard {
        for (i, t) in &h.threads {
            lines.push(format!(
                "other nodes: PE {} thread {} on {}: blocked in {} (for {:.0} s)",
                h.pe,
                i + 1,
                h.host,
                t.routine,
                t.blocked_secs
            ));
        }
    }
    if !silent.is_empty() {
        let pes: Vec<usize> = silent.iter().map(|h| h.pe).collect();
        let mut hosts: Vec<&str> = silent.iter().map(|h| h.host.as_str()).collect();
        hosts.dedup();
        lines.push(format!(
            "other nodes: {} on {}: not heard from (a PE blocked for a second says where it is): \
             computing outside the library, stopped, or unreachable",
            pes_list(&pes),
            hosts.join(", ")
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_as_their_c_type() {
        assert_eq!(show_value((-3i64) as u64, 4 | SIGNED), "-3");
        assert_eq!(show_value(0xffff_ffff, 4), "4294967295");
        assert_eq!(show_value(u64::MAX, 8), "18446744073709551615");
        assert_eq!(show_value(5, 2 | SIGNED), "5");
    }

    #[test]
    fn pe_sets_are_named_compactly() {
        assert_eq!(pe_set(0, 1, 4), "PEs 0-3");
        assert_eq!(pe_set(1, 2, 3), "PEs 1,3,5");
        assert_eq!(pe_set(0, 2, 8), "PEs 0,2,...,14 (stride 2)");
        assert_eq!(pe_set(5, 1, 1), "PE 5");
    }
}
