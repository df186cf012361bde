//! Host lists as Open MPI and Hydra command lines write them (`-H a,b:2`,
//! hostfiles with `host slots=N` lines). A list naming only this machine is a
//! job for `oshrun`'s own launcher, its slot counts giving the number of PEs
//! when `-np` is absent, as with `mpirun`; a list naming another machine makes
//! the job one for the MPI launcher (see [`super::remote`]).

use std::net::IpAddr;

/// One host entry and where it was written, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Host {
    pub name: String,
    /// Slots given with the entry; `None`: a hostfile line without `slots=`,
    /// which Open MPI reads as one slot per CPU.
    pub slots: Option<usize>,
    /// "-H" or "hostfile FILE line N".
    pub origin: String,
}

/// Parses `-H`'s value: `host[:slots]` entries separated by commas. An entry
/// without a count is one slot, as in Open MPI (`-H a,a` is two). `option` is
/// the option's name, or where the list was read.
pub(crate) fn parse_list(list: &str, option: &str) -> Result<Vec<Host>, String> {
    let place = if option.starts_with('-') {
        format!("option '{option}'")
    } else {
        option.to_string()
    };
    list.split(',')
        .map(|entry| {
            // An IPv6 address holds colons of its own: "::1" is a host; with a
            // count it is written "[::1]:2".
            let (name, slots) = match entry.rsplit_once(':') {
                _ if entry.trim().parse::<IpAddr>().is_ok() => (entry, Some(1)),
                Some((n, s)) if !n.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && !s.is_empty() => (
                    n,
                    Some(parse_slots(s).map_err(|why| format!("{place}: '{entry}': {why}"))?),
                ),
                _ => (entry, Some(1)),
            };
            if name.trim().is_empty() {
                return Err(format!("{place} needs host names, not '{list}'"));
            }
            Ok(Host {
                name: name.trim().to_string(),
                slots,
                origin: option.to_string(),
            })
        })
        .collect()
}

fn parse_slots(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=super::options::MAX_NPES).contains(&n) => Ok(n),
        _ => Err(format!("a slot count is 1 to {}, not '{s}'", super::options::MAX_NPES)),
    }
}

/// Parses a hostfile: one host a line, `host`, `host slots=N` (Open MPI,
/// `max_slots=M` accepted and ignored) or `host:N` (Hydra); `#` starts a
/// comment.
pub(crate) fn parse_hostfile(text: &str, path: &str) -> Result<Vec<Host>, String> {
    let mut hosts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let origin = format!("hostfile {path} line {}", i + 1);
        let line = line.split('#').next().unwrap_or("").trim();
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else { continue };
        let mut host = match parse_list(first, &origin)?.as_slice() {
            [h] if first.contains(':') && h.name != first => h.clone(),
            _ => Host {
                name: first.to_string(),
                slots: None,
                origin: origin.clone(),
            },
        };
        for w in words {
            match w.split_once('=') {
                Some(("slots" | "count", v)) => {
                    host.slots = Some(parse_slots(v).map_err(|why| format!("{origin}: {why}"))?)
                }
                Some(("max_slots" | "max-slots", v)) if parse_slots(v).is_ok() => {}
                _ => return Err(format!("{origin}: unknown item '{w}' (expected slots=N)")),
            }
        }
        hosts.push(host);
    }
    if hosts.is_empty() {
        return Err(format!("hostfile {path} names no host"));
    }
    Ok(hosts)
}

/// Reads and parses a hostfile.
pub(crate) fn read_hostfile(path: &str) -> Result<Vec<Host>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        let why = e.raw_os_error().map_or_else(|| e.to_string(), super::spawn::reason);
        format!("cannot read hostfile {path}: {why}")
    })?;
    parse_hostfile(&text, path)
}

/// The names and addresses of this machine.
pub(crate) struct ThisMachine {
    pub hostname: String,
    addrs: Vec<IpAddr>,
}

impl ThisMachine {
    /// Asks the system: `gethostname` and the addresses of the interfaces.
    pub(crate) fn detect() -> ThisMachine {
        ThisMachine {
            hostname: hostname(),
            addrs: interface_addrs(),
        }
    }

    /// A machine with these names (for tests of what uses it).
    #[cfg(test)]
    pub(crate) fn with(hostname: &str, addrs: Vec<IpAddr>) -> ThisMachine {
        ThisMachine {
            hostname: hostname.to_string(),
            addrs,
        }
    }

