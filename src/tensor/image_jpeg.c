/* JPEG decoding with libjpeg(-turbo), as nvdla_runtime does it (see
 * image_jpeg.h).  libjpeg reports fatal errors through error_exit, which by
 * default ends the process: ours jumps back here instead. */
#include "image_jpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>

/* Every scan of a progressive JPEG walks every block of the image, and a
 * file of a few kilobytes can hold thousands of scans: minutes of decoding
 * for nothing.  Encoders write about ten; libjpeg-turbo's tools stop at 500. */
#define JPEG_MAX_SCANS 500

struct jpeg_failure {
    struct jpeg_error_mgr mgr; /* first: libjpeg hands back a pointer to it */
    struct jpeg_progress_mgr progress;
    jmp_buf env;
    char warning[JMSG_LENGTH_MAX];
    char refusal[JMSG_LENGTH_MAX]; /* ours, when we stop the decoder */
};

static void on_fatal_error(j_common_ptr info)
{
    struct jpeg_failure *f = (struct jpeg_failure *)info->err;
    longjmp(f->env, 1);
}

static void on_progress(j_common_ptr info)
{
    struct jpeg_failure *f = (struct jpeg_failure *)info->err;
    int scans = ((j_decompress_ptr)info)->input_scan_number;
    if (scans <= JPEG_MAX_SCANS)
        return;
    snprintf(f->refusal, sizeof f->refusal, "more than %d progressive scans", JPEG_MAX_SCANS);
    longjmp(f->env, 1);
}

/* libjpeg's warnings (corrupt or truncated data it works around): keep the
 * first for the caller instead of printing it. */
static void on_warning(j_common_ptr info)
{
    struct jpeg_failure *f = (struct jpeg_failure *)info->err;
    if (!f->warning[0])
        (*info->err->format_message)(info, f->warning);
}

bool jpeg_looks_like(const uint8_t *buf, size_t len)
{
    return len >= 3 && buf[0] == 0xff && buf[1] == 0xd8 && buf[2] == 0xff;
}

/* The output the runtime asks for: one channel for grayscale, B, G, R for
 * colour; 0 for the colour spaces it refuses (CMYK, YCCK, unknown). */
static unsigned choose_output(struct jpeg_decompress_struct *info)
{
    switch (info->jpeg_color_space) {
    case JCS_GRAYSCALE:
        info->out_color_space = JCS_GRAYSCALE;
        return 1;
    case JCS_YCbCr:
    case JCS_RGB:
        info->out_color_space = JCS_EXT_BGR;
        return 3;
    default:
        return 0;
    }
}

/* Our handlers instead of libjpeg's, which print and exit. */
static void failure_init(struct jpeg_failure *f, struct jpeg_decompress_struct *info)
{
    memset(f, 0, sizeof *f);
    info->err = jpeg_std_error(&f->mgr);
    f->mgr.error_exit = on_fatal_error;
    f->mgr.output_message = on_warning;
    f->progress.progress_monitor = on_progress;
}

/* After jpeg_read_header: a colour space and a size we decode, with the
 * bytes of the decoded image in *bytes; false with err otherwise. */
static bool header_acceptable(struct jpeg_decompress_struct *info, const char *name,
                              unsigned *channels, uint64_t *bytes, char *err, size_t errlen)
{
    *channels = choose_output(info);
    if (!*channels) {
        snprintf(err, errlen,
                 "%s: JPEG colour space %d; nvdla_runtime reads grayscale, YCbCr and RGB JPEGs "
                 "only",
                 name, (int)info->jpeg_color_space);
        return false;
    }
    *bytes = (uint64_t)info->image_width * info->image_height * *channels;
    if (*bytes == 0 || *bytes > HOST_IMAGE_MAX_BYTES) {
        snprintf(err, errlen, "%s: JPEG of %ux%u pixels (1 to %u bytes expected)", name,
                 info->image_width, info->image_height, HOST_IMAGE_MAX_BYTES);
        return false;
    }
    return true;
}

static void read_rows(struct jpeg_decompress_struct *info, uint8_t *pixels, unsigned channels)
{
    size_t row_bytes = (size_t)info->output_width * channels;
    while (info->output_scanline < info->output_height) {
        JSAMPROW row = pixels + (size_t)info->output_scanline * row_bytes;
        jpeg_read_scanlines(info, &row, 1);
    }
}

bool jpeg_decode(const uint8_t *buf, size_t len, const char *name, struct host_image *img,
                 char *warn, size_t warnlen, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    if (warnlen)
        warn[0] = '\0';
    struct jpeg_decompress_struct info;
    struct jpeg_failure fail;
    uint8_t *volatile pixels = NULL;
    failure_init(&fail, &info);
    if (setjmp(fail.env)) { /* libjpeg's fatal error, or on_progress's refusal */
        char msg[JMSG_LENGTH_MAX];
        if (fail.refusal[0])
            snprintf(msg, sizeof msg, "%s", fail.refusal);
        else
            (*fail.mgr.format_message)((j_common_ptr)&info, msg);
        snprintf(err, errlen, "%s: not a JPEG nvdla_runtime can read: %s", name, msg);
        jpeg_destroy_decompress(&info);
        free(pixels);
        return false;
    }
    jpeg_create_decompress(&info);
    info.progress = &fail.progress;
    jpeg_mem_src(&info, buf, (unsigned long)len);
    jpeg_read_header(&info, TRUE);
    unsigned channels;
    uint64_t bytes;
    if (!header_acceptable(&info, name, &channels, &bytes, err, errlen)) {
        jpeg_destroy_decompress(&info);
        return false;
    }
    info.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&info);
    pixels = malloc((size_t)bytes);
    if (!pixels) {
        snprintf(err, errlen, "%s: out of memory", name);
        jpeg_destroy_decompress(&info);
        return false;
    }
    read_rows(&info, pixels, channels);
    uint32_t width = info.output_width, height = info.output_height;
    jpeg_finish_decompress(&info); /* may still fail: img stays empty until it is done */
    jpeg_destroy_decompress(&info);
    if (fail.warning[0] && warnlen)
        snprintf(warn, warnlen, "%s: %s", name, fail.warning);
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->pixels = pixels;
    return true;
}
