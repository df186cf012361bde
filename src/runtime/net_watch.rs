//! The network watch of a job across nodes (`SHMEM_NETWORK_TIMEOUT`): a node
//! that stays unreachable that long ends the job, with a message naming it.
//!
//! Why not a time limit on remote operations: over MPI a flush, an atomic's
//! reply or the leaders' barrier may wait, correctly, for as long as another
//! node computes without calling the library (software RMA needs the
//! target's progress), so the time an operation takes says nothing about the
//! network. Measured with the link between two nodes down for 45 s, every PE
//! waited in `shmem_barrier_all`; for 200 s, those of one node waited inside
//! `MPI_Win_flush`; and both jobs went on, data intact, once the link was
//! back (MPI's TCP connections retransmit for about 15 minutes before they
//! give up). What does answer whatever the processes do is the nodes'
//! kernels: each node's first PE (its leader) keeps an idle TCP connection
//! to every other leader ([`links`]), which the kernels probe with keepalives;
//! with `TCP_USER_TIMEOUT` a kernel drops it with an error once no answer
//! came for the timeout. The leader's thread then prints one line naming its
//! node's PEs' places and the unreachable node, ends its node's other PEs
//! (`SIGTERM`, then `SIGKILL` after [`TERM_GRACE`]) and itself (status 1).
//! Both ends of a connection time out on their own, so every node ends,
//! whichever of them the MPI launcher can still reach. A connection that
//! closes cleanly (its process ended or finalized) is only forgotten: a dead
//! PE is the launcher's to report.
//!
//! Costs nothing per operation: one thread per node asleep in `poll`, and a
//! probe per connection every twentieth of the timeout. Start-up adds one
//! allgather (192 bytes per PE: a leader's port, addresses and host name).
//!
//! Default 120 s: a 45 s outage (a switch reboot, a spanning-tree
//! reconvergence) is ridden out with room to spare, including the seconds
//! TCP's retransmission back-off adds after the link returns (measured: 12 s
//! after a 200 s outage); a network that is gone for two minutes rarely comes
//! back in time to save the run, while waiting for ever holds its nodes.

mod links;

