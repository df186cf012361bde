/* rshmem-test
 * np: 1 2 4 8
 * cflags: -std=c++17
 */
/* shmem.h compiles as C++17 and the typed routines work from C++ code. */
#include <shmem.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

long flag;
double vals[4];

void check(bool ok, const char *what) {
    if (!ok) {
        std::fprintf(stderr, "FAIL PE %d: %s\n", shmem_my_pe(), what);
        std::exit(1);
    }
}

}  // namespace

int main() {
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    auto *heap = static_cast<int *>(shmem_malloc(8 * sizeof(int)));
    check(heap != nullptr, "shmem_malloc");
    std::vector<double> src{me + 0.0, me + 0.25, me + 0.5, me + 0.75};
    shmem_double_put(vals, src.data(), src.size(), right);
    shmem_int_p(&heap[7], -me, right);
    shmem_ctx_long_p(SHMEM_CTX_DEFAULT, &flag, 1, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    shmem_barrier_all();

    for (int i = 0; i < 4; i++)
        check(vals[i] == left + i / 4.0, "shmem_double_put");
    check(heap[7] == -left, "shmem_int_p");
    std::vector<double> got(4);
    shmem_double_get(got.data(), vals, got.size(), right);
    check(got[3] == me + 0.75, "shmem_double_get");
    check(shmem_int_g(&heap[7], left) == -((left + npes - 1) % npes), "shmem_int_g");
    check(shmem_long_test(&flag, SHMEM_CMP_NE, 0) == 1, "shmem_long_test");
    check(shmem_addr_accessible(heap, right) == 1, "shmem_addr_accessible");

    shmem_free(heap);
    shmem_finalize();
    return 0;
}
