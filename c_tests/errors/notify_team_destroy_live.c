/* rshmem-test
 * np: 1 2 4
 * exit: 1
 * timeout: 20
 * stderr: rshmem: shmem_team_destroy (PE 0 of {np}):
 * stderr: 1 notification set(s) allocated on the team still exist; free them first (shmemx_notify_free)
 */
/* A notification set allocated on the even PEs' team, used, and not freed: PE 0
 * destroying the team is a fatal error (the set would outlive the team that owns its
 * memory); the other PEs wait in a world barrier until the launcher ends the job. */
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
        shmemx_notify_t *s = shmemx_team_notify_alloc(even, 3);
        shmemx_notify_put(s, 1, NULL, NULL, 0, me);
        if (shmemx_notify_test(s, 1) != 1) {
            fprintf(stderr, "FAIL: PE %d: test after a put failed\n", me);
            return 2;
        }
        if (me == 0) {
            shmem_team_destroy(even);
            fprintf(stderr, "FAIL: PE 0: shmem_team_destroy with a live set returned\n");
            return 2;
        }
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    shmem_finalize();
    return 2;
}
