//! The one source of truth for the typed C API: the typed routine families,
//! over the type sets of `type_sets.rs`. The untyped prototypes are in
//! `protos.rs`, the library constants and handle types in `src/constants.rs`.
//!
//! These files are plain data with no dependencies: `build.rs` includes them
//! with `#[path]` to generate `$OUT_DIR/exports.rs` (one `#[no_mangle]`
//! function per symbol, each a one-line call into a generic shim in `ffi/`) and
//! `$OUT_DIR/shmem.h` (prototypes and C11 `_Generic` selectors).
#![allow(dead_code)]

pub(crate) use super::type_sets::*;

/// A family of typed routines that share one signature and one shim.
#[derive(Clone, Copy)]
pub(crate) struct Family {
    /// Name with `{T}` for the TYPENAME, e.g. `shmem_{T}_put`.
    pub typed: &'static str,
    /// Name of the sized forms with `{N}`, e.g. `shmem_put{N}`, if any.
    pub sized: Option<&'static str>,
    /// Name of the byte form, e.g. `shmem_putmem`, if any.
    pub mem: Option<&'static str>,
    /// C return type; `TYPE` stands for the element type.
    pub ret: &'static str,
    /// C parameters (type, name); `TYPE` stands for the element type.
    pub params: &'static [(&'static str, &'static str)],
    pub types: Types,
    /// Whether `shmem_ctx_*` forms with a leading `shmem_ctx_t ctx` exist.
    pub ctx: bool,
    /// Whether the shim takes a context (the default one for forms without).
    pub shim_ctx: bool,
    /// The generic shim the export calls, under `crate::ffi`.
    pub shim: &'static str,
    /// C11 generic name and the index (among `params`) of the argument whose
    /// type selects the routine.
    pub generic: Option<(&'static str, usize)>,
    /// Also exported as `shmemx_` names (with `pshmemx_` twins, declared in
    /// `shmemx.h`): Sandia OpenSHMEM's names for what OpenSHMEM 1.6 made
    /// standard, so programs written for it link unchanged.
    pub shmemx: bool,
    /// Open MPI OSHMEM's `shmemx_` extensions (the family's names start with
    /// `shmemx_`): declared in `shmemx.h` (their `pshmemx_` twins in
    /// `pshmemx.h`), not `shmem.h`.
    pub oshmem: bool,
    /// With [`oshmem`](Self::oshmem): OSHMEM's `shmemx.h` also maps the
    /// `shmem_` name to it with a macro (`shmem_int32_fadd` is
    /// `shmemx_int32_fadd`), and so does rshmem's.
    pub oshmem_macro: bool,
}

/// A family without context forms, sized or byte forms, or generic.
const fn fam(
    typed: &'static str,
    ret: &'static str,
    params: &'static [(&'static str, &'static str)],
    types: Types,
    shim: &'static str,
) -> Family {
    Family {
        typed,
        sized: None,
        mem: None,
        ret,
        params,
        types,
        ctx: false,
        shim_ctx: false,
        shim,
        generic: None,
        shmemx: false,
        oshmem: false,
        oshmem_macro: false,
    }
}

/// An Open MPI OSHMEM `shmemx_` family over `types` ([`Family::oshmem`]).
const fn oshmem(
    typed: &'static str,
    ret: &'static str,
    params: &'static [(&'static str, &'static str)],
    types: &'static [&'static str],
    shim: &'static str,
    macro_too: bool,
) -> Family {
    fam(typed, ret, params, Types::Of(types), shim).oshmem(macro_too)
}

/// [`oshmem`] whose shim takes the default context.
const fn oshmem_ctx(
    typed: &'static str,
    ret: &'static str,
    params: &'static [(&'static str, &'static str)],
    types: &'static [&'static str],
    shim: &'static str,
    macro_too: bool,
) -> Family {
    oshmem(typed, ret, params, types, shim, macro_too).default_ctx()
}

