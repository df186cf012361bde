//! `shmemrun`: see `rshmem::launcher`.
fn main() {
    std::process::exit(rshmem::launcher::main())
}
