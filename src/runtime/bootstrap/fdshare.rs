//! Hands a node's job file from the node's first PE to its other PEs.
//!
//! Under an MPI launcher no `oshrun` passes the job file down, so the node's
//! first PE creates it and offers it on an abstract unix socket (no file to
//! clean up; it vanishes with the socket) named
//! `rshmem-<uid>-<pid>-<random 64-bit hex>`. The name travels to the others
//! by MPI (a node broadcast); each connects and receives the descriptor by
//! `SCM_RIGHTS`. Anyone on the node can list abstract sockets, so both sides
//! check that the other end runs as this user (`SO_PEERCRED`): a stranger
//! neither gets the file nor hands out one of its own. Abstract names are
//! per network namespace, as a node's PEs are.

use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

/// Length of a name as broadcast: NUL-padded.
pub(crate) const NAME_LEN: usize = 64;

/// A listening socket that hands out one descriptor.
pub(crate) struct Offer {
    sock: OwnedFd,
    name: [u8; NAME_LEN],
}

fn os_error(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// The bytes of a NUL-padded name.
fn trimmed(name: &[u8; NAME_LEN]) -> &[u8] {
    let end = name.iter().position(|&b| b == 0).unwrap_or(NAME_LEN);
    &name[..end]
}

/// The abstract address of `name` (a leading NUL, then the name unpadded).
fn address(name: &[u8]) -> (libc::sockaddr_un, libc::socklen_t) {
    // SAFETY: an all-zero sockaddr_un is a valid value.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    // Names are at most NAME_LEN bytes, well within sun_path's 108.
    for (dst, &b) in addr.sun_path[1..].iter_mut().zip(name) {
        *dst = b as libc::c_char;
    }
    let len = std::mem::offset_of!(libc::sockaddr_un, sun_path) + 1 + name.len();
    (addr, len as libc::socklen_t)
}

fn unix_socket() -> Result<OwnedFd, String> {
    // SAFETY: socket has no memory-safety preconditions.
    let fd = unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(os_error("cannot create a unix socket"));
    }
    // SAFETY: fd was just returned by socket and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The user id of the process at the other end of a connected socket.
fn peer_uid(sock: RawFd) -> Result<libc::uid_t, String> {
    // SAFETY: an all-zero ucred is a valid value to be overwritten.
    let mut cred: libc::ucred = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: cred and len are valid out-pointers of the sizes given.
    let rc = unsafe {
        libc::getsockopt(
            sock,
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&raw mut cred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(os_error("cannot read the credentials of the socket's other end"));
    }
    Ok(cred.uid)
}

fn my_uid() -> libc::uid_t {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// A socket timeout of `d` (at least 1 ms: a zero timeval means forever).
fn set_timeouts(sock: RawFd, d: Duration) {
    let d = d.max(Duration::from_millis(1));
    let tv = libc::timeval {
        tv_sec: d.as_secs() as libc::time_t,
        tv_usec: libc::suseconds_t::from(d.subsec_micros() as i32),
    };
    for opt in [libc::SO_RCVTIMEO, libc::SO_SNDTIMEO] {
        // SAFETY: tv is a valid timeval of the size given. A failure leaves
        // the socket blocking, which the deadlines of the callers bound
        // no worse than the protocol already does.
        unsafe {
            libc::setsockopt(
                sock,
                libc::SOL_SOCKET,
                opt,
                (&raw const tv).cast(),
                std::mem::size_of::<libc::timeval>() as libc::socklen_t,
            )
        };
    }
}

fn random64() -> u64 {
    let mut r = [0u8; 8];
    // SAFETY: r is valid for 8 bytes of writes.
    let n = unsafe { libc::getrandom(r.as_mut_ptr().cast(), r.len(), 0) };
    if n == 8 {
        return u64::from_ne_bytes(r);
    }
    // No getrandom: the clock still makes a name nobody predicts exactly.
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (t.as_nanos() as u64).rotate_left(17) ^ u64::from(std::process::id())
}

impl Offer {
    /// A socket bound to a fresh name and listening.
    pub(super) fn open() -> Result<Offer, String> {
        let text = format!("rshmem-{}-{}-{:016x}", my_uid(), std::process::id(), random64());
        let mut name = [0u8; NAME_LEN];
        name[..text.len()].copy_from_slice(text.as_bytes());
        let sock = unix_socket()?;
        let (addr, len) = address(text.as_bytes());
        // SAFETY: addr is a valid sockaddr_un of at least len bytes.
        if unsafe { libc::bind(sock.as_raw_fd(), (&raw const addr).cast(), len) } != 0 {
            return Err(os_error(&format!("cannot bind the unix socket @{text}")));
        }
        // Every PE of the node may connect at once; the kernel caps the
        // backlog at net.core.somaxconn, and a PE beyond it waits in connect.
        // SAFETY: listen has no memory-safety preconditions.
        if unsafe { libc::listen(sock.as_raw_fd(), 4096) } != 0 {
            return Err(os_error(&format!("cannot listen on the unix socket @{text}")));
        }
        Ok(Offer { sock, name })
    }

    /// The name to broadcast (NUL-padded).
    pub(super) fn name(&self) -> [u8; NAME_LEN] {
        self.name
    }

    /// Sends `fd` to `peers` connections of this user, within `timeout`.
    /// Connections of other users are closed and not counted.
    pub(super) fn hand_out(&self, fd: BorrowedFd, peers: usize, timeout: Duration) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        let mut served = 0;
        while served < peers {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!(
                    "only {served} of this node's {peers} other PEs took the job file within {} s",
                    timeout.as_secs_f64()
                ));
            }
            let mut pfd = libc::pollfd {
                fd: self.sock.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
            // SAFETY: pfd is one valid pollfd.
            let ready = unsafe { libc::poll(&mut pfd, 1, ms) };
            if ready < 0 && errno() != libc::EINTR {
                return Err(os_error("poll on the job file's socket"));
            }
            if ready <= 0 {
                continue;
            }
            // SAFETY: no address is asked for (null pointers are allowed).
            let conn = unsafe {
                libc::accept4(
                    self.sock.as_raw_fd(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    libc::SOCK_CLOEXEC,
                )
            };
            if conn < 0 {
                match errno() {
                    libc::EINTR | libc::EAGAIN | libc::ECONNABORTED => continue,
                    _ => return Err(os_error("accept on the job file's socket")),
                }
            }
            // SAFETY: conn was just returned by accept4 and is owned by nobody else.
            let conn = unsafe { OwnedFd::from_raw_fd(conn) };
            if peer_uid(conn.as_raw_fd())? != my_uid() {
                continue;
            }
            set_timeouts(conn.as_raw_fd(), left);
            send_fd(conn.as_raw_fd(), fd.as_raw_fd())?;
            served += 1;
        }
        Ok(())
    }
}

/// Sends one byte with `fd` attached.
fn send_fd(sock: RawFd, fd: RawFd) -> Result<(), String> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // u64s: aligned for cmsghdr, and room for CMSG_SPACE(one int) (24 bytes).
    let mut control = [0u64; 4];
    // SAFETY: an all-zero msghdr is a valid value.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    // SAFETY: CMSG_SPACE only computes a size.
    msg.msg_controllen = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as _;
    // SAFETY: msg_control points to msg_controllen (<= 32) bytes, enough for
    // one header, so CMSG_FIRSTHDR is non-null and its data holds one int.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fd);
    }
    loop {
        // SAFETY: msg and everything it points to are live locals.
        let n = unsafe { libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL) };
        if n == 1 {
            return Ok(());
        }
        if n < 0 && errno() == libc::EINTR {
            continue;
        }
        return Err(os_error("cannot send the job file to a PE of this node"));
    }
}

