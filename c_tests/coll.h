/* Helpers shared by the collective test programs (included as "../coll.h"):
 * - a fixed list of teams (world, several strided splits, the two teams of a 2D split),
 *   created once, checked against their expected membership, and visited in the same
 *   order on every PE so that collectives on teams that overlap cannot deadlock;
 * - value classification and printing for messages that show expected and got values
 *   of any type, complex included. */
#ifndef RSHMEM_C_TESTS_COLL_H
#define RSHMEM_C_TESTS_COLL_H

#include <complex.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

/* ---- Teams ---------------------------------------------------------------------- */

#define COLL_MAX_TEAMS 6

struct coll_team {
    shmem_team_t team;       /* SHMEM_TEAM_INVALID on a PE outside the team */
    char name[48];           /* "split(1,3,3)" and the like, for messages */
    int start, stride, size; /* its members are world PEs start + k * stride, k < size */
    int me;                  /* this PE's rank in the team, -1 outside */
    int owned;               /* created by coll_teams_create: destroyed by coll_teams_destroy */
};

static struct coll_team coll_teams[COLL_MAX_TEAMS];
static int coll_nteams;

/* World PE of team rank r. */
static inline int coll_pe(const struct coll_team *t, int r) {
    return t->start + r * t->stride;
}

/* Records a team and checks what the library says about it against the expectation. */
static inline void coll_add(shmem_team_t team, int ret, const char *kind, int start, int stride, int size,
                            int owned) {
    int me = shmem_my_pe();
    CHECK(coll_nteams < COLL_MAX_TEAMS, "too many teams");
    struct coll_team *t = &coll_teams[coll_nteams++];
    t->team = team;
    t->start = start;
    t->stride = stride;
    t->size = size;
    t->owned = owned;
    snprintf(t->name, sizeof t->name, "%s(%d,%d,%d)", kind, start, stride, size);
    int off = me - start;
    t->me = (off >= 0 && off % stride == 0 && off / stride < size) ? off / stride : -1;
    if (t->me < 0) {
        CHECK(team == SHMEM_TEAM_INVALID, "team %s: PE %d is not a member but got a team handle", t->name, me);
        return;
    }
    CHECK(ret == 0, "team %s: the split returned %d on a member", t->name, ret);
    CHECK(team != SHMEM_TEAM_INVALID, "team %s: a member got SHMEM_TEAM_INVALID", t->name);
    CHECK(shmem_team_n_pes(team) == size, "team %s: shmem_team_n_pes is %d, expected %d", t->name,
          shmem_team_n_pes(team), size);
    CHECK(shmem_team_my_pe(team) == t->me, "team %s: shmem_team_my_pe is %d, expected %d", t->name,
          shmem_team_my_pe(team), t->me);
    for (int r = 0; r < size; r++) {
        int pe = shmem_team_translate_pe(team, r, SHMEM_TEAM_WORLD);
        CHECK(pe == coll_pe(t, r), "team %s: rank %d translates to world PE %d, expected %d", t->name, r, pe,
              coll_pe(t, r));
    }
}

/* Creates the teams (collective over the world team: every PE calls it):
 *   world                 SHMEM_TEAM_WORLD
 *   split(1,1,npes-1)     all but PE 0 (when npes > 1)
 *   split(0,2,...)        the even PEs
 *   split(1,3,...)        PEs 1, 4, 7, ... (when npes > 1)
 *   2d-x(...)             shmem_team_split_2d with xrange 2: PEs 2y and 2y+1 (same y)
 *   2d-y(...)             same split: the PEs with the same parity (same x) */
static inline void coll_teams_create(void) {
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t t;
    coll_nteams = 0;
    coll_add(SHMEM_TEAM_WORLD, 0, "world", 0, 1, npes, 0);
    if (npes > 1) {
        t = SHMEM_TEAM_INVALID;
        int ret = shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, npes - 1, NULL, 0, &t);
        coll_add(t, ret, "split", 1, 1, npes - 1, 1);
    }
    t = SHMEM_TEAM_INVALID;
    int ret = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &t);
    coll_add(t, ret, "split", 0, 2, (npes + 1) / 2, 1);
    if (npes > 1) {
        t = SHMEM_TEAM_INVALID;
        ret = shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 3, (npes + 1) / 3, NULL, 0, &t);
        coll_add(t, ret, "split", 1, 3, (npes + 1) / 3, 1);
    }
    shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
    ret = shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt);
    CHECK(ret == 0, "shmem_team_split_2d(xrange 2) returned %d", ret);
    int x = me % 2, y = me / 2;
    coll_add(xt, ret, "2d-x", 2 * y, 1, npes - 2 * y < 2 ? npes - 2 * y : 2, 1);
    coll_add(yt, ret, "2d-y", x, 2, (npes - x + 1) / 2, 1);
}

