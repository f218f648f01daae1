/* embed.h: what one copy of plank (embed_copy.c compiled under one
 * PLANK_NAMESPACE and linked with that copy's archive) offers embed_main.c,
 * in names that are not plank's. */
#ifndef EMBED_H
#define EMBED_H

#include <stdint.h>

typedef struct embed_copy {
    const char *name;          /* the namespace: "A" or "B" */
    int32_t version_number;    /* plank_version_number() of this copy */
    int32_t header_version;    /* PLANK_VERSION_NUMBER as this copy was compiled */
    void (*open_function)(void); /* what plank_reader_open_path resolves to */
    /* Writes the test file at path with this copy's writer; 0 on success. */
    int (*write_file)(const char *path);
    /* Reads the file with this copy's reader and checks every value and that
     * copy `writer` wrote it; returns the number of mismatches (0: all good). */
    int (*check_file)(const char *path, const char *writer);
} embed_copy;

const embed_copy *embed_copy_A(void);
const embed_copy *embed_copy_B(void);

#endif
