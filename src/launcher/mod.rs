//! `oshrun`: starts the PEs of a job and watches them.

/// Runs the launcher with the process arguments; returns its exit status.
pub fn main() -> i32 {
    eprintln!("oshrun: not built yet");
    2
}
