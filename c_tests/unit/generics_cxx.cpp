/* rshmem-test
 * np: 2 4
 * cflags: -std=c++17
 * stdout: C++ generics ok
 */
/* The generic names in C++ (overloads in shmem.h and shmemx.h, as Sandia OpenSHMEM
 * provides them): each family below is written once as a template, so the overload is
 * chosen by the element type at instantiation, and run over several types, with and
 * without a context where the routine has both forms. Results are checked:
 *  - RMA: shmem_put/get, _nbi, shmem_p/g, shmem_iput/iget, shmem_ibput/ibget,
 *    shmem_put_signal(_nbi), and shmemx_ibput/ibget (ring to the right neighbour);
 *  - atomics: shmem_atomic_fetch_add/add/inc/fetch_inc/compare_swap/swap/fetch/set,
 *    the bitwise ones, the _nbi ones, and the deprecated shmem_fadd/finc/cswap/add/inc/
 *    fetch/set/swap (every PE updates PE 0's variable);
 *  - point-to-point: shmem_wait_until, shmem_test, shmem_wait_until_all/any/some(_vector),
 *    shmem_test_any (the left neighbour sets flags);
 *  - collectives: shmem_broadcast, shmem_fcollect, shmem_collect, shmem_alltoall,
 *    shmem_sum/prod/max/min_reduce, shmem_and/or/xor_reduce, shmem_sum_inscan/exscan,
 *    shmemx_sum_exscan, shmem_sync(team). */
#include <shmem.h>
#include <shmemx.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <typeinfo>
#include <vector>

