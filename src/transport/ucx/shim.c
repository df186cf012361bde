/*
 * rshmem's UCX shim: implements shim.h over UCP (see there for the contract
 * of every function). build.rs compiles it with the system C compiler into
 * librshmem_ucx.so; src/transport/ucx/shim.rs dlopens it.
 *
 * Completion, as OpenSHMEM needs it and no more:
 * - a blocking put waits only for its own local completion (UCX buffers
 *   small ones: usually no wait at all); a blocking get or fetching atomic
 *   waits for its reply, which is its completion: no flush;
 * - non-blocking gets and fetches are kept in `pending` until ruc_quiet,
 *   which also flushes the worker when anything was written since the last
 *   flush;
 * - a get or atomic after a put is ordered after it by a fence (only when
 *   a write was issued since the last fence or flush): UCX orders nothing
 *   between operations of one endpoint otherwise;
 * - a put-with-signal of up to RUC_PUT_SIGNAL_AM_MAX bytes is one active
 *   message (data and signal, applied by the target when it progresses),
 *   not a put, a fence and an atomic: over software RMA (TCP) each of
 *   those is a message and an acknowledgement of its own. Nothing answers
 *   the message itself. Each side counts them instead: the sender what it
 *   sent to a peer (`sent`), the target what it applied from each sender
 *   (`applied`); completing them (ruc_quiet for every peer, a get or
 *   fetching atomic for its own peer, ruc_fence for every peer, as a
 *   later put may take another lane than the message did) is one round
 *   trip: a flush request naming the count, answered once the target has
 *   applied that many, whatever order the messages arrived in. A message
 *   after a fence that followed writes waits for those writes' flush first
 *   (likewise). Where every operation to a peer travels one lane (TCP:
 *   UCX's puts, gets and atomics are software ones, active messages on the
 *   same lane), they are handled in the order sent, and a fence or a get
 *   needs none of this (one_lane). An untracked message (a library inbox,
 *   whose reader waits for the signal itself) is not counted, and nothing
 *   ever waits for it.
 */
#include "shim.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>

/* A peer's card as this PE received it, and what was made of it. */
typedef struct {
    ucp_ep_h ep;     /* NULL until first use */
    ucp_rkey_h rkey; /* made with ep */
    uint64_t base;   /* the peer's segment address */
    int ready;       /* ep and rkey made (acquire/release) */
    /* As a sender to this peer: tracked put-with-signal messages sent, the
     * highest count a flush request asked for, and the highest count the
     * peer said it applied (atomic: any thread may send or progress). */
    uint64_t sent, requested, flushed;
    /* As a target of this peer: its tracked messages applied here, and a
     * flush request not yet answered (want > applied; 0: none), with the
     * endpoint to answer on (UCX's, from the request). */
    uint64_t applied, want;
    ucp_ep_h want_ep;
    /* Every operation to this peer travels one lane, in order (one_lane). */
    int one_lane;
} peer_t;

/* Active messages: a put-with-signal, the reply carrying a signal's old
 * value, a flush request, and its answer. */
enum { AM_PUT_SIGNAL = 1, AM_OLD_VALUE = 2, AM_FLUSH = 3, AM_FLUSHED = 4 };

/* A put-with-signal's header; the data is the message's payload. token:
 * 0, or the address of the sender's waiter_t for the signal's old value. */
typedef struct {
    uint64_t off, sig_off, value, token;
    int32_t from, op, tracked, pad;
} put_signal_head_t;

/* AM_OLD_VALUE: the waiter's token and the value; AM_FLUSH: "answer when
 * you have applied `count` of mine"; AM_FLUSHED: "I have applied `count`
 * of yours". */
typedef struct {
    uint64_t token, value;
    int32_t from, pad;
} reply_t;

/* A put-with-signal message as sent: freed by message_sent once UCX is done. */
typedef struct {
    int pe;
    put_signal_head_t h;
    unsigned char data[];
} am_buf_t;

/* A sender waiting for the signal's old value. */
typedef struct {
    uint64_t old;
    int done;
} waiter_t;

/* The card's fixed part; the worker address and packed rkey follow. */
typedef struct {
    uint64_t base;
    uint32_t addr_len, rkey_len;
} card_head_t;

/* An operation whose result lands later (non-blocking get or fetch). */
typedef struct {
    void *req;
    int pe;
    const char *call;
} pending_t;

static ucp_context_h context;
static ucp_worker_h worker;
static ucp_mem_h memh;
static int me = -1, npes = 0, multi = 0;
static peer_t *peers;
static unsigned char *cards;
static size_t card_stride;
static unsigned char *my_card;
static size_t my_card_len;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pending_t *pending;
static size_t n_pending, cap_pending;
static uint64_t connected;
/* This PE's segment, where put-with-signal messages land. */
static unsigned char *seg_base;
static uint64_t seg_len;
/* Tracked put-with-signal messages sent to any PE, and those of them the
 * targets said they applied: equal, there is nothing to complete. */
static uint64_t am_sent, am_flushed;
/* The PEs this PE has connected to, in order (connect_pe appends). */
static int *connected_pes;
/* ruc_fence was called after writes: the next message waits for their
 * flush (they may travel on another lane). */
static int fenced_writes;
/* A write (put, non-fetching atomic) was issued since the last fence /
 * flush. Relaxed: a hint for the thread that issued it. */
static int written_since_fence, written_since_flush;
static void **closing;
static size_t n_closing;
/* Where replies nobody reads land (a data race among them is harmless:
 * nobody reads the word). */
static uint64_t discard;

