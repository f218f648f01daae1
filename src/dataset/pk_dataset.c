/*
 * pk_dataset.c: a dataset's files, their footers, partitions and schema.
 *
 * Sources are expanded into paths (a file; a directory walked recursively
 * for *.parquet, skipping hidden and '_' names; a glob matched component by
 * component from its non-wildcard start, '**' spanning directories), sorted
 * by bytes and made unique. Walks follow links to directories but never
 * into a directory they are already inside (a cycle), and list at most
 * max_directories directories. Footers are read on a task pool (one reader per
 * file, each kept open), the first failing file in path order reported.
 * Then the top-level Arrow fields of every file are unified by name and the
 * hive keys (key=value directory names) parsed and typed.
 */
#define _POSIX_C_SOURCE 200809L
#include "pk_dataset.h"
#include "../common/pk_struct.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

void plank_dataset_options_init(plank_dataset_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->hive_partitioning = true;
}

/* ---- Finding the files ------------------------------------------------------------------ */

typedef struct pathlist {
    const plank_allocator *a;
    char **p;
    int32_t n, cap;
    int64_t dirs, max_dirs; /* listed so far, and at most */
} pathlist;

/* The default of max_directories: links that are not cycles can still make
 * a tree of paths exponentially larger than the directories behind it (each
 * level holding two links to the next), and that must end in an error, not
 * run for ever. */
#define PK_DS_MAX_DIRS ((int64_t)1 << 20)

/* The directory being walked and those above it. One whose device and
 * inode match any of them closes a cycle of links (x/self -> ., x/up ->
 * ..) and is not entered again: the depth bound alone let two such links
 * make the walk 2^64 directories long. */
typedef struct dir_chain {
    dev_t dev;
    ino_t ino;
    const struct dir_chain *up;
} dir_chain;

static bool in_chain(const dir_chain *c, const struct stat *sb) {
    for (; c; c = c->up)
        if (c->dev == sb->st_dev && c->ino == sb->st_ino) return true;
    return false;
}

static DIR *open_listed(pathlist *l, const char *dir, plank_error *err, plank_status *st) {
    *st = PLANK_OK;
    if (++l->dirs > l->max_dirs) {
        *st = pk_error_set(err, PLANK_ERR_LIMIT,
                           "%s: more than %lld directories to list (max_directories)", dir,
                           (long long)l->max_dirs);
        return NULL;
    }
    return opendir(dir);
}

static plank_status add_path(pathlist *l, const char *p, size_t len, plank_error *err) {
    if (l->n == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 16;
        PK_RETURN_IF(cap <= l->cap, err, PLANK_ERR_LIMIT, "too many files");
        char **np = pk_realloc(l->a, l->p, (size_t)l->cap * sizeof *np, (size_t)cap * sizeof *np);
        if (!np) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        l->p = np;
        l->cap = cap;
    }
    char *s = pk_strndup(l->a, p, len);
    if (!s) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    l->p[l->n++] = s;
    return PLANK_OK;
}

static bool hidden(const char *name) { return name[0] == '.' || name[0] == '_'; }

static bool ends_parquet(const char *name) {
    size_t l = strlen(name);
    return l > 8 && strcmp(name + l - 8, ".parquet") == 0;
}

/* Every *.parquet file below dir (chain: dir and the directories above it). */
static plank_status walk_dir(pathlist *l, const char *dir, const dir_chain *chain, int depth,
                             plank_error *err) {
    PK_RETURN_IF(depth > 64, err, PLANK_ERR_LIMIT, "%s: directories nested deeper than 64", dir);
    plank_status st;
    DIR *d = open_listed(l, dir, err, &st);
    PK_FORWARD(st);
    if (!d) return pk_error_set(err, PLANK_ERR_IO, "%s: cannot list: %s", dir, strerror(errno));
    struct dirent *e;
    while (st == PLANK_OK && (e = readdir(d))) {
        if (hidden(e->d_name)) continue;
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *p = pk_malloc(l->a, n);
        if (!p) {
            st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        snprintf(p, n, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(p, &sb) == 0) {
            if (S_ISDIR(sb.st_mode)) {
                dir_chain below = {sb.st_dev, sb.st_ino, chain};
                if (!in_chain(chain, &sb)) st = walk_dir(l, p, &below, depth + 1, err);
            } else if (S_ISREG(sb.st_mode) && ends_parquet(e->d_name)) st = add_path(l, p, n - 1, err);
        }
        pk_free(l->a, p, n);
    }
    closedir(d);
    return st;
}

static bool has_wild(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i] == '*' || s[i] == '?' || s[i] == '[') return true;
    return false;
}

