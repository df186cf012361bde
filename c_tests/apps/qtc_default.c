/* rshmem-test
 * np: 4
 * cflags: -Wl,--no-as-needed -lm
 * timeout: 300
 * stdout: QTC N=4096 t=1 PEs=4 k=1024 seed=1 strategy=traditional
 * stdout: clusters: 371 (+60 singletons), teams: 4 (4,3,2,1)
 * stdout: verify: OK (hash 0x46f02cedc8a420fe, identical to the serial reference)
 * stdout: RESULT strategy=traditional npes=4 n=4096 t=1 k=1024 clusters=371 singletons=60 teams=4 sizes=4,3,2,1 verify=OK hash=0x46f02cedc8a420fe
 * stdout-not: FAILED
 */
/* examples/qtc on its default input (SHOC's size 1: N=4096 points, threshold 1, data
 * seed 1) at 4 PEs under the default strategy: the cluster count and hash recorded once
 * (the same at 1 and 2 PEs, and for every strategy). */
#include "../../examples/qtc/qtc.c"