static _Thread_local char err[1024];

int ruc_abi_version(void) { return RUC_ABI_VERSION; }

const char *ruc_last_error(void) { return err; }

const char *ruc_version(void) { return ucp_get_version_string(); }

static int failf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, sizeof err, fmt, ap);
    va_end(ap);
    return -1;
}

/* "call to PE pe: UCX's message" (pe < 0: a call of this PE alone). */
static int fail(const char *call, int pe, ucs_status_t st) {
    if (pe >= 0) return failf("%s to PE %d: %s", call, pe, ucs_status_string(st));
    return failf("%s (PE %d): %s", call, me, ucs_status_string(st));
}

static void lock_if_multi(void) {
    if (multi) pthread_mutex_lock(&lock);
}

static void unlock_if_multi(void) {
    if (multi) pthread_mutex_unlock(&lock);
}

/* Polls of a wait that found nothing to do before each further idle poll
 * yields the CPU: the peer whose reply this PE waits for may need it (on a
 * node whose PEs outnumber its cores, spinning delays the very answer). */
#define IDLE_POLLS_BEFORE_YIELD 16

/* One poll of a wait: progresses the worker, and yields the CPU after
 * IDLE_POLLS_BEFORE_YIELD polls in a row that found nothing to do. */
static inline void poll_once(unsigned *idle) {
    if (ucp_worker_progress(worker) != 0)
        *idle = 0;
    else if (++*idle > IDLE_POLLS_BEFORE_YIELD)
        sched_yield();
}

/* Waits for a request to complete and frees it. */
static int wait_req(ucs_status_ptr_t r, const char *call, int pe) {
    if (r == NULL) return 0;
    if (UCS_PTR_IS_ERR(r)) return fail(call, pe, UCS_PTR_STATUS(r));
    ucs_status_t st;
    unsigned idle = 0;
    while ((st = ucp_request_check_status(r)) == UCS_INPROGRESS) poll_once(&idle);
    ucp_request_free(r);
    return st == UCS_OK ? 0 : fail(call, pe, st);
}

/* Kept requests at which keep_req first frees the completed ones. */
#define REAP_AT 1024
/* A failure of a request freed by keep_req's sweep, reported by ruc_quiet. */
static ucs_status_t deferred = UCS_OK;
static int deferred_pe = -1;

/* Frees the kept requests that have completed (a failure is kept for
 * ruc_quiet to report); the caller holds the lock. */
static void sweep_pending(void) {
    size_t kept = 0;
    for (size_t i = 0; i < n_pending; i++) {
        ucs_status_t st = ucp_request_check_status(pending[i].req);
        if (st == UCS_INPROGRESS) {
            pending[kept++] = pending[i];
            continue;
        }
        ucp_request_free(pending[i].req);
        if (st != UCS_OK && deferred == UCS_OK) deferred = st, deferred_pe = pending[i].pe;
    }
    n_pending = kept;
}

/* Reports (once) the failure of a request freed without being waited for:
 * -1 with the error set, 0 when there was none. */
static int take_deferred(void) {
    if (deferred == UCS_OK) return 0;
    int rc = fail("a non-blocking operation", deferred_pe, deferred);
    deferred = UCS_OK;
    return rc;
}

/* Keeps a request until ruc_quiet. */
static int keep_req(ucs_status_ptr_t r, const char *call, int pe) {
    if (r == NULL) return 0;
    if (UCS_PTR_IS_ERR(r)) return fail(call, pe, UCS_PTR_STATUS(r));
    lock_if_multi();
    /* A program that issues without quiet: drop the completed. */
    if (n_pending >= REAP_AT && n_pending == cap_pending) sweep_pending();
    if (n_pending == cap_pending) {
        size_t cap = cap_pending ? 2 * cap_pending : 64;
        pending_t *p = realloc(pending, cap * sizeof *p);
        if (p == NULL) {
            unlock_if_multi();
            wait_req(r, call, pe);
            return failf("%s to PE %d: out of memory keeping the request", call, pe);
        }
        pending = p;
        cap_pending = cap;
    }
    pending[n_pending++] = (pending_t){r, pe, call};
    unlock_if_multi();
    return 0;
}

/* Sends a small reply from inside a handler: the header must live until
 * sent, so it is copied and freed by reply_sent (or here, when UCX sent
 * it at once). A failure is printed: the waiting sender's hang report
 * then says which wait never ended. */
static void reply_sent(void *req, ucs_status_t st, void *user) {
    (void)st;
    free(user);
    ucp_request_free(req);
}

static void send_reply(ucp_ep_h ep, unsigned id, reply_t r, int to) {
    reply_t *copy = malloc(sizeof *copy);
    if (copy == NULL) {
        fprintf(stderr, "rshmem UCX (PE %d): out of memory answering PE %d\n", me, to);
        return;
    }
    *copy = r;
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS,
        .cb.send = reply_sent,
        .user_data = copy,
        .flags = UCP_AM_SEND_FLAG_EAGER,
    };
    ucs_status_ptr_t q = ucp_am_send_nbx(ep, id, copy, sizeof *copy, NULL, 0, &p);
    if (q == NULL) {
        free(copy);
    } else if (UCS_PTR_IS_ERR(q)) {
        free(copy);
        fprintf(stderr, "rshmem UCX (PE %d): answering PE %d: %s\n", me, to, ucs_status_string(UCS_PTR_STATUS(q)));
    }
}

/* A reply message's header, if it is one (any other length is dropped). */
static int as_reply(const void *header, size_t header_len, reply_t *r) {
    if (header_len != sizeof *r) return 0;
    memcpy(r, header, sizeof *r);
    return 1;
}

