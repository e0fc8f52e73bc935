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

/// What a JPEG header declares, and what decoding it would make libjpeg allocate.
typedef struct {
    int width;
    int height;
    int components;
    int progressive;                       ///< 1 for a progressive (SOF2/SOF6/SOF10) JPEG
    unsigned long long coefficient_bytes;  ///< libjpeg's whole-image coefficient buffer: 0 for a single-scan JPEG
    int scans;                             ///< start-of-scan markers in the whole data (bs_jpeg_count_scans)
    int arithmetic;                        ///< 1 for arithmetic entropy coding (SOF9–SOF11, SOF13–SOF15)
} bs_jpeg_header;

/// Counts the start-of-scan markers by walking the marker segments and skipping entropy-coded data (memchr),
/// without decoding: what libjpeg would count, in microseconds, whatever size the header declares.
int bs_jpeg_count_scans(const unsigned char *data, size_t length);

/// Limits of one decode; 0 in a field means no limit.
typedef struct {
    int max_scans;                  ///< libjpeg reaching scan max_scans + 1 stops the decode (BS_JPEG_OVER_SCANS), as djpeg
                                    ///< -maxscans does; callers refuse sooner from bs_jpeg_count_scans, before decoding
    unsigned long long max_memory;  ///< largest coefficient buffer (BS_JPEG_OVER_MEMORY before it is allocated);
                                    ///< libjpeg's max_memory_to_use is this plus room for its row buffers
    long long time_limit_ns;        ///< a decode still running after this long stops (BS_JPEG_OVER_TIME)
    int refuse_arithmetic;          ///< != 0: an arithmetic-coded JPEG is refused after its header (BS_JPEG_ARITHMETIC):
                                    ///< running out of data there is legal (libjpeg feeds zeros, no warning), so a
                                    ///< few hundred bytes can declare a huge image that decodes without complaint
} bs_jpeg_limits;

/// bs_jpeg_decode's status when a limit stopped it (message in errbuf).
#define BS_JPEG_OVER_MEMORY (-6)
#define BS_JPEG_OVER_SCANS (-7)
#define BS_JPEG_OVER_TIME (-8)
#define BS_JPEG_ARITHMETIC (-9)

/// Reads only the header (no pixel or coefficient memory). Returns 0 on success, -1 on error, -4 when the
/// data ends inside the header (message in errbuf).
int bs_jpeg_read_header(const unsigned char *data, size_t length, bs_jpeg_header *out,
                        char *errbuf, size_t errbuf_len);

/// Decodes to RGB (gray == 0) or 8-bit grayscale (gray != 0, 1 byte per pixel) with DCT scaling
/// 1/scale_denom (1, 2, 4 or 8; any other value means 1), into the caller's buffer `pixels`, which must
/// hold exactly the decoded size: ceil(width / scale_denom) * ceil(height / scale_denom) * components
/// bytes (-5 otherwise, before any pixel is written). The caller allocates it, so the decoded photo is
/// never held twice (a C buffer and a copy).
/// max_pixels bounds the *source* width*height; a bigger header fails (-2).
/// strict != 0 turns corrupt-data warnings (bad entropy data, stray markers) into errors (-3), at the first
/// one: the decode stops there instead of walking the rest of the image (a short file of empty scans).
/// -4: the data ran out before anything else went wrong (a truncated file): an error in strict mode,
/// and whenever libjpeg itself gives up after running out.
/// limits (may be NULL: none) bound the scans, the coefficient buffer and the time (BS_JPEG_OVER_*).
/// Returns 0 on success, negative on error (message in errbuf); out is filled on success only.
int bs_jpeg_decode(const unsigned char *data, size_t length, int scale_denom,
                   unsigned long long max_pixels, int strict, int gray, const bs_jpeg_limits *limits,
                   unsigned char *pixels, size_t pixels_len, bs_jpeg_image *out,
                   char *errbuf, size_t errbuf_len);

/// Encodes RGB pixels to a JPEG without any metadata: baseline, or progressive != 0 with libjpeg's standard
/// progression (jpeg_simple_progression, what `cjpeg -progressive` writes: 10 scans for colour).
/// *out must be freed with bs_jpeg_free_buffer.
int bs_jpeg_encode(const unsigned char *rgb, int width, int height, int quality, int progressive,
                   unsigned char **out, unsigned long *out_len,
                   char *errbuf, size_t errbuf_len);

/// Frees a buffer returned by bs_jpeg_encode.
void bs_jpeg_free_buffer(unsigned char *buffer);
