/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_ctx_int_put (PE 0 of {np}):
 * stderr: may only access that space's memory; argument #2 'dest'
 */
/* A context created from a space may only access that space's memory: PE 0 puts on it
 * into memory of the symmetric heap (shmem_malloc), after a put into the space's own
 * memory worked; the others wait in a barrier. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *heap = shmem_malloc(4 * sizeof(int));
    shmemx_space_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sheap_size = 1 << 16;
    cfg.num_contexts = 1;
    cfg.memkind = SHMEMX_MEM_HOST;
    shmemx_space_t s;
    shmemx_space_create(cfg, &s);
    shmemx_space_attach(s);
    int *in_space = shmemx_space_malloc(s, 4 * sizeof(int));
    shmem_ctx_t ctx;
    if (heap == NULL || in_space == NULL || shmemx_space_create_ctx(s, 0, &ctx) != 0) {
        fprintf(stderr, "FAIL: set-up failed\n");
        return 2;
    }
    int v[4] = {1, 2, 3, 4};
    shmem_ctx_int_put(ctx, in_space, v, 4, (me + 1) % npes);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    if (me == 0) {
        shmem_ctx_int_put(ctx, heap, v, 4, (me + 1) % npes);
        fprintf(stderr, "FAIL: a put on a space's context into heap memory returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 2;
}
