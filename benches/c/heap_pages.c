/* Page tables of a job whose PEs touch their symmetric heap and read every other PE's:
 * the cost SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES changes (docs/performance.md, "The heap on
 * huge pages"). Every PE allocates `mib` MiB of its heap (default: 8), writes all of it,
 * then loads one long from the same block of every other PE through shmem_ptr (as a
 * program reading its node's heaps by load does: each other PE's heap costs this process a
 * page-table page on 4 KiB pages, a page-directory entry on 2 MiB ones), and a barrier.
 * Every PE then reads its VmPTE (/proc/self/status) and Pss (/proc/self/smaps_rollup), and
 * PE 0 the PageTables line of /proc/meminfo (the whole machine's, other users' processes
 * included) and the huge pages in use and reserved (hugetlb pages count in neither Pss nor
 * Rss), all before any collective, which may drop page tables (SHMEM_PEER_TABLES). With `secs` > 0, PE 0 then sleeps that long before the
 * final barrier (the others wait in it), so that the job's memory can be read from outside.
 *
 * Output (PE 0), sizes in MiB (2^20 bytes):
 *   RESULT pte_total   0 <npes> <MiB> MiB      sum of VmPTE over the PEs
 *   RESULT pte_max     0 <npes> <MiB> MiB      largest VmPTE of one PE
 *   RESULT pss_total   0 <npes> <MiB> MiB
 *   RESULT meminfo_pagetables 0 <npes> <MiB> MiB
 *   RESULT hugetlb_in_use      0 <npes> <MiB> MiB   (HugePages_Total - HugePages_Free) x size
 *   RESULT hugetlb_reserved    0 <npes> <MiB> MiB   HugePages_Rsvd x size
 *   RESULT touch_time  0 <npes> <s> s           writing the own block and reading the others'
 * Usage: heap_pages [mib [secs]]
 */
#include "bench.h"

#include <shmem.h>
#include <string.h>
#include <unistd.h>

enum { F_PTE, F_PSS, F_N };

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

int main(int argc, char **argv) {
    long mib = argc > 1 ? atol(argv[1]) : 8;
    int secs = argc > 2 ? atoi(argv[2]) : 0;
    if (mib < 1) mib = 1;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    size_t len = (size_t)mib << 20;
    long *all = shmem_malloc((size_t)npes * F_N * sizeof(long));
    long *block = shmem_malloc(len);
    if (!all || !block) {
        fprintf(stderr, "heap_pages: shmem_malloc(%zu) failed on PE %d: raise SHMEM_SYMMETRIC_SIZE\n", len, me);
        return 1;
    }
    shmem_barrier_all();
    double t0 = bench_now();
    memset(block, me & 0x7f, len);
    block[0] = me;
    shmem_barrier_all();
    long sum = 0;
    for (int p = 0; p < npes; p++) {
        const long *theirs = shmem_ptr(block, p);
        if (!theirs) {
            fprintf(stderr, "heap_pages: PE %d cannot reach PE %d by load (one node only)\n", me, p);
            return 1;
        }
        sum += theirs[0];
    }
    double t = bench_now() - t0;
    int failed = sum != (long)npes * (npes - 1) / 2;
    if (failed) fprintf(stderr, "heap_pages: PE %d read a sum of %ld\n", me, sum);
    shmem_barrier_all();
    long mine[F_N] = {proc_kb("/proc/self/status", "VmPTE:"), proc_kb("/proc/self/smaps_rollup", "Pss:")};
    /* After every PE read its own and while they wait, before any collective that may
     * drop page tables (SHMEM_PEER_TABLES; a barrier reaches too few PEs to). */
    long machine = -1, huge_used = -1, huge_rsvd = -1;
    shmem_barrier_all();
    if (me == 0) {
        machine = proc_kb("/proc/meminfo", "PageTables:");
        long total = proc_kb("/proc/meminfo", "HugePages_Total:"), free_ = proc_kb("/proc/meminfo", "HugePages_Free:");
        long size = proc_kb("/proc/meminfo", "Hugepagesize:");
        huge_used = (total - free_) * size;
        huge_rsvd = proc_kb("/proc/meminfo", "HugePages_Rsvd:") * size;
    }
    shmem_barrier_all();
    shmem_long_put(all + (size_t)me * F_N, mine, F_N, 0);
    static double slowest, t_mine;
    t_mine = t;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &slowest, &t_mine, 1);
    shmem_barrier_all();
    if (me == 0) {
        long pte = 0, pte_max = 0, pss = 0;
        for (int p = 0; p < npes; p++) {
            pte += all[p * F_N + F_PTE];
            pss += all[p * F_N + F_PSS];
            if (all[p * F_N + F_PTE] > pte_max) pte_max = all[p * F_N + F_PTE];
        }
        bench_result("pte_total", 0, npes, pte / 1024.0, "MiB");
        bench_result("pte_max", 0, npes, pte_max / 1024.0, "MiB");
        bench_result("pss_total", 0, npes, pss / 1024.0, "MiB");
        bench_result("meminfo_pagetables", 0, npes, machine / 1024.0, "MiB");
        bench_result("hugetlb_in_use", 0, npes, huge_used / 1024.0, "MiB");
        bench_result("hugetlb_reserved", 0, npes, huge_rsvd / 1024.0, "MiB");
        bench_result("touch_time", 0, npes, slowest, "s");
        fflush(stdout);
        if (secs > 0) sleep((unsigned)secs);
    }
    shmem_barrier_all();
    shmem_finalize();
    return failed;
}
