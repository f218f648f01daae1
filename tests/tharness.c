#include "tharness.h"

#include <sys/stat.h>

int th_failures = 0;
int th_checks = 0;

const char *th_testing_dir(void) {
    const char *d = getenv("PLANK_TESTING_DIR");
#ifdef PLANK_TESTING_DIR_DEFAULT
    if (!d || !*d) d = PLANK_TESTING_DIR_DEFAULT;
#endif
    if (!d) return NULL;
    struct stat st;
    if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return d;
}

unsigned char *th_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) *len = (size_t)n;
    return buf;
}