/* Calls fn for each team this PE belongs to, in the same order on every PE. */
static inline void coll_for_each_team(void (*fn)(const struct coll_team *t)) {
    for (int i = 0; i < coll_nteams; i++)
        if (coll_teams[i].me >= 0)
            fn(&coll_teams[i]);
}

/* Destroys the teams coll_teams_create made (every PE calls it). */
static inline void coll_teams_destroy(void) {
    for (int i = 0; i < coll_nteams; i++)
        if (coll_teams[i].owned && coll_teams[i].me >= 0)
            shmem_team_destroy(coll_teams[i].team);
    coll_nteams = 0;
}

/* shmem_team_sync over t, checked. */
static inline void coll_sync(const struct coll_team *t) {
    int ret = shmem_team_sync(t->team);
    CHECK(ret == 0, "shmem_team_sync on team %s returned %d", t->name, ret);
}

/* ---- Values ------------------------------------------------------------------------ */

enum { COLL_SINT, COLL_UINT, COLL_REAL, COLL_CPLX };

/* The kind of type T, chosen without applying an operator to a T (complex types have no
 * ordering, so (T)-1 < 0 is not even valid for them). */
#define COLL_KIND(T)                                                                          \
    _Generic((T)0, float: COLL_REAL, double: COLL_REAL, long double: COLL_REAL,              \
             float _Complex: COLL_CPLX, double _Complex: COLL_CPLX,                          \
             long double _Complex: COLL_CPLX, char: (CHAR_MIN < 0 ? COLL_SINT : COLL_UINT), \
             signed char: COLL_SINT, short: COLL_SINT, int: COLL_SINT, long: COLL_SINT,      \
             long long: COLL_SINT, default: COLL_UINT)

/* Highest and lowest value of a signed integer type of at most 64 bits (for a wider type,
 * such as long double, some large exact value). */
#define COLL_BITS(T) ((int)(sizeof(T) > 8 ? 64 : sizeof(T) * CHAR_BIT))
#define COLL_SMAX(T) ((T)(UINT64_MAX >> (65 - COLL_BITS(T))))
#define COLL_SMIN(T) ((T)(-COLL_SMAX(T) - 1))

/* The complex value re + im*i of type T; for a real T, just re. */
static inline double _Complex coll_cd(double re, double im) {
    return re + im * I;
}
static inline float _Complex coll_cf(float re, float im) {
    return re + im * I;
}
#define COLL_MK(T, re, im)                                                              \
    _Generic((T)0, double _Complex: (T)coll_cd((double)(re), (double)(im)),            \
             float _Complex: (T)coll_cf((float)(re), (float)(im)), default: (T)(re))

/* A well-mixed 64-bit hash of three numbers. */
static inline uint64_t coll_hash(uint64_t a, uint64_t b, uint64_t c) {
    uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull ^
                 (c + 0x85EBCA77C2B2AE63ull) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 32;
    return x;
}

/* Writes v (any arithmetic type, converted) for a message. */
static inline const char *coll_fmt(char *buf, size_t n, long double _Complex v) {
    if (cimagl(v) != 0)
        snprintf(buf, n, "%.21Lg%+.21Lgi", creall(v), cimagl(v));
    else
        snprintf(buf, n, "%.21Lg", creall(v));
    return buf;
}

/* Fails, printing the message and the expected and the actual value, when got != want. */
#define COLL_CHECK_EQ(got, want, ...)                                                          \
    do {                                                                                       \
        if (!((got) == (want))) {                                                              \
            char m_[296], g_[96], w_[96];                                                      \
            snprintf(m_, sizeof m_, __VA_ARGS__);                                              \
            CHECK(0, "%s: expected %s, got %s", m_, coll_fmt(w_, sizeof w_, (want)),           \
                  coll_fmt(g_, sizeof g_, (got)));                                             \
        }                                                                                      \
    } while (0)

/* Element i of the data world PE pe contributes to a data-movement collective: VALUE of
 * common.h shifted by PE, so that every PE's first elements differ too (element i of PE pe
 * is VALUE index i + 2 pe: the extremes and zero show up at different places). */
#define COLL_DV(T, MINV, MAXV, pe, i) VALUE(T, MINV, MAXV, (pe), (int)(i) + 2 * (pe))
/* What the buffers hold past the elements a collective may write. */
#define COLL_GUARD(T, i) ((T)(100 + (int)(i) % 100))
/* Elements of guard checked after each buffer. */
#define COLL_NGUARD 8

#endif
