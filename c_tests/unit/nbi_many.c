/* rshmem-test
 * np: 1 2 4 8
 */
/* Many non-blocking puts and gets in flight at once, completed by ONE shmem_quiet. Every
 * PE issues, to every PE (itself included), OPS put_nbi and OPS get_nbi of sizes from 1
 * byte to 16 KiB, in the typed, sized, putmem/getmem and created-context spellings, into
 * disjoint parts of the target's receive area (puts) and out of the target's send area
 * (gets, which nobody writes meanwhile). After the one quiet, every get's data is in place
 * here; after a barrier, every put's data is in place at its target. Across nodes these
 * go through the network engine, which must keep them all in flight correctly. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define OPS 48
#define MAX_BYTES 16384
#define SLOT 16384 /* bytes of receive area per (sender, op) */

/* bytes of operation i: 1 byte to 16 KiB, multiples of 8 from i = 2 on */
static size_t bytes_of(int i) {
    static const size_t sizes[] = {1, 7, 8, 64, 256, 1024, 4096, 16384};
    return sizes[i % 8];
}

static unsigned char val(int owner, int other, int i, size_t b) {
    return (unsigned char)(owner * 131 + other * 37 + i * 11 + b * 7 + 1);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create failed");
    size_t area = (size_t)npes * OPS * SLOT;
    unsigned char *recv = shmem_malloc(area); /* [sender][op]: puts land here */
    unsigned char *send = shmem_malloc(area); /* [reader][op]: gets read from here */
    unsigned char *out = malloc(area);        /* [target][op]: put sources */
    unsigned char *in = malloc(area);         /* [target][op]: get destinations */
    CHECK(recv && send && out && in, "allocation failed");
    memset(recv, 0, area);
    memset(in, 0, area);
    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i < OPS; i++)
            for (size_t b = 0; b < SLOT; b++) {
                size_t at = ((size_t)pe * OPS + i) * SLOT + b;
                send[at] = val(me, pe, i, b) ^ 0x5a; /* what pe reads from me */
                out[at] = val(me, pe, i, b);         /* what I write to pe */
            }
    shmem_barrier_all();

    for (int i = 0; i < OPS; i++)
        for (int k = 0; k < npes; k++) {
            int pe = (me + k) % npes; /* start with a different target on each PE */
            size_t n = bytes_of(i);
            size_t there = ((size_t)me * OPS + i) * SLOT, here = ((size_t)pe * OPS + i) * SLOT;
            switch ((i + k) % 4) {
            case 0: shmem_putmem_nbi(recv + there, out + here, n, pe); break;
            case 1:
                if (n % 8 == 0) {
                    shmem_long_put_nbi((long *)(recv + there), (long *)(out + here), n / 8, pe);
                    break;
                }
                /* fall through */
            case 2: shmem_ctx_putmem_nbi(ctx, recv + there, out + here, n, pe); break;
            default:
                if (n % 4 == 0) {
                    shmem_put32_nbi(recv + there, out + here, n / 4, pe);
                    break;
                }
                shmem_char_put_nbi((char *)(recv + there), (char *)(out + here), n, pe);
            }
            /* the get reads pe's send area at [me][i] into in[pe][i] */
            switch ((i + k) % 3) {
            case 0: shmem_getmem_nbi(in + here, send + there, n, pe); break;
            case 1: shmem_ctx_getmem_nbi(ctx, in + here, send + there, n, pe); break;
            default:
                if (n % 8 == 0)
                    shmem_uint64_get_nbi((uint64_t *)(in + here), (uint64_t *)(send + there),
                                         n / 8, pe);
                else
                    shmem_uchar_get_nbi(in + here, send + there, n, pe);
            }
        }
    shmem_ctx_quiet(ctx);
    shmem_quiet();

    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i < OPS; i++)
            for (size_t b = 0; b < SLOT; b++) {
                unsigned char want = b < bytes_of(i) ? val(pe, me, i, b) ^ 0x5a : 0;
                unsigned char got = in[((size_t)pe * OPS + i) * SLOT + b];
                CHECK(got == want, "get_nbi #%d from PE %d: byte %zu (of %zu) is 0x%02x, expected "
                      "0x%02x", i, pe, b, bytes_of(i), got, want);
            }
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i < OPS; i++)
            for (size_t b = 0; b < SLOT; b++) {
                unsigned char want = b < bytes_of(i) ? val(pe, me, i, b) : 0;
                unsigned char got = recv[((size_t)pe * OPS + i) * SLOT + b];
                CHECK(got == want, "put_nbi #%d from PE %d: byte %zu (of %zu) is 0x%02x, expected "
                      "0x%02x", i, pe, b, bytes_of(i), got, want);
            }
    shmem_barrier_all();
    free(in);
    free(out);
    shmem_free(send);
    shmem_free(recv);
    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("nbi: %d PEs x %d put_nbi and get_nbi each, one quiet, ok\n", npes, OPS);
    shmem_finalize();
    return 0;
}
