/* rshmem-test
 * np: 1 2 4
 * variant: SHMEM_CHECK_BOUNDS=1
 * cflags: -std=c11
 */
/* Put-with-signal (OpenSHMEM 1.5 section 9.8) for the 24 RMA types, the sized forms
 * shmem_putN_signal[_nbi] and shmem_putmem_signal[_nbi]: plain, shmem_ctx_ with
 * SHMEM_CTX_DEFAULT and with a created context, and the C11 generics shmem_put_signal /
 * shmem_put_signal_nbi without and with a context.
 *
 * Each form runs two rounds:
 *  - SHMEM_SIGNAL_SET: every PE puts a block into the middle of its right neighbour's
 *    buffer and sets the neighbour's signal to a full 64-bit value; the neighbour waits
 *    with shmem_signal_wait_until (EQ, GE, GT, NE by form), checks the returned value,
 *    shmem_signal_fetch, the block and the untouched gaps around it.
 *  - SHMEM_SIGNAL_ADD: every PE puts its block into its own slot at one root PE and adds
 *    a distinct 64-bit amount to the root's signal, which starts near UINT64_MAX so the
 *    sum wraps; the root waits for the exact (wrapped) sum and checks every slot. */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define N 7
/* Element i of PE pe's block for form v: +-(1..110) (+0.25 for floating types); never
 * equal to the SENTINEL in any type. */
#define VAL(T, pe, i, v) \
    ((T)((T)(((i) % 2 ? -1 : 1) * (1 + 10 * (pe) + (i) + 3 * (v))) + (T)0.25))
#define SENTINEL(T) ((T)123)

static uint64_t sig;
static shmem_ctx_t ctx; /* a created context */

enum {
    TYPED, TYPED_NBI, CTXDEF, CTXDEF_NBI, CTXNEW, CTXNEW_NBI,
    GEN, GEN_NBI, GEN_CTXNEW, GEN_CTXDEF_NBI, GEN_CTXDEF, GEN_CTXNEW_NBI, NFORMS
};
static const char *const form_names[NFORMS] = {
    "shmem_T_put_signal", "shmem_T_put_signal_nbi",
    "shmem_ctx_T_put_signal(SHMEM_CTX_DEFAULT)", "shmem_ctx_T_put_signal_nbi(SHMEM_CTX_DEFAULT)",
    "shmem_ctx_T_put_signal(created ctx)", "shmem_ctx_T_put_signal_nbi(created ctx)",
    "generic shmem_put_signal", "generic shmem_put_signal_nbi",
    "generic shmem_put_signal(created ctx)", "generic shmem_put_signal_nbi(SHMEM_CTX_DEFAULT)",
    "generic shmem_put_signal(SHMEM_CTX_DEFAULT)", "generic shmem_put_signal_nbi(created ctx)"};

/* The receiver's wait for signal value want, by form; every variant must return want. The
 * signal starts at 0 for SET rounds; ADD rounds (add = 1) see wrapped partial sums, so
 * they wait for equality. */
static void wait_for(uint64_t want, int form, int add, const char *what) {
    uint64_t got;
    switch (add ? 0 : form % 4) {
    case 0: got = shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, want); break;
    case 1: got = shmem_signal_wait_until(&sig, SHMEM_CMP_GE, want); break;
    case 2: got = shmem_signal_wait_until(&sig, SHMEM_CMP_GT, want - 1); break;
    default: got = shmem_signal_wait_until(&sig, SHMEM_CMP_NE, 0); break;
    }
    CHECK(got == want, "%s: shmem_signal_wait_until returned 0x%llx, expected 0x%llx", what,
          (unsigned long long)got, (unsigned long long)want);
    uint64_t f = shmem_signal_fetch(&sig);
    CHECK(f == want, "%s: shmem_signal_fetch returned 0x%llx, expected 0x%llx", what,
          (unsigned long long)f, (unsigned long long)want);
}

static uint64_t set_value(int from, int form) {
    return 0xA5C3000000000000ull ^ ((uint64_t)(from + 1) << 36) ^ ((uint64_t)(form + 1) << 8) ^ 0x1Full;
}
static uint64_t add_amount(int from) { return ((uint64_t)(from + 1) << 40) + 3u * (uint64_t)from + 1u; }
static const uint64_t ADD_BASE = UINT64_MAX - 5u; /* the sum wraps past 2^64 */

