/* rshmem-test
 * np: 1 2 4
 * cflags: -std=c++17
 * stdout: signal overloads ok
 */
/* OpenSHMEM 1.6's C++ overloads of shmem_signal_set and shmem_signal_add that take a
 * context, beside the C forms: every PE sets its right neighbour's signal with a created
 * context and adds to PE 0's signal with SHMEM_CTX_DEFAULT and without a context; read
 * back with shmem_signal_fetch. */
#include <shmem.h>
#include <cstdint>
#include <cstdio>

static uint64_t sig_set, sig_add;

int main() {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_ctx_t ctx;
    if (shmem_ctx_create(0, &ctx) != 0) {
        std::fprintf(stderr, "PE %d: shmem_ctx_create failed\n", me);
        return 1;
    }
    shmem_signal_set(ctx, &sig_set, 100 + (uint64_t)me, (me + 1) % n);
    shmem_signal_add(SHMEM_CTX_DEFAULT, &sig_add, 2, 0);
    shmem_signal_add(&sig_add, 1, 0);
    shmem_ctx_quiet(ctx);
    shmem_quiet();
    shmem_barrier_all();
    uint64_t want = 100 + (uint64_t)((me + n - 1) % n);
    if (shmem_signal_fetch(&sig_set) != want) {
        std::fprintf(stderr, "PE %d: signal_set(ctx) gave %llu, want %llu\n", me,
                     (unsigned long long)shmem_signal_fetch(&sig_set), (unsigned long long)want);
        return 1;
    }
    if (me == 0 && shmem_signal_fetch(&sig_add) != (uint64_t)(3 * n)) {
        std::fprintf(stderr, "PE 0: signal_add gave %llu, want %d\n",
                     (unsigned long long)shmem_signal_fetch(&sig_add), 3 * n);
        return 1;
    }
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0)
        std::printf("signal overloads ok\n");
    shmem_finalize();
    return 0;
}