namespace {

int me, npes, right_pe, left_pe;

void check(bool ok, const char *what, const char *type) {
    if (!ok) {
        std::fprintf(stderr, "FAIL PE %d: %s (%s)\n", me, what, type);
        std::exit(1);
    }
}

template <typename T>
T *sym(size_t n) {
    auto *p = static_cast<T *>(shmem_calloc(n, sizeof(T)));
    check(p != nullptr, "shmem_calloc", typeid(T).name());
    return p;
}

/* RMA over any element type, through the default context and through ctx. */
template <typename T>
void rma(shmem_ctx_t ctx) {
    const char *ty = typeid(T).name();
    const size_t n = 8;
    T *a = sym<T>(2 * n);
    uint64_t *sig = sym<uint64_t>(1);
    std::vector<T> src(2 * n), got(2 * n);
    auto v = [](int pe, size_t i, int k) { return static_cast<T>(10 * pe + static_cast<int>(i) + k); };
    for (int form = 0; form < 2; form++) {
        for (size_t i = 0; i < n; i++)
            src[i] = v(me, i, form);
        shmem_barrier_all();
        if (form == 0)
            shmem_put(a, src.data(), n, right_pe);
        else
            shmem_put(ctx, a, src.data(), n, right_pe), shmem_ctx_quiet(ctx);
        shmem_barrier_all();
        for (size_t i = 0; i < n; i++)
            check(a[i] == v(left_pe, i, form), "shmem_put", ty);
        /* The right neighbour's a holds this PE's values. */
        if (form == 0)
            shmem_get(got.data(), a, n, right_pe);
        else
            shmem_get(ctx, got.data(), a, n, right_pe);
        for (size_t i = 0; i < n; i++)
            check(got[i] == src[i], "shmem_get", ty);
        shmem_barrier_all();
        if (form == 0) {
            shmem_p(&a[1], static_cast<T>(77), right_pe);
            shmem_put_nbi(&a[n], src.data(), n, right_pe);
            shmem_quiet();
        } else {
            shmem_p(ctx, &a[1], static_cast<T>(78), right_pe);
            shmem_put_nbi(ctx, &a[n], src.data(), n, right_pe);
            shmem_ctx_quiet(ctx);
        }
        shmem_barrier_all();
        T p = form == 0 ? shmem_g(&a[1], right_pe) : shmem_g(ctx, &a[1], right_pe);
        check(p == static_cast<T>(77 + form), "shmem_p / shmem_g", ty);
        if (form == 0)
            shmem_get_nbi(got.data(), &a[n], n, right_pe), shmem_quiet();
        else
            shmem_get_nbi(ctx, got.data(), &a[n], n, right_pe), shmem_ctx_quiet(ctx);
        for (size_t i = 0; i < n; i++)
            check(got[i] == src[i], "shmem_put_nbi / shmem_get_nbi", ty);
        shmem_barrier_all();
    }
    /* Strided: every other element of src to the first half of a, and back. */
    for (size_t i = 0; i < 2 * n; i++) {
        src[i] = v(me, i, 3);
        a[i] = static_cast<T>(0);
    }
    shmem_barrier_all();
    shmem_iput(a, src.data(), 1, 2, n, right_pe);
    shmem_barrier_all();
    for (size_t i = 0; i < n; i++)
        check(a[i] == v(left_pe, 2 * i, 3), "shmem_iput", ty);
    shmem_iget(ctx, got.data(), a, 2, 1, n, right_pe);
    for (size_t i = 0; i < n; i++)
        check(got[2 * i] == src[2 * i], "shmem_iget", ty);
    shmem_barrier_all();
    /* Block-strided: 2 blocks of 3, destination stride 4; with ctx, the shmemx_ names. */
    for (size_t i = 0; i < 2 * n; i++)
        a[i] = static_cast<T>(0);
    shmem_barrier_all();
    shmem_ibput(a, src.data(), 4, 3, 3, 2, right_pe);
    shmem_barrier_all();
    for (size_t b = 0; b < 2; b++)
        for (size_t j = 0; j < 4; j++)
            check(a[4 * b + j] == (j < 3 ? v(left_pe, 3 * b + j, 3) : static_cast<T>(0)), "shmem_ibput", ty);
    std::vector<T> blocks(6);
    shmemx_ibget(ctx, blocks.data(), a, 3, 4, 3, 2, right_pe);
    shmem_ibget(blocks.data(), a, 3, 4, 3, 2, right_pe);
    for (size_t i = 0; i < 6; i++)
        check(blocks[i] == src[i], "shmem_ibget / shmemx_ibget", ty);
    shmem_barrier_all();
    a[4] = static_cast<T>(0);
    shmem_barrier_all();
    shmemx_ibput(ctx, a, src.data(), 4, 3, 3, 2, right_pe);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    check(a[4] == v(left_pe, 3, 3), "shmemx_ibput with a context", ty);
    shmem_barrier_all();
    /* Put with signal: both forms add to the neighbour's signal. */
    shmem_put_signal(a, src.data(), n, sig, 1, SHMEM_SIGNAL_ADD, right_pe);
    shmem_put_signal_nbi(ctx, &a[n], src.data(), n, sig, 1, SHMEM_SIGNAL_ADD, right_pe);
    shmem_ctx_quiet(ctx);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 2);
    for (size_t i = 0; i < n; i++)
        check(a[i] == v(left_pe, i, 3) && a[n + i] == v(left_pe, i, 3), "shmem_put_signal(_nbi)", ty);
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(a);
}

/* Standard atomics on PE 0's variable (integer types). */
template <typename T>
void amo_std(shmem_ctx_t ctx) {
    const char *ty = typeid(T).name();
    T *x = sym<T>(1);
    T *fetched = sym<T>(1);
    shmem_barrier_all();
    (void)shmem_atomic_fetch_add(x, static_cast<T>(2), 0);
    shmem_atomic_add(ctx, x, static_cast<T>(3), 0);
    shmem_atomic_inc(x, 0);
    (void)shmem_atomic_fetch_inc(ctx, x, 0);
    shmem_atomic_fetch_add_nbi(fetched, x, static_cast<T>(1), 0);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    T total = static_cast<T>(8 * npes);
    check(shmem_atomic_fetch(x, 0) == total, "shmem_atomic_fetch_add/add/inc/fetch_inc/fetch_add_nbi", ty);
    check(shmem_atomic_fetch(ctx, x, 0) == total, "shmem_atomic_fetch with a context", ty);
    shmem_barrier_all();
    if (me == 0) {
        check(shmem_atomic_compare_swap(x, total, static_cast<T>(5), 0) == total, "compare_swap (hit)", ty);
        check(shmem_atomic_compare_swap(ctx, x, total, static_cast<T>(6), 0) == static_cast<T>(5),
              "compare_swap (miss)", ty);
        check(shmem_atomic_swap(x, static_cast<T>(9), 0) == static_cast<T>(5), "shmem_atomic_swap", ty);
        shmem_atomic_compare_swap_nbi(ctx, fetched, x, static_cast<T>(9), static_cast<T>(11), 0);
        shmem_ctx_quiet(ctx);
        check(*fetched == static_cast<T>(9), "shmem_atomic_compare_swap_nbi", ty);
        shmem_atomic_set(x, static_cast<T>(1), 0);
        check(shmem_atomic_fetch(x, 0) == static_cast<T>(1), "shmem_atomic_set", ty);
    }
    shmem_barrier_all();
    shmem_free(fetched);
    shmem_free(x);
}

