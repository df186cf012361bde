/*
 * rshmem's MPI shim: implements shim.h over MPI-3.1 (see there for the
 * contract of every function). build.rs compiles it with the MPI's own
 * mpicc into librshmem_mpi.so; src/transport/mpi/shim.rs dlopens it.
 *
 * The shim works on a duplicate of MPI_COMM_WORLD, so a program's own MPI
 * traffic never matches the shim's, and installs MPI_ERRORS_RETURN on its
 * communicators and window: a failure comes back as -1 with a message in
 * a thread-local buffer, and the caller reports it its own way.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "shim.h"

#include <dlfcn.h>
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static MPI_Comm world = MPI_COMM_NULL;   /* dup of MPI_COMM_WORLD */
static MPI_Comm node = MPI_COMM_NULL;    /* this PE's node, by world rank */
static MPI_Comm leaders = MPI_COMM_NULL; /* first rank of every node */
static MPI_Comm status = MPI_COMM_NULL;  /* blocked PEs' status messages */
static MPI_Comm flags = MPI_COMM_NULL;   /* library flags (rsm_post_put_flag) */
static MPI_Win win = MPI_WIN_NULL;
static char *win_base; /* this PE's window memory, where adds land */
static uint64_t win_len;
static MPI_Request barrier_req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
static int my_rank = -1, world_size = 0, we_init = 0, thread_multiple = 0;
static void (*finalize_hook)(void); /* rsm_on_mpi_finalize */
/* Largest count of bytes in one MPI call: counts are ints. Tests lower it
 * (RSHMEM_MPI_CHUNK) to exercise the split without moving 2 GiB. */
static uint64_t chunk = INT_MAX;

static _Thread_local char err[1024];

int rsm_abi_version(void) { return RSM_ABI_VERSION; }

const char *rsm_last_error(void) { return err; }

/* Formats a message into err and returns -1. */
static int failf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, sizeof err, fmt, ap);
    va_end(ap);
    return -1;
}

/* Records a failed MPI call: "call to rank pe: MPI's message" (pe < 0: a
 * collective, named with this PE's own rank). */
static int fail(const char *call, int pe, int rc) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "MPI error code %d", rc);
    if (pe >= 0) return failf("%s to rank %d: %s", call, pe, msg);
    return failf("%s (rank %d): %s", call, my_rank, msg);
}

#define TRY(call, pe, expr)                          \
    do {                                             \
        int rc_ = (expr);                            \
        if (rc_ != MPI_SUCCESS) return fail(call, pe, rc_); \
    } while (0)

static int need_window(const char *routine, int pe) {
    if (win == MPI_WIN_NULL) return failf("%s: no window (rsm_win_create was not called)", routine);
    if (pe < 0 || pe >= world_size) return failf("%s: rank %d is not in 0..%d", routine, pe, world_size);
    return 0;
}

/* A datatype of len contiguous bytes, for calls whose count is one int:
 * MPI_BYTE itself (count len) when len fits, else a committed type made of
 * blocks (1 GiB, or chunk if smaller) and a tail (count 1; free it with
 * free_bytes). */
static int bytes_type(uint64_t len, MPI_Datatype *t, int *count) {
    const uint64_t block = chunk < ((uint64_t)1 << 30) ? chunk : (uint64_t)1 << 30;
    if (len <= chunk) {
        *t = MPI_BYTE;
        *count = (int)len;
        return 0;
    }
    if (len / block > INT_MAX) return failf("%llu bytes are too many for one MPI call", (unsigned long long)len);
    MPI_Datatype gib, blocks;
    TRY("MPI_Type_contiguous", -1, MPI_Type_contiguous((int)block, MPI_BYTE, &gib));
    TRY("MPI_Type_contiguous", -1, MPI_Type_contiguous((int)(len / block), gib, &blocks));
    int lens[2] = {1, (int)(len % block)};
    MPI_Aint disps[2] = {0, (MPI_Aint)(len / block * block)};
    MPI_Datatype types[2] = {blocks, MPI_BYTE};
    int rc = MPI_Type_create_struct(2, lens, disps, types, t);
    MPI_Type_free(&blocks);
    MPI_Type_free(&gib);
    if (rc != MPI_SUCCESS) return fail("MPI_Type_create_struct", -1, rc);
    TRY("MPI_Type_commit", -1, MPI_Type_commit(t));
    *count = 1;
    return 0;
}

static void free_bytes(MPI_Datatype *t) {
    if (*t != MPI_BYTE) MPI_Type_free(t);
}

