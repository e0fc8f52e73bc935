#define _GNU_SOURCE
#include "CTesseractShim.h"
#include <dlfcn.h>
#include <stdatomic.h>

// libpng's own functions, found after this executable in the lookup order (libpng is loaded as
// Leptonica's dependency before any constructor runs).
typedef void (*set_compression_level_fn)(void *png_ptr, int level);
typedef void (*set_filter_fn)(void *png_ptr, int method, int filters);
static set_compression_level_fn libpng_set_compression_level;
static set_filter_fn libpng_set_filter;
static _Atomic uint64_t writes;

__attribute__((constructor)) static void find_libpng(void) {
    libpng_set_compression_level = (set_compression_level_fn)dlsym(RTLD_NEXT, "png_set_compression_level");
    libpng_set_filter = (set_filter_fn)dlsym(RTLD_NEXT, "png_set_filter");
}

/// Interposes libpng's png_set_compression_level (see CTesseractShim.h): whatever level the caller
/// asks for, the stream is stored (level 0) and rows unfiltered (PNG_FILTER_NONE, 0x08).
void png_set_compression_level(void *png_ptr, int level) {
    (void)level;
    if (libpng_set_compression_level) libpng_set_compression_level(png_ptr, 0);
    if (libpng_set_filter) libpng_set_filter(png_ptr, 0, 0x08);
    atomic_fetch_add_explicit(&writes, 1, memory_order_relaxed);
}

uint64_t bs_uncompressed_png_writes(void) {
    return atomic_load_explicit(&writes, memory_order_relaxed);
}
