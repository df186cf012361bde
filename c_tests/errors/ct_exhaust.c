/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_ct_create (PE 0 of {np}): every one of this PE's 64 counters is in use (64 live): free one with shmemx_ct_free first
 */
/* The 65th live counter: a named error (the counters are a fixed table in symmetric
 * memory). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    shmemx_ct_t ct[65];
    for (int i = 0; i < 64; i++)
        shmemx_ct_create(&ct[i]);
    if (shmem_my_pe() == 0) {
        shmemx_ct_create(&ct[64]);
        fprintf(stderr, "FAIL: a 65th counter\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", shmem_my_pe());
    return 2;
}