int rsm_init(int want_multiple, int *multiple, int *we_initialized, int *rank, int *size, char *lib,
             size_t lib_len) {
    if (world == MPI_COMM_NULL) {
        int initialized = 0, finalized = 0, provided = MPI_THREAD_SINGLE;
        MPI_Initialized(&initialized);
        MPI_Finalized(&finalized);
        if (finalized) return failf("MPI_Init_thread: MPI was already finalized");
        if (!initialized) {
            int required = want_multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED;
            int rc = MPI_Init_thread(NULL, NULL, required, &provided);
            if (rc != MPI_SUCCESS) return fail("MPI_Init_thread", -1, rc);
            we_init = 1;
        } else {
            MPI_Query_thread(&provided);
        }
        thread_multiple = provided >= MPI_THREAD_MULTIPLE;
        TRY("MPI_Comm_dup", -1, MPI_Comm_dup(MPI_COMM_WORLD, &world));
        TRY("MPI_Comm_set_errhandler", -1, MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN));
        TRY("MPI_Comm_dup", -1, MPI_Comm_dup(world, &status));
        TRY("MPI_Comm_dup", -1, MPI_Comm_dup(world, &flags));
        TRY("MPI_Comm_rank", -1, MPI_Comm_rank(world, &my_rank));
        TRY("MPI_Comm_size", -1, MPI_Comm_size(world, &world_size));
        const char *c = getenv("RSHMEM_MPI_CHUNK");
        if (c && strtoull(c, NULL, 10) > 0 && strtoull(c, NULL, 10) < INT_MAX) chunk = strtoull(c, NULL, 10);
    }
    *multiple = thread_multiple;
    *we_initialized = we_init;
    *rank = my_rank;
    *size = world_size;
    if (lib && lib_len > 0) {
        char v[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        if (MPI_Get_library_version(v, &len) != MPI_SUCCESS) len = 0;
        v[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = 0;
        v[strcspn(v, "\r\n")] = 0;
        snprintf(lib, lib_len, "%s", v);
    }
    return 0;
}

static void free_comm(MPI_Comm *c) {
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
}

int rsm_split_nodes(int forced_size, int *node_of) {
    if (world == MPI_COMM_NULL) return failf("rsm_split_nodes: rsm_init was not called");
    free_comm(&leaders);
    free_comm(&node);
    if (forced_size > 0)
        TRY("MPI_Comm_split", -1, MPI_Comm_split(world, my_rank / forced_size, my_rank, &node));
    else
        TRY("MPI_Comm_split_type", -1,
            MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, my_rank, MPI_INFO_NULL, &node));
    TRY("MPI_Comm_set_errhandler", -1, MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN));
    int node_rank, first;
    TRY("MPI_Comm_rank", -1, MPI_Comm_rank(node, &node_rank));
    /* The key is the world rank, so node rank 0 is the node's lowest rank. */
    first = my_rank;
    TRY("MPI_Bcast", -1, MPI_Bcast(&first, 1, MPI_INT, 0, node));
    TRY("MPI_Allgather", -1, MPI_Allgather(&first, 1, MPI_INT, node_of, 1, MPI_INT, world));
    TRY("MPI_Comm_split", -1,
        MPI_Comm_split(world, node_rank == 0 ? 0 : MPI_UNDEFINED, my_rank, &leaders));
    if (leaders != MPI_COMM_NULL)
        TRY("MPI_Comm_set_errhandler", -1, MPI_Comm_set_errhandler(leaders, MPI_ERRORS_RETURN));
    return 0;
}

int rsm_allgather(const void *mine, void *all, size_t len) {
    if (world == MPI_COMM_NULL) return failf("rsm_allgather: rsm_init was not called");
    MPI_Datatype t;
    int count;
    if (bytes_type(len, &t, &count)) return -1;
    int rc = MPI_Allgather(mine, count, t, all, count, t, world);
    free_bytes(&t);
    return rc == MPI_SUCCESS ? 0 : fail("MPI_Allgather", -1, rc);
}

int rsm_node_bcast(void *buf, size_t len) {
    if (node == MPI_COMM_NULL) return failf("rsm_node_bcast: rsm_split_nodes was not called");
    MPI_Datatype t;
    int count;
    if (bytes_type(len, &t, &count)) return -1;
    int rc = MPI_Bcast(buf, count, t, 0, node);
    free_bytes(&t);
    return rc == MPI_SUCCESS ? 0 : fail("MPI_Bcast", -1, rc);
}

int rsm_node_barrier(void) {
    if (node == MPI_COMM_NULL) return failf("rsm_node_barrier: rsm_split_nodes was not called");
    TRY("MPI_Barrier", -1, MPI_Barrier(node));
    return 0;
}

