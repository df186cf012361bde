/* rshmem-test
 * np: 1 2 4
 * cflags: -std=c99
 * stdout: compat headers ok
 */
/* Headers other implementations ship: the old include paths <mpp/shmem.h>, <mpp/shmemx.h>
 * and <mpp/pshmem.h> (found by oshcc with no extra -I) and <pshmemx.h>, the profiling
 * names of the shmemx_ routines. The program includes only those, and:
 *  - defines its own shmemx_signal_add and shmemx_int_ibput, which count their calls and
 *    forward to pshmemx_signal_add and pshmemx_int_ibput: the program's definitions take
 *    the place of the library's and the data arrives;
 *  - calls pshmem_ and pshmemx_ routines directly (pshmem_long_p, pshmemx_long_sum_inscan,
 *    pshmemx_space_* through a space, pshmemx_query_initialized) and checks their results.
 * C99, so the C11 generic macros of shmemx.h do not replace the wrapped names. */
#include <mpp/pshmem.h>
#include <mpp/shmem.h>
#include <mpp/shmemx.h>
#include <pshmemx.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "FAIL PE %d line %d: ", shmem_my_pe(), __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

#define N 12

static long add_calls, ibput_calls;

void shmemx_signal_add(uint64_t *sig_addr, uint64_t signal, int pe) {
    add_calls++;
    pshmemx_signal_add(sig_addr, signal, pe);
}

void shmemx_int_ibput(int *dest, const int *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                      int pe) {
    ibput_calls++;
    pshmemx_int_ibput(dest, source, dst, sst, bsize, nblocks, pe);
}

static uint64_t sig;
static int blocks[N];
static long cell;
static long in[3], out[3];

int main(void) {
    int initialized = -1;
    pshmemx_query_initialized(&initialized);
    CHECK(initialized == 0, "pshmemx_query_initialized before shmem_init gave %d", initialized);
    shmem_init();
    shmemx_query_initialized(&initialized);
    CHECK(initialized == 1, "shmemx_query_initialized after shmem_init gave %d", initialized);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    /* Wrapped: every PE adds me + 1 to PE 0's signal three times. */
    for (int i = 0; i < 3; i++)
        shmemx_signal_add(&sig, (uint64_t)me + 1, 0);
    CHECK(add_calls == 3, "the shmemx_signal_add wrapper counted %ld calls, want 3", add_calls);
    shmem_barrier_all();
    if (me == 0) {
        uint64_t want = 3 * (uint64_t)npes * (npes + 1) / 2;
        CHECK(shmem_signal_fetch(&sig) == want, "signal is %llu, want %llu",
              (unsigned long long)shmem_signal_fetch(&sig), (unsigned long long)want);
    }

    /* Wrapped: 3 blocks of 2 ints with gaps on both sides go to the right neighbour. */
    int src[N];
    for (int i = 0; i < N; i++) {
        src[i] = 1000 * me + i;
        blocks[i] = -1;
    }
    shmem_barrier_all();
    shmemx_int_ibput(blocks, src, 4, 3, 2, 3, right);
    CHECK(ibput_calls == 1, "the shmemx_int_ibput wrapper counted %ld calls, want 1", ibput_calls);
    shmem_barrier_all();
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < 2; j++) {
            int got = blocks[4 * b + j], want = 1000 * left + 3 * b + j;
            CHECK(got == want, "blocks[%d] = %d, want %d", 4 * b + j, got, want);
        }
    for (int b = 0; b < 3; b++)
        for (int j = 2; j < 4; j++)
            CHECK(blocks[4 * b + j] == -1, "blocks[%d] = %d outside the blocks, want -1", 4 * b + j,
                  blocks[4 * b + j]);

    /* Profiling names called directly. */
    pshmem_long_p(&cell, 7L * me, right);
    pshmem_barrier_all();
    CHECK(cell == 7L * left, "cell = %ld after pshmem_long_p, want %ld", cell, 7L * left);
    for (int i = 0; i < 3; i++)
        in[i] = (long)(me + 1) * (i + 1);
    shmem_barrier_all();
    CHECK(pshmemx_long_sum_inscan(SHMEM_TEAM_WORLD, out, in, 3) == 0, "pshmemx_long_sum_inscan failed");
    for (int i = 0; i < 3; i++) {
        long want = (long)(me + 1) * (me + 2) / 2 * (i + 1);
        CHECK(out[i] == want, "inscan out[%d] = %ld, want %ld", i, out[i], want);
    }
    shmemx_space_config_t cfg = {0};
    cfg.sheap_size = 1 << 16;
    cfg.num_contexts = 0;
    shmemx_space_t space;
    pshmemx_space_create(cfg, &space);
    pshmemx_space_attach(space);
    long *p = (long *)pshmemx_space_malloc(space, sizeof(long));
    CHECK(p != NULL, "pshmemx_space_malloc returned NULL");
    *p = -1;
    shmem_barrier_all();
    shmem_long_p(p, 5L * me, right);
    shmem_barrier_all();
    CHECK(*p == 5L * left, "space cell = %ld, want %ld", *p, 5L * left);
    pshmemx_space_free(space, p);
    pshmemx_space_detach(space);
    pshmemx_space_destroy(space);

    shmem_finalize();
    if (me == 0)
        printf("compat headers ok\n");
    return 0;
}
