/* abi_version.c: plank.h's version macros, CMake's project(VERSION) (passed
 * as PLANK_CMAKE_VERSION*) and the linked shared library agree (ctest
 * abi_version). A release bumps project(VERSION) and the macros together. */
#include <plank.h>

#include <stdio.h>
#include <string.h>

_Static_assert(PLANK_VERSION_MINOR < 100 && PLANK_VERSION_PATCH < 100,
               "PLANK_VERSION_NUMBER gives MINOR and PATCH two decimal digits each");
#if PLANK_VERSION_NUMBER != PLANK_VERSION_MAJOR * 10000 + PLANK_VERSION_MINOR * 100 + PLANK_VERSION_PATCH
#error "PLANK_VERSION_NUMBER is not MAJOR * 10000 + MINOR * 100 + PATCH"
#endif

static int failures;

static void check(int ok, const char *what, const char *got, const char *want) {
    if (!ok) {
        fprintf(stderr, "abi_version: %s: %s, expected %s\n", what, got, want);
        failures++;
    }
}

static void check_int(long got, long want, const char *what) {
    char g[32], w[32];
    snprintf(g, sizeof g, "%ld", got);
    snprintf(w, sizeof w, "%ld", want);
    check(got == want, what, g, w);
}

int main(void) {
    check_int(PLANK_VERSION_MAJOR, PLANK_CMAKE_VERSION_MAJOR,
              "PLANK_VERSION_MAJOR against CMake's project(VERSION)");
    check_int(PLANK_VERSION_MINOR, PLANK_CMAKE_VERSION_MINOR,
              "PLANK_VERSION_MINOR against CMake's project(VERSION)");
    check_int(PLANK_VERSION_PATCH, PLANK_CMAKE_VERSION_PATCH,
              "PLANK_VERSION_PATCH against CMake's project(VERSION)");
    check(strcmp(PLANK_VERSION_STRING, PLANK_CMAKE_VERSION) == 0,
          "PLANK_VERSION_STRING against CMake's project(VERSION)", PLANK_VERSION_STRING,
          PLANK_CMAKE_VERSION);

    char parts[64];
    snprintf(parts, sizeof parts, "%d.%d.%d", PLANK_VERSION_MAJOR, PLANK_VERSION_MINOR,
             PLANK_VERSION_PATCH);
    check(strcmp(PLANK_VERSION_STRING, parts) == 0,
          "PLANK_VERSION_STRING against MAJOR.MINOR.PATCH", PLANK_VERSION_STRING, parts);

    /* The library linked (libplank.so here) was built from this header. */
    check_int(plank_version_number(), PLANK_VERSION_NUMBER,
              "plank_version_number() against PLANK_VERSION_NUMBER");
    check(strcmp(plank_version_string(), PLANK_VERSION_STRING) == 0,
          "plank_version_string() against PLANK_VERSION_STRING", plank_version_string(),
          PLANK_VERSION_STRING);

    if (failures == 0)
        printf("abi_version: %s (%d) in plank.h, CMake and the library\n", PLANK_VERSION_STRING,
               (int)PLANK_VERSION_NUMBER);
    return failures ? 1 : 0;
}
