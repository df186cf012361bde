/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmemx_space_malloc (PE 0 of {np}):
 * stderr: is not a live space
 */
/* A space is created, attached, used, detached and destroyed on every PE; then PE 0
 * allocates in the destroyed space (the others wait in a barrier): a fatal usage error
 * naming the routine and the stale handle, even though a new space was created since
 * (a destroyed handle must not reach the new space). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    shmem_init();
    shmemx_space_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sheap_size = 1 << 16;
    cfg.memkind = SHMEMX_MEM_HOST;
    shmemx_space_t s, s2;
    shmemx_space_create(cfg, &s);
    shmemx_space_attach(s);
    void *p = shmemx_space_malloc(s, 64);
    if (p == NULL) {
        fprintf(stderr, "FAIL: shmemx_space_malloc gave NULL\n");
        return 2;
    }
    shmemx_space_free(s, p);
    shmemx_space_detach(s);
    shmemx_space_destroy(s);
    shmemx_space_create(cfg, &s2);
    shmemx_space_attach(s2);
    if (shmem_my_pe() == 0) {
        p = shmemx_space_malloc(s, 64);
        fprintf(stderr, "FAIL: shmemx_space_malloc on a destroyed space returned %p\n", p);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 2;
}
