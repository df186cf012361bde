//! `oshcc`: see `rshmem::wrapper`.
fn main() {
    std::process::exit(rshmem::wrapper::main(rshmem::wrapper::Lang::C))
}
