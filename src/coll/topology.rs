//! Who talks to whom: the communication graphs of the collective algorithms,
//! as pure functions of the group size, the rank and the root.
//!
//! The algorithms use them to decide where to signal, and the pairwise pSync
//! strategies (and the virtual-job footprint tool) use the same functions to
//! know which pairs of PEs ever exchange a signal: that set of pairs *is* the
//! pairwise strategies' memory footprint.

/// Largest power of two not above `n` (`n >= 1`).
pub(crate) fn pow2_floor(n: usize) -> usize {
    debug_assert!(n >= 1);
    1 << (usize::BITS - 1 - n.leading_zeros())
}

/// Recursive doubling over `n` ranks: ranks below `p` (the largest power of
/// two not above n) exchange with `r XOR 2^k` in round k; each of the
/// `n - p` extra ranks `r >= p` is folded onto `r - p` (= `r XOR p`) before
/// and after. The partners of a rank are the same for every collective and
/// every root, and for every group size with the same `p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cube {
    pub p: usize,
    pub extras: usize,
}

impl Cube {
    pub(crate) fn new(n: usize) -> Cube {
        let p = pow2_floor(n.max(1));
        Cube {
            p,
            extras: n.max(1) - p,
        }
    }

    /// Exchange rounds among the first `p` ranks.
    pub(crate) fn rounds(&self) -> usize {
        self.p.trailing_zeros() as usize
    }

    /// The rank `r` folds onto (`r >= p`) or that folds onto `r` (`r < extras`).
    pub(crate) fn fold(&self, r: usize) -> Option<usize> {
        if r >= self.p {
            Some(r - self.p)
        } else if r < self.extras {
            Some(r + self.p)
        } else {
            None
        }
    }

    /// Every rank that exchanges signals with `r` in a barrier or a reduction.
    pub(crate) fn peers(&self, r: usize) -> Vec<usize> {
        let mut v: Vec<usize> = self.fold(r).into_iter().collect();
        if r < self.p {
            v.extend((0..self.rounds()).map(|k| r ^ (1 << k)));
        }
        v
    }
}

/// How data flows through one rank in a tree broadcast: the rank it copies
/// from (none at the root) and the ranks that copy from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Flow {
    pub from: Option<usize>,
    pub to: Vec<usize>,
}

impl Flow {
    /// Every rank that signals this one in the broadcast (its source says
    /// "ready", its receivers say "done").
    pub(crate) fn peers(&self) -> Vec<usize> {
        self.from.iter().copied().chain(self.to.iter().copied()).collect()
    }
}

/// Broadcast over the recursive-doubling graph: an extra root first hands the
/// data to `root - p`; a binomial tree in XOR space (rank `v = r XOR root'`,
/// parent `v` without its highest bit) covers the first `p` ranks; each rank
/// `r < extras` passes it on to `r + p`. Every edge is a [`Cube`] edge, so the
/// root does not change who talks to whom.
pub(crate) fn cube_bcast(n: usize, r: usize, root: usize) -> Flow {
    let cube = Cube::new(n);
    let p = cube.p;
    let top = if root >= p { root - p } else { root };
    if r >= p {
        // An extra: the root hands to r - p; any other extra receives from it.
        return if r == root {
            Flow {
                from: None,
                to: vec![r - p],
            }
        } else {
            Flow {
                from: Some(r - p),
                to: vec![],
            }
        };
    }
    let v = r ^ top;
    let from = if r == top {
        (root != top).then_some(root)
    } else {
        let high = 1usize << (usize::BITS - 1 - v.leading_zeros());
        Some((v & !high) ^ top)
    };
    let low = if v == 0 { 0 } else { usize::BITS - v.leading_zeros() };
    let mut to: Vec<usize> = (low..usize::BITS)
        .map(|k| 1usize << k)
        .take_while(|&b| b < p)
        .map(|b| (v | b) ^ top)
        .collect();
    if r < cube.extras && r + p != root {
        to.push(r + p);
    }
    Flow { from, to }
}

/// Children of `v` in the binary heap over `n` ranks (2v + 1, 2v + 2).
fn heap_children(v: usize, n: usize) -> impl Iterator<Item = usize> {
    (2 * v + 1..(2 * v + 3).min(n)).filter(move |&c| c < n)
}

