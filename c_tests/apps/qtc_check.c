/* rshmem-test
 * np: 1 3 4 8
 * variant: SHMEM_PSYNC_STRATEGY=all
 * args: -n 2048 --check
 * cflags: -Wl,--no-as-needed -lm
 * timeout: 60
 * stdout: clusters: 276 (+59 singletons), teams: {np} (
 * stdout: verify: OK (hash 0x39ae21c6d1a60955, identical to the serial reference)
 * stdout: RESULT strategy=
 * stdout-not: FAILED
 */
/* examples/qtc (SHOC's QTC on shrinking teams) with every team member rebuilding each
 * winning cluster and comparing it with the broadcast one (--check), under every pSync
 * strategy. The clustering does not depend on the number of PEs: the cluster count and
 * the hash of the (seed, cardinality) sequence are the same everywhere, and equal to the
 * program's own serial reference. With the default k = ceil(N/P) the job runs on teams of
 * P, P-1, ..., 1 PEs. (-lm before the source needs --no-as-needed: the directives put
 * cflags before the program.) */
#include "../../examples/qtc/qtc.c"
