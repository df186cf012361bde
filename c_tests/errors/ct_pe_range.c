/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * variant: CT_CALL=putmem getmem
 * stderr: rshmem: shmemx_
 * stderr: mem_ct (PE 0 of {np}): argument #5 'pe' is {np}, outside [0,
 */
/* shmemx_putmem_ct and shmemx_getmem_ct to PE npes: a fatal error naming the PE. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long dest;

int main(void) {
    shmem_init();
    shmemx_ct_t ct;
    shmemx_ct_create(&ct);
    if (shmem_my_pe() == 0) {
        const char *call = getenv("CT_CALL");
        long v = 1;
        if (!call || strcmp(call, "putmem") == 0)
            shmemx_putmem_ct(ct, &dest, &v, sizeof v, shmem_n_pes());
        else
            shmemx_getmem_ct(ct, &v, &dest, sizeof v, shmem_n_pes());
        fprintf(stderr, "FAIL: PE npes accepted\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", shmem_my_pe());
    return 2;
}
