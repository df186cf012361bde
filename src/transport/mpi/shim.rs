//! Loads `librshmem_mpi.so`, the C shim over MPI (`shim.c`, interface
//! `shim.h`), and wraps its functions.
//!
//! librshmem never links an MPI: `build.rs` compiles the shim with the MPI's
//! own `mpicc` when one is installed, and this module dlopens it only when a
//! job was started by an MPI launcher, looking where `shimlib` says
//! (`RSHMEM_MPI_SHIM`, beside librshmem, where the build put it:
//! `RSHMEM_MPI_SHIM_BUILT`, absent when there was no `mpicc`). Every call returns
//! the shim's message (`rsm_last_error`) on failure; the callers add the
//! routine and the PE.

use super::super::shimlib::{Candidate, Loaded, Shimlib, shim_fn};
use std::ffi::{CStr, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `RSM_ABI_VERSION` of the `shim.h` this file is written against.
const ABI_VERSION: c_int = 8;
/// Where to find the shim instead of the usual places.
pub(crate) const ENV_SHIM: &str = "RSHMEM_MPI_SHIM";
const FILE_NAME: &str = "librshmem_mpi.so";
/// Most bytes of data in one [`Shim::post_put_flag`] (`RSM_POST_DATA_MAX`).
pub(crate) const POST_DATA_MAX: usize = 8192;
/// Longest MPI library version kept (its first line).
const LIBRARY_LEN: usize = 256;

/// An atomic operation of `rsm_amo` (`enum rsm_op` of `shim.h`).
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RsmOp {
    Fetch = 0,
    // Mirrors shim.h; the transport swaps instead (it returns the old value).
    #[allow(dead_code)]
    Set = 1,
    Swap = 2,
    CompareSwap = 3,
    Add = 4,
    And = 5,
    Or = 6,
    Xor = 7,
}

/// A communicator of the non-blocking barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Comm {
    /// Every PE of the job.
    // Used by the shim's own tests; the library meets only the leaders.
    #[allow(dead_code)]
    World = 0,
    /// The first PE of every node (after [`Shim::split_nodes`]).
    Leaders = 1,
}

/// What [`Shim::init`] found.
#[derive(Debug)]
pub(crate) struct Started {
    /// MPI provides `MPI_THREAD_MULTIPLE`.
    pub multiple: bool,
    /// This call initialised MPI (so `finalize` finalises it).
    pub we_initialized: bool,
    pub rank: usize,
    pub size: usize,
    /// The MPI library's version (first line).
    pub library: String,
}

type Status0 = unsafe extern "C" fn() -> c_int;
type StatusPe = unsafe extern "C" fn(c_int) -> c_int;
type Init = unsafe extern "C" fn(c_int, *mut c_int, *mut c_int, *mut c_int, *mut c_int, *mut c_char, usize) -> c_int;
type SplitNodes = unsafe extern "C" fn(c_int, *mut c_int) -> c_int;
type Allgather = unsafe extern "C" fn(*const c_void, *mut c_void, usize) -> c_int;
type NodeBcast = unsafe extern "C" fn(*mut c_void, usize) -> c_int;
type WinCreate = unsafe extern "C" fn(*mut c_void, u64) -> c_int;
type Put = unsafe extern "C" fn(c_int, u64, *const c_void, u64) -> c_int;
type Get = unsafe extern "C" fn(c_int, u64, *mut c_void, u64) -> c_int;
type PutStrided = unsafe extern "C" fn(c_int, u64, i64, *const c_void, i64, u64, u64) -> c_int;
type GetStrided = unsafe extern "C" fn(c_int, u64, i64, *mut c_void, i64, u64, u64) -> c_int;
type Amo = unsafe extern "C" fn(c_int, u64, c_int, c_int, *const c_void, *const c_void, *mut c_void) -> c_int;
type IagreeStart = unsafe extern "C" fn(c_int, *const i64, c_int) -> c_int;
type IagreeTest = unsafe extern "C" fn(c_int, *mut c_int, *mut i64, c_int) -> c_int;
type StatusSend = unsafe extern "C" fn(c_int, *const c_void, c_int) -> c_int;
type StatusRecv = unsafe extern "C" fn(*mut c_void, c_int, *mut c_int) -> c_int;
type PostPutFlag = unsafe extern "C" fn(c_int, u64, *const c_void, u64, u64, c_int, u64) -> c_int;
type FetchAfterFlags = unsafe extern "C" fn(c_int, u64, *mut u64) -> c_int;

