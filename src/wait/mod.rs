//! wait
