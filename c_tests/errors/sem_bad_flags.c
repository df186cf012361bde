/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_sem_alloc (PE 0 of {np}):
 * stderr: argument #1 'flags' is 0x3: sets both SHMEMX_SEM_BOOLEAN and SHMEMX_SEM_INTEGER
 */
/* shmemx_sem_alloc with both halves of the BOOLEAN/INTEGER pair: a fatal error on PE 0,
 * which is the only PE to pass them; the others wait in the allocation's barrier until
 * the launcher ends the job. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    int flags = me == 0 ? SHMEMX_SEM_BOOLEAN | SHMEMX_SEM_INTEGER : 0;
    shmemx_sem_t *s = shmemx_sem_alloc(flags);
    if (me == 0) {
        fprintf(stderr, "FAIL: PE 0: shmemx_sem_alloc(BOOLEAN | INTEGER) returned %p\n", (void *)s);
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
