/* rshmem-test
 * np: 1 2 4 8
 */
/* shmem_info_get_version / shmem_info_get_name and the version constants (OpenSHMEM 1.6),
 * and the vendor's own version as numbers (OSSS-UCX's SHMEM_VENDOR_*_VERSION). */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

/* Cargo.toml's package version (env_info.c expects it in SHMEM_INFO's output too). */
#define RSHMEM_TEST_PACKAGE_VERSION "0.1.0"

int main(void) {
    shmem_init();
    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    CHECK(major == 1 && minor == 6, "shmem_info_get_version gave %d.%d, wanted 1.6", major, minor);
    CHECK(SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION == 6, "SHMEM_MAJOR/MINOR_VERSION are %d.%d",
          (int)SHMEM_MAJOR_VERSION, (int)SHMEM_MINOR_VERSION);
    CHECK(_SHMEM_MAJOR_VERSION == SHMEM_MAJOR_VERSION && _SHMEM_MINOR_VERSION == SHMEM_MINOR_VERSION,
          "the deprecated _SHMEM_MAJOR/MINOR_VERSION differ");
#if !defined(OSHMEM_SPEC_VERSION) || OSHMEM_SPEC_VERSION != 10600
#error "OSHMEM_SPEC_VERSION (Open MPI OSHMEM's, its programs test it) is not 10600"
#endif
#if !defined(SHMEM_VENDOR_MAJOR_VERSION) || !defined(SHMEM_VENDOR_MINOR_VERSION) || !defined(SHMEM_VENDOR_PATCH_VERSION)
#error "SHMEM_VENDOR_{MAJOR,MINOR,PATCH}_VERSION are not defined"
#endif
    char vendor_version[64];
    snprintf(vendor_version, sizeof vendor_version, "%d.%d.%d", SHMEM_VENDOR_MAJOR_VERSION,
             SHMEM_VENDOR_MINOR_VERSION, SHMEM_VENDOR_PATCH_VERSION);
    CHECK(strcmp(vendor_version, RSHMEM_TEST_PACKAGE_VERSION) == 0, "vendor version %s, package version %s",
          vendor_version, RSHMEM_TEST_PACKAGE_VERSION);

    /* Fill with a marker so a missing terminator is noticed. */
    char name[SHMEM_MAX_NAME_LEN + 16];
    memset(name, 'x', sizeof name);
    shmem_info_get_name(name);
    CHECK(memchr(name, '\0', SHMEM_MAX_NAME_LEN) != NULL, "name has no terminator in its first %d bytes",
          (int)SHMEM_MAX_NAME_LEN);
    CHECK(name[0] != '\0', "shmem_info_get_name gave an empty name");
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "name \"%s\" differs from SHMEM_VENDOR_STRING \"%s\"", name,
          SHMEM_VENDOR_STRING);
    if (shmem_my_pe() == 0)
        printf("library %s, OpenSHMEM %d.%d\n", name, major, minor);

    shmem_finalize();
    return 0;
}
