/* Churn for heap/tables.rs: run with SHMEM_PEER_TABLES=1, every collective that reaches
 * other PEs makes each PE drop its page tables for the other PEs' memory (it maps their
 * segments again over themselves), many times per iteration. Everything must still work:
 *
 *   - a second thread (SHMEM_THREAD_MULTIPLE) keeps loading every peer's words through
 *     pointers shmem_ptr gave before the first drop, and checking them, while the main
 *     thread's collectives replace the mapping under it (a hole would be a SIGSEGV);
 *   - each iteration every PE stores into every peer through those pointers, puts with
 *     shmem_long_p into a global and atomically adds to one PE's counter, then an alltoall
 *     and a reduction (which drop the tables), and every value is checked afterwards;
 *   - a lock taken by every PE in turn each iteration (its waiters sleep on a word of PE
 *     0's memory, whose page each PE has dropped and faulted back in since the last one).
 *
 * Prints "peer tables ok" on PE 0 when every check passed; exits 1 otherwise.
 * Usage: peer_tables [iterations]   (default 40)
 */
#include <pthread.h>
#include <shmem.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static long from_peers[256];  /* global: slot p written by PE p with shmem_long_p */
static long counter;          /* on the PE of the iteration: fetch-adds of every PE */
static long lock;             /* shmem_set_lock */
static long under_lock;       /* on PE 0: incremented under the lock */
static long fixed[4];         /* never changes after start: what the reader thread checks */
static atomic_int stop;
static atomic_long reader_loads;
static long **peer_fixed;
static int npes, me, failed;

static void *reader(void *arg) {
    (void)arg;
    while (!atomic_load(&stop)) {
        for (int p = 0; p < npes; p++) {
            volatile long *w = peer_fixed[p];
            if (w[1] != 1000 + p) {
                fprintf(stderr, "PE %d: reader thread saw %ld at PE %d, expected %d\n", me, w[1], p,
                        1000 + p);
                failed = 1;
                atomic_store(&stop, 1);
            }
        }
        atomic_fetch_add(&reader_loads, 1);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 40, provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > 256 || provided != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "needs at most 256 PEs and SHMEM_THREAD_MULTIPLE\n");
        return 1;
    }
    long *box = shmem_malloc((size_t)npes * sizeof(long));   /* slot p: stored by PE p */
    long *src = shmem_malloc((size_t)npes * sizeof(long));
    long *dst = shmem_malloc((size_t)npes * sizeof(long));
    static long sum_in, sum_out;
    peer_fixed = malloc((size_t)npes * sizeof *peer_fixed);
    long **peer_box = malloc((size_t)npes * sizeof *peer_box);
    fixed[1] = 1000 + me;
    shmem_barrier_all();
    for (int p = 0; p < npes; p++) {
        peer_fixed[p] = shmem_ptr(fixed, p);
        peer_box[p] = shmem_ptr(box, p);
        if (!peer_fixed[p] || !peer_box[p]) {
            fprintf(stderr, "PE %d: no shmem_ptr to PE %d\n", me, p);
            return 1;
        }
    }
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);

    for (int it = 0; it < iters && !failed; it++) {
        int home = it % npes;
        for (int i = 1; i < npes; i++) {
            int p = (me + i) % npes;
            peer_box[p][me] = it * 10000L + me; /* a store into the peer, by pointer */
            shmem_long_p(&from_peers[me], it * 10000L + me + 1, p);
        }
        shmem_long_atomic_fetch_add(&counter, me + 1, home);
        for (int k = 0; k < npes; k++) src[k] = it * 1000000L + me * 1000L + k;
        shmem_barrier_all();
        shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, 1);
        sum_in = me;
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &sum_out, &sum_in, 1);
        for (int k = 0; k < npes; k++) {
            if (dst[k] != it * 1000000L + k * 1000L + me) {
                fprintf(stderr, "PE %d it %d: alltoall block %d is %ld\n", me, it, k, dst[k]);
                failed = 1;
            }
            if (k != me && (box[k] != it * 10000L + k || from_peers[k] != it * 10000L + k + 1)) {
                fprintf(stderr, "PE %d it %d: from PE %d box %ld global %ld\n", me, it, k, box[k],
                        from_peers[k]);
                failed = 1;
            }
            /* Loads of what PE k stored into a third PE, through the old pointer. */
            int third = (k + 1) % npes;
            if (k != third && peer_box[third][k] != it * 10000L + k) {
                fprintf(stderr, "PE %d it %d: PE %d's slot at PE %d is %ld\n", me, it, k, third,
                        peer_box[third][k]);
                failed = 1;
            }
        }
        if (sum_out != (long)npes * (npes - 1) / 2) {
            fprintf(stderr, "PE %d it %d: sum %ld\n", me, it, sum_out);
            failed = 1;
        }
        long want = (long)npes * (npes + 1) / 2 * (it / npes + 1);
        if (me == home && counter != want) {
            fprintf(stderr, "PE %d it %d: counter %ld, expected %ld\n", me, it, counter, want);
            failed = 1;
        }
        shmem_set_lock(&lock);
        long v = shmem_long_g(&under_lock, 0);
        shmem_long_p(&under_lock, v + 1, 0);
        shmem_quiet();
        shmem_clear_lock(&lock);
        shmem_barrier_all(); /* every check of this iteration is done before the next stores */
    }
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    if (me == 0 && !failed && under_lock != (long)npes * iters) {
        fprintf(stderr, "under the lock: %ld, expected %ld\n", under_lock, (long)npes * iters);
        failed = 1;
    }
    if (atomic_load(&reader_loads) == 0) {
        fprintf(stderr, "PE %d: the reader thread never finished a pass\n", me);
        failed = 1;
    }
    int all_ok = !failed;
    static int ok_in, ok_out;
    ok_in = all_ok;
    shmem_int_min_reduce(SHMEM_TEAM_WORLD, &ok_out, &ok_in, 1);
    if (me == 0 && ok_out) printf("peer tables ok\n");
    shmem_finalize();
    return ok_out ? 0 : 1;
}
