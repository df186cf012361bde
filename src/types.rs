//! types
