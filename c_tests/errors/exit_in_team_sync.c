/* rshmem-test
 * np: 4
 * exit: 1
 * timeout: 20
 * stdout-not: left shmem_team_sync
 * stderr: the job can never finish: PE 2 is in shmem_finalize (at exit); PEs 0, 1, 3 are in shmem_team_sync
 */
/* PE 2 calls exit(0) while the others wait in shmem_team_sync on the world team: the job
 * ends with one message naming every PE and where it is. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 2)
        exit(0);
    shmem_team_sync(SHMEM_TEAM_WORLD);
    printf("FAIL: PE %d left shmem_team_sync without PE 2\n", shmem_my_pe());
    return 0;
}
