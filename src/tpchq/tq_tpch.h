/*
 * tq_tpch.h: TPC-H Q1, Q6 and Q12 answered through plank's public API only
 * (plank.h: reader, scan, Arrow streams, metadata), as an application
 * would. The module sits above the library, beside the command-line tool
 * that runs it (`plank tpch q1|q6|q12 DIR`); it keeps no precomputed data.
 *
 * Plans:
 *   Q1  one scan of lineitem, `l_shipdate <= DATE '1998-09-02'` pushed down,
 *       six columns projected, grouped by (l_returnflag, l_linestatus) in
 *       exact decimal arithmetic (128-bit sums).
 *   Q6  one scan, the whole WHERE clause pushed down, the revenue summed
 *       exactly from the two projected columns.
 *   Q12 lineitem's filter pushed down (l_orderkey and l_shipmode
 *       projected); the surviving keys sorted; orders' o_orderkey read
 *       whole (only the row groups whose statistics can hold a key) and
 *       joined by merge where the keys ascend, by hash where they do not;
 *       o_orderpriority then read only at the joined rows (pages without
 *       one are skipped by the reader); grouped by l_shipmode.
 * Work is split by row groups over `threads` threads: each thread scans one
 * contiguous block of row groups with one scan (so that the scan's filter
 * steps adapt their order over the block); results are merged in file
 * order and sums are exact, so the answer does not depend on the thread
 * count.
 *
 * Answers are text: a header line of column names, then one line per row,
 * fields separated by '|', no padding, decimals with two digits (rounded
 * half away from zero), counts as integers.
 *
 * Values must fit: decimal columns of precision 18 or less (TPC-H's are
 * DECIMAL(15,2)); NULLs are honoured as SQL does in Q6 and Q12 and
 * rejected in Q1's columns (PLANK_ERR_UNSUPPORTED naming the column).
 */
#ifndef PLANK_TQ_TPCH_H
#define PLANK_TQ_TPCH_H

#include <stddef.h>
#include <stdint.h>

#include "plank.h"

typedef enum tq_query { TQ_Q1 = 1, TQ_Q6 = 6, TQ_Q12 = 12 } tq_query;

typedef struct tq_options {
    int32_t threads;    /* worker threads (1: the calling thread only); <= 0: 1 */
    bool memory_map;    /* map the files (plank_reader_options.memory_map); default false:
                           on the project's virtual machines a mapping's first-touch page
                           faults cost more than pread's copies (plain Q6 89 -> 33 ms) */
    /* Verify page CRC32s (plank_reader_options.verify_checksums). Default
     * false here, as DuckDB, Polars and Arrow read by default: the queries
     * are measured against them. */
    bool verify_checksums;
} tq_options;

void tq_options_init(tq_options *o);

/* The answer text (NUL-terminated, malloc'd: free with free()). */
typedef struct tq_answer {
    char *text;
    size_t len;
} tq_answer;

/* Runs query q over DIR/lineitem.parquet (and DIR/orders.parquet for Q12).
 * On failure out->text is NULL and err says why (which file, which column). */
plank_status tq_run(tq_query q, const char *dir, const tq_options *o, tq_answer *out,
                    plank_error *err);

/* The query's number from "q1", "q6", "q12" (case-insensitive); 0 if none. */
int tq_query_from_name(const char *name);

#endif
