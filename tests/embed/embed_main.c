/* embed_main.c: two copies of plank in one program (ctest embed_two_copies).
 *
 * Copies A and B are the same objects renamed at link level (PLANK_NAMESPACE
 * A and B; abi/plank_abi.cmake), their internal pk_ symbols local to each
 * archive, so that the program links at all. Each copy writes a file and
 * each reads both, every value checked: a file written by one copy's writer
 * is read by the other's reader. Usage: embed_two_copies DIR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const embed_copy *copies[2] = {embed_copy_A(), embed_copy_B()};
    int failures = 0;
    if (copies[0]->open_function == copies[1]->open_function) {
        fprintf(stderr, "embed: both copies resolve plank_reader_open_path to one function\n");
        failures++;
    }
    char paths[2][4096];
    for (int i = 0; i < 2; i++) {
        const embed_copy *c = copies[i];
        if (c->version_number != c->header_version) {
            fprintf(stderr, "embed: copy %s: plank_version_number() %d, plank.h %d\n", c->name,
                    (int)c->version_number, (int)c->header_version);
            failures++;
        }
        snprintf(paths[i], sizeof paths[i], "%s/embed_%s.parquet", argv[1], c->name);
        if (c->write_file(paths[i]) != 0) {
            fprintf(stderr, "embed: copy %s could not write %s\n", c->name, paths[i]);
            return 1;
        }
    }
    for (int reader = 0; reader < 2; reader++) {
        for (int writer = 0; writer < 2; writer++) {
            int bad = copies[reader]->check_file(paths[writer], copies[writer]->name);
            if (bad)
                fprintf(stderr, "embed: copy %s reading copy %s's file: %d mismatches\n",
                        copies[reader]->name, copies[writer]->name, bad);
            else
                printf("embed: copy %s read copy %s's file\n", copies[reader]->name,
                       copies[writer]->name);
            failures += bad;
        }
    }
    for (int i = 0; i < 2; i++)
        remove(paths[i]);
    return failures ? 1 : 0;
}
