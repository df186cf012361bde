/* rshmem-test
 * np: 2 4
 * exit: 1
 * timeout: 20
 * variant: NOTIFY_FORM=notify_put signal
 * stderr: rshmem: shmem
 * stderr: (PE 0 of {np}): argument #
 * stderr: PE 1 is not a member of
 */
/* A set allocated on the even PEs has no copy on PE 1: a notification put to PE 1
 * (through shmemx_notify_put, or the user's own put_signal on shmemx_notify_flag) is a
 * fatal error naming the PE, not a write into whatever PE 1 has there. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long dest;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t even;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, npes / 2, NULL, 0, &even);
    if (me == 0) {
        shmemx_notify_t *s = shmemx_team_notify_alloc(even, 2);
        long v = 5;
        const char *form = getenv("NOTIFY_FORM");
        if (form && strcmp(form, "signal") == 0)
            shmem_putmem_signal(&dest, &v, sizeof v, shmemx_notify_flag(s, 1), SHMEMX_NOTIFY_READY,
                                SHMEM_SIGNAL_SET, 1);
        else
            shmemx_notify_put(s, 1, &dest, &v, sizeof v, 1);
        fprintf(stderr, "FAIL: a notification to PE 1 returned\n");
        return 2;
    }
    if (even != SHMEM_TEAM_INVALID)
        shmemx_team_notify_alloc(even, 2);
    shmem_barrier_all();
    fprintf(stderr, "FAIL: PE %d passed the barrier\n", me);
    return 2;
}
