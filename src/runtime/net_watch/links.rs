//! The sockets of the network watch: what a node leader publishes at
//! start-up ([`Entry`]), the listening socket, the verified connection from
//! one leader to another, and the kernel's keepalive settings that bound how
//! long a silent connection lives ([`watch_with_keepalive`]).
//!
//! A connection carries nothing after its greeting: the leaders' kernels keep
//! it alive with TCP keepalive probes, which a kernel answers whatever its
//! processes do (computing, stopped, blocked in MPI). With `TCP_USER_TIMEOUT`
//! set, the kernel drops the connection with an error once nothing came back
//! for that long; an ended process closes it cleanly instead (end of file).

use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::time::Duration;

/// Bytes each PE contributes to the start-up allgather.
pub(super) const ENTRY_LEN: usize = 192;
const MAGIC: &[u8; 4] = b"RNW1";
/// Addresses a leader publishes (the first ones its interfaces list).
const MAX_ADDRS: usize = 6;
const ADDRS_AT: usize = 20;
const ADDR_LEN: usize = 17;
const HOST_AT: usize = 128;
/// How long a connection attempt or a greeting may take.
const SETUP_TIMEOUT: Duration = Duration::from_secs(3);
/// The connecting leader's greeting: magic, the job's token, its PE, the PE
/// it means to reach.
const HELLO: &[u8; 8] = b"RSHMNW01";
const HELLO_LEN: usize = 24;
const REPLY: &[u8; 8] = b"RSHMNWOK";

/// What one PE publishes: its node's leader, and, for a leader that watches,
/// where it listens. `port` 0: not listening (not a leader, or the watch is off).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub leader: usize,
    /// A random number of this PE's; the job uses PE 0's to recognise its own.
    pub token: u64,
    pub port: u16,
    pub addrs: Vec<IpAddr>,
    pub host: String,
}

impl Entry {
    pub(super) fn encode(&self) -> [u8; ENTRY_LEN] {
        let mut b = [0u8; ENTRY_LEN];
        b[..4].copy_from_slice(MAGIC);
        b[4..8].copy_from_slice(&(self.leader as u32).to_le_bytes());
        b[8..16].copy_from_slice(&self.token.to_le_bytes());
        b[16..18].copy_from_slice(&self.port.to_le_bytes());
        let addrs = &self.addrs[..self.addrs.len().min(MAX_ADDRS)];
        b[18] = addrs.len() as u8;
        for (i, a) in addrs.iter().enumerate() {
            let at = ADDRS_AT + i * ADDR_LEN;
            let (family, bytes) = match a {
                IpAddr::V4(v4) => (4, v4.to_ipv6_mapped().octets()),
                IpAddr::V6(v6) => (6, v6.octets()),
            };
            b[at] = family;
            b[at + 1..at + ADDR_LEN].copy_from_slice(&bytes);
        }
        let host = self.host.as_bytes();
        let n = host.len().min(ENTRY_LEN - HOST_AT - 1);
        b[HOST_AT..HOST_AT + n].copy_from_slice(&host[..n]);
        b
    }

    pub(super) fn decode(b: &[u8]) -> Option<Entry> {
        if b.len() != ENTRY_LEN || &b[..4] != MAGIC {
            return None;
        }
        let word = |r: std::ops::Range<usize>| b[r].iter().rev().fold(0u64, |w, &x| w << 8 | u64::from(x));
        let n = usize::from(b[18]).min(MAX_ADDRS);
        let addrs = (0..n)
            .filter_map(|i| {
                let at = ADDRS_AT + i * ADDR_LEN;
                let octets: [u8; 16] = b[at + 1..at + ADDR_LEN].try_into().ok()?;
                let v6 = Ipv6Addr::from(octets);
                match b[at] {
                    4 => v6.to_ipv4_mapped().map(IpAddr::V4),
                    6 => Some(IpAddr::V6(v6)),
                    _ => None,
                }
            })
            .collect();
        let host = &b[HOST_AT..];
        let end = host.iter().position(|&c| c == 0).unwrap_or(host.len());
        Some(Entry {
            leader: word(4..8) as usize,
            token: word(8..16),
            port: word(16..18) as u16,
            addrs,
            host: String::from_utf8_lossy(&host[..end]).into_owned(),
        })
    }
}