/* Answers `from`'s pending flush request if this PE has applied enough. */
static void answer_flush(int from) {
    peer_t *p = &peers[from];
    if (p->want != 0 && p->applied >= p->want) {
        send_reply(p->want_ep, AM_FLUSHED, (reply_t){0, p->want, me, 0}, from);
        p->want = 0;
    }
}

/* Whether a message from `from` is well-formed: a PE and a reply endpoint. */
static int valid_sender(int from, const ucp_am_recv_param_t *param, const char *what) {
    if (from >= 0 && from < npes && (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)) return 1;
    fprintf(stderr, "rshmem UCX (PE %d): a malformed %s message (from PE %d)\n", me, what, from);
    return 0;
}

/* Applies a put-with-signal to this PE's segment: the data, then the
 * signal by a sequentially consistent read-modify-write, so a reader that
 * sees the signal (acquire) sees the data. Handlers run inside
 * ucp_worker_progress, one at a time (the worker's lock in MULTI mode). */
static ucs_status_t on_put_signal(void *arg, const void *header, size_t header_len, void *data, size_t len,
                                  const ucp_am_recv_param_t *param) {
    (void)arg;
    put_signal_head_t h;
    if (header_len != sizeof h || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        fprintf(stderr, "rshmem UCX (PE %d): a malformed put-with-signal message (header %zu bytes)\n", me,
                header_len);
        return UCS_OK;
    }
    memcpy(&h, header, sizeof h);
    if (!valid_sender(h.from, param, "put-with-signal")) return UCS_OK;
    if (h.off > seg_len || len > seg_len - h.off || h.sig_off > seg_len - 8 || h.sig_off % 8 != 0) {
        fprintf(stderr,
                "rshmem UCX (PE %d): a put-with-signal from PE %d outside the segment (%llu bytes at %llu, "
                "signal at %llu, segment %llu bytes)\n",
                me, h.from, (unsigned long long)len, (unsigned long long)h.off, (unsigned long long)h.sig_off,
                (unsigned long long)seg_len);
        return UCS_OK;
    }
    if (len > 0) memcpy(seg_base + h.off, data, len);
    uint64_t *sig = (uint64_t *)(void *)(seg_base + h.sig_off);
    uint64_t old = h.op == RUC_ADD ? __atomic_fetch_add(sig, h.value, __ATOMIC_SEQ_CST)
                                   : __atomic_exchange_n(sig, h.value, __ATOMIC_SEQ_CST);
    if (h.token != 0) send_reply(param->reply_ep, AM_OLD_VALUE, (reply_t){h.token, old, me, 0}, h.from);
    if (h.tracked) {
        peers[h.from].applied++;
        answer_flush(h.from);
    }
    return UCS_OK;
}

static ucs_status_t on_old_value(void *arg, const void *header, size_t header_len, void *data, size_t len,
                                 const ucp_am_recv_param_t *param) {
    (void)arg, (void)data, (void)len, (void)param;
    reply_t r;
    if (!as_reply(header, header_len, &r)) return UCS_OK;
    waiter_t *w = (waiter_t *)(uintptr_t)r.token;
    w->old = r.value;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return UCS_OK;
}

/* A flush request: remembered (the highest count asked for) until this PE
 * has applied that many of the sender's messages, answered at once if it
 * has. */
static ucs_status_t on_flush(void *arg, const void *header, size_t header_len, void *data, size_t len,
                             const ucp_am_recv_param_t *param) {
    (void)arg, (void)data, (void)len;
    reply_t r;
    if (!as_reply(header, header_len, &r) || !valid_sender(r.from, param, "flush")) return UCS_OK;
    peer_t *p = &peers[r.from];
    if (r.value > p->want) p->want = r.value;
    p->want_ep = param->reply_ep;
    answer_flush(r.from);
    return UCS_OK;
}

static ucs_status_t on_flushed(void *arg, const void *header, size_t header_len, void *data, size_t len,
                               const ucp_am_recv_param_t *param) {
    (void)arg, (void)data, (void)len, (void)param;
    reply_t r;
    if (!as_reply(header, header_len, &r) || r.from < 0 || r.from >= npes) return UCS_OK;
    peer_t *p = &peers[r.from];
    uint64_t was = __atomic_load_n(&p->flushed, __ATOMIC_ACQUIRE);
    while (r.value > was &&
           !__atomic_compare_exchange_n(&p->flushed, &was, r.value, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
    if (r.value > was) __atomic_fetch_add(&am_flushed, r.value - was, __ATOMIC_RELEASE);
    return UCS_OK;
}

/* Asks pe to answer once it has applied `want` of this PE's tracked
 * messages. */
static void request_flush(int pe, uint64_t want) {
    peer_t *p = &peers[pe];
    __atomic_store_n(&p->requested, want, __ATOMIC_RELEASE);
    reply_t r = {0, want, me, 0};
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
        .flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY,
    };
    /* Waited for: the header is on this stack. */
    if (wait_req(ucp_am_send_nbx(p->ep, AM_FLUSH, &r, sizeof r, NULL, 0, &param), "ucp_am_send_nbx (flush)", pe) !=
        0) {
        /* The wait for the answer then never ends: the hang report names
         * the quiet, and this line why. */
        fprintf(stderr, "rshmem UCX (PE %d): %s\n", me, err);
        __atomic_store_n(&p->requested, 0, __ATOMIC_RELEASE);
    }
}

/* A put-with-signal message left: its buffer goes; a failure is kept for
 * the next ruc_quiet to report (as a non-blocking operation's). */
static void message_sent(void *req, ucs_status_t st, void *user) {
    am_buf_t *b = user;
    if (st != UCS_OK && __atomic_load_n(&deferred, __ATOMIC_RELAXED) == UCS_OK) {
        __atomic_store_n(&deferred_pe, b->pe, __ATOMIC_RELAXED);
        __atomic_store_n(&deferred, st, __ATOMIC_RELAXED);
    }
    free(b);
    ucp_request_free(req);
}

/* Progresses until pe has applied every tracked message sent to it so far
 * (one flush request, unless one that covers them is out already). */
static void flush_messages_to(int pe) {
    peer_t *p = &peers[pe];
    uint64_t want = __atomic_load_n(&p->sent, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&p->flushed, __ATOMIC_ACQUIRE) >= want) return;
    if (__atomic_load_n(&p->requested, __ATOMIC_ACQUIRE) < want) request_flush(pe, want);
    unsigned idle = 0;
    while (__atomic_load_n(&p->flushed, __ATOMIC_ACQUIRE) < want) poll_once(&idle);
}