/// Receives the descriptor offered under `name`, retrying the connection
/// until `timeout` (the offer may not be listening yet).
pub(crate) fn take(name: &[u8; NAME_LEN], timeout: Duration) -> Result<OwnedFd, String> {
    let name = trimmed(name);
    let shown = String::from_utf8_lossy(name).into_owned();
    if name.is_empty() {
        return Err("the node's first PE sent no name for the job file's socket".into());
    }
    let deadline = Instant::now() + timeout;
    let too_late = || {
        format!(
            "cannot reach the node's first PE at @{shown} within {} s to take the job file",
            timeout.as_secs_f64()
        )
    };
    let (addr, len) = address(name);
    let sock = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(too_late());
        }
        let sock = unix_socket()?;
        // Bounds connect when the backlog is full, and the receive below.
        set_timeouts(sock.as_raw_fd(), left);
        // SAFETY: addr is a valid sockaddr_un of at least len bytes.
        if unsafe { libc::connect(sock.as_raw_fd(), (&raw const addr).cast(), len) } == 0 {
            break sock;
        }
        match errno() {
            libc::ECONNREFUSED | libc::ENOENT | libc::EAGAIN | libc::EINTR => {
                std::thread::sleep(Duration::from_millis(2).min(left))
            }
            _ => return Err(os_error(&format!("cannot connect to @{shown}"))),
        }
    };
    let uid = peer_uid(sock.as_raw_fd())?;
    if uid != my_uid() {
        return Err(format!(
            "the socket @{shown} belongs to uid {uid}, not to this user ({}): not taking a job file from it",
            my_uid()
        ));
    }
    receive_fd(sock.as_raw_fd()).map_err(|e| format!("{e} (from @{shown})"))
}

