/*
 * pipeline.c: streaming data around a ring of PEs with UPC-style semaphores.
 *
 * Every PE is a producer and a consumer at once: it streams CHUNKS chunks of BYTES
 * bytes to its right neighbour and receives as many from its left one. Each PE owns a
 * ring buffer of SLOTS slots that its left neighbour writes into; chunk c goes to slot
 * c % SLOTS. Two semaphores (shmemx.h) do all the synchronisation, point to point,
 * without barriers:
 *
 *   full    on the consumer: how many chunks are in its ring buffer and not yet read.
 *           The producer writes a chunk and posts 1 in one call,
 *           shmemx_memput_signal(slot, chunk, BYTES, full, 1, right): the post is seen
 *           only once the whole chunk is there. The consumer takes a batch of BATCH
 *           chunks at once with shmemx_sem_waitN(full, BATCH).
 *   credit  on the producer: how many slots of the right neighbour's ring buffer are
 *           free. The consumer grants all SLOTS at the start, and gives a batch's slots
 *           back with one shmemx_sem_postN(credit, BATCH, left) once it has read them;
 *           the producer takes them with shmemx_sem_waitN(credit, BATCH) before writing.
 *
 * So the producer never overwrites a chunk that has not been read, and the consumer
 * never reads a slot before its data is complete. Each PE sends a batch, then receives
 * one; with SLOTS >= BATCH this cannot deadlock (a PE's left neighbour needs nothing
 * from it but credits for slots it has already read).
 *
 * Both sides keep a checksum (64-bit FNV-1a) of the bytes, in order. At the end each
 * producer sends its checksum with one more shmemx_memput_signal (to a static variable:
 * globals are symmetric) on a boolean semaphore `done`; the consumer compares. Each PE
 * prints one line; PE 0 prints "pipeline ok" if every PE's data arrived intact.
 *
 * Build and run (see README.md):
 *   oshcc -O2 pipeline.c -o pipeline
 *   oshrun -np 4 ./pipeline --chunks 10000 --bytes 65536 --slots 16 --batch 4
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct options {
    long chunks;  /* chunks each PE sends */
    long bytes;   /* bytes per chunk */
    long slots;   /* slots of each ring buffer */
    long batch;   /* chunks the consumer takes (and gives back) at once */
};

static uint64_t their_checksum; /* written by the left neighbour at the end */

static void usage(FILE *f, const char *prog) {
    fprintf(f,
            "usage: %s [--chunks N] [--bytes N] [--slots N] [--batch N]\n"
            "  --chunks N  chunks each PE streams to its right neighbour (default 2000)\n"
            "  --bytes N   bytes per chunk (default 4096)\n"
            "  --slots N   slots of each PE's ring buffer (default 16)\n"
            "  --batch N   chunks consumed and credited at once, 1..slots (default 4)\n",
            prog);
}

/* Parses the options; 0 if they are valid. Every PE parses the same arguments, so every
 * PE reaches the same verdict. */
static int parse(int argc, char **argv, struct options *o) {
    o->chunks = 2000;
    o->bytes = 4096;
    o->slots = 16;
    o->batch = 4;
    for (int i = 1; i < argc; i++) {
        long *field = strcmp(argv[i], "--chunks") == 0  ? &o->chunks
                      : strcmp(argv[i], "--bytes") == 0 ? &o->bytes
                      : strcmp(argv[i], "--slots") == 0 ? &o->slots
                      : strcmp(argv[i], "--batch") == 0 ? &o->batch
                                                        : NULL;
        if (field == NULL || i + 1 == argc)
            return -1;
        char *end;
        *field = strtol(argv[++i], &end, 10);
        if (*end != '\0' || end == argv[i])
            return -1;
    }
    /* a semaphore holds at most SHMEMX_SEM_MAXVALUE: credits go up to `slots` */
    if (o->chunks < 1 || o->bytes < 1 || o->slots < 1 || o->slots > SHMEMX_SEM_MAXVALUE || o->batch < 1 ||
        o->batch > o->slots)
        return -1;
    return 0;
}

/* Byte j of chunk c from PE pe: different for every chunk, so a stale slot shows. */
static unsigned char chunk_byte(int pe, long c, long j) {
    return (unsigned char)(j * 7 + (j >> 9) + c * 13 + pe * 101 + 1);
}

