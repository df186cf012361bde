/* rshmem-test
 * np: 1 2 3 4 8
 * stdout: Passed
 */
/* A program written for OSHMPI's space extension, in the shape of OSHMPI's
 * tests/space_ctx_int_put.c: a space of 1 MiB with one context, created with only
 * sheap_size, num_contexts and memkind set (device_handle and hints are left as such a
 * program leaves them: unset), attached to the world, two arrays allocated in it, a
 * context created from it, puts of ITER chunks on that context to the right neighbour
 * (world rank (me + 1) % npes, the space's team being the world) with a quiet after
 * each, a barrier, a check of every element, the arrays given back with plain
 * shmem_free, then the context destroyed, the space detached and destroyed.
 * Beyond OSHMPI's test: shmemx_space_create_ctx returns 0 and a real context the first
 * time and non-zero with SHMEM_CTX_INVALID the second time (num_contexts is 1), the
 * two arrays are distinct and the source is untouched. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE 10
#define ITER 10

static void reset_data(int mype, int size, int iter, int *src, int *dst) {
    for (int i = 0; i < size * iter; i++) {
        src[i] = mype + i;
        dst[i] = 0;
    }
}

/* dst must hold what the left neighbour's src held: left + i. */
static int check_data(int left, int size, int iter, const int *dst) {
    int errs = 0;
    for (int i = 0; i < size * iter; i++) {
        if (dst[i] != left + i) {
            if (errs < 10)
                fprintf(stderr, "FAIL: PE %d: expected %d at dst[%d], but %d\n", shmem_my_pe(), left + i, i, dst[i]);
            errs++;
        }
    }
    return errs;
}

int main(void) {
    int mype, npes, errs = 0;
    int x;

    shmem_init();
    mype = shmem_my_pe();
    npes = shmem_n_pes();
    int right = (mype + 1) % npes, left = (mype + npes - 1) % npes;

    shmemx_space_config_t space_config;
    shmemx_space_t space;

    space_config.sheap_size = 1 << 20;
    space_config.num_contexts = 1;
    space_config.memkind = SHMEMX_MEM_HOST;
    shmemx_space_create(space_config, &space);
    shmemx_space_attach(space);

    int *src = shmemx_space_malloc(space, SIZE * ITER * sizeof(int));
    int *dst = shmemx_space_malloc(space, SIZE * ITER * sizeof(int));
    if (src == NULL || dst == NULL || src == dst) {
        fprintf(stderr, "FAIL: PE %d: shmemx_space_malloc gave src %p, dst %p\n", mype, (void *)src, (void *)dst);
        return 1;
    }

    shmem_ctx_t space_ctx = SHMEM_CTX_INVALID;
    int rc = shmemx_space_create_ctx(space, 0, &space_ctx);
    if (rc != 0 || space_ctx == SHMEM_CTX_INVALID || space_ctx == SHMEM_CTX_DEFAULT) {
        fprintf(stderr, "FAIL: PE %d: shmemx_space_create_ctx returned %d, ctx %p\n", mype, rc, (void *)space_ctx);
        return 1;
    }
    shmem_ctx_t extra = SHMEM_CTX_DEFAULT;
    rc = shmemx_space_create_ctx(space, 0, &extra);
    if (rc == 0 || extra != SHMEM_CTX_INVALID) {
        fprintf(stderr,
                "FAIL: PE %d: a second shmemx_space_create_ctx on a space with num_contexts 1 returned %d, ctx %p "
                "(want non-zero and SHMEM_CTX_INVALID)\n",
                mype, rc, (void *)extra);
        return 1;
    }

    reset_data(mype, SIZE, ITER, src, dst);
    shmem_barrier_all();

    for (x = 0; x < ITER; x++) {
        int off = x * SIZE;
        shmem_ctx_int_put(space_ctx, &dst[off], &src[off], SIZE, right);
        shmem_ctx_quiet(space_ctx);
    }

    shmem_barrier_all();

    errs += check_data(left, SIZE, ITER, dst);
    for (int i = 0; i < SIZE * ITER; i++)
        if (src[i] != mype + i) {
            fprintf(stderr, "FAIL: PE %d: src[%d] changed to %d\n", mype, i, src[i]);
            errs++;
            break;
        }

    shmem_free(dst);
    shmem_free(src);

    shmem_ctx_destroy(space_ctx);
    shmemx_space_detach(space);
    shmemx_space_destroy(space);
    shmem_finalize();

    if (errs != 0)
        return 1;
    if (mype == 0)
        printf("Passed\n");
    return 0;
}