int rsm_win_create(void *base, uint64_t len) {
    if (world == MPI_COMM_NULL) return failf("rsm_win_create: rsm_init was not called");
    if (win != MPI_WIN_NULL) return failf("rsm_win_create: a window exists already (one at a time)");
    MPI_Info info;
    TRY("MPI_Info_create", -1, MPI_Info_create(&info));
    /* The engine orders what it needs with flushes. */
    MPI_Info_set(info, "accumulate_ordering", "none");
    /* Open MPI (osc ucx, osc rdma): every accumulate rshmem issues is one
     * element with an operation the network applies itself (sum, replace,
     * no-op, compare-and-swap; the bitwise ones are compare-and-swap loops),
     * so the component may skip its per-target accumulate lock, which costs
     * two extra round trips per atomic. Other MPIs ignore the key. */
    MPI_Info_set(info, "acc_single_intrinsic", "true");
    int rc = MPI_Win_create(base, (MPI_Aint)len, 1, info, world, &win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        win = MPI_WIN_NULL;
        return fail("MPI_Win_create", -1, rc);
    }
    TRY("MPI_Win_set_errhandler", -1, MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    TRY("MPI_Win_lock_all", -1, MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    win_base = base;
    win_len = len;
    return 0;
}

int rsm_win_free(void) {
    if (win == MPI_WIN_NULL) return 0;
    win_base = NULL;
    win_len = 0;
    TRY("MPI_Win_unlock_all", -1, MPI_Win_unlock_all(win));
    TRY("MPI_Win_free", -1, MPI_Win_free(&win));
    return 0;
}

int rsm_put(int pe, uint64_t off, const void *src, uint64_t len) {
    if (need_window("rsm_put", pe)) return -1;
    const char *s = src;
    for (uint64_t done = 0; done < len;) {
        int n = (int)(len - done < chunk ? len - done : chunk);
        TRY("MPI_Put", pe, MPI_Put(s + done, n, MPI_BYTE, pe, (MPI_Aint)(off + done), n, MPI_BYTE, win));
        done += (uint64_t)n;
    }
    return 0;
}

int rsm_get(int pe, uint64_t off, void *dst, uint64_t len) {
    if (need_window("rsm_get", pe)) return -1;
    char *d = dst;
    for (uint64_t done = 0; done < len;) {
        int n = (int)(len - done < chunk ? len - done : chunk);
        TRY("MPI_Get", pe, MPI_Get(d + done, n, MPI_BYTE, pe, (MPI_Aint)(off + done), n, MPI_BYTE, win));
        done += (uint64_t)n;
    }
    return 0;
}

/* One strided transfer of at most chunk elements (put != 0: to pe). */
static int strided(int put, int pe, uint64_t off, int64_t remote_stride, char *local, int64_t local_stride,
                   uint64_t elem_size, uint64_t n) {
    const char *call = put ? "MPI_Put" : "MPI_Get";
    MPI_Datatype elem, remote, origin;
    int elem_count;
    if (bytes_type(elem_size, &elem, &elem_count)) return -1;
    int rc = MPI_Type_create_hvector((int)n, elem_count, (MPI_Aint)remote_stride, elem, &remote);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Type_create_hvector((int)n, elem_count, (MPI_Aint)local_stride, elem, &origin);
        if (rc != MPI_SUCCESS) MPI_Type_free(&remote);
    }
    free_bytes(&elem);
    if (rc != MPI_SUCCESS) return fail("MPI_Type_create_hvector", -1, rc);
    if ((rc = MPI_Type_commit(&remote)) == MPI_SUCCESS && (rc = MPI_Type_commit(&origin)) == MPI_SUCCESS) {
        if (put)
            rc = MPI_Put(local, 1, origin, pe, (MPI_Aint)off, 1, remote, win);
        else
            rc = MPI_Get(local, 1, origin, pe, (MPI_Aint)off, 1, remote, win);
    } else {
        call = "MPI_Type_commit";
    }
    /* Freeing a type does not disturb the operation using it. */
    MPI_Type_free(&remote);
    MPI_Type_free(&origin);
    return rc == MPI_SUCCESS ? 0 : fail(call, pe, rc);
}

static int strided_all(int put, int pe, uint64_t off, int64_t remote_stride, char *local, int64_t local_stride,
                       uint64_t elem_size, uint64_t n) {
    if (need_window(put ? "rsm_put_strided" : "rsm_get_strided", pe)) return -1;
    if (remote_stride == 0 || local_stride == 0) return failf("strided transfer: a stride is 0");
    for (uint64_t done = 0; done < n;) {
        uint64_t k = n - done < chunk ? n - done : chunk;
        int rc = strided(put, pe, off + (uint64_t)((int64_t)done * remote_stride), remote_stride,
                         local + (int64_t)done * local_stride, local_stride, elem_size, k);
        if (rc) return rc;
        done += k;
    }
    return 0;
}

int rsm_put_strided(int pe, uint64_t off, int64_t remote_stride, const void *local, int64_t local_stride,
                    uint64_t elem_size, uint64_t n) {
    /* MPI_Put takes a const origin; the cast only shares strided(). */
    return strided_all(1, pe, off, remote_stride, (char *)local, local_stride, elem_size, n);
}

int rsm_get_strided(int pe, uint64_t off, int64_t remote_stride, void *local, int64_t local_stride,
                    uint64_t elem_size, uint64_t n) {
    return strided_all(0, pe, off, remote_stride, local, local_stride, elem_size, n);
}

int rsm_amo(int pe, uint64_t off, int op, int size, const void *operand, const void *compare, void *result) {
    if (need_window("rsm_amo", pe)) return -1;
    MPI_Datatype t;
    if (size == 4)
        t = MPI_UINT32_T;
    else if (size == 8)
        t = MPI_UINT64_T;
    else
        return failf("rsm_amo: size %d is not 4 or 8", size);
    MPI_Op mop;
    switch (op) {
    case RSM_FETCH: mop = MPI_NO_OP; break;
    case RSM_SET:
    case RSM_SWAP: mop = MPI_REPLACE; break;
    case RSM_CSWAP: mop = MPI_NO_OP; break; /* unused: MPI_Compare_and_swap */
    case RSM_ADD: mop = MPI_SUM; break;
    case RSM_AND: mop = MPI_BAND; break;
    case RSM_OR: mop = MPI_BOR; break;
    case RSM_XOR: mop = MPI_BXOR; break;
    default: return failf("rsm_amo: unknown operation %d", op);
    }
    if (!result && (op == RSM_FETCH || op == RSM_SWAP || op == RSM_CSWAP))
        return failf("rsm_amo: operation %d fetches and needs a result buffer", op);
    if (op != RSM_FETCH && !operand) return failf("rsm_amo: operation %d needs an operand", op);
    MPI_Aint disp = (MPI_Aint)off;
    if (op == RSM_CSWAP) {
        if (!compare) return failf("rsm_amo: compare-and-swap needs a compare value");
        TRY("MPI_Compare_and_swap", pe, MPI_Compare_and_swap(operand, compare, result, t, pe, disp, win));
    } else if (result) {
        /* MPI_NO_OP ignores the origin; a constant keeps it valid and
         * disjoint from result, as MPI asks of the buffers. */
        static const uint64_t zero = 0;
        const void *origin = op == RSM_FETCH ? &zero : operand;
        TRY("MPI_Fetch_and_op", pe, MPI_Fetch_and_op(origin, result, t, pe, disp, mop, win));
    } else {
        TRY("MPI_Accumulate", pe, MPI_Accumulate(operand, 1, t, pe, disp, 1, t, mop, win));
    }
    return 0;
}

int rsm_flush_local(int pe) {
    if (need_window("rsm_flush_local", pe)) return -1;
    TRY("MPI_Win_flush_local", pe, MPI_Win_flush_local(pe, win));
    return 0;
}

int rsm_flush(int pe) {
    if (need_window("rsm_flush", pe)) return -1;
    TRY("MPI_Win_flush", pe, MPI_Win_flush(pe, win));
    return 0;
}

int rsm_flush_all(void) {
    if (win == MPI_WIN_NULL) return failf("rsm_flush_all: no window (rsm_win_create was not called)");
    TRY("MPI_Win_flush_all", -1, MPI_Win_flush_all(win));
    return 0;
}

int rsm_win_sync(void) {
    if (win == MPI_WIN_NULL) return failf("rsm_win_sync: no window (rsm_win_create was not called)");
    TRY("MPI_Win_sync", -1, MPI_Win_sync(win));
    return 0;
}

void rsm_progress(void) {
    if (world == MPI_COMM_NULL) return;
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, world, &flag, MPI_STATUS_IGNORE);
}

