#pragma once
#include <stddef.h>
#include <stdint.h>

/// Result of decoding a JPEG with libjpeg, allocated by the shim; free with bs_jpeg_image_free.
typedef struct {
    int width;            ///< decoded (possibly DCT-scaled) width
    int height;           ///< decoded (possibly DCT-scaled) height
    int source_width;     ///< width in the file
    int source_height;    ///< height in the file
    int components;       ///< 3 (RGB) or 1 (grayscale) on success
    unsigned char *pixels;/// RGB, row-major, width*height*3 bytes
} bs_jpeg_image;

/// Reads only the header. Returns 0 on success, -1 on error, -4 when the data ends inside the header
/// (message in errbuf).
int bs_jpeg_read_header(const unsigned char *data, size_t length,
                        int *width, int *height, int *components,
                        char *errbuf, size_t errbuf_len);

/// Decodes to RGB with DCT scaling 1/scale_denom (1, 2, 4 or 8).
/// max_pixels bounds the *source* width*height; a bigger header fails (-2) before any allocation.
/// strict != 0 turns corrupt-data warnings (bad entropy data, stray markers) into errors (-3).
/// -4: the data ran out before anything else went wrong (a truncated file): an error in strict mode,
/// and whenever libjpeg itself gives up after running out.
/// Returns 0 on success, negative on error (message in errbuf); out is filled on success only.
int bs_jpeg_decode(const unsigned char *data, size_t length, int scale_denom,
                   unsigned long long max_pixels, int strict, bs_jpeg_image *out,
                   char *errbuf, size_t errbuf_len);

/// Decodes to 8-bit grayscale (1 byte per pixel, components 1), DCT-scaled like bs_jpeg_decode, never strict.
int bs_jpeg_decode_gray(const unsigned char *data, size_t length, int scale_denom,
                        unsigned long long max_pixels, bs_jpeg_image *out,
                        char *errbuf, size_t errbuf_len);

/// Frees the pixel buffer of a decoded image.
void bs_jpeg_image_free(bs_jpeg_image *image);

/// Encodes RGB pixels to a baseline JPEG without any metadata. *out must be freed with bs_jpeg_free_buffer.
int bs_jpeg_encode(const unsigned char *rgb, int width, int height, int quality,
                   unsigned char **out, unsigned long *out_len,
                   char *errbuf, size_t errbuf_len);

/// Frees a buffer returned by bs_jpeg_encode.
void bs_jpeg_free_buffer(unsigned char *buffer);
