/*
 * pk_hugepage.c: asks the kernel for transparent huge pages on the large
 * blocks of the default allocator (pk_common.c).
 *
 * Why: a writer buffers a row group's encoded pages and a reader a column
 * chunk, tens of MiB touched for the first time by the process. With 4 KiB
 * pages every first touch is a page fault; on virtual machines with
 * shadow or paravirtual paging (the project's machines among them) a fault
 * costs tens of microseconds, and the first write of a process took twice
 * as long as the next ones (bench/README.md, "Writer"). With
 * MADV_HUGEPAGE on the 2 MiB-aligned interior of a block, one fault maps
 * 2 MiB. Where THP is "never", or on other systems, this does nothing.
 */
#define _DEFAULT_SOURCE 1
#include <stddef.h>
#include <stdint.h>

#include "pk_common.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define PK_HUGE ((uintptr_t)2 << 20)

/* Faults in the whole pages of a fresh block with one call (Linux 5.14's
 * MADV_POPULATE_WRITE) instead of one page fault per 4 KiB page as the
 * block is first written: on the paravirtualised machines this project runs
 * on, a fault costs about 8 us, and a stream's first batches (tens of MiB of
 * arrays and windows) spent a tenth of a read of TPC-H lineitem in them.
 * Older kernels and other systems: nothing happens. */
void pk_populate_write(void *p, size_t n) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
    uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
    uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)4095;
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

void pk_advise_huge(void *p, size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    uintptr_t lo = ((uintptr_t)p + PK_HUGE - 1) & ~(PK_HUGE - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(PK_HUGE - 1);
    /* Advice only: a failure (THP off, an old kernel) changes nothing. */
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}
