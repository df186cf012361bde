/* The symmetric heap's pages, as the kernel maps them (tests/huge_pages.rs).
 *
 * argv[1]: what the heaps must be on: "4" or "2048" (KernelPageSize in kB
 * of the mapping that holds them), or "thp" (a mapping the kernel may back
 * with transparent huge pages: THPeligible 1). Checks this PE's heap and,
 * through shmem_ptr, the next PE's when it is on this node; moves data
 * through both first. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* KernelPageSize (kB) and THPeligible of the mapping holding `p`. */
static int mapping_of(const void *p, long *kernel_kb, long *thp) {
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int in = 0, found = 0;
    *kernel_kb = -1;
    *thp = -1;
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
            in = (unsigned long)p >= lo && (unsigned long)p < hi;
            found |= in;
            continue;
        }
        if (in) {
            sscanf(line, "KernelPageSize: %ld kB", kernel_kb);
            sscanf(line, "THPeligible: %ld", thp);
        }
    }
    fclose(f);
    return found;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: huge_pages 4|2048|thp\n");
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes;
    size_t n = 3 << 20; /* more than one 2 MiB page */
    long *heap = shmem_malloc(n);
    if (!heap) {
        fprintf(stderr, "FAIL: PE %d: shmem_malloc(%zu) returned NULL\n", me, n);
        return 1;
    }
    size_t words = n / sizeof(long);
    for (size_t i = 0; i < words; i++) heap[i] = -1;
    shmem_barrier_all();
    for (size_t i = 0; i < words; i += 4096) shmem_long_p(heap + i, (long)(me * 1000000 + i), next);
    shmem_barrier_all();
    int prev = (me + npes - 1) % npes;
    for (size_t i = 0; i < words; i++) {
        long want = i % 4096 == 0 ? (long)(prev * 1000000 + i) : -1;
        if (heap[i] != want) {
            fprintf(stderr, "FAIL: PE %d: heap word %zu is %ld, not %ld\n", me, i, heap[i], want);
            return 1;
        }
    }
    /* NULL when the next PE is on another node (an MPI job across nodes). */
    const long *theirs = shmem_ptr(heap, next);
    if (theirs && theirs[4096] != (long)(me * 1000000 + 4096)) {
        fprintf(stderr, "FAIL: PE %d: PE %d's heap reads wrong by load\n", me, next);
        return 1;
    }
    const void *where[2] = {heap, theirs};
    for (int k = 0; k < (theirs ? 2 : 1); k++) {
        long kb, thp;
        if (!mapping_of(where[k], &kb, &thp)) {
            fprintf(stderr, "FAIL: PE %d: no mapping holds %p\n", me, where[k]);
            return 1;
        }
        int ok = strcmp(argv[1], "thp") == 0 ? thp == 1 : kb == atol(argv[1]);
        if (!ok) {
            fprintf(stderr, "FAIL: PE %d: %s heap: KernelPageSize %ld kB, THPeligible %ld, expected %s\n", me,
                    k ? "the next PE's" : "its own", kb, thp, argv[1]);
            return 1;
        }
    }
    shmem_barrier_all();
    if (me == 0) printf("heap pages ok: %s\n", argv[1]);
    shmem_finalize();
    return 0;
}
