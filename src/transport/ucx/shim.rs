//! Loads `librshmem_ucx.so`, the C shim over UCX's UCP API (`shim.c`,
//! interface `shim.h`), and wraps its functions.
//!
//! librshmem never links UCX: `build.rs` compiles the shim when UCX's
//! headers are installed, and this module dlopens it only in a job that
//! spans nodes, looking where `shimlib` says (`RSHMEM_UCX_SHIM`, beside
//! librshmem, where the build put it: `RSHMEM_UCX_SHIM_BUILT`). Every call
//! returns the shim's message (`ruc_last_error`) on failure.

use super::super::shimlib::{Loaded, Shimlib, shim_fn};
use std::ffi::{CStr, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// `RUC_ABI_VERSION` of the `shim.h` this file is written against.
const ABI_VERSION: c_int = 4;
/// Where to find the shim instead of the usual places.
pub(crate) const ENV_SHIM: &str = "RSHMEM_UCX_SHIM";
const FILE_NAME: &str = "librshmem_ucx.so";

const LIB: Shimlib = Shimlib {
    file_name: FILE_NAME,
    env: ENV_SHIM,
    built: option_env!("RSHMEM_UCX_SHIM_BUILT"),
    what: "UCX shim",
    not_built: "rshmem was built without UCX (no UCX headers at build time)",
    remedy: "install UCX's development files (Debian: libucx-dev) and rebuild rshmem",
};

/// An atomic operation of `ruc_amo` (`enum ruc_op` of `shim.h`).
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RucOp {
    Fetch = 0,
    Swap = 1,
    CompareSwap = 2,
    Add = 3,
    And = 4,
    Or = 5,
    Xor = 6,
}

type Status0 = unsafe extern "C" fn() -> c_int;
type Init = unsafe extern "C" fn(c_int, c_int, c_int, *mut c_void, u64, *mut usize) -> c_int;
type Card = unsafe extern "C" fn(*mut c_void, usize) -> c_int;
type Peers = unsafe extern "C" fn(*const c_void, usize) -> c_int;
type Put = unsafe extern "C" fn(c_int, u64, *const c_void, u64, c_int) -> c_int;
type Get = unsafe extern "C" fn(c_int, u64, *mut c_void, u64, c_int) -> c_int;
type PutStrided = unsafe extern "C" fn(c_int, u64, i64, *const c_void, i64, u64, u64) -> c_int;
type GetStrided = unsafe extern "C" fn(c_int, u64, i64, *mut c_void, i64, u64, u64) -> c_int;
type Amo = unsafe extern "C" fn(c_int, u64, c_int, c_int, u64, u64, *mut c_void, c_int) -> c_int;
type PutSignal = unsafe extern "C" fn(c_int, u64, *const c_void, u64, u64, c_int, u64, *mut u64, c_int) -> c_int;
type Footprint = unsafe extern "C" fn(*mut u64, *mut u64);
type CloseTest = unsafe extern "C" fn(*mut c_int) -> c_int;

/// The loaded shim: its functions, resolved once.
pub(crate) struct Shim {
    path: PathBuf,
    last_error: unsafe extern "C" fn() -> *const c_char,
    version: unsafe extern "C" fn() -> *const c_char,
    init: Init,
    card: Card,
    peers: Peers,
    put: Put,
    get: Get,
    put_strided: PutStrided,
    get_strided: GetStrided,
    amo: Amo,
    put_signal: PutSignal,
    fence: Status0,
    quiet: Status0,
    fence_test: Status0,
    quiet_test: Status0,
    progress: unsafe extern "C" fn() -> c_int,
    footprint: Footprint,
    close_start: Status0,
    close_test: CloseTest,
    finalize: Status0,
}

static SHIM: OnceLock<Result<Shim, String>> = OnceLock::new();

fn pe_int(pe: usize) -> c_int {
    // PEs are checked against the job's size, which MPI numbered with ints.
    pe as c_int
}

impl Shim {
    /// Loads once per process (OnceLock); later calls return the same.
    pub(crate) fn load() -> Result<&'static Shim, String> {
        SHIM.get_or_init(|| LIB.open_first(&LIB.candidates(), open))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The file it was loaded from.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    #[inline]
    fn check(&self, rc: c_int) -> Result<(), String> {
        if rc == 0 {
            return Ok(());
        }
        self.error()
    }

    #[cold]
    fn error(&self) -> Result<(), String> {
        // SAFETY: ruc_last_error returns a NUL-terminated thread-local buffer
        // (never NULL), which lives as long as this thread.
        let msg = unsafe { CStr::from_ptr((self.last_error)()) };
        Err(msg.to_string_lossy().into_owned())
    }

    /// UCX's version string.
    pub(crate) fn version(&self) -> String {
        // SAFETY: ucp_get_version_string returns a static NUL-terminated string.
        unsafe { CStr::from_ptr((self.version)()) }
            .to_string_lossy()
            .into_owned()
    }

    /// Creates the context and worker and registers this PE's segment;
    /// returns the length of this PE's card.
    ///
    /// # Safety
    /// `base..base+len` stays mapped for the rest of the process.
    pub(crate) unsafe fn init(
        &self,
        multi: bool,
        me: usize,
        npes: usize,
        base: *mut u8,
        len: u64,
    ) -> Result<usize, String> {
        let mut card_len = 0usize;
        let n = c_int::try_from(npes).map_err(|_| format!("{npes} PEs are more than UCX's shim numbers"))?;
        // SAFETY: the caller's contract covers the segment; card_len is a live local.
        self.check(unsafe { (self.init)(c_int::from(multi), pe_int(me), n, base.cast(), len, &mut card_len) })?;
        Ok(card_len)
    }

    /// This PE's card (worker address, remote key, segment base), padded
    /// with zeros to `len` bytes.
    pub(crate) fn card(&self, len: usize) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; len];
        // SAFETY: out has len writable bytes; the shim checks them against the card.
        self.check(unsafe { (self.card)(out.as_mut_ptr().cast(), len) })?;
        Ok(out)
    }

    /// Every PE's card, `stride` bytes each, in PE order.
    pub(crate) fn peers(&self, all: &[u8], stride: usize) -> Result<(), String> {
        // SAFETY: all holds npes cards of stride bytes (the caller gathered
        // one per PE); the shim copies them.
        self.check(unsafe { (self.peers)(all.as_ptr().cast(), stride) })
    }

    /// # Safety
    /// `src..src+len` is readable until the put completes (on return if
    /// `blocking`, else at the next [`quiet`](Self::quiet)).
    #[inline]
    pub(crate) unsafe fn put(
        &self,
        pe: usize,
        off: u64,
        src: *const u8,
        len: usize,
        blocking: bool,
    ) -> Result<(), String> {
        // SAFETY: the caller's contract.
        self.check(unsafe { (self.put)(pe_int(pe), off, src.cast(), len as u64, c_int::from(blocking)) })
    }

    /// # Safety
    /// `dst..dst+len` is writable, and not otherwise accessed, until the get
    /// completes (on return if `blocking`, else at the next `quiet`).
    #[inline]
    pub(crate) unsafe fn get(
        &self,
        pe: usize,
        off: u64,
        dst: *mut u8,
        len: usize,
        blocking: bool,
    ) -> Result<(), String> {
        // SAFETY: the caller's contract.
        self.check(unsafe { (self.get)(pe_int(pe), off, dst.cast(), len as u64, c_int::from(blocking)) })
    }

    /// A blocking put of `n` elements of `elem` bytes (strides in bytes).
    /// # Safety
    /// Every origin element is readable.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn put_strided(
        &self,
        pe: usize,
        off: u64,
        remote_stride: i64,
        local: *const u8,
        local_stride: i64,
        elem: usize,
        n: usize,
    ) -> Result<(), String> {
        // SAFETY: the caller's contract.
        self.check(unsafe {
            (self.put_strided)(
                pe_int(pe),
                off,
                remote_stride,
                local.cast(),
                local_stride,
                elem as u64,
                n as u64,
            )
        })
    }

    /// A blocking get of `n` elements of `elem` bytes (strides in bytes).
    /// # Safety
    /// Every origin element is writable.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn get_strided(
        &self,
        pe: usize,
        off: u64,
        remote_stride: i64,
        local: *mut u8,
        local_stride: i64,
        elem: usize,
        n: usize,
    ) -> Result<(), String> {
        // SAFETY: the caller's contract.
        self.check(unsafe {
            (self.get_strided)(
                pe_int(pe),
                off,
                remote_stride,
                local.cast(),
                local_stride,
                elem as u64,
                n as u64,
            )
        })
    }

    /// An atomic operation on the `size`-byte word (4 or 8) at `off` on
    /// `pe`; values in the low bytes of `operand` and `compare`.
    /// # Safety
    /// `result`, unless null, is writable for `size` bytes until the
    /// operation completes (on return if `blocking`, else at the next `quiet`).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) unsafe fn amo(
        &self,
        pe: usize,
        off: u64,
        op: RucOp,
        size: usize,
        operand: u64,
        compare: u64,
        result: *mut u8,
        blocking: bool,
    ) -> Result<(), String> {
        // SAFETY: the caller's contract.
        self.check(unsafe {
            (self.amo)(
                pe_int(pe),
                off,
                op as c_int,
                size as c_int,
                operand,
                compare,
                result.cast(),
                c_int::from(blocking),
            )
        })
    }

    /// Put-with-signal (`ruc_put_signal`): `len` bytes from `src` to `off`
    /// on `pe`, then the 8-byte signal at `sig` set (`RucOp::Swap`) or
    /// added to (`RucOp::Add`). `src` is reusable on return. With `old`,
    /// waits for and returns the signal's previous value; without, the
    /// update completes at the next `quiet`, or, `untracked`, is never
    /// waited for (a library word whose reader waits for the signal).
    ///
    /// # Safety
    /// `src` is readable for `len` bytes; `off..off+len` and the 8-aligned
    /// `sig` are inside `pe`'s segment.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) unsafe fn put_signal(
        &self,
        pe: usize,
        off: u64,
        src: *const u8,
        len: usize,
        sig: u64,
        op: RucOp,
        value: u64,
        old: Option<&mut u64>,
        untracked: bool,
    ) -> Result<(), String> {
        let old = old.map_or(std::ptr::null_mut(), |o| o as *mut u64);
        // SAFETY: the caller's contract; `old` is null or a live u64.
        self.check(unsafe {
            (self.put_signal)(
                pe_int(pe),
                off,
                src.cast(),
                len as u64,
                sig,
                op as c_int,
                value,
                old,
                c_int::from(untracked),
            )
        })
    }

    pub(crate) fn fence(&self) -> Result<(), String> {
        // SAFETY: no arguments; the shim checks its own state.
        self.check(unsafe { (self.fence)() })
    }

    pub(crate) fn quiet(&self) -> Result<(), String> {
        // SAFETY: no arguments; the shim checks its own state.
        self.check(unsafe { (self.quiet)() })
    }

    /// [`fence`](Self::fence) without waiting: whether it holds now.
    pub(crate) fn fence_test(&self) -> Result<bool, String> {
        // SAFETY: no arguments; the shim checks its own state.
        self.answer(unsafe { (self.fence_test)() })
    }

    /// [`quiet`](Self::quiet) without waiting: whether it holds now.
    pub(crate) fn quiet_test(&self) -> Result<bool, String> {
        // SAFETY: no arguments; the shim checks its own state.
        self.answer(unsafe { (self.quiet_test)() })
    }

    /// A test's answer: 1 yes, 0 not yet, -1 an error.
    fn answer(&self, rc: c_int) -> Result<bool, String> {
        if rc < 0 {
            self.error()?;
        }
        Ok(rc > 0)
    }

    #[inline]
    pub(crate) fn progress(&self) {
        // SAFETY: no arguments; a no-op before init.
        unsafe { (self.progress)() };
    }

    /// `ruc_progress` itself, for MPI's progress engine to call
    /// (`rsm_progress_hook`): C code, safe from any thread in MULTI mode.
    pub(crate) fn progress_fn(&self) -> unsafe extern "C" fn() -> c_int {
        self.progress
    }

    /// Peers connected so far and the bytes the shim holds for the job's peers.
    pub(crate) fn footprint(&self) -> (u64, u64) {
        let (mut peers, mut bytes) = (0, 0);
        // SAFETY: two live locals.
        unsafe { (self.footprint)(&mut peers, &mut bytes) };
        (peers, bytes)
    }

    pub(crate) fn close_start(&self) -> Result<(), String> {
        // SAFETY: no arguments; the shim checks its own state.
        self.check(unsafe { (self.close_start)() })
    }

    pub(crate) fn close_test(&self) -> Result<bool, String> {
        let mut done = 0;
        // SAFETY: a live local.
        self.check(unsafe { (self.close_test)(&mut done) })?;
        Ok(done != 0)
    }

    pub(crate) fn finalize(&self) -> Result<(), String> {
        // SAFETY: no arguments; the shim checks its own state.
        self.check(unsafe { (self.finalize)() })
    }
}