/* Whether every PE with messages outstanding (every = 0: only those whose
 * operations may take more than one lane, for a fence) has applied them;
 * asks those that have not and were not asked yet, without waiting. */
static int messages_flushed(int every) {
    if (__atomic_load_n(&am_flushed, __ATOMIC_ACQUIRE) == __atomic_load_n(&am_sent, __ATOMIC_ACQUIRE)) return 1;
    lock_if_multi();
    uint64_t n = connected;
    unlock_if_multi();
    int all = 1;
    for (uint64_t i = 0; i < n; i++) {
        peer_t *p = &peers[connected_pes[i]];
        uint64_t want = __atomic_load_n(&p->sent, __ATOMIC_ACQUIRE);
        if (!(every || !p->one_lane) || __atomic_load_n(&p->flushed, __ATOMIC_ACQUIRE) >= want) continue;
        all = 0;
        if (__atomic_load_n(&p->requested, __ATOMIC_ACQUIRE) < want) request_flush(connected_pes[i], want);
    }
    return all;
}

/* flush_messages_to every PE with messages outstanding (every as in
 * messages_flushed), all requests sent before the first wait. */
static void flush_messages(int every) {
    if (messages_flushed(every)) return;
    lock_if_multi();
    uint64_t n = connected;
    unlock_if_multi();
    for (uint64_t i = 0; i < n; i++)
        if (every || !peers[connected_pes[i]].one_lane) flush_messages_to(connected_pes[i]);
}

/* Whether every operation on ep travels one lane: UCX prints one lane, and
 * it carries no RMA or atomics of a transport's own (so puts, gets and
 * atomics are UCX's software ones, active messages on that lane, as over
 * TCP). Then the target handles them and this shim's messages in the order
 * sent, and a fence needs no flush. Read from ucp_ep_print_info, the only
 * place UCX 1.13 tells; anything unexpected answers 0 (flush). */
static int one_lane(ucp_ep_h ep) {
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (f == NULL) return 0;
    ucp_ep_print_info(ep, f);
    fclose(f);
    int lanes = 0, own_rma = 0;
    for (char *line = text; line != NULL && *line != '\0';) {
        char *end = strchr(line, '\n');
        if (end != NULL) *end = '\0';
        if (strstr(line, "lane[") != NULL) {
            lanes++;
            if (strstr(line, " rma") != NULL || strstr(line, " amo") != NULL) own_rma = 1;
        }
        line = end != NULL ? end + 1 : NULL;
    }
    free(text);
    return lanes == 1 && !own_rma;
}

