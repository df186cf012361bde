/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * variant: CT_CALL=get set wait putmem getmem free
 * stderr: rshmem: shmemx_
 * stderr: (PE 0 of {np}): argument #1 'ct' = 0x
 * stderr: is not a counter (one shmemx_ct_create gave and shmemx_ct_free has not freed)
 */
/* A counter handle that shmemx_ct_create never gave (the address of a global), in every
 * routine that takes one: a fatal error naming the routine and the handle, never a
 * store through it. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long dest, fake;

int main(void) {
    shmem_init();
    shmemx_ct_t ct;
    shmemx_ct_create(&ct);
    shmemx_ct_t bad = (shmemx_ct_t)&fake;
    if (shmem_my_pe() == 0) {
        const char *call = getenv("CT_CALL");
        long v = 1;
        if (!call || strcmp(call, "get") == 0)
            (void)shmemx_ct_get(bad);
        else if (strcmp(call, "set") == 0)
            shmemx_ct_set(bad, 3);
        else if (strcmp(call, "wait") == 0)
            shmemx_ct_wait(bad, 1);
        else if (strcmp(call, "putmem") == 0)
            shmemx_putmem_ct(bad, &dest, &v, sizeof v, shmem_n_pes() - 1);
        else if (strcmp(call, "getmem") == 0)
            shmemx_getmem_ct(bad, &v, &dest, sizeof v, shmem_n_pes() - 1);
        else
            shmemx_ct_free(&bad);
        fprintf(stderr, "FAIL: shmemx_ct_%s accepted a handle it never gave\n", call ? call : "get");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", shmem_my_pe());
    return 2;
}