/// Receives one byte and the descriptor attached to it.
fn receive_fd(sock: RawFd) -> Result<OwnedFd, String> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control = [0u64; 4];
    // SAFETY: an all-zero msghdr is a valid value.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    let n = loop {
        // SAFETY: msg and everything it points to are live locals.
        let n = unsafe { libc::recvmsg(sock, &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n < 0 && errno() == libc::EINTR {
            continue;
        }
        break n;
    };
    if n < 0 {
        return Err(os_error("cannot receive the job file"));
    }
    // SAFETY: recvmsg filled msg; CMSG_FIRSTHDR checks msg_controllen.
    let cmsg = unsafe { libc::CMSG_FIRSTHDR(&msg) };
    // SAFETY: a non-null cmsg points into control, as recvmsg wrote it.
    let ok = !cmsg.is_null()
        && unsafe {
            (*cmsg).cmsg_level == libc::SOL_SOCKET
                && (*cmsg).cmsg_type == libc::SCM_RIGHTS
                && (*cmsg).cmsg_len as usize >= libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as usize
        };
    if n == 0 || !ok || msg.msg_flags & libc::MSG_CTRUNC != 0 {
        return Err("the node's first PE closed the connection without sending the job file".into());
    }
    // SAFETY: the header is SCM_RIGHTS with room for one descriptor, which
    // the kernel installed in this process for us alone.
    let fd = unsafe { std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>()) };
    // SAFETY: as above, fd is a fresh descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::segment;
    use std::os::fd::AsFd;

    const LONG: Duration = Duration::from_secs(20);

    fn file_with(text: &[u8]) -> OwnedFd {
        let f = segment::create_memfd("fdshare-test").expect("memfd");
        // SAFETY: text is valid for text.len() bytes.
        let n = unsafe { libc::pwrite(f.as_raw_fd(), text.as_ptr().cast(), text.len(), 0) };
        assert_eq!(n, text.len() as isize);
        f
    }

    fn read_all(fd: &OwnedFd) -> Vec<u8> {
        let mut buf = [0u8; 64];
        // SAFETY: buf is valid for 64 bytes of writes.
        let n = unsafe { libc::pread(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
        buf[..n.max(0) as usize].to_vec()
    }

    #[test]
    fn names_are_this_user_and_process_and_differ() {
        let (a, b) = (Offer::open().unwrap(), Offer::open().unwrap());
        let name = a.name();
        let text = std::str::from_utf8(trimmed(&name)).unwrap();
        let prefix = format!("rshmem-{}-{}-", my_uid(), std::process::id());
        assert!(text.starts_with(&prefix), "{text}");
        let hex = &text[prefix.len()..];
        assert!(hex.len() == 16 && hex.chars().all(|c| c.is_ascii_hexdigit()), "{text}");
        assert!(name[text.len()..].iter().all(|&b| b == 0));
        assert_ne!(a.name(), b.name());
    }

    #[test]
    fn every_taker_gets_the_same_file() {
        let offer = Offer::open().unwrap();
        let name = offer.name();
        let takers: Vec<_> = (0..3).map(|_| std::thread::spawn(move || take(&name, LONG))).collect();
        let file = file_with(b"job file");
        offer.hand_out(file.as_fd(), 3, LONG).unwrap();
        for t in takers {
            let got = t.join().unwrap().unwrap();
            assert_eq!(read_all(&got), b"job file");
            assert_ne!(got.as_raw_fd(), file.as_raw_fd());
        }
    }

    #[test]
    fn a_forked_process_gets_it_too() {
        let offer = Offer::open().unwrap();
        let name = offer.name();
        // SAFETY: the child only takes the file, checks it, and _exits.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork");
        if pid == 0 {
            let ok = take(&name, LONG).is_ok_and(|f| read_all(&f) == b"over fork");
            // SAFETY: ends the child without running the parent's exit handlers.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) };
        }
        let file = file_with(b"over fork");
        let handed = offer.hand_out(file.as_fd(), 1, LONG);
        let mut status = 0;
        // SAFETY: pid is our child; status is a valid out-pointer.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        handed.unwrap();
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "child status {status:#x}"
        );
    }

    #[test]
    fn waiting_ends_at_the_timeout() {
        let offer = Offer::open().unwrap();
        let e = offer
            .hand_out(file_with(b"x").as_fd(), 2, Duration::from_millis(50))
            .unwrap_err();
        assert!(
            e.starts_with("only 0 of this node's 2 other PEs took the job file within 0.05 s"),
            "{e}"
        );
        let mut nobody = [0u8; NAME_LEN];
        nobody[..17].copy_from_slice(b"rshmem-nobody-0-0");
        let e = take(&nobody, Duration::from_millis(50)).unwrap_err();
        assert!(
            e.starts_with("cannot reach the node's first PE at @rshmem-nobody-0-0 within 0.05 s"),
            "{e}"
        );
        assert!(take(&[0u8; NAME_LEN], LONG).unwrap_err().contains("no name"));
    }

    /// As root: a process of another user neither gets the file nor takes a
    /// place of this node's PEs, and refuses the offer itself.
    #[test]
    fn another_user_is_refused_both_ways() {
        if my_uid() != 0 {
            return;
        }
        let offer = Offer::open().unwrap();
        let name = offer.name();
        // SAFETY: the child only drops to another uid, tries to take the
        // file, and _exits.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork");
        if pid == 0 {
            // SAFETY: setuid has no memory-safety preconditions.
            let dropped = unsafe { libc::setuid(65534) } == 0;
            let refused = take(&name, LONG).is_err_and(|e| e.contains("belongs to uid 0"));
            // SAFETY: ends the child without running the parent's exit handlers.
            unsafe { libc::_exit(if dropped && refused { 0 } else { 1 }) };
        }
        let mut status = 0;
        let taker = std::thread::spawn(move || {
            // The stranger connects first, so it is refused before we take.
            // SAFETY: pid is our child; status is a valid out-pointer.
            let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
            (waited, status, take(&name, LONG))
        });
        let file = file_with(b"mine");
        offer.hand_out(file.as_fd(), 1, LONG).unwrap();
        let (waited, status, got) = taker.join().unwrap();
        assert_eq!(waited, pid);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "child status {status:#x}"
        );
        assert_eq!(read_all(&got.unwrap()), b"mine");
    }
}
