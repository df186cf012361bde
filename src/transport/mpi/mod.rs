//! The remote half of the hybrid transport: PEs on other nodes, reached
//! through MPI-3 one-sided communication via [`shim`].

pub(crate) mod shim;
