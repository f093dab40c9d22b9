/* The plain driver of the fuzz harnesses: runs LLVMFuzzerTestOneInput once on
 * every file named on the command line (a folder: on every file in it, in
 * name order).  Built with any compiler, so make check replays the seed
 * corpus and every regression input a fuzzer once crashed on (tests/fuzz/
 * regress/NAME/) under gcc and under ASan+UBSan, without libFuzzer. */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REPLAY_MAX_INPUT (4u << 20) /* the size libFuzzer is run with is far smaller */

static int run_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return -1;
    }
    uint8_t *buf = malloc(REPLAY_MAX_INPUT);
    size_t n = buf ? fread(buf, 1, REPLAY_MAX_INPUT, fp) : 0;
    fclose(fp);
    if (!buf)
        return -1;
    /* a copy of exactly n bytes, as libFuzzer passes: overreads are caught */
    uint8_t *exact = malloc(n ? n : 1);
    if (exact) {
        memcpy(exact, buf, n);
        LLVMFuzzerTestOneInput(exact, n);
    }
    free(exact);
    free(buf);
    return exact ? 1 : -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_folder(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown)
                break;
            names = grown;
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    int count = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (names[i] && stat(path, &st) == 0 && S_ISREG(st.st_mode) && run_file(path) > 0)
            count++;
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        /* absolute: a harness may change its working directory */
        char *path = realpath(argv[i], NULL);
        if (!path || stat(path, &st) != 0) {
            free(path);
            continue; /* an absent folder: nothing to replay */
        }
        int n = S_ISDIR(st.st_mode) ? run_folder(path) : run_file(path);
        free(path);
        if (n < 0)
            return 2;
        total += n;
    }
    printf("%s: %d inputs replayed\n", argv[0], total);
    return 0;
}