/* Bitwise atomics: every PE sets and clears its own bit of PE 0's variable. */
template <typename T>
void amo_bit(shmem_ctx_t ctx) {
    const char *ty = typeid(T).name();
    T *x = sym<T>(1);
    shmem_barrier_all();
    T bit = static_cast<T>(T(1) << me);
    (void)shmem_atomic_fetch_or(x, bit, 0);
    shmem_atomic_or(ctx, x, static_cast<T>(bit << npes), 0);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    T all = static_cast<T>((T(1) << (2 * npes)) - 1);
    check(shmem_atomic_fetch(x, 0) == all, "shmem_atomic_fetch_or / shmem_atomic_or", ty);
    shmem_barrier_all();
    shmem_atomic_xor(x, bit, 0);
    (void)shmem_atomic_fetch_and(ctx, x, static_cast<T>(~(bit << npes)), 0);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    check(shmem_atomic_fetch(x, 0) == static_cast<T>(0), "shmem_atomic_xor / shmem_atomic_fetch_and", ty);
    T *fetched = sym<T>(1);
    shmem_atomic_fetch_xor_nbi(fetched, x, bit, 0);
    shmem_quiet();
    shmem_barrier_all();
    check((shmem_atomic_fetch(x, 0) & bit) == bit, "shmem_atomic_fetch_xor_nbi", ty);
    shmem_barrier_all();
    shmem_free(fetched);
    shmem_free(x);
}

/* The deprecated generic atomics (int, long, long long), and fetch/set/swap on the
 * extended types. */
template <typename T>
void amo_deprecated() {
    const char *ty = typeid(T).name();
    T *x = sym<T>(1);
    shmem_barrier_all();
    (void)shmem_fadd(x, static_cast<T>(2), 0);
    (void)shmem_finc(x, 0);
    shmem_add(x, static_cast<T>(3), 0);
    shmem_inc(x, 0);
    shmem_barrier_all();
    check(shmem_fetch(x, 0) == static_cast<T>(7 * npes), "shmem_fadd/finc/add/inc/fetch", ty);
    shmem_barrier_all();
    if (me == 0) {
        check(shmem_cswap(x, static_cast<T>(7 * npes), static_cast<T>(4), 0) == static_cast<T>(7 * npes),
              "shmem_cswap", ty);
        check(shmem_swap(x, static_cast<T>(6), 0) == static_cast<T>(4), "shmem_swap", ty);
        shmem_set(x, static_cast<T>(2), 0);
        check(shmem_fetch(x, 0) == static_cast<T>(2), "shmem_set", ty);
    }
    shmem_barrier_all();
    shmem_free(x);
}

template <typename T>
void amo_ext(shmem_ctx_t ctx) {
    const char *ty = typeid(T).name();
    T *x = sym<T>(1);
    shmem_barrier_all();
    if (me == 1) {
        shmem_atomic_set(ctx, x, static_cast<T>(2.5), 0);
        shmem_ctx_quiet(ctx);
        check(shmem_atomic_swap(ctx, x, static_cast<T>(-1.5), 0) == static_cast<T>(2.5), "shmem_atomic_swap", ty);
        check(shmem_swap(x, static_cast<T>(0.5), 0) == static_cast<T>(-1.5), "shmem_swap (deprecated)", ty);
        shmem_set(x, static_cast<T>(4.25), 0);
    }
    shmem_barrier_all();
    check(shmem_atomic_fetch(x, 0) == static_cast<T>(4.25) && shmem_fetch(x, 0) == static_cast<T>(4.25),
          "shmem_atomic_fetch / shmem_fetch", ty);
    shmem_barrier_all();
    shmem_free(x);
}