/// The loaded shim: its functions, resolved once.
pub(crate) struct Shim {
    path: PathBuf,
    /// The job's size, from `init`: the length of what `split_nodes` and
    /// `allgather` write.
    size: AtomicUsize,
    last_error: unsafe extern "C" fn() -> *const c_char,
    init: Init,
    split_nodes: SplitNodes,
    allgather: Allgather,
    node_bcast: NodeBcast,
    node_barrier: Status0,
    win_create: WinCreate,
    win_free: Status0,
    put: Put,
    get: Get,
    put_strided: PutStrided,
    get_strided: GetStrided,
    amo: Amo,
    flush_local: StatusPe,
    flush: StatusPe,
    flush_all: Status0,
    win_sync: Status0,
    progress: unsafe extern "C" fn(),
    post_put_flag: PostPutFlag,
    take_flags: Status0,
    fetch_after_flags: FetchAfterFlags,
    iagree_start: IagreeStart,
    iagree_test: IagreeTest,
    status_send: StatusSend,
    status_recv: StatusRecv,
    finalize: Status0,
    on_mpi_finalize: unsafe extern "C" fn(extern "C" fn()) -> c_int,
    progress_hook: unsafe extern "C" fn(ProgressFn) -> c_int,
    progress_hook_off: unsafe extern "C" fn(ProgressFn),
    abort: unsafe extern "C" fn(c_int),
}

/// A function MPI's progress engine may call (`rsm_progress_hook`): it
/// returns the events it handled.
pub(crate) type ProgressFn = unsafe extern "C" fn() -> c_int;

static SHIM: OnceLock<Result<Shim, String>> = OnceLock::new();

fn rank(pe: usize) -> Result<c_int, String> {
    c_int::try_from(pe).map_err(|_| format!("PE {pe} is beyond what MPI can number"))
}

impl Shim {
    /// Loads once per process (OnceLock); later calls return the same.
    pub(crate) fn load() -> Result<&'static Shim, String> {
        SHIM.get_or_init(|| open_first(&candidates()))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The file it was loaded from.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn check(&self, rc: c_int) -> Result<(), String> {
        if rc == 0 {
            return Ok(());
        }
        // SAFETY: rsm_last_error returns a NUL-terminated thread-local buffer
        // (never NULL), which lives as long as this thread.
        let msg = unsafe { CStr::from_ptr((self.last_error)()) };
        Err(msg.to_string_lossy().into_owned())
    }

    fn npes_match(&self, npes: usize) -> Result<(), String> {
        let size = self.size.load(Ordering::Relaxed);
        if size != npes {
            return Err(format!(
                "MPI's world has {size} ranks, not {npes} (was the shim initialised?)"
            ));
        }
        Ok(())
    }

    pub(crate) fn init(&self, want_multiple: bool) -> Result<Started, String> {
        let (mut multiple, mut we, mut rank, mut size) = (0, 0, 0, 0);
        let mut lib = [0 as c_char; LIBRARY_LEN];
        // SAFETY: every out-pointer is a live local; lib has lib.len() bytes.
        self.check(unsafe {
            (self.init)(
                c_int::from(want_multiple),
                &mut multiple,
                &mut we,
                &mut rank,
                &mut size,
                lib.as_mut_ptr(),
                lib.len(),
            )
        })?;
        let (Ok(rank), Ok(size)) = (usize::try_from(rank), usize::try_from(size)) else {
            return Err(format!("MPI gave rank {rank} of {size}"));
        };
        self.size.store(size, Ordering::Relaxed);
        // SAFETY: rsm_init wrote a NUL-terminated string within lib (and lib
        // ends in NUL anyway: it was zeroed and is written with snprintf).
        let library = unsafe { CStr::from_ptr(lib.as_ptr()) }.to_string_lossy().into_owned();
        Ok(Started {
            multiple: multiple != 0,
            we_initialized: we != 0,
            rank,
            size,
            library,
        })
    }

