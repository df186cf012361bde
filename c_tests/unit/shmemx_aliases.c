/* rshmem-test
 * np: 1 2 4
 * cflags: -std=c11
 * stdout: shmemx aliases ok
 */
/* Sandia OpenSHMEM's shmemx_ names for routines OpenSHMEM 1.6 made standard (shmemx.h),
 * used as a program written for SOS uses them:
 *  - shmemx_TYPE_ibput to the right neighbour and shmemx_ctx_TYPE_ibget back from it for
 *    the 24 RMA types (3 blocks of 2 with gaps on both sides; elements outside the blocks
 *    keep their value), the sized shmemx_ibputN / shmemx_ctx_ibgetN for N = 8..128, and
 *    the C11 generics shmemx_ibput / shmemx_ibget (with a created context);
 *  - shmemx_signal_set / shmemx_ctx_signal_set / shmemx_signal_add / shmemx_ctx_signal_add,
 *    and the generic shmemx_signal_add(ctx, ...), read back with shmem_signal_fetch;
 *  - shmemx_TYPE_sum_inscan / shmemx_TYPE_sum_exscan on SHMEM_TEAM_WORLD for the 26 types
 *    of the sum reductions, and the generics shmemx_sum_inscan / shmemx_sum_exscan on a
 *    team of the even PEs: PE p contributes p + 1 + i at index i;
 *  - shmemx_query_initialized. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define L 12
#define NS 4

/* Symmetric buffers large enough for L elements of any type (long double: 16 bytes). */
static unsigned char *dest_buf, *scan_in, *scan_out;

/* The blocks: 3 of 2 elements, source stride 2 (contiguous), destination stride 3. */
#define SST 2
#define DST 3
#define BSIZE 2
#define NBLOCKS 3

