/* rshmem-test
 * np: 1 3 4 8
 * variant: SHMEM_PSYNC_STRATEGY=all
 * args: -n 2048 --no-destroy --check
 * cflags: -Wl,--no-as-needed -lm
 * timeout: 60
 * stdout: clusters: 276 (+59 singletons), teams: {np} (
 * stdout: verify: OK (hash 0x39ae21c6d1a60955, identical to the serial reference)
 * stdout-not: FAILED
 */
/* examples/qtc with --no-destroy: no team is ever destroyed (as SHOC never frees its
 * communicators), so every team's synchronisation memory stays live while the next,
 * smaller, team runs its collectives. Same clusters and hash as qtc_check. */
#include "../../examples/qtc/qtc.c"