    /// Whether `name` names this machine: localhost, a loopback address, the
    /// host name or its short form, or an address of one of its interfaces.
    pub(crate) fn is(&self, name: &str) -> bool {
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        if let Ok(ip) = name.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() {
            return ip.is_loopback() || self.addrs.contains(&ip);
        }
        let short = |n: &str| n.split('.').next().unwrap_or("").to_string();
        let me = self.hostname.to_ascii_lowercase();
        name == "localhost"
            || name == "localhost.localdomain"
            || (!me.is_empty() && (name == me || name == short(&me) || short(&name) == me))
    }
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the pointer and length describe buf; gethostname NUL-terminates
    // within it when the name fits (the last byte stays 0 otherwise).
    if unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len() - 1) } != 0 {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// The IPv4 and IPv6 addresses of this machine's interfaces (empty if they
/// cannot be read).
fn interface_addrs() -> Vec<IpAddr> {
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: head is a valid out-pointer; the list is freed below.
    if unsafe { libc::getifaddrs(&mut head) } != 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut p = head;
    while !p.is_null() {
        // SAFETY: p is a node of the list getifaddrs returned, not yet freed.
        let ifa = unsafe { &*p };
        if !ifa.ifa_addr.is_null() {
            // SAFETY: ifa_addr points to a sockaddr whose family says its real
            // type; only the matching type is read.
            unsafe {
                match (*ifa.ifa_addr).sa_family as i32 {
                    libc::AF_INET => {
                        let a = &*(ifa.ifa_addr as *const libc::sockaddr_in);
                        out.push(IpAddr::from(u32::from_be(a.sin_addr.s_addr).to_be_bytes()));
                    }
                    libc::AF_INET6 => {
                        let a = &*(ifa.ifa_addr as *const libc::sockaddr_in6);
                        out.push(IpAddr::from(a.sin6_addr.s6_addr));
                    }
                    _ => {}
                }
            }
        }
        p = ifa.ifa_next;
    }
    // SAFETY: frees the list getifaddrs allocated, once, after its last use.
    unsafe { libc::freeifaddrs(head) };
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(name: &str, slots: Option<usize>, origin: &str) -> Host {
        Host {
            name: name.into(),
            slots,
            origin: origin.into(),
        }
    }

    #[test]
    fn host_lists() {
        assert_eq!(
            parse_list("a,b:2,c", "-H").unwrap(),
            [h("a", Some(1), "-H"), h("b", Some(2), "-H"), h("c", Some(1), "-H")]
        );
        assert_eq!(parse_list("::1", "-H").unwrap(), [h("::1", Some(1), "-H")]);
        assert_eq!(parse_list("[::1]:4", "-H").unwrap(), [h("[::1]", Some(4), "-H")]);
        assert!(
            parse_list("a:0", "-H")
                .unwrap_err()
                .contains("slot count is 1 to 4096, not '0'")
        );
        assert!(parse_list("a,,b", "-H").unwrap_err().contains("needs host names"));
        assert!(
            parse_list("", "--host")
                .unwrap_err()
                .contains("option '--host' needs host names")
        );
    }

    #[test]
    fn hostfiles() {
        let text = "# cluster\nlocalhost slots=4 max_slots=8\n\n  node1   # one line\nnode2:3\nnode3 slots=2 # c\n";
        let got = parse_hostfile(text, "hf").unwrap();
        assert_eq!(
            got,
            [
                h("localhost", Some(4), "hostfile hf line 2"),
                h("node1", None, "hostfile hf line 4"),
                h("node2", Some(3), "hostfile hf line 5"),
                h("node3", Some(2), "hostfile hf line 6"),
            ]
        );
        assert_eq!(
            parse_hostfile("a slots=x\n", "hf").unwrap_err(),
            "hostfile hf line 1: a slot count is 1 to 4096, not 'x'"
        );
        assert_eq!(
            parse_hostfile("a cpus=2\n", "hf").unwrap_err(),
            "hostfile hf line 1: unknown item 'cpus=2' (expected slots=N)"
        );
        assert_eq!(
            parse_hostfile("# nothing\n", "hf").unwrap_err(),
            "hostfile hf names no host"
        );
        assert_eq!(
            parse_hostfile("a:0\n", "hf").unwrap_err(),
            "hostfile hf line 1: 'a:0': a slot count is 1 to 4096, not '0'"
        );
        assert!(
            read_hostfile("/nonexistent/hf")
                .unwrap_err()
                .contains("No such file or directory")
        );
    }

    #[test]
    fn this_machine() {
        let m = ThisMachine {
            hostname: "Node7.example.org".into(),
            addrs: vec!["10.1.2.3".parse().unwrap(), "fe80::1".parse().unwrap()],
        };
        for yes in [
            "localhost",
            "LOCALHOST.",
            "127.0.0.1",
            "127.0.1.1",
            "::1",
            "[::1]",
            "node7",
            "node7.example.org",
            "10.1.2.3",
            "fe80::1",
        ] {
            assert!(m.is(yes), "{yes}");
        }
        for no in [
            "node8",
            "node7x",
            "10.1.2.4",
            "example.org",
            "",
            "node7.example.org.other",
        ] {
            assert!(!m.is(no), "{no}");
        }
        let real = ThisMachine::detect();
        assert!(!real.hostname.is_empty());
        assert!(real.is(&real.hostname) && real.is("localhost"));
    }
}
