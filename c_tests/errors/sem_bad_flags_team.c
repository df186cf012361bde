/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * timeout: 20
 * variant: SEM_BAD_FLAGS=64 12 48 -1
 * stderr: rshmem: shmemx_team_sem_alloc (PE 0 of {np}): argument #2 'flags' is 0x
 */
/* shmemx_team_sem_alloc with invalid flags on PE 0 (the team's other PEs pass 0): bits
 * outside the six flags (64, -1), both SPRODUCER and MPRODUCER (12), both SCONSUMER and
 * MCONSUMER (48); without the variable, BOOLEAN | INTEGER | SCONSUMER (19). The flags
 * are argument #2 here. (The reason differs by variant; sem_bad_flags.c checks one.) */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    const char *env = getenv("SEM_BAD_FLAGS");
    int bad = env ? atoi(env) : SHMEMX_SEM_BOOLEAN | SHMEMX_SEM_INTEGER | SHMEMX_SEM_SCONSUMER;
    shmemx_sem_t *s = shmemx_team_sem_alloc(SHMEM_TEAM_WORLD, me == 0 ? bad : 0);
    if (me == 0) {
        fprintf(stderr, "FAIL: PE 0: shmemx_team_sem_alloc(WORLD, %#x) returned %p\n", (unsigned)bad, (void *)s);
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
