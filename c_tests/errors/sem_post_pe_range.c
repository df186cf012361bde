/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_sem_postN (PE 0 of {np}): argument #3 'pe' is {np}, outside [0,
 */
/* postN to PE npes, which does not exist: a fatal error naming the PE argument (#3). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    if (me == 0) {
        shmemx_sem_postN(s, 3, npes - 1);
        shmemx_sem_postN(s, 3, npes);
        fprintf(stderr, "FAIL: PE 0: shmemx_sem_postN to PE %d returned\n", npes);
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
