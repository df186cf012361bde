//! coll
