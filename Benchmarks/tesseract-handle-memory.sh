#!/usr/bin/env bash
# What one Tesseract handle costs, outside Swift: a small C program (compiled here against pkg-config
# tesseract) creates handles one after another with the variables `TesseractEngine` passes at Init, and
# prints the process's VmRSS / VmHWM and the time after each, and how much heap the handle left in use.
#
#     Benchmarks/tesseract-handle-memory.sh [HANDLES]      (default 3)
#
# The first handle also pages in the libraries and loads the word lists the later ones share (Tesseract
# keeps them in a process-wide cache), so the second handle's growth is the cost of one more reading thread.
set -euo pipefail
handles=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/probe.c" <<'C'
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tesseract/capi.h>
#include <time.h>

static long status_kb(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long value = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0) value = atol(line + n + 1);
    if (f) fclose(f);
    return value;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    int handles = argc > 1 ? atoi(argv[1]) : 3;
    mallopt(M_MMAP_THRESHOLD, 256 * 1024); /* as HeapPolicy.configure() */
    /* The variables TesseractEngine passes at Init (debug_file aside). */
    char *names[] = {"load_system_dawg", "load_freq_dawg", "load_unambig_dawg", "load_punc_dawg", "load_number_dawg",
                     "load_bigram_dawg", "user_defined_dpi", "tessedit_do_invert"};
    char *values[] = {"0", "0", "0", "0", "0", "0", "300", "0"};
    printf("before any handle: VmRSS %.1f MiB\n", status_kb("VmRSS:") / 1024.0);
    for (int i = 1; i <= handles; i++) {
        struct mallinfo2 before = mallinfo2();
        double start = now_ms();
        TessBaseAPI *api = TessBaseAPICreate();
        if (TessBaseAPIInit4(api, NULL, "eng", OEM_LSTM_ONLY, NULL, 0, names, values, 8, 0) != 0) {
            fprintf(stderr, "Tesseract could not load eng\n");
            return 1;
        }
        double took = now_ms() - start;
        malloc_trim(0);
        struct mallinfo2 after = mallinfo2();
        double heap = ((double)(after.uordblks + after.hblkhd) - (double)(before.uordblks + before.hblkhd)) / 1048576.0;
        printf("handle %d: init %.0f ms, heap in use +%.1f MiB, VmRSS %.1f MiB, VmHWM %.1f MiB\n", i, took, heap,
               status_kb("VmRSS:") / 1024.0, status_kb("VmHWM:") / 1024.0);
    }
    return 0;
}
C
cc -O2 -o "$work/probe" "$work/probe.c" $(pkg-config --cflags --libs tesseract)
# Tesseract's object cache complains at exit about the shared word lists still referenced: noise here.
"$work/probe" "$handles" 2> >(grep -v 'ObjectCache' >&2)
