#pragma once
#include <stdint.h>

/// Tesseract as Debian builds it (5.3, without TESSERACT_IMAGEDATA_AS_PIX) hands every text line it
/// recognises to its LSTM through an in-memory PNG: ImageData::SetPix writes the line with Leptonica's
/// pixWriteMem(IFF_PNG) (zlib level 6, libpng's adaptive row filters) and reads it straight back
/// (upstream: tesseract-ocr/tesseract#2965 made that optional at compile time only). The PNG is lossless,
/// so how hard it is compressed changes nothing but time: about a sixth of a shelf's reading time went
/// into deflate.
///
/// This shim defines png_set_compression_level in the executable (exported with
/// --export-dynamic-symbol, see Package.swift), so Leptonica's call resolves here first: it forwards to
/// libpng's own with level 0 (stored) and no row filter. Nothing else in bookscan writes PNG.

/// How many PNG writes went through the shim since the process started (0 when the interposition is
/// not in effect, e.g. an executable linked without the export).
uint64_t bs_uncompressed_png_writes(void);
