//! The named choices of the environment: the pSync strategy
//! (`SHMEM_PSYNC_STRATEGY`) and the four `SHMEM_*_ALGORITHM` variables, as
//! enums parsed once by `Config`.
//!
//! Each enum's list of accepted names is derived from its variants: a name
//! comes from an exhaustive `match` (or, for the algorithms, from the same
//! macro row as the variant), so a variant without a name, or a listed
//! name that no variant parses, does not compile.

use core::ffi::CStr;

/// The communication graph of a pairwise strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Graph {
    /// Recursive doubling (`r XOR 2^k`, extra ranks folded): fixed edges.
    RecursiveDoubling,
    /// A balanced binary tree rooted at each collective's root.
    Tree,
    /// One binary tree rooted at rank 0, whatever the root.
    FixedTree,
}

/// A reuse strategy of synchronisation memory (see `psync`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// One sync array per team, from its creation to its destruction.
    Traditional,
    /// A pool of arrays per team, freed by lazy release messages to the team's rank 0.
    ExtraSync,
    /// A pool of arrays per team, unlocked when a barrier of the team completes; no extra messages.
    BarrierUnlock,
    /// No arrays: one location per partner PE, shared by every team, signalled along the graph.
    Pairwise(Graph),
}

impl Strategy {
    /// Every strategy, in the order of the documentation.
    pub const ALL: [Strategy; 6] = [
        Strategy::Traditional,
        Strategy::ExtraSync,
        Strategy::BarrierUnlock,
        Strategy::Pairwise(Graph::RecursiveDoubling),
        Strategy::Pairwise(Graph::Tree),
        Strategy::Pairwise(Graph::FixedTree),
    ];

    /// The name `SHMEM_PSYNC_STRATEGY` takes, NUL-terminated for C callers.
    pub const fn cname(self) -> &'static CStr {
        match self {
            Strategy::Traditional => c"traditional",
            Strategy::ExtraSync => c"extra-sync",
            Strategy::BarrierUnlock => c"barrier-unlock",
            Strategy::Pairwise(Graph::RecursiveDoubling) => c"pairwise-rd",
            Strategy::Pairwise(Graph::Tree) => c"pairwise-tree",
            Strategy::Pairwise(Graph::FixedTree) => c"pairwise-tree-fixed",
        }
    }

    /// The name `SHMEM_PSYNC_STRATEGY` takes (as [`Strategy::cname`], without the NUL).
    pub const fn name(self) -> &'static str {
        match core::str::from_utf8(self.cname().to_bytes()) {
            Ok(s) => s,
            Err(_) => panic!("strategy names are ASCII"),
        }
    }

    /// The strategy called `name`, or `None` if no strategy has that name.
    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// Names accepted by `SHMEM_PSYNC_STRATEGY`.
pub const STRATEGIES: &[&str] = &{
    let mut names = [""; Strategy::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = Strategy::ALL[i].name();
        i += 1;
    }
    names
};

/// An enum of named choices: the variants, their names, the list of names
/// and the parser all come from one row per variant.
macro_rules! named_choice {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        // `Strategy` and its names are public (`psync` re-exports them for
        // the simulator's users); the algorithms are the crate's.
        #[allow(unreachable_pub)]
        pub enum $name {
            $($(#[$vm])* $v),+
        }

        #[allow(unreachable_pub)]
        impl $name {
            /// Every choice, in the order of the documentation (the names
            /// are `NAMES`; this list is for the round-trip test).
            #[cfg(test)]
            #[allow(dead_code)]
            pub const ALL: &'static [$name] = &[$($name::$v),+];
            /// The accepted names, in the order of `ALL`.
            pub const NAMES: &'static [&'static str] = &[$($s),+];

            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$v => $s),+
                }
            }

            pub fn from_name(name: &str) -> Option<$name> {
                match name {
                    $($s => Some($name::$v),)+
                    _ => None,
                }
            }
        }
    };
}

named_choice! {
    /// `SHMEM_BARRIER_ALGORITHM`.
    BarrierAlgorithm {
        Auto = "auto",
        Dissemination = "dissemination",
        RecursiveDoubling = "recursive-doubling",
        Tree = "tree",
        Linear = "linear",
        Complete = "complete",
    }
}

named_choice! {
    /// `RSHMEM_REMOTE`: the engine to the PEs of other nodes.
    RemoteEngine {
        Auto = "auto",
        Ucx = "ucx",
        Mpi = "mpi",
    }
}

named_choice! {
    /// `RSHMEM_NBC_THREAD`: who runs the non-blocking collectives.
    NbcThread {
        Auto = "auto",
        On = "on",
        Off = "off",
    }
}

named_choice! {
    /// `SHMEM_BCAST_ALGORITHM`.
    BcastAlgorithm {
        Auto = "auto",
        Linear = "linear",
        Binomial = "binomial",
    }
}

named_choice! {
    /// `SHMEM_REDUCE_ALGORITHM`.
    ReduceAlgorithm {
        Auto = "auto",
        Linear = "linear",
        RecursiveDoubling = "recursive-doubling",
        Ring = "ring",
        ScatterGather = "scatter-gather",
    }
}

named_choice! {
    /// `SHMEM_COLLECT_ALGORITHM`.
    CollectAlgorithm {
        Auto = "auto",
        Linear = "linear",
        Ring = "ring",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Strategy::ALL {
            assert_eq!(Strategy::from_name(s.name()), Some(s));
        }
        assert_eq!(STRATEGIES.len(), Strategy::ALL.len());
        assert_eq!(Strategy::from_name("nope"), None);
        for a in BarrierAlgorithm::ALL {
            assert_eq!(BarrierAlgorithm::from_name(a.name()), Some(*a));
        }
        for (a, n) in ReduceAlgorithm::ALL.iter().zip(ReduceAlgorithm::NAMES) {
            assert_eq!(a.name(), *n);
        }
        assert_eq!(BcastAlgorithm::from_name("binomial"), Some(BcastAlgorithm::Binomial));
        assert_eq!(CollectAlgorithm::from_name("tree"), None);
    }
}
