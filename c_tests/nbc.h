/* Helpers shared by the non-blocking collective tests (included as "../nbc.h"): the ways
 * a program completes a set of requests, each checking the return values the library
 * describes (shmem_req_test: 0 done and the handle set to SHMEM_REQ_INVALID, 1 pending,
 * -1 for SHMEM_REQ_INVALID; shmem_req_wait: 0, -1 for SHMEM_REQ_INVALID; the shmemx_req_
 * routines on arrays). */
#ifndef RSHMEM_C_TESTS_NBC_H
#define RSHMEM_C_TESTS_NBC_H

#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>

#include "common.h"

enum {
    NBC_WAIT_REVERSE, /* shmem_req_wait, last initiated first */
    NBC_TEST_LOOP,    /* shmem_req_test on each, round and round, until all are done */
    NBC_WAIT_ORDER,   /* shmem_req_wait in initiation order */
    NBC_WAIT_ALL,     /* shmemx_req_wait_all */
    NBC_WAIT_ANY,     /* shmemx_req_wait_any until none is left */
    NBC_TEST_SOME,    /* shmemx_req_test_some, then shmemx_req_test_all, in a loop */
    NBC_MODES
};

static const char *const nbc_mode_names[NBC_MODES] = {"wait (reverse order)", "test loop", "wait (in order)",
                                                      "wait_all", "wait_any", "test_some/test_all"};

/* Completes the n requests of r (all valid) the way mode says; afterwards every handle is
 * SHMEM_REQ_INVALID and each routine's return values were as described. */
static inline void nbc_complete(shmem_req_h *r, size_t n, int mode) {
    const char *how = nbc_mode_names[mode % NBC_MODES];
    for (size_t i = 0; i < n; i++)
        CHECK(r[i] != SHMEM_REQ_INVALID, "%s: request %zu is SHMEM_REQ_INVALID before completion", how, i);
    switch (mode % NBC_MODES) {
    case NBC_WAIT_REVERSE:
        for (size_t i = n; i-- > 0;) {
            int ret = shmem_req_wait(&r[i]);
            CHECK(ret == 0, "%s: shmem_req_wait of request %zu returned %d", how, i, ret);
        }
        break;
    case NBC_WAIT_ORDER:
        for (size_t i = 0; i < n; i++) {
            int ret = shmem_req_wait(&r[i]);
            CHECK(ret == 0, "%s: shmem_req_wait of request %zu returned %d", how, i, ret);
        }
        break;
    case NBC_TEST_LOOP: {
        size_t left = n;
        for (long spins = 0; left > 0; spins++) {
            for (size_t i = 0; i < n; i++) {
                if (r[i] == SHMEM_REQ_INVALID) {
                    int ret = shmem_req_test(&r[i]);
                    CHECK(ret == -1, "%s: shmem_req_test of completed request %zu returned %d, want -1", how, i,
                          ret);
                    continue;
                }
                int ret = shmem_req_test(&r[i]);
                CHECK(ret == 0 || ret == 1, "%s: shmem_req_test of request %zu returned %d", how, i, ret);
                if (ret == 0) {
                    CHECK(r[i] == SHMEM_REQ_INVALID, "%s: request %zu completed but not set invalid", how, i);
                    left--;
                } else {
                    CHECK(r[i] != SHMEM_REQ_INVALID, "%s: request %zu pending but set invalid", how, i);
                }
            }
            CHECK(spins < 100000000L, "%s: %zu of %zu requests never completed", how, left, n);
        }
        break;
    }
    case NBC_WAIT_ALL: {
        int ret = shmemx_req_wait_all(r, n);
        CHECK(ret == 0, "%s: shmemx_req_wait_all of %zu requests returned %d", how, n, ret);
        break;
    }
    case NBC_WAIT_ANY:
        for (size_t k = 0; k < n; k++) {
            size_t i = shmemx_req_wait_any(r, n);
            CHECK(i < n, "%s: shmemx_req_wait_any returned %zu with %zu of %zu requests left", how, i, n - k, n);
            CHECK(r[i] == SHMEM_REQ_INVALID, "%s: shmemx_req_wait_any returned %zu, not set invalid", how, i);
        }
        {
            size_t i = shmemx_req_wait_any(r, n);
            CHECK(i == SIZE_MAX, "%s: shmemx_req_wait_any with no valid request returned %zu", how, i);
        }
        break;
    case NBC_TEST_SOME: {
        size_t left = n, idx[256];
        CHECK(n <= 256, "too many requests for test_some");
        for (long spins = 0; left > 0; spins++) {
            size_t got = shmemx_req_test_some(r, n, idx);
            CHECK(got <= left, "%s: shmemx_req_test_some returned %zu with %zu left", how, got, left);
            for (size_t k = 0; k < got; k++)
                CHECK(idx[k] < n && r[idx[k]] == SHMEM_REQ_INVALID,
                      "%s: shmemx_req_test_some reported index %zu, not completed", how, idx[k]);
            left -= got;
            if (left > 0 && spins % 2) {
                int ret = shmemx_req_test_all(r, n);
                CHECK(ret == 0 || ret == 1, "%s: shmemx_req_test_all returned %d", how, ret);
                size_t still = 0;
                for (size_t i = 0; i < n; i++)
                    still += r[i] != SHMEM_REQ_INVALID;
                CHECK((ret == 0) == (still == 0), "%s: shmemx_req_test_all returned %d with %zu pending", how, ret,
                      still);
                left = still;
            }
            CHECK(spins < 100000000L, "%s: %zu of %zu requests never completed", how, left, n);
        }
        size_t got = shmemx_req_test_some(r, n, idx);
        CHECK(n == 0 || got == SIZE_MAX, "%s: shmemx_req_test_some with no valid request returned %zu", how, got);
        int ret = shmemx_req_test_all(r, n);
        CHECK(n == 0 || ret == -1, "%s: shmemx_req_test_all with no valid request returned %d", how, ret);
        break;
    }
    }
    for (size_t i = 0; i < n; i++)
        CHECK(r[i] == SHMEM_REQ_INVALID, "%s: request %zu not SHMEM_REQ_INVALID after completion", how, i);
}

#endif
