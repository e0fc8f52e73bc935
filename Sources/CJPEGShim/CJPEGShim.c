// Every libjpeg call that can fail runs behind its own setjmp here, so a corrupt file turns into
// an error message instead of libjpeg's default exit(), and no longjmp ever crosses a Swift frame.
#include "CJPEGShim.h"
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int warnings;
    char warning[JMSG_LENGTH_MAX];
    /// The data ran out (libjpeg's JWRN_JPEG_EOF) before anything else went wrong: the file is truncated.
    int ran_out_first;
    /// Strict decoding: the first corrupt-data warning ends the decode (stopped_on_warning is then set).
    int strict;
    int stopped_on_warning;
} bs_error_mgr;

/// What stops a decode before it is done: too many scans or too much time (the memory limit is libjpeg's own
/// max_memory_to_use). Checked by libjpeg's progress monitor, which it calls once per iMCU row of every scan
/// it absorbs (and per output row), so a limit ends a decode within one row of being passed.
typedef struct {
    struct jpeg_progress_mgr pub;
    int max_scans;                ///< 0: no limit
    long long deadline_ns;        ///< CLOCK_MONOTONIC; 0: no limit
    int stopped;                  ///< BS_JPEG_OVER_SCANS or BS_JPEG_OVER_TIME once a limit stopped the decode
} bs_progress_mgr;

static long long monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

// The same check as djpeg's -maxscans (libjpeg-turbo's cdjpeg.c), plus a deadline; an error out of here
// longjmps through the shim's error manager like any other libjpeg error.
static void bs_progress_monitor(j_common_ptr cinfo) {
    bs_progress_mgr *progress = (bs_progress_mgr *)cinfo->progress;
    bs_error_mgr *err = (bs_error_mgr *)cinfo->err;
    if (cinfo->is_decompressor && progress->max_scans > 0) {
        int scan = ((j_decompress_ptr)cinfo)->input_scan_number;
        if (scan > progress->max_scans) {
            progress->stopped = BS_JPEG_OVER_SCANS;
            snprintf(err->message, sizeof(err->message), "the JPEG has more than %d scans", progress->max_scans);
            longjmp(err->jump, 1);
        }
    }
    if (progress->deadline_ns > 0 && monotonic_ns() >= progress->deadline_ns) {
        progress->stopped = BS_JPEG_OVER_TIME;
        snprintf(err->message, sizeof(err->message), "decoding took longer than its time limit");
        longjmp(err->jump, 1);
    }
}

/// Bytes libjpeg's whole-image coefficient buffer takes (0 for a single-scan JPEG, which has none): one
/// 64-coefficient block of 2-byte JCOEFs per 8x8 block of every component, each component's block counts
/// rounded up to its sampling factors (as jdcoefct.c requests them). Valid after jpeg_read_header.
static unsigned long long coefficient_bytes(j_decompress_ptr cinfo) {
    if (!jpeg_has_multiple_scans(cinfo)) return 0;
    unsigned long long total = 0;
    for (int ci = 0; ci < cinfo->num_components; ci++) {
        const jpeg_component_info *comp = &cinfo->comp_info[ci];
        unsigned long long h = (unsigned long long)comp->h_samp_factor, v = (unsigned long long)comp->v_samp_factor;
        unsigned long long wide = (comp->width_in_blocks + h - 1) / h * h;
        unsigned long long tall = (comp->height_in_blocks + v - 1) / v * v;
        total += wide * tall * (unsigned long long)sizeof(JBLOCK);
    }
    return total;
}

int bs_jpeg_count_scans(const unsigned char *data, size_t length) {
    if (!data || length < 2) return 0;
    int scans = 0;
    size_t i = 2;  // after SOI
    while (i + 1 < length) {
        // The next marker, as libjpeg's next_marker finds it: skip to 0xFF, past fill bytes; 0xFF00 is not one.
        if (data[i] != 0xFF) { i++; continue; }
        unsigned char marker = data[i + 1];
        if (marker == 0xFF) { i++; continue; }
        i += 2;
        if (marker == 0x00 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) continue;  // no length
        if (marker == 0xD9) break;  // EOI
        if (i + 1 >= length) break;
        size_t segment = ((size_t)data[i] << 8) | data[i + 1];
        if (segment < 2) break;  // libjpeg refuses such a segment
        i += segment;
        if (marker != 0xDA) continue;
        scans++;
        // Entropy-coded data runs to the next 0xFF that is neither stuffed (0xFF00) nor a restart marker.
        while (i + 1 < length) {
            const unsigned char *ff = memchr(data + i, 0xFF, length - i - 1);
            if (!ff) { i = length; break; }
            i = (size_t)(ff - data);
            unsigned char next = data[i + 1];
            if (next == 0x00 || (next >= 0xD0 && next <= 0xD7)) { i += 2; continue; }
            break;
        }
    }
    return scans;
}

