//! The contract between `oshrun` and the PE processes it starts.
//!
//! `oshrun` creates one anonymous memory file (`memfd_create`) per job, sizes its
//! first part as the *control block* described here, and passes the descriptor to
//! every PE through the environment. The PEs later grow the same file to hold their
//! symmetric segments. Nothing is ever created in `/dev/shm`, so nothing can be left
//! behind and no other user can attach.
//!
//! The control block holds one [`JobHeader`] followed by one [`PeSlot`] per PE.
//! `oshrun` reads the slots to learn whether a PE that exited had finalized, or
//! called `shmem_global_exit`.

use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering};

/// PE number (0-based) of this process.
pub const ENV_PE: &str = "RSHMEM_PE";
/// Number of PEs in the job.
pub const ENV_NPES: &str = "RSHMEM_NPES";
/// Job identity: unique per `oshrun` invocation (launcher pid and start time).
/// Its [`id_hash`] is also in the job file's header, so a PE can tell its own
/// job's file from any other file that happens to hold the descriptor number.
pub const ENV_JOB_ID: &str = "RSHMEM_JOB_ID";
/// File descriptor number of the job's memory file, inherited from `oshrun`.
pub const ENV_JOB_FD: &str = "RSHMEM_JOB_FD";
/// Number of CPUs the job's PEs share (those `oshrun` may run on): a PE pinned
/// to one CPU cannot count them itself.
pub const ENV_JOB_CPUS: &str = "RSHMEM_JOB_CPUS";
/// Every variable above. The library removes them from its environment at
/// `shmem_init`: a program the PE starts later is not a PE of this job.
pub const ENV_ALL: [&str; 5] = [ENV_PE, ENV_NPES, ENV_JOB_ID, ENV_JOB_FD, ENV_JOB_CPUS];
/// Name of the job's memory file (seen as `/memfd:rshmem-job` in `/proc`).
pub const FILE_NAME: &str = "rshmem-job";
/// Name of a node's memory file of heaps on explicit huge pages
/// (`heap::huge`; `/memfd:<name>` in `/proc/PID/maps`).
pub const HEAP_FILE_NAME: &str = "rshmem-heap";

/// Identifies a control block written by this version of the contract; bumped
/// whenever the layout changes, so that an `oshrun` and a library of different
/// versions refuse each other instead of misreading the slots.
pub const MAGIC: u64 = u64::from_le_bytes(*b"rshmem05");

/// The job id as the header stores it: 64-bit FNV-1a of its text.
pub fn id_hash(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// Lifecycle of a PE as recorded in its slot.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeState {
    /// Started, has not called `shmem_init` yet (or never will).
    Absent = 0,
    /// Inside `shmem_init`, has published its layout proposal.
    Arrived = 1,
    /// Initialised and running.
    Running = 2,
    /// Passed `shmem_finalize`.
    Finalized = 3,
    /// Called `shmem_global_exit`; the status is in the slot.
    GlobalExit = 4,
    /// Stopped on a fatal library error; the message was printed by the PE.
    Failed = 5,
}

impl PeState {
    /// Decodes a state word; unknown values read as `Absent`.
    pub fn from_word(w: u32) -> PeState {
        match w {
            1 => PeState::Arrived,
            2 => PeState::Running,
            3 => PeState::Finalized,
            4 => PeState::GlobalExit,
            5 => PeState::Failed,
            _ => PeState::Absent,
        }
    }
}

/// Words used to put a PE's threads to sleep and wake them (see `wait`).
#[repr(C)]
#[derive(Default)]
pub struct Bell {
    /// Futex word: bumped by a writer that may have satisfied a sleeper.
    pub doorbell: AtomicU32,
    /// Number of this PE's threads currently (about to be) asleep on `doorbell`.
    pub sleepers: AtomicU32,
    /// Set by the writer that rings, cleared by the sleeper it woke: further
    /// writers skip the wake system call until then.
    pub rung: AtomicU32,
}

/// A PE's two bells: waits on its symmetric memory (`wait_until`), rung by
/// puts and atomics, and waits inside the library (barriers), rung by their
/// release. A put never wakes a PE that only waits in a barrier.
#[repr(C)]
#[derive(Default)]
pub struct WakeWords {
    /// Rung by puts and atomics, for waits on symmetric memory.
    pub memory: Bell,
    /// Rung by the library's own releases, for waits inside it (barriers).
    pub sync: Bell,
}

