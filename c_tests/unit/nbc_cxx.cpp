/* rshmem-test
 * np: 1 2 4
 * cflags: -std=c++17
 * stdout: C++ nbc ok
 */
/* The C++ overloads of the non-blocking collectives in shmem.h and shmemx.h: each family
 * below is a template, so the overload is chosen by the element type at instantiation
 * (shmem_broadcast_nb, shmem_fcollect_nb, shmem_alltoall_nb, shmem_sum_reduce_nb,
 * shmem_max_reduce_nb, shmem_xor_reduce_nb, shmem_sum_inscan_nb, shmemx_alltoall_nb),
 * run over several types with results checked; requests completed with shmem_req_wait,
 * shmem_req_test and shmemx_req_wait_all. */
#include <shmem.h>
#include <shmemx.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <typeinfo>

namespace {

int me, npes;
constexpr int N = 3;

void check(bool ok, const char *what, const char *type, int i) {
    if (!ok) {
        std::fprintf(stderr, "FAIL PE %d: %s (%s) element %d\n", me, what, type, i);
        std::exit(1);
    }
}

template <typename T> T val(int pe, int i) { return static_cast<T>(pe * 5 + i + 1); }

template <typename T> void data_movement() {
    static_assert(sizeof(T) <= 16, "");
    T *src = static_cast<T *>(shmem_malloc(sizeof(T) * 8 * N));
    T *d1 = static_cast<T *>(shmem_malloc(sizeof(T) * 8 * N));
    T *d2 = static_cast<T *>(shmem_malloc(sizeof(T) * 8 * N));
    T *d3 = static_cast<T *>(shmem_malloc(sizeof(T) * 8 * N));
    for (int i = 0; i < npes * N; i++)
        src[i] = val<T>(me, i);
    shmem_barrier_all();
    shmem_req_h r[3];
    shmem_broadcast_nb(SHMEM_TEAM_WORLD, d1, src, N, npes - 1, &r[0]);
    shmem_fcollect_nb(SHMEM_TEAM_WORLD, d2, src, N, &r[1]);
    shmemx_alltoall_nb(SHMEM_TEAM_WORLD, d3, src, N, &r[2]);
    check(shmemx_req_wait_all(r, 3) == 0, "shmemx_req_wait_all", typeid(T).name(), 0);
    for (int i = 0; i < N; i++)
        check(d1[i] == val<T>(npes - 1, i), "shmem_broadcast_nb", typeid(T).name(), i);
    for (int i = 0; i < npes * N; i++) {
        check(d2[i] == val<T>(i / N, i % N), "shmem_fcollect_nb", typeid(T).name(), i);
        check(d3[i] == val<T>(i / N, me * N + i % N), "shmemx_alltoall_nb", typeid(T).name(), i);
    }
    shmem_barrier_all();
    shmem_alltoall_nb(SHMEM_TEAM_WORLD, d1, src, N, &r[0]);
    while (shmem_req_test(&r[0]) == 1) {
    }
    for (int i = 0; i < npes * N; i++)
        check(d1[i] == val<T>(i / N, me * N + i % N), "shmem_alltoall_nb", typeid(T).name(), i);
    shmem_barrier_all();
    shmem_free(d3);
    shmem_free(d2);
    shmem_free(d1);
    shmem_free(src);
}

template <typename T, bool Bitwise> void reductions() {
    T *src = static_cast<T *>(shmem_malloc(sizeof(T) * N));
    T *d1 = static_cast<T *>(shmem_malloc(sizeof(T) * N));
    T *d2 = static_cast<T *>(shmem_malloc(sizeof(T) * N));
    T *d3 = static_cast<T *>(shmem_malloc(sizeof(T) * N));
    for (int i = 0; i < N; i++)
        src[i] = val<T>(me, i);
    shmem_barrier_all();
    shmem_req_h r[3];
    shmem_sum_reduce_nb(SHMEM_TEAM_WORLD, d1, src, N, &r[0]);
    shmem_max_reduce_nb(SHMEM_TEAM_WORLD, d2, src, N, &r[1]);
    shmem_sum_inscan_nb(SHMEM_TEAM_WORLD, d3, src, N, &r[2]);
    for (int k = 2; k >= 0; k--)
        check(shmem_req_wait(&r[k]) == 0, "shmem_req_wait", typeid(T).name(), k);
    for (int i = 0; i < N; i++) {
        T sum = 0, pre = 0;
        for (int p = 0; p < npes; p++) {
            sum = static_cast<T>(sum + val<T>(p, i));
            if (p <= me)
                pre = static_cast<T>(pre + val<T>(p, i));
        }
        check(d1[i] == sum, "shmem_sum_reduce_nb", typeid(T).name(), i);
        check(d2[i] == val<T>(npes - 1, i), "shmem_max_reduce_nb", typeid(T).name(), i);
        check(d3[i] == pre, "shmem_sum_inscan_nb", typeid(T).name(), i);
    }
    shmem_barrier_all();
    if constexpr (Bitwise) {
        {
            shmem_xor_reduce_nb(SHMEM_TEAM_WORLD, d1, src, N, &r[0]);
            shmem_req_wait(&r[0]);
            for (int i = 0; i < N; i++) {
                T x = 0;
                for (int p = 0; p < npes; p++)
                    x = static_cast<T>(x ^ val<T>(p, i));
                check(d1[i] == x, "shmem_xor_reduce_nb", typeid(T).name(), i);
            }
        }
    }
    shmem_barrier_all();
    shmem_free(d3);
    shmem_free(d2);
    shmem_free(d1);
    shmem_free(src);
}

} // namespace

int main() {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    data_movement<int>();
    data_movement<double>();
    data_movement<unsigned long long>();
    data_movement<char>();
    reductions<int, false>();
    reductions<unsigned int, true>();
    reductions<unsigned long, true>();
    reductions<float, false>();
    reductions<long long, false>();
    if (me == 0)
        std::printf("C++ nbc ok\n");
    shmem_finalize();
    return 0;
}
