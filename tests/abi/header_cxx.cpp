// header_cxx.cpp: plank.h as a C++ program sees it (ctest abi_header_cxx,
// compiled with -fsyntax-only -Wall -Wextra -Werror, with and without
// PLANK_NAMESPACE). The macros a caller uses must expand to valid C++.
#include "plank.h"

struct later_layout {
    size_t struct_size;
    uint8_t a;
    PLANK_LAYOUT_START uint8_t added; // how a future field of a struct_size struct starts
};
static_assert(offsetof(later_layout, added) >= sizeof(size_t) + 1, "new layout past the old");

int main() {
    plank_batch b = {};
    b.struct_size = sizeof b;
    plank_reader_options o;
    plank_reader_options_init(&o);
    return PLANK_VERSION_NUMBER == plank_version_number() && b.length == 0 ? 0 : 1;
}
