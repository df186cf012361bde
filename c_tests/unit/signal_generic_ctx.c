/* rshmem-test
 * np: 1 2 4
 * cflags: -std=c11
 * stdout: signal generics ok
 */
/* OpenSHMEM 1.6's C11 forms of shmem_signal_set and shmem_signal_add that take a
 * context (`shmem_signal_add(ctx, sig_addr, signal, pe)`) beside the forms without one:
 * every PE sets its right neighbour's signal through SHMEM_CTX_DEFAULT, then adds to
 * PE 0's signal with a created context and without one; the values are read back with
 * shmem_signal_fetch. Before 1.6's generics the context forms did not compile ("too
 * many arguments"). */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t sig_set, sig_add, sig_own;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_ctx_t ctx;
    if (shmem_ctx_create(0, &ctx) != 0) {
        fprintf(stderr, "PE %d: shmem_ctx_create failed\n", me);
        return 1;
    }
    uint64_t mark = 0x8000000000000000ull | (uint64_t)me;
    shmem_signal_set(SHMEM_CTX_DEFAULT, &sig_set, mark, (me + 1) % n);
    shmem_signal_add(ctx, &sig_add, 3, 0);
    shmem_signal_add(&sig_add, 5, 0);
    shmem_signal_set(&sig_own, 7 + (uint64_t)me, me); /* without a context, on itself */
    shmem_ctx_quiet(ctx);
    shmem_quiet();
    shmem_barrier_all();
    uint64_t want_set = 0x8000000000000000ull | (uint64_t)((me + n - 1) % n);
    if (shmem_signal_fetch(&sig_set) != want_set) {
        fprintf(stderr, "PE %d: signal_set(ctx) gave %llx, want %llx\n", me,
                (unsigned long long)shmem_signal_fetch(&sig_set), (unsigned long long)want_set);
        return 1;
    }
    if (shmem_signal_fetch(&sig_own) != 7 + (uint64_t)me) {
        fprintf(stderr, "PE %d: signal_set without a context gave %llu\n", me,
                (unsigned long long)shmem_signal_fetch(&sig_own));
        return 1;
    }
    if (me == 0 && shmem_signal_fetch(&sig_add) != (uint64_t)(8 * n)) {
        fprintf(stderr, "PE 0: signal_add gave %llu, want %d\n",
                (unsigned long long)shmem_signal_fetch(&sig_add), 8 * n);
        return 1;
    }
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0)
        printf("signal generics ok\n");
    shmem_finalize();
    return 0;
}
