// The non-blocking collectives' typed families (included by `table.rs`):
// every team collective's blocking parameters, then the request. The draft
// of OpenSHMEM pull request 456 names broadcast and alltoall; rshmem gives
// every team collective the same form. `shmemx_` aliases: the public Open
// MPI branch's names.

// The non-blocking forms: the blocking parameters and the request.
const TEAM_BCAST_NB: &[(&str, &str)] = &[
    ("shmem_team_t", "team"),
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("size_t", "nelems"),
    ("int", "PE_root"),
    ("shmem_req_h *", "request"),
];
const TEAM_DEST_SRC_N_NB: &[(&str, &str)] = &[
    ("shmem_team_t", "team"),
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("size_t", "nelems"),
    ("shmem_req_h *", "request"),
];
const TEAM_STRIDED_NB: &[(&str, &str)] = &[
    ("shmem_team_t", "team"),
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("ptrdiff_t", "dst"),
    ("ptrdiff_t", "sst"),
    ("size_t", "nelems"),
    ("shmem_req_h *", "request"),
];
const TEAM_REDUCE_NB: &[(&str, &str)] = &[
    ("shmem_team_t", "team"),
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("size_t", "nreduce"),
    ("shmem_req_h *", "request"),
];
/// The non-blocking families, after the base table's.
const NB_FAMILIES: &[Family] = &[
    fam(
        "shmem_{T}_broadcast_nb",
        "int",
        TEAM_BCAST_NB,
        Types::Rma,
        "nbc::broadcast_nb",
    )
    .sized("shmem_broadcast{N}_nb")
    .mem("shmem_broadcastmem_nb")
    .generic_at("shmem_broadcast_nb", 1)
    .shmemx(),
    fam(
        "shmem_{T}_collect_nb",
        "int",
        TEAM_DEST_SRC_N_NB,
        Types::Rma,
        "nbc::collect_nb",
    )
    .sized("shmem_collect{N}_nb")
    .mem("shmem_collectmem_nb")
    .generic_at("shmem_collect_nb", 1)
    .shmemx(),
    fam(
        "shmem_{T}_fcollect_nb",
        "int",
        TEAM_DEST_SRC_N_NB,
        Types::Rma,
        "nbc::fcollect_nb",
    )
    .sized("shmem_fcollect{N}_nb")
    .mem("shmem_fcollectmem_nb")
    .generic_at("shmem_fcollect_nb", 1)
    .shmemx(),
    fam(
        "shmem_{T}_alltoall_nb",
        "int",
        TEAM_DEST_SRC_N_NB,
        Types::Rma,
        "nbc::alltoall_nb",
    )
    .sized("shmem_alltoall{N}_nb")
    .mem("shmem_alltoallmem_nb")
    .generic_at("shmem_alltoall_nb", 1)
    .shmemx(),
    fam(
        "shmem_{T}_alltoalls_nb",
        "int",
        TEAM_STRIDED_NB,
        Types::Rma,
        "nbc::alltoalls_nb",
    )
    .sized("shmem_alltoalls{N}_nb")
    .mem("shmem_alltoallsmem_nb")
    .generic_at("shmem_alltoalls_nb", 1)
    .shmemx(),
    fam(
        "shmem_{T}_and_reduce_nb",
        "int",
        TEAM_REDUCE_NB,
        Types::Of(REDUCE_BITWISE),
        "nbc::and_reduce_nb",
    )
    .generic_at("shmem_and_reduce_nb", 1)
    .shmemx(),
    fam(
        "shmem_{T}_or_reduce_nb",
        "int",
        TEAM_REDUCE_NB,
        Types::Of(REDUCE_BITWISE),
        "nbc::or_reduce_nb",
    )
    .generic_at("shmem_or_reduce_nb", 1)
    .shmemx(),
    fam(
        "shmem_{T}_xor_reduce_nb",
        "int",
        TEAM_REDUCE_NB,
        Types::Of(REDUCE_BITWISE),
        "nbc::xor_reduce_nb",
    )
    .generic_at("shmem_xor_reduce_nb", 1)
    .shmemx(),
    fam(
        "shmem_{T}_max_reduce_nb",
        "int",
        TEAM_REDUCE_NB,
        Types::Of(REDUCE_MINMAX),
        "nbc::max_reduce_nb",
    )
    .generic_at("shmem_max_reduce_nb", 1)
    .shmemx(),
    fam(
        "shmem_{T}_min_reduce_nb",
        "int",
        TEAM_REDUCE_NB,
        Types::Of(REDUCE_MINMAX),
        "nbc::min_reduce_nb",
    )
    .generic_at("shmem_min_reduce_nb", 1)
    .shmemx(),
    fam(
        "shmem_{T}_sum_reduce_nb",
        "int",
        TEAM_REDUCE_NB,
        Types::Of(REDUCE_ARITH),
        "nbc::sum_reduce_nb",
    )
    .generic_at("shmem_sum_reduce_nb", 1)
    .shmemx(),
    fam(
        "shmem_{T}_prod_reduce_nb",
        "int",
        TEAM_REDUCE_NB,
        Types::Of(REDUCE_ARITH),
        "nbc::prod_reduce_nb",
    )
    .generic_at("shmem_prod_reduce_nb", 1)
    .shmemx(),
    fam(
        "shmem_{T}_sum_inscan_nb",
        "int",
        TEAM_DEST_SRC_N_NB,
        Types::Of(REDUCE_ARITH),
        "nbc::sum_inscan_nb",
    )
    .generic_at("shmem_sum_inscan_nb", 1)
    .shmemx(),
    fam(
        "shmem_{T}_sum_exscan_nb",
        "int",
        TEAM_DEST_SRC_N_NB,
        Types::Of(REDUCE_ARITH),
        "nbc::sum_exscan_nb",
    )
    .generic_at("shmem_sum_exscan_nb", 1)
    .shmemx(),
];

/// Every typed family, in the order the header lists them: the base table,
/// then the non-blocking collectives.
pub(crate) const FAMILIES: &[Family] = &ALL_FAMILIES;

// A const, not a static: `FAMILIES` is a const, which build scripts and the
// generated code index at compile time.
#[allow(clippy::large_const_arrays)]
const ALL_FAMILIES: [Family; BASE_FAMILIES.len() + NB_FAMILIES.len()] = concat(BASE_FAMILIES, NB_FAMILIES);

/// `a` then `b`, at compile time.
const fn concat<const N: usize>(a: &[Family], b: &[Family]) -> [Family; N] {
    let mut out = [a[0]; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}
