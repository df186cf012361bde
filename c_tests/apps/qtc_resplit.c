/* rshmem-test
 * np: 1 3 4 8
 * variant: SHMEM_PSYNC_STRATEGY=all
 * args: -n 2048 -r --check
 * cflags: -Wl,--no-as-needed -lm
 * timeout: 60
 * stdout: clusters: 276 (+59 singletons), teams: 276 (
 * stdout: verify: OK (hash 0x39ae21c6d1a60955, identical to the serial reference)
 * stdout-not: FAILED
 */
/* examples/qtc with -r: a new team is split from the current one at every iteration (276
 * of them) and the old one destroyed, each running a team sync, a max-reduction and a
 * broadcast from a root that changes almost every time, checked by every member
 * (--check). Same clusters and hash as qtc_check. */
#include "../../examples/qtc/qtc.c"