    /// Every PE's node, named by the node's first PE (`forced_size` > 0:
    /// virtual nodes of that many consecutive PEs). Collective.
    pub(crate) fn split_nodes(&self, forced_size: usize, npes: usize) -> Result<Vec<usize>, String> {
        self.npes_match(npes)?;
        let forced = c_int::try_from(forced_size).map_err(|_| format!("node size {forced_size} is too large"))?;
        let mut node_of: Vec<c_int> = vec![0; npes];
        // SAFETY: node_of has one int per rank of the world (checked above).
        self.check(unsafe { (self.split_nodes)(forced, node_of.as_mut_ptr()) })?;
        node_of
            .into_iter()
            .map(|n| usize::try_from(n).map_err(|_| format!("MPI named node {n}")))
            .collect()
    }

    /// Every PE's `mine`, in PE order (all the same length). Collective.
    pub(crate) fn allgather(&self, mine: &[u8], npes: usize) -> Result<Vec<u8>, String> {
        self.npes_match(npes)?;
        let mut all = vec![0u8; mine.len() * npes];
        // SAFETY: all has room for npes blocks of mine.len() bytes.
        self.check(unsafe { (self.allgather)(mine.as_ptr().cast(), all.as_mut_ptr().cast(), mine.len()) })?;
        Ok(all)
    }

    /// `buf` from the node's first PE to the node's others. Collective.
    pub(crate) fn node_bcast(&self, buf: &mut [u8]) -> Result<(), String> {
        // SAFETY: buf is valid for buf.len() bytes of writes.
        self.check(unsafe { (self.node_bcast)(buf.as_mut_ptr().cast(), buf.len()) })
    }

    pub(crate) fn node_barrier(&self) -> Result<(), String> {
        // SAFETY: no arguments; the shim checks its own state.
        self.check(unsafe { (self.node_barrier)() })
    }

    /// # Safety
    /// `base..base+len` stays mapped until [`win_free`](Self::win_free).
    pub(crate) unsafe fn win_create(&self, base: *mut u8, len: u64) -> Result<(), String> {
        // SAFETY: the caller keeps the range mapped while the window exists.
        self.check(unsafe { (self.win_create)(base.cast(), len) })
    }

    pub(crate) fn win_free(&self) -> Result<(), String> {
        // SAFETY: no arguments; the shim checks its own state.
        self.check(unsafe { (self.win_free)() })
    }

    /// Starts a put of `len` bytes to `off` on `pe`.
    /// # Safety
    /// `src..src+len` is readable until a flush of `pe` completes it.
    pub(crate) unsafe fn put(&self, pe: usize, off: u64, src: *const u8, len: usize) -> Result<(), String> {
        let pe = rank(pe)?;
        // SAFETY: the caller keeps src valid until the flush.
        self.check(unsafe { (self.put)(pe, off, src.cast(), len as u64) })
    }

    /// Starts a get of `len` bytes from `off` on `pe`.
    /// # Safety
    /// `dst..dst+len` is writable, and not otherwise accessed, until a flush
    /// of `pe` completes it.
    pub(crate) unsafe fn get(&self, pe: usize, off: u64, dst: *mut u8, len: usize) -> Result<(), String> {
        let pe = rank(pe)?;
        // SAFETY: the caller keeps dst valid and untouched until the flush.
        self.check(unsafe { (self.get)(pe, off, dst.cast(), len as u64) })
    }