int ruc_init(int want_multi, int my_pe, int n, void *base, uint64_t len, size_t *card_len) {
    if (context != NULL) return failf("ruc_init: already initialised");
    if (my_pe < 0 || my_pe >= n) return failf("ruc_init: PE %d of %d", my_pe, n);
    me = my_pe;
    npes = n;
    multi = want_multi;
    ucp_config_t *config;
    ucs_status_t st = ucp_config_read(NULL, NULL, &config);
    if (st != UCS_OK) return fail("ucp_config_read", -1, st);
    /* Active messages (put-with-signal) are sent eagerly only, so no
     * endpoint needs rendezvous lanes: without this, enabling them adds a
     * connection per further network device to every endpoint, and each
     * progress call polls it (a barrier at 2x2 over TCP took 150 us
     * instead of 90). Unless the user chose. */
    if (getenv("UCX_MAX_RNDV_LANES") == NULL) {
        st = ucp_config_modify(config, "MAX_RNDV_LANES", "0");
        if (st != UCS_OK) {
            ucp_config_release(config);
            return fail("ucp_config_modify(MAX_RNDV_LANES=0)", -1, st);
        }
    }
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM,
        .mt_workers_shared = 0,
        .estimated_num_eps = (size_t)n,
    };
    st = ucp_init(&params, config, &context);
    ucp_config_release(config);
    if (st != UCS_OK) return fail("ucp_init", -1, st);
    ucp_worker_params_t wp = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = want_multi ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SERIALIZED,
    };
    st = ucp_worker_create(context, &wp, &worker);
    if (st != UCS_OK) return fail("ucp_worker_create", -1, st);
    seg_base = base;
    seg_len = len;
    static const struct {
        unsigned id;
        ucp_am_recv_callback_t cb;
    } handlers[] = {
        {AM_PUT_SIGNAL, on_put_signal},
        {AM_OLD_VALUE, on_old_value},
        {AM_FLUSH, on_flush},
        {AM_FLUSHED, on_flushed},
    };
    for (size_t i = 0; i < sizeof handlers / sizeof *handlers; i++) {
        ucp_am_handler_param_t hp = {
            .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                          UCP_AM_HANDLER_PARAM_FIELD_CB,
            .id = handlers[i].id,
            .flags = UCP_AM_FLAG_WHOLE_MSG,
            .cb = handlers[i].cb,
        };
        st = ucp_worker_set_am_recv_handler(worker, &hp);
        if (st != UCS_OK) return fail("ucp_worker_set_am_recv_handler", -1, st);
    }
    ucp_mem_map_params_t mp = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
        .address = base,
        .length = len,
    };
    st = ucp_mem_map(context, &mp, &memh);
    if (st != UCS_OK) return fail("ucp_mem_map of this PE's segment", -1, st);
    void *rkey_buf;
    size_t rkey_len;
    st = ucp_rkey_pack(context, memh, &rkey_buf, &rkey_len);
    if (st != UCS_OK) return fail("ucp_rkey_pack", -1, st);
    ucp_address_t *addr;
    size_t addr_len;
    st = ucp_worker_get_address(worker, &addr, &addr_len);
    if (st != UCS_OK) {
        ucp_rkey_buffer_release(rkey_buf);
        return fail("ucp_worker_get_address", -1, st);
    }
    my_card_len = sizeof(card_head_t) + addr_len + rkey_len;
    my_card = malloc(my_card_len);
    peers = calloc((size_t)n, sizeof *peers);
    connected_pes = calloc((size_t)n, sizeof *connected_pes);
    if (my_card == NULL || peers == NULL || connected_pes == NULL) {
        ucp_worker_release_address(worker, addr);
        ucp_rkey_buffer_release(rkey_buf);
        return failf("ruc_init: out of memory for %d peers", n);
    }
    card_head_t head = {(uint64_t)(uintptr_t)base, (uint32_t)addr_len, (uint32_t)rkey_len};
    memcpy(my_card, &head, sizeof head);
    memcpy(my_card + sizeof head, addr, addr_len);
    memcpy(my_card + sizeof head + addr_len, rkey_buf, rkey_len);
    ucp_worker_release_address(worker, addr);
    ucp_rkey_buffer_release(rkey_buf);
    *card_len = my_card_len;
    return 0;
}

int ruc_card(void *out, size_t cap) {
    if (my_card == NULL) return failf("ruc_card: ruc_init was not called");
    if (cap < my_card_len) return failf("ruc_card: %zu bytes of room for a card of %zu", cap, my_card_len);
    memcpy(out, my_card, my_card_len);
    return 0;
}

int ruc_peers(const void *all, size_t stride) {
    if (peers == NULL) return failf("ruc_peers: ruc_init was not called");
    if (stride < sizeof(card_head_t)) return failf("ruc_peers: cards of %zu bytes", stride);
    cards = malloc(stride * (size_t)npes);
    if (cards == NULL) return failf("ruc_peers: out of memory for %d cards of %zu bytes", npes, stride);
    memcpy(cards, all, stride * (size_t)npes);
    card_stride = stride;
    for (int pe = 0; pe < npes; pe++) {
        card_head_t head;
        memcpy(&head, cards + (size_t)pe * stride, sizeof head);
        if (sizeof head + (size_t)head.addr_len + head.rkey_len > stride)
            return failf("ruc_peers: PE %d's card (%u + %u bytes) is longer than %zu", pe, head.addr_len,
                         head.rkey_len, stride);
        peers[pe].base = head.base;
    }
    return 0;
}

/* Makes pe's endpoint and remote key (first use). */
static int connect_pe(int pe) {
    peer_t *p = &peers[pe];
    lock_if_multi();
    if (p->ready) {
        unlock_if_multi();
        return 0;
    }
    card_head_t head;
    const unsigned char *card = cards + (size_t)pe * card_stride;
    memcpy(&head, card, sizeof head);
    ucp_ep_params_t ep_params = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
        .address = (const ucp_address_t *)(card + sizeof head),
    };
    ucs_status_t st = ucp_ep_create(worker, &ep_params, &p->ep);
    if (st == UCS_OK) {
        st = ucp_ep_rkey_unpack(p->ep, card + sizeof head + head.addr_len, &p->rkey);
        if (st != UCS_OK) {
            unlock_if_multi();
            return fail("ucp_ep_rkey_unpack", pe, st);
        }
        p->one_lane = one_lane(p->ep);
        connected_pes[connected++] = pe;
        __atomic_store_n(&p->ready, 1, __ATOMIC_RELEASE);
    }
    unlock_if_multi();
    return st == UCS_OK ? 0 : fail("ucp_ep_create", pe, st);
}

/* pe's record, connected; NULL (with the error set) on failure. */
static inline peer_t *peer(int pe) {
    if (pe < 0 || pe >= npes || cards == NULL) {
        failf("rshmem UCX: PE %d is not in 0..%d (or ruc_peers was not called)", pe, npes);
        return NULL;
    }
    peer_t *p = &peers[pe];
    if (!__atomic_load_n(&p->ready, __ATOMIC_ACQUIRE) && connect_pe(pe) != 0) return NULL;
    return p;
}

static inline void wrote(void) {
    __atomic_store_n(&written_since_fence, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&written_since_flush, 1, __ATOMIC_RELAXED);
}

/* A read (get, atomic) of pe sees this PE's earlier writes (pe < 0: any
 * later operation to any PE is ordered after them). */
