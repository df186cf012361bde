/* rshmem-test
 * np: 2 4
 * exit: 1
 * env: SHMEM_SPACE_ARENA_SIZE=4194304T
 * stderr: rshmem: shmem_init (PE 0 of {np}): the job needs {np} PEs x 4611686019501129728 bytes (2 MiB
 * stderr: of globals + 512 MiB of heap (SHMEM_SYMMETRIC_SIZE) + 4 EiB of space arena (SHMEM_SPACE_ARENA_SIZE)) = 
 * stderr: bytes with the control block, more than a memory file can hold (2^63 - 1 bytes)
 * env: SHMEM_SYMMETRIC_SIZE=512M
 * variant: RSHMEM_TEST_PE0_REPORT_DELAY_MS=500
 */
/* Every size is valid alone (2^62 bytes of space arena), but npes segments of it do
 * not fit in a memory file (2^63 bytes at most): a named error, not an overflowed
 * product. The segment stride is a multiple of the heap size rounded down to a power
 * of two (512 MiB here), so that shmem_align can honour any alignment up to it.
 * The variant (debug builds) makes PE 0 the slowest to print: the other PEs wait
 * for its message before they exit, so oshrun cannot end PE 0 before it is out. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    fprintf(stderr, "FAIL: shmem_init accepted %d PEs x 2^62 bytes of space arena\n", shmem_n_pes());
    return 2;
}
