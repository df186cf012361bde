/*
 * rshmem's MPI shim: the only code that includes <mpi.h>.
 *
 * Compiled by build.rs with the MPI's own `mpicc` into librshmem_mpi.so,
 * which librshmem dlopens when a PE was started by an MPI launcher
 * (src/transport/mpi/shim.rs). Plain C types only, so the Rust side needs
 * no bindings of any MPI's headers. MPI-3.1 only (Open MPI 4.x, MPICH 3.x+).
 *
 * Every function returning int returns 0 on success and -1 on failure,
 * after which rsm_last_error() describes it ("MPI_Put to rank 3: <MPI's
 * message>"); the shim installs MPI_ERRORS_RETURN on its communicators and
 * window so MPI never aborts the job on its own.
 *
 * Thread safety: the shim adds none. The caller initialises MPI with
 * MPI_THREAD_MULTIPLE when several threads may call in.
 */
#ifndef RSHMEM_MPI_SHIM_H
#define RSHMEM_MPI_SHIM_H
#include <stddef.h>
#include <stdint.h>

/* Version of this interface; the loader refuses a shim of another. */
#define RSM_ABI_VERSION 8
int rsm_abi_version(void);

/* Description of the last failure (thread-local buffer, never NULL). */
const char *rsm_last_error(void);

/* MPI_Init_thread unless MPI is already initialised (a program that calls
 * MPI_Init itself). want_multiple: ask for MPI_THREAD_MULTIPLE, else
 * MPI_THREAD_SERIALIZED. Out: *multiple = 1 if MPI_THREAD_MULTIPLE is
 * provided; *we_initialized = 1 if this call initialised MPI (so
 * rsm_finalize must finalise it); rank and size in MPI_COMM_WORLD.
 * Also writes the MPI library's version string (MPI_Get_library_version,
 * first line, NUL-terminated, truncated to lib_len) into lib. */
int rsm_init(int want_multiple, int *multiple, int *we_initialized, int *rank, int *size, char *lib,
             size_t lib_len);

/* Splits the world into nodes: the PEs sharing memory
 * (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)), or, if forced_size > 0,
 * virtual nodes of forced_size consecutive ranks (rank / forced_size).
 * Fills node_of[r] for every world rank r with the world rank of the
 * first (lowest) rank of r's node (an array of `size` ints). Creates the
 * shim's node communicator (this PE's node, ordered by world rank) and
 * leaders communicator (the first rank of every node; MPI_COMM_NULL on
 * the others). Collective over MPI_COMM_WORLD. */
int rsm_split_nodes(int forced_size, int *node_of);

/* Over MPI_COMM_WORLD: every rank contributes len bytes at mine; all
 * receives size*len bytes, rank r's at all + r*len. */
int rsm_allgather(const void *mine, void *all, size_t len);

/* Over the node communicator: len bytes from the node's first rank. */
int rsm_node_bcast(void *buf, size_t len);

/* Barrier over the node communicator (blocking). */
int rsm_node_barrier(void);

/* Creates the job's window over this PE's segment [base, base+len)
 * (MPI_Win_create, disp_unit 1, over MPI_COMM_WORLD; info
 * accumulate_ordering=none) and opens a passive-target epoch on every
 * rank for the rest of the job (MPI_Win_lock_all(MPI_MODE_NOCHECK)).
 * Collective. One window at a time. */
int rsm_win_create(void *base, uint64_t len);

/* Closes the epoch and frees the window (collective). No-op if none. */
int rsm_win_free(void);

/* RMA on rank pe's window at byte displacement off. Neither call waits
 * for anything: completion is by rsm_flush_local / rsm_flush /
 * rsm_flush_all. Lengths above INT_MAX are split. */
int rsm_put(int pe, uint64_t off, const void *src, uint64_t len);
int rsm_get(int pe, uint64_t off, void *dst, uint64_t len);

/* Strided: n elements of elem_size bytes; origin element i at
 * local + i*local_stride, target element i at off + i*remote_stride
 * (strides in bytes, may be any non-zero value). One MPI call each with
 * hvector datatypes. No completion, as above. */
int rsm_put_strided(int pe, uint64_t off, int64_t remote_stride, const void *local, int64_t local_stride,
                    uint64_t elem_size, uint64_t n);
int rsm_get_strided(int pe, uint64_t off, int64_t remote_stride, void *local, int64_t local_stride,
                    uint64_t elem_size, uint64_t n);

