//! The world barrier: a sense-reversing counter in the control block.
//!
//! Each PE increments the arrival count; the last one resets it and advances the
//! episode number, which the others wait on. On one node this costs one
//! contended cache line per PE, which beats tree and dissemination barriers at
//! the PE counts a node holds. The last arriver rings the doorbell of every PE
//! with sleepers.

use crate::job::Control;
use crate::wait::{Waiter, notify};
use std::sync::atomic::Ordering;

pub fn world(control: &Control, waiter: &Waiter<'_>) {
    let npes = control.npes() as u32;
    let h = control.header();
    let episode = h.barrier_gen.load(Ordering::Acquire);
    // AcqRel: arrivals publish each PE's earlier writes to the last arriver,
    // whose release of the new episode passes them on to everyone.
    if h.barrier_count.fetch_add(1, Ordering::AcqRel) + 1 == npes {
        h.barrier_count.store(0, Ordering::Relaxed);
        h.barrier_gen.store(episode.wrapping_add(1), Ordering::Release);
        for pe in 0..control.npes() {
            notify(&control.slot(pe).wake.sync);
        }
    } else {
        waiter.wait(
            || h.barrier_gen.load(Ordering::Acquire) != episode,
            || {
                format!(
                    "the other PEs to reach the barrier (episode {episode}, {} of {npes} arrived)",
                    h.barrier_count.load(Ordering::Relaxed)
                )
            },
        );
    }
}
