/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmem_team_destroy (PE 0 of {np}):
 * stderr: semaphore(s) allocated on the team still exist
 */
/* A semaphore allocated on the even PEs' team, used, and not freed: PE 0 destroying the
 * team is a fatal error (the semaphore would outlive the team that owns its memory); the
 * other PEs wait in a world barrier until the launcher ends the job. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t even = SHMEM_TEAM_INVALID;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) != 0) {
        fprintf(stderr, "FAIL: shmem_team_split_strided failed\n");
        return 2;
    }
    if (me % 2 == 0) {
        shmemx_sem_t *s = shmemx_team_sem_alloc(even, 0);
        shmemx_sem_post(s, me);
        if (shmemx_sem_try(s) != 1) {
            fprintf(stderr, "FAIL: PE %d: try after a post failed\n", me);
            return 2;
        }
        if (me == 0) {
            shmem_team_destroy(even);
            fprintf(stderr, "FAIL: PE 0: shmem_team_destroy with a live semaphore returned\n");
            return 2;
        }
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
