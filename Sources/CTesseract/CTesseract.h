#pragma once
// Tesseract 5's C API (Debian 12: libtesseract-dev); linked through pkg-config `tesseract`.
#include <tesseract/capi.h>