use super::Runtime;
use super::background::Background;
use crate::error;
use crate::job::PeState;
use crate::stuck::{self, Doing, Life, lookup::proc_life};
use links::{Entry, State};
use std::net::{IpAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

static THREAD: Background = Background::new();
/// An eventfd that wakes the thread's `poll` when it must stop (-1: none).
static WAKE: AtomicI32 = AtomicI32::new(-1);

/// The variable, as messages name it.
const ENV: &str = "SHMEM_NETWORK_TIMEOUT";
/// How long the node's other PEs get to end on `SIGTERM` before `SIGKILL`.
const TERM_GRACE: Duration = Duration::from_secs(2);

/// Another node, as its leader published it.
#[derive(Clone, Debug)]
struct Node {
    leader: usize,
    host: String,
    pes: Vec<usize>,
    addrs: Vec<IpAddr>,
    port: u16,
}

/// Joins the start-up exchange (collective: every PE of a job that spans
/// nodes calls it) and, on a node's leader with a timeout set, starts the
/// watch.
pub(super) fn start(rt: &'static Runtime) -> Result<(), String> {
    let node = rt.launcher.node_pes();
    if node.len() == rt.npes {
        return Ok(());
    }
    let leader = node[0];
    let timeout = rt.config.network_timeout_secs;
    let mut listener = None;
    if rt.me == leader && timeout > 0.0 {
        match links::listen() {
            Ok(l) => listener = Some(l),
            Err(e) => error::warn(
                "shmem_init",
                format_args!("cannot listen for the network watch ({e}): {ENV} does not apply to this node"),
            ),
        }
    }
    let mine = Entry {
        leader,
        token: random(),
        port: listener.as_ref().map_or(0, |(_, p)| *p),
        addrs: if listener.is_some() {
            links::local_addrs()
        } else {
            Vec::new()
        },
        host: crate::transport::mpi::status::this_host(),
    };
    // Jobs across nodes have a launcher with an exchange (MPI's).
    let Some(all) = rt.launcher.exchange(&mine.encode()).transpose()? else {
        return Ok(());
    };
    let entries: Vec<Entry> = all
        .chunks(links::ENTRY_LEN)
        .enumerate()
        .map(|(pe, b)| Entry::decode(b).ok_or_else(|| format!("PE {pe} sent no network watch entry")))
        .collect::<Result<_, _>>()?;
    let Some((listener, _)) = listener else { return Ok(()) };
    let token = entries[0].token;
    let mine_host = entries[rt.me].host.clone();
    let nodes: Vec<Node> = entries
        .iter()
        .enumerate()
        .filter(|&(pe, e)| e.leader == pe && pe != leader && e.port != 0)
        .map(|(pe, e)| Node {
            leader: pe,
            host: e.host.clone(),
            pes: (0..rt.npes).filter(|&p| entries[p].leader == pe).collect(),
            // A leader on this machine (virtual nodes, `RSHMEM_NODE_SIZE`)
            // is reached through loopback: nothing leaves the machine.
            addrs: if e.host == mine_host {
                e.addrs.iter().copied().filter(IpAddr::is_loopback).collect()
            } else {
                e.addrs.clone()
            },
            port: e.port,
        })
        .collect();
    // SAFETY: eventfd has no preconditions; the descriptor lives for the process.
    let wake = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
    if wake < 0 {
        return Err(format!(
            "cannot create the network watch's eventfd: {}",
            std::io::Error::last_os_error()
        ));
    }
    WAKE.store(wake, Ordering::Release);
    let watch = Watch {
        rt,
        here: node.to_vec(),
        here_host: mine.host,
        nodes,
        token,
        timeout: Duration::from_secs_f64(timeout),
    };
    THREAD.start("rshmem-net", move |stop| watch.run(listener, wake, stop))
}

/// Stops the watch, if it runs (after this PE's last MPI call: a finalize
/// that never returns is bounded too).
pub(super) fn stop() {
    let wake = WAKE.load(Ordering::Acquire);
    if wake >= 0 {
        // SAFETY: `wake` is the eventfd made at start, never closed.
        unsafe { libc::eventfd_write(wake, 1) };
    }
    THREAD.stop()
}

struct Watch {
    rt: &'static Runtime,
    /// This node's PEs; the first is this PE, its leader.
    here: Vec<usize>,
    here_host: String,
    nodes: Vec<Node>,
    token: u64,
    timeout: Duration,
}

impl Watch {
    fn me(&self) -> usize {
        self.here[0]
    }

    fn run(self, listener: TcpListener, wake: i32, stop: &'static AtomicBool) {
        // Connections go from the lower leader to the higher; a thread of its
        // own makes this leader's, so that accepting the others' never waits.
        let (tx, rx) = mpsc::channel::<(usize, TcpStream, IpAddr)>();
        let (me, token) = (self.me(), self.token);
        let targets: Vec<Node> = self.nodes.iter().filter(|n| n.leader > me).cloned().collect();
        let _ = std::thread::Builder::new()
            .name("rshmem-net-connect".into())
            .spawn(move || {
                for n in targets {
                    match links::connect(token, me, n.leader, &n.addrs, n.port) {
                        Ok((s, a)) => {
                            if tx.send((n.leader, s, a)).is_err() {
                                return;
                            }
                        }
                        Err(u) => unwatched(&n, &u, stop),
                    }
                }
            });
        if listener.set_nonblocking(true).is_err() {
            return;
        }
        let mut conns: Vec<(usize, TcpStream, IpAddr)> = Vec::new();
        while !stop.load(Ordering::Acquire) {
            for c in rx.try_iter() {
                self.add(&mut conns, c);
            }
            let mut fds: Vec<libc::pollfd> = [wake, listener.as_raw_fd()]
                .into_iter()
                .chain(conns.iter().map(|(_, s, _)| s.as_raw_fd()))
                .map(|fd| libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                })
                .collect();
            // SAFETY: `fds` holds fds.len() initialised pollfds of open descriptors.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 500) };
            if n <= 0 {
                continue;
            }
            // The connections polled, before any accepted below joins them.
            let mut i = fds.len() - 2;
            while i > 0 {
                i -= 1;
                if fds[2 + i].revents == 0 {
                    continue;
                }
                match links::state(&conns[i].1) {
                    State::Alive => {}
                    State::Closed => {
                        conns.swap_remove(i);
                    }
                    State::Lost(e) => {
                        let (leader, _, addr) = &conns[i];
                        self.lost(*leader, *addr, &e);
                    }
                }
            }
            if fds[1].revents != 0 {
                while let Ok((s, peer)) = listener.accept() {
                    let _ = s.set_nonblocking(false);
                    if let Ok(from) = links::greet(&s, self.token, self.me()) {
                        self.add(&mut conns, (from, s, peer.ip().to_canonical()));
                    }
                }
            }
        }
    }

    /// Watches a verified connection from now on (replacing an older one to
    /// the same leader).
    fn add(&self, conns: &mut Vec<(usize, TcpStream, IpAddr)>, c: (usize, TcpStream, IpAddr)) {
        if !self.nodes.iter().any(|n| n.leader == c.0) {
            return;
        }
        if let Err(e) = links::watch_with_keepalive(&c.1, self.timeout) {
            error::warn(
                "shmem_init",
                format_args!("cannot set up the network watch of the node of PE {} ({e})", c.0),
            );
            return;
        }
        conns.retain(|(l, _, _)| *l != c.0);
        conns.push(c);
    }

    /// The node of `leader` did not answer for the timeout: reports it and
    /// ends this node's PEs.
    fn lost(&self, leader: usize, addr: IpAddr, e: &std::io::Error) -> ! {
        let rt = self.rt;
        let node = self.nodes.iter().find(|n| n.leader == leader).expect("a watched node");
        let view = stuck::read(rt.control(), |pe| match self.here.contains(&pe) {
            true => proc_life(rt.control().slot(pe).info.pid.load(Ordering::Acquire)),
            false => Life::Remote,
        });
        let places: Vec<(usize, String)> = self
            .here
            .iter()
            .map(|&pe| {
                let v = &view.pes[pe];
                (
                    pe,
                    if v.doing() == Doing::Blocked {
                        v.routine()
                    } else {
                        String::new()
                    },
                )
            })
            .collect();
        let line = report(&Lost {
            npes: rt.npes,
            places: &places,
            here_host: &self.here_host,
            node,
            timeout: self.timeout,
            why: &format!("{addr}: {e}"),
        });
        // One write, so that the PEs' lines, merged by the launcher, stay whole.
        let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("{line}\n").as_bytes());
        self.end_node()
    }

    /// Ends this node's other PEs, then this one.
    fn end_node(&self) -> ! {
        let rt = self.rt;
        let pids: Vec<i32> = self.here[1..]
            .iter()
            .map(|&pe| rt.control().slot(pe).info.pid.load(Ordering::Acquire))
            .filter(|&pid| pid > 0)
            .collect();
        let gone = |pid: i32| matches!(proc_life(pid), Life::Ended(_));
        for &pid in &pids {
            // SAFETY: kill has no memory preconditions; the pid is a live PE
            // of this node (its slot's, published at start-up).
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let until = Instant::now() + TERM_GRACE;
        while Instant::now() < until && !pids.iter().all(|&p| gone(p)) {
            std::thread::sleep(Duration::from_millis(20));
        }
        for &pid in pids.iter().filter(|&&p| !gone(p)) {
            // SAFETY: as above.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        rt.set_state(PeState::Failed);
        // SAFETY: fflush(NULL) flushes every C stream (what the program
        // printed); _exit ends the process without the exit hooks, which
        // would wait for the other nodes.
        unsafe {
            libc::fflush(std::ptr::null_mut());
            libc::_exit(1)
        }
    }
}

/// A node whose watch could not be set up: said when it matters. A refusal
/// most likely means its leader stopped watching already (a short job ending).
fn unwatched(n: &Node, u: &links::Unreached, stop: &AtomicBool) {
    if stop.load(Ordering::Acquire) {
        return;
    }
    let text = format_args!(
        "cannot reach node {} ({}) for the network watch ({}): {ENV} does not apply to it",
        n.host,
        stuck::pes_list(&n.pes),
        u.why
    );
    if u.refused {
        error::debug("shmem_init", text);
    } else {
        error::warn("shmem_init", text);
    }
}

/// What [`report`] says.
struct Lost<'a> {
    npes: usize,
    /// This node's PEs and the routine each is blocked in ("" if none).
    places: &'a [(usize, String)],
    here_host: &'a str,
    node: &'a Node,
    timeout: Duration,
    why: &'a str,
}

