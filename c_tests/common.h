/* Helpers shared by the C test programs (included as "../common.h"). */
#ifndef RSHMEM_C_TESTS_COMMON_H
#define RSHMEM_C_TESTS_COMMON_H

#include <float.h>
#include <limits.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "table.h"

/* Fails the program, naming the PE and the line, when cond is false. */
#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            char msg_[512];                                                              \
            snprintf(msg_, sizeof msg_, __VA_ARGS__);                                    \
            fprintf(stderr, "FAIL PE %d line %d: %s\n", shmem_my_pe(), __LINE__, msg_); \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

/* The 24 standard RMA types: name, C type, lowest and highest value. */
#define RMA_TYPES(X)                                               \
    X(float, float, -FLT_MAX, FLT_MAX)                             \
    X(double, double, -DBL_MAX, DBL_MAX)                           \
    X(longdouble, long double, -LDBL_MAX, LDBL_MAX)                \
    X(char, char, CHAR_MIN, CHAR_MAX)                              \
    X(schar, signed char, SCHAR_MIN, SCHAR_MAX)                    \
    X(short, short, SHRT_MIN, SHRT_MAX)                            \
    X(int, int, INT_MIN, INT_MAX)                                  \
    X(long, long, LONG_MIN, LONG_MAX)                              \
    X(longlong, long long, LLONG_MIN, LLONG_MAX)                   \
    X(uchar, unsigned char, 0, UCHAR_MAX)                          \
    X(ushort, unsigned short, 0, USHRT_MAX)                        \
    X(uint, unsigned int, 0, UINT_MAX)                             \
    X(ulong, unsigned long, 0, ULONG_MAX)                          \
    X(ulonglong, unsigned long long, 0, ULLONG_MAX)                \
    X(int8, int8_t, INT8_MIN, INT8_MAX)                            \
    X(int16, int16_t, INT16_MIN, INT16_MAX)                        \
    X(int32, int32_t, INT32_MIN, INT32_MAX)                        \
    X(int64, int64_t, INT64_MIN, INT64_MAX)                        \
    X(uint8, uint8_t, 0, UINT8_MAX)                                \
    X(uint16, uint16_t, 0, UINT16_MAX)                             \
    X(uint32, uint32_t, 0, UINT32_MAX)                             \
    X(uint64, uint64_t, 0, UINT64_MAX)                             \
    X(size, size_t, 0, SIZE_MAX)                                   \
    X(ptrdiff, ptrdiff_t, PTRDIFF_MIN, PTRDIFF_MAX)

/* Element i of the data PE pe sends: the type's extremes, zero, then values that differ
 * by PE and index, alternately negative (wrapped for unsigned types), with a fraction
 * for the floating types. */
#define VALUE(T, MINV, MAXV, pe, i)                                                      \
    ((T)((i) == 0   ? (T)(MINV)                                                          \
         : (i) == 1 ? (T)(MAXV)                                                          \
         : (i) == 2 ? (T)0                                                               \
         : (i) % 2  ? (T)(-(1 + 10 * (pe) + (i))) - (T)0.25                              \
                    : (T)(1 + 10 * (pe) + (i)) + (T)0.25))

#endif