impl Family {
    /// Adds the `shmem_ctx_*` forms.
    const fn ctx(mut self) -> Self {
        self.ctx = true;
        self.shim_ctx = true;
        self
    }
    /// No context forms, but the shim takes the default context.
    const fn default_ctx(mut self) -> Self {
        self.shim_ctx = true;
        self
    }
    const fn sized(mut self, pattern: &'static str) -> Self {
        self.sized = Some(pattern);
        self
    }
    const fn mem(mut self, name: &'static str) -> Self {
        self.mem = Some(name);
        self
    }
    /// C11 generic selecting on the first argument (after a context).
    const fn generic(mut self, name: &'static str) -> Self {
        self.generic = Some((name, 0));
        self
    }
    /// Adds the `shmemx_` alias of every routine of the family.
    const fn shmemx(mut self) -> Self {
        self.shmemx = true;
        self
    }
    /// Open MPI OSHMEM's extension, declared in `shmemx.h`; `macro_too`: its
    /// `shmem_` name is a macro for it there ([`Family::oshmem_macro`]).
    const fn oshmem(mut self, macro_too: bool) -> Self {
        self.oshmem = true;
        self.oshmem_macro = macro_too;
        self
    }
    /// C11 generic selecting on argument `arg` (0-based).
    const fn generic_at(mut self, name: &'static str, arg: usize) -> Self {
        self.generic = Some((name, arg));
        self
    }
}

const DEST_SRC_N_PE: &[(&str, &str)] = &[
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("size_t", "nelems"),
    ("int", "pe"),
];
const STRIDED: &[(&str, &str)] = &[
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("ptrdiff_t", "dst"),
    ("ptrdiff_t", "sst"),
    ("size_t", "nelems"),
    ("int", "pe"),
];
const BLOCK_STRIDED: &[(&str, &str)] = &[
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("ptrdiff_t", "dst"),
    ("ptrdiff_t", "sst"),
    ("size_t", "bsize"),
    ("size_t", "nblocks"),
    ("int", "pe"),
];
const PUT_SIGNAL: &[(&str, &str)] = &[
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("size_t", "nelems"),
    ("uint64_t *", "sig_addr"),
    ("uint64_t", "signal"),
    ("int", "sig_op"),
    ("int", "pe"),
];
const AMO_SOURCE: &[(&str, &str)] = &[("const TYPE *", "source"), ("int", "pe")];
const AMO_DEST: &[(&str, &str)] = &[("TYPE *", "dest"), ("int", "pe")];
const AMO_VALUE: &[(&str, &str)] = &[("TYPE *", "dest"), ("TYPE", "value"), ("int", "pe")];
const AMO_CSWAP: &[(&str, &str)] = &[("TYPE *", "dest"), ("TYPE", "cond"), ("TYPE", "value"), ("int", "pe")];
const NBI_SOURCE: &[(&str, &str)] = &[("TYPE *", "fetch"), ("const TYPE *", "source"), ("int", "pe")];
const NBI_DEST: &[(&str, &str)] = &[("TYPE *", "fetch"), ("TYPE *", "dest"), ("int", "pe")];
const NBI_VALUE: &[(&str, &str)] = &[
    ("TYPE *", "fetch"),
    ("TYPE *", "dest"),
    ("TYPE", "value"),
    ("int", "pe"),
];
const NBI_CSWAP: &[(&str, &str)] = &[
    ("TYPE *", "fetch"),
    ("TYPE *", "dest"),
    ("TYPE", "cond"),
    ("TYPE", "value"),
    ("int", "pe"),
];
const WAIT_ONE: &[(&str, &str)] = &[("TYPE *", "ivar"), ("int", "cmp"), ("TYPE", "cmp_value")];
/// The deprecated `shmem_TYPE_wait`: until `*ivar != cmp_value`.
const DEPRECATED_WAIT_ONE: &[(&str, &str)] = &[("TYPE *", "ivar"), ("TYPE", "cmp_value")];
const WAIT_SET: &[(&str, &str)] = &[
    ("TYPE *", "ivars"),
    ("size_t", "nelems"),
    ("const int *", "status"),
    ("int", "cmp"),
    ("TYPE", "cmp_value"),
];
const WAIT_SOME: &[(&str, &str)] = &[
    ("TYPE *", "ivars"),
    ("size_t", "nelems"),
    ("size_t *", "indices"),
    ("const int *", "status"),
    ("int", "cmp"),
    ("TYPE", "cmp_value"),
];
const WAIT_SET_VECTOR: &[(&str, &str)] = &[
    ("TYPE *", "ivars"),
    ("size_t", "nelems"),
    ("const int *", "status"),
    ("int", "cmp"),
    ("const TYPE *", "cmp_values"),
];
const WAIT_SOME_VECTOR: &[(&str, &str)] = &[
    ("TYPE *", "ivars"),
    ("size_t", "nelems"),
    ("size_t *", "indices"),
    ("const int *", "status"),
    ("int", "cmp"),
    ("const TYPE *", "cmp_values"),
];

