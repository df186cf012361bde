/*
 * Exercises librshmem_mpi.so through shim.h alone (no mpi.h: the header
 * must stand on its own). Run by tests/mpi_shim.rs under mpirun at 2 and 4
 * ranks with RSHMEM_MPI_CHUNK=1000, so transfers above 1000 bytes take the
 * split paths. Prints "shim_probe: ok <ranks>" on rank 0 and exits 0, or
 * names the first wrong value and exits 1.
 */
#include "shim.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEG 65536
/* Regions of the window. */
#define PUT_AT 0        /* 3000 bytes from the left neighbour */
#define STRIDED_AT 4096 /* 40 elements of 4 bytes, every 12 bytes */
#define AMO_AT 8192     /* two words per size: 32 at +0/+4, 64 at +8/+16 */
#define COUNT_AT 8256   /* contended counters, 32 at +0, 64 at +8 */
#define LONG_AT 12288   /* 1500 bytes every 2 bytes */
#define WIDE_AT 16384   /* 3 elements of 1200 bytes every 1300 */
#define ROUNDS 50

static int rank, size;
static unsigned char *seg;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "shim_probe rank %d, line %d: ", rank, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            rsm_abort(1);                                                  \
        }                                                                  \
    } while (0)
#define OK(call) CHECK((call) == 0, "%s failed: %s", #call, rsm_last_error())

/* The maxima of two values over communicator which: a barrier that agrees. */
static void agree(int which, int64_t a, int64_t b, int64_t max[2]) {
    int done = 0;
    int64_t mine[2] = {a, b};
    OK(rsm_iagree_start(which, mine, 2));
    while (!done) {
        rsm_progress();
        OK(rsm_iagree_test(which, &done, max, 2));
    }
}

static void barrier(int which) {
    int64_t max[2];
    agree(which, 0, 0, max);
}

/* Remote writes to this rank are visible to its loads after this. */
static void sync_all(void) {
    OK(rsm_flush_all());
    barrier(0);
    OK(rsm_win_sync());
}

static unsigned char pattern(int from, int i) { return (unsigned char)(from * 37 + i * 11 + 5); }

static void test_put_get(void) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char src[3000], got[3000];
    for (int i = 0; i < 3000; i++) src[i] = pattern(rank, i);
    OK(rsm_put(right, PUT_AT, src, sizeof src));
    OK(rsm_flush(right));
    sync_all();
    for (int i = 0; i < 3000; i++) CHECK(seg[PUT_AT + i] == pattern(left, i), "put: byte %d is %d", i, seg[PUT_AT + i]);
    memset(got, 0, sizeof got);
    OK(rsm_get(left, PUT_AT, got, sizeof got));
    OK(rsm_flush_local(left));
    int leftleft = (left + size - 1) % size;
    for (int i = 0; i < 3000; i++) CHECK(got[i] == pattern(leftleft, i), "get: byte %d is %d", i, got[i]);
    sync_all();
}

static void test_strided(void) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    uint32_t local[40], back[80];
    /* Origin walks backwards (negative stride), target every 12 bytes. */
    for (int i = 0; i < 40; i++) local[i] = (uint32_t)(rank * 1000 + i);
    OK(rsm_put_strided(right, STRIDED_AT, 12, &local[39], -4, 4, 40));
    OK(rsm_flush(right));
    sync_all();
    for (int i = 0; i < 40; i++) {
        uint32_t v;
        memcpy(&v, seg + STRIDED_AT + 12 * i, 4);
        CHECK(v == (uint32_t)(left * 1000 + 39 - i), "put_strided: element %d is %" PRIu32, i, v);
        uint32_t gap;
        memcpy(&gap, seg + STRIDED_AT + 12 * i + 4, 4);
        CHECK(gap == 0, "put_strided wrote between elements (%d)", i);
    }
    memset(back, 0xff, sizeof back);
    OK(rsm_get_strided(left, STRIDED_AT, 12, back, 8, 4, 40));
    OK(rsm_flush_local(left));
    int leftleft = (left + size - 1) % size;
    for (int i = 0; i < 40; i++) {
        CHECK(back[2 * i] == (uint32_t)(leftleft * 1000 + 39 - i), "get_strided: element %d is %" PRIu32, i,
              back[2 * i]);
        CHECK(back[2 * i + 1] == 0xffffffffu, "get_strided wrote between elements (%d)", i);
    }
    sync_all();
}

