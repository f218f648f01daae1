/*
 * fuzz_page_header.c: the Thrift PageHeader decoder.
 *
 * Input: bytes holding one or more page headers back to back (as in a
 * column chunk with empty page bodies). Headers are decoded until one fails
 * or the input ends; header_len must always lie inside what was left.
 */
#include "fuzz_common.h"
#include "thrift/pk_thrift.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t pos = 0;
    while (pos < size) {
        pk_page_header h;
        size_t hlen = 0;
        plank_error err;
        plank_error_init(&err);
        plank_status st = pk_thrift_read_page_header(data + pos, size - pos, &h, &hlen, &err);
        fz_check_error(st, &err);
        if (st != PLANK_OK) break;
        if (hlen == 0 || hlen > size - pos) {
            fprintf(stderr, "header_len %zu with %zu bytes left\n", hlen, size - pos);
            abort();
        }
        pos += hlen;
        /* Skip the body when it fits, as a column reader would. */
        if (h.compressed_page_size > 0 && (size_t)h.compressed_page_size <= size - pos)
            pos += (size_t)h.compressed_page_size;
    }
    return 0;
}
