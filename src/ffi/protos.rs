//! The untyped routines of the C API: each prototype with the Rust function
//! implementing it, grouped as in the specification, and the `shmemx.h`
//! extensions. Plain data like `table.rs`, read by `build.rs` the same way.
#![allow(dead_code)]

/// An untyped routine: its prototype, the Rust function implementing it and
/// whether it is hidden when the C11 generic of the same name is active.
pub(crate) struct Proto {
    pub decl: &'static str,
    /// Path under `crate::ffi` of `fn(routine: &'static str, args...)`; empty
    /// when both the `shmem_` and `pshmem_` exports are written by hand.
    pub rust: &'static str,
    pub c11_hidden: bool,
    /// Also exported as the `shmemx_` name Sandia OpenSHMEM gave it before
    /// OpenSHMEM 1.6 made it standard (declared in `shmemx.h`).
    pub shmemx: bool,
}

impl Proto {
    /// Adds the `shmemx_` alias.
    const fn shmemx(mut self) -> Self {
        self.shmemx = true;
        self
    }
}

const fn p(decl: &'static str, rust: &'static str) -> Proto {
    Proto {
        decl,
        rust,
        c11_hidden: false,
        shmemx: false,
    }
}

/// A deprecated C routine whose name a C11 generic macro takes over.
const fn hidden(decl: &'static str, rust: &'static str) -> Proto {
    Proto {
        decl,
        rust,
        c11_hidden: true,
        shmemx: false,
    }
}

/// Exported by hand (variadic, or `long double` by value).
const fn hand(decl: &'static str) -> Proto {
    Proto {
        decl,
        rust: "",
        c11_hidden: false,
        shmemx: false,
    }
}