    /// Starts a put of `n` elements of `elem` bytes (strides in bytes).
    /// # Safety
    /// As [`put`](Self::put), for every origin element.
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
        let pe = rank(pe)?;
        // SAFETY: the caller keeps every origin element valid until the flush.
        self.check(unsafe {
            (self.put_strided)(
                pe,
                off,
                remote_stride,
                local.cast(),
                local_stride,
                elem as u64,
                n as u64,
            )
        })
    }

    /// Starts a get of `n` elements of `elem` bytes (strides in bytes).
    /// # Safety
    /// As [`get`](Self::get), for every origin element.
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
        let pe = rank(pe)?;
        // SAFETY: the caller keeps every origin element valid until the flush.
        self.check(unsafe {
            (self.get_strided)(
                pe,
                off,
                remote_stride,
                local.cast(),
                local_stride,
                elem as u64,
                n as u64,
            )
        })
    }

    /// Starts an atomic operation on the `size`-byte word (4 or 8) at `off`
    /// on `pe`; result null for non-fetching.
    /// # Safety
    /// `operand` (and `compare` for [`RsmOp::CompareSwap`]) point to `size`
    /// readable bytes and `result`, unless null, to `size` writable bytes,
    /// all valid until a flush of `pe` (`*result` is valid after it).
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn amo(
        &self,
        pe: usize,
        off: u64,
        op: RsmOp,
        size: usize,
        operand: *const u8,
        compare: *const u8,
        result: *mut u8,
    ) -> Result<(), String> {
        let pe = rank(pe)?;
        if size != 4 && size != 8 {
            return Err(format!("rsm_amo: size {size} is not 4 or 8"));
        }
        // SAFETY: the caller keeps the buffers valid until the flush (of
        // size bytes, 4 or 8, as checked).
        self.check(unsafe {
            (self.amo)(
                pe,
                off,
                op as c_int,
                size as c_int,
                operand.cast(),
                compare.cast(),
                result.cast(),
            )
        })
    }

    /// Origin buffers of operations to `pe` reusable, gets and fetches landed.
    pub(crate) fn flush_local(&self, pe: usize) -> Result<(), String> {
        let pe = rank(pe)?;
        // SAFETY: a rank; the shim checks its range.
        self.check(unsafe { (self.flush_local)(pe) })
    }

    /// Everything to `pe` complete at `pe`.
    pub(crate) fn flush(&self, pe: usize) -> Result<(), String> {
        let pe = rank(pe)?;
        // SAFETY: a rank; the shim checks its range.
        self.check(unsafe { (self.flush)(pe) })
    }

    pub(crate) fn flush_all(&self) -> Result<(), String> {
        // SAFETY: no arguments; the shim checks its own state.
        self.check(unsafe { (self.flush_all)() })
    }

    /// This PE's loads see what MPI wrote into its memory.
    pub(crate) fn win_sync(&self) -> Result<(), String> {
        // SAFETY: no arguments; the shim checks its own state.
        self.check(unsafe { (self.win_sync)() })
    }

    /// Lets MPI move operations along (`MPI_Iprobe`); a no-op before `init`.
    pub(crate) fn progress(&self) {
        // SAFETY: no arguments; a no-op until the shim is initialised.
        unsafe { (self.progress)() }
    }

    /// Sends `pe` a library flag's update of its 8-byte word at `off`: add
    /// `value` (`set` false) or store it (a message; nothing answers): `pe`
    /// applies it in its next [`take_flags`](Self::take_flags).
    pub(crate) fn post_flag(&self, pe: usize, off: u64, set: bool, value: u64) -> Result<(), String> {
        // SAFETY: no data (len 0), so nothing is read from the null pointer.
        unsafe { self.post_put_flag(pe, (0, std::ptr::null(), 0), off, set, value) }
    }

    /// [`post_flag`](Self::post_flag) with `len` bytes from `data`, which
    /// `pe` writes at `data_off` of its window before it updates the word:
    /// a put-with-signal in one message. `data` is copied before this
    /// returns; `len` is at most [`POST_DATA_MAX`].
    ///
    /// # Safety
    /// `data` is readable for `len` bytes.
    pub(crate) unsafe fn post_put_flag(
        &self,
        pe: usize,
        (data_off, data, len): (u64, *const u8, usize),
        off: u64,
        set: bool,
        value: u64,
    ) -> Result<(), String> {
        let pe = rank(pe)?;
        // SAFETY: the caller's contract for `data`; the shim checks the rank,
        // the length and its own state, and copies the data.
        self.check(unsafe {
            (self.post_put_flag)(
                pe,
                data_off,
                data as *const c_void,
                len as u64,
                off,
                c_int::from(set),
                value,
            )
        })
    }

    /// `pe`'s 8-byte word at `off`, read once `pe` has applied every message
    /// this PE [posted](Self::post_flag) to it before (a request and its
    /// answer; this PE takes its own messages while it waits).
    pub(crate) fn fetch_after_flags(&self, pe: usize, off: u64) -> Result<u64, String> {
        let pe = rank(pe)?;
        let mut v = 0u64;
        // SAFETY: `v` is a live u64 the shim writes before it returns.
        self.check(unsafe { (self.fetch_after_flags)(pe, off, &mut v) })?;
        Ok(v)
    }

    /// Applies the flag updates other PEs sent this one
    /// ([`post_flag`](Self::post_flag)) to its window memory; returns how many.
    pub(crate) fn take_flags(&self) -> Result<usize, String> {
        // SAFETY: no arguments; 0 until the shim is initialised.
        let n = unsafe { (self.take_flags)() };
        self.check(n.min(0)).map(|()| n.max(0) as usize)
    }

    /// Starts a non-blocking barrier on `comm` that also agrees on `N`
    /// values (at most 8): [`iagree_test`](Self::iagree_test) gives their
    /// element-wise maxima over the members once every member has started it.
    pub(crate) fn iagree_start<const N: usize>(&self, comm: Comm, values: [i64; N]) -> Result<(), String> {
        // SAFETY: `values` is N live i64s; the shim copies them before returning.
        self.check(unsafe { (self.iagree_start)(comm as c_int, values.as_ptr(), N as c_int) })
    }

    /// The maxima of the agreement started last on `comm`, once complete.
    pub(crate) fn iagree_test<const N: usize>(&self, comm: Comm) -> Result<Option<[i64; N]>, String> {
        let (mut done, mut out) = (0, [0i64; N]);
        // SAFETY: done is a live local; out has room for N values, and the
        // shim refuses an N other than the one the agreement started with.
        self.check(unsafe { (self.iagree_test)(comm as c_int, &mut done, out.as_mut_ptr(), N as c_int) })?;
        Ok((done != 0).then_some(out))
    }

    /// Sends a status message to `pe` without waiting; `Ok(false)` if it was
    /// dropped (too many still in flight).
    pub(crate) fn status_send(&self, pe: usize, msg: &[u8]) -> Result<bool, String> {
        let to = rank(pe)?;
        // SAFETY: msg is msg.len() readable bytes; the shim copies them.
        let rc = unsafe { (self.status_send)(to, msg.as_ptr().cast(), msg.len() as c_int) };
        if rc == 1 {
            return Ok(false);
        }
        self.check(rc).map(|()| true)
    }

    /// One pending status message into `buf`, with its sender, if any.
    pub(crate) fn status_recv(&self, buf: &mut [u8]) -> Result<Option<(usize, usize)>, String> {
        let mut src: c_int = -1;
        // SAFETY: buf has buf.len() writable bytes, which the shim checks.
        let n = unsafe { (self.status_recv)(buf.as_mut_ptr().cast(), buf.len() as c_int, &mut src) };
        if n < 0 {
            return self.check(n).map(|()| None);
        }
        Ok((n > 0).then_some((src as usize, n as usize)))
    }

    /// Frees the shim's communicators and window; `MPI_Finalize` if `init`
    /// initialised MPI.
    pub(crate) fn finalize(&self) -> Result<(), String> {
        // SAFETY: no arguments; the shim checks its own state.
        self.check(unsafe { (self.finalize)() })
    }

    /// Has `hook` called inside the program's `MPI_Finalize`, before MPI
    /// tears anything down (until [`Shim::finalize`]); `finalize` then
    /// leaves `MPI_Finalize` to the program's call under way.
    pub(crate) fn on_mpi_finalize(&self, hook: extern "C" fn()) -> Result<(), String> {
        // SAFETY: hook is a plain function, valid for the whole process.
        self.check(unsafe { (self.on_mpi_finalize)(hook) })
    }

    /// Has MPI call `f` whenever it polls, from any thread in an MPI call
    /// (Open MPI only): `Ok(false)` when this MPI offers no such hook.
    pub(crate) fn progress_hook(&self, f: ProgressFn) -> Result<bool, String> {
        // SAFETY: f is a function of a library that stays loaded (shims are
        // never closed) and may be called from any thread.
        let rc = unsafe { (self.progress_hook)(f) };
        if rc == 1 {
            return Ok(false);
        }
        self.check(rc).map(|()| true)
    }

    /// Removes `f` from MPI's progress engine.
    pub(crate) fn progress_hook_off(&self, f: ProgressFn) {
        // SAFETY: a function pointer; Open MPI ignores one it does not hold.
        unsafe { (self.progress_hook_off)(f) }
    }

    /// `MPI_Abort`: ends every PE of the job.
    pub(crate) fn abort(&self, status: i32) -> ! {
        // SAFETY: rsm_abort calls MPI_Abort only if MPI is running.
        unsafe { (self.abort)(status) };
        // SAFETY: _exit has no preconditions; rsm_abort does not return
        // unless MPI is not running, and then this process is all there is.
        unsafe { libc::_exit(if status == 0 { 1 } else { status }) }
    }
}

