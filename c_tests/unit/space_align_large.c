/* rshmem-test
 * np: 1 2 4
 * env: SHMEM_SYMMETRIC_SIZE=64M
 */
/* shmemx_space_align with alignments above 2 MiB (where a space's extent is aligned at
 * most): 4, 8 and 16 MiB in a 40 MiB space give blocks whose addresses are aligned on
 * every member, at the same offset (a put to the neighbour's copy lands at the start
 * of its block); an alignment above the heap's (64 MiB here) gives NULL. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>

#include "../common.h"

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmemx_space_config_t config;
    config.sheap_size = (size_t)40 << 20;
    config.num_contexts = 0;
    config.memkind = SHMEMX_MEM_HOST;
    shmemx_space_t space;
    shmemx_space_create(config, &space);
    shmemx_space_attach(space);
    for (size_t mib = 4; mib <= 16; mib *= 2) {
        size_t alignment = mib << 20;
        char *pad = shmemx_space_malloc(space, 100);
        long *a = shmemx_space_align(space, alignment, 4 * sizeof(long));
        CHECK(pad != NULL, "shmemx_space_malloc(100) failed");
        CHECK(a != NULL, "shmemx_space_align(%zu MiB) gave NULL", mib);
        CHECK((uintptr_t)a % alignment == 0, "shmemx_space_align(%zu MiB) gave %p", mib, (void *)a);
        a[0] = a[1] = -1;
        shmem_barrier_all();
        shmem_long_p(&a[0], 100 + me, right);
        shmem_barrier_all();
        CHECK(a[0] == 100 + left && a[1] == -1, "%zu MiB block: %ld %ld, want %d -1", mib, a[0], a[1], 100 + left);
        shmemx_space_free(space, a);
        shmemx_space_free(space, pad);
    }
    CHECK(shmemx_space_align(space, (size_t)128 << 20, 64) == NULL, "an alignment above the heap's must give NULL");
    shmemx_space_detach(space);
    shmemx_space_destroy(space);
    if (me == 0)
        printf("space alignments ok\n");
    shmem_finalize();
    return 0;
}
