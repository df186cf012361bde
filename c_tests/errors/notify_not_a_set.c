/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * variant: NOTIFY_FAKE=heap malloc stack null freed
 * stderr: rshmem: shmemx_notify_wait_any (PE 0 of {np}): argument #1 'set' = 0x
 * stderr: is not a notification set
 */
/* shmemx_notify_wait_any on pointers that are not live sets: symmetric heap memory, a
 * malloc block, a stack buffer, NULL and a set already freed. A fatal error each, not a
 * wait forever. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    shmem_init();
    void *heap = shmem_calloc(1, 256);
    shmemx_notify_t *freed = shmemx_notify_alloc(3);
    shmemx_notify_free(freed);
    if (shmem_my_pe() == 0) {
        _Alignas(64) unsigned char stack[256];
        memset(stack, 0, sizeof stack);
        const char *kind = getenv("NOTIFY_FAKE");
        void *p = heap;
        if (kind && strcmp(kind, "malloc") == 0)
            p = calloc(1, 256);
        else if (kind && strcmp(kind, "stack") == 0)
            p = stack;
        else if (kind && strcmp(kind, "null") == 0)
            p = NULL;
        else if (kind && strcmp(kind, "freed") == 0)
            p = freed;
        shmemx_notify_wait_any((shmemx_notify_t *)p);
        fprintf(stderr, "FAIL: PE 0: shmemx_notify_wait_any(%p) returned\n", p);
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", shmem_my_pe());
    return 2;
}