/// This machine's addresses to be reached at, best first: up interfaces'
/// addresses other than loopback (link-local IPv6 ones need a scope, and are
/// left out), then loopback (PEs of one machine cut into virtual nodes).
pub(super) fn local_addrs() -> Vec<IpAddr> {
    let mut found: Vec<IpAddr> = Vec::new();
    let mut ifs: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs writes a list it allocated into `ifs` (freed below).
    if unsafe { libc::getifaddrs(&mut ifs) } == 0 {
        let mut at = ifs;
        while !at.is_null() {
            // SAFETY: `at` is a node of the list getifaddrs returned.
            let i = unsafe { &*at };
            at = i.ifa_next;
            if i.ifa_addr.is_null() || i.ifa_flags & libc::IFF_UP as u32 == 0 {
                continue;
            }
            // SAFETY: ifa_addr points to a sockaddr of the family it names.
            let addr = unsafe {
                match i32::from((*i.ifa_addr).sa_family) {
                    libc::AF_INET => {
                        let sin = &*(i.ifa_addr as *const libc::sockaddr_in);
                        IpAddr::V4(Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)))
                    }
                    libc::AF_INET6 => {
                        let sin6 = &*(i.ifa_addr as *const libc::sockaddr_in6);
                        IpAddr::V6(Ipv6Addr::from(sin6.sin6_addr.s6_addr))
                    }
                    _ => continue,
                }
            };
            let link_local = matches!(addr, IpAddr::V6(v6) if v6.segments()[0] & 0xffc0 == 0xfe80);
            if !link_local && !found.contains(&addr) {
                found.push(addr);
            }
        }
        // SAFETY: the list getifaddrs allocated, freed once.
        unsafe { libc::freeifaddrs(ifs) };
    }
    found.sort_by_key(|a| a.is_loopback());
    if !found.iter().any(IpAddr::is_loopback) {
        found.push(IpAddr::V4(Ipv4Addr::LOCALHOST));
    }
    found.truncate(MAX_ADDRS);
    found
}

/// A listening socket on every address (IPv6 and IPv4 when the machine has
/// IPv6, else IPv4), on a port the kernel picks.
pub(super) fn listen() -> io::Result<(TcpListener, u16)> {
    let l = TcpListener::bind("[::]:0").or_else(|_| TcpListener::bind("0.0.0.0:0"))?;
    let port = l.local_addr()?.port();
    Ok((l, port))
}

fn hello(token: u64, from: usize, to: usize) -> [u8; HELLO_LEN] {
    let mut b = [0u8; HELLO_LEN];
    b[..8].copy_from_slice(HELLO);
    b[8..16].copy_from_slice(&token.to_le_bytes());
    b[16..20].copy_from_slice(&(from as u32).to_le_bytes());
    b[20..24].copy_from_slice(&(to as u32).to_le_bytes());
    b
}

/// How a connection to another leader could not be made.
#[derive(Debug)]
pub(super) struct Unreached {
    /// Every address refused, or the peer closed during the greeting: it has
    /// most likely stopped watching already (a short job's end).
    pub refused: bool,
    pub why: String,
}

/// Connects leader `me` to leader `to` at the first of `addrs` (port `port`)
/// where that leader of this job answers the greeting. The address it
/// reached it at comes back too.
pub(super) fn connect(
    token: u64,
    me: usize,
    to: usize,
    addrs: &[IpAddr],
    port: u16,
) -> Result<(TcpStream, IpAddr), Unreached> {
    let mut refused = true;
    let mut why = Vec::new();
    for &a in addrs {
        let attempt = || -> io::Result<TcpStream> {
            let s = TcpStream::connect_timeout(&SocketAddr::new(a, port), SETUP_TIMEOUT)?;
            s.set_read_timeout(Some(SETUP_TIMEOUT))?;
            s.set_write_timeout(Some(SETUP_TIMEOUT))?;
            (&s).write_all(&hello(token, me, to))?;
            let mut reply = [0u8; REPLY.len()];
            (&s).read_exact(&mut reply)?;
            if &reply != REPLY {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "not this job's leader"));
            }
            Ok(s)
        };
        match attempt() {
            Ok(s) => return Ok((s, a)),
            Err(e) => {
                refused &= matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionReset | io::ErrorKind::UnexpectedEof
                );
                why.push(format!("{a}: {e}"));
            }
        }
    }
    Err(Unreached {
        refused,
        why: why.join("; "),
    })
}

/// Reads a connecting leader's greeting on `s` and answers it if it is one of
/// this job's leaders (`token`) that means to reach `me`; returns its PE.
pub(super) fn greet(s: &TcpStream, token: u64, me: usize) -> io::Result<usize> {
    s.set_read_timeout(Some(SETUP_TIMEOUT))?;
    s.set_write_timeout(Some(SETUP_TIMEOUT))?;
    let mut b = [0u8; HELLO_LEN];
    (&*s).read_exact(&mut b)?;
    let from = u32::from_le_bytes(b[16..20].try_into().expect("4 bytes")) as usize;
    let to = u32::from_le_bytes(b[20..24].try_into().expect("4 bytes")) as usize;
    if &b[..8] != HELLO || b[8..16] != token.to_le_bytes() || to != me {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "not a leader of this job"));
    }
    (&*s).write_all(REPLY)?;
    Ok(from)
}

/// Seconds between two keepalive probes for `timeout`: a twentieth of it,
/// at least 1 s (the kernel's unit), at most a minute. The last answer comes
/// at most one interval before the network fails, and the kernel checks once
/// per interval, so the end comes within one interval of the timeout.
pub(super) fn probe_interval(timeout: Duration) -> u32 {
    (timeout.as_secs_f64() / 20.0).round().clamp(1.0, 60.0) as u32
}

