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