/// The binary tree rooted at rank 0 (heap order): parent and children.
pub(crate) fn binary_tree(n: usize, r: usize) -> Flow {
    Flow {
        from: (r > 0).then(|| (r - 1) / 2),
        to: heap_children(r, n).collect(),
    }
}

/// Broadcast over a balanced binary tree re-rooted at the root: the heap on
/// relative ranks `(r - root) mod n`. Its edges change with the root.
pub(crate) fn rooted_tree_bcast(n: usize, r: usize, root: usize) -> Flow {
    let v = (r + n - root) % n;
    let abs = |x: usize| (x + root) % n;
    Flow {
        from: (v > 0).then(|| abs((v - 1) / 2)),
        to: heap_children(v, n).map(abs).collect(),
    }
}

/// Whether `x` is in the subtree of `c` in the heap rooted at 0.
fn in_subtree(mut x: usize, c: usize) -> bool {
    while x > c {
        x = (x - 1) / 2;
    }
    x == c
}

/// Broadcast over the one binary tree rooted at rank 0, whatever the root:
/// the data spreads from the root along the tree's edges, up towards rank 0
/// and down every other branch. The edges never change (at most three
/// partners per rank); paths from a root deep in the tree are up to twice as
/// long.
pub(crate) fn fixed_tree_bcast(n: usize, r: usize, root: usize) -> Flow {
    let tree = binary_tree(n, r);
    let mut neighbours: Vec<usize> = tree.to.clone();
    neighbours.extend(tree.from);
    let from = if r == root {
        None
    } else {
        // Towards the root: the child whose subtree holds it, else the parent.
        Some(
            tree.to
                .iter()
                .copied()
                .find(|&c| in_subtree(root, c))
                .or(tree.from)
                .expect("a rank other than the root has a path to it"),
        )
    };
    let to = neighbours.into_iter().filter(|&x| Some(x) != from).collect();
    Flow { from, to }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rank but the root receives exactly once, from a rank that lists it.
    fn check_flow(n: usize, f: impl Fn(usize, usize, usize) -> Flow) {
        for root in 0..n {
            let flows: Vec<Flow> = (0..n).map(|r| f(n, r, root)).collect();
            let mut got = vec![0; n];
            for (r, fl) in flows.iter().enumerate() {
                assert_eq!(fl.from.is_none(), r == root, "n {n} root {root} r {r}");
                if let Some(s) = fl.from {
                    assert!(flows[s].to.contains(&r), "n {n} root {root}: {s} does not send to {r}");
                }
                for &t in &fl.to {
                    assert_eq!(flows[t].from, Some(r));
                    got[t] += 1;
                }
            }
            got[root] += 1;
            assert!(got.iter().all(|&g| g == 1), "n {n} root {root}: {got:?}");
            // Data reaches everyone: follow `from` links to the root.
            for r in 0..n {
                let (mut x, mut hops) = (r, 0);
                while let Some(s) = flows[x].from {
                    x = s;
                    hops += 1;
                    assert!(hops <= n);
                }
                assert_eq!(x, root);
            }
        }
    }

    #[test]
    fn broadcast_flows_are_trees() {
        for n in 1..40 {
            check_flow(n, cube_bcast);
            check_flow(n, rooted_tree_bcast);
            check_flow(n, fixed_tree_bcast);
        }
    }

    #[test]
    fn cube_edges_do_not_depend_on_root_or_size() {
        for n in 1..70usize {
            let cube = Cube::new(n);
            for r in 0..n {
                let peers = cube.peers(r);
                for root in 0..n {
                    for x in cube_bcast(n, r, root).peers() {
                        assert!(peers.contains(&x), "n {n} r {r} root {root}: {x} not in {peers:?}");
                    }
                }
                for x in peers {
                    assert!((x ^ r).is_power_of_two() && x < n);
                }
            }
        }
    }

    #[test]
    fn fixed_tree_keeps_three_neighbours() {
        for n in 1..50 {
            for r in 0..n {
                let tree = binary_tree(n, r).peers();
                for root in 0..n {
                    for x in fixed_tree_bcast(n, r, root).peers() {
                        assert!(tree.contains(&x));
                    }
                }
                assert!(tree.len() <= 3);
            }
        }
    }
}