/// Makes `s` non-blocking and asks the kernel to probe it every
/// [`probe_interval`] while it is idle, and to drop it with an error once no
/// answer came for `timeout` (`TCP_USER_TIMEOUT`, which with keepalive on
/// decides instead of the probe count).
pub(super) fn watch_with_keepalive(s: &TcpStream, timeout: Duration) -> io::Result<()> {
    s.set_nonblocking(true)?;
    s.set_read_timeout(None)?;
    let k = probe_interval(timeout) as libc::c_int;
    let ms = timeout.as_millis().min(u32::MAX as u128) as libc::c_int;
    // Probes as a fallback for kernels without TCP_USER_TIMEOUT (at most 127).
    let count = (timeout.as_secs() as libc::c_int / k + 1).min(127);
    let fd = s.as_raw_fd();
    let set = |level: libc::c_int, name: libc::c_int, v: libc::c_int| -> io::Result<()> {
        // SAFETY: `fd` is an open socket; the option value is an int, as
        // every option set here takes.
        let rc = unsafe {
            libc::setsockopt(
                fd,
                level,
                name,
                &v as *const libc::c_int as *const libc::c_void,
                size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    };
    set(libc::SOL_SOCKET, libc::SO_KEEPALIVE, 1)?;
    set(libc::IPPROTO_TCP, libc::TCP_KEEPIDLE, k)?;
    set(libc::IPPROTO_TCP, libc::TCP_KEEPINTVL, k)?;
    set(libc::IPPROTO_TCP, libc::TCP_KEEPCNT, count)?;
    set(libc::IPPROTO_TCP, libc::TCP_USER_TIMEOUT, ms)
}

/// What a connection's readiness means.
#[derive(Debug)]
pub(super) enum State {
    /// Nothing to say (a spurious wake-up, or bytes nobody sends).
    Alive,
    /// Closed by the other end: its process ended (or stopped watching).
    Closed,
    /// Dropped by the kernel: nothing came back in time.
    Lost(io::Error),
}

/// Reads what `s`'s readiness means, without blocking.
pub(super) fn state(s: &TcpStream) -> State {
    let mut b = [0u8; 64];
    match (&*s).read(&mut b) {
        Ok(0) => State::Closed,
        Ok(_) => State::Alive,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::Interrupted => State::Alive,
        Err(e) => State::Lost(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let e = Entry {
            leader: 70000,
            token: 0x0123_4567_89ab_cdef,
            port: 40123,
            addrs: vec![
                "10.77.0.2".parse().unwrap(),
                "2001:db8::1".parse().unwrap(),
                "127.0.0.1".parse().unwrap(),
            ],
            host: "nodeb".into(),
        };
        assert_eq!(Entry::decode(&e.encode()), Some(e));
        assert_eq!(Entry::decode(&[0u8; ENTRY_LEN]), None);
        let long = Entry {
            host: "h".repeat(100),
            addrs: vec!["10.0.0.1".parse().unwrap(); 9],
            ..Entry::decode(&[b"RNW1".as_slice(), &[0u8; ENTRY_LEN - 4]].concat()).unwrap()
        };
        let back = Entry::decode(&long.encode()).unwrap();
        assert_eq!((back.host.len(), back.addrs.len()), (63, MAX_ADDRS));
    }

    #[test]
    fn probes_go_every_twentieth_of_the_timeout() {
        let s = |secs: f64| probe_interval(Duration::from_secs_f64(secs));
        assert_eq!((s(1.0), s(10.0), s(30.0), s(120.0), s(86400.0)), (1, 1, 2, 6, 60));
    }

    #[test]
    fn a_greeting_connects_only_this_jobs_leader() {
        let (l, port) = listen().unwrap();
        let here = [IpAddr::V4(Ipv4Addr::LOCALHOST)];
        let serve = std::thread::spawn(move || {
            let mut met = Vec::new();
            for _ in 0..3 {
                let (s, _) = l.accept().unwrap();
                met.push(greet(&s, 7, 1).ok());
            }
            met
        });
        assert!(connect(7, 0, 1, &here, port).is_ok());
        let wrong_job = connect(8, 0, 1, &here, port).unwrap_err();
        let wrong_pe = connect(7, 0, 2, &here, port).unwrap_err();
        assert!(!wrong_job.why.is_empty() && !wrong_pe.why.is_empty());
        assert_eq!(serve.join().unwrap(), [Some(0), None, None]);
        // Nobody listens any more.
        assert!(connect(7, 0, 1, &here, port).unwrap_err().refused);
    }

    #[test]
    fn a_closed_connection_reads_as_closed() {
        let (l, port) = listen().unwrap();
        let client = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let (server, _) = l.accept().unwrap();
        watch_with_keepalive(&server, Duration::from_secs(10)).unwrap();
        assert!(matches!(state(&server), State::Alive));
        drop(client);
        std::thread::sleep(Duration::from_millis(50));
        assert!(matches!(state(&server), State::Closed));
    }
}