/* Library flags as messages (see shim.h). A message is a header of
 * MSG_WORDS words (kind, offset, value, data offset, data length), then the
 * data of a put-with-signal: sent with MPI_Isend from a pool of requests
 * and taken by every rsm_take_flags (each wait of the library calls it)
 * with a matched probe, so that threads taking at once never receive each
 * other's message. A PE may send many before its peers take one (a
 * barrier's rounds, a collective's signals to every member): when every
 * request of the pool is still in flight, the sender takes what has arrived
 * for it and tests again, so two PEs flooding each other both make
 * progress. MPI does not let one sender's messages on one communicator and
 * tag overtake each other, so a target applies them in the order sent, and
 * a fetch asked for on the same channel (rsm_fetch_after_flags) is answered
 * after every earlier message of the asker is applied. */
#define FLAG_SLOTS 64
#define FLAG_TAG 2
/* Answers of rsm_fetch_after_flags: one tag per asking call, so that two
 * threads asking at once never take each other's answer. */
#define REPLY_TAG_FIRST 16
#define REPLY_TAGS 16384
#define MSG_WORDS 5
#define MSG_BYTES (MSG_WORDS * 8)
enum msg_kind { MSG_ADD = 0, MSG_SET = 1, MSG_FETCH = 2 };
static struct {
    MPI_Request req;
    uint64_t *buf; /* MSG_WORDS words, then the data */
    size_t cap;    /* bytes of buf */
} flag_out[FLAG_SLOTS], reply_out[FLAG_SLOTS];
static int flag_next, reply_next, flag_init_done;
static unsigned reply_tag;
/* Taken in this order only: a sender holding flag_lock may take flags,
 * whose fetch requests answer through the reply pool. */