/// Per-PE bookkeeping other than waking.
#[repr(C)]
#[derive(Default)]
pub struct PeInfo {
    /// A [`PeState`] word.
    pub state: AtomicU32,
    /// Process id, for diagnostics.
    pub pid: AtomicI32,
    /// Status passed to `shmem_global_exit`.
    pub exit_status: AtomicI32,
    /// Size of this PE's writable program data (globals), as it measured it.
    pub want_data_len: AtomicU64,
    /// Symmetric heap size this PE parsed from the environment.
    pub want_heap_size: AtomicU64,
    /// The owners of the PE's thread places ([`Control::thread_place`]): the
    /// kernel thread id of the thread that claimed each, 0 when free.
    pub thread_owner: [AtomicU32; THREAD_SLOTS],
    /// Threads of the PE in a wait they could not publish: every thread
    /// place was taken.
    pub threads_unshown: AtomicU32,
}

/// Thread places per PE, for the waits of a PE at `SHMEM_THREAD_MULTIPLE`
/// (`stuck`). Four: a threaded OpenSHMEM program usually has a few
/// threads that communicate (a progress or communication thread and some
/// workers), and a report of more than four waits of one PE is hard to read
/// anyway; the others are counted ([`PeInfo::threads_unshown`]). Each costs a
/// 128-byte [`PlaceWords`], so the four double the control block (512 KiB
/// more at 1024 PEs, in the job's one file); but they are after every
/// [`PeSlot`], and nobody touches a PE's (not even a reader) before one of
/// its threads claims one, so a job without threaded waits maps no more
/// pages of memory than before.
pub const THREAD_SLOTS: usize = 4;

/// One PE's slot: the wake words and the rest on separate cache lines, because
/// the wake words are written by other PEs.
#[repr(C)]
#[derive(Default)]
pub struct PeSlot {
    /// The bells, written by other PEs.
    pub wake: CachePadded<WakeWords>,
    /// Other bookkeeping of the PE.
    pub info: CachePadded<PeInfo>,
    /// Where the PE was last seen.
    pub whereabouts: CachePadded<Whereabouts>,
    /// Where the PE blocks when its wait is not in a thread place.
    pub place: CachePadded<PlaceWords>,
}

/// Where a PE was last seen, for waiters deciding between spinning and giving
/// up their core when PEs outnumber cores (see `coll::barrier::world`), and
/// what it passed to the allocation routine of a world barrier.
/// Written only by the PE itself; hints, never relied on for correctness
/// (the allocation's arguments only for finding a mistake).
#[repr(C)]
#[derive(Default)]
pub struct Whereabouts {
    /// The world-barrier episode this PE last arrived at, plus one.
    pub arrived: AtomicU32,
    /// The CPU it ran on then (or when it last came back from yielding).
    pub cpu: AtomicU32,
    /// The finalize rendezvous episode this PE last arrived at, plus one.
    pub finalize_arrived: AtomicU32,
    /// The arguments of the allocation routine (`shmem_malloc` and the
    /// others) whose barrier this PE arrived at, by the parity of the
    /// barrier's episode: written before arriving, read by the other PEs
    /// only when the barrier found that the arrivals differ (`Episode::differs`),
    /// to say who differs and how, and not written again before the next
    /// barrier but one, which nobody passes before every PE has read
    /// (`transport::shm`). In the same line as
    /// `arrived`, which the PE writes at every barrier anyway.
    pub agreed: [AgreedWords; 2],
}

/// The episode word of a world rendezvous, and in the same line what its
/// last arriver found: waiters read both with one line.
#[repr(C)]
#[derive(Default)]
pub struct Episode {
    /// The episode number; waiters watch it change.
    pub number: AtomicU32,
    /// The episode + 1 whose arrivals passed different arguments (their
    /// fingerprints' sum is not the PE count times the last one's), written
    /// before the episode advances; any other value: they agreed.
    pub differs: AtomicU32,
}

/// One [`Whereabouts::agreed`] entry.
#[repr(C)]
#[derive(Default)]
pub struct AgreedWords {
    /// The barrier episode the entry is for, plus one (0: none yet).
    pub episode: AtomicU32,
    /// What the routine is (the caller's code, never 0).
    pub kind: AtomicU32,
    /// Its arguments.
    pub args: [AtomicU64; 2],
}

/// Longest routine name kept in [`PlaceWords::routine`] (longer ones are cut).
pub const ROUTINE_BYTES: usize = 40;

