/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmem_realloc (PE 0 of {np}):
 * stderr: shmem_realloc works on the symmetric heap only
 */
/* shmem_realloc of a block of a space (shmem_free works on it, shmem_realloc does
 * not): PE 0 calls it while the others wait in a barrier; a fatal usage error. */
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
    shmemx_space_t s;
    shmemx_space_create(cfg, &s);
    shmemx_space_attach(s);
    void *p = shmemx_space_malloc(s, 64), *q = shmemx_space_malloc(s, 64);
    if (p == NULL || q == NULL) {
        fprintf(stderr, "FAIL: shmemx_space_malloc gave NULL\n");
        return 2;
    }
    shmem_free(q);
    if (shmem_my_pe() == 0) {
        p = shmem_realloc(p, 128);
        fprintf(stderr, "FAIL: shmem_realloc of space memory returned %p\n", p);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 2;
}
