/* put_nbi_rate_allpeers: msgrate.c with PE 0 sending round-robin to every other PE
 * (see msgrate.c). compare.py runs it at the collective PE counts (--np).
 * Output (PE 0): RESULT put_nbi_rate_allpeers 8 <npes> <Mop/s> Mop/s
 */
#define ALL_PEERS 1
#include "msgrate.c"