#define ISSUE(NAME, form, d, s, n, sv, op, pe)                                               \
    switch (form) {                                                                          \
    case TYPED: shmem_##NAME##_put_signal(d, s, n, &sig, sv, op, pe); break;                 \
    case TYPED_NBI: shmem_##NAME##_put_signal_nbi(d, s, n, &sig, sv, op, pe); break;         \
    case CTXDEF: shmem_ctx_##NAME##_put_signal(SHMEM_CTX_DEFAULT, d, s, n, &sig, sv, op, pe); break; \
    case CTXDEF_NBI:                                                                         \
        shmem_ctx_##NAME##_put_signal_nbi(SHMEM_CTX_DEFAULT, d, s, n, &sig, sv, op, pe);     \
        break;                                                                               \
    case CTXNEW: shmem_ctx_##NAME##_put_signal(ctx, d, s, n, &sig, sv, op, pe); break;       \
    case CTXNEW_NBI: shmem_ctx_##NAME##_put_signal_nbi(ctx, d, s, n, &sig, sv, op, pe); break; \
    case GEN: shmem_put_signal(d, s, n, &sig, sv, op, pe); break;                            \
    case GEN_NBI: shmem_put_signal_nbi(d, s, n, &sig, sv, op, pe); break;                    \
    case GEN_CTXNEW: shmem_put_signal(ctx, d, s, n, &sig, sv, op, pe); break;                \
    case GEN_CTXDEF_NBI: shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, d, s, n, &sig, sv, op, pe); break; \
    case GEN_CTXDEF: shmem_put_signal(SHMEM_CTX_DEFAULT, d, s, n, &sig, sv, op, pe); break;  \
    default: shmem_put_signal_nbi(ctx, d, s, n, &sig, sv, op, pe); break;                    \
    }                                                                                        \
    shmem_ctx_quiet(ctx);                                                                    \
    shmem_quiet()

