/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * variant: CT_CALL=get putmem free
 * stderr: rshmem: shmemx_
 * stderr: (PE 0 of {np}): argument #1 'ct' = 0x
 * stderr: is counter 1, which is not live: freed by shmemx_ct_free, or not created since this shmem_init
 */
/* A copy of a freed counter's handle (ct_free sets the handle itself to NULL; the
 * copy still holds the old address): reported, not counted through. Counter 0 stays
 * live, so the freed one is counter 1. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long dest;

int main(void) {
    shmem_init();
    shmemx_ct_t keep, ct;
    shmemx_ct_create(&keep);
    shmemx_ct_create(&ct);
    shmemx_ct_t copy = ct;
    shmemx_ct_free(&ct);
    if (ct != NULL) {
        fprintf(stderr, "FAIL: shmemx_ct_free left the handle %p\n", (void *)ct);
        return 2;
    }
    if (shmem_my_pe() == 0) {
        const char *call = getenv("CT_CALL");
        long v = 1;
        if (!call || strcmp(call, "get") == 0)
            (void)shmemx_ct_get(copy);
        else if (strcmp(call, "putmem") == 0)
            shmemx_putmem_ct(copy, &dest, &v, sizeof v, shmem_n_pes() - 1);
        else
            shmemx_ct_free(&copy);
        fprintf(stderr, "FAIL: shmemx_ct_%s accepted a freed counter\n", call ? call : "get");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", shmem_my_pe());
    return 2;
}