/* Point-to-point: the left neighbour sets this PE's flags one by one. */
template <typename T>
void p2p() {
    const char *ty = typeid(T).name();
    const size_t n = 4;
    T *flags = sym<T>(n);
    shmem_barrier_all();
    check(shmem_test(&flags[0], SHMEM_CMP_NE, static_cast<T>(0)) == 0, "shmem_test before", ty);
    shmem_p(&flags[2], static_cast<T>(5), right_pe);
    shmem_wait_until(&flags[2], SHMEM_CMP_EQ, static_cast<T>(5));
    check(shmem_test(&flags[2], SHMEM_CMP_GE, static_cast<T>(5)) == 1, "shmem_test after", ty);
    size_t any = shmem_wait_until_any(flags, n, nullptr, SHMEM_CMP_NE, static_cast<T>(0));
    check(any == 2, "shmem_wait_until_any", ty);
    check(shmem_test_any(flags, n, nullptr, SHMEM_CMP_EQ, static_cast<T>(7)) == SIZE_MAX, "shmem_test_any", ty);
    shmem_barrier_all();
    for (size_t i = 0; i < n; i++)
        if (i != 2)
            shmem_p(&flags[i], static_cast<T>(7), right_pe);
    int status[4] = {0, 0, 1, 0};
    shmem_wait_until_all(flags, n, status, SHMEM_CMP_EQ, static_cast<T>(7));
    size_t idx[4];
    size_t got = shmem_wait_until_some(flags, n, idx, status, SHMEM_CMP_EQ, static_cast<T>(7));
    check(got == 3, "shmem_wait_until_some", ty);
    std::vector<T> want{static_cast<T>(7), static_cast<T>(7), static_cast<T>(5), static_cast<T>(7)};
    shmem_wait_until_all_vector(flags, n, nullptr, SHMEM_CMP_EQ, want.data());
    check(shmem_test_all_vector(flags, n, nullptr, SHMEM_CMP_EQ, want.data()) == 1, "shmem_test_all_vector", ty);
    shmem_barrier_all();
    shmem_free(flags);
}

/* Collectives over SHMEM_TEAM_WORLD. */
template <typename T>
void coll() {
    const char *ty = typeid(T).name();
    const size_t n = 3;
    T *src = sym<T>(n * npes), *dst = sym<T>(n * npes);
    for (size_t i = 0; i < n * npes; i++)
        src[i] = static_cast<T>(me + 1 + static_cast<int>(i));
    shmem_barrier_all();
    check(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, n, npes - 1) == 0, "shmem_broadcast", ty);
    for (size_t i = 0; i < n; i++)
        check(dst[i] == static_cast<T>(npes + static_cast<int>(i)), "shmem_broadcast result", ty);
    check(shmem_fcollect(SHMEM_TEAM_WORLD, dst, src, n) == 0, "shmem_fcollect", ty);
    for (int pe = 0; pe < npes; pe++)
        check(dst[n * pe + 1] == static_cast<T>(pe + 2), "shmem_fcollect result", ty);
    check(shmem_collect(SHMEM_TEAM_WORLD, dst, src, 1) == 0, "shmem_collect", ty);
    for (int pe = 0; pe < npes; pe++)
        check(dst[pe] == static_cast<T>(pe + 1), "shmem_collect result", ty);
    check(shmem_alltoall(SHMEM_TEAM_WORLD, dst, src, 1) == 0, "shmem_alltoall", ty);
    for (int pe = 0; pe < npes; pe++)
        check(dst[pe] == static_cast<T>(pe + 1 + me), "shmem_alltoall result", ty);
    check(shmem_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n) == 0, "shmem_sum_reduce", ty);
    check(dst[0] == static_cast<T>(npes * (npes + 1) / 2), "shmem_sum_reduce result", ty);
    check(shmem_max_reduce(SHMEM_TEAM_WORLD, dst, src, n) == 0 && dst[0] == static_cast<T>(npes),
          "shmem_max_reduce", ty);
    check(shmem_min_reduce(SHMEM_TEAM_WORLD, dst, src, n) == 0 && dst[1] == static_cast<T>(2), "shmem_min_reduce",
          ty);
    T prod = 1;
    for (int pe = 0; pe < npes; pe++)
        prod = static_cast<T>(prod * (pe + 1));
    check(shmem_prod_reduce(SHMEM_TEAM_WORLD, dst, src, 1) == 0 && dst[0] == prod, "shmem_prod_reduce", ty);
    check(shmem_sum_inscan(SHMEM_TEAM_WORLD, dst, src, 1) == 0 && dst[0] == static_cast<T>((me + 1) * (me + 2) / 2),
          "shmem_sum_inscan", ty);
    check(shmem_sum_exscan(SHMEM_TEAM_WORLD, dst, src, 1) == 0 && dst[0] == static_cast<T>(me * (me + 1) / 2),
          "shmem_sum_exscan", ty);
    check(shmemx_sum_exscan(SHMEM_TEAM_WORLD, dst, src, 1) == 0 && dst[0] == static_cast<T>(me * (me + 1) / 2),
          "shmemx_sum_exscan", ty);
    check(shmem_sync(SHMEM_TEAM_WORLD) == 0, "shmem_sync(team)", ty);
    shmem_free(dst);
    shmem_free(src);
}