static pthread_mutex_t flag_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t reply_lock = PTHREAD_MUTEX_INITIALIZER;

static void pools_init(void) {
    if (flag_init_done) return;
    for (int i = 0; i < FLAG_SLOTS; i++) flag_out[i].req = reply_out[i].req = MPI_REQUEST_NULL;
    flag_init_done = 1;
}

/* A slot of `pool` whose send is complete, with room for `bytes`, or -1
 * (none free, or no memory: *oom set). */
static int pool_slot(__typeof__(flag_out[0]) *pool, int next, size_t bytes, int *slot, int *oom) {
    *slot = -1;
    *oom = 0;
    for (int k = 0; k < FLAG_SLOTS; k++) {
        int i = (next + k) % FLAG_SLOTS, done = 1;
        if (pool[i].req != MPI_REQUEST_NULL) TRY("MPI_Test", -1, MPI_Test(&pool[i].req, &done, MPI_STATUS_IGNORE));
        if (!done) continue;
        if (pool[i].cap < bytes) {
            size_t cap = bytes < 256 ? 256 : bytes;
            void *b = realloc(pool[i].buf, cap);
            if (!b) {
                *oom = 1;
                return 0;
            }
            pool[i].buf = b;
            pool[i].cap = cap;
        }
        *slot = i;
        return 0;
    }
    return 0;
}

/* Answers a fetch request of `from`: the word at `off`, on tag `tag`. */
static int answer_fetch(int from, uint64_t off, uint64_t tag) {
    if (tag < REPLY_TAG_FIRST || tag >= REPLY_TAG_FIRST + REPLY_TAGS)
        return failf("a fetch request from rank %d answers on tag %llu, not one of the shim's", from,
                     (unsigned long long)tag);
    uint64_t v = __atomic_load_n((uint64_t *)(win_base + off), __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&reply_lock);
    int slot = -1, oom = 0, rc = 0;
    while (rc == 0 && slot < 0 && !oom) {
        rc = pool_slot(reply_out, reply_next, 8, &slot, &oom);
        if (rc == 0 && slot < 0 && !oom) {
            /* Every answer still in flight: let MPI move them. */
            int flag = 0;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, world, &flag, MPI_STATUS_IGNORE);
        }
    }
    if (rc == 0 && oom) rc = failf("cannot allocate the answer to a fetch request of rank %d", from);
    if (rc == 0) {
        reply_out[slot].buf[0] = v;
        int mrc = MPI_Isend(reply_out[slot].buf, 1, MPI_UINT64_T, from, (int)tag, flags, &reply_out[slot].req);
        if (mrc != MPI_SUCCESS) rc = fail("MPI_Isend", from, mrc);
        reply_next = (slot + 1) % FLAG_SLOTS;
    }
    pthread_mutex_unlock(&reply_lock);
    return rc;
}

/* Largest message taken without an allocation. */
#define TAKE_STACK (MSG_BYTES + RSM_POST_DATA_MAX)

/* One thread takes at a time (a PE's progress thread beside its main
 * thread): each applies what it takes in order, so one sender's messages
 * land in the order sent and a fetch request is answered after the
 * messages before it. A thread that finds another taking leaves it to it. */
static pthread_mutex_t take_lock = PTHREAD_MUTEX_INITIALIZER;
static int take_locked(void);

int rsm_take_flags(void) {
    if (flags == MPI_COMM_NULL) return 0;
    if (pthread_mutex_trylock(&take_lock) != 0) return 0;
    int n = take_locked();
    pthread_mutex_unlock(&take_lock);
    return n;
}

