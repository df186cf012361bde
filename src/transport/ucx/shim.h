/*
 * rshmem's UCX shim: the only code that includes <ucp/api/ucp.h>.
 *
 * Compiled by build.rs with the system C compiler into librshmem_ucx.so
 * (linked with -lucp -lucs), which librshmem dlopens when a job spans
 * nodes and RSHMEM_REMOTE is ucx or unset (src/transport/ucx/shim.rs).
 * Plain C types only, so the Rust side needs no bindings of UCX's headers.
 * UCP's *_nbx API, UCX 1.10 and later.
 *
 * The shim reaches every PE's segment, one registration per PE
 * (ucp_mem_map over the segment: globals, heap and arena, so a symmetric
 * offset is the offset from the peer's base). The start-up exchange is the
 * caller's: each PE gives every other its "card" (worker address, packed
 * remote key and segment base, ruc_card), and the shim makes a peer's
 * endpoint and remote key on first use (ruc_peers), so a PE's memory grows
 * with the peers it talks to, not with the job.
 *
 * Every function returning int returns 0 on success and -1 on failure,
 * after which ruc_last_error() describes it ("ucp_put_nbx to PE 3: <UCX's
 * message>").
 *
 * Thread safety: with multi = 1 at ruc_init the worker is
 * UCS_THREAD_MODE_MULTI and the shim locks its own lists; otherwise one
 * thread at a time may call in.
 */
#ifndef RSHMEM_UCX_SHIM_H
#define RSHMEM_UCX_SHIM_H
#include <stddef.h>
#include <stdint.h>

/* Version of this interface; the loader refuses a shim of another. */
#define RUC_ABI_VERSION 4
int ruc_abi_version(void);

/* Description of the last failure (thread-local buffer, never NULL). */
const char *ruc_last_error(void);

/* UCX's version string (ucp_get_version_string). */
const char *ruc_version(void);

/* Creates the context (RMA, 32- and 64-bit atomics, active messages) and
 * worker, and
 * registers this PE's segment [base, base+len). me and npes: this PE and
 * the job's size. multi: several threads may call in at once. Out:
 * *card_len, the bytes of this PE's card (ruc_card). */
int ruc_init(int multi, int me, int npes, void *base, uint64_t len, size_t *card_len);

/* Copies this PE's card (cap >= card_len) into out. */
int ruc_card(void *out, size_t cap);

/* Every PE's card: PE p's at all + p*stride (stride >= every card's
 * length). The shim copies them; endpoints are made on first use. */
int ruc_peers(const void *all, size_t stride);

/* RMA at byte offset off of pe's segment. blocking = 1: the origin buffer
 * is reusable (put) or holds the data (get) on return; 0: complete at the
 * next ruc_quiet, and the buffer must not change (put) or be read (get)
 * until then. */
int ruc_put(int pe, uint64_t off, const void *src, uint64_t len, int blocking);
int ruc_get(int pe, uint64_t off, void *dst, uint64_t len, int blocking);

/* Strided, blocking: n elements of elem_size bytes; origin element i at
 * local + i*local_stride, target element i at off + i*remote_stride
 * (strides in bytes). */
int ruc_put_strided(int pe, uint64_t off, int64_t remote_stride, const void *local, int64_t local_stride,
                    uint64_t elem_size, uint64_t n);
int ruc_get_strided(int pe, uint64_t off, int64_t remote_stride, void *local, int64_t local_stride,
                    uint64_t elem_size, uint64_t n);

/* Atomic operations on one 4- or 8-byte word (size 4 or 8). */
enum ruc_op {
    RUC_FETCH = 0, /* result = old */
    RUC_SWAP = 1,  /* result = old, word = operand */
    RUC_CSWAP = 2, /* result = old, word = operand if old == compare */
    RUC_ADD = 3,
    RUC_AND = 4,
    RUC_OR = 5,
    RUC_XOR = 6
};
/* operand and compare hold the value in their low size bytes. result ==
 * NULL (blocking = 0 only): nobody needs the old value; complete at the
 * next ruc_quiet (RUC_ADD, AND, OR, XOR are posted without a reply;
 * RUC_FETCH and RUC_SWAP, which UCP always fetches, reply into a word of
 * the shim's; RUC_CSWAP needs a result).
 * result != NULL and blocking = 1: *result holds the old value on return;
 * blocking = 0: by the next ruc_quiet. */
int ruc_amo(int pe, uint64_t off, int op, int size, uint64_t operand, uint64_t compare, void *result, int blocking);

/* Put-with-signal: len bytes from src to offset off of pe's segment, then
 * the 8-byte signal at sig_off updated by op (RUC_SWAP: set to value;
 * RUC_ADD: add value), the target never seeing the signal before the data.
 * Up to RUC_PUT_SIGNAL_AM_MAX bytes it is one active message that the
 * target applies when it progresses (the data, then the signal by a CPU
 * atomic read-modify-write); larger, a put, a fence and the signal's
 * atomic. src is reusable on return. old != NULL: waits for the signal's
 * previous value (the target's reply); NULL: the update completes at the
 * next ruc_quiet (and before a later get or fetching atomic to pe, and
 * before any later operation once ruc_fence is called), unless untracked:
 * then nothing completes it (a library word whose reader waits for the
 * signal itself; up to RUC_PUT_SIGNAL_AM_MAX bytes). */
#define RUC_PUT_SIGNAL_AM_MAX 8192
int ruc_put_signal(int pe, uint64_t off, const void *src, uint64_t len, uint64_t sig_off, int op, uint64_t value,
                   uint64_t *old, int untracked);

/* Orders every earlier operation of this PE before every later one
 * (ucp_worker_fence; and the put-with-signal messages sent so far
 * applied, one round trip if any are outstanding). */
int ruc_fence(void);

/* Completes every earlier operation of this PE at its target, and every
 * non-blocking get and fetch at this PE (ucp_worker_flush_nbx, and a
 * flush request to each PE with put-with-signal messages outstanding). */
int ruc_quiet(void);

/* ruc_fence and ruc_quiet without waiting: 1 when what they guarantee holds
 * now (the flushes they need complete), 0 when not yet (the requests are
 * sent, and a later call sees them answered), -1 on an error. */
int ruc_fence_test(void);
int ruc_quiet_test(void);

/* Lets UCX move requests along (ucp_worker_progress): over software RMA
 * (TCP) a put to this PE lands only when it calls in. Returns the events
 * handled (0 before ruc_init and after ruc_finalize). */
int ruc_progress(void);

/* Peers connected so far (endpoints made), and the bytes the shim holds
 * for them (its own records and unpacked remote keys; UCX's endpoint
 * state is not counted). */
void ruc_footprint(uint64_t *peers, uint64_t *bytes);

/* Closing, collective in effect: ruc_close_start flushes and starts to
 * close every endpoint; ruc_close_test progresses until they are closed
 * (*done = 1). Both may be called while peers still close theirs (keep
 * calling ruc_progress until every PE is done). */
int ruc_close_start(void);
int ruc_close_test(int *done);

/* Unregisters the segment and frees the worker and context. */
int ruc_finalize(void);

#endif
