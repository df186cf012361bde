/* rshmem-test
 * np: 1 2
 * exit: 1
 * stderr: rshmem: shmemx_space_create (PE 0 of {np}):
 * stderr: SHMEMX_MEM_CUDA
 * stderr: rshmem serves host memory only
 */
/* PE 0 creates a space of CUDA memory (the others wait in a barrier): rshmem serves
 * host memory only, a fatal error that names the memory kind. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        shmemx_space_config_t cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.sheap_size = 1 << 20;
        cfg.num_contexts = 1;
        cfg.memkind = SHMEMX_MEM_CUDA;
        shmemx_space_t s;
        shmemx_space_create(cfg, &s);
        fprintf(stderr, "FAIL: shmemx_space_create with SHMEMX_MEM_CUDA returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 2;
}
