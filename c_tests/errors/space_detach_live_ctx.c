/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmemx_space_detach (PE
 * stderr: 1 context(s) created from the space still exist
 */
/* Every PE frees its allocation but detaches the space while a context created from
 * it still exists: a fatal usage error (on every PE: the state is the same). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    shmem_init();
    shmemx_space_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sheap_size = 1 << 16;
    cfg.num_contexts = 2;
    cfg.memkind = SHMEMX_MEM_HOST;
    shmemx_space_t s;
    shmemx_space_create(cfg, &s);
    shmemx_space_attach(s);
    shmem_ctx_t a, b;
    if (shmemx_space_create_ctx(s, 0, &a) != 0 || shmemx_space_create_ctx(s, SHMEM_CTX_PRIVATE, &b) != 0) {
        fprintf(stderr, "FAIL: shmemx_space_create_ctx failed\n");
        return 2;
    }
    void *p = shmemx_space_malloc(s, 64);
    if (p == NULL) {
        fprintf(stderr, "FAIL: shmemx_space_malloc gave NULL\n");
        return 2;
    }
    shmemx_space_free(s, p);
    shmem_ctx_destroy(a);
    shmemx_space_detach(s);
    fprintf(stderr, "FAIL: shmemx_space_detach with a live context returned\n");
    return 2;
}