/* More elements than the test chunk (1000), and elements wider than it. */
static void test_strided_split(void) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static unsigned char local[4500], back[3000], wide[3 * 1250], wide_back[3 * 1200];
    for (int i = 0; i < 1500; i++) local[3 * i] = pattern(rank, i);
    OK(rsm_put_strided(right, LONG_AT, 2, local, 3, 1, 1500));
    for (int e = 0; e < 3; e++)
        for (int i = 0; i < 1200; i++) wide[1250 * e + i] = pattern(rank + e, i);
    OK(rsm_put_strided(right, WIDE_AT, 1300, wide, 1250, 1200, 3));
    OK(rsm_flush(right));
    sync_all();
    for (int i = 0; i < 1500; i++) {
        CHECK(seg[LONG_AT + 2 * i] == pattern(left, i), "long put_strided: element %d", i);
        CHECK(seg[LONG_AT + 2 * i + 1] == 0, "long put_strided wrote between elements (%d)", i);
    }
    for (int e = 0; e < 3; e++)
        for (int i = 0; i < 1300; i++)
            CHECK(seg[WIDE_AT + 1300 * e + i] == (i < 1200 ? pattern(left + e, i) : 0),
                  "wide put_strided: element %d byte %d", e, i);
    /* Back from the left neighbour, walking backwards. */
    OK(rsm_get_strided(left, LONG_AT, 2, &back[2 * 1499], -2, 1, 1500));
    OK(rsm_get_strided(left, WIDE_AT, 1300, wide_back, 1200, 1200, 3));
    OK(rsm_flush_local(left));
    int leftleft = (left + size - 1) % size;
    for (int i = 0; i < 1500; i++) CHECK(back[2 * (1499 - i)] == pattern(leftleft, i), "long get_strided: %d", i);
    for (int e = 0; e < 3; e++)
        for (int i = 0; i < 1200; i++)
            CHECK(wide_back[1200 * e + i] == pattern(leftleft + e, i), "wide get_strided: element %d byte %d", e, i);
    sync_all();
}

/* Every operation on the right neighbour's word of one size, fetching and
 * not. Operands of size 4 carry garbage in their upper half, and the next
 * word holds a sentinel: size 4 must read and write 4 bytes only. */
static void test_amo(int sz) {
    int right = (rank + 1) % size;
    uint64_t off = AMO_AT + (sz == 4 ? 0 : 8), next = off + (uint64_t)sz;
    uint64_t mask = sz == 4 ? 0xffffffffu : ~(uint64_t)0;
    uint64_t base = sz == 4 ? 0x80000001u : 0x8000000100000003ull;
    uint64_t v, r = 0, cmp = 0, garbage = sz == 4 ? 0xdeadbeef00000000ull : 0;
    uint64_t sentinel = 0xa5a5a5a5a5a5a5a5ull;
    OK(rsm_put(right, next, &sentinel, (uint64_t)sz));
    OK(rsm_flush(right));
    /* Values live in the low bytes of a uint64_t (little-endian). */
#define RUN(op, val, res)                                                             \
    do {                                                                              \
        v = ((val) & mask) | garbage;                                                 \
        cmp = (cmp & mask) | garbage;                                                 \
        OK(rsm_amo(right, off, op, sz, &v, &cmp, (res)));                             \
        OK(rsm_flush(right));                                                         \
    } while (0)
#define FETCHED(expect, what) CHECK((r & mask) == ((expect) & mask), "%s (size %d): fetched %" PRIx64, what, sz, r)
    r = 0;
    RUN(RSM_SET, base, NULL);
    r = 0;
    RUN(RSM_FETCH, 0, &r);
    FETCHED(base, "set then fetch");
    r = 0;
    RUN(RSM_SWAP, base + 1, &r);
    FETCHED(base, "swap");
    cmp = 12345;
    r = 0;
    RUN(RSM_CSWAP, 7, &r); /* fails: word is base + 1 */
    FETCHED(base + 1, "failing cswap");
    cmp = base + 1;
    r = 0;
    RUN(RSM_CSWAP, 10, &r);
    FETCHED(base + 1, "cswap");
    r = 0;
    RUN(RSM_ADD, mask, &r); /* 10 + (-1) = 9 */
    FETCHED(10, "fetch-add");
    RUN(RSM_ADD, 6, NULL); /* 15 */
    r = 0;
    RUN(RSM_AND, 0x0c, &r); /* 12 */
    FETCHED(15, "fetch-and");
    RUN(RSM_AND, 0x0d, NULL); /* 12 */
    r = 0;
    RUN(RSM_OR, 0x21, &r); /* 0x2d */
    FETCHED(12, "fetch-or");
    RUN(RSM_OR, base & ~(uint64_t)0xff, NULL);
    r = 0;
    RUN(RSM_XOR, 0x0f, &r);
    FETCHED((base & ~(uint64_t)0xff) | 0x2d, "fetch-xor");
    RUN(RSM_XOR, base & ~(uint64_t)0xff, NULL); /* 0x22 */
    r = 0;
    RUN(RSM_SET, 99, &r); /* fetching set */
    FETCHED(0x22, "fetching set");
    r = 0;
    RUN(RSM_FETCH, 0, &r);
    FETCHED(99, "final fetch");
    uint64_t neighbour = 1;
    OK(rsm_get(right, next, &neighbour, (uint64_t)sz));
    OK(rsm_flush_local(right));
    CHECK((neighbour & mask) == (sentinel & mask), "size %d amo touched the next word: %" PRIx64, sz, neighbour);
    sync_all();
}