const TEAM_BCAST: &[(&str, &str)] = &[
    ("shmem_team_t", "team"),
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("size_t", "nelems"),
    ("int", "PE_root"),
];
const TEAM_DEST_SRC_N: &[(&str, &str)] = &[
    ("shmem_team_t", "team"),
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("size_t", "nelems"),
];
const TEAM_STRIDED: &[(&str, &str)] = &[
    ("shmem_team_t", "team"),
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("ptrdiff_t", "dst"),
    ("ptrdiff_t", "sst"),
    ("size_t", "nelems"),
];
const TEAM_REDUCE: &[(&str, &str)] = &[
    ("shmem_team_t", "team"),
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("size_t", "nreduce"),
];
const TO_ALL: &[(&str, &str)] = &[
    ("TYPE *", "dest"),
    ("const TYPE *", "source"),
    ("int", "nreduce"),
    ("int", "PE_start"),
    ("int", "logPE_stride"),
    ("int", "PE_size"),
    ("TYPE *", "pWrk"),
    ("long *", "pSync"),
];

const STD: Types = Types::Of(AMO_STD);
const EXT: Types = Types::Of(AMO_EXT);
const BIT: Types = Types::Of(AMO_BIT);

/// The typed families but the non-blocking collectives' (`table_nb.rs`).
const BASE_FAMILIES: &[Family] = &[
    // Remote memory access.
    fam("shmem_{T}_put", "void", DEST_SRC_N_PE, Types::Rma, "rma::put")
        .ctx()
        .sized("shmem_put{N}")
        .mem("shmem_putmem")
        .generic("shmem_put"),
    fam("shmem_{T}_get", "void", DEST_SRC_N_PE, Types::Rma, "rma::get")
        .ctx()
        .sized("shmem_get{N}")
        .mem("shmem_getmem")
        .generic("shmem_get"),
    fam("shmem_{T}_put_nbi", "void", DEST_SRC_N_PE, Types::Rma, "rma::put_nbi")
        .ctx()
        .sized("shmem_put{N}_nbi")
        .mem("shmem_putmem_nbi")
        .generic("shmem_put_nbi"),
    fam("shmem_{T}_get_nbi", "void", DEST_SRC_N_PE, Types::Rma, "rma::get_nbi")
        .ctx()
        .sized("shmem_get{N}_nbi")
        .mem("shmem_getmem_nbi")
        .generic("shmem_get_nbi"),
    fam("shmem_{T}_p", "void", AMO_VALUE, Types::Rma, "rma::p")
        .ctx()
        .generic("shmem_p"),
    fam("shmem_{T}_g", "TYPE", AMO_SOURCE, Types::Rma, "rma::g")
        .ctx()
        .generic("shmem_g"),
    fam("shmem_{T}_iput", "void", STRIDED, Types::Rma, "rma::iput")
        .ctx()
        .sized("shmem_iput{N}")
        .generic("shmem_iput"),
    fam("shmem_{T}_iget", "void", STRIDED, Types::Rma, "rma::iget")
        .ctx()
        .sized("shmem_iget{N}")
        .generic("shmem_iget"),
    // OpenSHMEM 1.6 block-strided RMA.
    fam("shmem_{T}_ibput", "void", BLOCK_STRIDED, Types::Rma, "rma::ibput")
        .ctx()
        .sized("shmem_ibput{N}")
        .generic("shmem_ibput")
        .shmemx(),
    fam("shmem_{T}_ibget", "void", BLOCK_STRIDED, Types::Rma, "rma::ibget")
        .ctx()
        .sized("shmem_ibget{N}")
        .generic("shmem_ibget")
        .shmemx(),
    // Put with signal.
    fam(
        "shmem_{T}_put_signal",
        "void",
        PUT_SIGNAL,
        Types::Rma,
        "signal::put_signal",
    )
    .ctx()
    .sized("shmem_put{N}_signal")
    .mem("shmem_putmem_signal")
    .generic("shmem_put_signal"),
    fam(
        "shmem_{T}_put_signal_nbi",
        "void",
        PUT_SIGNAL,
        Types::Rma,
        "signal::put_signal_nbi",
    )
    .ctx()
    .sized("shmem_put{N}_signal_nbi")
    .mem("shmem_putmem_signal_nbi")
    .generic("shmem_put_signal_nbi"),
    // Atomic memory operations.
    fam("shmem_{T}_atomic_fetch", "TYPE", AMO_SOURCE, EXT, "amo::fetch")
        .ctx()
        .generic("shmem_atomic_fetch"),
    fam("shmem_{T}_atomic_set", "void", AMO_VALUE, EXT, "amo::set")
        .ctx()
        .generic("shmem_atomic_set"),
    fam(
        "shmem_{T}_atomic_compare_swap",
        "TYPE",
        AMO_CSWAP,
        STD,
        "amo::compare_swap",
    )
    .ctx()
    .generic("shmem_atomic_compare_swap"),
    fam("shmem_{T}_atomic_swap", "TYPE", AMO_VALUE, EXT, "amo::swap")
        .ctx()
        .generic("shmem_atomic_swap"),
    fam("shmem_{T}_atomic_fetch_inc", "TYPE", AMO_DEST, STD, "amo::fetch_inc")
        .ctx()
        .generic("shmem_atomic_fetch_inc"),
    fam("shmem_{T}_atomic_inc", "void", AMO_DEST, STD, "amo::inc")
        .ctx()
        .generic("shmem_atomic_inc"),
    fam("shmem_{T}_atomic_fetch_add", "TYPE", AMO_VALUE, STD, "amo::fetch_add")
        .ctx()
        .generic("shmem_atomic_fetch_add"),
    fam("shmem_{T}_atomic_add", "void", AMO_VALUE, STD, "amo::add")
        .ctx()
        .generic("shmem_atomic_add"),
    fam("shmem_{T}_atomic_fetch_and", "TYPE", AMO_VALUE, BIT, "amo::fetch_and")
        .ctx()
        .generic("shmem_atomic_fetch_and"),
    fam("shmem_{T}_atomic_and", "void", AMO_VALUE, BIT, "amo::and")
        .ctx()
        .generic("shmem_atomic_and"),
    fam("shmem_{T}_atomic_fetch_or", "TYPE", AMO_VALUE, BIT, "amo::fetch_or")
        .ctx()
        .generic("shmem_atomic_fetch_or"),
    fam("shmem_{T}_atomic_or", "void", AMO_VALUE, BIT, "amo::or")
        .ctx()
        .generic("shmem_atomic_or"),
    fam("shmem_{T}_atomic_fetch_xor", "TYPE", AMO_VALUE, BIT, "amo::fetch_xor")
        .ctx()
        .generic("shmem_atomic_fetch_xor"),
    fam("shmem_{T}_atomic_xor", "void", AMO_VALUE, BIT, "amo::xor")
        .ctx()
        .generic("shmem_atomic_xor"),
    // Non-blocking fetching atomics: the result lands in *fetch.
    fam("shmem_{T}_atomic_fetch_nbi", "void", NBI_SOURCE, EXT, "amo::fetch_nbi")
        .ctx()
        .generic("shmem_atomic_fetch_nbi"),
    fam(
        "shmem_{T}_atomic_compare_swap_nbi",
        "void",
        NBI_CSWAP,
        STD,
        "amo::compare_swap_nbi",
    )
    .ctx()
    .generic("shmem_atomic_compare_swap_nbi"),
    fam("shmem_{T}_atomic_swap_nbi", "void", NBI_VALUE, EXT, "amo::swap_nbi")
        .ctx()
        .generic("shmem_atomic_swap_nbi"),
    fam(
        "shmem_{T}_atomic_fetch_inc_nbi",
        "void",
        NBI_DEST,
        STD,
        "amo::fetch_inc_nbi",
    )
    .ctx()
    .generic("shmem_atomic_fetch_inc_nbi"),
    fam(
        "shmem_{T}_atomic_fetch_add_nbi",
        "void",
        NBI_VALUE,
        STD,
        "amo::fetch_add_nbi",
    )
    .ctx()
    .generic("shmem_atomic_fetch_add_nbi"),
    fam(
        "shmem_{T}_atomic_fetch_and_nbi",
        "void",
        NBI_VALUE,
        BIT,
        "amo::fetch_and_nbi",
    )
    .ctx()
    .generic("shmem_atomic_fetch_and_nbi"),
    fam(
        "shmem_{T}_atomic_fetch_or_nbi",
        "void",
        NBI_VALUE,
        BIT,
        "amo::fetch_or_nbi",
    )
    .ctx()
    .generic("shmem_atomic_fetch_or_nbi"),
    fam(
        "shmem_{T}_atomic_fetch_xor_nbi",
        "void",
        NBI_VALUE,
        BIT,
        "amo::fetch_xor_nbi",
    )
    .ctx()
    .generic("shmem_atomic_fetch_xor_nbi"),
    // Deprecated atomic names (default context only).
    fam(
        "shmem_{T}_fetch",
        "TYPE",
        AMO_SOURCE,
        Types::Of(DEPRECATED_AMO_EXT),
        "amo::fetch",
    )
    .default_ctx()
    .generic("shmem_fetch"),
    fam(
        "shmem_{T}_set",
        "void",
        AMO_VALUE,
        Types::Of(DEPRECATED_AMO_EXT),
        "amo::set",
    )
    .default_ctx()
    .generic("shmem_set"),
    fam(
        "shmem_{T}_swap",
        "TYPE",
        AMO_VALUE,
        Types::Of(DEPRECATED_AMO_EXT),
        "amo::swap",
    )
    .default_ctx()
    .generic("shmem_swap"),
    fam(
        "shmem_{T}_cswap",
        "TYPE",
        AMO_CSWAP,
        Types::Of(DEPRECATED_AMO_STD),
        "amo::compare_swap",
    )
    .default_ctx()
    .generic("shmem_cswap"),
    fam(
        "shmem_{T}_finc",
        "TYPE",
        AMO_DEST,
        Types::Of(DEPRECATED_AMO_STD),
        "amo::fetch_inc",
    )
    .default_ctx()
    .generic("shmem_finc"),
    fam(
        "shmem_{T}_inc",
        "void",
        AMO_DEST,
        Types::Of(DEPRECATED_AMO_STD),
        "amo::inc",
    )
    .default_ctx()
    .generic("shmem_inc"),
    fam(
        "shmem_{T}_fadd",
        "TYPE",
        AMO_VALUE,
        Types::Of(DEPRECATED_AMO_STD),
        "amo::fetch_add",
    )
    .default_ctx()
    .generic("shmem_fadd"),
    fam(
        "shmem_{T}_add",
        "void",
        AMO_VALUE,
        Types::Of(DEPRECATED_AMO_STD),
        "amo::add",
    )
    .default_ctx()
    .generic("shmem_add"),
    // Point-to-point synchronisation.
    fam("shmem_{T}_wait_until", "void", WAIT_ONE, Types::Wait, "p2p::wait_until").generic("shmem_wait_until"),
    fam("shmem_{T}_test", "int", WAIT_ONE, Types::Wait, "p2p::test").generic("shmem_test"),
    fam(
        "shmem_{T}_wait_until_all",
        "void",
        WAIT_SET,
        Types::Wait,
        "p2p::wait_until_all",
    )
    .generic("shmem_wait_until_all"),
    fam(
        "shmem_{T}_wait_until_any",
        "size_t",
        WAIT_SET,
        Types::Wait,
        "p2p::wait_until_any",
    )
    .generic("shmem_wait_until_any"),
    fam(
        "shmem_{T}_wait_until_some",
        "size_t",
        WAIT_SOME,
        Types::Wait,
        "p2p::wait_until_some",
    )
    .generic("shmem_wait_until_some"),
    fam(
        "shmem_{T}_wait_until_all_vector",
        "void",
        WAIT_SET_VECTOR,
        Types::Wait,
        "p2p::wait_until_all_vector",
    )
    .generic("shmem_wait_until_all_vector"),
    fam(
        "shmem_{T}_wait_until_any_vector",
        "size_t",
        WAIT_SET_VECTOR,
        Types::Wait,
        "p2p::wait_until_any_vector",
    )
    .generic("shmem_wait_until_any_vector"),
    fam(
        "shmem_{T}_wait_until_some_vector",
        "size_t",
        WAIT_SOME_VECTOR,
        Types::Wait,
        "p2p::wait_until_some_vector",
    )
    .generic("shmem_wait_until_some_vector"),
    fam("shmem_{T}_test_all", "int", WAIT_SET, Types::Wait, "p2p::test_all").generic("shmem_test_all"),
    fam("shmem_{T}_test_any", "size_t", WAIT_SET, Types::Wait, "p2p::test_any").generic("shmem_test_any"),
    fam(
        "shmem_{T}_test_some",
        "size_t",
        WAIT_SOME,
        Types::Wait,
        "p2p::test_some",
    )
    .generic("shmem_test_some"),
    fam(
        "shmem_{T}_test_all_vector",
        "int",
        WAIT_SET_VECTOR,
        Types::Wait,
        "p2p::test_all_vector",
    )
    .generic("shmem_test_all_vector"),
    fam(
        "shmem_{T}_test_any_vector",
        "size_t",
        WAIT_SET_VECTOR,
        Types::Wait,
        "p2p::test_any_vector",
    )
    .generic("shmem_test_any_vector"),
    fam(
        "shmem_{T}_test_some_vector",
        "size_t",
        WAIT_SOME_VECTOR,
        Types::Wait,
        "p2p::test_some_vector",
    )
    .generic("shmem_test_some_vector"),
    // Deprecated: wait until *ivar != cmp_value.
    fam(
        "shmem_{T}_wait",
        "void",
        DEPRECATED_WAIT_ONE,
        Types::Of(DEPRECATED_WAIT),
        "p2p::wait",
    ),
    // Team-based collectives.
    fam("shmem_{T}_broadcast", "int", TEAM_BCAST, Types::Rma, "coll::broadcast")
        .mem("shmem_broadcastmem")
        .generic_at("shmem_broadcast", 1),
    fam("shmem_{T}_collect", "int", TEAM_DEST_SRC_N, Types::Rma, "coll::collect")
        .mem("shmem_collectmem")
        .generic_at("shmem_collect", 1),
    fam(
        "shmem_{T}_fcollect",
        "int",
        TEAM_DEST_SRC_N,
        Types::Rma,
        "coll::fcollect",
    )
    .mem("shmem_fcollectmem")
    .generic_at("shmem_fcollect", 1),
    fam(
        "shmem_{T}_alltoall",
        "int",
        TEAM_DEST_SRC_N,
        Types::Rma,
        "coll::alltoall",
    )
    .mem("shmem_alltoallmem")
    .generic_at("shmem_alltoall", 1),
    fam(
        "shmem_{T}_alltoalls",
        "int",
        TEAM_STRIDED,
        Types::Rma,
        "coll::alltoalls",
    )
    .mem("shmem_alltoallsmem")
    .generic_at("shmem_alltoalls", 1),
    fam(
        "shmem_{T}_and_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_BITWISE),
        "coll::and_reduce",
    )
    .generic_at("shmem_and_reduce", 1),
    fam(
        "shmem_{T}_or_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_BITWISE),
        "coll::or_reduce",
    )
    .generic_at("shmem_or_reduce", 1),
    fam(
        "shmem_{T}_xor_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_BITWISE),
        "coll::xor_reduce",
    )
    .generic_at("shmem_xor_reduce", 1),
    fam(
        "shmem_{T}_max_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_MINMAX),
        "coll::max_reduce",
    )
    .generic_at("shmem_max_reduce", 1),
    fam(
        "shmem_{T}_min_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_MINMAX),
        "coll::min_reduce",
    )
    .generic_at("shmem_min_reduce", 1),
    fam(
        "shmem_{T}_sum_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_ARITH),
        "coll::sum_reduce",
    )
    .generic_at("shmem_sum_reduce", 1),
    fam(
        "shmem_{T}_prod_reduce",
        "int",
        TEAM_REDUCE,
        Types::Of(REDUCE_ARITH),
        "coll::prod_reduce",
    )
    .generic_at("shmem_prod_reduce", 1),
    // OpenSHMEM 1.6 scans.
    fam(
        "shmem_{T}_sum_inscan",
        "int",
        TEAM_DEST_SRC_N,
        Types::Of(REDUCE_ARITH),
        "coll::sum_inscan",
    )
    .generic_at("shmem_sum_inscan", 1)
    .shmemx(),
    fam(
        "shmem_{T}_sum_exscan",
        "int",
        TEAM_DEST_SRC_N,
        Types::Of(REDUCE_ARITH),
        "coll::sum_exscan",
    )
    .generic_at("shmem_sum_exscan", 1)
    .shmemx(),
    // Deprecated active-set reductions.
    fam(
        "shmem_{T}_and_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_BITWISE),
        "coll::and_to_all",
    ),
    fam(
        "shmem_{T}_or_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_BITWISE),
        "coll::or_to_all",
    ),
    fam(
        "shmem_{T}_xor_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_BITWISE),
        "coll::xor_to_all",
    ),
    fam(
        "shmem_{T}_max_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_MINMAX),
        "coll::max_to_all",
    ),
    fam(
        "shmem_{T}_min_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_MINMAX),
        "coll::min_to_all",
    ),
    fam(
        "shmem_{T}_sum_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_ARITH),
        "coll::sum_to_all",
    ),
    fam(
        "shmem_{T}_prod_to_all",
        "void",
        TO_ALL,
        Types::Of(TO_ALL_ARITH),
        "coll::prod_to_all",
    ),
    // Open MPI OSHMEM's shmemx_ extensions (its shmemx.h); the point-to-point
    // and atomic ones on the default context.
    oshmem_ctx("shmemx_{T}_p", "void", AMO_VALUE, OSHMEM_SHORT_UP, "rma::p", false),
    oshmem_ctx("shmemx_{T}_g", "TYPE", AMO_SOURCE, OSHMEM_SHORT_UP, "rma::g", false),
    oshmem_ctx("shmemx_{T}_swap", "TYPE", AMO_VALUE, OSHMEM_AMO, "amo::swap", true),
    oshmem_ctx("shmemx_{T}_set", "void", AMO_VALUE, OSHMEM_AMO, "amo::set", true),
    oshmem_ctx(
        "shmemx_{T}_cswap",
        "TYPE",
        AMO_CSWAP,
        OSHMEM_AMO,
        "amo::compare_swap",
        true,
    ),
    oshmem_ctx("shmemx_{T}_fadd", "TYPE", AMO_VALUE, OSHMEM_AMO, "amo::fetch_add", true),
    oshmem_ctx("shmemx_{T}_fetch", "TYPE", AMO_SOURCE, OSHMEM_AMO, "amo::fetch", true),
    oshmem_ctx("shmemx_{T}_finc", "TYPE", AMO_DEST, OSHMEM_AMO, "amo::fetch_inc", true),
    oshmem_ctx("shmemx_{T}_add", "void", AMO_VALUE, OSHMEM_AMO, "amo::add", true),
    oshmem_ctx("shmemx_{T}_inc", "void", AMO_DEST, OSHMEM_AMO, "amo::inc", true),
    oshmem_ctx(
        "shmemx_{T}_atomic_fetch_and",
        "TYPE",
        AMO_VALUE,
        OSHMEM_BIT,
        "amo::fetch_and",
        false,
    ),
    oshmem_ctx(
        "shmemx_{T}_atomic_and",
        "void",
        AMO_VALUE,
        OSHMEM_BIT,
        "amo::and",
        false,
    ),
    oshmem_ctx(
        "shmemx_{T}_atomic_fetch_or",
        "TYPE",
        AMO_VALUE,
        OSHMEM_BIT,
        "amo::fetch_or",
        false,
    ),
    oshmem_ctx("shmemx_{T}_atomic_or", "void", AMO_VALUE, OSHMEM_BIT, "amo::or", false),
    oshmem_ctx(
        "shmemx_{T}_atomic_fetch_xor",
        "TYPE",
        AMO_VALUE,
        OSHMEM_BIT,
        "amo::fetch_xor",
        false,
    ),
    oshmem_ctx(
        "shmemx_{T}_atomic_xor",
        "void",
        AMO_VALUE,
        OSHMEM_BIT,
        "amo::xor",
        false,
    ),
    oshmem(
        "shmemx_{T}_wait",
        "void",
        DEPRECATED_WAIT_ONE,
        OSHMEM_AMO,
        "p2p::wait",
        true,
    ),
    oshmem(
        "shmemx_{T}_wait_until",
        "void",
        WAIT_ONE,
        OSHMEM_AMO,
        "p2p::wait_until",
        false,
    ),
    oshmem(
        "shmemx_{T}_and_to_all",
        "void",
        TO_ALL,
        OSHMEM_SHORT_UP,
        "coll::and_to_all",
        true,
    ),
    oshmem(
        "shmemx_{T}_or_to_all",
        "void",
        TO_ALL,
        OSHMEM_SHORT_UP,
        "coll::or_to_all",
        true,
    ),
    oshmem(
        "shmemx_{T}_xor_to_all",
        "void",
        TO_ALL,
        OSHMEM_SHORT_UP,
        "coll::xor_to_all",
        true,
    ),
    oshmem(
        "shmemx_{T}_max_to_all",
        "void",
        TO_ALL,
        OSHMEM_SHORT_UP,
        "coll::max_to_all",
        true,
    ),
    oshmem(
        "shmemx_{T}_min_to_all",
        "void",
        TO_ALL,
        OSHMEM_SHORT_UP,
        "coll::min_to_all",
        true,
    ),
    oshmem(
        "shmemx_{T}_sum_to_all",
        "void",
        TO_ALL,
        OSHMEM_SHORT_UP,
        "coll::sum_to_all",
        true,
    ),
    oshmem(
        "shmemx_{T}_prod_to_all",
        "void",
        TO_ALL,
        OSHMEM_SHORT_UP,
        "coll::prod_to_all",
        true,
    ),
];

/// (type name, family pattern) pairs whose exports are written by hand because
/// Rust cannot pass that type by value with the C ABI (`long double`).
pub(crate) const HAND_WRITTEN: &[(&str, &str)] = &[("longdouble", "shmem_{T}_p"), ("longdouble", "shmem_{T}_g")];

// The non-blocking collectives' families, and `FAMILIES`, the whole list.
include!("table_nb.rs");
