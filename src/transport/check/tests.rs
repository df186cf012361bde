//! Two PEs of one job simulated in one process: two `Checking` views over the
//! same control block, segments and mailboxes, each touching only its own
//! segment. The test plays the scheduler: a target serves only when it calls
//! `progress` (or waits for a reply of its own).

use super::Checking;
use super::area::{Area, CHUNK};
use crate::heap::{Segments, SymOffset};
use crate::job::{self, Control};
use crate::transport::Transport;
use crate::types::AmoOp;
use crate::wait::backoff::Policy;
use std::sync::atomic::{AtomicBool, Ordering};

const STRIDE: usize = 64 << 10;

/// Zeroed memory aligned to 4096 bytes, kept alive by the returned vector.
fn zeroed(len: usize) -> (Vec<u8>, *mut u8) {
    let mut v = vec![0u8; len + 4096];
    let p = (v.as_mut_ptr() as usize).next_multiple_of(4096) as *mut u8;
    (v, p)
}

struct Job {
    pes: [Checking; 2],
    /// Address of PE 0's segment (an address, so the job is shared by threads).
    segments: usize,
    _memory: [Vec<u8>; 3],
}

impl Job {
    fn new() -> Job {
        let (c, control) = zeroed(job::control_len(2));
        let (s, segments) = zeroed(2 * STRIDE);
        let (a, area) = zeroed(Area::len(2, 4096));
        // SAFETY: a zeroed, page-aligned control block for 2 PEs that lives
        // as long as the job (its vector is in `_memory`).
        let control = unsafe { Control::from_raw(control, 2) };
        let pe = |me| {
            let segs = Segments {
                base: segments,
                stride: STRIDE,
                npes: 2,
                me,
                data: None,
                data_len: 0,
                heap_len: STRIDE,
                sync_off: STRIDE,
                sync_len: 0,
            };
            // SAFETY: the area is zeroed, page aligned, as long as
            // Area::len(2) and lives as long as the job.
            unsafe { Checking::new(segs, control, area, Policy::for_job(2, 2, None), 0.0) }
        };
        Job {
            pes: [pe(0), pe(1)],
            segments: segments as usize,
            _memory: [c, s, a],
        }
    }

    /// PE `pe`'s segment at `off`, as the test sees it.
    fn at(&self, pe: usize, off: usize) -> *mut u8 {
        (self.segments + pe * STRIDE + off) as *mut u8
    }

    fn read_u64(&self, pe: usize, off: usize) -> u64 {
        // SAFETY: inside the segments' buffer, 8-aligned.
        unsafe { (self.at(pe, off) as *const u64).read_volatile() }
    }

    /// Runs `body` while PE 1 serves from another thread.
    fn with_pe1_serving(&self, body: impl FnOnce()) {
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    self.pes[1].progress();
                    std::hint::spin_loop();
                }
            });
            body();
            stop.store(true, Ordering::Relaxed);
        });
    }
}

#[test]
fn a_put_nbi_lands_only_when_the_target_serves() {
    let job = Job::new();
    let v = 0x1122_3344_5566_7788u64;
    // SAFETY: 8 readable bytes; offset 64 is inside PE 1's segment.
    unsafe { job.pes[0].put_nbi(1, SymOffset(64), &v as *const u64 as *const u8, 8) };
    assert_eq!(job.read_u64(1, 64), 0, "written before PE 1 served it");
    job.pes[1].progress();
    assert_eq!(job.read_u64(1, 64), v);
    job.pes[0].quiet(); // served already: returns at once
}

#[test]
fn a_get_nbi_writes_its_destination_at_quiet() {
    let job = Job::new();
    // SAFETY: inside PE 1's segment, 8-aligned.
    unsafe { (job.at(1, 128) as *mut u64).write(42) };
    let mut dst = 0u64;
    // SAFETY: dst stays writable until the quiet below.
    unsafe { job.pes[0].get_nbi(1, SymOffset(128), &mut dst as *mut u64 as *mut u8, 8) };
    job.pes[1].progress();
    // SAFETY: dst is a live local; volatile so the check really reads it.
    let before = unsafe { (&dst as *const u64).read_volatile() };
    assert_eq!(before, 0, "written before quiet");
    job.pes[0].quiet();
    assert_eq!(dst, 42);
}

#[test]
fn every_operation_is_executed_by_the_target() {
    let job = Job::new();
    job.with_pe1_serving(|| {
        let pe0 = &job.pes[0];
        // Several chunks, and a tail: more requests than the mailbox's slots.
        let data: Vec<u8> = (0..3 * CHUNK + 5).map(|i| (i % 251) as u8).collect();
        let mut back = vec![0u8; data.len()];
        // SAFETY: the buffers hold data.len() bytes; offsets 0..data.len()
        // and the words used below lie in PE 1's segment.
        unsafe {
            pe0.put(1, SymOffset(0), data.as_ptr(), data.len());
            pe0.get(1, SymOffset(0), back.as_mut_ptr(), back.len());
            assert!(back == data);
            let w = SymOffset(STRIDE - 64);
            pe0.put_value(1, w, 5u64);
            assert_eq!(pe0.atomic(1, w, AmoOp::Add(3u64)), 5);
            assert_eq!(pe0.get_value::<u64>(1, w), 8);
            let half = SymOffset(STRIDE - 56);
            assert_eq!(pe0.atomic(1, half, AmoOp::CompareSwap(0i32, -7)), 0);
            assert_eq!(pe0.atomic(1, half, AmoOp::<i32>::Fetch), -7);
            let mut fetched = 0u64;
            pe0.atomic_nbi(1, w, AmoOp::Swap(1u64), &mut fetched);
            pe0.quiet();
            assert_eq!(fetched, 8);
            let sig = SymOffset(STRIDE - 48);
            assert_eq!(
                pe0.put_signal(1, SymOffset(0), data.as_ptr(), 100, sig, AmoOp::Add(2)),
                0
            );
            pe0.flag_add(1, sig, 1);
            assert_eq!(job.read_u64(1, STRIDE - 48), 3);
            // Every third u16 from a packed source, and back.
            let src: Vec<u16> = (0..5000).collect();
            pe0.put_strided(1, SymOffset(2), 3, src.as_ptr(), 1, src.len());
            let mut got = vec![0u16; src.len()];
            pe0.get_strided(1, SymOffset(2), 3, got.as_mut_ptr(), 1, got.len());
            assert!(got == src);
        }
    });
}

#[test]
fn two_pes_requesting_from_each_other_at_once_both_finish() {
    let job = Job::new();
    let rounds = 2000u64;
    let finished = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for me in 0..2 {
            let (pe, finished) = (&job.pes[me], &finished);
            s.spawn(move || {
                for _ in 0..rounds {
                    // SAFETY: an 8-aligned word of the other PE's segment.
                    unsafe { pe.atomic(1 - me, SymOffset(256), AmoOp::Add(1u64)) };
                }
                // Serve until the other PE is done with this one too (a
                // program's final barrier would).
                finished.fetch_add(1, Ordering::SeqCst);
                while finished.load(Ordering::SeqCst) < 2 {
                    pe.progress();
                }
            });
        }
    });
    assert_eq!(job.read_u64(0, 256), rounds);
    assert_eq!(job.read_u64(1, 256), rounds);
}