#define CHECK_IBPUT(NAME, T)                                                                   \
    do {                                                                                       \
        T src[L], got[L];                                                                      \
        T *dest = (T *)dest_buf;                                                               \
        for (int i = 0; i < L; i++) {                                                          \
            src[i] = (T)(3 * me + i + 1);                                                      \
            dest[i] = (T)100;                                                                  \
            got[i] = (T)100;                                                                   \
        }                                                                                      \
        shmem_barrier_all();                                                                   \
        shmemx_##NAME##_ibput(dest, src, DST, SST, BSIZE, NBLOCKS, right);                     \
        shmem_barrier_all();                                                                   \
        for (int i = 0; i < L; i++) {                                                          \
            int b = i / DST, j = i % DST;                                                      \
            T want = (b < NBLOCKS && j < BSIZE) ? (T)(3 * left + SST * b + j + 1) : (T)100;    \
            CHECK(dest[i] == want, "shmemx_%s_ibput: dest[%d] is wrong", #NAME, i);            \
        }                                                                                      \
        /* The right neighbour's dest holds this PE's blocks: read them back contiguously. */ \
        shmemx_ctx_##NAME##_ibget(SHMEM_CTX_DEFAULT, got, dest, SST, DST, BSIZE, NBLOCKS, right); \
        for (int i = 0; i < L; i++) {                                                          \
            T want = i < BSIZE * NBLOCKS ? src[i] : (T)100;                                    \
            CHECK(got[i] == want, "shmemx_ctx_%s_ibget: got[%d] is wrong", #NAME, i);          \
        }                                                                                      \
        shmem_barrier_all();                                                                   \
    } while (0);

#define CHECK_SIZED(N, T)                                                                      \
    do {                                                                                       \
        T src[L], got[L];                                                                      \
        T *dest = (T *)dest_buf;                                                               \
        for (int i = 0; i < L; i++) {                                                          \
            src[i] = (T)(5 * me + i + 1);                                                      \
            dest[i] = got[i] = 0;                                                              \
        }                                                                                      \
        shmem_barrier_all();                                                                   \
        shmemx_ibput##N(dest, src, DST, SST, BSIZE, NBLOCKS, right);                           \
        shmem_barrier_all();                                                                   \
        for (int i = 0; i < L; i++) {                                                          \
            int b = i / DST, j = i % DST;                                                      \
            T want = (b < NBLOCKS && j < BSIZE) ? (T)(5 * left + SST * b + j + 1) : 0;         \
            CHECK(dest[i] == want, "shmemx_ibput%d: dest[%d] = %llu, want %llu", N, i,        \
                  (unsigned long long)dest[i], (unsigned long long)want);                      \
        }                                                                                      \
        shmemx_ctx_ibget##N(SHMEM_CTX_DEFAULT, got, dest, SST, DST, BSIZE, NBLOCKS, right);    \
        for (int i = 0; i < L; i++)                                                            \
            CHECK(got[i] == (i < BSIZE * NBLOCKS ? src[i] : 0), "shmemx_ctx_ibget%d: got[%d]", N, i); \
        shmem_barrier_all();                                                                   \
    } while (0);

#define CHECK_SCANS(NAME, T)                                                                   \
    do {                                                                                       \
        T *in = (T *)scan_in, *out = (T *)scan_out;                                            \
        for (int i = 0; i < NS; i++)                                                           \
            in[i] = (T)(me + 1 + i);                                                           \
        CHECK(shmemx_##NAME##_sum_inscan(SHMEM_TEAM_WORLD, out, in, NS) == 0,                  \
              "shmemx_%s_sum_inscan failed", #NAME);                                           \
        for (int i = 0; i < NS; i++) {                                                         \
            T want = (T)((me + 1) * (me + 2) / 2 + (me + 1) * i);                              \
            CHECK(out[i] == want, "shmemx_%s_sum_inscan: out[%d] is wrong", #NAME, i);         \
        }                                                                                      \
        CHECK(shmemx_##NAME##_sum_exscan(SHMEM_TEAM_WORLD, out, in, NS) == 0,                  \
              "shmemx_%s_sum_exscan failed", #NAME);                                           \
        for (int i = 0; i < NS; i++) {                                                         \
            T want = (T)(me * (me + 1) / 2 + me * i);                                          \
            CHECK(out[i] == want, "shmemx_%s_sum_exscan: out[%d] is wrong", #NAME, i);         \
        }                                                                                      \
    } while (0);

static uint64_t sig_set, sig_add;

int main(void) {
    int initialized = -1;
    shmemx_query_initialized(&initialized);
    if (initialized != 0) {
        fprintf(stderr, "FAIL: shmemx_query_initialized before shmem_init gave %d\n", initialized);
        return 1;
    }
    shmem_init();
    shmemx_query_initialized(&initialized);
    CHECK(initialized == 1, "shmemx_query_initialized after shmem_init gave %d", initialized);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    dest_buf = shmem_malloc(16 * L);
    scan_in = shmem_malloc(32 * NS);
    scan_out = shmem_malloc(32 * NS);
    CHECK(dest_buf && scan_in && scan_out, "shmem_malloc failed");

    /* Block-strided RMA: every type, every size. */
    RSHMEM_RMA_TYPES(CHECK_IBPUT)
    CHECK_SIZED(8, uint8_t)
    CHECK_SIZED(16, uint16_t)
    CHECK_SIZED(32, uint32_t)
    CHECK_SIZED(64, uint64_t)
    {
        /* 128-bit elements: pairs of uint64_t. */
        uint64_t src[2 * L], got[2 * L];
        uint64_t *dest = (uint64_t *)dest_buf;
        for (int i = 0; i < L; i++) {
            src[2 * i] = (uint64_t)(7 * me + i);
            src[2 * i + 1] = ~(uint64_t)(7 * me + i);
        }
        memset(dest, 0, 16 * L);
        memset(got, 0, sizeof got);
        shmem_barrier_all();
        shmemx_ibput128(dest, src, DST, SST, BSIZE, NBLOCKS, right);
        shmem_barrier_all();
        for (int i = 0; i < L; i++) {
            int b = i / DST, j = i % DST;
            int in_block = b < NBLOCKS && j < BSIZE;
            uint64_t lo = in_block ? (uint64_t)(7 * left + SST * b + j) : 0;
            uint64_t hi = in_block ? ~lo : 0;
            CHECK(dest[2 * i] == lo && dest[2 * i + 1] == hi, "shmemx_ibput128: element %d is wrong", i);
        }
        shmemx_ctx_ibget128(SHMEM_CTX_DEFAULT, got, dest, SST, DST, BSIZE, NBLOCKS, right);
        for (int i = 0; i < 2 * L; i++)
            CHECK(got[i] == (i < 2 * BSIZE * NBLOCKS ? src[i] : 0), "shmemx_ctx_ibget128: word %d", i);
        shmem_barrier_all();
    }
    {
        /* The C11 generics, the get through a created context. */
        shmem_ctx_t ctx;
        CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create failed");
        double src[L], got[L];
        double *dest = (double *)dest_buf;
        for (int i = 0; i < L; i++) {
            src[i] = me + i / 4.0;
            dest[i] = got[i] = -1.0;
        }
        shmem_barrier_all();
        shmemx_ibput(dest, src, DST, SST, BSIZE, NBLOCKS, right);
        shmem_barrier_all();
        for (int i = 0; i < L; i++) {
            int b = i / DST, j = i % DST;
            double want = (b < NBLOCKS && j < BSIZE) ? left + (SST * b + j) / 4.0 : -1.0;
            CHECK(dest[i] == want, "shmemx_ibput (generic): dest[%d] = %g, want %g", i, dest[i], want);
        }
        shmemx_ibget(ctx, got, dest, SST, DST, BSIZE, NBLOCKS, right);
        shmem_ctx_quiet(ctx);
        for (int i = 0; i < L; i++)
            CHECK(got[i] == (i < BSIZE * NBLOCKS ? src[i] : -1.0), "shmemx_ibget (generic, ctx): got[%d] = %g",
                  i, got[i]);
        shmem_barrier_all();
        shmem_ctx_destroy(ctx);
    }

    /* Signals: set a full 64-bit value at the right neighbour; everyone adds to PE 0. */
    uint64_t big = 0xfedcba9876543210ULL ^ (uint64_t)me;
    shmemx_signal_set(&sig_set, big, right);
    shmemx_signal_add(&sig_add, 1, 0);
    shmemx_ctx_signal_add(SHMEM_CTX_DEFAULT, &sig_add, 10, 0);
    shmemx_signal_add(SHMEM_CTX_DEFAULT, &sig_add, 100, 0); /* the generic, with a context */
    shmem_barrier_all();
    uint64_t want_set = 0xfedcba9876543210ULL ^ (uint64_t)left;
    CHECK(shmem_signal_fetch(&sig_set) == want_set, "shmemx_signal_set: signal %llx, want %llx",
          (unsigned long long)shmem_signal_fetch(&sig_set), (unsigned long long)want_set);
    if (me == 0)
        CHECK(shmem_signal_fetch(&sig_add) == 111ULL * (uint64_t)npes, "shmemx_signal_add: signal %llu, want %llu",
              (unsigned long long)shmem_signal_fetch(&sig_add), 111ULL * (unsigned long long)npes);
    shmem_barrier_all();
    shmemx_ctx_signal_set(SHMEM_CTX_DEFAULT, &sig_set, 42, right);
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(&sig_set) == 42, "shmemx_ctx_signal_set: signal %llu, want 42",
          (unsigned long long)shmem_signal_fetch(&sig_set));

    /* Scans over every sum type on the world team. */
    RSHMEM_REDUCE_ARITH_TYPES(CHECK_SCANS)
    /* The generics on the team of the even PEs (rank r is world PE 2r). */
    shmem_team_t even;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    CHECK(rc == 0, "shmem_team_split_strided returned %d", rc);
    if (even != SHMEM_TEAM_INVALID) {
        int r = shmem_team_my_pe(even);
        long *in = (long *)scan_in, *out = (long *)scan_out;
        for (int i = 0; i < NS; i++)
            in[i] = r + 1 + i;
        CHECK(shmemx_sum_inscan(even, out, in, NS) == 0, "shmemx_sum_inscan failed");
        for (int i = 0; i < NS; i++)
            CHECK(out[i] == (long)(r + 1) * (r + 2) / 2 + (long)(r + 1) * i, "shmemx_sum_inscan: out[%d] = %ld", i,
                  out[i]);
        CHECK(shmemx_sum_exscan(even, out, in, NS) == 0, "shmemx_sum_exscan failed");
        for (int i = 0; i < NS; i++)
            CHECK(out[i] == (long)r * (r + 1) / 2 + (long)r * i, "shmemx_sum_exscan: out[%d] = %ld", i, out[i]);
        shmem_team_destroy(even);
    }

    shmem_barrier_all();
    shmem_free(scan_out);
    shmem_free(scan_in);
    shmem_free(dest_buf);
    shmem_finalize();
    if (me == 0)
        printf("shmemx aliases ok\n");
    return 0;
}