/// dlopens one file and resolves every function of `shim.h`.
fn open(path: &Path) -> Result<Shim, String> {
    let lib = Loaded::open(path)?;
    macro_rules! f {
        ($name:literal as $ty:ty) => {
            shim_fn!(lib, $name as $ty)
        };
    }
    let abi = f!(c"ruc_abi_version" as unsafe extern "C" fn() -> c_int);
    // SAFETY: ruc_abi_version takes nothing and only returns a constant.
    let version = unsafe { abi() };
    if version != ABI_VERSION {
        return Err(format!(
            "{}: interface version {version}, but this librshmem needs {ABI_VERSION} (a shim from another rshmem?)",
            path.display()
        ));
    }
    Ok(Shim {
        path: path.to_path_buf(),
        last_error: f!(c"ruc_last_error" as unsafe extern "C" fn() -> *const c_char),
        version: f!(c"ruc_version" as unsafe extern "C" fn() -> *const c_char),
        init: f!(c"ruc_init" as Init),
        card: f!(c"ruc_card" as Card),
        peers: f!(c"ruc_peers" as Peers),
        put: f!(c"ruc_put" as Put),
        get: f!(c"ruc_get" as Get),
        put_strided: f!(c"ruc_put_strided" as PutStrided),
        get_strided: f!(c"ruc_get_strided" as GetStrided),
        amo: f!(c"ruc_amo" as Amo),
        put_signal: f!(c"ruc_put_signal" as PutSignal),
        fence: f!(c"ruc_fence" as Status0),
        quiet: f!(c"ruc_quiet" as Status0),
        fence_test: f!(c"ruc_fence_test" as Status0),
        quiet_test: f!(c"ruc_quiet_test" as Status0),
        progress: f!(c"ruc_progress" as unsafe extern "C" fn() -> c_int),
        footprint: f!(c"ruc_footprint" as Footprint),
        close_start: f!(c"ruc_close_start" as Status0),
        close_test: f!(c"ruc_close_test" as CloseTest),
        finalize: f!(c"ruc_finalize" as Status0),
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::shimlib::Candidate;
    use super::*;

    #[test]
    fn a_library_that_is_not_the_shim_is_refused() {
        let e = open(Path::new("libc.so.6")).err().expect("libc is no shim");
        assert!(e.contains("no symbol ruc_abi_version"), "{e}");
    }

    #[test]
    fn a_missing_shim_named_by_the_environment_is_reported_with_its_path() {
        let c = [Candidate {
            path: PathBuf::from("/nonexistent/librshmem_ucx.so"),
            why: ENV_SHIM,
        }];
        let e = LIB.open_first(&c, open).err().expect("no shim there");
        assert!(
            e.starts_with("cannot load the UCX shim named by RSHMEM_UCX_SHIM: /nonexistent/librshmem_ucx.so: "),
            "{e}"
        );
    }

    /// With UCX at build time: the built shim loads and refuses calls
    /// before `init` with a message.
    #[test]
    fn the_built_shim_loads_and_reports_errors() {
        let Some(built) = option_env!("RSHMEM_UCX_SHIM_BUILT") else {
            return;
        };
        let shim = open(Path::new(built)).expect("the built shim loads");
        assert!(shim.version().starts_with('1'), "{}", shim.version());
        let e = shim.card(64).expect_err("no card before init");
        assert!(e.contains("ruc_init was not called"), "{e}");
        // SAFETY: a null pointer, which the shim refuses before using it.
        let e = unsafe { shim.put(0, 0, std::ptr::null(), 0, true) }.expect_err("no put before init");
        assert!(e.contains("PE 0 is not in 0..0"), "{e}");
    }
}