/// A routine name as [`PlaceWords::routine`] holds it: NUL-padded
/// little-endian bytes, cut at `ROUTINE_BYTES - 1`.
pub fn routine_words(name: &str) -> [u64; ROUTINE_BYTES / 8] {
    let mut bytes = [0u8; ROUTINE_BYTES];
    let n = name.len().min(ROUTINE_BYTES - 1);
    bytes[..n].copy_from_slice(&name.as_bytes()[..n]);
    std::array::from_fn(|i| u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().expect("8 bytes")))
}

/// The name [`routine_words`] encoded.
pub fn routine_text(words: &[u64]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Where a PE blocks, published only on the slow path of its waits (see
/// `stuck`), so that a job that can never finish is reported instead of
/// hanging. Written only by the PE itself, as a sequence lock.
#[repr(C)]
#[derive(Default)]
pub struct PlaceWords {
    /// Odd while the PE rewrites the words below; bumped at every change.
    pub seq: AtomicU32,
    /// A `stuck::Kind` (0: not in a blocking wait).
    pub kind: AtomicU32,
    /// The episode of the rendezvous the PE waits in (barrier_all, finalize).
    pub episode: AtomicU32,
    /// The last probe (see `JobHeader::probe`) after which the PE found its
    /// wait's condition still false.
    pub answered: AtomicU32,
    /// The routine's name, NUL-padded, little-endian bytes.
    pub routine: [AtomicU64; ROUTINE_BYTES / 8],
    /// When the PE published this place (`CLOCK_MONOTONIC`, ns): how long it
    /// has been blocked, for `oshrun`'s hang report.
    pub since_ns: AtomicU64,
    /// Published waits this PE has left: a PE whose count moves is not hung.
    pub progress: AtomicU64,
    /// The address a memory wait watches (0: none), in the PE's own space.
    pub addr: AtomicU64,
    /// The value it compares with, as the word's bits.
    pub value: AtomicU64,
    /// The comparison, the watched word and the team, packed ([`Shape`]) so
    /// that the slot stays one 128-byte line pair.
    pub shape: AtomicU32,
    /// How many words the wait watches (vector waits), at least 1.
    pub count: AtomicU32,
    /// The group a collective runs on, as world PEs: start, stride, size
    /// (size 0: not a collective).
    pub group_start: AtomicI32,
    /// Stride between the group's world PEs.
    pub group_stride: AtomicI32,
    /// PEs in the group; 0 when the wait is not a collective's.
    pub group_size: AtomicU32,
    /// World PEs the collective waits for at the moment (the first
    /// [`AWAITED_MAX`]), and how many there are.
    pub awaited: [AtomicU32; AWAITED_MAX],
    /// How many world PEs the collective waits for (may exceed [`AWAITED_MAX`]).
    pub awaited_n: AtomicU32,
}

impl PlaceWords {
    /// Reads the words with `read` as a sequence-lock reader: returns what it
    /// read and the sequence word, which is odd (1 if the PE changed them
    /// meanwhile) when the picture is not a stable one.
    pub fn read_seq<T>(&self, read: impl FnOnce(&PlaceWords) -> T) -> (T, u32) {
        let before = self.seq.load(Ordering::SeqCst);
        let seen = read(self);
        let seq = if self.seq.load(Ordering::SeqCst) == before {
            before
        } else {
            1
        };
        (seen, seq)
    }
}

/// The packed [`PlaceWords::shape`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// 0 none, else a `SHMEM_CMP_*` value (never 0).
    pub cmp: u32,
    /// The watched word: bytes (low 8 bits), 0x100 if signed.
    pub word: u32,
    /// Which team (a [`TEAM_TAGS`] index): the group alone cannot tell
    /// `SHMEM_TEAM_WORLD` from a copy of it.
    pub team: u32,
}

impl Shape {
    /// The shape packed into one word (cmp low 8 bits, word next 9, team top 8).
    pub fn pack(self) -> u32 {
        (self.cmp & 0xff) | (self.word & 0x1ff) << 8 | (self.team & 0xff) << 24
    }

    /// The shape packed in `w` by [`Shape::pack`].
    pub fn unpack(w: u32) -> Shape {
        Shape {
            cmp: w & 0xff,
            word: (w >> 8) & 0x1ff,
            team: w >> 24,
        }
    }
}

/// Awaited PEs a place records by number.
pub const AWAITED_MAX: usize = 4;

/// Names of [`Shape::team`]: 0 none, then the predefined teams, then
/// any other team and an active set (a deprecated collective's PE_start,
/// logPE_stride, PE_size).
pub const TEAM_TAGS: [&str; 6] = [
    "",
    "SHMEM_TEAM_WORLD",
    "SHMEM_TEAM_SHARED",
    "SHMEMX_TEAM_NODE",
    "team",
    "active set",
];
/// [`TEAM_TAGS`] index of a team that is not predefined.
pub const TEAM_TAG_OTHER: u32 = 4;
/// [`TEAM_TAGS`] index of an active set.
pub const TEAM_TAG_ACTIVE_SET: u32 = 5;

/// Job-wide words.
#[repr(C)]
#[derive(Default)]
pub struct JobHeader {
    /// [`MAGIC`] once the block is set up.
    pub magic: AtomicU64,
    /// Number of PEs in the job.
    pub npes: AtomicU32,
    /// 0 until PE 0 has sized the segment part of the file; then 1, or 2 when the
    /// PEs disagreed on the layout (every PE then reports and stops).
    pub layout_ready: AtomicU32,
    /// Byte offset in the file where PE 0's segment starts.
    pub seg_offset: AtomicU64,
    /// Distance in bytes between two PEs' segments.
    pub seg_stride: AtomicU64,
    /// Length of the globals part at the start of each segment (page multiple).
    pub data_len: AtomicU64,
    /// Length of the heap part that follows it.
    pub heap_size: AtomicU64,
    /// Length of the synchronisation arena at the end of each segment.
    pub sync_len: AtomicU64,
    /// What pages the heaps are on (`heap::huge::Pages::word`): 0, small
    /// pages of this file; else the page size in bytes, bit 0 set for
    /// transparent huge pages of this file, clear for a hugetlb file of
    /// the node's heaps.
    pub heap_pages: AtomicU64,
    /// With a hugetlb heap file, its descriptor number in the process of
    /// the node's first PE (which created it; the others open it through
    /// `/proc/<pid>/fd/<n>`).
    pub heap_fd: AtomicU64,
    /// [`id_hash`] of the job id `oshrun` passed in [`ENV_JOB_ID`] (0 in a
    /// file a 1-PE job made for itself).
    pub id_hash: AtomicU64,
    /// World barrier: arrivals in the current episode (bits 0..32), and the
    /// sum of the fingerprints of the arguments they compare (bits 32..64,
    /// modulo 2^32; `transport::shm`).
    pub barrier_count: CachePadded<AtomicU64>,
    /// World barrier: episode number; waiters watch it change.
    pub barrier_gen: CachePadded<Episode>,
    /// `shmem_finalize`'s own rendezvous (never mistaken for a user barrier):
    /// arrivals in the current episode.
    pub finalize_count: CachePadded<AtomicU64>,
    /// Finalize rendezvous: episode number.
    pub finalize_gen: CachePadded<Episode>,
    /// Bumped by a PE that suspects the job is stuck; blocked PEs answer it
    /// (see `stuck`).
    pub probe: AtomicU32,
    /// 0, or 1 + the PE that reports the job stuck (only one does).
    pub stuck_reporter: AtomicU32,
}

/// `CLOCK_MONOTONIC` in nanoseconds: the clock of [`PlaceWords::since_ns`],
/// the same for every process of the machine.
pub fn monotonic_ns() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: t is a valid out-parameter; CLOCK_MONOTONIC always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Bytes of control block for `npes` PEs, rounded up to whole pages.
pub fn control_len(npes: usize) -> usize {
    let raw = threads_offset(npes) + npes * THREAD_SLOTS * std::mem::size_of::<PlaceWords>();
    round_up(raw, page_size())
}

/// Where the thread places start: after the header and every PE's slot.
fn threads_offset(npes: usize) -> usize {
    std::mem::size_of::<CachePadded<JobHeader>>() + npes * std::mem::size_of::<PeSlot>()
}

/// The system page size.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 { p as usize } else { 4096 }
}

