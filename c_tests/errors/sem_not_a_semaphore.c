/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * variant: SEM_FAKE=malloc stack null
 * stderr: rshmem: shmemx_sem_wait (PE 0 of {np}): argument #1 'sem' = 0x
 * stderr: is not a semaphore
 */
/* shmemx_sem_wait on pointers that were never semaphores: 256 bytes of the symmetric
 * heap (shmem_malloc, the default), a malloc block, a stack buffer, and NULL ("0x0"). A
 * fatal error each, not a wait forever. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    void *heap = shmem_calloc(1, 256);
    if (me == 0) {
        _Alignas(64) unsigned char stack[256];
        memset(stack, 0, sizeof stack);
        const char *kind = getenv("SEM_FAKE");
        void *p = heap;
        if (kind && strcmp(kind, "malloc") == 0)
            p = calloc(1, 256);
        else if (kind && strcmp(kind, "stack") == 0)
            p = stack;
        else if (kind && strcmp(kind, "null") == 0)
            p = NULL;
        shmemx_sem_wait((shmemx_sem_t *)p);
        fprintf(stderr, "FAIL: PE 0: shmemx_sem_wait(%p) returned\n", p);
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
