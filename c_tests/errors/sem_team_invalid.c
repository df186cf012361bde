/* rshmem-test
 * np: 1 2
 * exit: 1
 * timeout: 20
 * variant: SEM_TEAM=destroyed
 * stderr: rshmem: shmemx_team_sem_alloc (PE 0 of {np}): argument #1 'team'
 */
/* shmemx_team_sem_alloc on SHMEM_TEAM_INVALID (the default run; "is SHMEM_TEAM_INVALID,
 * not a team") and, in the variant, on a team already destroyed ("is not a valid team"):
 * a fatal error on PE 0, the only caller. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t t = SHMEM_TEAM_INVALID;
    const char *which = getenv("SEM_TEAM");
    if (which != NULL) {
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t) != 0) {
            fprintf(stderr, "FAIL: shmem_team_split_strided failed\n");
            return 2;
        }
        shmem_team_destroy(t);
    }
    if (me == 0) {
        shmemx_sem_t *s = shmemx_team_sem_alloc(t, 0);
        fprintf(stderr, "FAIL: PE 0: shmemx_team_sem_alloc on %s team returned %p\n",
                which ? "a destroyed" : "SHMEM_TEAM_INVALID as", (void *)s);
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
