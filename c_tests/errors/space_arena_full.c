/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * env: SHMEM_SPACE_ARENA_SIZE=4M
 * stderr: rshmem: shmemx_space_attach (PE
 * stderr: SHMEM_SPACE_ARENA_SIZE
 * stdout: PE 0 attached 2 spaces
 */
/* With a 4 MiB space arena, 1 MiB spaces are attached to the world and kept until one
 * finds no room: a fatal error that names SHMEM_SPACE_ARENA_SIZE (on every PE: the
 * members agree that there is no room). It must happen within 8 attaches. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    shmem_init();
    shmemx_space_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sheap_size = 1 << 20;
    cfg.memkind = SHMEMX_MEM_HOST;
    for (int i = 0; i < 8; i++) {
        shmemx_space_t s;
        shmemx_space_create(cfg, &s);
        shmemx_space_attach(s);
        if (shmem_my_pe() == 0) {
            printf("PE 0 attached %d spaces\n", i + 1);
            fflush(stdout);
        }
    }
    fprintf(stderr, "FAIL: PE %d attached 8 spaces of 1 MiB in a 4 MiB arena\n", shmem_my_pe());
    return 2;
}