static uint64_t fnv1a(uint64_t h, const unsigned char *p, long n) {
    for (long j = 0; j < n; j++) {
        h ^= p[j];
        h *= 1099511628211ULL;
    }
    return h;
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int ok_mine, ok_all; /* symmetric, for the final reduction */

int main(int argc, char **argv) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    struct options o;
    if (parse(argc, argv, &o) != 0) {
        if (me == 0)
            usage(stderr, argv[0]);
        shmem_finalize();
        return 2;
    }

    /* Symmetric objects: every PE's ring buffer and semaphores. */
    unsigned char *ring = shmem_malloc((size_t)(o.slots * o.bytes));
    shmemx_sem_t *full = shmemx_sem_alloc(SHMEMX_SEM_INTEGER);
    shmemx_sem_t *credit = shmemx_sem_alloc(SHMEMX_SEM_INTEGER);
    shmemx_sem_t *done = shmemx_sem_alloc(SHMEMX_SEM_BOOLEAN);
    unsigned char *chunk = malloc((size_t)o.bytes); /* the producer's local buffer */
    if (ring == NULL || chunk == NULL || full == NULL || credit == NULL || done == NULL) {
        fprintf(stderr, "PE %d: out of memory\n", me);
        shmem_global_exit(1);
    }

    /* My whole ring buffer is free: tell my producer. */
    shmemx_sem_postN(credit, (size_t)o.slots, left);

    uint64_t sent = 14695981039346656037ULL, received = sent;
    double t0 = seconds();
    for (long first = 0; first < o.chunks; first += o.batch) {
        long k = o.chunks - first < o.batch ? o.chunks - first : o.batch;

        /* Produce: wait for k free slots at my right neighbour, write k chunks, each
         * with its post. The chunk buffer may be refilled as soon as the call returns. */
        shmemx_sem_waitN(credit, (size_t)k);
        for (long c = first; c < first + k; c++) {
            for (long j = 0; j < o.bytes; j++)
                chunk[j] = chunk_byte(me, c, j);
            sent = fnv1a(sent, chunk, o.bytes);
            shmemx_memput_signal(ring + (c % o.slots) * o.bytes, chunk, (size_t)o.bytes, full, 1, right);
        }

        /* Consume: wait until k chunks are complete in my ring buffer, read them, give
         * their slots back to my left neighbour in one post. */
        shmemx_sem_waitN(full, (size_t)k);
        for (long c = first; c < first + k; c++)
            received = fnv1a(received, ring + (c % o.slots) * o.bytes, o.bytes);
        shmemx_sem_postN(credit, (size_t)k, left);
    }
    double elapsed = seconds() - t0;

    /* Send my checksum along the same path, and compare with my left neighbour's. */
    shmemx_memput_signal(&their_checksum, &sent, sizeof sent, done, 1, right);
    shmemx_sem_wait(done);
    ok_mine = their_checksum == received;

    /* Every credit comes back (the right neighbour has read everything I sent), and
     * nothing is left over. */
    shmemx_sem_waitN(credit, (size_t)o.slots);
    if (shmemx_sem_try(credit) || shmemx_sem_try(full) || shmemx_sem_try(done)) {
        fprintf(stderr, "PE %d: a semaphore still holds units at the end\n", me);
        ok_mine = 0;
    }

    double mb = (double)o.chunks * (double)o.bytes / 1e6;
    printf("PE %d: received %ld chunks x %ld bytes (%.1f MB) from PE %d in %.3f s, %.1f MB/s, "
           "checksum %016llx %s\n",
           me, o.chunks, o.bytes, mb, left, elapsed, elapsed > 0 ? mb / elapsed : 0.0,
           (unsigned long long)received, ok_mine ? "matches" : "DIFFERS from the sender's");
    fflush(stdout);

    shmem_barrier_all();
    shmem_int_min_reduce(SHMEM_TEAM_WORLD, &ok_all, &ok_mine, 1);
    if (me == 0)
        printf(ok_all ? "pipeline ok\n" : "pipeline FAILED\n");

    free(chunk);
    shmemx_sem_free(done);
    shmemx_sem_free(credit);
    shmemx_sem_free(full);
    shmem_free(ring);
    shmem_finalize();
    return ok_all ? 0 : 1;
}
