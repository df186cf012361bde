/* rshmem-test
 * np: 4
 * exit: 1
 * timeout: 20
 * stdout-not: left the barrier
 * stderr: the job can never finish: PE 3 is in shmem_finalize (at exit); PEs 0, 1, 2 are in shmem_barrier_all
 */
/* PE 3 returns from main (an implicit shmem_finalize at exit) while the others wait in
 * shmem_barrier_all: the finalize must not complete their barrier, and the job must end
 * with one message saying where every PE is, instead of hanging. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    if (shmem_my_pe() == 3)
        return 0;
    shmem_barrier_all();
    printf("FAIL: PE %d left the barrier that PE 3 never entered\n", shmem_my_pe());
    return 0;
}
