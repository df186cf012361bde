/* rshmem-test
 * np: 1 2 3 4 8
 * variant: RSHMEM_NBC_THREAD=on off
 * stdout: public branch style ok
 */
/* A program written against the public Open MPI branch of the non-blocking collectives
 * (wfaderhold21/ompi, branch nb_scoll): only <shmem.h> and <shmemx.h>, the shmemx_ names
 * (shmemx_TYPENAME_alltoall_nb, shmemx_alltoall32_nb/64_nb, shmemx_alltoallmem_nb,
 * shmemx_TYPENAME_broadcast_nb, the generic shmemx_alltoall_nb and shmemx_broadcast_nb),
 * shmem_req_h and SHMEM_REQ_INVALID, shmem_req_test/shmem_req_wait, plus shmem_sync_nb and
 * shmem_team_sync_nb. It must compile unchanged and give the blocking routines' results. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#define NELEMS 4

static int64_t src64[8 * NELEMS], dst64[8 * NELEMS];
static int32_t src32[8 * NELEMS], dst32[8 * NELEMS];
static char srcc[8 * NELEMS], dstc[8 * NELEMS];
static long bsrc[NELEMS], bdst[NELEMS];
static double gsrc[8 * NELEMS], gdst[8 * NELEMS];

static void fail(const char *what, int i) {
    fprintf(stderr, "FAIL PE %d: %s at %d\n", shmem_my_pe(), what, i);
    exit(1);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t team = SHMEM_TEAM_WORLD;
    for (int iter = 0; iter < 5; iter++) {
        for (int i = 0; i < npes * NELEMS; i++) {
            src64[i] = (int64_t)me * 1000 + i + iter;
            src32[i] = me * 100 + i + iter;
            srcc[i] = (char)(me * 10 + i % 10);
            gsrc[i] = me + i * 0.5 + iter;
        }
        for (int i = 0; i < NELEMS; i++)
            bsrc[i] = me * 7 + i + iter;
        shmem_req_h req = SHMEM_REQ_INVALID, reqs[6];
        shmem_sync_nb(team, &req);
        shmem_req_wait(&req);
        shmemx_int64_alltoall_nb(team, dst64, src64, NELEMS, &reqs[0]);
        shmemx_alltoall32_nb(team, dst32, src32, NELEMS, &reqs[1]);
        shmemx_alltoallmem_nb(team, dstc, srcc, NELEMS, &reqs[2]);
        shmemx_long_broadcast_nb(team, bdst, bsrc, NELEMS, iter % npes, &reqs[3]);
        shmemx_alltoall_nb(team, gdst, gsrc, NELEMS, &reqs[4]);
        shmem_team_sync_nb(team, &reqs[5]);
        while (shmem_req_test(&reqs[0]) == 1)
            ;
        for (int k = 5; k >= 1; k--)
            shmem_req_wait(&reqs[k]);
        for (int k = 0; k < 6; k++)
            if (reqs[k] != SHMEM_REQ_INVALID)
                fail("request not SHMEM_REQ_INVALID after completion", k);
        for (int i = 0; i < npes * NELEMS; i++) {
            int from = i / NELEMS, j = me * NELEMS + i % NELEMS;
            if (dst64[i] != (int64_t)from * 1000 + j + iter)
                fail("shmemx_int64_alltoall_nb", i);
            if (dst32[i] != from * 100 + j + iter)
                fail("shmemx_alltoall32_nb", i);
            if (dstc[i] != (char)(from * 10 + j % 10))
                fail("shmemx_alltoallmem_nb", i);
            if (gdst[i] != from + j * 0.5 + iter)
                fail("shmemx_alltoall_nb (generic)", i);
        }
        for (int i = 0; i < NELEMS; i++)
            if (bdst[i] != (iter % npes) * 7 + i + iter)
                fail("shmemx_long_broadcast_nb", i);
        /* the generic broadcast, and shmemx_alltoall64_nb */
        shmemx_broadcast_nb(team, gdst, gsrc, NELEMS, 0, &req);
        shmem_req_wait(&req);
        for (int i = 0; i < NELEMS; i++)
            if (gdst[i] != i * 0.5 + iter)
                fail("shmemx_broadcast_nb (generic)", i);
        shmem_team_sync(team);
        shmemx_alltoall64_nb(team, dst64, src64, NELEMS, &req);
        shmem_req_wait(&req);
        for (int i = 0; i < npes * NELEMS; i++)
            if (dst64[i] != (int64_t)(i / NELEMS) * 1000 + me * NELEMS + i % NELEMS + iter)
                fail("shmemx_alltoall64_nb", i);
        shmem_barrier_all();
    }
    if (me == 0)
        printf("public branch style ok\n");
    shmem_finalize();
    return 0;
}