static int take_locked(void) {
    for (int taken = 0;; taken++) {
        int found = 0, bytes = 0;
        MPI_Message m;
        MPI_Status st;
        TRY("MPI_Improbe", -1, MPI_Improbe(MPI_ANY_SOURCE, FLAG_TAG, flags, &found, &m, &st));
        if (!found) return taken;
        TRY("MPI_Get_count", st.MPI_SOURCE, MPI_Get_count(&st, MPI_BYTE, &bytes));
        uint64_t stack[TAKE_STACK / 8], *msg = stack;
        if (bytes > TAKE_STACK && !(msg = malloc((size_t)bytes)))
            return failf("cannot allocate %d bytes for a library message from rank %d", bytes, st.MPI_SOURCE);
        int rc = MPI_Mrecv(msg, bytes, MPI_BYTE, &m, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            if (msg != stack) free(msg);
            return fail("MPI_Mrecv", st.MPI_SOURCE, rc);
        }
        uint64_t kind = 0, off = 0, value = 0, data_off = 0, len = 0;
        if (bytes >= MSG_BYTES) {
            kind = msg[0];
            off = msg[1];
            value = msg[2];
            data_off = msg[3];
            len = msg[4];
        }
        const char *bad = NULL;
        if (bytes < MSG_BYTES || (uint64_t)bytes - MSG_BYTES != len) bad = "is cut short";
        else if (win_base == NULL || off % 8 != 0 || off > win_len || win_len - off < 8) bad = "names a word outside";
        else if (len > 0 && (data_off > win_len || win_len - data_off < len)) bad = "puts data outside";
        else if (kind > MSG_FETCH) bad = "is of an unknown kind for";
        if (bad) {
            if (msg != stack) free(msg);
            return failf("a library message from rank %d (kind %llu, offset %llu, data %llu bytes at %llu) %s this "
                         "PE's window of %llu bytes",
                         st.MPI_SOURCE, (unsigned long long)kind, (unsigned long long)off, (unsigned long long)len,
                         (unsigned long long)data_off, bad, (unsigned long long)win_len);
        }
        if (len > 0) memcpy(win_base + data_off, msg + MSG_WORDS, len);
        uint64_t *word = (uint64_t *)(win_base + off);
        /* Sequentially consistent read-modify-writes also release the data
         * copied above to whoever acquires the word. */
        if (kind == MSG_SET)
            __atomic_exchange_n(word, value, __ATOMIC_SEQ_CST);
        else if (kind == MSG_ADD)
            __atomic_fetch_add(word, value, __ATOMIC_SEQ_CST);
        if (msg != stack) free(msg);
        if (kind == MSG_FETCH && answer_fetch(st.MPI_SOURCE, off, value) < 0) return -1;
    }
}

/* Sends one message of `kind` (see above) with `len` bytes of `data`. */
static int post(const char *routine, int pe, uint64_t kind, uint64_t off, uint64_t value, uint64_t data_off,
                const void *data, uint64_t len) {
    if (flags == MPI_COMM_NULL) return failf("%s: rsm_init was not called", routine);
    if (pe < 0 || pe >= world_size) return failf("%s: rank %d is not in 0..%d", routine, pe, world_size - 1);
    if (len > RSM_POST_DATA_MAX)
        return failf("%s: %llu bytes of data, more than the %d of one message", routine, (unsigned long long)len,
                     RSM_POST_DATA_MAX);
    pthread_mutex_lock(&flag_lock);
    pools_init();
    int slot = -1, oom = 0, rc = 0;
    while (rc == 0 && slot < 0 && !oom) {
        rc = pool_slot(flag_out, flag_next, MSG_BYTES + len, &slot, &oom);
        if (rc == 0 && slot < 0 && !oom) rc = rsm_take_flags() < 0 ? -1 : 0;
    }
    if (rc == 0 && oom) rc = failf("%s: cannot allocate a message of %llu bytes", routine, (unsigned long long)len);
    if (rc == 0) {
        uint64_t *b = flag_out[slot].buf;
        b[0] = kind;
        b[1] = off;
        b[2] = value;
        b[3] = data_off;
        b[4] = len;
        if (len > 0) memcpy(b + MSG_WORDS, data, len);
        int mrc = MPI_Isend(b, (int)(MSG_BYTES + len), MPI_BYTE, pe, FLAG_TAG, flags, &flag_out[slot].req);
        if (mrc != MPI_SUCCESS) rc = fail("MPI_Isend", pe, mrc);
        flag_next = (slot + 1) % FLAG_SLOTS;
    }
    pthread_mutex_unlock(&flag_lock);
    return rc;
}

int rsm_post_put_flag(int pe, uint64_t data_off, const void *data, uint64_t len, uint64_t off, int set,
                      uint64_t value) {
    return post("rsm_post_put_flag", pe, set ? MSG_SET : MSG_ADD, off, value, data_off, data, len);
}

