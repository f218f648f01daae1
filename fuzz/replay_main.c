/*
 * replay_main.c: turns a fuzz target into a plain program that replays
 * inputs, so the committed corpus runs under ctest without libFuzzer.
 *
 * Usage: replay_<target> PATH... where each PATH is a file or a directory
 * whose regular files are replayed (in name order, not recursively). Each
 * input is copied into a buffer of exactly its size so AddressSanitizer sees
 * any read past its end. Exits 1 if a path cannot be read or a directory is
 * empty (a replay of nothing must not pass silently).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) break;
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *g = realloc(buf, cap * 2);
        if (!g) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = g;
        cap *= 2;
    }
    int bad = ferror(f) || !buf;
    fclose(f);
    if (bad) {
        free(buf);
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, long *count) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "cannot open directory %s\n", dir);
        return 1;
    }
    char **names = NULL;
    size_t nn = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (nn == cap) {
            cap = cap ? cap * 2 : 64;
            char **g = realloc(names, cap * sizeof *names);
            if (!g) break;
            names = g;
        }
        names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    if (nn) qsort(names, nn, sizeof *names, by_name);
    int rc = 0;
    for (size_t i = 0; i < nn; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *path = malloc(len);
        snprintf(path, len, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            rc |= replay_file(path);
            (*count)++;
        }
        free(path);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    long count = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            rc |= replay_dir(argv[i], &count);
        } else {
            rc |= replay_file(argv[i]);
            count++;
        }
    }
    fprintf(stderr, "%s: replayed %ld inputs\n", argv[0], count);
    if (count == 0) return 1;
    return rc;
}