/// The line: in the usual form, for this node's first PE blocked in a
/// routine (else its leader), naming the node that did not answer.
fn report(l: &Lost<'_>) -> String {
    let (pe, routine) = l
        .places
        .iter()
        .find(|(_, r)| !r.is_empty())
        .map_or((l.places[0].0, "shmem (network watch)"), |(pe, r)| (*pe, r.as_str()));
    let others: Vec<String> = l
        .places
        .iter()
        .filter(|(p, _)| *p != pe)
        .map(|(p, r)| match r.as_str() {
            "" => format!("PE {p} not in a wait of the library"),
            r => format!("PE {p} in {r}"),
        })
        .collect();
    let others = match others.is_empty() {
        true => String::new(),
        false => format!(" ({})", others.join(", ")),
    };
    let here: Vec<usize> = l.places.iter().map(|(p, _)| *p).collect();
    let secs = l.timeout.as_secs_f64();
    format!(
        "rshmem: {routine} (PE {pe} of {}): node {} ({}) has not answered for {secs} s ({ENV}={secs}): the network \
         between {} and {} is down, or {} is ({}); ending this node's {}{others}",
        l.npes,
        l.node.host,
        stuck::pes_list(&l.node.pes),
        l.here_host,
        l.node.host,
        l.node.host,
        l.why,
        stuck::pes_list(&here),
    )
}