int rsm_fetch_after_flags(int pe, uint64_t off, uint64_t *value) {
    if (flags == MPI_COMM_NULL) return failf("rsm_fetch_after_flags: rsm_init was not called");
    if (off % 8 != 0) return failf("rsm_fetch_after_flags: offset %llu is not 8-aligned", (unsigned long long)off);
    int tag = REPLY_TAG_FIRST + (int)(__atomic_fetch_add(&reply_tag, 1, __ATOMIC_RELAXED) % REPLY_TAGS);
    MPI_Request req;
    TRY("MPI_Irecv", pe, MPI_Irecv(value, 1, MPI_UINT64_T, pe, tag, flags, &req));
    if (post("rsm_fetch_after_flags", pe, MSG_FETCH, off, (uint64_t)tag, 0, NULL, 0) < 0) {
        MPI_Cancel(&req);
        MPI_Request_free(&req);
        return -1;
    }
    for (;;) {
        int done = 0;
        TRY("MPI_Test", pe, MPI_Test(&req, &done, MPI_STATUS_IGNORE));
        if (done) return 0;
        /* The target may be asking this PE at the same time. */
        if (rsm_take_flags() < 0) return -1;
        sched_yield();
    }
}

/* Lets go of the messages still in flight (every message a PE sends is
 * taken before the job's last barrier ends, so none should be) and of any
 * that arrived unread. */
static void flags_end(void) {
    if (flags == MPI_COMM_NULL) return;
    for (int i = 0; flag_init_done && i < FLAG_SLOTS; i++) {
        if (flag_out[i].req != MPI_REQUEST_NULL) MPI_Request_free(&flag_out[i].req);
        if (reply_out[i].req != MPI_REQUEST_NULL) MPI_Request_free(&reply_out[i].req);
    }
    for (;;) {
        int found = 0, bytes = 0;
        MPI_Message m;
        MPI_Status st;
        if (MPI_Improbe(MPI_ANY_SOURCE, FLAG_TAG, flags, &found, &m, &st) != MPI_SUCCESS || !found) break;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        void *b = malloc(bytes > 0 ? (size_t)bytes : 1);
        MPI_Mrecv(b, bytes, MPI_BYTE, &m, MPI_STATUS_IGNORE);
        free(b);
    }
    free_comm(&flags);
}

static int barrier_comm(const char *routine, int which, MPI_Comm *c) {
    if (which != 0 && which != 1) return failf("%s: communicator %d is not 0 (world) or 1 (leaders)", routine, which);
    *c = which ? leaders : world;
    if (world == MPI_COMM_NULL) return failf("%s: rsm_init was not called", routine);
    if (which && node == MPI_COMM_NULL) return failf("%s: rsm_split_nodes was not called", routine);
    if (*c == MPI_COMM_NULL) return failf("%s: rank %d is not a node leader", routine, my_rank);
    return 0;
}

/* The values of an agreement in progress, per communicator: MPI reads and
 * writes them until the request completes. */
#define AGREE_MAX 8
static int64_t agree_in[2][AGREE_MAX], agree_out[2][AGREE_MAX];
static int agree_n[2];

int rsm_iagree_start(int which, const int64_t *values, int n) {
    MPI_Comm c;
    if (barrier_comm("rsm_iagree_start", which, &c)) return -1;
    if (n < 1 || n > AGREE_MAX) return failf("rsm_iagree_start: %d values (1 to %d)", n, AGREE_MAX);
    if (barrier_req[which] != MPI_REQUEST_NULL)
        return failf("rsm_iagree_start: a barrier on communicator %d is still running", which);
    memcpy(agree_in[which], values, (size_t)n * sizeof(int64_t));
    agree_n[which] = n;
    TRY("MPI_Iallreduce", -1,
        MPI_Iallreduce(agree_in[which], agree_out[which], n, MPI_INT64_T, MPI_MAX, c, &barrier_req[which]));
    return 0;
}

int rsm_iagree_test(int which, int *done, int64_t *values, int n) {
    MPI_Comm c;
    if (barrier_comm("rsm_iagree_test", which, &c)) return -1;
    if (n != agree_n[which]) return failf("rsm_iagree_test: %d values, but %d were started", n, agree_n[which]);
    TRY("MPI_Test", -1, MPI_Test(&barrier_req[which], done, MPI_STATUS_IGNORE));
    if (*done) memcpy(values, agree_out[which], (size_t)agree_n[which] * sizeof(int64_t));
    return 0;
}

/* Status messages: small, sent eagerly, never waited for (a PE that stopped
 * or died must not block the sender), so a few are kept in flight and a
 * message finding every slot busy is dropped (the next one replaces it). */
#define STATUS_SLOTS 32
#define STATUS_MAX 256
#define STATUS_TAG 1
static struct {
    MPI_Request req;
    char buf[STATUS_MAX];
} status_out[STATUS_SLOTS];
static int status_init_done;

