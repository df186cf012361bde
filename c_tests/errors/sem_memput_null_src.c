/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_memput_signal (PE 0 of {np}): argument #2 'src' is NULL
 */
/* shmemx_memput_signal with a NULL source and nbytes > 0 is a fatal error (with
 * nbytes 0 the same call is a plain post, and is accepted first). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

static char dest[16];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmemx_sem_t *s = shmemx_sem_alloc(0);
    if (me == 0) {
        shmemx_memput_signal(dest, NULL, 0, s, 1, npes - 1);
        shmemx_memput_signal(dest, NULL, sizeof dest, s, 1, npes - 1);
        fprintf(stderr, "FAIL: PE 0: shmemx_memput_signal with a NULL source returned\n");
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
