/* rshmem-test
 * np: 1 2 4
 * cflags: -std=c99
 */
/* Compiled as C99, where shmem.h declares no generics but the old function
 * long shmem_swap(long *target, long value, int pe): that function (also called through
 * a function pointer), and the deprecated typed AMO names
 * shmem_{float,double,int,long,longlong}_{fetch,set,swap} and
 * shmem_{int,long,longlong}_{cswap,finc,inc,fadd,add} from the deprecated AMO tables,
 * with the checks of amo_deprecated.c. */
/* The program is amo_deprecated.c, built as C99 and with old_swap() added. */
#define TEST_OLD_SWAP
static void old_swap(int me, int npes);
#include "amo_deprecated.c"

/* The pre-1.5 C function long shmem_swap(long *target, long value, int pe), declared
 * only when the C11 generic of the same name is not. */
static long old_swap_word;
static void old_swap(int me, int npes) {
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    old_swap_word = LONG_MIN + me;
    shmem_barrier_all();
    long r = shmem_swap(&old_swap_word, LONG_MAX - me, right);
    CHECK(r == LONG_MIN + right, "shmem_swap(long *) returned %ld, not %ld", r, LONG_MIN + right);
    r = shmem_swap(&old_swap_word, -5L - me, right);
    CHECK(r == LONG_MAX - me, "shmem_swap(long *) returned %ld, not %ld", r, LONG_MAX - me);
    long (*fn)(long *, long, int) = shmem_swap; /* a real function, not a macro */
    r = fn(&old_swap_word, 1000L + me, right);
    CHECK(r == -5L - me, "shmem_swap through a pointer returned %ld, not %ld", r, -5L - me);
    shmem_barrier_all();
    CHECK(old_swap_word == 1000L + left, "shmem_swap(long *) from PE %d left %ld", left,
          old_swap_word);
    shmem_barrier_all();
}