/* Atomic operations on one 4- or 8-byte unsigned word (size 4 or 8). */
enum rsm_op {
    RSM_FETCH = 0, /* result = old (MPI_Fetch_and_op, MPI_NO_OP) */
    RSM_SET = 1,   /* word = operand (MPI_Accumulate, MPI_REPLACE) */
    RSM_SWAP = 2,  /* result = old, word = operand (MPI_Fetch_and_op, MPI_REPLACE) */
    RSM_CSWAP = 3, /* result = old, word = operand if old == compare (MPI_Compare_and_swap) */
    RSM_ADD = 4,   /* MPI_SUM */
    RSM_AND = 5,   /* MPI_BAND */
    RSM_OR = 6,    /* MPI_BOR */
    RSM_XOR = 7    /* MPI_BXOR */
};
/* result == NULL: the non-fetching form (MPI_Accumulate; RSM_FETCH, RSM_SWAP
 * and RSM_CSWAP always fetch and need result). result != NULL: fetching
 * (MPI_Fetch_and_op / MPI_Compare_and_swap); *result is valid only after a
 * flush (local or remote) of pe. Types: MPI_UINT32_T / MPI_UINT64_T.
 * compare is read only for RSM_CSWAP. */
int rsm_amo(int pe, uint64_t off, int op, int size, const void *operand, const void *compare, void *result);

/* Completion: local (origin buffers reusable, gets and fetches landed),
 * remote to pe, remote to everyone. */
int rsm_flush_local(int pe);
int rsm_flush(int pe);
int rsm_flush_all(void);
/* MPI_Win_sync: this PE's loads see what the engine wrote into its memory. */
int rsm_win_sync(void);

/* Lets MPI move requests along (MPI_Iprobe on the world communicator):
 * over software RMA a put to this PE lands only when it calls into MPI. */
void rsm_progress(void);

/* Library flags as messages: rsm_post_put_flag sends "add value to the
 * 8-byte word at off" (set = 0) or "store value there" (set = 1) to pe and
 * returns at once (nothing answers; the caller completes its earlier RMA
 * first), with len bytes of data (0 for a flag alone; at most
 * RSM_POST_DATA_MAX; copied before it returns) that the target writes at
 * data_off before it updates the word (a put-with-signal in one message);
 * rsm_take_flags applies every such message that has arrived to this PE's
 * window memory (a sequentially consistent fetch-add or exchange, which
 * releases the data) and returns how many, or -1 (0 at once when another
 * thread of the PE is taking them). MPI orders messages between two ranks
 * and one thread takes at a time, so one sender's messages land in order.
 * rsm_fetch_after_flags reads pe's 8-byte word at off once pe has applied
 * every message this PE sent it before (a request on the same channel,
 * answered by pe's rsm_take_flags): blocks until the answer, taking this
 * PE's own messages meanwhile. */
#define RSM_POST_DATA_MAX 8192
int rsm_post_put_flag(int pe, uint64_t data_off, const void *data, uint64_t len, uint64_t off, int set,
                      uint64_t value);
int rsm_take_flags(void);
int rsm_fetch_after_flags(int pe, uint64_t off, uint64_t *value);

/* A non-blocking barrier that also agrees, over the leaders communicator
 * (which = 1) or the world (which = 0): starts the element-wise maximum of
 * n (at most 8) values; test until *done = 1, which gives the maxima once
 * every member has started it. One at a time per communicator. */
int rsm_iagree_start(int which, const int64_t *values, int n);
int rsm_iagree_test(int which, int *done, int64_t *values, int n);
/* Status messages between PEs (at most 256 bytes): the send never waits
 * (returns 1 when it had to drop the message), the receive takes one
 * pending message if any (returns its length and sender, 0 if none). */
int rsm_status_send(int dest, const void *msg, int len);
int rsm_status_recv(void *msg, int cap, int *src);

/* Frees the shim's communicators and window; MPI_Finalize if
 * we_initialized was set by rsm_init. */
int rsm_finalize(void);

/* Calls hook() when the program calls MPI_Finalize, before MPI tears
 * anything down (the delete callback of an attribute on MPI_COMM_SELF,
 * which MPI_Finalize deletes first: MPI-3.1 section 8.7.1), so that a
 * program may end MPI before OpenSHMEM. MPI_Finalize is then under way:
 * rsm_finalize no longer calls it, and rsm_finalize itself disarms the
 * hook. */
int rsm_on_mpi_finalize(void (*hook)(void));

/* Has MPI's progress engine call cb (which returns the events it
 * handled) whenever MPI polls, from any thread inside an MPI call, so that
 * a PE blocked in MPI still serves what another engine (UCX) must progress.
 * Open MPI only (opal_progress_register, found at run time): returns 1,
 * registering nothing, with any other MPI. rsm_progress_hook_off removes it
 * (before the engine it drives is torn down). */
int rsm_progress_hook(int (*cb)(void));
void rsm_progress_hook_off(int (*cb)(void));

/* MPI_Abort(MPI_COMM_WORLD, status): ends every PE of the job. */
void rsm_abort(int status);

#endif
