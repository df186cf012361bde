/* Memory at scale: page tables and resident memory of every PE after shmem_init (a hello
 * world) and after all-to-alls, summed over the job. Every PE reads its own
 *
 *   VmPTE         /proc/self/status: page tables of the process
 *   Rss, Pss      /proc/self/smaps_rollup: resident set, and its proportional share
 *                 (a page shared by k processes counts 1/k in each one's Pss)
 *
 * first right after shmem_init and a barrier ("init"), then after `reps` calls of
 * shmem_long_alltoall with one long per pair of PEs and a barrier ("alltoall"), and PE 0
 * prints the totals over all PEs and the largest VmPTE of one PE. The job's memory is about
 * the sum of Pss plus the sum of VmPTE (the shared job file counted once through Pss).
 * Reading is done before any PE sends its figures, so the gathering (a put of a few longs
 * to PE 0) is not counted in them.
 *
 * Output (PE 0), sizes in MiB (2^20 bytes):
 *   RESULT pte_total_<phase> 0 <npes> <MiB> MiB
 *   RESULT pte_max_<phase>   0 <npes> <MiB> MiB
 *   RESULT rss_total_<phase> 0 <npes> <MiB> MiB
 *   RESULT pss_total_<phase> 0 <npes> <MiB> MiB
 *   RESULT alltoall_time     8 <npes> <seconds of the first call, the slowest PE> s
 * Usage: mem_scale [reps]   (default 1)
 */
#include "bench.h"

#include <shmem.h>
#include <string.h>

enum { F_PTE, F_RSS, F_PSS, F_N };

/* The value in kB of the line starting with `key` in `path`, -1 when absent. */
static long proc_kb(const char *path, const char *key) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    size_t n = strlen(key);
    long kb = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, n) == 0) {
            kb = strtol(line + n, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kb;
}

static void read_mine(long *out) {
    out[F_PTE] = proc_kb("/proc/self/status", "VmPTE:");
    out[F_RSS] = proc_kb("/proc/self/smaps_rollup", "Rss:");
    out[F_PSS] = proc_kb("/proc/self/smaps_rollup", "Pss:");
}

/* PE 0 sums the records every PE put into `all` and prints them. */
static int report(const char *phase, const long *all, int npes) {
    long pte = 0, pte_max = 0, rss = 0, pss = 0;
    for (int p = 0; p < npes; p++) {
        const long *r = all + (size_t)p * F_N;
        if (r[F_PTE] < 0 || r[F_RSS] < 0 || r[F_PSS] < 0) {
            fprintf(stderr, "mem_scale: PE %d could not read /proc/self/status or smaps_rollup\n", p);
            return 1;
        }
        pte += r[F_PTE];
        rss += r[F_RSS];
        pss += r[F_PSS];
        if (r[F_PTE] > pte_max) pte_max = r[F_PTE];
    }
    char name[64];
    snprintf(name, sizeof name, "pte_total_%s", phase);
    bench_result(name, 0, npes, pte / 1024.0, "MiB");
    snprintf(name, sizeof name, "pte_max_%s", phase);
    bench_result(name, 0, npes, pte_max / 1024.0, "MiB");
    snprintf(name, sizeof name, "rss_total_%s", phase);
    bench_result(name, 0, npes, rss / 1024.0, "MiB");
    snprintf(name, sizeof name, "pss_total_%s", phase);
    bench_result(name, 0, npes, pss / 1024.0, "MiB");
    return 0;
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 1;
    if (reps < 1) reps = 1;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_barrier_all();
    long mine[F_N];
    read_mine(mine);

    long *all = shmem_malloc((size_t)npes * F_N * sizeof(long));
    long *src = shmem_malloc((size_t)npes * sizeof(long));
    long *dst = shmem_malloc((size_t)npes * sizeof(long));
    static double slowest; /* symmetric: the alltoall time of the slowest PE */
    static double t_mine;
    if (!all || !src || !dst) {
        fprintf(stderr, "mem_scale: shmem_malloc failed on PE %d\n", me);
        return 1;
    }
    shmem_long_put(all + (size_t)me * F_N, mine, F_N, 0);
    shmem_barrier_all();
    int failed = 0;
    if (me == 0) failed |= report("init", all, npes);

    for (int k = 0; k < npes; k++) src[k] = (long)me * npes + k;
    shmem_barrier_all();
    for (int i = 0; i < reps; i++) {
        double t0 = bench_now();
        shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, 1);
        if (i == 0) t_mine = bench_now() - t0;
    }
    for (int k = 0; k < npes; k++) {
        if (dst[k] != (long)k * npes + me) {
            fprintf(stderr, "mem_scale: PE %d got %ld from PE %d, expected %ld\n", me, dst[k], k,
                    (long)k * npes + me);
            failed = 1;
            break;
        }
    }
    shmem_barrier_all();
    read_mine(mine);
    shmem_long_put(all + (size_t)me * F_N, mine, F_N, 0);
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &slowest, &t_mine, 1);
    shmem_barrier_all();
    if (me == 0) {
        failed |= report("alltoall", all, npes);
        bench_result("alltoall_time", 8, npes, slowest, "s");
    }
    shmem_barrier_all();
    shmem_finalize();
    return failed;
}