/// Untyped routines, grouped as in the spec. `build.rs` generates their
/// `shmem_` and `pshmem_` exports; `tests/abi.rs` checks both directions.
pub(crate) const PLAIN: &[(&str, &[Proto])] = &[
    (
        "Library setup, exit and query",
        &[
            p("void shmem_init(void)", "setup::init"),
            p(
                "int shmem_init_thread(int requested, int *provided)",
                "setup::init_thread",
            ),
            p("void shmem_query_thread(int *provided)", "setup::query_thread"),
            p("void shmem_finalize(void)", "setup::finalize"),
            p("int shmem_my_pe(void)", "setup::my_pe"),
            p("int shmem_n_pes(void)", "setup::n_pes"),
            p("int shmem_pe_accessible(int pe)", "setup::pe_accessible"),
            p(
                "int shmem_addr_accessible(const void *addr, int pe)",
                "setup::addr_accessible",
            ),
            p("void *shmem_ptr(const void *dest, int pe)", "setup::ptr"),
            p(
                "void shmem_info_get_version(int *major, int *minor)",
                "setup::info_get_version",
            ),
            p("void shmem_info_get_name(char *name)", "setup::info_get_name"),
            p(
                "SHMEM_NORETURN void shmem_global_exit(int status)",
                "setup::global_exit",
            ),
            hand("void shmem_pcontrol(int level, ...)"),
            p(
                "void shmem_query_initialized(int *initialized)",
                "setup::query_initialized",
            )
            .shmemx(),
        ],
    ),
    (
        "Memory management",
        &[
            p("void *shmem_malloc(size_t size)", "memory::malloc"),
            p("void *shmem_calloc(size_t count, size_t size)", "memory::calloc"),
            p("void *shmem_align(size_t alignment, size_t size)", "memory::align"),
            p("void *shmem_realloc(void *ptr, size_t size)", "memory::realloc"),
            p("void shmem_free(void *ptr)", "memory::free"),
            p(
                "void *shmem_malloc_with_hints(size_t size, long hints)",
                "memory::malloc_with_hints",
            ),
        ],
    ),
    (
        "Communication contexts",
        &[
            p(
                "int shmem_ctx_create(long options, shmem_ctx_t *ctx)",
                "context::create",
            ),
            p("void shmem_ctx_destroy(shmem_ctx_t ctx)", "context::destroy"),
            p(
                "int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)",
                "context::get_team",
            ),
            p(
                "int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)",
                "context::team_create",
            ),
            p(
                "void shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config, long config_mask)",
                "context::session_start",
            ),
            p("void shmem_ctx_session_stop(shmem_ctx_t ctx)", "context::session_stop"),
        ],
    ),
    (
        "Teams",
        &[
            p("int shmem_team_my_pe(shmem_team_t team)", "team::my_pe"),
            p("int shmem_team_n_pes(shmem_team_t team)", "team::n_pes"),
            p(
                "int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)",
                "team::get_config",
            ),
            p(
                "int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)",
                "team::translate_pe",
            ),
            p(
                "int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size, const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team)",
                "team::split_strided",
            ),
            p(
                "int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask, shmem_team_t *yaxis_team)",
                "team::split_2d",
            ),
            p("void shmem_team_destroy(shmem_team_t team)", "team::destroy"),
            p("int shmem_team_sync(shmem_team_t team)", "team::sync"),
            p(
                "void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)",
                "team::ptr",
            ),
        ],
    ),
    (
        "Signalling",
        &[
            p("uint64_t shmem_signal_fetch(const uint64_t *sig_addr)", "signal::fetch"),
            p(
                "uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)",
                "signal::wait_until",
            ),
            p(
                "void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)",
                "signal::set",
            )
            .shmemx(),
            p(
                "void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)",
                "signal::ctx_set",
            )
            .shmemx(),
            p(
                "void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)",
                "signal::add",
            )
            .shmemx(),
            p(
                "void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)",
                "signal::ctx_add",
            )
            .shmemx(),
        ],
    ),
    (
        "Memory ordering and synchronisation",
        &[
            p("void shmem_fence(void)", "order::fence"),
            p("void shmem_ctx_fence(shmem_ctx_t ctx)", "order::ctx_fence"),
            p("void shmem_quiet(void)", "order::quiet"),
            p("void shmem_ctx_quiet(shmem_ctx_t ctx)", "order::ctx_quiet"),
            p(
                "void shmem_pe_quiet(const int *target_pes, size_t npes)",
                "order::pe_quiet",
            ),
            p(
                "void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)",
                "order::ctx_pe_quiet",
            ),
            p("void shmem_barrier_all(void)", "order::barrier_all"),
            p("void shmem_sync_all(void)", "order::sync_all"),
        ],
    ),
    (
        "Deprecated active-set collectives",
        &[
            p(
                "void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::barrier",
            ),
            p(
                "void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::sync",
            ),
            p(
                "void shmem_broadcast32(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::broadcast_aset::<u32>",
            ),
            p(
                "void shmem_broadcast64(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::broadcast_aset::<u64>",
            ),
            p(
                "void shmem_collect32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::collect_aset::<u32>",
            ),
            p(
                "void shmem_collect64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::collect_aset::<u64>",
            ),
            p(
                "void shmem_fcollect32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::fcollect_aset::<u32>",
            ),
            p(
                "void shmem_fcollect64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::fcollect_aset::<u64>",
            ),
            p(
                "void shmem_alltoall32(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::alltoall_aset::<u32>",
            ),
            p(
                "void shmem_alltoall64(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::alltoall_aset::<u64>",
            ),
            p(
                "void shmem_alltoalls32(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::alltoalls_aset::<u32>",
            ),
            p(
                "void shmem_alltoalls64(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync)",
                "coll::alltoalls_aset::<u64>",
            ),
        ],
    ),
    (
        "Non-blocking collectives (draft: OpenSHMEM pull request 456, see docs/nonblocking-collectives.md)",
        &[
            p("int shmem_req_test(shmem_req_h *request)", "nbc::req_test"),
            p("int shmem_req_wait(shmem_req_h *request)", "nbc::req_wait"),
            p(
                "int shmem_team_sync_nb(shmem_team_t team, shmem_req_h *request)",
                "nbc::sync_nb",
            )
            .shmemx(),
            p(
                "int shmem_sync_nb(shmem_team_t team, shmem_req_h *request)",
                "nbc::sync_nb",
            )
            .shmemx(),
        ],
    ),
    (
        "Distributed locks",
        &[
            p("void shmem_set_lock(long *lock)", "lock::set_lock"),
            p("int shmem_test_lock(long *lock)", "lock::test_lock"),
            p("void shmem_clear_lock(long *lock)", "lock::clear_lock"),
        ],
    ),
    (
        "Cache management (deprecated; no-ops, as in Sandia OpenSHMEM and Open MPI)",
        &[
            p("void shmem_set_cache_inv(void)", "setup::cache_noop"),
            p("void shmem_clear_cache_inv(void)", "setup::cache_noop"),
            p("void shmem_udcflush(void)", "setup::cache_noop"),
            p("void shmem_set_cache_line_inv(void *dest)", "setup::cache_line_noop"),
            p("void shmem_clear_cache_line_inv(void *dest)", "setup::cache_line_noop"),
            p("void shmem_udcflush_line(void *dest)", "setup::cache_line_noop"),
        ],
    ),
    (
        "Deprecated names still in the specification",
        &[
            p("void start_pes(int npes)", "setup::start_pes"),
            p("int _my_pe(void)", "setup::my_pe"),
            p("int _num_pes(void)", "setup::n_pes"),
            p("void *shmalloc(size_t size)", "memory::malloc"),
            p("void shfree(void *ptr)", "memory::free"),
            p("void *shrealloc(void *ptr, size_t size)", "memory::realloc"),
            p("void *shmemalign(size_t alignment, size_t size)", "memory::align"),
            p("void shmem_wait(long *ivar, long cmp_value)", "p2p::wait::<i64>"),
            hidden(
                "void shmem_wait_until(long *ivar, int cmp, long cmp_value)",
                "p2p::wait_until::<i64>",
            ),
            hidden(
                "long shmem_swap(long *dest, long value, int pe)",
                "amo::swap_default::<i64>",
            ),
        ],
    ),
];