/* Every rank adds 1 ROUNDS times to rank 0's counters, and rank 0 itself
 * through the window too: the sums are exact. */
static void test_contention(void) {
    uint64_t one = 1, r;
    for (int i = 0; i < ROUNDS; i++) {
        OK(rsm_amo(0, COUNT_AT, RSM_ADD, 4, &one, NULL, NULL));
        OK(rsm_amo(0, COUNT_AT + 8, RSM_ADD, 8, &one, NULL, &r));
        OK(rsm_flush(0));
    }
    sync_all();
    if (rank == 0) {
        uint32_t c32;
        uint64_t c64;
        memcpy(&c32, seg + COUNT_AT, 4);
        memcpy(&c64, seg + COUNT_AT + 8, 8);
        CHECK(c32 == (uint32_t)(ROUNDS * size) && c64 == (uint64_t)(ROUNDS * size),
              "contended counters %" PRIu32 " and %" PRIu64 ", want %d", c32, c64, ROUNDS * size);
    }
    sync_all();
}

/* Node maps for forced sizes; bcast, barriers and the leaders' agreement. */
static void test_nodes(int forced) {
    int node_of[64];
    OK(rsm_split_nodes(forced, node_of));
    for (int r = 0; r < size; r++) {
        int want = forced > 0 ? r - r % forced : 0; /* one host: one node */
        CHECK(node_of[r] == want, "forced %d: node_of[%d] = %d, want %d", forced, r, node_of[r], want);
    }
    int v = rank;
    OK(rsm_node_bcast(&v, sizeof v));
    CHECK(v == node_of[rank], "forced %d: node bcast gave %d", forced, v);
    OK(rsm_node_barrier());
    if (node_of[rank] == rank) {
        int64_t max[2];
        agree(1, rank, -rank, max);
        int last = forced > 0 ? size - 1 - (size - 1) % forced : 0;
        CHECK(max[0] == last && max[1] == 0, "forced %d: the leaders agreed on %lld and %lld, want %d and 0",
              forced, (long long)max[0], (long long)max[1], last);
    } else {
        int done;
        int64_t v[2] = {0, 0};
        CHECK(rsm_iagree_start(1, v, 2) != 0 && strstr(rsm_last_error(), "not a node leader"),
              "a non-leader started a leaders' agreement: '%s'", rsm_last_error());
        CHECK(rsm_iagree_test(1, &done, v, 2) != 0, "a non-leader tested a leaders' agreement");
    }
    barrier(0);
}

int main(void) {
    int multiple, we_init;
    char lib[256];
    CHECK(rsm_abi_version() == RSM_ABI_VERSION, "abi version %d", rsm_abi_version());
    OK(rsm_init(0, &multiple, &we_init, &rank, &size, lib, sizeof lib));
    CHECK(we_init == 1 && size >= 2 && size <= 64 && lib[0] != 0, "init: we_init %d size %d lib '%s'", we_init,
          size, lib);
    CHECK(strchr(lib, '\n') == NULL, "library version has more than one line");

    uint64_t mine = 1000 + (uint64_t)rank, all[64];
    OK(rsm_allgather(&mine, all, sizeof mine));
    for (int r = 0; r < size; r++) CHECK(all[r] == 1000 + (uint64_t)r, "allgather: %d gave %" PRIu64, r, all[r]);
    /* 1500 bytes each: above the test chunk, through the large-count type. */
    static unsigned char big[1500], bigall[64 * 1500];
    memset(big, rank + 1, sizeof big);
    OK(rsm_allgather(big, bigall, sizeof big));
    for (int i = 0; i < size * 1500; i++) CHECK(bigall[i] == i / 1500 + 1, "big allgather: byte %d", i);

    char none;
    CHECK(rsm_put((rank + 1) % size, 0, &none, 1) != 0 && strstr(rsm_last_error(), "no window"),
          "put without a window: '%s'", rsm_last_error());

    seg = calloc(1, SEG);
    CHECK(seg != NULL, "calloc");
    OK(rsm_win_create(seg, SEG));
    CHECK(rsm_win_create(seg, SEG) != 0, "a second window was created");
    CHECK(rsm_put(size, 0, &none, 1) != 0 && strstr(rsm_last_error(), "not in 0.."), "put to rank %d", size);
    CHECK(rsm_amo(0, AMO_AT, RSM_ADD, 2, &mine, NULL, NULL) != 0, "amo of size 2 accepted");

    test_put_get();
    test_strided();
    test_strided_split();
    test_amo(4);
    test_amo(8);
    test_contention();
    test_nodes(1);
    test_nodes(2);
    test_nodes(0);

    OK(rsm_win_free());
    OK(rsm_finalize());
    if (rank == 0) printf("shim_probe: ok %d\n", size);
    return 0;
}
