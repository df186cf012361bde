/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmemx_space_destroy (PE 0 of {np}):
 * stderr: is already attached
 */
/* PE 0 destroys a space that is still attached to the world (the others wait in a
 * barrier): a fatal usage error naming the routine. */
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
    if (shmem_my_pe() == 0) {
        shmemx_space_destroy(s);
        fprintf(stderr, "FAIL: shmemx_space_destroy of an attached space returned\n");
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 2;
}