fn random() -> u64 {
    let mut b = [0u8; 8];
    // SAFETY: getrandom writes at most b.len() bytes into b.
    let n = unsafe { libc::getrandom(b.as_mut_ptr().cast(), b.len(), 0) };
    if n != b.len() as isize {
        // Distinct enough without the kernel's randomness: the token only
        // tells this job's leaders from strangers on the same port.
        let t = crate::job::monotonic_ns();
        // SAFETY: getpid has no preconditions.
        return t ^ (u64::from(unsafe { libc::getpid() } as u32) << 32);
    }
    u64::from_le_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodeb() -> Node {
        Node {
            leader: 2,
            host: "nodeb".into(),
            pes: vec![2, 3],
            addrs: vec![],
            port: 1,
        }
    }

    #[test]
    fn the_report_names_the_routine_the_pe_and_the_node() {
        let places = [(0, String::new()), (1, "shmem_barrier_all".to_string())];
        let node = nodeb();
        let line = report(&Lost {
            npes: 4,
            places: &places,
            here_host: "nodea",
            node: &node,
            timeout: Duration::from_secs(10),
            why: "10.77.0.2: Connection timed out (os error 110)",
        });
        assert_eq!(
            line,
            "rshmem: shmem_barrier_all (PE 1 of 4): node nodeb (PEs 2, 3) has not answered for 10 s \
             (SHMEM_NETWORK_TIMEOUT=10): the network between nodea and nodeb is down, or nodeb is \
             (10.77.0.2: Connection timed out (os error 110)); ending this node's PEs 0, 1 (PE 0 not in a wait \
             of the library)"
        );
        let alone = [(0, String::new())];
        let line = report(&Lost {
            places: &alone,
            ..Lost {
                npes: 2,
                places: &places,
                here_host: "nodea",
                node: &node,
                timeout: Duration::from_secs_f64(2.5),
                why: "x",
            }
        });
        assert!(
            line.starts_with("rshmem: shmem (network watch) (PE 0 of 2): node nodeb (PEs 2, 3) has not answered for 2.5 s (SHMEM_NETWORK_TIMEOUT=2.5)"),
            "{line}"
        );
        assert!(line.ends_with("ending this node's PE 0"), "{line}");
    }
}
