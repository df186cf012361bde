//! Diagnoses of a hang report: what is certain from where the PEs are.
//!
//! Only a picture in which no live PE runs its own code is diagnosed
//! ([`super::table::all_still`]): then every PE stays where it is until something from
//! outside the job (a `kill -CONT`) happens, and statements such as "PE 2
//! never arrives" are facts, not guesses.

use super::Kind;
use super::table::{Doing, JobView, Life, Lookup, PeView, all_still, pes_list};

/// A collective's PE set: the group, or all PEs for the world's barrier.
fn set_of(v: &JobView, p: &PeView) -> Option<(i32, i32, u32)> {
    if p.doing() != Doing::Blocked {
        return None;
    }
    match p.kind {
        k if k == Kind::BarrierAll as u32 => Some((0, 1, v.pes.len() as u32)),
        k if k == Kind::Coll as u32 => Some(p.group),
        _ => None,
    }
}

/// Where PE `pe` is, for "..., which is ...".
fn whereabouts(v: &JobView, pe: usize, look: &dyn Lookup) -> String {
    let p = &v.pes[pe];
    match (&p.life, p.doing()) {
        (Life::Stopped(sig), _) => format!("is stopped ({sig}; kill -CONT {} resumes it)", p.pid),
        (Life::Ended(how), _) => format!("has exited ({how})"),
        (Life::Remote, _) => "is on another node".into(),
        (_, Doing::Blocked) => {
            let mut s = format!("is in {}", p.routine());
            let team = p.team();
            if !team.is_empty() {
                s += &format!(" on {team}");
            } else if p.addr != 0 {
                s += &match look.symbol(pe, p.addr) {
                    Some(sym) => format!(" on {sym}"),
                    None => format!(" on {:#x}", p.addr),
                };
            }
            s
        }
        _ => "is running".into(),
    }
}

/// Groups `items` by key, in order of first appearance.
fn group_by<K: PartialEq, T>(items: impl Iterator<Item = (K, T)>) -> Vec<(K, Vec<T>)> {
    let mut out: Vec<(K, Vec<T>)> = Vec::new();
    for (k, t) in items {
        match out.iter_mut().find(|g| g.0 == k) {
            Some(g) => g.1.push(t),
            None => out.push((k, vec![t])),
        }
    }
    out
}

/// The diagnoses of a still picture (none otherwise).
pub(crate) fn diagnose(v: &JobView, look: &dyn Lookup) -> Vec<String> {
    if !all_still(v) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let blocked = |i: usize| v.pes[i].doing() == Doing::Blocked;

    // Different collectives on the same PEs: each waits for the others.
    let mut mixed_sets = Vec::new();
    let by_set = group_by((0..v.pes.len()).filter_map(|i| set_of(v, &v.pes[i]).map(|s| (s, i))));
    for (set, members) in &by_set {
        let by_routine = group_by(members.iter().map(|&i| (v.pes[i].routine(), i)));
        if by_routine.len() > 1 {
            let parts: Vec<String> = by_routine
                .iter()
                .map(|(r, pes)| {
                    let verb = if pes.len() == 1 { "is" } else { "are" };
                    format!("{} {verb} in {r}", pes_list(pes))
                })
                .collect();
            let team = v.pes[members[0]].team();
            out.push(format!(
                "{} on {team}: collectives called in different orders",
                parts.join("; ")
            ));
            mixed_sets.push(*set);
        }
    }

    // Collectives waiting for PEs that are somewhere else.
    let waits = (0..v.pes.len()).filter(|&i| blocked(i)).filter_map(|i| {
        let p = &v.pes[i];
        let set = set_of(v, p)?;
        if mixed_sets.contains(&set) {
            return None;
        }
        let awaited: Vec<usize> = match p.kind {
            k if k == Kind::BarrierAll as u32 => v.missing(false),
            _ => p.awaited.iter().map(|&a| a as usize).collect(),
        };
        // Only PEs that are not in this very collective: a member waiting in
        // it will answer when its own turn comes.
        let elsewhere: Vec<usize> = awaited
            .into_iter()
            .filter(|&j| j < v.pes.len() && set_of(v, &v.pes[j]) != Some(set))
            .collect();
        (!elsewhere.is_empty()).then(|| ((p.routine(), p.team(), elsewhere), i))
    });
    for ((routine, team, elsewhere), waiters) in group_by(waits) {
        let verb = if waiters.len() == 1 { "waits" } else { "wait" };
        let where_: Vec<String> = elsewhere
            .iter()
            .map(|&j| format!("PE {j} {}", whereabouts(v, j, look)))
            .collect();
        out.push(format!(
            "{} in {routine} on {team} {verb} for {}: {}",
            pes_list(&waiters),
            pes_list(&elsewhere),
            where_.join("; ")
        ));
    }

    // Waits on memory that nobody can write any more.
    let mem: Vec<usize> = (0..v.pes.len())
        .filter(|&i| blocked(i) && v.pes[i].kind == Kind::Wait as u32)
        .collect();
    for i in mem {
        let p = &v.pes[i];
        let what = match look.symbol(i, p.addr) {
            Some(s) => s,
            None if p.addr != 0 => format!("{:#x}", p.addr),
            None => "its memory".into(),
        };
        let until = v.waiting_for(i, look);
        let sep = if p.count > 1 { ": " } else { " " };
        let until = if until.is_empty() {
            String::new()
        } else {
            format!("{sep}{until}")
        };
        let nobody = if v.pes.iter().any(|p| p.doing() == Doing::Remote) {
            "no PE of this node is running to write it (a PE of another node may)"
        } else {
            "no PE is running to write it"
        };
        out.push(format!(
            "PE {i} waits in {} for {what}{until}, and {nobody}",
            p.routine()
        ));
    }

    // Stopped PEs not named above.
    for (i, p) in v.pes.iter().enumerate() {
        if let Life::Stopped(sig) = &p.life
            && !out.iter().any(|d| d.contains(&format!("PE {i} is stopped")))
        {
            out.push(format!(
                "PE {i} is stopped ({sig}): every PE that needs it waits until kill -CONT {} resumes it",
                p.pid
            ));
        }
    }
    out
}