static inline int order_after_writes(int pe) {
    if (pe < 0) {
        flush_messages(0);
        if (__atomic_load_n(&written_since_fence, __ATOMIC_RELAXED))
            __atomic_store_n(&fenced_writes, 1, __ATOMIC_RELAXED);
    } else if (!peers[pe].one_lane) {
        flush_messages_to(pe);
    }
    if (!__atomic_load_n(&written_since_fence, __ATOMIC_RELAXED)) return 0;
    __atomic_store_n(&written_since_fence, 0, __ATOMIC_RELAXED);
    ucs_status_t st = ucp_worker_fence(worker);
    return st == UCS_OK ? 0 : fail("ucp_worker_fence", -1, st);
}

static const ucp_request_param_t no_param = {.op_attr_mask = 0};

int ruc_put(int pe, uint64_t off, const void *src, uint64_t len, int blocking) {
    peer_t *p = peer(pe);
    if (p == NULL) return -1;
    ucs_status_ptr_t r = ucp_put_nbx(p->ep, src, len, p->base + off, p->rkey, &no_param);
    wrote();
    if (blocking) return wait_req(r, "ucp_put_nbx", pe);
    if (UCS_PTR_IS_ERR(r)) return fail("ucp_put_nbx", pe, UCS_PTR_STATUS(r));
    /* The flush of ruc_quiet completes it. */
    if (r != NULL) ucp_request_free(r);
    return 0;
}

int ruc_get(int pe, uint64_t off, void *dst, uint64_t len, int blocking) {
    peer_t *p = peer(pe);
    if (p == NULL || order_after_writes(pe) != 0) return -1;
    ucs_status_ptr_t r = ucp_get_nbx(p->ep, dst, len, p->base + off, p->rkey, &no_param);
    return blocking ? wait_req(r, "ucp_get_nbx", pe) : keep_req(r, "ucp_get_nbx", pe);
}

int ruc_put_strided(int pe, uint64_t off, int64_t remote_stride, const void *local, int64_t local_stride,
                    uint64_t elem_size, uint64_t n) {
    peer_t *p = peer(pe);
    if (p == NULL) return -1;
    const char *src = local;
    for (uint64_t i = 0; i < n; i++) {
        ucs_status_ptr_t r = ucp_put_nbx(p->ep, src + (int64_t)i * local_stride, elem_size,
                                         p->base + off + (int64_t)i * remote_stride, p->rkey, &no_param);
        if (wait_req(r, "ucp_put_nbx (strided)", pe) != 0) return -1;
    }
    wrote();
    return 0;
}

int ruc_get_strided(int pe, uint64_t off, int64_t remote_stride, void *local, int64_t local_stride,
                    uint64_t elem_size, uint64_t n) {
    peer_t *p = peer(pe);
    if (p == NULL || order_after_writes(pe) != 0) return -1;
    char *dst = local;
    /* Every element in flight at once; the last request completes after the
     * others only if UCX completes them in order, so each is waited for. */
    void *stack[64];
    void **reqs = n <= 64 ? stack : malloc(n * sizeof *reqs);
    if (reqs == NULL) return failf("ucp_get_nbx (strided) to PE %d: out of memory for %llu requests", pe,
                                   (unsigned long long)n);
    int rc = 0;
    uint64_t issued = 0;
    for (; issued < n; issued++) {
        reqs[issued] = ucp_get_nbx(p->ep, dst + (int64_t)issued * local_stride, elem_size,
                                   p->base + off + (int64_t)issued * remote_stride, p->rkey, &no_param);
        if (UCS_PTR_IS_ERR(reqs[issued])) {
            rc = fail("ucp_get_nbx (strided)", pe, UCS_PTR_STATUS(reqs[issued]));
            break;
        }
    }
    for (uint64_t i = 0; i < issued; i++)
        if (wait_req(reqs[i], "ucp_get_nbx (strided)", pe) != 0) rc = -1;
    if (reqs != stack) free(reqs);
    return rc;
}

