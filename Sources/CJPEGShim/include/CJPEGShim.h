#pragma once
#include <stddef.h>
#include <stdint.h>

/// The sizes a decode produced (its pixels are in the caller's buffer).
typedef struct {
    int width;            ///< decoded (possibly DCT-scaled) width
    int height;           ///< decoded (possibly DCT-scaled) height
    int source_width;     ///< width in the file
    int source_height;    ///< height in the file
    int components;       ///< 3 (RGB) or 1 (grayscale) on success
} bs_jpeg_image;

/// Reads only the header. Returns 0 on success, -1 on error, -4 when the data ends inside the header
/// (message in errbuf).
int bs_jpeg_read_header(const unsigned char *data, size_t length,
                        int *width, int *height, int *components,
                        char *errbuf, size_t errbuf_len);

/// Decodes to RGB (gray == 0) or 8-bit grayscale (gray != 0, 1 byte per pixel) with DCT scaling
/// 1/scale_denom (1, 2, 4 or 8; any other value means 1), into the caller's buffer `pixels`, which must
/// hold exactly the decoded size: ceil(width / scale_denom) * ceil(height / scale_denom) * components
/// bytes (-5 otherwise, before any pixel is written). The caller allocates it, so the decoded photo is
/// never held twice (a C buffer and a copy).
/// max_pixels bounds the *source* width*height; a bigger header fails (-2).
/// strict != 0 turns corrupt-data warnings (bad entropy data, stray markers) into errors (-3).
/// -4: the data ran out before anything else went wrong (a truncated file): an error in strict mode,
/// and whenever libjpeg itself gives up after running out.
/// Returns 0 on success, negative on error (message in errbuf); out is filled on success only.
int bs_jpeg_decode(const unsigned char *data, size_t length, int scale_denom,
                   unsigned long long max_pixels, int strict, int gray,
                   unsigned char *pixels, size_t pixels_len, bs_jpeg_image *out,
                   char *errbuf, size_t errbuf_len);

/// Encodes RGB pixels to a baseline JPEG without any metadata. *out must be freed with bs_jpeg_free_buffer.
int bs_jpeg_encode(const unsigned char *rgb, int width, int height, int quality,
                   unsigned char **out, unsigned long *out_len,
                   char *errbuf, size_t errbuf_len);

/// Frees a buffer returned by bs_jpeg_encode.
void bs_jpeg_free_buffer(unsigned char *buffer);
