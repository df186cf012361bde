/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * stderr: rshmem: shmem_pe_quiet (PE 0 of {np}): argument #1 'target_pes' holds PE {np}, outside [0,
 */
/* PE 0 calls shmem_pe_quiet with a list whose last entry is npes (one past the last PE)
 * while the others wait in a barrier. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 0) {
        int pes[2] = {0, shmem_n_pes()};
        shmem_pe_quiet(pes, 2);
        fprintf(stderr, "FAIL: shmem_pe_quiet with PE %d in the list returned\n", pes[1]);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