int ruc_amo(int pe, uint64_t off, int op, int size, uint64_t operand, uint64_t compare, void *result, int blocking) {
    if (size != 4 && size != 8) return failf("ruc_amo to PE %d: size %d is not 4 or 8", pe, size);
    static const ucp_atomic_op_t codes[] = {
        [RUC_FETCH] = UCP_ATOMIC_OP_ADD, [RUC_SWAP] = UCP_ATOMIC_OP_SWAP, [RUC_CSWAP] = UCP_ATOMIC_OP_CSWAP,
        [RUC_ADD] = UCP_ATOMIC_OP_ADD,   [RUC_AND] = UCP_ATOMIC_OP_AND,   [RUC_OR] = UCP_ATOMIC_OP_OR,
        [RUC_XOR] = UCP_ATOMIC_OP_XOR,
    };
    if (op < RUC_FETCH || op > RUC_XOR) return failf("ruc_amo to PE %d: operation %d", pe, op);
    if (result == NULL && blocking)
        return failf("ruc_amo to PE %d: a blocking operation %d needs a result", pe, op);
    /* A swap (which UCP always fetches) whose result nobody reads: into
     * `discard`. Not a compare-and-swap, whose reply buffer also holds the
     * value to swap in. */
    if (result == NULL && op == RUC_CSWAP) return failf("ruc_amo to PE %d: a compare-and-swap needs a result", pe);
    if (result == NULL && (op == RUC_FETCH || op == RUC_SWAP)) result = &discard;
    peer_t *p = peer(pe);
    if (p == NULL || order_after_writes(pe) != 0) return -1;
    /* Values in their low `size` bytes, as UCX reads them (little- and
     * big-endian alike: copied out of the integer of that size). */
    uint32_t o32 = (uint32_t)operand, c32 = (uint32_t)compare;
    uint64_t o64 = operand, c64 = compare;
    if (op == RUC_FETCH) o32 = 0, o64 = 0;
    /* CSWAP compares with `buffer` and swaps in the reply buffer's value. */
    const void *buffer = op == RUC_CSWAP ? (size == 4 ? (void *)&c32 : (void *)&c64)
                                         : (size == 4 ? (void *)&o32 : (void *)&o64);
    union {
        uint32_t u32;
        uint64_t u64;
    } reply;
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
        .datatype = ucp_dt_make_contig((size_t)size),
    };
    if (result != NULL) {
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        /* Blocking: a word of the shim's (the caller's may be unaligned);
         * non-blocking: the caller's, which lives until ruc_quiet. */
        param.reply_buffer = blocking ? (void *)&reply : result;
        if (op == RUC_CSWAP) {
            if (size == 4)
                memcpy(param.reply_buffer, &o32, 4);
            else
                memcpy(param.reply_buffer, &o64, 8);
        }
    }
    ucs_status_ptr_t r = ucp_atomic_op_nbx(p->ep, codes[op], buffer, 1, p->base + off, p->rkey, &param);
    if (result == NULL) {
        /* Posted: UCX copied the operand; ruc_quiet's flush completes it. */
        wrote();
        if (UCS_PTR_IS_ERR(r)) return fail("ucp_atomic_op_nbx", pe, UCS_PTR_STATUS(r));
        if (r != NULL) ucp_request_free(r);
        return 0;
    }
    if (!blocking) {
        wrote();
        return keep_req(r, "ucp_atomic_op_nbx", pe);
    }
    if (wait_req(r, "ucp_atomic_op_nbx", pe) != 0) return -1;
    memcpy(result, &reply, (size_t)size);
    return 0;
}

int ruc_put_signal(int pe, uint64_t off, const void *src, uint64_t len, uint64_t sig_off, int op, uint64_t value,
                   uint64_t *old, int untracked) {
    if (op != RUC_SWAP && op != RUC_ADD) return failf("ruc_put_signal to PE %d: operation %d", pe, op);
    if (len > RUC_PUT_SIGNAL_AM_MAX) {
        if (ruc_put(pe, off, src, len, 1) != 0 || ruc_fence() != 0) return -1;
        return ruc_amo(pe, sig_off, op, 8, value, 0, old, old != NULL);
    }
    peer_t *p = peer(pe);
    if (p == NULL) return -1;
    if (!p->one_lane && __atomic_load_n(&fenced_writes, __ATOMIC_RELAXED)) {
        /* Writes before a fence, which may travel on another lane than
         * this message: complete them first. */
        __atomic_store_n(&fenced_writes, 0, __ATOMIC_RELAXED);
        if (__atomic_load_n(&written_since_flush, __ATOMIC_RELAXED)) {
            __atomic_store_n(&written_since_flush, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&written_since_fence, 0, __ATOMIC_RELAXED);
            if (wait_req(ucp_worker_flush_nbx(worker, &no_param), "ucp_worker_flush_nbx", -1) != 0) return -1;
        }
    }
    /* Counted only when a quiet must complete it: not when its reply does
     * (old), nor for a library inbox (untracked). */
    int tracked = old == NULL && !untracked;
    waiter_t w = {0, 0};
    /* The header and a copy of the data, freed when UCX has sent them: the
     * call returns at once with src reusable, as a buffered put does (UCX
     * queues a message behind this PE's earlier puts to pe; waiting for it
     * to leave would wait for them). */
    am_buf_t *b = malloc(sizeof *b + len);
    if (b == NULL)
        return failf("ruc_put_signal to PE %d: out of memory for a %llu-byte message", pe, (unsigned long long)len);
    b->pe = pe;
    b->h = (put_signal_head_t){off, sig_off, value, old != NULL ? (uint64_t)(uintptr_t)&w : 0, me, op, tracked, 0};
    if (len > 0) memcpy(b->data, src, len);
    if (tracked) {
        __atomic_fetch_add(&p->sent, 1, __ATOMIC_RELEASE);
        __atomic_fetch_add(&am_sent, 1, __ATOMIC_RELEASE);
    }
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS,
        .cb.send = message_sent,
        .user_data = b,
        .flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY,
    };
    ucs_status_ptr_t r = ucp_am_send_nbx(p->ep, AM_PUT_SIGNAL, &b->h, sizeof b->h, b->data, len, &param);
    if (r == NULL) {
        free(b);
    } else if (UCS_PTR_IS_ERR(r)) {
        free(b);
        if (tracked) {
            __atomic_fetch_sub(&p->sent, 1, __ATOMIC_RELEASE);
            __atomic_fetch_sub(&am_sent, 1, __ATOMIC_RELEASE);
        }
        return fail("ucp_am_send_nbx", pe, UCS_PTR_STATUS(r));
    }
    if (old != NULL) {
        unsigned idle = 0;
        while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE)) poll_once(&idle);
        *old = w.old;
    }
    return 0;
}

int ruc_fence(void) { return order_after_writes(-1); }

/* The worker flush a ruc_quiet_test started, until one of them sees it
 * complete (NULL: none in flight). Under the lock. */
static ucs_status_ptr_t test_flush;

