/*
 * fuzz_textin.c: `plank convert`'s CSV and JSON lines input (cli_textin.c,
 * in the plank_cli library) over hostile text.
 *
 * Input: one selector byte, then the text. The selector picks CSV or JSON
 * lines, the CSV delimiter (',' ';' tab '|'), the records sampled before the
 * column types are fixed (1 to 8) and whether the column "a" is converted
 * as VARIANT. The text is put in an anonymous memory file (memfd) that the
 * converter opens by its /proc path, and the Parquet file goes to /dev/shm
 * (or /tmp). Checks, any failure aborting:
 *  - a conversion that succeeds leaves a file that plank reads back whole
 *    (every column through the Arrow stream) with the row count its footer
 *    declares; one that fails leaves no file at the path;
 *  - no crash and no leak (the tool allocates with malloc: LeakSanitizer).
 * The converter reports its errors on stderr, as the tool does (run with
 * -close_fd_mask=2 to silence them).
 */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz_common.h"

#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"

static const char DELIMS[] = {',', ';', '\t', '|'};

/* Reads the whole file back through the Arrow stream. */
static void read_back(const char *path) {
    plank_reader_options ro;
    plank_reader_options_init(&ro);
    ro.allocator = &fz_allocator;
    plank_reader *r = NULL;
    plank_error err;
    if (plank_reader_open_path(&r, path, &ro, &err) != PLANK_OK) {
        fprintf(stderr, "the converted file does not open: %s\n", err.message);
        abort();
    }
    plank_arrow_options ao;
    plank_arrow_options_init(&ao);
    ao.threads = 1;
    struct ArrowArrayStream s;
    if (plank_reader_arrow_stream(r, NULL, 0, &ao, &s, &err) != PLANK_OK) {
        fprintf(stderr, "the converted file does not stream: %s\n", err.message);
        abort();
    }
    int64_t rows = fz_stream_rows(&s, "reading the converted file");
    if (rows != plank_reader_num_rows(r)) {
        fprintf(stderr, "%lld rows read, the footer says %lld\n", (long long)rows,
                (long long)plank_reader_num_rows(r));
        abort();
    }
    plank_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 1 << 16) return 0;
    uint8_t sel = data[0];
    int fd = memfd_create("fuzz_textin", 0);
    if (fd < 0) return 0;
    if (size > 1 && write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
        close(fd);
        return 0;
    }
    char in[64], out[128];
    snprintf(in, sizeof in, "/proc/self/fd/%d", fd);
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(out, sizeof out, "%s/plank-fuzz-textin-%d.parquet", dir, (int)getpid());

    const char *variant[1] = {"a"};
    cli_text_in ti = {0};
    ti.jsonl = sel & 1;
    ti.delimiter = DELIMS[(sel >> 1) & 3];
    ti.infer_rows = 1 + ((sel >> 3) & 7);
    if (sel & 0x40) {
        ti.variant = variant;
        ti.num_variant = 1;
    }
    cli_wopts wo;
    cli_wopts_init(&wo);
    wo.opts.codec = PLANK_CODEC_UNCOMPRESSED;
    wo.opts.row_group_rows = 1 + (sel >> 7) * 3; /* 1 or 4: several row groups */
    int rc = cli_text_to_parquet(in, out, &ti, &wo);
    cli_wopts_free(&wo);
    close(fd);
    if (rc == 0) {
        read_back(out);
    } else if (access(out, F_OK) == 0) {
        fprintf(stderr, "a failed conversion left %s\n", out);
        abort();
    }
    unlink(out);
    return 0;
}
