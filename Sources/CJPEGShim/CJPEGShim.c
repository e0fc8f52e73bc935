// Every libjpeg call that can fail runs behind its own setjmp here, so a corrupt file turns into
// an error message instead of libjpeg's default exit(), and no longjmp ever crosses a Swift frame.
#include "CJPEGShim.h"
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int warnings;
    char warning[JMSG_LENGTH_MAX];
    /// The data ran out (libjpeg's JWRN_JPEG_EOF) before anything else went wrong: the file is truncated.
    int ran_out_first;
} bs_error_mgr;

static void bs_error_exit(j_common_ptr cinfo) {
    bs_error_mgr *err = (bs_error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

static void bs_output_message(j_common_ptr cinfo) {
    (void)cinfo; // nothing is ever printed to stderr
}

// Corrupt-data warnings (truncated file, bad Huffman code, …) are counted so strict decoding can refuse them.
static void bs_emit_message(j_common_ptr cinfo, int msg_level) {
    bs_error_mgr *err = (bs_error_mgr *)cinfo->err;
    if (msg_level < 0) {
        if (err->warnings == 0) {
            (*cinfo->err->format_message)(cinfo, err->warning);
            err->ran_out_first = cinfo->err->msg_code == JWRN_JPEG_EOF;
        }
        err->warnings++;
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

int bs_jpeg_read_header(const unsigned char *data, size_t length,
                        int *width, int *height, int *components,
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
    *width = (int)cinfo->image_width;
    *height = (int)cinfo->image_height;
    *components = cinfo->num_components;
    jpeg_destroy_decompress(cinfo);
    free(cinfo); free(err);
    return 0;
}

int bs_jpeg_decode(const unsigned char *data, size_t length, int scale_denom,
                   unsigned long long max_pixels, int strict, int gray,
                   unsigned char *pixels, size_t pixels_len, bs_jpeg_image *out,
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
    unsigned long long source_pixels = (unsigned long long)cinfo->image_width * cinfo->image_height;
    if (max_pixels > 0 && source_pixels > max_pixels) {
        snprintf(err->message, sizeof(err->message), "image is %ux%u, over the limit of %llu pixels",
                 cinfo->image_width, cinfo->image_height, max_pixels);
        copy_message(err, errbuf, errbuf_len);
        jpeg_destroy_decompress(cinfo);
        free(cinfo); free(err);
        return -2;
    }
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) scale_denom = 1;
    cinfo->scale_num = 1;
    cinfo->scale_denom = (unsigned int)scale_denom;
    cinfo->out_color_space = gray ? JCS_GRAYSCALE : JCS_RGB;
    cinfo->dct_method = JDCT_ISLOW;
    jpeg_start_decompress(cinfo);
    size_t stride = (size_t)cinfo->output_width * (gray ? 1 : 3);
    if (!pixels || stride * cinfo->output_height != pixels_len) {
        snprintf(err->message, sizeof(err->message), "decoded size %ux%u does not fit the %zu-byte buffer",
                 cinfo->output_width, cinfo->output_height, pixels_len);
        copy_message(err, errbuf, errbuf_len);
        jpeg_destroy_decompress(cinfo);
        free(cinfo); free(err);
        return -5;
    }
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW row = pixels + stride * cinfo->output_scanline;
        jpeg_read_scanlines(cinfo, &row, 1);
    }
    jpeg_finish_decompress(cinfo);
    if (strict && err->warnings > 0) {
        set_message(err->warning, errbuf, errbuf_len);
        int status = err->ran_out_first ? -4 : -3;
        jpeg_destroy_decompress(cinfo);
        free(cinfo); free(err);
        return status;
    }
    out->width = (int)cinfo->output_width;
    out->height = (int)cinfo->output_height;
    out->source_width = (int)cinfo->image_width;
    out->source_height = (int)cinfo->image_height;
    out->components = gray ? 1 : 3;
    jpeg_destroy_decompress(cinfo);
    free(cinfo); free(err);
    return 0;
}

int bs_jpeg_encode(const unsigned char *rgb, int width, int height, int quality,
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