/// Rounds `v` up to a multiple of `to` (a power of two).
pub fn round_up(v: usize, to: usize) -> usize {
    debug_assert!(to.is_power_of_two());
    (v + to - 1) & !(to - 1)
}

/// A typed view of a mapped control block. It does not own the mapping.
#[derive(Clone, Copy)]
pub struct Control {
    base: *const u8,
    npes: usize,
}

// SAFETY: the control block holds only atomics; the view is a pointer to them.
unsafe impl Send for Control {}
// SAFETY: as above, every access goes through atomic operations.
unsafe impl Sync for Control {}

impl Control {
    /// Wraps a mapping of at least `control_len(npes)` bytes.
    ///
    /// # Safety
    /// `base` must point to such a mapping, page aligned, that outlives every use
    /// of the returned view, and whose contents are only accessed atomically.
    pub unsafe fn from_raw(base: *const u8, npes: usize) -> Control {
        Control { base, npes }
    }

    /// Number of PEs the block has slots for.
    pub fn npes(&self) -> usize {
        self.npes
    }

    /// The job-wide words.
    pub fn header(&self) -> &JobHeader {
        // SAFETY: from_raw's contract: the mapping is large enough, aligned, and
        // only holds atomics, which are valid at any bit pattern (including zero).
        unsafe { &*(self.base as *const CachePadded<JobHeader>) }
    }