template <typename T>
void coll_bitwise() {
    const char *ty = typeid(T).name();
    T *src = sym<T>(1), *dst = sym<T>(1);
    *src = static_cast<T>(T(1) << me);
    shmem_barrier_all();
    check(shmem_or_reduce(SHMEM_TEAM_WORLD, dst, src, 1) == 0 && *dst == static_cast<T>((T(1) << npes) - 1),
          "shmem_or_reduce", ty);
    check(shmem_xor_reduce(SHMEM_TEAM_WORLD, dst, src, 1) == 0 && *dst == static_cast<T>((T(1) << npes) - 1),
          "shmem_xor_reduce", ty);
    check(shmem_and_reduce(SHMEM_TEAM_WORLD, dst, src, 1) == 0 && *dst == static_cast<T>(0), "shmem_and_reduce", ty);
    shmem_free(dst);
    shmem_free(src);
}

}  // namespace

int main() {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right_pe = (me + 1) % npes;
    left_pe = (me + npes - 1) % npes;
    shmem_ctx_t ctx;
    check(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create", "");

    rma<char>(ctx);
    rma<signed char>(ctx);
    rma<unsigned char>(ctx);
    rma<short>(ctx);
    rma<unsigned short>(ctx);
    rma<int>(ctx);
    rma<unsigned int>(ctx);
    rma<long>(ctx);
    rma<unsigned long>(ctx);
    rma<long long>(ctx);
    rma<unsigned long long>(ctx);
    rma<float>(ctx);
    rma<double>(ctx);
    rma<long double>(ctx);
    rma<int32_t>(SHMEM_CTX_DEFAULT);
    rma<uint64_t>(SHMEM_CTX_DEFAULT);
    rma<size_t>(ctx);
    rma<ptrdiff_t>(ctx);

    amo_std<int>(ctx);
    amo_std<long>(ctx);
    amo_std<long long>(ctx);
    amo_std<unsigned int>(ctx);
    amo_std<unsigned long>(ctx);
    amo_std<unsigned long long>(ctx);
    amo_std<int64_t>(SHMEM_CTX_DEFAULT);
    amo_bit<unsigned int>(ctx);
    amo_bit<unsigned long>(ctx);
    amo_bit<unsigned long long>(ctx);
    amo_bit<int32_t>(ctx);
    amo_deprecated<int>();
    amo_deprecated<long>(); /* shmem_swap(long *, long, int) is the C function */
    amo_deprecated<long long>();
    amo_ext<float>(ctx);
    amo_ext<double>(ctx);

    p2p<int>();
    p2p<long>(); /* shmem_wait_until(long *, int, long) is the C function */
    p2p<long long>();
    p2p<unsigned int>();
    p2p<unsigned long>();
    p2p<unsigned long long>();

    coll<int>();
    coll<long>();
    coll<unsigned long long>();
    coll<short>();
    coll<double>();
    coll<float>();
    coll<long double>();
    coll_bitwise<unsigned char>();
    coll_bitwise<unsigned int>();
    coll_bitwise<uint64_t>();
    coll_bitwise<int16_t>();

    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0)
        std::printf("C++ generics ok\n");
    shmem_finalize();
    return 0;
}
