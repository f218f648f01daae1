/*
 * seed_corpus.c: extracts fuzz seeds from real Parquet files (run by
 * scripts/fuzz_seed.sh; not part of the tests).
 *
 * Usage: seed_corpus OUT_DIR FILE... For each file it writes
 *   OUT_DIR/footer/<name>        the footer (serialized FileMetaData)
 *   OUT_DIR/page_header/<name>-<rg>-<col>  the first bytes of the column
 *                                chunk (page headers and bodies, <= 1 KiB)
 *   OUT_DIR/codec/<codec>-<name>-<rg>-<col>  the first compressed page of a
 *                                chunk in fuzz_codec's layout (codec byte,
 *                                24-bit uncompressed size, the page body),
 *                                when its body is <= 8 KiB and it
 *                                decompresses to <= 4 MiB
 * using plank's own page header decoder to find the pages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plank.h"
#include "tharness.h"
#include "thrift/pk_thrift.h"

static void put(const char *path, const void *a, size_t an, const void *b, size_t bn) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fwrite(a, 1, an, f);
    if (bn) fwrite(b, 1, bn, f);
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUT_DIR FILE...\n", argv[0]);
        return 2;
    }
    const char *out = argv[1];
    char path[4096];
    for (int i = 2; i < argc; i++) {
        const char *name = strrchr(argv[i], '/');
        name = name ? name + 1 : argv[i];
        size_t len;
        unsigned char *file = th_read_file(argv[i], &len);
        if (!file || len < 12) continue;
        uint32_t flen;
        memcpy(&flen, file + len - 8, 4);
        if (flen <= len - 12) {
            snprintf(path, sizeof path, "%s/footer/%s", out, name);
            put(path, file + len - 8 - flen, flen, NULL, 0);
        }
        plank_reader *r = NULL;
        if (plank_reader_open_memory(&r, file, len, NULL, NULL) != PLANK_OK) {
            free(file);
            continue;
        }
        for (int32_t g = 0; g < plank_reader_num_row_groups(r) && g < 4; g++) {
            for (int32_t c = 0; c < plank_reader_num_columns(r) && c < 16; c++) {
                plank_column_chunk_info cc = {.struct_size = sizeof(plank_column_chunk_info)};
                if (plank_reader_column_chunk(r, g, c, &cc, NULL) != PLANK_OK) continue;
                int64_t start = cc.data_page_offset;
                if (cc.dictionary_page_offset > 0 && cc.dictionary_page_offset < start)
                    start = cc.dictionary_page_offset;
                if (start < 4 || (uint64_t)start >= len || cc.num_values == 0) continue;
                size_t avail = len - (size_t)start;
                size_t take = avail < 1024 ? avail : 1024;
                snprintf(path, sizeof path, "%s/page_header/%s-%d-%d", out, name, (int)g, (int)c);
                put(path, file + start, take, NULL, 0);
                pk_page_header h;
                size_t hlen;
                if (cc.codec == PLANK_CODEC_UNCOMPRESSED ||
                    pk_thrift_read_page_header(file + start, avail, &h, &hlen, NULL) != PLANK_OK)
                    continue;
                size_t body = (size_t)h.compressed_page_size, ulen = (size_t)h.uncompressed_page_size;
                size_t skip = 0;
                if (h.type == PLANK_PAGE_DATA_V2) {
                    skip = (size_t)h.repetition_levels_byte_length +
                           (size_t)h.definition_levels_byte_length;
                    if (!h.is_compressed || skip > body || skip > ulen) continue;
                }
                if (body > 8192 || ulen - skip >= (1u << 22) || hlen + body > avail) continue;
                unsigned char head[4] = {(unsigned char)cc.codec, (unsigned char)(ulen - skip),
                                         (unsigned char)((ulen - skip) >> 8),
                                         (unsigned char)((ulen - skip) >> 16)};
                snprintf(path, sizeof path, "%s/codec/%s-%s-%d-%d", out,
                         plank_codec_name(cc.codec), name, (int)g, (int)c);
                put(path, head, 4, file + start + hlen + skip, body - skip);
            }
        }
        plank_reader_close(r);
        free(file);
    }
    return 0;
}