    /// PE `pe`'s slot; panics if `pe` is out of range.
    pub fn slot(&self, pe: usize) -> &PeSlot {
        assert!(pe < self.npes, "control slot {pe} out of range");
        let off = std::mem::size_of::<CachePadded<JobHeader>>() + pe * std::mem::size_of::<PeSlot>();
        // SAFETY: as for header(); `off` stays inside control_len(npes) because
        // pe < npes, and PeSlot's alignment (128) divides both terms.
        unsafe { &*(self.base.add(off) as *const PeSlot) }
    }

    /// Thread place `i` of PE `pe` (see [`THREAD_SLOTS`]).
    pub fn thread_place(&self, pe: usize, i: usize) -> &PlaceWords {
        assert!(pe < self.npes && i < THREAD_SLOTS, "thread place {pe}/{i} out of range");
        let off = threads_offset(self.npes) + (pe * THREAD_SLOTS + i) * std::mem::size_of::<PlaceWords>();
        // SAFETY: as for header(); `off` stays inside control_len(npes)
        // because pe < npes and i < THREAD_SLOTS, and PlaceWords's alignment
        // (8) divides every term.
        unsafe { &*(self.base.add(off) as *const PlaceWords) }
    }

    /// PE `pe`'s state.
    pub fn state(&self, pe: usize) -> PeState {
        PeState::from_word(self.slot(pe).info.state.load(Ordering::Acquire))
    }

    /// Sets PE `pe`'s state to `s`.
    pub fn set_state(&self, pe: usize, s: PeState) {
        self.slot(pe).info.state.store(s as u32, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_cache_line_multiples() {
        assert_eq!(std::mem::size_of::<PeSlot>() % 128, 0);
        // A power of two: finding a PE's slot (on every put, to ring its
        // bell) is then a shift, not a multiplication.
        assert!(std::mem::size_of::<PeSlot>().is_power_of_two());
        assert_eq!(std::mem::size_of::<PlaceWords>(), 128);
        // The allocation's arguments share the line of `arrived`.
        assert!(std::mem::size_of::<Whereabouts>() <= 64);
        let s = Shape {
            cmp: 6,
            word: 0x108,
            team: 5,
        };
        assert_eq!(Shape::unpack(s.pack()), s);
        assert!(control_len(1) >= std::mem::size_of::<CachePadded<JobHeader>>() + 256);
        assert_eq!(control_len(3) % page_size(), 0);
        // The thread places: 128 bytes each, after the slots.
        assert_eq!(
            control_len(1024) - round_up(threads_offset(1024), page_size()),
            1024 * THREAD_SLOTS * 128
        );
    }

    #[test]
    fn views_address_distinct_slots() {
        let n = 4;
        let mut buf = vec![0u128; control_len(n) / 16];
        // SAFETY: buf is zeroed, 16-aligned memory of control_len(n) bytes; the
        // alignment of CachePadded (128) is not guaranteed, so over-align by hand.
        let base = buf.as_mut_ptr() as *mut u8;
        let aligned = round_up(base as usize, 128) as *const u8;
        let len = control_len(n) - (aligned as usize - base as usize);
        assert!(len >= std::mem::size_of::<CachePadded<JobHeader>>() + n * 256);
        // SAFETY: see above; only part of the buffer is used.
        let c = unsafe { Control::from_raw(aligned, n) };
        c.set_state(3, PeState::Finalized);
        assert_eq!(c.state(3), PeState::Finalized);
        assert_eq!(c.state(2), PeState::Absent);
        // The last PE's last thread place ends inside the block, and the
        // places of two PEs do not overlap.
        let last = c.thread_place(n - 1, THREAD_SLOTS - 1) as *const PlaceWords as usize;
        assert!(last + 128 <= aligned as usize + control_len(n));
        let a = c.thread_place(1, THREAD_SLOTS - 1) as *const PlaceWords as usize;
        let b = c.thread_place(2, 0) as *const PlaceWords as usize;
        assert_eq!(b - a, 128);
    }
}