/* dest holds npes + 2 blocks of N: [0, N) and the last block are gaps that nobody writes. */
#define DEFINE_TYPED(NAME, T)                                                                   \
    static void test_##NAME(int me, int npes) {                                                 \
        int right = (me + 1) % npes, left = (me + npes - 1) % npes;                             \
        size_t len = (size_t)(npes + 2) * N;                                                    \
        T *dest = shmem_malloc(len * sizeof(T));                                                \
        T src[N];                                                                               \
        char what[160];                                                                         \
        CHECK(dest != NULL, #NAME ": shmem_malloc failed");                                     \
        for (int form = 0; form < NFORMS; form++) {                                             \
            /* SHMEM_SIGNAL_SET into the right neighbour's block 1 */                           \
            snprintf(what, sizeof what, "%s SET, T=" #NAME, form_names[form]);                  \
            for (size_t j = 0; j < len; j++)                                                    \
                dest[j] = SENTINEL(T);                                                          \
            for (int i = 0; i < N; i++)                                                         \
                src[i] = VAL(T, me, i, form);                                                   \
            sig = 0;                                                                            \
            shmem_barrier_all();                                                                \
            ISSUE(NAME, form, dest + N, src, N, set_value(me, form), SHMEM_SIGNAL_SET, right);  \
            wait_for(set_value(left, form), form, 0, what);                                        \
            for (size_t j = 0; j < len; j++) {                                                  \
                T want = (j >= N && j < 2 * N) ? VAL(T, left, (int)j - N, form) : SENTINEL(T);  \
                CHECK(dest[j] == want, "%s: dest element %zu is wrong", what, j);               \
            }                                                                                   \
            shmem_barrier_all();                                                                \
            /* SHMEM_SIGNAL_ADD from every PE into its slot at the root */                     \
            snprintf(what, sizeof what, "%s ADD, T=" #NAME, form_names[form]);                  \
            int root = form % npes;                                                             \
            for (size_t j = 0; j < len; j++)                                                    \
                dest[j] = SENTINEL(T);                                                          \
            for (int i = 0; i < N; i++)                                                         \
                src[i] = VAL(T, me, i, form + 1);                                               \
            sig = ADD_BASE;                                                                     \
            shmem_barrier_all();                                                                \
            ISSUE(NAME, form, dest + (size_t)(1 + me) * N, src, N, add_amount(me), SHMEM_SIGNAL_ADD, root); \
            if (me == root) {                                                                   \
                uint64_t want = ADD_BASE;                                                       \
                for (int p = 0; p < npes; p++)                                                  \
                    want += add_amount(p);                                                      \
                wait_for(want, form, 1, what);                                                     \
                for (size_t j = 0; j < len; j++) {                                              \
                    int from = (int)(j / N) - 1;                                                \
                    T want_v = (from >= 0 && from < npes) ? VAL(T, from, (int)(j % N), form + 1) \
                                                          : SENTINEL(T);                        \
                    CHECK(dest[j] == want_v, "%s: dest element %zu (from PE %d) is wrong", what, j, from); \
                }                                                                               \
            } else {                                                                            \
                CHECK(sig == ADD_BASE, "%s: the signal of non-root PE changed to 0x%llx", what, \
                      (unsigned long long)sig);                                                 \
            }                                                                                   \
            shmem_barrier_all();                                                                \
        }                                                                                       \
        shmem_free(dest);                                                                       \
    }
RSHMEM_RMA_TYPES(DEFINE_TYPED)

/* Sized forms: element k of PE pe's data for form f is bytes pat(pe, k, f, 0..size-1). */
typedef void (*ps_fn)(void *, const void *, size_t, uint64_t *, uint64_t, int, int);
typedef void (*ctx_ps_fn)(shmem_ctx_t, void *, const void *, size_t, uint64_t *, uint64_t, int, int);
struct sized {
    const char *name;
    size_t size;
    ps_fn blocking, nbi;
    ctx_ps_fn ctx_blocking, ctx_nbi;
};
#define SIZED_ENTRY(BITS)                                                                    \
    {"put" #BITS "_signal", (BITS) / 8, shmem_put##BITS##_signal, shmem_put##BITS##_signal_nbi, \
     shmem_ctx_put##BITS##_signal, shmem_ctx_put##BITS##_signal_nbi},
static const struct sized sized_forms[] = {
    RSHMEM_SIZES(SIZED_ENTRY)
    {"putmem_signal", 1, shmem_putmem_signal, shmem_putmem_signal_nbi, shmem_ctx_putmem_signal,
     shmem_ctx_putmem_signal_nbi}};

static unsigned char pat(int pe, size_t k, int f, size_t b) {
    return (unsigned char)(pe * 37 + (int)k * 11 + f * 5 + (int)b * 3 + 1);
}

/* forms: 0 plain, 1 plain nbi, 2/3 ctx default, 4/5 created ctx */
static void sized_issue(const struct sized *s, int form, void *d, const void *src, size_t n,
                        uint64_t sv, int op, int pe) {
    switch (form) {
    case 0: s->blocking(d, src, n, &sig, sv, op, pe); break;
    case 1: s->nbi(d, src, n, &sig, sv, op, pe); break;
    case 2: s->ctx_blocking(SHMEM_CTX_DEFAULT, d, src, n, &sig, sv, op, pe); break;
    case 3: s->ctx_nbi(SHMEM_CTX_DEFAULT, d, src, n, &sig, sv, op, pe); break;
    case 4: s->ctx_blocking(ctx, d, src, n, &sig, sv, op, pe); break;
    default: s->ctx_nbi(ctx, d, src, n, &sig, sv, op, pe); break;
    }
    shmem_ctx_quiet(ctx);
    shmem_quiet();
}

static void test_sized(const struct sized *s, int me, int npes) {
    static const char *const names[6] = {"", "_nbi", " (ctx default)", "_nbi (ctx default)",
                                         " (created ctx)", "_nbi (created ctx)"};
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t n = s->size == 1 ? 13 : 5; /* elements */
    size_t blk = n * s->size;         /* bytes */
    size_t len = (size_t)(npes + 2) * blk;
    unsigned char *dest = shmem_malloc(len);
    unsigned char *src = malloc(blk);
    char what[160];
    CHECK(dest && src, "%s: allocation failed", s->name);
    for (int form = 0; form < 6; form++) {
        snprintf(what, sizeof what, "shmem_%s%s SET", s->name, names[form]);
        memset(dest, 0xEE, len);
        for (size_t b = 0; b < blk; b++)
            src[b] = pat(me, b / s->size, form, b % s->size);
        sig = 0;
        shmem_barrier_all();
        sized_issue(s, form, dest + blk, src, n, set_value(me, form), SHMEM_SIGNAL_SET, right);
        wait_for(set_value(left, form), form, 0, what);
        for (size_t j = 0; j < len; j++) {
            unsigned char want = (j >= blk && j < 2 * blk) ? pat(left, (j - blk) / s->size, form, (j - blk) % s->size) : 0xEE;
            CHECK(dest[j] == want, "%s: dest byte %zu is 0x%02x, expected 0x%02x", what, j, dest[j], want);
        }
        shmem_barrier_all();

        snprintf(what, sizeof what, "shmem_%s%s ADD", s->name, names[form]);
        int root = (form + 1) % npes;
        memset(dest, 0xEE, len);
        for (size_t b = 0; b < blk; b++)
            src[b] = pat(me, b / s->size, form + 7, b % s->size);
        sig = ADD_BASE;
        shmem_barrier_all();
        sized_issue(s, form, dest + (size_t)(1 + me) * blk, src, n, add_amount(me), SHMEM_SIGNAL_ADD, root);
        if (me == root) {
            uint64_t want = ADD_BASE;
            for (int p = 0; p < npes; p++)
                want += add_amount(p);
            wait_for(want, form, 1, what);
            for (size_t j = 0; j < len; j++) {
                int from = (int)(j / blk) - 1;
                size_t off = j % blk;
                unsigned char w = (from >= 0 && from < npes) ? pat(from, off / s->size, form + 7, off % s->size) : 0xEE;
                CHECK(dest[j] == w, "%s: dest byte %zu (from PE %d) is 0x%02x, expected 0x%02x", what, j,
                      from, dest[j], w);
            }
        }
        shmem_barrier_all();
    }
    free(src);
    shmem_free(dest);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
#define RUN_TYPED(NAME, T) test_##NAME(me, npes);
    RSHMEM_RMA_TYPES(RUN_TYPED)
    for (size_t k = 0; k < sizeof sized_forms / sizeof sized_forms[0]; k++)
        test_sized(&sized_forms[k], me, npes);
    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("put_signal: 24 types x %d forms and %zu sized forms x 6, SET and ADD ok\n", NFORMS,
               sizeof sized_forms / sizeof sized_forms[0]);
    shmem_finalize();
    return 0;
}
