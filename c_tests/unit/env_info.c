/* rshmem-test
 * np: 1 2
 * env: SHMEM_INFO=1
 * env: SMA_VERSION=1
 * stderr: rshmem 0.1.0 (OpenSHMEM 1.6)
 * stderr: SHMEM_SYMMETRIC_SIZE (alias SMA_SYMMETRIC_SIZE)
 * stderr: SHMEM_HANG_WARN
 * stderr: rshmem transport: shared memory; OpenSHMEM atomics are atomic with each other and with CPU atomics
 */
/* SHMEM_INFO prints the variables with their values and the transport with its atomicity,
 * and the deprecated SMA_VERSION alias prints the library version, once, from PE 0 at
 * start-up. */
#include <shmem.h>

int main(void) {
    shmem_init();
    shmem_finalize();
    return 0;
}
