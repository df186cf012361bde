/* Memory: the resident set (VmRSS of /proc/self/status) of every PE right after
 * shmem_init, before anything else; compare.py runs it without SHMEM_SYMMETRIC_SIZE (or
 * SMA_SYMMETRIC_SIZE), i.e. with each implementation's default symmetric heap size.
 *
 *   rss_after_init_max   the largest VmRSS over all PEs
 *   rss_after_init_mean  the mean over all PEs
 *
 * in MB (10^6 bytes). Every PE reads its VmRSS, then (after that reading) allocates one
 * symmetric long per PE and stores its value on PE 0 with shmem_long_p; PE 0 reads them
 * after a shmem_barrier_all. Pages of the symmetric heap or of shared mappings count in
 * VmRSS once a PE has touched them, as the kernel reports it.
 *
 * Output (PE 0): RESULT <benchmark> 0 <npes> <MB> MB
 * Usage: mem
 */
#include "bench.h"

#include <shmem.h>
#include <string.h>

/* VmRSS in kB (1024 bytes), -1 when unreadable. */
static long vm_rss_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kb;
}

int main(void) {
    shmem_init();
    long kb = vm_rss_kb();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *all = shmem_malloc((size_t)npes * sizeof(long));
    if (!all) {
        fprintf(stderr, "mem: shmem_malloc failed on PE %d\n", me);
        return 1;
    }
    shmem_long_p(&all[me], kb, 0);
    shmem_barrier_all(); /* completes every PE's shmem_long_p */
    int failed = 0;
    if (me == 0) {
        long max = 0, sum = 0;
        for (int p = 0; p < npes; p++) {
            if (all[p] < 0) failed = 1;
            if (all[p] > max) max = all[p];
            sum += all[p];
        }
        if (failed) {
            fprintf(stderr, "mem: a PE could not read VmRSS from /proc/self/status\n");
        } else {
            bench_result("rss_after_init_max", 0, npes, (double)max * 1024.0 / 1e6, "MB");
            bench_result("rss_after_init_mean", 0, npes, (double)sum * 1024.0 / npes / 1e6, "MB");
        }
    }
    shmem_barrier_all();
    shmem_free(all);
    shmem_finalize();
    return failed;
}
