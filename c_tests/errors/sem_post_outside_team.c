/* rshmem-test
 * np: 2 4
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmemx_sem_post (PE 0 of {np}): argument #2 'pe' is 1, which is not a member of the semaphore's team
 */
/* A semaphore of the even PEs' team: PE 0 posts to PE 2 (a member; at np 2 there is
 * none, so to itself), then to world PE 1, which is odd and has no copy: a fatal error
 * naming the PE. */
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
        if (me == 0) {
            shmemx_sem_post(s, npes > 2 ? 2 : 0);
            shmemx_sem_post(s, 1);
            fprintf(stderr, "FAIL: PE 0: a post to PE 1, outside the even team, returned\n");
            return 2;
        }
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