/// Extensions declared in `shmemx.h`; their `pshmemx_` twins are declared in
/// `pshmemx.h`.
pub(crate) const SHMEMX: &[Proto] = &[
    // Sandia OpenSHMEM's queries.
    p("double shmemx_wtime(void)", "setup::wtime"),
    p("char *shmemx_nodename(void)", "setup::nodename"),
    p(
        "void shmemx_register_gettid(shmemx_gettid_fn_t gettid_fn)",
        "context::register_gettid",
    ),
    // OSSS-UCX's completion tests and interoperability query.
    p("int shmemx_fence_test(void)", "order::fence_test"),
    p("int shmemx_ctx_fence_test(shmem_ctx_t ctx)", "order::ctx_fence_test"),
    p("int shmemx_quiet_test(void)", "order::quiet_test"),
    p("int shmemx_ctx_quiet_test(shmem_ctx_t ctx)", "order::ctx_quiet_test"),
    p(
        "int shmemx_query_interoperability(int property)",
        "setup::query_interoperability",
    ),
    // Open MPI OSHMEM's allocation with a hint (SHMEM_HINT_*, shmemx.h).
    p(
        "void *shmemx_malloc_with_hint(size_t size, long hint)",
        "memory::malloc_with_hint",
    ),
    // Completion of several non-blocking collectives (rshmem; the draft has
    // test and wait on one request only).
    p(
        "int shmemx_req_wait_all(shmem_req_h *requests, size_t nreqs)",
        "nbc::req_wait_all",
    ),
    p(
        "int shmemx_req_test_all(shmem_req_h *requests, size_t nreqs)",
        "nbc::req_test_all",
    ),
    p(
        "size_t shmemx_req_wait_any(shmem_req_h *requests, size_t nreqs)",
        "nbc::req_wait_any",
    ),
    p(
        "size_t shmemx_req_test_some(shmem_req_h *requests, size_t nreqs, size_t *indices)",
        "nbc::req_test_some",
    ),
    // Open MPI OSHMEM's non-blocking all-to-all with a counter.
    p(
        "void shmemx_alltoall_global_nb(void *dest, const void *source, size_t size, long *counter)",
        "signal::alltoall_global_nb",
    ),
    p(
        "int shmemx_psync_footprint(shmemx_psync_footprint_t *fp)",
        "team::psync_footprint",
    ),
    p(
        "int shmemx_team_psync_footprint(shmem_team_t team, shmemx_psync_footprint_t *fp)",
        "team::team_psync_footprint",
    ),
    // Spaces: OSHMPI's routines, then the team-scoped ones.
    p(
        "void shmemx_space_create(shmemx_space_config_t space_config, shmemx_space_t *space)",
        "space::create",
    ),
    p("void shmemx_space_destroy(shmemx_space_t space)", "space::destroy"),
    p(
        "int shmemx_space_create_ctx(shmemx_space_t space, long options, shmem_ctx_t *ctx)",
        "space::create_ctx",
    ),
    p("void shmemx_space_attach(shmemx_space_t space)", "space::attach"),
    p("void shmemx_space_detach(shmemx_space_t space)", "space::detach"),
    p(
        "void *shmemx_space_malloc(shmemx_space_t space, size_t size)",
        "space::malloc",
    ),
    p(
        "void *shmemx_space_calloc(shmemx_space_t space, size_t count, size_t size)",
        "space::calloc",
    ),
    p(
        "void *shmemx_space_align(shmemx_space_t space, size_t alignment, size_t size)",
        "space::align",
    ),
    p(
        "void shmemx_space_attach_team(shmemx_space_t space, shmem_team_t team)",
        "space::attach_team",
    ),
    p(
        "void shmemx_space_detach_team(shmemx_space_t space, shmem_team_t team)",
        "space::detach_team",
    ),
    p("void shmemx_space_free(shmemx_space_t space, void *ptr)", "space::free"),
    p(
        "int shmemx_space_get_team(shmemx_space_t space, shmem_team_t *team)",
        "space::get_team",
    ),
    // UPC-style semaphores and signalling puts.
    p("shmemx_sem_t *shmemx_sem_alloc(int flags)", "semaphore::alloc"),
    p(
        "shmemx_sem_t *shmemx_team_sem_alloc(shmem_team_t team, int flags)",
        "semaphore::team_alloc",
    ),
    p("void shmemx_sem_free(shmemx_sem_t *sem)", "semaphore::free"),
    p("void shmemx_sem_post(shmemx_sem_t *sem, int pe)", "semaphore::post"),
    p(
        "void shmemx_sem_postN(shmemx_sem_t *sem, size_t n, int pe)",
        "semaphore::post_n",
    ),
    p("void shmemx_sem_wait(shmemx_sem_t *sem)", "semaphore::wait"),
    p(
        "void shmemx_sem_waitN(shmemx_sem_t *sem, size_t n)",
        "semaphore::wait_n",
    ),
    p("int shmemx_sem_try(shmemx_sem_t *sem)", "semaphore::try_one"),
    p("int shmemx_sem_tryN(shmemx_sem_t *sem, size_t n)", "semaphore::try_n"),
    p(
        "void shmemx_memput_signal(void *dest, const void *src, size_t nbytes, shmemx_sem_t *sem, size_t n, int pe)",
        "semaphore::memput_signal",
    ),
    p(
        "void shmemx_memput_signal_async(void *dest, const void *src, size_t nbytes, shmemx_sem_t *sem, size_t n, int pe)",
        "semaphore::memput_signal_async",
    ),
    // Sandia OpenSHMEM's counting puts and performance counters
    // (docs/compatibility.md).
    p("void shmemx_ct_create(shmemx_ct_t *ct)", "ct::create"),
    p("void shmemx_ct_free(shmemx_ct_t *ct)", "ct::free"),
    p("long shmemx_ct_get(shmemx_ct_t ct)", "ct::get"),
    p("void shmemx_ct_set(shmemx_ct_t ct, long value)", "ct::set"),
    p("void shmemx_ct_wait(shmemx_ct_t ct, long wait_for)", "ct::wait"),
    p(
        "void shmemx_putmem_ct(shmemx_ct_t ct, void *target, const void *source, size_t len, int pe)",
        "ct::putmem_ct",
    ),
    p(
        "void shmemx_getmem_ct(shmemx_ct_t ct, void *target, const void *source, size_t len, int pe)",
        "ct::getmem_ct",
    ),
    p(
        "void shmemx_pcntr_get_issued_write(shmem_ctx_t ctx, uint64_t *cntr_value)",
        "ct::issued_write",
    ),
    p(
        "void shmemx_pcntr_get_issued_read(shmem_ctx_t ctx, uint64_t *cntr_value)",
        "ct::issued_read",
    ),
    p(
        "void shmemx_pcntr_get_completed_write(shmem_ctx_t ctx, uint64_t *cntr_value)",
        "ct::completed_write",
    ),
    p(
        "void shmemx_pcntr_get_completed_read(shmem_ctx_t ctx, uint64_t *cntr_value)",
        "ct::completed_read",
    ),
    p(
        "void shmemx_pcntr_get_completed_target(uint64_t *cntr_value)",
        "ct::completed_target",
    ),
    p(
        "void shmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t *pcntr)",
        "ct::get_all",
    ),
    // Notification sets: one flag per message (docs/notifications.md).
    p("shmemx_notify_t *shmemx_notify_alloc(size_t nflags)", "notify::alloc"),
    p(
        "shmemx_notify_t *shmemx_team_notify_alloc(shmem_team_t team, size_t nflags)",
        "notify::team_alloc",
    ),
    p("void shmemx_notify_free(shmemx_notify_t *set)", "notify::free"),
    p("size_t shmemx_notify_count(shmemx_notify_t *set)", "notify::count"),
    p(
        "uint64_t *shmemx_notify_flag(shmemx_notify_t *set, size_t i)",
        "notify::flag",
    ),
    p(
        "int shmemx_notify_state(shmemx_notify_t *set, size_t i)",
        "notify::state",
    ),
    p("void shmemx_notify_set(shmemx_notify_t *set, size_t i)", "notify::set"),
    p(
        "void shmemx_notify_put(shmemx_notify_t *set, size_t i, void *dest, const void *source, size_t nbytes, int pe)",
        "notify::put",
    ),
    p(
        "void shmemx_notify_put_nbi(shmemx_notify_t *set, size_t i, void *dest, const void *source, size_t nbytes, int pe)",
        "notify::put_nbi",
    ),
    p(
        "void shmemx_ctx_notify_put(shmem_ctx_t ctx, shmemx_notify_t *set, size_t i, void *dest, const void *source, size_t nbytes, int pe)",
        "notify::ctx_put",
    ),
    p(
        "void shmemx_ctx_notify_put_nbi(shmem_ctx_t ctx, shmemx_notify_t *set, size_t i, void *dest, const void *source, size_t nbytes, int pe)",
        "notify::ctx_put_nbi",
    ),
    p("int shmemx_notify_test(shmemx_notify_t *set, size_t i)", "notify::test"),
    p(
        "void shmemx_notify_wait(shmemx_notify_t *set, size_t i)",
        "notify::wait",
    ),
    p(
        "size_t shmemx_notify_test_any(shmemx_notify_t *set)",
        "notify::test_any",
    ),
    p(
        "size_t shmemx_notify_wait_any(shmemx_notify_t *set)",
        "notify::wait_any",
    ),
    p(
        "size_t shmemx_notify_wait_some(shmemx_notify_t *set, size_t *indices, size_t max)",
        "notify::wait_some",
    ),
    p(
        "void shmemx_notify_reset(shmemx_notify_t *set, size_t i)",
        "notify::reset",
    ),
    p(
        "void shmemx_notify_reset_all(shmemx_notify_t *set)",
        "notify::reset_all",
    ),
];
