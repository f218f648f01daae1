/* stub_libcurl.c: a shared library named libcurl.so.4 that is not libcurl
 * (none of curl's functions), for the test of plank's run-time loading of
 * libcurl (tests/CMakeLists.txt, cli_curl_stub): found first through
 * LD_LIBRARY_PATH, it must make a URL's open fail with a message naming
 * the missing function, not crash at a call through an empty pointer. */
int plank_stub_libcurl(void);
int plank_stub_libcurl(void) { return 0; }