/// The MPI shim's file and where to look for it.
const LIB: Shimlib = Shimlib {
    file_name: FILE_NAME,
    env: ENV_SHIM,
    built: option_env!("RSHMEM_MPI_SHIM_BUILT"),
    what: "MPI shim",
    not_built: "rshmem was built without MPI (no mpicc at build time)",
    remedy: "rebuild rshmem where mpicc is on PATH (or RSHMEM_MPICC names it)",
};

/// Where to look, in order (see `shimlib`).
fn candidates() -> Vec<Candidate> {
    LIB.candidates()
}

/// The first candidate that loads, or what went wrong with each.
fn open_first(candidates: &[Candidate]) -> Result<Shim, String> {
    LIB.open_first(candidates, open)
}

/// dlopens one file and resolves every function of `shim.h`.
fn open(path: &Path) -> Result<Shim, String> {
    let lib = Loaded::open(path)?;
    macro_rules! f {
        ($name:literal as $ty:ty) => {
            shim_fn!(lib, $name as $ty)
        };
    }
    let abi = f!(c"rsm_abi_version" as unsafe extern "C" fn() -> c_int);
    // SAFETY: rsm_abi_version takes nothing and only returns a constant.
    let version = unsafe { abi() };
    if version != ABI_VERSION {
        return Err(format!(
            "{}: interface version {version}, but this librshmem needs {ABI_VERSION} (a shim from another rshmem?)",
            path.display()
        ));
    }
    Ok(Shim {
        path: path.to_path_buf(),
        size: AtomicUsize::new(0),
        last_error: f!(c"rsm_last_error" as unsafe extern "C" fn() -> *const c_char),
        init: f!(c"rsm_init" as Init),
        split_nodes: f!(c"rsm_split_nodes" as SplitNodes),
        allgather: f!(c"rsm_allgather" as Allgather),
        node_bcast: f!(c"rsm_node_bcast" as NodeBcast),
        node_barrier: f!(c"rsm_node_barrier" as Status0),
        win_create: f!(c"rsm_win_create" as WinCreate),
        win_free: f!(c"rsm_win_free" as Status0),
        put: f!(c"rsm_put" as Put),
        get: f!(c"rsm_get" as Get),
        put_strided: f!(c"rsm_put_strided" as PutStrided),
        get_strided: f!(c"rsm_get_strided" as GetStrided),
        amo: f!(c"rsm_amo" as Amo),
        flush_local: f!(c"rsm_flush_local" as StatusPe),
        flush: f!(c"rsm_flush" as StatusPe),
        flush_all: f!(c"rsm_flush_all" as Status0),
        win_sync: f!(c"rsm_win_sync" as Status0),
        progress: f!(c"rsm_progress" as unsafe extern "C" fn()),
        post_put_flag: f!(c"rsm_post_put_flag" as PostPutFlag),
        take_flags: f!(c"rsm_take_flags" as Status0),
        fetch_after_flags: f!(c"rsm_fetch_after_flags" as FetchAfterFlags),
        iagree_start: f!(c"rsm_iagree_start" as IagreeStart),
        iagree_test: f!(c"rsm_iagree_test" as IagreeTest),
        status_send: f!(c"rsm_status_send" as StatusSend),
        status_recv: f!(c"rsm_status_recv" as StatusRecv),
        finalize: f!(c"rsm_finalize" as Status0),
        on_mpi_finalize: f!(c"rsm_on_mpi_finalize" as unsafe extern "C" fn(extern "C" fn()) -> c_int),
        progress_hook: f!(c"rsm_progress_hook" as unsafe extern "C" fn(ProgressFn) -> c_int),
        progress_hook_off: f!(c"rsm_progress_hook_off" as unsafe extern "C" fn(ProgressFn)),
        abort: f!(c"rsm_abort" as unsafe extern "C" fn(c_int)),
    })
}

#[cfg(test)]
mod tests;
