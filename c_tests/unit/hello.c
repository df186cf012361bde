/* rshmem-test
 * np: 1 2 4 8
 * stdout: hello from PE 0 of {np}
 */
/* shmem_my_pe / shmem_n_pes: every PE greets; the launcher forwards all lines. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 1 || me < 0 || me >= npes) {
        fprintf(stderr, "FAIL: my_pe %d, n_pes %d\n", me, npes);
        return 1;
    }
    printf("hello from PE %d of %d\n", me, npes);
    fflush(stdout);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