static void status_slots_init(void) {
    if (status_init_done) return;
    for (int i = 0; i < STATUS_SLOTS; i++) status_out[i].req = MPI_REQUEST_NULL;
    status_init_done = 1;
}

int rsm_status_send(int dest, const void *msg, int len) {
    if (status == MPI_COMM_NULL) return failf("rsm_status_send: rsm_init was not called");
    if (len < 0 || len > STATUS_MAX) return failf("rsm_status_send: %d bytes (at most %d)", len, STATUS_MAX);
    status_slots_init();
    for (int i = 0; i < STATUS_SLOTS; i++) {
        int done = 1;
        if (status_out[i].req != MPI_REQUEST_NULL)
            TRY("MPI_Test", dest, MPI_Test(&status_out[i].req, &done, MPI_STATUS_IGNORE));
        if (!done) continue;
        memcpy(status_out[i].buf, msg, (size_t)len);
        TRY("MPI_Isend", dest, MPI_Isend(status_out[i].buf, len, MPI_BYTE, dest, STATUS_TAG, status, &status_out[i].req));
        return 0;
    }
    return 1; /* every slot busy: dropped */
}

int rsm_status_recv(void *msg, int cap, int *src) {
    if (status == MPI_COMM_NULL) return 0;
    int flag = 0, len = 0;
    MPI_Status st;
    TRY("MPI_Iprobe", -1, MPI_Iprobe(MPI_ANY_SOURCE, STATUS_TAG, status, &flag, &st));
    if (!flag) return 0;
    TRY("MPI_Get_count", -1, MPI_Get_count(&st, MPI_BYTE, &len));
    if (len > cap) return failf("rsm_status_recv: a message of %d bytes (at most %d)", len, cap);
    TRY("MPI_Recv", st.MPI_SOURCE, MPI_Recv(msg, len, MPI_BYTE, st.MPI_SOURCE, STATUS_TAG, status, MPI_STATUS_IGNORE));
    *src = st.MPI_SOURCE;
    return len;
}

/* Lets go of the status messages still in flight (MPI completes them or drops
 * them at MPI_Finalize) and of those received but not read. */
static void status_end(void) {
    if (status == MPI_COMM_NULL) return;
    for (int i = 0; status_init_done && i < STATUS_SLOTS; i++)
        if (status_out[i].req != MPI_REQUEST_NULL) MPI_Request_free(&status_out[i].req);
    char drain[STATUS_MAX];
    int src;
    while (rsm_status_recv(drain, STATUS_MAX, &src) > 0) {
    }
    free_comm(&status);
}

int rsm_finalize(void) {
    /* Our own MPI_Finalize below must not call back into the library. */
    finalize_hook = NULL;
    if (world == MPI_COMM_NULL) return 0;
    flags_end();
    if (rsm_win_free()) return -1;
    status_end();
    free_comm(&leaders);
    free_comm(&node);
    free_comm(&world);
    if (we_init) {
        we_init = 0;
        int rc = MPI_Finalize();
        if (rc != MPI_SUCCESS) return fail("MPI_Finalize", -1, rc);
    }
    return 0;
}

static int on_comm_self_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
    (void)comm, (void)keyval, (void)value, (void)extra;
    void (*hook)(void) = finalize_hook;
    finalize_hook = NULL;
    we_init = 0; /* the program's MPI_Finalize is under way */
    if (hook) hook();
    return MPI_SUCCESS;
}

int rsm_on_mpi_finalize(void (*hook)(void)) {
    int key = MPI_KEYVAL_INVALID;
    TRY("MPI_Comm_create_keyval", -1, MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_comm_self_delete, &key, NULL));
    finalize_hook = hook;
    TRY("MPI_Comm_set_attr", -1, MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL));
    return 0;
}

void rsm_abort(int status) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, status);
    /* MPI_Abort does not return; without MPI there is no job to end. */
    _exit(status ? status : 1);
}

/* Open MPI's progress engine (libopen-pal), found at run time so that the
 * shim builds against any MPI. */
typedef int (*progress_cb)(void);

int rsm_progress_hook(int (*cb)(void)) {
    int (*reg)(progress_cb) = (int (*)(progress_cb))dlsym(RTLD_DEFAULT, "opal_progress_register");
    if (reg == NULL) return 1;
    if (reg(cb) != 0) return failf("opal_progress_register (rank %d) failed", my_rank);
    return 0;
}

void rsm_progress_hook_off(int (*cb)(void)) {
    int (*unreg)(progress_cb) = (int (*)(progress_cb))dlsym(RTLD_DEFAULT, "opal_progress_unregister");
    if (unreg != NULL) unreg(cb);
}
