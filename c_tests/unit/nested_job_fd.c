/* rshmem-test
 * np: 1 2
 * stderr: warning: RSHMEM_JOB_FD=
 * stderr: not a memory file); running as a 1-PE job of its own
 */
/* A program started from inside a PE must never take a file of its own for the
 * job's memory file. Each PE writes a 1 MiB data file (its first page zero, as a
 * job file's header before oshrun writes it) and starts this program again,
 * nested, through system(), twice:
 *   1. after shmem_init, as is: oshrun's variables are gone from the
 *      environment, so the nested program is a 1-PE job of its own;
 *   2. with the variables this PE was started with put back (as a program
 *      started before shmem_init, or by a wrapper, would inherit them): the
 *      descriptor number is not this job's memory file, the library says so in
 *      one warning line and runs the nested program as a 1-PE job.
 * Before either shmem_init, the nested program opens the data file on exactly the
 * inherited descriptor number. The data file must come back unchanged (size and
 * every byte) and every job must succeed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA_LEN (1 << 20)

static unsigned char expected(long i) {
    return i < 4096 ? 0 : (unsigned char)(i * 7 + 3);
}

static int fail(const char *what) {
    fprintf(stderr, "FAIL: %s\n", what);
    return 1;
}

/* The nested program: argv = exe nested DATA FD. */
static int nested(const char *data, int want_fd) {
    int fd = open(data, O_RDWR);
    if (fd < 0)
        return fail("nested: cannot open the data file");
    if (fd != want_fd) {
        if (dup2(fd, want_fd) != want_fd)
            return fail("nested: dup2");
        close(fd);
    }
    shmem_init();
    if (shmem_my_pe() != 0 || shmem_n_pes() != 1) {
        fprintf(stderr, "FAIL: nested program is PE %d of %d, not a 1-PE job\n", shmem_my_pe(), shmem_n_pes());
        return 1;
    }
    long *x = shmem_malloc(sizeof(long));
    if (x == NULL)
        return fail("nested: shmem_malloc");
    shmem_long_p(x, 42, 0);
    shmem_barrier_all();
    if (*x != 42)
        return fail("nested: put to itself");
    shmem_free(x);
    shmem_finalize();
    return 0;
}

static int check_data(const char *data, const char *when) {
    struct stat st;
    if (stat(data, &st) != 0 || st.st_size != DATA_LEN) {
        fprintf(stderr, "FAIL: %s: data file is %lld bytes, not %d\n", when, (long long)st.st_size, DATA_LEN);
        return 1;
    }
    FILE *f = fopen(data, "rb");
    if (f == NULL)
        return fail("cannot reopen the data file");
    for (long i = 0; i < DATA_LEN; i++) {
        int c = fgetc(f);
        if (c != expected(i)) {
            fprintf(stderr, "FAIL: %s: data file byte %ld is %d, not %d\n", when, i, c, expected(i));
            fclose(f);
            return 1;
        }
    }
    fclose(f);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "nested") == 0)
        return nested(argv[2], atoi(argv[3]));

    /* What oshrun passed, as a program started before shmem_init would see it. */
    const char *names[] = {"RSHMEM_PE", "RSHMEM_NPES", "RSHMEM_JOB_ID", "RSHMEM_JOB_FD", "RSHMEM_JOB_CPUS"};
    char saved[5][128];
    for (int i = 0; i < 5; i++) {
        const char *v = getenv(names[i]);
        if (v == NULL || strlen(v) >= sizeof saved[i])
            return fail("oshrun did not pass the job variables");
        strcpy(saved[i], v);
    }
    int job_fd = atoi(saved[3]);

    shmem_init();
    /* Checked after the nested runs, so that they run in any case. */
    const char *left = NULL;
    for (int i = 0; i < 5; i++)
        if (getenv(names[i]) != NULL)
            left = names[i];

    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return fail("readlink /proc/self/exe");
    exe[n] = '\0';
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char data[4096];
    snprintf(data, sizeof data, "%s/rshmem-nested-%ld-%d.dat", tmp, (long)getpid(), shmem_my_pe());
    FILE *f = fopen(data, "wb");
    if (f == NULL)
        return fail("cannot create the data file");
    for (long i = 0; i < DATA_LEN; i++)
        fputc(expected(i), f);
    fclose(f);

    int rc = 0;
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "'%s' nested '%s' %d", exe, data, job_fd);
    if (system(cmd) != 0)
        rc = fail("the nested program (started after shmem_init) failed");
    if (rc == 0)
        rc = check_data(data, "after the nested program");

    snprintf(cmd, sizeof cmd, "RSHMEM_PE=%s RSHMEM_NPES=%s RSHMEM_JOB_ID=%s RSHMEM_JOB_FD=%s RSHMEM_JOB_CPUS=%s '%s' nested '%s' %d",
             saved[0], saved[1], saved[2], saved[3], saved[4], exe, data, job_fd);
    if (rc == 0 && system(cmd) != 0)
        rc = fail("the nested program with the inherited variables failed");
    if (rc == 0)
        rc = check_data(data, "after the nested program with the inherited variables");
    unlink(data);
    if (left != NULL) {
        fprintf(stderr, "FAIL: %s is still in the environment after shmem_init\n", left);
        rc = 1;
    }

    /* This job still works. */
    static long token;
    shmem_long_p(&token, shmem_my_pe() + 1, (shmem_my_pe() + 1) % shmem_n_pes());
    shmem_barrier_all();
    if (rc == 0 && token != (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes() + 1)
        rc = fail("put in the parent job after the nested programs");
    shmem_finalize();
    return rc;
}
