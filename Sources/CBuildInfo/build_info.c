#include "build_info.h"

// Package.swift passes -DBOOKSCAN_COMMIT=<hex> when the environment names a commit.
#define BOOKSCAN_STRINGIFY(x) #x
#define BOOKSCAN_EXPAND(x) BOOKSCAN_STRINGIFY(x)

const char *bookscan_build_commit(void) {
#ifdef BOOKSCAN_COMMIT
    return BOOKSCAN_EXPAND(BOOKSCAN_COMMIT);
#else
    return "";
#endif
}