/* Matches the components pat[0..np) against the directory tree at base
 * (chain: base and the directories above it, NULL when base is not one). */
static plank_status walk_glob(pathlist *l, const char *base, const dir_chain *chain, char **pat,
                              int32_t np, int depth, plank_error *err) {
    PK_RETURN_IF(depth > 64, err, PLANK_ERR_LIMIT, "%s: directories nested deeper than 64", base);
    if (np == 0) {
        struct stat sb;
        if (stat(base, &sb) == 0 && S_ISREG(sb.st_mode)) return add_path(l, base, strlen(base), err);
        return PLANK_OK;
    }
    bool star2 = strcmp(pat[0], "**") == 0;
    if (star2) PK_FORWARD(walk_glob(l, base, chain, pat + 1, np - 1, depth + 1, err)); /* zero dirs */
    plank_status st;
    DIR *d = open_listed(l, base[0] ? base : ".", err, &st);
    PK_FORWARD(st);
    if (!d) return PLANK_OK; /* not a directory: nothing matches below it */
    struct dirent *e;
    while (st == PLANK_OK && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (star2 ? hidden(e->d_name) : fnmatch(pat[0], e->d_name, FNM_PERIOD) != 0) continue;
        size_t n = strlen(base) + strlen(e->d_name) + 2;
        char *p = pk_malloc(l->a, n);
        if (!p) {
            st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        snprintf(p, n, "%s%s%s", base, base[0] ? "/" : "", e->d_name);
        struct stat sb;
        bool dir = stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
        dir_chain below = {dir ? sb.st_dev : 0, dir ? sb.st_ino : 0, chain};
        if (dir && in_chain(chain, &sb)) {
            /* a cycle of links: nothing new below it */
        } else if (star2) {
            if (dir) st = walk_glob(l, p, &below, pat, np, depth + 1, err); /* '**' goes on */
        } else if (np == 1 || dir) {
            st = walk_glob(l, p, dir ? &below : NULL, pat + 1, np - 1, depth + 1, err);
        }
        pk_free(l->a, p, n);
    }
    closedir(d);
    return st;
}

static plank_status expand_glob(pathlist *l, const char *g, plank_error *err) {
    size_t len = strlen(g);
    char *copy = pk_strndup(l->a, g, len);
    int32_t cap = 2;
    for (size_t i = 0; i < len; i++) cap += g[i] == '/';
    char **parts = pk_calloc(l->a, (size_t)cap * sizeof *parts);
    if (!copy || !parts) {
        pk_free(l->a, copy, len + 1);
        pk_free(l->a, parts, (size_t)cap * sizeof *parts);
        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    int32_t np = 0;
    for (char *t = copy; *t;) {
        char *e = strchr(t, '/');
        if (e) *e = '\0';
        if (*t) parts[np++] = t;
        if (!e) break;
        t = e + 1;
    }
    /* The leading components without wildcards are the base directory. */
    int32_t k = 0;
    size_t blen = g[0] == '/' ? 1 : 0;
    char *base = pk_calloc(l->a, len + 2);
    plank_status st = base ? PLANK_OK : pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    if (base && g[0] == '/') base[0] = '/';
    while (st == PLANK_OK && k + 1 < np && !has_wild(parts[k], strlen(parts[k]))) {
        size_t pl = strlen(parts[k]);
        if (blen && base[blen - 1] != '/') base[blen++] = '/';
        memcpy(base + blen, parts[k], pl);
        blen += pl;
        k++;
    }
    struct stat bsb;
    bool bdir = st == PLANK_OK && stat(base[0] ? base : ".", &bsb) == 0 && S_ISDIR(bsb.st_mode);
    dir_chain root = {bdir ? bsb.st_dev : 0, bdir ? bsb.st_ino : 0, NULL};
    if (st == PLANK_OK) st = walk_glob(l, base, bdir ? &root : NULL, parts + k, np - k, 0, err);
    pk_free(l->a, base, len + 2);
    pk_free(l->a, parts, (size_t)cap * sizeof *parts);
    pk_free(l->a, copy, len + 1);
    return st;
}

static int cmp_paths(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static plank_status expand(pathlist *l, const char *const *src, int32_t n, plank_error *err) {
    for (int32_t i = 0; i < n; i++) {
        const char *s = src[i];
        PK_RETURN_IF(!s || !*s, err, PLANK_ERR_INVALID_ARGUMENT, "source %d is empty", (int)i);
        if (plank_is_url(s)) {
            size_t sl = strlen(s);
            PK_RETURN_IF(has_wild(s, sl) || s[sl - 1] == '/', err, PLANK_ERR_UNSUPPORTED,
                         "%s: remote directories and globs are not listed; name the files", s);
            PK_FORWARD(add_path(l, s, sl, err));
            continue;
        }
        struct stat sb;
        if (has_wild(s, strlen(s)) && stat(s, &sb) != 0) {
            int32_t before = l->n;
            PK_FORWARD(expand_glob(l, s, err));
            PK_RETURN_IF(l->n == before, err, PLANK_ERR_IO, "%s: no file matches", s);
            continue;
        }
        PK_RETURN_IF(stat(s, &sb) != 0, err, PLANK_ERR_IO, "%s: %s", s, strerror(errno));
        if (S_ISDIR(sb.st_mode)) {
            int32_t before = l->n;
            dir_chain root = {sb.st_dev, sb.st_ino, NULL};
            PK_FORWARD(walk_dir(l, s, &root, 0, err));
            PK_RETURN_IF(l->n == before, err, PLANK_ERR_IO, "%s: no .parquet file below it", s);
        } else {
            PK_FORWARD(add_path(l, s, strlen(s), err));
        }
    }
    qsort(l->p, (size_t)l->n, sizeof *l->p, cmp_paths);
    int32_t k = 0;
    for (int32_t i = 0; i < l->n; i++) {
        if (k > 0 && strcmp(l->p[i], l->p[k - 1]) == 0) {
            pk_free(l->a, l->p[i], strlen(l->p[i]) + 1);
            continue;
        }
        l->p[k++] = l->p[i];
    }
    l->n = k;
    return PLANK_OK;
}

/* ---- Footers, in parallel ---------------------------------------------------------------- */

typedef struct opener {
    plank_dataset *d;
    const plank_reader_options *ro;
    const plank_remote_options *rm;
    plank_status *st;
    plank_error *errs;
} opener;

static void open_one(void *ctx, int64_t i) {
    opener *o = ctx;
    plank_error_init(&o->errs[i]);
    o->st[i] = plank_reader_open_url(&o->d->readers[i], o->d->paths[i], o->rm, o->ro, &o->errs[i]);
}

static plank_status open_readers(plank_dataset *d, const plank_reader_options *ro,
                                 const plank_remote_options *rm, int32_t threads,
                                 plank_error *err) {
    opener o = {d, ro, rm, NULL, NULL};
    o.st = pk_calloc(&d->alloc, (size_t)d->nfiles * sizeof *o.st + 1);
    o.errs = pk_calloc(&d->alloc, (size_t)d->nfiles * sizeof *o.errs + 1);
    plank_status st = o.st && o.errs ? PLANK_OK : pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY,
                                                               "out of memory");
    pk_exec *ex = NULL;
    int32_t t = threads > 0 ? threads : pk_cpu_count();
    for (int32_t i = 0; threads <= 0 && i < d->nfiles; i++)
        if (plank_is_url(d->paths[i])) t = t < 16 ? 16 : t; /* waiting, not computing */
    if (t > d->nfiles) t = d->nfiles;
    if (st == PLANK_OK && t > 1) st = pk_exec_new(&ex, t - 1, &d->alloc, err);
    if (st == PLANK_OK) {
        plank_executor e;
        if (ex) pk_exec_executor(ex, &e);
        pk_exec_for(ex ? &e : NULL, d->nfiles, open_one, &o);
        for (int32_t i = 0; i < d->nfiles; i++) {
            if (o.st[i] == PLANK_OK) continue;
            st = o.st[i];
            if (err) {
                *err = o.errs[i];
                pk_error_prefix(err, "%s", d->paths[i]);
            }
            break;
        }
    }
    pk_exec_free(ex);
    if (o.st) pk_free(&d->alloc, o.st, (size_t)d->nfiles * sizeof *o.st + 1);
    if (o.errs) pk_free(&d->alloc, o.errs, (size_t)d->nfiles * sizeof *o.errs + 1);
    return st;
}

/* ---- The unified schema ------------------------------------------------------------------ */

/* Position of a string family format: bit 0 binary, bit 1 large; -1 other. */
static int strfam(const char *f) {
    if (strcmp(f, "u") == 0) return 0;
    if (strcmp(f, "z") == 0) return 1;
    if (strcmp(f, "U") == 0) return 2;
    if (strcmp(f, "Z") == 0) return 3;
    return -1;
}

/* The format both a and b widen to losslessly, or NULL. */
static const char *widest(const char *a, const char *b) {
    if (strcmp(a, b) == 0) return a;
    if ((!strcmp(a, "i") && !strcmp(b, "l")) || (!strcmp(a, "l") && !strcmp(b, "i"))) return "l";
    if ((!strcmp(a, "f") && !strcmp(b, "g")) || (!strcmp(a, "g") && !strcmp(b, "f"))) return "g";
    int x = strfam(a), y = strfam(b);
    if (x >= 0 && y >= 0) {
        static const char *const f[4] = {"u", "z", "U", "Z"};
        return f[x | y];
    }
    return NULL;
}

static pk_widen widen_kind(const char *from, const char *to) {
    if (strcmp(from, to) == 0) return PK_W_NONE;
    if (!strcmp(from, "i")) return PK_W_I32_I64;
    if (!strcmp(from, "f")) return PK_W_F32_F64;
    int x = strfam(from), y = strfam(to);
    return (x & 2) == (y & 2) ? PK_W_RELABEL : PK_W_LARGE;
}

static plank_status unify(plank_dataset *d, plank_error *err) {
    int32_t nf = d->nfiles;
    struct ArrowSchema *sc = pk_calloc(&d->alloc, (size_t)nf * sizeof *sc + 1);
    if (!sc) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    plank_status st = PLANK_OK;
    int32_t total = 0;
    for (int32_t f = 0; f < nf && st == PLANK_OK; f++) {
        st = plank_reader_arrow_schema(d->readers[f], &d->arrow, &sc[f], err);
        if (st != PLANK_OK && err) pk_error_prefix(err, "%s", d->paths[f]);
        if (st == PLANK_OK) total += (int32_t)sc[f].n_children;
    }
    if (st == PLANK_OK) {
        d->fields = pk_calloc(&d->alloc, (size_t)total * sizeof *d->fields + 1);
        d->fields_cap = total;
        if (!d->fields) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    /* Fields in order of first appearance; the widest type of each. */
    const char **fmt = pk_calloc(&d->alloc, (size_t)total * sizeof *fmt + 1);
    if (!fmt && st == PLANK_OK) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    for (int32_t f = 0; f < nf && st == PLANK_OK; f++) {
        for (int64_t c = 0; c < sc[f].n_children && st == PLANK_OK; c++) {
            const struct ArrowSchema *x = sc[f].children[c];
            int32_t k = 0;
            while (k < d->nfields && strcmp(d->fields[k].name, x->name) != 0) k++;
            if (k == d->nfields) {
                d->fields[k].name = pk_strndup(&d->alloc, x->name, strlen(x->name));
                if (!d->fields[k].name) {
                    st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
                    break;
                }
                st = pk_ds_schema_copy(&d->alloc, x, &d->fields[k].type, err);
                d->fields[k].first_file = f;
                fmt[k] = x->format;
                d->nfields++;
                continue;
            }
            const struct ArrowSchema *y = &d->fields[k].type;
            const char *w = x->n_children == 0 && y->n_children == 0 && !x->dictionary &&
                                    !y->dictionary
                                ? widest(fmt[k], x->format)
                                : (pk_ds_same_type(x, y) ? x->format : NULL);
            if (!w)
                st = pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT,
                                  "column \"%s\" is Arrow type \"%s\" in %s and \"%s\" in %s, "
                                  "which do not widen to one type",
                                  x->name, y->format, d->paths[d->fields[k].first_file],
                                  x->format, d->paths[f]);
            else
                fmt[k] = w;
        }
    }
    /* Retype the widened fields, then each file's mapping. */
    for (int32_t k = 0; k < d->nfields && st == PLANK_OK; k++) {
        pk_dsfield *fd = &d->fields[k];
        fd->type.flags |= ARROW_FLAG_NULLABLE; /* absent from a file: null there */
        if (strcmp(fd->type.format, fmt[k]) == 0) continue;
        struct ArrowSchema t;
        st = pk_ds_schema_leaf(&d->alloc, fmt[k], fd->name, fd->type.flags, &t, err);
        if (st == PLANK_OK) {
            fd->type.release(&fd->type);
            fd->type = t;
        }
    }
    if (st == PLANK_OK) {
        size_t cells = (size_t)nf * (size_t)d->nfields + 1;
        d->col = pk_malloc(&d->alloc, cells * sizeof *d->col);
        d->widen = pk_calloc(&d->alloc, cells * sizeof *d->widen);
        if (!d->col || !d->widen) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (int32_t f = 0; f < nf && st == PLANK_OK; f++) {
        for (int32_t k = 0; k < d->nfields; k++) {
            size_t at = (size_t)f * (size_t)d->nfields + (size_t)k;
            d->col[at] = -1;
            for (int64_t c = 0; c < sc[f].n_children; c++) {
                if (strcmp(sc[f].children[c]->name, d->fields[k].name) != 0) continue;
                d->col[at] = (int32_t)c;
                d->widen[at] = widen_kind(sc[f].children[c]->format, d->fields[k].type.format);
                break;
            }
        }
    }
    for (int32_t f = 0; f < nf; f++)
        if (sc[f].release) sc[f].release(&sc[f]);
    pk_free(&d->alloc, sc, (size_t)nf * sizeof *sc + 1);
    if (fmt) pk_free(&d->alloc, fmt, (size_t)total * sizeof *fmt + 1);
    return st;
}

/* ---- Hive partitions --------------------------------------------------------------------- */

static int hexv(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Percent-decodes s[0..n) into a new string. */
static char *decode(const plank_allocator *a, const char *s, size_t n, size_t *len) {
    char *o = pk_malloc(a, n + 1);
    if (!o) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && hexv(s[i + 1]) >= 0 && hexv(s[i + 2]) >= 0) {
            o[k++] = (char)(hexv(s[i + 1]) * 16 + hexv(s[i + 2]));
            i += 2;
        } else {
            o[k++] = s[i];
        }
    }
    o[k] = 0;
    *len = k;
    return o;
}

/* The whole of s[0..n) as a decimal integer. A decoded value may hold a
 * NUL ("12%00x"): the digits must run to n, not to the first NUL. */
static bool parse_int(const char *s, size_t n, int64_t *v) {
    if (n == 0 || n > 20) return false;
    char buf[24];
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    long long x = strtoll(buf, &end, 10);
    if (errno || end != buf + n || !(buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9')))
        return false;
    *v = x;
    return true;
}

/* The next key=value directory of a path, from *at up to the file name
 * (end): key c[0..kl), value v[0..vl). */
static bool next_pair(const char **at, const char *end, const char **c, size_t *kl,
                      const char **v, size_t *vl) {
    while (end && *at < end) {
        const char *s = *at;
        const char *e = memchr(s, '/', (size_t)(end - s));
        if (!e) e = end;
        *at = e + 1;
        const char *eq = memchr(s, '=', (size_t)(e - s));
        if (!eq || eq == s) continue;
        *c = s;
        *kl = (size_t)(eq - s);
        *v = eq + 1;
        *vl = (size_t)(e - eq - 1);
        return true;
    }
    return false;
}

static plank_status partitions(plank_dataset *d, plank_error *err) {
    /* The keys, in order of first appearance. */
    int32_t cap = 0;
    for (int32_t f = 0; f < d->nfiles; f++) {
        const char *p = d->paths[f], *c, *val;
        const char *slash = strrchr(p, '/');
        size_t kl, vl;
        for (const char *at = p; next_pair(&at, slash, &c, &kl, &val, &vl);) {
            {
                int32_t k = 0;
                while (k < d->nkeys && !(strlen(d->keys[k]) == kl && !memcmp(d->keys[k], c, kl)))
                    k++;
                if (k == d->nkeys) {
                    if (d->nkeys == cap) {
                        int32_t nc = cap ? cap * 2 : 4;
                        char **nk = pk_realloc(&d->alloc, d->keys, (size_t)cap * sizeof *nk,
                                               (size_t)nc * sizeof *nk);
                        if (!nk) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
                        d->keys = nk;
                        cap = nc;
                    }
                    d->keys[d->nkeys] = pk_strndup(&d->alloc, c, kl);
                    if (!d->keys[d->nkeys])
                        return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
                    d->nkeys++;
                }
            }
        }
    }
    if (d->nkeys == 0) return PLANK_OK;
    if (cap > d->nkeys) {
        /* keep the array's size exact, for the free */
        char **nk = pk_realloc(&d->alloc, d->keys, (size_t)cap * sizeof *nk,
                               (size_t)d->nkeys * sizeof *nk);
        if (!nk) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
        d->keys = nk;
    }
    for (int32_t k = 0; k < d->nkeys; k++)
        for (int32_t j = 0; j < d->nfields; j++)
            PK_RETURN_IF(strcmp(d->keys[k], d->fields[j].name) == 0, err,
                         PLANK_ERR_INVALID_ARGUMENT,
                         "partition key \"%s\" is also a column of %s", d->keys[k],
                         d->paths[d->fields[j].first_file]);
    size_t cells = (size_t)d->nfiles * (size_t)d->nkeys;
    d->pv = pk_calloc(&d->alloc, cells * sizeof *d->pv);
    d->ktype = pk_calloc(&d->alloc, (size_t)d->nkeys * sizeof *d->ktype);
    if (!d->pv || !d->ktype) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < cells; i++) d->pv[i].null = true;
    bool *not_int = pk_calloc(&d->alloc, (size_t)d->nkeys);
    bool *not_date = pk_calloc(&d->alloc, (size_t)d->nkeys);
    plank_status st = not_int && not_date ? PLANK_OK
                                          : pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY,
                                                         "out of memory");
    for (int32_t f = 0; f < d->nfiles && st == PLANK_OK; f++) {
        const char *p = d->paths[f], *c, *val;
        const char *slash = strrchr(p, '/');
        size_t kl, vl;
        for (const char *at = p; st == PLANK_OK && next_pair(&at, slash, &c, &kl, &val, &vl);) {
            {
                int32_t k = 0;
                while (strlen(d->keys[k]) != kl || memcmp(d->keys[k], c, kl)) k++;
                pk_pvalue *v = &d->pv[(size_t)f * (size_t)d->nkeys + (size_t)k];
                if (v->s) pk_free(&d->alloc, v->s, v->len + 1); /* the innermost wins */
                v->s = decode(&d->alloc, val, vl, &v->len);
                if (!v->s) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
                v->null = !v->s || strcmp(v->s, "__HIVE_DEFAULT_PARTITION__") == 0;
                if (!v->null) {
                    int64_t x;
                    int32_t days;
                    if (!parse_int(v->s, v->len, &x)) not_int[k] = true;
                    if (!pk_parse_date(v->s, v->len, &days) || v->len != 10) not_date[k] = true;
                }
            }
        }
    }
    for (int32_t k = 0; k < d->nkeys && st == PLANK_OK; k++) {
        d->ktype[k] = !not_int[k] ? PK_P_INT : !not_date[k] ? PK_P_DATE : PK_P_STRING;
        for (int32_t f = 0; f < d->nfiles; f++) {
            pk_pvalue *v = &d->pv[(size_t)f * (size_t)d->nkeys + (size_t)k];
            if (v->null) continue;
            if (d->ktype[k] == PK_P_INT) {
                parse_int(v->s, v->len, &v->i);
            } else if (d->ktype[k] == PK_P_DATE) {
                int32_t days = 0;
                pk_parse_date(v->s, v->len, &days);
                v->i = days;
            }
        }
    }
    if (not_int) pk_free(&d->alloc, not_int, (size_t)d->nkeys);
    if (not_date) pk_free(&d->alloc, not_date, (size_t)d->nkeys);
    return st;
}

/* ---- Open, close --------------------------------------------------------------------- */

static void dataset_free(plank_dataset *d) {
    plank_allocator a = d->alloc;
    for (int32_t f = 0; f < d->nfiles; f++) {
        if (d->readers && d->readers[f]) plank_reader_close(d->readers[f]);
        if (d->paths && d->paths[f]) pk_free(&a, d->paths[f], strlen(d->paths[f]) + 1);
    }
    if (d->paths) pk_free(&a, d->paths, (size_t)d->paths_cap * sizeof *d->paths);
    if (d->readers) pk_free(&a, d->readers, (size_t)d->nfiles * sizeof *d->readers + 1);
    for (int32_t k = 0; k < d->nfields; k++) {
        pk_free(&a, d->fields[k].name, strlen(d->fields[k].name) + 1);
        if (d->fields[k].type.release) d->fields[k].type.release(&d->fields[k].type);
    }
    size_t cells = (size_t)d->nfiles * (size_t)d->nfields + 1;
    if (d->fields) pk_free(&a, d->fields, (size_t)d->fields_cap * sizeof *d->fields + 1);
    if (d->col) pk_free(&a, d->col, cells * sizeof *d->col);
    if (d->widen) pk_free(&a, d->widen, cells * sizeof *d->widen);
    for (int32_t k = 0; k < d->nkeys; k++) pk_free(&a, d->keys[k], strlen(d->keys[k]) + 1);
    if (d->keys) pk_free(&a, d->keys, (size_t)d->nkeys * sizeof *d->keys);
    if (d->pv) {
        size_t pc = (size_t)d->nfiles * (size_t)d->nkeys;
        for (size_t i = 0; i < pc; i++)
            if (d->pv[i].s) pk_free(&a, d->pv[i].s, d->pv[i].len + 1);
        pk_free(&a, d->pv, pc * sizeof *d->pv);
    }
    if (d->ktype) pk_free(&a, d->ktype, (size_t)d->nkeys * sizeof *d->ktype);
    pk_free(&a, d, sizeof *d);
}

void pk_dataset_retain(plank_dataset *d) { atomic_fetch_add(&d->refs, 1); }
void pk_dataset_release(plank_dataset *d) {
    if (d && atomic_fetch_sub(&d->refs, 1) == 1) dataset_free(d);
}
void plank_dataset_close(plank_dataset *d) { pk_dataset_release(d); }

plank_status plank_dataset_open(plank_dataset **out, const char *const *sources,
                                int32_t num_sources, const plank_dataset_options *o,
                                plank_error *err) {
    plank_error_init(err);
    if (out) *out = NULL;
    if (!out || !sources || num_sources <= 0)
        return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "no sources");
    plank_dataset_options opt;
    plank_dataset_options_init(&opt);
    if (o) PK_FORWARD(pk_struct_read(&opt, o, &pk_layout_dataset_options, err));
    const plank_allocator *a = opt.reader && opt.reader->allocator ? opt.reader->allocator
                                                                   : pk_default_allocator();
    plank_dataset *d = pk_calloc(a, sizeof *d);
    if (!d) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    d->alloc = *a;
    atomic_init(&d->refs, 1);
    plank_status st = pk_arrow_options_load(&d->arrow, opt.arrow, err);
    d->arrow.threads = 1;
    d->arrow.executor = NULL;
    pathlist l = {&d->alloc, NULL, 0, 0, 0,
                  opt.max_directories > 0 ? opt.max_directories : PK_DS_MAX_DIRS};
    if (st == PLANK_OK) st = expand(&l, sources, num_sources, err);
    d->paths = l.p;
    d->paths_cap = l.cap;
    d->nfiles = l.n;
    if (st == PLANK_OK) {
        d->readers = pk_calloc(&d->alloc, (size_t)d->nfiles * sizeof *d->readers + 1);
        if (!d->readers) st = pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (st == PLANK_OK) st = open_readers(d, opt.reader, opt.remote, opt.threads, err);
    for (int32_t f = 0; st == PLANK_OK && f < d->nfiles; f++)
        d->rows += plank_reader_num_rows(d->readers[f]);
    if (st == PLANK_OK) st = unify(d, err);
    if (st == PLANK_OK && opt.hive_partitioning) st = partitions(d, err);
    if (st != PLANK_OK) {
        dataset_free(d);
        return st;
    }
    *out = d;
    return PLANK_OK;
}

int32_t plank_dataset_num_files(const plank_dataset *d) { return d ? d->nfiles : 0; }
const char *plank_dataset_file_path(const plank_dataset *d, int32_t i) {
    return d && i >= 0 && i < d->nfiles ? d->paths[i] : NULL;
}
plank_reader *plank_dataset_file_reader(const plank_dataset *d, int32_t i) {
    return d && i >= 0 && i < d->nfiles ? d->readers[i] : NULL;
}
int64_t plank_dataset_num_rows(const plank_dataset *d) { return d ? d->rows : 0; }

static const char *ptype_format(pk_ptype t) {
    return t == PK_P_INT ? "l" : t == PK_P_DATE ? "tdD" : "u";
}

plank_status plank_dataset_arrow_schema(const plank_dataset *d, struct ArrowSchema *out,
                                        plank_error *err) {
    plank_error_init(err);
    if (!d || !out) return pk_error_set(err, PLANK_ERR_INVALID_ARGUMENT, "NULL argument");
    int32_t n = d->nfields + d->nkeys;
    struct ArrowSchema *kids = pk_calloc(&d->alloc, (size_t)n * sizeof *kids + 1);
    if (!kids) return pk_error_set(err, PLANK_ERR_OUT_OF_MEMORY, "out of memory");
    plank_status st = PLANK_OK;
    for (int32_t k = 0; k < d->nfields && st == PLANK_OK; k++)
        st = pk_ds_schema_copy(&d->alloc, &d->fields[k].type, &kids[k], err);
    for (int32_t k = 0; k < d->nkeys && st == PLANK_OK; k++)
        st = pk_ds_schema_leaf(&d->alloc, ptype_format(d->ktype[k]), d->keys[k],
                               ARROW_FLAG_NULLABLE, &kids[d->nfields + k], err);
    if (st == PLANK_OK) st = pk_ds_schema_struct(&d->alloc, kids, n, out, err);
    for (int32_t k = 0; k < n && st != PLANK_OK; k++)
        if (kids[k].release) kids[k].release(&kids[k]);
    pk_free(&d->alloc, kids, (size_t)n * sizeof *kids + 1);
    return st;
}

const char *pk_ds_partition_format(pk_ptype t) { return ptype_format(t); }
