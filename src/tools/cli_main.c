/*
 * cli_main.c: the `plank` command-line tool's entry point: the process's
 * malloc tuning and the command dispatch (the commands and what they share
 * are the plank_cli library, cli_common.c and the other cli_*.c).
 */
#define _DEFAULT_SOURCE 1 /* sbrk, madvise */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#if defined(__GLIBC__)
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "cli.h"

/* glibc's malloc serves blocks above its mmap threshold (128 KiB, raised
 * only as such blocks are freed) with mmap and unmaps them on free, and
 * trims its heap's top above 128 KiB: every read or scan that a process
 * repeats (`--repeat`, tpch q*, bench) got its buffers as fresh pages, one
 * fault each (about 8 us on this project's virtual machines), and the
 * second of three TPC-H Q12 runs on the dictionary file took 54 ms against
 * 30 ms with the freed memory kept (bench/README.md, "TPC-H"). The tool
 * keeps what it frees, as jemalloc does for DuckDB; the library itself
 * leaves the allocator alone (callers may pass their own, plank.h).
 *
 * It also puts the heap on 2 MiB pages: one arena for every thread, whose
 * heap is extended once by HEAP_PAD bytes (address space only; pages come
 * as they are touched) and advised MADV_HUGEPAGE. On these machines the
 * first touch of a 4 KiB page costs 14-15 us, still 7 us after
 * MADV_POPULATE_WRITE, so a one-shot query paid for its few MiB of
 * buffers: TPC-H Q12 on the dictionary file took 52-56 ms in a fresh process
 * against 27-29 ms in a warm one, 32-46 ms with the heap on huge pages
 * (bench/README.md, "The tool's heap on 2 MiB pages"). One arena costs
 * the threads nothing measurable: the library allocates in blocks that its
 * streams pool, and `tpch gen --threads 2` ran 1.29-1.64 s against
 * 1.46-1.86 s with an arena per thread. Without transparent huge pages
 * ("never"), or when the heap cannot grow in place, the advice does
 * nothing. */
#define HEAP_PAD ((size_t)128 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)
static void tune_malloc(void) {
#if defined(__GLIBC__)
    (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
    (void)mallopt(M_TRIM_THRESHOLD, 256 << 20);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void)mallopt(M_ARENA_MAX, 1);
    /* volatile: a compiler may drop a malloc whose block is only freed */
    void *volatile first = malloc(64); /* the heap set up at its small initial size */
    free(first);
    /* The pad only now, or the first malloc would already take it (then
     * the heap's end moves before `lo` is read, the growth below never
     * happens and nothing is advised: that was the case as soon as no
     * library linked into the tool, such as libstdc++, allocated before
     * main; `tpch gen` then took 5,600 faults instead of 900). */
    (void)mallopt(M_TOP_PAD, (int)HEAP_PAD);
    uintptr_t lo = ((uintptr_t)sbrk(0) + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    void *volatile grow = malloc((size_t)1 << 20); /* more than its top: it grows by the pad too */
    uintptr_t hi = (uintptr_t)sbrk(0) & ~(HUGE_PAGE - 1);
    free(grow);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
#endif
}

int main(int argc, char **argv) {
    tune_malloc();
    if (argc < 2) return cli_usage_error("missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("plank %s\n", plank_version_string());
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        cli_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "schema") == 0) return cli_schema_main(argc - 2, argv + 2);
    if (strcmp(cmd, "meta") == 0) return cli_meta_main(argc - 2, argv + 2);
    if (strcmp(cmd, "cat") == 0) return cli_cat_main(argc - 2, argv + 2);
    if (strcmp(cmd, "scan") == 0) return cli_scan_main(argc - 2, argv + 2);
    if (strcmp(cmd, "convert") == 0) return cli_convert_main(argc - 2, argv + 2);
    if (strcmp(cmd, "tpch") == 0) return cli_tpch_main(argc - 2, argv + 2);
    if (strcmp(cmd, "bench") == 0) {
        if (argc >= 3 && strcmp(argv[2], "read") == 0) return cli_bench_main(argc - 3, argv + 3);
        if (argc >= 3 && strcmp(argv[2], "scan") == 0)
            return cli_bench_scan_main(argc - 3, argv + 3);
        if (argc >= 3 && strcmp(argv[2], "write") == 0)
            return cli_bench_write_main(argc - 3, argv + 3);
        return cli_usage_error("bench: expected 'bench read FILE' or 'bench write'");
    }
    return cli_usage_error("unknown command '%s'", cmd);
}
