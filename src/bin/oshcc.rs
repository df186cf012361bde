//! `oshcc`: see `rshmem::wrapper`.
fn main() {
    std::process::exit(rshmem::wrapper::main())
}