/// Room for libjpeg's own row buffers and tables, which it allocates before the coefficient buffer and which
/// count against max_memory_to_use when that buffer is realised: proportional to the width, never to the height.
static unsigned long long working_allowance(j_decompress_ptr cinfo) {
    return 4ULL * 1024 * 1024 + 512ULL * cinfo->image_width * (unsigned long long)cinfo->num_components;
}

static void bs_error_exit(j_common_ptr cinfo) {
    bs_error_mgr *err = (bs_error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

static void bs_output_message(j_common_ptr cinfo) {
    (void)cinfo; // nothing is ever printed to stderr
}

// Corrupt-data warnings (truncated file, bad Huffman code, …) are counted; strict decoding stops at the first
// (libjpeg would go on through every remaining scan of the image, filling in zeros).
static void bs_emit_message(j_common_ptr cinfo, int msg_level) {
    bs_error_mgr *err = (bs_error_mgr *)cinfo->err;
    if (msg_level < 0) {
        if (err->warnings == 0) {
            (*cinfo->err->format_message)(cinfo, err->warning);
            err->ran_out_first = cinfo->err->msg_code == JWRN_JPEG_EOF;
        }
        err->warnings++;
        if (err->strict) {
            err->stopped_on_warning = 1;
            longjmp(err->jump, 1);
        }
    }
}

static void copy_message(const bs_error_mgr *err, char *errbuf, size_t errbuf_len) {
    if (errbuf && errbuf_len > 0) {
        strncpy(errbuf, err->message, errbuf_len - 1);
        errbuf[errbuf_len - 1] = '\0';
    }
}

static void set_message(const char *message, char *errbuf, size_t errbuf_len) {
    if (errbuf && errbuf_len > 0) {
        strncpy(errbuf, message, errbuf_len - 1);
        errbuf[errbuf_len - 1] = '\0';
    }
}

static bs_error_mgr *new_error_mgr(void) {
    bs_error_mgr *err = calloc(1, sizeof(bs_error_mgr));
    if (!err) return NULL;
    jpeg_std_error(&err->pub);
    err->pub.error_exit = bs_error_exit;
    err->pub.output_message = bs_output_message;
    err->pub.emit_message = bs_emit_message;
    return err;
}

int bs_jpeg_read_header(const unsigned char *data, size_t length, bs_jpeg_header *out,
                        char *errbuf, size_t errbuf_len) {
    if (length == 0) { set_message("empty input", errbuf, errbuf_len); return -1; }
    struct jpeg_decompress_struct *cinfo = calloc(1, sizeof(struct jpeg_decompress_struct));
    bs_error_mgr *err = new_error_mgr();
    if (!cinfo || !err) { free(cinfo); free(err); set_message("out of memory", errbuf, errbuf_len); return -1; }
    cinfo->err = &err->pub;
    if (setjmp(err->jump)) {
        // Out of data first: say so ("Premature end of JPEG file"), not what libjpeg tripped over next.
        if (err->ran_out_first) set_message(err->warning, errbuf, errbuf_len); else copy_message(err, errbuf, errbuf_len);
        int status = err->ran_out_first ? -4 : -1;
        jpeg_destroy_decompress(cinfo);
        free(cinfo); free(err);
        return status;
    }
    jpeg_create_decompress(cinfo);
    jpeg_mem_src(cinfo, data, (unsigned long)length);
    jpeg_read_header(cinfo, TRUE);
    out->width = (int)cinfo->image_width;
    out->height = (int)cinfo->image_height;
    out->components = cinfo->num_components;
    out->progressive = cinfo->progressive_mode ? 1 : 0;
    out->coefficient_bytes = coefficient_bytes(cinfo);
    out->scans = bs_jpeg_count_scans(data, length);
    out->arithmetic = cinfo->arith_code ? 1 : 0;
    jpeg_destroy_decompress(cinfo);
    free(cinfo); free(err);
    return 0;
}

/// `width` CMYK pixels of `in` as RGB (or gray, ITU-R BT.601 weights) in `out`: each channel is its ink's absence
/// times black's (`inverted`: the samples already are the absences, as Adobe writes them).
static void cmyk_to_rgb_or_gray(const JSAMPLE *in, JSAMPLE *out, JDIMENSION width, int inverted, int gray) {
    for (JDIMENSION x = 0; x < width; x++) {
        unsigned c = in[4 * x], m = in[4 * x + 1], y = in[4 * x + 2], k = in[4 * x + 3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        unsigned r = (c * k + 127) / 255, g = (m * k + 127) / 255, b = (y * k + 127) / 255;
        if (gray) {
            out[x] = (JSAMPLE)((r * 299 + g * 587 + b * 114 + 500) / 1000);
        } else {
            out[3 * x] = (JSAMPLE)r; out[3 * x + 1] = (JSAMPLE)g; out[3 * x + 2] = (JSAMPLE)b;
        }
    }
}

int bs_jpeg_decode(const unsigned char *data, size_t length, int scale_denom,
                   unsigned long long max_pixels, int strict, int gray, const bs_jpeg_limits *limits,
                   unsigned char *pixels, size_t pixels_len, bs_jpeg_image *out,
                   char *errbuf, size_t errbuf_len) {
    if (length == 0) { set_message("empty input", errbuf, errbuf_len); return -1; }
    long long started = monotonic_ns();
    struct jpeg_decompress_struct *cinfo = calloc(1, sizeof(struct jpeg_decompress_struct));
    bs_error_mgr *err = new_error_mgr();
    bs_progress_mgr *progress = calloc(1, sizeof(bs_progress_mgr));
    if (!cinfo || !err || !progress) {
        free(cinfo); free(err); free(progress);
        set_message("out of memory", errbuf, errbuf_len);
        return -1;
    }
    progress->pub.progress_monitor = bs_progress_monitor;
    progress->max_scans = limits ? limits->max_scans : 0;
    progress->deadline_ns = limits && limits->time_limit_ns > 0 ? started + limits->time_limit_ns : 0;
    cinfo->err = &err->pub;
    err->strict = strict;
    if (setjmp(err->jump)) {
        int status;
        if (err->stopped_on_warning) {
            set_message(err->warning, errbuf, errbuf_len);
            status = err->ran_out_first ? -4 : -3;
        } else if (progress->stopped) {
            copy_message(err, errbuf, errbuf_len);
            status = progress->stopped;
        } else if (err->pub.msg_code == JERR_NO_BACKING_STORE) {
            // libjpeg wanted more whole-image memory than max_memory_to_use allows (jmemnobs.c has no temp files).
            copy_message(err, errbuf, errbuf_len);
            status = BS_JPEG_OVER_MEMORY;
        } else {
            // Out of data first: say so ("Premature end of JPEG file"), not what libjpeg tripped over next.
            if (err->ran_out_first) set_message(err->warning, errbuf, errbuf_len); else copy_message(err, errbuf, errbuf_len);
            status = err->ran_out_first ? -4 : -1;
        }
        jpeg_destroy_decompress(cinfo);
        free(cinfo); free(err); free(progress);
        return status;
    }
    jpeg_create_decompress(cinfo);
    cinfo->progress = &progress->pub;
    jpeg_mem_src(cinfo, data, (unsigned long)length);
    jpeg_read_header(cinfo, TRUE);
    unsigned long long source_pixels = (unsigned long long)cinfo->image_width * cinfo->image_height;
    if (max_pixels > 0 && source_pixels > max_pixels) {
        snprintf(err->message, sizeof(err->message), "image is %ux%u, over the limit of %llu pixels",
                 cinfo->image_width, cinfo->image_height, max_pixels);
        copy_message(err, errbuf, errbuf_len);
        jpeg_destroy_decompress(cinfo);
        free(cinfo); free(err); free(progress);
        return -2;
    }
    if (limits && limits->refuse_arithmetic && cinfo->arith_code) {
        snprintf(err->message, sizeof(err->message), "it is arithmetic-coded");
        copy_message(err, errbuf, errbuf_len);
        jpeg_destroy_decompress(cinfo);
        free(cinfo); free(err); free(progress);
        return BS_JPEG_ARITHMETIC;
    }
    unsigned long long coefficients = coefficient_bytes(cinfo);
    if (limits && limits->max_memory > 0) {
        if (coefficients > limits->max_memory) {
            snprintf(err->message, sizeof(err->message), "decoding it needs a %llu-byte coefficient buffer, over the limit of %llu bytes",
                     coefficients, limits->max_memory);
            copy_message(err, errbuf, errbuf_len);
            jpeg_destroy_decompress(cinfo);
            free(cinfo); free(err); free(progress);
            return BS_JPEG_OVER_MEMORY;
        }
        cinfo->mem->max_memory_to_use = (long)(limits->max_memory + working_allowance(cinfo));
    }
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) scale_denom = 1;
    cinfo->scale_num = 1;
    cinfo->scale_denom = (unsigned int)scale_denom;
    // CMYK and YCCK (Adobe's, as some scanners and phones save) come out as CMYK samples, turned into RGB or gray
    // row by row below: libjpeg converts them to nothing else.
    int cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
    cinfo->out_color_space = cmyk ? JCS_CMYK : (gray ? JCS_GRAYSCALE : JCS_RGB);
    cinfo->dct_method = JDCT_ISLOW;
    jpeg_start_decompress(cinfo);
    size_t stride = (size_t)cinfo->output_width * (gray ? 1 : 3);
    if (!pixels || stride * cinfo->output_height != pixels_len) {
        snprintf(err->message, sizeof(err->message), "decoded size %ux%u does not fit the %zu-byte buffer",
                 cinfo->output_width, cinfo->output_height, pixels_len);
        copy_message(err, errbuf, errbuf_len);
        jpeg_destroy_decompress(cinfo);
        free(cinfo); free(err); free(progress);
        return -5;
    }
    // One row of CMYK samples, in libjpeg's pool (freed with the decompressor, on every path).
    JSAMPARRAY cmyk_row = cmyk ? (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, cinfo->output_width * 4, 1) : NULL;
    // Adobe's marker means Photoshop's inverted CMYK (0 is full ink), which every Adobe CMYK file uses.
    int inverted = cinfo->saw_Adobe_marker;
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW row = pixels + stride * cinfo->output_scanline;
        if (!cmyk) {
            jpeg_read_scanlines(cinfo, &row, 1);
            continue;
        }
        jpeg_read_scanlines(cinfo, cmyk_row, 1);
        cmyk_to_rgb_or_gray(cmyk_row[0], row, cinfo->output_width, inverted, gray);
    }
    jpeg_finish_decompress(cinfo);
    if (strict && err->warnings > 0) {
        set_message(err->warning, errbuf, errbuf_len);
        int status = err->ran_out_first ? -4 : -3;
        jpeg_destroy_decompress(cinfo);
        free(cinfo); free(err); free(progress);
        return status;
    }
    out->width = (int)cinfo->output_width;
    out->height = (int)cinfo->output_height;
    out->source_width = (int)cinfo->image_width;
    out->source_height = (int)cinfo->image_height;
    out->components = gray ? 1 : 3;
    jpeg_destroy_decompress(cinfo);
    free(cinfo); free(err); free(progress);
    return 0;
}

int bs_jpeg_encode(const unsigned char *rgb, int width, int height, int quality, int progressive,
                   unsigned char **out, unsigned long *out_len,
                   char *errbuf, size_t errbuf_len) {
    if (width <= 0 || height <= 0 || !rgb) { set_message("empty image", errbuf, errbuf_len); return -1; }
    struct jpeg_compress_struct *cinfo = calloc(1, sizeof(struct jpeg_compress_struct));
    bs_error_mgr *err = new_error_mgr();
    if (!cinfo || !err) { free(cinfo); free(err); set_message("out of memory", errbuf, errbuf_len); return -1; }
    unsigned char *volatile buffer = NULL;
    unsigned long volatile size = 0;
    cinfo->err = &err->pub;
    if (setjmp(err->jump)) {
        copy_message(err, errbuf, errbuf_len);
        jpeg_destroy_compress(cinfo);
        free(buffer);
        free(cinfo); free(err);
        return -1;
    }
    jpeg_create_compress(cinfo);
    jpeg_mem_dest(cinfo, (unsigned char **)&buffer, (unsigned long *)&size);
    cinfo->image_width = (JDIMENSION)width;
    cinfo->image_height = (JDIMENSION)height;
    cinfo->input_components = 3;
    cinfo->in_color_space = JCS_RGB;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(cinfo);
    cinfo->write_JFIF_header = TRUE;
    jpeg_start_compress(cinfo, TRUE);
    size_t stride = (size_t)width * 3;
    while (cinfo->next_scanline < cinfo->image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + stride * cinfo->next_scanline);
        jpeg_write_scanlines(cinfo, &row, 1);
    }
    jpeg_finish_compress(cinfo);
    jpeg_destroy_compress(cinfo);
    *out = buffer;
    *out_len = size;
    free(cinfo); free(err);
    return 0;
}

void bs_jpeg_free_buffer(unsigned char *buffer) { free(buffer); }