int ruc_fence_test(void) {
    ucp_worker_progress(worker);
    if (!messages_flushed(0)) return 0;
    return ruc_fence() == 0 ? 1 : -1;
}

int ruc_quiet_test(void) {
    ucp_worker_progress(worker);
    int done = 1, rc = 0;
    lock_if_multi();
    sweep_pending();
    if (n_pending > 0) done = 0;
    ucs_status_ptr_t f = test_flush;
    if (f != NULL) {
        ucs_status_t st = ucp_request_check_status(f);
        if (st == UCS_INPROGRESS) {
            done = 0;
        } else {
            ucp_request_free(f);
            test_flush = NULL;
            if (st != UCS_OK) rc = fail("ucp_worker_flush_nbx", -1, st);
        }
    }
    /* Writes since the last flush (including after the one just seen
     * complete): a new flush, not waited for. */
    if (test_flush == NULL && __atomic_load_n(&written_since_flush, __ATOMIC_RELAXED)) {
        __atomic_store_n(&written_since_flush, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&written_since_fence, 0, __ATOMIC_RELAXED);
        ucs_status_ptr_t r = ucp_worker_flush_nbx(worker, &no_param);
        if (UCS_PTR_IS_ERR(r)) {
            rc = fail("ucp_worker_flush_nbx", -1, UCS_PTR_STATUS(r));
        } else if (r != NULL) {
            test_flush = r;
            done = 0;
        }
    }
    unlock_if_multi();
    if (take_deferred() != 0) rc = -1;
    if (!messages_flushed(1)) done = 0;
    if (rc != 0) return -1;
    if (done) __atomic_store_n(&fenced_writes, 0, __ATOMIC_RELAXED);
    return done;
}

int ruc_quiet(void) {
    int rc = 0;
    lock_if_multi();
    ucs_status_ptr_t started = test_flush;
    test_flush = NULL;
    unlock_if_multi();
    if (wait_req(started, "ucp_worker_flush_nbx", -1) != 0) rc = -1;
    lock_if_multi();
    pending_t *list = pending;
    size_t n = n_pending;
    pending = NULL;
    n_pending = cap_pending = 0;
    unlock_if_multi();
    if (n > 0) {
        for (size_t i = 0; i < n; i++)
            if (wait_req(list[i].req, list[i].call, list[i].pe) != 0) rc = -1;
        free(list);
    }
    if (take_deferred() != 0) rc = -1;
    flush_messages(1);
    if (__atomic_load_n(&written_since_flush, __ATOMIC_RELAXED)) {
        __atomic_store_n(&written_since_flush, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&written_since_fence, 0, __ATOMIC_RELAXED);
        if (wait_req(ucp_worker_flush_nbx(worker, &no_param), "ucp_worker_flush_nbx", -1) != 0) rc = -1;
    }
    __atomic_store_n(&fenced_writes, 0, __ATOMIC_RELAXED);
    return rc;
}

int ruc_progress(void) {
    ucp_worker_h w = __atomic_load_n(&worker, __ATOMIC_ACQUIRE);
    return w != NULL ? (int)ucp_worker_progress(w) : 0;
}

void ruc_footprint(uint64_t *n_peers, uint64_t *bytes) {
    *n_peers = connected;
    *bytes = (uint64_t)npes * sizeof(peer_t) + (uint64_t)npes * card_stride + my_card_len;
}

int ruc_close_start(void) {
    if (worker == NULL) return 0;
    int rc = ruc_quiet();
    closing = calloc((size_t)npes, sizeof *closing);
    if (closing == NULL) return failf("ruc_close_start: out of memory");
    ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = 0};
    n_closing = 0;
    for (int pe = 0; pe < npes; pe++) {
        peer_t *p = &peers[pe];
        if (!p->ready) continue;
        ucp_rkey_destroy(p->rkey);
        ucs_status_ptr_t r = ucp_ep_close_nbx(p->ep, &param);
        p->ready = 0;
        p->ep = NULL;
        if (UCS_PTR_IS_ERR(r)) {
            rc = fail("ucp_ep_close_nbx", pe, UCS_PTR_STATUS(r));
            continue;
        }
        if (r != NULL) closing[n_closing++] = r;
    }
    return rc;
}

int ruc_close_test(int *done) {
    *done = 1;
    if (worker == NULL) return 0;
    ucp_worker_progress(worker);
    int rc = 0;
    for (size_t i = 0; i < n_closing; i++) {
        if (closing[i] == NULL) continue;
        ucs_status_t st = ucp_request_check_status(closing[i]);
        if (st == UCS_INPROGRESS) {
            *done = 0;
            continue;
        }
        ucp_request_free(closing[i]);
        closing[i] = NULL;
        /* A peer that closed first may have reset the connection. */
        if (st != UCS_OK && st != UCS_ERR_CONNECTION_RESET && st != UCS_ERR_ENDPOINT_TIMEOUT)
            rc = fail("ucp_ep_close_nbx", -1, st);
    }
    return rc;
}

int ruc_finalize(void) {
    if (context == NULL) return 0;
    if (memh != NULL) ucp_mem_unmap(context, memh);
    memh = NULL;
    ucp_worker_h w = worker;
    __atomic_store_n(&worker, NULL, __ATOMIC_RELEASE);
    if (w != NULL) ucp_worker_destroy(w);
    ucp_cleanup(context);
    context = NULL;
    free(closing);
    free(cards);
    free(peers);
    free(connected_pes);
    free(my_card);
    closing = NULL;
    cards = NULL;
    peers = NULL;
    connected_pes = NULL;
    my_card = NULL;
    return 0;
}
